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

enum class ScanFormat { kText, kJson, kSarif };

struct ScanOptions {
  std::optional<std::string> config_path;
  std::optional<core::PackageKind> kind;
  std::optional<std::string> name;
  std::optional<std::string> version;
  std::string registry = "local";
  std::vector<std::string> archives;
  ScanFormat format = ScanFormat::kText;
  core::SecurityPolicy policy;
};

ScanExit scan_command(const ScanOptions& o, const config::Env& env, std::ostream& out);

// "left-pad-1.3.0.tgz" → npm; .whl → pypi; .crate → cargo; .gem → rubygems; .jar → maven;
// .nupkg → nuget. A guess from the name, for the command line only: the agent never trusts
// a name, and an ambiguous name (.tar.gz, .zip) needs --kind.
std::optional<core::PackageKind> kind_from_file_name(std::string_view file);
// "left-pad-1.3.0.tgz" → ("left-pad", "1.3.0"); "requests-2.31.0-py3-none-any.whl" →
// ("requests", "2.31.0").
std::optional<std::pair<std::string, std::string>> name_version_from_file_name(std::string_view file);

}  // namespace batlehub::server
