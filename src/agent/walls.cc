#include "agent/walls.h"

namespace batlehub::agent {

std::vector<SyscallRule> scanner_rules() {
  std::vector<SyscallRule> out;
  const WeakenedWall w = weakened_wall();
  for (const SyscallRule& r : deny_list()) {
    if (w == WeakenedWall::kCanarySyscall && r.name == "personality") continue;
    if (w == WeakenedWall::kClone3Enosys && r.name == "clone3") continue;
    out.push_back(r);
  }
  return out;
}

bool makes_itself_undumpable() {
  const WeakenedWall w = weakened_wall();
  return w != WeakenedWall::kUndumpable && w != WeakenedWall::kUndumpableLandlock;
}

bool installs_landlock() {
  const WeakenedWall w = weakened_wall();
  return w != WeakenedWall::kLandlock && w != WeakenedWall::kUndumpableLandlock;
}

base::ChildWalls scanner_walls(const std::vector<RlimitSetting>& rlimits, const SeccompProgram* seccomp,
                               int landlock_ruleset) {
  const WeakenedWall w = weakened_wall();
  base::ChildWalls walls{.identity = std::nullopt,
                         .rlimits = rlimits,
                         .seccomp = seccomp,
                         .landlock_ruleset = installs_landlock() ? landlock_ruleset : -1};
  if (w == WeakenedWall::kRlimits) walls.rlimits.clear();
  if (w == WeakenedWall::kSeccompFilter) walls.seccomp = nullptr;
  return walls;
}

}  // namespace batlehub::agent
