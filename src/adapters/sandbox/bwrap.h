// The `bwrap` runtime: one bubblewrap sandbox per run, rooted in the scanner's own tree
// (RFC 0022 §5.3). Its walls: user, pid, ipc, uts and (unless the run needs it) network
// namespaces; the room read-only as /; a fresh work dir as the only writable mount; an
// environment of HOME and PATH; uid 65532 inside; the agent as the command.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/sandbox/cgroup.h"
#include "adapters/sandbox/launcher.h"
#include "core/env.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

struct BwrapArgvInput {
  std::string binary = "bwrap";
  std::string room;      // the host directory that becomes /
  std::string work_dir;  // the host directory bound at /work
  bool network = false;
  // The run's private /tmp, a tmpfs of this size: programs (Go's os.TempDir above all) write
  // temporary files there whatever HOME says, and the room itself is read-only.
  std::uint64_t tmp_bytes = 64ULL * 1024 * 1024;
  // The sandbox starts inside a run cgroup: it gets a cgroup namespace rooted there, so
  // that /proc/self/cgroup names no path of the host's.
  bool in_run_cgroup = false;
  // The run's cgroup directories and where the sandbox sees each (cgroup_binds), read-only
  // under a read-only /sys: what the probe reads its bounds from. Runs get none: they are
  // in the same kind of cgroup, made and joined the same way, but a scanner has nothing to
  // read there, and the four mounts cost ~1 ms a run (bench_runtimes, 2026-12-03).
  std::vector<std::pair<std::string, std::string>> cgroup_binds;
};

// The whole argv, program first. A pure function: tested as data, and used by the runtime.
std::vector<std::string> bwrap_argv(const BwrapArgvInput& in);

// [worker.sandbox.bwrap], read and checked by bwrap_registration (docs/configuration.md).
struct BwrapTable {
  static constexpr std::string_view kName = "bwrap";
  std::string binary = "bwrap";
  // Where each run's cgroup is made, as a path from each cgroup hierarchy's root: "" = under
  // "<the worker's own cgroup>/batlehub-sandbox" (on cgroup v2 the worker then moves itself
  // into a leaf "batlehub-worker" beside it). A delegated subtree's path otherwise.
  std::string cgroup_parent;
  bool operator==(const BwrapTable&) const = default;
};

struct RuntimeRegistration;
RuntimeRegistration bwrap_registration();

// A directory the bwrap runtime could keep its run dirs in, as statfs sees it.
struct ScratchCandidate {
  std::string path;
  bool tmpfs = false;        // statfs f_type is TMPFS_MAGIC
  bool open_to_all = false;  // a world-writable sticky directory (1777), as /tmp is
  std::uint64_t free_mb = 0;
};
ScratchCandidate scratch_candidate(const std::string& path);

// Where bwrap's run dirs go: $TMPDIR when it is set (the operator's choice, as before); else
// `shm` when it is a tmpfs open to all with room for every slot's extraction at once
// (`slots` x max_extracted_mb); else /tmp. A run dir holds the extracted package the scanner
// then walks, so on a disk the extraction and the removal cost what the scan costs
// (bench/README.md, bench_scan); on tmpfs its pages are charged to the run's memory cgroup,
// whose bound already counts max_extracted_mb, as oci's and kubernetes' memory-backed /work are.
std::string bwrap_scratch_dir(const core::Env& env, const ScratchCandidate& shm, std::uint64_t slots,
                              std::uint64_t max_extracted_mb);

struct BwrapOptions {
  std::string binary = "bwrap";
  std::string rooms_dir = "/opt/sandbox";
  std::string scratch_dir = "/tmp";
  // How long a run may take beyond its scanner's timeout (fetching, extracting, collecting).
  std::chrono::seconds start_timeout{120};
  // The configured probe canaries ([worker.sandbox] probe_canaries), tried after the two
  // the runtime adds itself: its own listener on 127.0.0.1 and on the host's address. Empty
  // here: whoever builds a runtime says which addresses its probe may try.
  std::vector<std::string> probe_canaries;
  // [worker.sandbox.bwrap] cgroup_parent ("" = under the worker's own cgroup).
  std::string cgroup_parent;
  // [worker.sandbox] accept_per_process_limits: with no cgroup for a run, run anyway (the
  // probe warns). Off, a run that cannot be bounded as a whole is refused.
  bool accept_per_process_limits = false;
};

class BwrapRuntime final : public core::SandboxRuntime {
 public:
  explicit BwrapRuntime(BwrapOptions o) : options_(std::move(o)) {}
  ~BwrapRuntime() override;
  BwrapRuntime(const BwrapRuntime&) = delete;
  BwrapRuntime& operator=(const BwrapRuntime&) = delete;

  std::string_view name() const override { return "bwrap"; }
  std::string where() const override {
    return "rooms in " + options_.rooms_dir + ", runs under " + options_.scratch_dir;
  }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override;
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override;
  // A run's processes die with it (--die-with-parent) and its TempDir with its RunCgroup;
  // what a worker killed with -9 leaves is its runs' cgroups: removed here, with whatever
  // still runs in them, when their worker is gone or they are older than `older_than`.
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds older_than) override;
  std::string hint(std::optional<wire::Check> failed) const override;

  std::string room_path(const std::string& scanner) const { return options_.rooms_dir + "/" + scanner; }

 private:
  Expected<Launched, core::SandboxError> start(const std::string& room, const std::string& work, bool network,
                                               const core::Limits& limits, std::chrono::milliseconds deadline,
                                               const RunCgroup* cgroup, bool show_cgroup);
  // The run's cgroup, or nullopt when the host gives none and the operator accepted that;
  // an error when it gives none and they did not (fail closed).
  Expected<std::optional<RunCgroup>, core::SandboxError> run_cgroup(const core::Limits& limits, const std::string& room);
  // Where run cgroups go, found and set up once; the error says why there is none.
  const Expected<CgroupSite, std::string>& cgroup_site();

  // The tests that prove the probe notices a broken wall break it here, through
  // BwrapRuntimePeer (tests/adapters/bwrap_runtime_peer.h); nothing else can reach it.
  friend class BwrapRuntimePeer;
  std::function<void(std::vector<std::string>&)> edit_argv_for_tests_;

  BwrapOptions options_;
  std::once_flag site_once_;
  std::optional<Expected<CgroupSite, std::string>> site_;
};

// What this host's sysctls say about unprivileged user namespaces, read from /proc/sys: the
// first that forbids one ("kernel.apparmor_restrict_unprivileged_userns=1 on this host: …"),
// else the values that allow them, else "" (the kernel has none of these files). The first
// words of the hint when the sandbox never started.
std::string userns_settings_of_this_host();

}  // namespace batlehub::adapters
