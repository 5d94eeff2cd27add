// `batlehub probe [--config FILE]`: prove the walls of every room, as the worker does at start.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "config/config.h"

namespace batlehub::server {

enum class ProbeExit : int { kPassed = 0, kFailed = 1, kConfig = 2 };

// Writes the report to `out`: on failure its first line is the failed assertion and its
// second the runtime's hint, then one line per assertion. Logs to stderr.
ProbeExit probe_command(const std::optional<std::string>& config_path, const config::Env& env, std::ostream& out);

}  // namespace batlehub::server
