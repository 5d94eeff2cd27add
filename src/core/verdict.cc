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

namespace {

bool is_provenance(ReasonCode c) {
  return c == ReasonCode::kProvenanceMissing || c == ReasonCode::kProvenanceInvalid ||
         c == ReasonCode::kProvenanceUnverifiable || c == ReasonCode::kProvenanceRemoved ||
         c == ReasonCode::kSignatureMissing;
}

// The codes the maturity bypass may lift: no scanner has said anything against the version.
bool maturity_bypassable(ReasonCode c) {
  return c == ReasonCode::kScanPending || c == ReasonCode::kScannerError || c == ReasonCode::kScannerUnsupported;
}

std::string age_text(std::int64_t secs) {
  return std::to_string(secs) + "s";
}

}  // namespace

Verdict evaluate(const Coordinate& c, std::vector<Finding> findings, std::vector<std::string> scanners_done,
                 const SecurityPolicy& policy, const Moment& at) {
  Verdict v;
  v.package = c;
  v.policy_ref = c.registry + "/default";

  // 1. Derived findings are derived again, never carried over.
  std::erase_if(findings, [](const Finding& f) { return f.kind == FindingKind::kAge || f.kind == FindingKind::kPending; });
  if (policy.min_age_secs > 0) {
    if (!at.published_at) {
      if (policy.hold_missing_timestamp) {
        Finding f;
        f.scanner = "age";
        f.kind = FindingKind::kAge;
        f.code = ReasonCode::kTimestampMissing;
        f.severity = Severity::kHigh;
        f.summary = "the registry gives no publication date, and versions younger than " +
                    age_text(policy.min_age_secs) + " are held";
        findings.push_back(std::move(f));
      }
    } else if (at.now < *at.published_at + policy.min_age_secs) {
      Finding f;
      f.scanner = "age";
      f.kind = FindingKind::kAge;
      f.code = ReasonCode::kMinAgeNotMet;
      f.severity = Severity::kHigh;
      f.summary = "published " + age_text(std::max<std::int64_t>(at.now - *at.published_at, 0)) +
                  " ago; held until it is " + age_text(policy.min_age_secs) + " old";
      f.available_at = *at.published_at + policy.min_age_secs;
      findings.push_back(std::move(f));
    }
  }
  for (const std::string& req : policy.required_scanners) {
    if (std::find(scanners_done.begin(), scanners_done.end(), req) != scanners_done.end()) continue;
    Finding f;
    f.scanner = "pending";
    f.kind = FindingKind::kPending;
    f.code = ReasonCode::kScanPending;
    f.severity = Severity::kHigh;
    f.summary = "required scanner '" + req + "' has not answered yet";
    findings.push_back(std::move(f));
  }

  // 2. Escalations, per scanner.
  for (const auto& entry : policy.escalations) {
    // Named, not bound: clang 14 (the fuzz build) cannot capture a structured binding.
    const std::string& scanner = entry.first;
    const Escalation& e = entry.second;
    auto matches = [&](const Finding& f) {
      return f.scanner == scanner && f.severity >= e.from &&
             std::find(e.kinds.begin(), e.kinds.end(), f.kind) != e.kinds.end();
    };
    const auto n = std::count_if(findings.begin(), findings.end(), matches);
    if (n < e.count || n == 0) continue;
    for (Finding& f : findings) {
      if (matches(f)) f.severity = std::max(f.severity, e.to);
    }
  }

  // 3. The worst state any finding gives.
  std::vector<ReasonCode> holding;  // the codes behind a quarantine
  std::optional<std::int64_t> lifts;
  auto raise = [&](VerdictState s, const Finding& f) {
    v.state = std::max(v.state, s);
    if (std::find(v.reason_codes.begin(), v.reason_codes.end(), f.code) == v.reason_codes.end()) {
      v.reason_codes.push_back(f.code);
    }
    if (s == VerdictState::kQuarantined) {
      holding.push_back(f.code);
      if (f.available_at) lifts = std::max(lifts.value_or(*f.available_at), *f.available_at);
    }
  };
  auto by_severity = [&](Severity s, const Finding& f) {
    if (s < policy.max_severity) return;
    raise(policy.mode == SecurityPolicy::Mode::kBlock ? VerdictState::kDenied : VerdictState::kWarned, f);
  };
  for (const Finding& f : findings) {
    switch (f.code) {
      case ReasonCode::kScannerError:
      case ReasonCode::kScannerUnsupported:
        if (policy.scanner_error == SecurityPolicy::ScannerErrors::kQuarantine) raise(VerdictState::kQuarantined, f);
        if (policy.scanner_error == SecurityPolicy::ScannerErrors::kWarn) raise(VerdictState::kWarned, f);
        break;
      case ReasonCode::kScanPending:
      case ReasonCode::kMinAgeNotMet:
      case ReasonCode::kTimestampMissing: raise(VerdictState::kQuarantined, f); break;
      case ReasonCode::kBlockList:
      case ReasonCode::kSocVerdict: raise(VerdictState::kDenied, f); break;
      case ReasonCode::kAdminOverride: break;
      case ReasonCode::kInstallHook:
        if (policy.deny_install_hooks == SecurityPolicy::InstallHooks::kDeny) by_severity(Severity::kCritical, f);
        if (policy.deny_install_hooks == SecurityPolicy::InstallHooks::kWarn) raise(VerdictState::kWarned, f);
        break;
      default:
        if (is_provenance(f.code) && !policy.require_provenance) break;
        by_severity(f.severity, f);
        break;
    }
  }

  // 4. The maturity bypass: a version old enough, which no scanner has spoken against, is
  // served with a warning rather than held for ever for want of an answer.
  if (v.state == VerdictState::kQuarantined && policy.mature_age_secs > 0 && at.published_at &&
      *at.published_at + policy.mature_age_secs <= at.now &&
      std::all_of(holding.begin(), holding.end(), maturity_bypassable)) {
    v.state = VerdictState::kWarned;
  }
  // 5. When the hold lifts: only a quarantine has one.
  if (v.state == VerdictState::kQuarantined) v.available_at = lifts;

  v.findings = std::move(findings);
  v.scanners_done = std::move(scanners_done);
  return v;
}

Verdict evaluate(const Package& p, std::vector<Finding> findings, std::vector<std::string> scanners_done,
                 const SecurityPolicy& policy) {
  return evaluate(p.coord(), std::move(findings), std::move(scanners_done), policy, Moment{});
}

}  // namespace batlehub::core
