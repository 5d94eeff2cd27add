// The probe: the agent's assertions about its own walls, made from inside (RFC 0022 §4.3,
// architecture.md §7).
#pragma once

#include <string>
#include <vector>

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
  const SeccompProgram* seccomp = nullptr;
  std::vector<RlimitSetting> rlimits;
};

wire::AgentProbeReport run_probe(const wire::Manifest& manifest, const ProbeContext& ctx);

// Lower-case hex SHA-256 of a file's contents, or "" when it cannot be read.
std::string sha256_file(const std::string& path, std::uint64_t* size);

// The names RFC 0022 §4.3 forbids in a room.
inline constexpr const char* kForbiddenInRoom[] = {"sh", "bash", "dash", "busybox", "batlehub"};

}  // namespace batlehub::agent
