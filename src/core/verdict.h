// The verdict a package gets from its findings (upstream's services/verdict.rs, for the
// keys a scan needs: upstream-today.md §5.3–§5.4).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/findings.h"

namespace batlehub::core {

// precedence denied > quarantined > warned > allowed
enum class VerdictState { kAllowed, kWarned, kQuarantined, kDenied };
std::string_view to_string(VerdictState s);

// A scanner's `escalation`: when `count` of its findings of one of `kinds` are at `from` or
// above, each of them is raised to `to`.
struct Escalation {
  std::vector<FindingKind> kinds;
  std::int64_t count = 1;
  Severity from = Severity::kHigh;
  Severity to = Severity::kCritical;
  bool operator==(const Escalation&) const = default;
};

// A registry's `[registries.security]` (upstream-today.md §5.3), as far as a verdict reads
// it. The defaults are `batlehub scan`'s, which judges a file with no registry behind it:
// no age rule (a file has no publication date), nothing required. A registry's own table
// starts from upstream's defaults instead (server/root/builders.h: security_policy).
struct SecurityPolicy {
  enum class Mode { kBlock, kWarn };
  enum class ScannerErrors { kQuarantine, kWarn, kIgnore };
  enum class InstallHooks { kDeny, kWarn, kIgnore };
  Mode mode = Mode::kBlock;
  Severity max_severity = Severity::kHigh;
  ScannerErrors scanner_error = ScannerErrors::kQuarantine;
  InstallHooks deny_install_hooks = InstallHooks::kWarn;
  std::vector<std::string> required_scanners;
  // A version younger than this is held (MIN_AGE_NOT_MET) until it is not; 0 = no age rule.
  std::int64_t min_age_secs = 0;
  // With the age rule on, a version whose publication date is unknown is held
  // (TIMESTAMP_MISSING).
  bool hold_missing_timestamp = false;
  // A hold whose only causes are SCAN_PENDING / SCANNER_ERROR / SCANNER_UNSUPPORTED is
  // warned instead once the version is this old; 0 = never.
  std::int64_t mature_age_secs = 0;
  // Provenance and signature findings judge the version only when provenance is required.
  bool require_provenance = false;
  std::map<std::string, Escalation, std::less<>> escalations;  // by scanner name
  bool operator==(const SecurityPolicy&) const = default;
};

struct Verdict {
  Coordinate package;
  VerdictState state = VerdictState::kAllowed;
  std::vector<ReasonCode> reason_codes;  // in order of first appearance, no repeats
  std::vector<Finding> findings;         // including the derived age and pending findings
  std::vector<std::string> scanners_done;
  std::string policy_ref;  // "<registry>/default"
  // When a time-bound hold lifts (seconds since the epoch); set only when quarantined.
  std::optional<std::int64_t> available_at;
};

// What the age rule and the maturity bypass read: when the registry says the version was
// published, and now (seconds since the epoch).
struct Moment {
  std::optional<std::int64_t> published_at;
  std::int64_t now = 0;
};

// Upstream's evaluation (services/verdict.rs; upstream-storage-and-queue.md B.4):
// 1. findings named `age` or `pending` are dropped and derived again: MIN_AGE_NOT_MET (its
//    available_at when the version comes of age) or TIMESTAMP_MISSING under the age rule,
//    and one SCAN_PENDING per required scanner missing from `scanners_done`;
// 2. each scanner's escalation is applied;
// 3. per finding: BLOCK_LIST and SOC_VERDICT deny; MIN_AGE_NOT_MET, TIMESTAMP_MISSING and
//    SCAN_PENDING quarantine; SCANNER_ERROR / SCANNER_UNSUPPORTED as `scanner_error` says;
//    INSTALL_HOOK as `deny_install_hooks` says (deny = judged at critical); provenance and
//    signature findings by severity when provenance is required, else not at all;
//    ADMIN_OVERRIDE nothing; everything else by severity: at or above max_severity, denied
//    (block) or warned (warn); the state is the worst;
// 4. the maturity bypass; 5. available_at, the latest among the holding findings, kept
//    only on a quarantine.
Verdict evaluate(const Coordinate& c, std::vector<Finding> findings, std::vector<std::string> scanners_done,
                 const SecurityPolicy& policy, const Moment& at);
// `batlehub scan`'s: no publication date, no clock.
Verdict evaluate(const Package& p, std::vector<Finding> findings, std::vector<std::string> scanners_done,
                 const SecurityPolicy& policy);

}  // namespace batlehub::core
