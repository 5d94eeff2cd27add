// The probe: the agent's assertions about its own walls, made from inside (RFC 0022 §4.3,
// architecture.md §7).
#pragma once

#include <string>
#include <vector>

#include "agent/landlock.h"
#include "agent/limits.h"
#include "agent/seccomp_policy.h"
#include "wire/manifest.h"
#include "wire/run_result.h"

namespace batlehub::agent {

struct ProbeContext {
  std::string work_dir;
  std::string scanner_path;
  // The environment the agent itself received (not the scanner's, which is always exactly
  // HOME and PATH).
  std::vector<std::string> environment;
  // The agent's filter and the rlimits the manifest asks for, as fit_to_host() fitted them:
  // what a run's scanner gets (scanner_walls()), and what the walled child must read back.
  const SeccompProgram* seccomp = nullptr;
  std::vector<RlimitSetting> rlimits;
  // The limits fit_to_host() lowered to the host's hard limit: a warning, not a failure.
  std::vector<wire::LoweredRlimit> lowered;
  // The Landlock ruleset this agent built for a run's scanner (whether or not this build
  // installs it: agent/walls.h); never null in a probe.
  const landlock::Ruleset* landlock = nullptr;
  // The file the agent writes its result to, when --out is a file:// URL: writable by the
  // agent, and so by a scanner without Landlock, up to RLIMIT_FSIZE.
  std::string out_path;
};

wire::AgentProbeReport run_probe(const wire::Manifest& manifest, const ProbeContext& ctx);

// Lower-case hex SHA-256 of a file's contents, or "" when it cannot be read.
std::string sha256_file(const std::string& path, std::uint64_t* size);

// The names RFC 0022 §4.3 forbids in a room.
inline constexpr const char* kForbiddenInRoom[] = {"sh", "bash", "dash", "busybox", "batlehub"};

}  // namespace batlehub::agent
