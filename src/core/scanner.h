// The scanner port: what a scanner is once the sandbox is a port (RFC 0022 §5.1, §6.3).
//
// A scanner plans its runs as data (RunSpecs: bundle, argv, network, limits, timeout),
// never touching a host path, and turns what came back into findings or a ScannerError.
// It knows nothing of where it runs.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/findings.h"
#include "core/sandbox.h"

namespace batlehub::core {

struct ScanInput {
  Package package;
  std::shared_ptr<const Blob> artifact;  // the package's archive; may be null
  std::optional<std::string> sbom;       // a CycloneDX SBOM recorded for the version
  // Which job and attempt the runs belong to: stamped on each run's label (spans, names).
  std::string job = "adhoc";
  int attempt = 1;
  // The job's budget: no network scanner's request outlives it (retries included).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // The job's trace and span, stamped on each run's label beside the job and attempt.
  std::string trace_id;
  std::string parent_span_id;
};

// What one planned run came back as.
using RunOutcome = Expected<RunOutput, SandboxError>;

class Scanner {
 public:
  virtual ~Scanner() = default;
  // The [scanners.<name>] name: findings carry it, runs are labelled with it, and under
  // bwrap it names the room.
  virtual const std::string& name() const = 0;
  virtual bool supports(PackageKind k) const = 0;
  // The runs this package needs, in order (postmortem's npm timeline is a second run, with
  // an empty bundle and the network). An artifact the scanner cannot use is Unsupported.
  virtual Expected<std::vector<RunSpec>, ScannerError> plan(const ScanInput& in) const = 0;
  // Findings from the planned runs' results (same order as plan()).
  virtual Expected<std::vector<Finding>, ScannerError> parse(const ScanInput& in,
                                                             const std::vector<RunOutcome>& results) const = 0;
  // Whether this scanner's runs inventory the package's components (Trivy's packages): the
  // network scanners that ask about an SBOM's components (osv) then wait for it.
  virtual bool inventories() const { return false; }
  // The components its runs found, as PURLs, from the same results parse() read; empty when
  // it inventories nothing or its report says nothing readable.
  virtual std::vector<std::string> components(const std::vector<RunOutcome>& /*results*/) const { return {}; }
};

// plan → run each through `runtime` → parse. A run's SandboxError reaches parse(), which
// decides (postmortem's timeline tolerates one; most scanners map it with
// to_scanner_error).
// `components`, when given, receives what scanner.components() read from the same runs.
Expected<std::vector<Finding>, ScannerError> scan_with(const Scanner& scanner, SandboxRuntime& runtime,
                                                       const ScanInput& in,
                                                       std::vector<std::string>* components = nullptr);

// The finding a scanner failure becomes (upstream's scan_worker): kind scanner_error,
// SCANNER_UNSUPPORTED for Unsupported and SCANNER_ERROR otherwise, severity high, the
// error's message as its summary.
Finding scanner_error_finding(const std::string& scanner, const ScannerError& e);

// Upstream's display text: "scanner timed out", "scanner crashed: …", …
std::string describe(const ScannerError& e);

}  // namespace batlehub::core
