// Landlock: the agent's own filesystem, network and scope wall on the scanner, built by the
// agent from what it sees inside the sandbox and installed by the scanner's child
// (base::ChildWalls::landlock_ruleset) after no_new_privs and before the seccomp filter.
//
// It needs no privilege and stacks under whatever the runtime built (bwrap, an engine's
// container, a pod), so it holds even where the runtime's own walls were loosened: the
// scanner reads only its room, /proc, /dev and its work dirs, writes only /work and /tmp
// (and /dev/null), binds and connects no TCP socket (ABI 4), and reaches no abstract unix
// socket and signals no process outside its domain (ABI 6) — the agent above all. Landlock
// also refuses a sandboxed process any ptrace-class access to a process outside its domain
// (ABI 1): /proc/<agent>/mem, process_vm_writev, PTRACE_ATTACH.
//
// A kernel without Landlock (not built, or off at boot) gets no ruleset: the probe warns and
// names what is lost, and `[worker.sandbox] require_landlock = true` makes that a failure.
// A kernel with it whose ruleset cannot be built fails the run: never a silent downgrade.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/expected.h"
#include "base/fd.h"

namespace batlehub::agent::landlock {

// What the kernel offers: abi 0 and the errno of the version query when it offers nothing
// (ENOSYS: not built; EOPNOTSUPP: built but off at boot).
struct Support {
  int abi = 0;
  int err = 0;
};
Support query();

// What "/" is in this sandbox. kRoom: the scanner's room, with the runtime's own mounts on
// it (bwrap, oci, kubernetes); reading is allowed in the room's own directories and not in
// a mount that is not the room's (the bundle, /sys, a volume). kHost: the host's root (the
// `none` runtime, where the agent is a library of the worker): reading is allowed
// everywhere, writing still only in the work dir and /tmp.
enum class RootIs { kRoom, kHost };

struct Rule {
  std::string path;
  std::uint64_t access = 0;
};

// The ruleset, ready for landlock_restrict_self in a child that may not allocate.
struct Ruleset {
  base::Fd fd;  // invalid when the kernel has no Landlock
  Support support;
  RootIs root = RootIs::kRoom;
  std::vector<Rule> rules;  // what was added, for the probe's evidence
  // What the ruleset stops beyond the filesystem, by the ABI: "tcp bind/connect", "abstract
  // unix sockets", "signals".
  std::vector<std::string> also_denied;
  // One line for the probe: the ABI and what each rule allows.
  std::string describe() const;
};

// The rules for a scanner whose work dir is `work_dir`, on this kernel. An error names the
// call and the path that failed, with its errno.
Expected<Ruleset, std::string> build(const std::string& work_dir, RootIs root);

// What a kernel without Landlock leaves to the other walls, for the probe's warning.
std::string what_is_lost();

// A set of filesystem rights as the probe names them ("read", "write", "exec", …).
std::string rights_name(std::uint64_t access);

}  // namespace batlehub::agent::landlock
