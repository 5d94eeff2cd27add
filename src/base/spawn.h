// Running the scanner: no shell, its own process group, its walls installed in the child
// before execve, stdout capped, the tail of stderr kept, and at the end — on exit, on the
// deadline, or over the stdout cap — every process it left behind killed.
//
// Two processes are started. The keeper, forked, becomes a child subreaper, so a scanner's
// daemonised grandchild (double fork + setsid) is re-parented to it rather than to init;
// once the scanner has exited or the deadline has passed, the keeper kills every child it
// has (its /proc children list) until none is left, and only then reports. The scanner is
// the keeper's child, started with clone(CLONE_VM | CLONE_VFORK): it shares the keeper's
// memory until its execve rather than copying it. Both run only async-signal-safe code
// between their start and execve, so the same path is safe when the agent runs as a library
// inside a multi-threaded worker. A process of its own (the agent binary) may do the
// keeper's work itself, and a child that contains its own tree (bwrap) needs no keeper:
// SpawnSpec::supervisor.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <linux/filter.h>
#include <sys/resource.h>
#include <sys/types.h>

namespace batlehub::base {

// One rlimit a child sets on itself, soft = hard.
struct RlimitSetting {
  int resource;
  rlim_t value;
};

// A compiled BPF program, ready for prctl(PR_SET_SECCOMP) in a child that may not allocate.
// The agent compiles its policy into one (agent/seccomp_policy.h); the spawner only loads it.
struct SeccompProgram {
  std::vector<sock_filter> code;
  sock_fprog fprog() const {
    return sock_fprog{static_cast<unsigned short>(code.size()), const_cast<sock_filter*>(code.data())};
  }
};

// What the child installs on itself, in this order, just before execve.
struct ChildWalls {
  // First of all, join these cgroups: each is a cgroup.procs (or, on cgroup v1, a tasks)
  // opened for writing, and "0" written to it moves the writer — the whole child, which has
  // one thread. The bwrap runtime uses it so that the sandbox is in the
  // run's cgroup before it exists, and every process it will ever fork with it.
  std::vector<int> join_cgroups;
  // Become this uid/gid first (with no supplementary groups). The bwrap runtime uses it so
  // that a worker running as root never gives a sandbox a root identity on the host.
  std::optional<std::pair<uid_t, gid_t>> identity;
  std::vector<RlimitSetting> rlimits;
  const SeccompProgram* seccomp = nullptr;  // nullptr only in tests of the spawner itself
  // A Landlock ruleset the child enforces on itself after no_new_privs and before the filter
  // (agent/landlock.h builds it); -1 for none. It must not be close-on-exec'd before the
  // child runs: the child restricts itself, then its execve closes it (it is O_CLOEXEC).
  int landlock_ruleset = -1;
};

// Which step of installing the walls failed in a child.
enum class WallStage : int { kNone = 0, kSetup, kIdentity, kRlimit, kNoNewPrivs, kSeccomp, kExec, kCgroup, kLandlock };

struct WallFailure {
  WallStage stage = WallStage::kNone;
  int err = 0;
};

// Installs `walls` on the calling process. Async-signal-safe: no allocation, no locks.
WallFailure apply_walls(const ChildWalls& walls, const sock_fprog* prog);

// Who watches the child until its deadline and kills what it leaves behind.
enum class Supervisor {
  // A forked keeper process, the child's parent and the subreaper of its whole tree: for a
  // child whose descendants could outlive it anywhere (a scanner under `none`).
  kKeeper,
  // The calling process itself, which becomes the subreaper: one process less per run
  // (bench_runtimes). Every guarantee of the keeper stays — the scanner in its own group,
  // killed with it at the deadline or over the stdout cap, orphans re-parented to the
  // caller and killed until it has no child left. Only for a process that is
  // single-threaded, has no other children and does not ignore SIGCHLD: the agent binary.
  kThisProcess,
  // The calling thread, with neither keeper nor subreaper: for a child that contains its
  // own tree, bwrap, whose --unshare-pid and --die-with-parent end every process of the
  // sandbox when bwrap itself ends. At the deadline or over the stdout cap the child and
  // its group are killed; the child is waited for through a pidfd, never by waitpid(-1),
  // so it is safe in a multi-threaded worker whose other threads have children of their
  // own. The fork of the worker the keeper costs is gone (0.6-0.9 ms a run for
  // bench_runtimes' small process, more for a worker with a large heap).
  kThisThread,
};

struct SpawnSpec {
  std::string program;  // resolved: absolute, or relative to cwd_fd
  std::vector<std::string> argv;
  std::vector<std::string> env;
  int cwd_fd = -1;
  ChildWalls walls;
  std::chrono::milliseconds timeout{0};
  std::size_t stdout_cap = 0;
  Supervisor supervisor = Supervisor::kKeeper;
};

struct SpawnResult {
  bool started = false;     // execve succeeded
  std::string start_error;  // why not, when it did not
  std::optional<int> exit_code;
  std::optional<int> signal;
  bool timed_out = false;
  std::string stdout_bytes;  // at most stdout_cap
  bool stdout_over_cap = false;
  std::string stderr_raw;  // the last 32–64 KiB of stderr, as bytes
  // False when a descendant could not be enumerated (no /proc) and may have survived.
  bool tree_killed = true;
  std::uint64_t run_ms = 0;
};

SpawnResult spawn_and_wait(const SpawnSpec& spec);

}  // namespace batlehub::base
