// OSV (osv.dev) as a network scanner: which advisories name the version, and each component
// of the SBOM recorded for it.
//
// What leaves the worker: PURLs (the coordinate's, the SBOM's components') in
// POST {api_url}/v1/querybatch — again, with page tokens, for the queries whose ids run to
// more than one page — and each advisory id in GET {api_url}/v1/vulns/{id}. Batched
// because querybatch takes up to 1000 queries in one request; it answers ids only, so each
// distinct advisory is then fetched once for its severity, aliases and fix.
//
// Upstream counts an outage as a clean answer (its OSV client logs a failed PURL and goes
// on). That is kept by default so that verdicts match upstream's, but nothing is hidden:
// each failure is handed back as tolerated (logged, counted in
// batlehub_scanner_errors_total{scanner,class}); `on_outage = "error"` makes it the
// scanner's error instead (SCANNER_ERROR, the registry's scanner_error decides).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/http_client.h"
#include "adapters/network_scanners/api_call.h"
#include "core/network_scanner.h"

namespace batlehub::adapters::net {

inline constexpr const char* kOsvDefaultApi = "https://api.osv.dev";

struct OsvOptions {
  ApiOptions api;
  bool fail_closed = false;  // on_outage = "error"
};

class OsvScanner final : public core::NetworkScanner {
 public:
  explicit OsvScanner(OsvOptions o) : o_(std::move(o)), client_(o_.api.tls) {}
  const std::string& name() const override { return o_.api.name; }
  // Every kind with a PURL type OSV has an ecosystem for; conda has none.
  bool supports(core::PackageKind k) const override { return k != core::PackageKind::kConda; }
  bool reads_sbom() const override { return true; }
  Expected<core::Lookup, core::ScannerError> scan(const core::ScanInput& in,
                                                  std::chrono::steady_clock::time_point deadline) const override;

 private:
  OsvOptions o_;
  http::Client client_;
};

// The distinct PURLs of a CycloneDX document's components (nested ones included), in
// document order; at most `max` (a bigger SBOM is refused, not cut). Hostile bytes: bounded
// in size and depth before anything is built.
inline constexpr std::size_t kMaxSbomBytes = 32 * 1024 * 1024;
inline constexpr std::size_t kMaxSbomPurls = 10'000;
Expected<std::vector<std::string>, std::string> sbom_purls(std::string_view cyclonedx, std::size_t max = kMaxSbomPurls);

}  // namespace batlehub::adapters::net
