// `batlehub submit`, `batlehub wait` and `batlehub why`: a second terminal beside a running
// worker. Each takes --config and opens the queue the worker uses there (the SQLite file
// under [worker] state_dir, or [database] url), so nothing else needs to be said.
#pragma once

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/findings.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

// "<registry>:<name>@<version>", as `batlehub scan` prints it. The name may hold '@' (an
// npm scope) and ':' (a Maven group): the registry ends at the first ':', the version
// starts after the last '@'.
struct Coordinate {
  std::string registry;
  std::string name;
  std::string version;
};
std::optional<Coordinate> parse_coordinate(std::string_view s);

// "1h", "30s", "500ms", "2m", or a number of seconds.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view s);

struct SubmitOptions {
  std::optional<std::string> config_path;
  Naming naming;  // --kind, --name, --version, --registry
  std::vector<std::string> archives;
};

// 0 every archive queued (or already queued), 2 usage or configuration, 4 an unreadable
// archive or one whose kind, name or version cannot be told (as `batlehub scan`).
int submit_command(const SubmitOptions& o, const config::Env& env, std::ostream& out);

// Upstream's exit codes.
enum class WaitExit : int { kServable = 0, kWaitingCannotHelp = 1, kTimeout = 2, kUsage = 3 };

struct WaitOptions {
  std::optional<std::string> config_path;
  std::string coordinate;
  std::chrono::milliseconds timeout = std::chrono::hours(1);
  std::chrono::milliseconds interval = std::chrono::seconds(30);
};

// Polls until the coordinate's verdict is servable (allowed, warned), or waiting cannot
// change it (denied; quarantined with no job left to run; nothing queued at all), or the
// timeout passes. Ends with upstream's one-line message.
WaitExit wait_command(const WaitOptions& o, const config::Env& env, std::ostream& out);

struct WhyOptions {
  std::optional<std::string> config_path;
  std::string coordinate;
  bool json = false;
};

// Upstream's `batlehub why` layout (report.h), or the recorded verdict as JSON. 0 when the
// coordinate has a verdict or a queued job, 1 when it is unknown, 2 usage or configuration.
int why_command(const WhyOptions& o, const config::Env& env, std::ostream& out);

}  // namespace batlehub::server
