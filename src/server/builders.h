// Wiring the configuration to implementations: the one match on the runtime (RFC 0022 §6.4).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/queue.h"
#include "core/sandbox.h"

namespace batlehub::server {

// The runtime [worker.sandbox] names. oci and kubernetes are refused until they land:
// a runtime that cannot be built is an error, never a fallback to another.
Expected<std::unique_ptr<core::SandboxRuntime>, std::string> build_sandbox_runtime(const config::Config& c,
                                                                                   const config::Env& env);

// The rooms the probe must prove: one per sandboxed scanner the config names (each with
// its command resolved inside its room), or, with no scanner configured, every room that
// exists under rooms_dir.
std::vector<core::ProbeTarget> probe_targets(const config::Config& c);

core::Limits limits_of(const config::SandboxConfig& s);

// The file at `path` loaded and validated (its warnings logged), or the built-in defaults
// when there is none. The error is ConfigError::describe()'s line.
Expected<config::Config, std::string> load_config(const std::optional<std::string>& path, const config::Env& env);

// The queue [database] names: PostgreSQL for a URL, else SQLite at <state_dir>/queue.sqlite3
// (the directory made, 0700, when missing). The worker and `batlehub submit / wait / why`
// given the same file open the same queue.
Expected<std::unique_ptr<core::ScanQueue>, std::string> open_queue(const config::Config& c);

// <state_dir>/artifacts: where submitted archives wait for the worker.
std::string artifacts_dir(const config::Config& c);

}  // namespace batlehub::server
