#include "adapters/network_scanners/mlab.h"

#include <map>

#include "adapters/network_scanners/mlab_answer.h"

namespace batlehub::adapters::net {

using core::ScannerError;

Expected<Ok, ScannerError> MlabEnricher::enrich(std::vector<core::Finding>& findings,
                                                std::chrono::steady_clock::time_point deadline) const {
  const ApiOptions& api = o_.api;
  // One lookup per CVE, however many findings cite it; nothing is changed until all came
  // back, so that an error leaves the findings as they were.
  std::map<std::string, std::optional<MlabRecord>> records;
  for (const core::Finding& f : findings) {
    if (f.kind != core::FindingKind::kVulnerability) continue;
    auto cve = cve_of(f);
    if (!cve || records.contains(*cve)) continue;
    http::Request r;
    r.url = api.api_url + "/api/v1/cve/" + *cve;  // is_cve_id: letters, digits and '-' only
    r.headers = {{"Accept", "application/json"}};
    if (!o_.api_key.empty()) r.headers.emplace_back("Authorization", "Bearer " + o_.api_key);
    r.max_body = kMaxMlabRecord;
    auto got = call_api(client_, api, r, deadline, {404});
    if (!got) return Unexpected(got.error());
    if (got->status == 404) {
      records.emplace(*cve, std::nullopt);
      continue;
    }
    auto record = parse_mlab_cve(got->body);
    if (!record) return Unexpected(unreadable(api, r, record.error().describe()));
    records.emplace(*cve, std::move(*record));
  }
  for (core::Finding& f : findings) {
    if (f.kind != core::FindingKind::kVulnerability) continue;
    auto cve = cve_of(f);
    if (!cve) continue;
    if (auto it = records.find(*cve); it != records.end() && it->second) apply_enrichment(f, *it->second);
  }
  return Ok{};
}

}  // namespace batlehub::adapters::net
