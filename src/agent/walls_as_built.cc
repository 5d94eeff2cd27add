// The one definition of weakened_wall() in every agent the project ships (agent/walls.h). It
// is alone in its file on purpose: a test-only agent that defines weakened_wall() itself
// links without this object, which the linker takes from the library only to resolve it.
#include "agent/walls.h"

namespace batlehub::agent {

WeakenedWall weakened_wall() {
  return WeakenedWall::kNone;
}

}  // namespace batlehub::agent
