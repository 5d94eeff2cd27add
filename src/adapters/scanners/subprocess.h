// What is left of upstream's subprocess.rs once the sandbox is a port: two helpers about
// scanners, not sandboxes (RFC 0022 §6.3).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/findings.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

// A bare name is searched on `path` (a regular file is enough, as upstream); anything with
// a '/' must itself be a regular file.
bool command_exists(std::string_view command, std::string_view path);

// The scanner's stdout as JSON, or ScannerError::Output("scanner output is not JSON: …").
// Bounded by nlohmann's iterative parser and a depth limit.
Expected<nlohmann::json, core::ScannerError> parse_json(std::string_view stdout_bytes);

// A finding's `raw`: the scanner's JSON, compact, invalid UTF-8 replaced.
std::string compact(const nlohmann::json& j);

// A stderr tail for a message: leading and trailing white space trimmed.
std::string trimmed_tail(const std::string& tail);

// The one run a single-run scanner planned, answered: exactly one result, no sandbox error,
// exit status 0 — else the ScannerError that is (Other; the sandbox's; Crashed, naming
// `program`, its status and its stderr's tail).
Expected<const core::RunOutput*, core::ScannerError> one_clean_run(
    const std::vector<Expected<core::RunOutput, core::SandboxError>>& results, std::string_view program);

// Text a scanner or an artifact supplied (a rule message, a file name), made safe to show
// on one line: invalid UTF-8 replaced, newlines, tabs and other control characters escaped.
std::string printable(std::string_view bytes);

// The member of a kind's archive that holds the package's files as an archive of its own,
// for a BundleEntry's `descend` (wire 2): a .gem is a plain tar of metadata.gz, data.tar.gz
// and checksums.yaml.gz, and its files are in data.tar.gz. nullopt for every other kind.
std::optional<wire::RelPath> sources_member(core::PackageKind kind);

}  // namespace batlehub::adapters
