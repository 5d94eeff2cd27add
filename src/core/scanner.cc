#include "core/scanner.h"

namespace batlehub::core {

Expected<std::vector<Finding>, ScannerError> scan_with(const Scanner& scanner, SandboxRuntime& runtime,
                                                       const ScanInput& in, std::vector<std::string>* components) {
  auto plan = scanner.plan(in);
  if (!plan) return Unexpected(plan.error());
  std::vector<RunOutcome> results;
  results.reserve(plan->size());
  for (RunSpec& spec : *plan) {
    // The job and attempt are the caller's to know; the scanner plans only its own part.
    spec.label.job = in.job;
    spec.label.attempt = in.attempt;
    spec.label.trace_id = in.trace_id;
    spec.label.parent_span_id = in.parent_span_id;
    results.push_back(runtime.run(spec));
  }
  if (components != nullptr) *components = scanner.components(results);
  return scanner.parse(in, results);
}

std::string describe(const ScannerError& e) {
  switch (e.kind) {
    case ScannerError::Kind::kTimeout:
      return e.message.empty() ? "scanner timed out" : "scanner timed out: " + e.message;
    case ScannerError::Kind::kUpstream:
      return "scanner could not reach its upstream: " + e.message;
    case ScannerError::Kind::kOutput:
      return "scanner output could not be read: " + e.message;
    case ScannerError::Kind::kCrashed:
      return "scanner crashed: " + e.message;
    case ScannerError::Kind::kUnsupported:
      return "scanner input unavailable: " + e.message;
    case ScannerError::Kind::kOther:
      return e.message;
  }
  return e.message;
}

Finding scanner_error_finding(const std::string& scanner, const ScannerError& e) {
  Finding f;
  f.scanner = scanner;
  f.kind = FindingKind::kScannerError;
  f.code = e.kind == ScannerError::Kind::kUnsupported ? ReasonCode::kScannerUnsupported : ReasonCode::kScannerError;
  f.severity = Severity::kHigh;
  f.summary = describe(e);
  return f;
}

}  // namespace batlehub::core
