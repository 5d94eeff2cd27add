// The verdict a package gets from its findings (upstream's services/verdict.rs, for the
// keys a scan needs: upstream-today.md §5.3–§5.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/findings.h"

namespace batlehub::core {

// precedence denied > quarantined > warned > allowed
enum class VerdictState { kAllowed, kWarned, kQuarantined, kDenied };
std::string_view to_string(VerdictState s);

struct SecurityPolicy {
  enum class Mode { kBlock, kWarn };
  enum class ScannerErrors { kQuarantine, kWarn, kIgnore };
  enum class InstallHooks { kDeny, kWarn, kIgnore };
  Mode mode = Mode::kBlock;
  Severity max_severity = Severity::kHigh;
  ScannerErrors scanner_error = ScannerErrors::kQuarantine;
  InstallHooks deny_install_hooks = InstallHooks::kWarn;
  std::vector<std::string> required_scanners;
};

struct Verdict {
  Coordinate package;
  VerdictState state = VerdictState::kAllowed;
  std::vector<ReasonCode> reason_codes;  // in order of first appearance, no repeats
  std::vector<Finding> findings;         // including SCAN_PENDING for required scanners that never answered
  std::vector<std::string> scanners_done;
  std::string policy_ref;  // "<registry>/default"
  // When a time-bound hold lifts (seconds since the epoch); set only when quarantined.
  std::optional<std::int64_t> available_at;
};

// Per finding: SCANNER_ERROR / SCANNER_UNSUPPORTED as `scanner_error` says; INSTALL_HOOK as
// `deny_install_hooks` says (deny = judged at critical, warn = warned, ignore = nothing);
// SCAN_PENDING, MIN_AGE_NOT_MET, TIMESTAMP_MISSING quarantine; BLOCK_LIST and SOC_VERDICT
// deny; everything else: severity at or
// above max_severity denies (block) or warns (warn mode). A required scanner missing from
// `scanners_done` adds a SCAN_PENDING finding, which quarantines.
Verdict evaluate(const Package& p, std::vector<Finding> findings, std::vector<std::string> scanners_done,
                 const SecurityPolicy& policy);

}  // namespace batlehub::core
