// `batlehub worker`: the scan worker as a service (RFC 0022 §4.2–§4.3, §6.6; upstream's
// RFC 0018 loop, upstream-today.md §6).
//
// sweep → probe every room the config names → refuse to start when a wall fails (line 1
// the failed assertion, line 2 the runtime's hint) → ready → lease jobs, scan each through
// the sandbox pool, record one verdict per job. A passed probe is repeated every
// probe_interval_secs and on SIGHUP (which also reloads the configuration); while a
// re-probe fails the worker is not ready: it leases nothing, and a scan that was running
// behind walls that then failed is released for another worker rather than recorded.
// SIGTERM/SIGINT: stop leasing, let running scans finish for shutdown_grace_secs, release
// the rest, exit 0. docs/operations/worker.md describes each log line.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "config/config.h"

namespace batlehub::server {

enum class WorkerExit : int {
  kStopped = 0,      // a signal stopped it
  kWallsFailed = 1,  // the startup probe failed: nothing was leased
  kConfig = 2,       // the configuration, the queue or the listener could not be set up
};

struct WorkerOptions {
  std::optional<std::string> config_path;
};

// Runs until SIGTERM or SIGINT. The probe's two lines go to `out`; the log to stderr.
WorkerExit worker_command(const WorkerOptions& o, const config::Env& env, std::ostream& out);

// `batlehub --roles …` (or [server] roles, upstream's default being proxy and worker) with
// no subcommand: 0 when the roles are the worker's alone and a configuration file was
// found, else 2 with the reason on `err`'s first line. This build has no proxy role.
int start_roles(const std::optional<std::string>& roles_flag, const WorkerOptions& o, const config::Env& env,
                std::ostream& err);

// "<hostname>-<pid>", as upstream names a worker in leased_by and its heartbeat row.
std::string worker_id();

}  // namespace batlehub::server
