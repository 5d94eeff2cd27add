// The scanners that open nothing (RFC 0022 §6.3): osv, sigstore and socket ask an API about
// the package's coordinate, and mlab enriches the findings the others made. They run in the
// worker, outside any sandbox: no artifact-derived code runs, and what leaves the worker is
// a coordinate (a PURL, a CVE id), never the archive's bytes.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/findings.h"
#include "core/sandbox.h"
#include "core/scanner.h"

namespace batlehub::core {

// What a network scanner's lookup came back as.
struct Lookup {
  std::vector<Finding> findings;
  // Failures this scanner answers as clean, as upstream does (osv: an outage is no
  // vulnerability). Not findings: the caller logs each and counts it in
  // batlehub_scanner_errors_total{scanner,class}, so that an outage is seen, not hidden.
  std::vector<ScannerError> tolerated;
};

class NetworkScanner {
 public:
  virtual ~NetworkScanner() = default;
  virtual const std::string& name() const = 0;
  virtual bool supports(PackageKind k) const = 0;
  // Whether it asks about the components of ScanInput::sbom (osv): it then runs once the
  // scanners that inventory them (Trivy) are done, with their components as the SBOM.
  virtual bool reads_sbom() const { return false; }
  // Every request made within `deadline` (the job's budget; retries included).
  virtual Expected<Lookup, ScannerError> scan(const ScanInput& in,
                                              std::chrono::steady_clock::time_point deadline) const = 0;
};

// Runs after the scanners, on all their findings (mlab): it changes findings, never makes
// one. An error leaves the findings as they were.
class FindingEnricher {
 public:
  virtual ~FindingEnricher() = default;
  virtual const std::string& name() const = 0;
  virtual Expected<Ok, ScannerError> enrich(std::vector<Finding>& findings,
                                            std::chrono::steady_clock::time_point deadline) const = 0;
};

}  // namespace batlehub::core
