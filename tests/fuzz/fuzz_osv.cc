// fuzz_osv: what OSV answers the osv scanner (adapters/network_scanners/osv_answer.h): a
// querybatch answer, whose query count is the input's first byte, then the same bytes as a
// record (GET /v1/vulns/{id}) and as a query answer (POST /v1/query). None may crash or leak;
// an accepted batch has one result per query and only valid ids; an accepted record has a
// valid id and a printable, non-empty summary, and its finding's raw is JSON with its
// aliases; a refusal names where, and says it in printable text. The same bytes as the
// SBOM osv reads (osv.h's sbom_purls): distinct, non-empty PURLs, never more than asked.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "adapters/network_scanners/osv.h"
#include "adapters/network_scanners/osv_answer.h"
#include "answer_checks.h"

namespace net = batlehub::adapters::net;

namespace {

[[noreturn]] void fail(const char* why) {
  batlehub::fuzzing::fail("fuzz_osv", why);
}

using batlehub::fuzzing::printable_text;

void check_error(const net::AnswerError& e) {
  batlehub::fuzzing::check_refusal("fuzz_osv", e, "osv ");
}

void check_vuln(const net::OsvVuln& v) {
  if (!net::is_osv_id(v.id)) fail("an accepted record with an invalid id");
  if (v.summary.empty() || !printable_text(v.summary)) fail("an empty or unprintable summary");
  batlehub::core::Finding f = net::osv_finding("osv", v, "pkg:npm/x@1.0.0");
  auto raw = nlohmann::json::parse(f.raw, nullptr, /*allow_exceptions=*/false);
  if (raw.is_discarded() || !raw.is_object()) fail("a finding's raw that is not a JSON object");
  if (raw["aliases"].size() != v.aliases.size()) fail("a finding's raw that lost aliases");
  if (f.reference != v.id || f.summary != v.summary) fail("a finding that is not its record's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t queries = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (auto batch = net::parse_osv_batch(text, queries)) {
    if (batch->size() != queries) fail("a batch whose results are not one per query");
    for (const auto& r : *batch) {
      for (const auto& id : r.ids) {
        if (!net::is_osv_id(id)) fail("an accepted batch with an invalid id");
      }
      if (r.next_page_token.size() > text.size()) fail("a page token longer than the answer");
    }
  } else {
    check_error(batch.error());
  }
  if (auto v = net::parse_osv_vuln(text)) {
    check_vuln(*v);
  } else {
    check_error(v.error());
  }
  if (auto q = net::parse_osv_query(text)) {
    for (const auto& v : q->first) check_vuln(v);
  } else {
    check_error(q.error());
  }
  if (auto purls = net::sbom_purls(text, 64)) {
    if (purls->size() > 64) fail("more SBOM components than the cap");
    for (std::size_t i = 0; i < purls->size(); ++i) {
      if ((*purls)[i].empty()) fail("an empty SBOM component");
      for (std::size_t j = 0; j < i; ++j) {
        if ((*purls)[i] == (*purls)[j]) fail("an SBOM component twice");
      }
    }
  }
  return 0;
}
