// The verdict a package gets from its findings (upstream-today.md §5.3–§5.4).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/verdict.h"

namespace batlehub::core {
namespace {

using Mode = SecurityPolicy::Mode;
using Errors = SecurityPolicy::ScannerErrors;
using Hooks = SecurityPolicy::InstallHooks;

Package pkg() { return Package{PackageKind::kNpm, "left-pad", "1.3.0", "npm-sec"}; }

Finding finding(ReasonCode code, Severity sev, std::string scanner = "postmortem") {
  Finding f;
  f.scanner = std::move(scanner);
  f.code = code;
  f.severity = sev;
  f.summary = std::string(to_string(code));
  return f;
}

Verdict eval(std::vector<Finding> fs, SecurityPolicy p = {}, std::vector<std::string> done = {"postmortem"}) {
  return evaluate(pkg(), std::move(fs), std::move(done), p);
}

TEST(Verdict, no_findings_is_allowed_with_no_reasons) {
  Verdict v = eval({});
  EXPECT_EQ(v.state, VerdictState::kAllowed);
  EXPECT_TRUE(v.reason_codes.empty());
  EXPECT_TRUE(v.findings.empty());
  EXPECT_EQ(v.package.coordinate(), "npm-sec:left-pad@1.3.0");
  EXPECT_EQ(v.scanners_done, std::vector<std::string>{"postmortem"});
}

TEST(Verdict, state_names) {
  EXPECT_EQ(to_string(VerdictState::kAllowed), "allowed");
  EXPECT_EQ(to_string(VerdictState::kWarned), "warned");
  EXPECT_EQ(to_string(VerdictState::kQuarantined), "quarantined");
  EXPECT_EQ(to_string(VerdictState::kDenied), "denied");
}

TEST(Verdict, the_policy_ref_is_the_registrys_default) {
  EXPECT_EQ(eval({}).policy_ref, "npm-sec/default");
  Package p = pkg();
  p.registry = "pypi-mirror";
  EXPECT_EQ(evaluate(p, {}, {}, {}).policy_ref, "pypi-mirror/default");
}

TEST(Verdict, precedence_is_denied_over_quarantined_over_warned_over_allowed) {
  SecurityPolicy warn_mode;
  warn_mode.mode = Mode::kWarn;
  const Finding warned = finding(ReasonCode::kVulnerability, Severity::kCritical);  // warned in warn mode
  const Finding quarantined = finding(ReasonCode::kMinAgeNotMet, Severity::kUnknown);
  const Finding denied = finding(ReasonCode::kBlockList, Severity::kUnknown);
  const Finding allowed = finding(ReasonCode::kMalwareSignal, Severity::kLow);

  EXPECT_EQ(eval({allowed}, warn_mode).state, VerdictState::kAllowed);
  EXPECT_EQ(eval({allowed, warned}, warn_mode).state, VerdictState::kWarned);
  EXPECT_EQ(eval({warned, quarantined}, warn_mode).state, VerdictState::kQuarantined);
  EXPECT_EQ(eval({quarantined, warned}, warn_mode).state, VerdictState::kQuarantined);
  EXPECT_EQ(eval({denied, quarantined, warned}, warn_mode).state, VerdictState::kDenied);
  EXPECT_EQ(eval({warned, quarantined, denied, allowed}, warn_mode).state, VerdictState::kDenied);
}

TEST(Verdict, block_list_and_soc_verdict_deny_whatever_their_severity) {
  EXPECT_EQ(eval({finding(ReasonCode::kBlockList, Severity::kUnknown)}).state, VerdictState::kDenied);
  SecurityPolicy warn_mode;
  warn_mode.mode = Mode::kWarn;
  EXPECT_EQ(eval({finding(ReasonCode::kSocVerdict, Severity::kLow)}, warn_mode).state, VerdictState::kDenied);
}

TEST(Verdict, age_pending_and_missing_timestamp_quarantine) {
  for (ReasonCode c : {ReasonCode::kMinAgeNotMet, ReasonCode::kScanPending, ReasonCode::kTimestampMissing}) {
    Verdict v = eval({finding(c, Severity::kUnknown)});
    EXPECT_EQ(v.state, VerdictState::kQuarantined) << to_string(c);
    EXPECT_EQ(v.reason_codes, std::vector<ReasonCode>{c});
  }
}

TEST(Verdict, an_admin_override_changes_nothing_and_is_not_a_reason) {
  Verdict v = eval({finding(ReasonCode::kAdminOverride, Severity::kCritical)});
  EXPECT_EQ(v.state, VerdictState::kAllowed);
  EXPECT_TRUE(v.reason_codes.empty());
  EXPECT_EQ(v.findings.size(), 1u);
}

TEST(Verdict, scanner_errors_quarantine_warn_or_are_ignored_as_the_policy_says) {
  for (ReasonCode c : {ReasonCode::kScannerError, ReasonCode::kScannerUnsupported}) {
    const Finding f = finding(c, Severity::kHigh);
    SecurityPolicy p;
    ASSERT_EQ(p.scanner_error, Errors::kQuarantine);  // the default
    Verdict q = eval({f}, p);
    EXPECT_EQ(q.state, VerdictState::kQuarantined) << to_string(c);
    EXPECT_EQ(q.reason_codes, std::vector<ReasonCode>{c});

    p.scanner_error = Errors::kWarn;
    Verdict w = eval({f}, p);
    EXPECT_EQ(w.state, VerdictState::kWarned) << to_string(c);
    EXPECT_EQ(w.reason_codes, std::vector<ReasonCode>{c});

    p.scanner_error = Errors::kIgnore;
    Verdict i = eval({f}, p);
    EXPECT_EQ(i.state, VerdictState::kAllowed) << to_string(c);
    EXPECT_TRUE(i.reason_codes.empty());
    // A scanner error is judged by the policy, never by its (high) severity.
    p.max_severity = Severity::kLow;
    EXPECT_EQ(eval({f}, p).state, VerdictState::kAllowed);
  }
}

TEST(Verdict, deny_install_hooks_deny_judges_the_hook_at_critical) {
  SecurityPolicy p;
  p.deny_install_hooks = Hooks::kDeny;
  p.max_severity = Severity::kCritical;  // even the highest threshold is met
  Verdict blocked = eval({finding(ReasonCode::kInstallHook, Severity::kLow)}, p);
  EXPECT_EQ(blocked.state, VerdictState::kDenied);
  EXPECT_EQ(blocked.reason_codes, std::vector<ReasonCode>{ReasonCode::kInstallHook});

  p.mode = Mode::kWarn;
  Verdict warned = eval({finding(ReasonCode::kInstallHook, Severity::kLow)}, p);
  EXPECT_EQ(warned.state, VerdictState::kWarned);
  EXPECT_EQ(warned.reason_codes, std::vector<ReasonCode>{ReasonCode::kInstallHook});
}

TEST(Verdict, deny_install_hooks_warn_warns_whatever_the_severity_and_mode) {
  SecurityPolicy p;
  ASSERT_EQ(p.deny_install_hooks, Hooks::kWarn);  // the default
  for (Severity s : {Severity::kUnknown, Severity::kLow, Severity::kHigh, Severity::kCritical}) {
    Verdict v = eval({finding(ReasonCode::kInstallHook, s)}, p);
    EXPECT_EQ(v.state, VerdictState::kWarned) << to_string(s);
    EXPECT_EQ(v.reason_codes, std::vector<ReasonCode>{ReasonCode::kInstallHook});
  }
}

TEST(Verdict, deny_install_hooks_ignore_changes_nothing) {
  SecurityPolicy p;
  p.deny_install_hooks = Hooks::kIgnore;
  Verdict v = eval({finding(ReasonCode::kInstallHook, Severity::kCritical)}, p);
  EXPECT_EQ(v.state, VerdictState::kAllowed);
  EXPECT_TRUE(v.reason_codes.empty());
  EXPECT_EQ(v.findings.size(), 1u);  // the finding is kept, it just does not count
}

TEST(Verdict, max_severity_is_a_threshold_denied_in_block_mode_warned_in_warn_mode) {
  SecurityPolicy block;
  ASSERT_EQ(block.mode, Mode::kBlock);
  ASSERT_EQ(block.max_severity, Severity::kHigh);
  SecurityPolicy warn = block;
  warn.mode = Mode::kWarn;
  struct Case {
    Severity s;
    VerdictState in_block, in_warn;
  };
  for (const Case& c : {Case{Severity::kUnknown, VerdictState::kAllowed, VerdictState::kAllowed},
                        Case{Severity::kLow, VerdictState::kAllowed, VerdictState::kAllowed},
                        Case{Severity::kMedium, VerdictState::kAllowed, VerdictState::kAllowed},
                        Case{Severity::kHigh, VerdictState::kDenied, VerdictState::kWarned},
                        Case{Severity::kCritical, VerdictState::kDenied, VerdictState::kWarned}}) {
    for (ReasonCode code : {ReasonCode::kVulnerability, ReasonCode::kMalwareSignal, ReasonCode::kPublisherChanged,
                            ReasonCode::kUnpublishedUpstream, ReasonCode::kTyposquatSuspect}) {
      Verdict b = eval({finding(code, c.s)}, block);
      Verdict w = eval({finding(code, c.s)}, warn);
      EXPECT_EQ(b.state, c.in_block) << to_string(code) << " " << to_string(c.s);
      EXPECT_EQ(w.state, c.in_warn) << to_string(code) << " " << to_string(c.s);
      // Below the threshold a finding is kept but is no reason.
      EXPECT_EQ(b.reason_codes.empty(), c.in_block == VerdictState::kAllowed);
      EXPECT_EQ(b.findings.size(), 1u);
    }
  }
  SecurityPolicy medium = block;
  medium.max_severity = Severity::kMedium;
  EXPECT_EQ(eval({finding(ReasonCode::kMalwareSignal, Severity::kMedium)}, medium).state, VerdictState::kDenied);
  EXPECT_EQ(eval({finding(ReasonCode::kMalwareSignal, Severity::kLow)}, medium).state, VerdictState::kAllowed);
}

TEST(Verdict, a_required_scanner_that_never_answered_adds_scan_pending_and_quarantines) {
  SecurityPolicy p;
  p.required_scanners = {"osv", "postmortem"};
  Verdict v = evaluate(pkg(), {}, {"postmortem"}, p);
  EXPECT_EQ(v.state, VerdictState::kQuarantined);
  EXPECT_EQ(v.reason_codes, std::vector<ReasonCode>{ReasonCode::kScanPending});
  ASSERT_EQ(v.findings.size(), 1u);
  // Upstream's derived finding: named `pending` (so that upstream re-derives it), high.
  EXPECT_EQ(v.findings[0].scanner, "pending");
  EXPECT_EQ(v.findings[0].kind, FindingKind::kPending);
  EXPECT_EQ(v.findings[0].code, ReasonCode::kScanPending);
  EXPECT_EQ(v.findings[0].severity, Severity::kHigh);
  EXPECT_EQ(v.findings[0].summary, "required scanner 'osv' has not answered yet");

  Verdict both = evaluate(pkg(), {}, {"postmortem", "osv"}, p);
  EXPECT_EQ(both.state, VerdictState::kAllowed);
  EXPECT_TRUE(both.findings.empty());

  Verdict none = evaluate(pkg(), {}, {}, p);
  EXPECT_EQ(none.findings.size(), 2u);
  EXPECT_EQ(none.reason_codes, std::vector<ReasonCode>{ReasonCode::kScanPending});  // once, not twice
}

TEST(Verdict, a_required_scanner_that_failed_stays_pending_even_when_errors_are_ignored) {
  // Upstream's worker: a failed scanner is not in scanners_done, so its error finding and
  // a SCAN_PENDING both stand; `ignore` drops the first, not the second.
  SecurityPolicy p;
  p.required_scanners = {"postmortem"};
  p.scanner_error = Errors::kIgnore;
  Verdict v = evaluate(pkg(), {finding(ReasonCode::kScannerError, Severity::kHigh)}, {}, p);
  EXPECT_EQ(v.state, VerdictState::kQuarantined);
  EXPECT_EQ(v.reason_codes, std::vector<ReasonCode>{ReasonCode::kScanPending});
}

TEST(Verdict, reason_codes_come_in_order_of_first_appearance_without_repeats) {
  SecurityPolicy p;
  p.mode = Mode::kWarn;
  p.required_scanners = {"osv"};
  Verdict v = evaluate(pkg(),
                       {finding(ReasonCode::kInstallHook, Severity::kHigh),
                        finding(ReasonCode::kMalwareSignal, Severity::kCritical),
                        finding(ReasonCode::kInstallHook, Severity::kLow),
                        finding(ReasonCode::kMalwareSignal, Severity::kLow),  // below: no reason
                        finding(ReasonCode::kScannerError, Severity::kHigh),
                        finding(ReasonCode::kMalwareSignal, Severity::kHigh),
                        finding(ReasonCode::kRepositoryMoved, Severity::kMedium)},  // below: no reason
                       {"postmortem"}, p);
  EXPECT_EQ(v.reason_codes, (std::vector<ReasonCode>{ReasonCode::kInstallHook, ReasonCode::kMalwareSignal,
                                                     ReasonCode::kScannerError, ReasonCode::kScanPending}));
  EXPECT_EQ(v.state, VerdictState::kQuarantined);
  EXPECT_EQ(v.findings.size(), 8u);  // the seven, plus osv's SCAN_PENDING last
  EXPECT_EQ(v.findings.back().code, ReasonCode::kScanPending);
}

namespace upstream_rules {

constexpr std::int64_t kNow = 1'800'000'000;
constexpr std::int64_t kDay = 86'400;

Verdict at(std::vector<Finding> fs, std::vector<std::string> done, const SecurityPolicy& p,
           std::optional<std::int64_t> published_at) {
  return evaluate(pkg().coord(), std::move(fs), std::move(done), p, Moment{published_at, kNow});
}

SecurityPolicy registry_defaults() {
  SecurityPolicy p;
  p.min_age_secs = kDay;
  p.hold_missing_timestamp = true;
  p.mature_age_secs = kDay;
  return p;
}

TEST(Verdict, the_age_rule_holds_a_young_version_until_it_comes_of_age) {
  Verdict young = at({}, {}, registry_defaults(), kNow - 3600);
  EXPECT_EQ(young.state, VerdictState::kQuarantined);
  EXPECT_EQ(young.reason_codes, std::vector<ReasonCode>{ReasonCode::kMinAgeNotMet});
  ASSERT_EQ(young.findings.size(), 1u);
  EXPECT_EQ(young.findings[0].scanner, "age");
  EXPECT_EQ(young.findings[0].kind, FindingKind::kAge);
  EXPECT_EQ(young.findings[0].available_at, kNow - 3600 + kDay);
  EXPECT_EQ(young.available_at, kNow - 3600 + kDay);

  Verdict of_age = at({}, {}, registry_defaults(), kNow - kDay);
  EXPECT_EQ(of_age.state, VerdictState::kAllowed);
  EXPECT_FALSE(of_age.available_at.has_value());

  Verdict undated = at({}, {}, registry_defaults(), std::nullopt);
  EXPECT_EQ(undated.reason_codes, std::vector<ReasonCode>{ReasonCode::kTimestampMissing});
  SecurityPolicy lenient = registry_defaults();
  lenient.hold_missing_timestamp = false;
  EXPECT_EQ(at({}, {}, lenient, std::nullopt).state, VerdictState::kAllowed);
}

TEST(Verdict, stored_age_and_pending_findings_are_derived_again_never_carried_over) {
  Finding stale_age = finding(ReasonCode::kMinAgeNotMet, Severity::kHigh);
  stale_age.kind = FindingKind::kAge;
  stale_age.scanner = "age";
  Finding stale_pending = finding(ReasonCode::kScanPending, Severity::kHigh);
  stale_pending.kind = FindingKind::kPending;
  stale_pending.scanner = "pending";
  SecurityPolicy p = registry_defaults();
  p.required_scanners = {"guarddog"};
  Verdict v = at({stale_age, stale_pending}, {"guarddog"}, p, kNow - 2 * kDay);
  EXPECT_EQ(v.state, VerdictState::kAllowed);
  EXPECT_TRUE(v.findings.empty());
}

TEST(Verdict, the_maturity_bypass_warns_an_old_version_held_only_for_want_of_an_answer) {
  SecurityPolicy p = registry_defaults();
  p.required_scanners = {"guarddog"};
  Verdict old_unscanned = at({}, {}, p, kNow - 2 * kDay);
  EXPECT_EQ(old_unscanned.state, VerdictState::kWarned);
  EXPECT_EQ(old_unscanned.reason_codes, std::vector<ReasonCode>{ReasonCode::kScanPending});
  EXPECT_FALSE(old_unscanned.available_at.has_value());
  // A scanner's word against it is not lifted; nor is a version younger than mature_age.
  Finding malware = finding(ReasonCode::kMalwareSignal, Severity::kHigh);
  EXPECT_EQ(at({malware}, {}, p, kNow - 2 * kDay).state, VerdictState::kDenied);
  SecurityPolicy later = p;
  later.mature_age_secs = 3 * kDay;
  EXPECT_EQ(at({}, {}, later, kNow - 2 * kDay).state, VerdictState::kQuarantined);
  SecurityPolicy never = p;
  never.mature_age_secs = 0;
  EXPECT_EQ(at({}, {}, never, kNow - 30 * kDay).state, VerdictState::kQuarantined);
}

TEST(Verdict, an_escalation_raises_a_scanners_findings_once_there_are_enough) {
  SecurityPolicy p;
  p.max_severity = Severity::kCritical;
  p.escalations["guarddog"] = Escalation{{FindingKind::kMalwareSignal}, 2, Severity::kMedium, Severity::kCritical};
  Finding one = finding(ReasonCode::kMalwareSignal, Severity::kMedium);
  one.scanner = "guarddog";
  Finding low = one;
  low.severity = Severity::kLow;
  EXPECT_EQ(at({one, low}, {"guarddog"}, p, std::nullopt).state, VerdictState::kAllowed) << "one at medium: not yet";
  Verdict two = at({one, one, low}, {"guarddog"}, p, std::nullopt);
  EXPECT_EQ(two.state, VerdictState::kDenied);
  EXPECT_EQ(two.findings[0].severity, Severity::kCritical);
  EXPECT_EQ(two.findings[2].severity, Severity::kLow) << "below `from`: left alone";
  Finding other = one;
  other.scanner = "yara";
  EXPECT_EQ(at({one, other}, {"guarddog", "yara"}, p, std::nullopt).state, VerdictState::kAllowed)
      << "the count is per scanner";
}

TEST(Verdict, provenance_findings_judge_only_when_provenance_is_required) {
  Finding missing = finding(ReasonCode::kProvenanceMissing, Severity::kHigh);
  missing.kind = FindingKind::kProvenance;
  SecurityPolicy p;
  EXPECT_EQ(at({missing}, {}, p, std::nullopt).state, VerdictState::kAllowed);
  p.require_provenance = true;
  EXPECT_EQ(at({missing}, {}, p, std::nullopt).state, VerdictState::kDenied);
}

TEST(Verdict, available_at_is_the_latest_among_holding_findings_and_only_on_a_quarantine) {
  SecurityPolicy p = registry_defaults();
  p.min_age_secs = 10 * kDay;
  Verdict held = at({}, {}, p, kNow - kDay);
  EXPECT_EQ(held.available_at, kNow + 9 * kDay);
  Verdict denied = at({finding(ReasonCode::kBlockList, Severity::kHigh)}, {}, p, kNow - kDay);
  EXPECT_EQ(denied.state, VerdictState::kDenied);
  EXPECT_FALSE(denied.available_at.has_value());
}

}  // namespace upstream_rules

}  // namespace
}  // namespace batlehub::core
