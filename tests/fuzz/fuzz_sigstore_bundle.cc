// fuzz_sigstore_bundle: what npm's registry and Rekor answer the sigstore scanner
// (adapters/network_scanners/sigstore_answer.h). The same bytes are read as a version
// document, as an attestations answer and as a Rekor entry. None may crash or leak; every
// log index read is at most 2^63 - 1; an entry read is found absent without Rekor and
// matching against a Rekor entry made of itself, and differing from one a log index away;
// a Rekor entry's key is its UUID; an announced URL is printable ASCII; the findings' raw is
// always JSON; a refusal names where, in printable text.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/network_scanners/sigstore_answer.h"
#include "answer_checks.h"

namespace net = batlehub::adapters::net;

namespace {

constexpr std::uint64_t kMaxIndex = 9223372036854775807u;

[[noreturn]] void fail(const char* why) {
  batlehub::fuzzing::fail("fuzz_sigstore_bundle", why);
}

using batlehub::fuzzing::printable_text;

void check_error(const net::AnswerError& e, const char* answer) {
  batlehub::fuzzing::check_refusal("fuzz_sigstore_bundle", e, answer);
}

void check_raw(const batlehub::core::Finding& f) {
  if (!nlohmann::json::accept(f.raw)) fail("a finding whose raw is not JSON");
  if (!printable_text(f.summary)) fail("an unprintable summary");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto a = net::parse_npm_version_doc(text)) {
    if (a->url) {
      for (char c : *a->url) {
        if (c <= 0x20 || c >= 0x7f) fail("an announced URL with a byte no URL has");
      }
    }
  } else {
    check_error(a.error(), "npm version document");
  }

  if (auto bundles = net::parse_attestations(text)) {
    for (const auto& b : *bundles) {
      for (const auto& e : b.entries) {
        if (e.log_index > kMaxIndex) fail("a log index past 2^63 - 1");
        std::string why;
        if (net::check_entry(e, std::nullopt, &why) != net::TlogCheck::kAbsent || why.empty()) {
          fail("an entry not absent without Rekor");
        }
        net::RekorEntry mirror;
        mirror.uuid = std::string(64, 'a');
        mirror.log_index = e.log_index;
        mirror.integrated_time = e.integrated_time.value_or(0);
        mirror.body = e.canonicalized_body;
        if (net::check_entry(e, mirror, &why) != net::TlogCheck::kMatches || !why.empty()) {
          fail("an entry that does not match itself");
        }
        mirror.log_index = e.log_index == 0 ? 1 : e.log_index - 1;
        if (net::check_entry(e, mirror, &why) != net::TlogCheck::kDiffers || why.empty()) {
          fail("an entry that matches another log index");
        }
        check_raw(net::provenance_mismatch("sigstore", e.log_index, why));
        check_raw(net::provenance_not_logged("sigstore", e.log_index));
      }
    }
  } else {
    check_error(bundles.error(), "npm attestations");
  }

  if (auto r = net::parse_rekor_entry(text)) {
    if (r->log_index > kMaxIndex) fail("a Rekor log index past 2^63 - 1");
    if (r->uuid.size() != 64 && r->uuid.size() != 80) fail("a Rekor key that is no UUID");
    net::TlogEntry cited;
    cited.log_index = r->log_index;
    cited.integrated_time = r->integrated_time;
    cited.canonicalized_body = r->body;
    if (net::check_entry(cited, *r, nullptr) != net::TlogCheck::kMatches) fail("a Rekor entry unlike itself");
  } else {
    check_error(r.error(), "rekor entry");
  }

  check_raw(net::provenance_no_entry("sigstore", std::string(text)));
  check_raw(net::provenance_missing("sigstore", std::string(text.substr(0, 64))));
  return 0;
}
