// fuzz_mlab: what mlab's GET /api/v1/cve/{id} answers (adapters/network_scanners/
// mlab_answer.h), applied to a fixed finding; and the same bytes as a hostile finding's raw
// and reference. None may crash or leak; an accepted record's enrichment has its nine keys
// and lands whole in the finding's raw, which stays a JSON object; a KEV record makes the
// finding critical with the suffix once, however often applied; cve_of only ever names a CVE
// id; a refusal names where, in printable text.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "adapters/network_scanners/mlab_answer.h"
#include "answer_checks.h"

namespace net = batlehub::adapters::net;
using nlohmann::json;

namespace {

constexpr std::string_view kSuffix = " (CISA KEV: exploited in the wild)";

[[noreturn]] void fail(const char* why) {
  batlehub::fuzzing::fail("fuzz_mlab", why);
}

using batlehub::fuzzing::printable_text;

batlehub::core::Finding fixed_finding() {
  batlehub::core::Finding f;
  f.scanner = "osv";
  f.kind = batlehub::core::FindingKind::kVulnerability;
  f.code = batlehub::core::ReasonCode::kVulnerability;
  f.severity = batlehub::core::Severity::kHigh;
  f.reference = "GHSA-jfh8-c2jp-5v3q";
  f.summary = "Remote code injection in Log4j";
  f.raw = R"({"purl":"pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1","fixed_version":"2.15.0",)"
          R"("aliases":["CVE-2021-44228"]})";
  return f;
}

json enrichment_of(const std::string& raw) {
  json doc = json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("enrichment")) fail("raw lost its enrichment");
  return doc["enrichment"];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  net::MlabRecord record;
  if (auto r = net::parse_mlab_cve(text)) {
    if (!r->enrichment.is_object() || r->enrichment.size() != 9 || r->enrichment["source"] != "mlab") {
      fail("an enrichment without its nine keys");
    }
    record = *r;
    batlehub::core::Finding f = fixed_finding();
    if (net::cve_of(f) != "CVE-2021-44228") fail("the fixed finding's CVE not found");
    net::apply_enrichment(f, record);
    if (enrichment_of(f.raw) != record.enrichment) fail("an enrichment that did not land whole");
    if (record.in_kev) {
      if (f.severity != batlehub::core::Severity::kCritical) fail("a KEV CVE that is not critical");
      net::apply_enrichment(f, record);
      if (f.summary != "Remote code injection in Log4j" + std::string(kSuffix)) fail("the KEV suffix not once");
    } else if (f.severity != batlehub::core::Severity::kHigh || f.summary != fixed_finding().summary) {
      fail("a finding changed by a CVE not in KEV");
    }
  } else {
    if (r.error().where.rfind("mlab cve", 0) != 0) fail("a refusal that does not name the answer");
    if (!printable_text(r.error().describe())) fail("a refusal with control characters");
    record.enrichment = {{"source", "mlab"}, {"in_kev", true}};
    record.in_kev = true;
  }

  // The same bytes as a finding another scanner made: its raw and its reference.
  batlehub::core::Finding g;
  g.raw = std::string(text);
  g.reference = std::string(text.substr(0, 32));
  if (auto cve = net::cve_of(g); cve && !net::is_cve_id(*cve)) fail("cve_of named no CVE id");
  net::apply_enrichment(g, record);
  if (enrichment_of(g.raw) != record.enrichment) fail("an enrichment that did not land in a hostile raw");
  return 0;
}
