// mlab.sh's CVE API as an enricher (upstream's mlab.rs): after the scanners, each
// vulnerability finding that names a CVE (its reference, or an alias OSV gave) gets the
// CVE's record as raw.enrichment — CVSS, EPSS, and whether CISA lists it as known
// exploited; a KEV-listed CVE is raised to critical, whatever its CVSS.
//
// What leaves the worker: one CVE id per distinct CVE, in GET {api_url}/api/v1/cve/<id>,
// with the key (when configured) as a bearer token. A CVE the database does not know (404)
// is left as it is. It makes no finding, so it is never a sensible required scanner.
#pragma once

#include <string>

#include "adapters/http/http_client.h"
#include "adapters/network_scanners/api_call.h"
#include "core/network_scanner.h"

namespace batlehub::adapters::net {

inline constexpr const char* kMlabDefaultApi = "https://vuln.mlab.sh";

struct MlabOptions {
  ApiOptions api;
  std::string api_key;  // optional: the endpoint answers without one
};

class MlabEnricher final : public core::FindingEnricher {
 public:
  explicit MlabEnricher(MlabOptions o) : o_(std::move(o)), client_(o_.api.tls) {}
  const std::string& name() const override { return o_.api.name; }
  Expected<Ok, core::ScannerError> enrich(std::vector<core::Finding>& findings,
                                          std::chrono::steady_clock::time_point deadline) const override;

 private:
  MlabOptions o_;
  http::Client client_;
};

}  // namespace batlehub::adapters::net
