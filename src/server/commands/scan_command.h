// `batlehub scan ARCHIVE…`: every configured scanner that supports the package, behind
// proven walls, then findings and a verdict.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/findings.h"
#include "core/verdict.h"
#include "server/commands/report.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

// Distinct for each verdict state, and for the tool's own failures. With several archives
// the worst state decides.
enum class ScanExit : int {
  kAllowed = 0,
  kUsage = 2,        // bad arguments or configuration
  kWallsFailed = 3,  // the probe failed: nothing was scanned
  kInput = 4,        // an archive could not be read, or its kind or name could not be told
  kWarned = 10,
  kQuarantined = 20,
  kDenied = 30,
};

// The policy flags as given on the command line: each one set overrides the registry's own
// policy (its [registries.security]), or `batlehub scan`'s defaults when it has none.
struct PolicyFlags {
  std::optional<core::Severity> max_severity;
  std::optional<core::SecurityPolicy::ScannerErrors> scanner_error;
  std::optional<core::SecurityPolicy::InstallHooks> deny_install_hooks;
  std::optional<core::SecurityPolicy::Mode> mode;
};

struct ScanOptions {
  std::optional<std::string> config_path;
  Naming naming;  // --kind, --name, --version, --registry
  std::vector<std::string> archives;
  ScanFormat format = ScanFormat::kText;
  PolicyFlags flags;
};

// The policy `batlehub scan` judges by: the registry's, without the age rule (a file has no
// publication date), then the flags given.
core::SecurityPolicy scan_policy(const config::Config& c, const std::string& registry, const PolicyFlags& flags);

ScanExit scan_command(const ScanOptions& o, const config::Env& env, std::ostream& out);

}  // namespace batlehub::server
