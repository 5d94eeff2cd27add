// The `bwrap` runtime: one bubblewrap sandbox per run, rooted in the scanner's own tree
// (RFC 0022 §5.3). Its walls: user, pid, ipc, uts and (unless the run needs it) network
// namespaces; the room read-only as /; a fresh work dir as the only writable mount; an
// environment of HOME and PATH; uid 65532 inside; the agent as the command.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sandbox.h"

namespace batlehub::adapters {

inline constexpr const char* kAgentInRoom = "batlehub-sandbox";
inline constexpr const char* kSandboxUid = "65532";
inline constexpr unsigned kSandboxId = 65532;

struct BwrapArgvInput {
  std::string binary = "bwrap";
  std::string room;      // the host directory that becomes /
  std::string work_dir;  // the host directory bound at /work
  bool network = false;
  // The run's private /tmp, a tmpfs of this size: programs (Go's os.TempDir above all) write
  // temporary files there whatever HOME says, and the room itself is read-only.
  std::uint64_t tmp_bytes = 64ULL * 1024 * 1024;
};

// The whole argv, program first. A pure function: tested as data, and used by the runtime.
std::vector<std::string> bwrap_argv(const BwrapArgvInput& in);

struct BwrapOptions {
  std::string binary = "bwrap";
  std::string rooms_dir = "/opt/sandbox";
  std::string scratch_dir = "/tmp";
  // How long a run may take beyond its scanner's timeout (fetching, extracting, collecting).
  std::chrono::seconds start_timeout{120};

  // Walls broken on purpose, for the tests that prove the probe notices. Never set by
  // configuration.
  struct BrokenOnPurpose {
    bool keep_network = false;
    std::vector<std::pair<std::string, std::string>> leak_env;
  } broken;
};

class BwrapRuntime final : public core::SandboxRuntime {
 public:
  explicit BwrapRuntime(BwrapOptions o) : options_(std::move(o)) {}

  std::string_view name() const override { return "bwrap"; }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override;
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override;
  // --die-with-parent and a TempDir: nothing outlives a run, nothing to sweep.
  Expected<std::size_t, core::SandboxError> sweep(std::chrono::seconds) override { return std::size_t{0}; }
  std::string hint() const override;

  std::string room_path(const std::string& scanner) const { return options_.rooms_dir + "/" + scanner; }

 private:
  struct Started {
    bool timed_out = false;
    std::string how;  // "bwrap exited 1", "bwrap was killed by signal 9"
    std::string stderr_tail;
  };
  Expected<Started, core::SandboxError> start(const std::string& room, const std::string& work, bool network,
                                              const core::Limits& limits, std::chrono::milliseconds deadline);

  BwrapOptions options_;
};

}  // namespace batlehub::adapters
