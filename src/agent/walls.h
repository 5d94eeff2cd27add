// The walls the agent puts on the scanner — the rlimits, no_new_privs and its seccomp filter —
// as this build of the agent puts them, for a run and for the probe's walled child alike.
#pragma once

#include <vector>

#include "agent/limits.h"
#include "agent/seccomp_policy.h"
#include "base/spawn.h"

namespace batlehub::agent {

// Which of its own walls this build of the agent leaves out. kNone in every agent the project
// builds for a room or an image (batlehub-sandbox, batlehub-sandbox-testroots) and in the
// library the `none` runtime runs: walls_as_built.cc, whose one definition returns kNone.
//
// The tests that prove the probe notices a missing agent wall link test-only agents
// (tests/helpers/CMakeLists.txt, batlehub-sandbox-without-*) that define weakened_wall() in a
// file of their own, so the linker never takes walls_as_built.cc from the library. The seam
// is the link, not an input: nothing a manifest, a bundle, the environment or argv says can
// reach it, and the binary a room or an image is built from has no weakening in it at all.
enum class WeakenedWall {
  kNone,
  kSeccompFilter,       // no filter of the agent's own
  kCanarySyscall,       // the filter without its personality rule
  kClone3Enosys,        // the filter without its clone3 rule
  kRlimits,             // no rlimit set
  kUndumpable,          // the agent stays dumpable (its uid's processes may open its /proc/<pid>/mem)
  kLandlock,            // no Landlock ruleset on the scanner
  kUndumpableLandlock,  // both: what the escape suite writes the agent's memory through
};
WeakenedWall weakened_wall();

// Whether this build makes the agent undumpable before its scanner starts (agent.cc).
bool makes_itself_undumpable();
// Whether this build puts its Landlock ruleset on the scanner, where the kernel has one.
bool installs_landlock();

// The deny list this build compiles: deny_list(), less the rule a weakened build leaves out.
std::vector<SyscallRule> scanner_rules();

// What the scanner's child installs on itself: `rlimits`, the Landlock ruleset (-1: none)
// and `seccomp` (compiled from scanner_rules()), less what a weakened build leaves out.
base::ChildWalls scanner_walls(const std::vector<RlimitSetting>& rlimits, const SeccompProgram* seccomp,
                               int landlock_ruleset);

}  // namespace batlehub::agent
