// Wiring the configuration to implementations: the one match on the runtime (RFC 0022 §6.4).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
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

}  // namespace batlehub::server
