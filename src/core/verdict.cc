#include "core/verdict.h"

#include <algorithm>

#include "base/names.h"

namespace batlehub::core {

namespace {
constexpr base::Names<VerdictState, 4> kStateNames{{{VerdictState::kAllowed, "allowed"},
                                                   {VerdictState::kWarned, "warned"},
                                                   {VerdictState::kQuarantined, "quarantined"},
                                                   {VerdictState::kDenied, "denied"}}};
}  // namespace

std::string_view to_string(VerdictState s) { return base::name_of(kStateNames, s); }

Verdict evaluate(const Package& p, std::vector<Finding> findings, std::vector<std::string> scanners_done,
                 const SecurityPolicy& policy) {
  Verdict v;
  v.package = p.coord();
  v.policy_ref = p.registry + "/default";
  for (const std::string& req : policy.required_scanners) {
    if (std::find(scanners_done.begin(), scanners_done.end(), req) != scanners_done.end()) continue;
    Finding f;
    f.scanner = req;
    f.kind = FindingKind::kPending;
    f.code = ReasonCode::kScanPending;
    f.severity = Severity::kUnknown;
    f.summary = "required scanner " + req + " has not answered";
    findings.push_back(std::move(f));
  }
  auto raise = [&](VerdictState s, ReasonCode c) {
    v.state = std::max(v.state, s);
    if (std::find(v.reason_codes.begin(), v.reason_codes.end(), c) == v.reason_codes.end()) v.reason_codes.push_back(c);
  };
  auto by_severity = [&](Severity s, ReasonCode c) {
    if (s < policy.max_severity) return;
    raise(policy.mode == SecurityPolicy::Mode::kBlock ? VerdictState::kDenied : VerdictState::kWarned, c);
  };
  for (const Finding& f : findings) {
    switch (f.code) {
      case ReasonCode::kScannerError:
      case ReasonCode::kScannerUnsupported:
        if (policy.scanner_error == SecurityPolicy::ScannerErrors::kQuarantine) raise(VerdictState::kQuarantined, f.code);
        if (policy.scanner_error == SecurityPolicy::ScannerErrors::kWarn) raise(VerdictState::kWarned, f.code);
        break;
      case ReasonCode::kScanPending:
      case ReasonCode::kMinAgeNotMet:
      case ReasonCode::kTimestampMissing: raise(VerdictState::kQuarantined, f.code); break;
      case ReasonCode::kBlockList:
      case ReasonCode::kSocVerdict: raise(VerdictState::kDenied, f.code); break;
      case ReasonCode::kAdminOverride: break;
      case ReasonCode::kInstallHook:
        if (policy.deny_install_hooks == SecurityPolicy::InstallHooks::kDeny) by_severity(Severity::kCritical, f.code);
        if (policy.deny_install_hooks == SecurityPolicy::InstallHooks::kWarn) raise(VerdictState::kWarned, f.code);
        break;
      default: by_severity(f.severity, f.code); break;
    }
  }
  v.findings = std::move(findings);
  v.scanners_done = std::move(scanners_done);
  return v;
}

}  // namespace batlehub::core
