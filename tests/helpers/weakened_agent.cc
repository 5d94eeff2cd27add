// The agent with one of its own walls left out, for the tests that prove the probe notices
// (tests/adapters/bwrap_runtime_test.cc, oci_runtime_test.cc): main.cc and the agent
// library as batlehub-sandbox links them, and this definition of weakened_wall() in place of
// walls_as_built.cc's (agent/walls.h). BATLEHUB_WEAKENED names the wall, per executable
// (tests/helpers/CMakeLists.txt). Never in a room or an image but the tests' own.
#include "agent/walls.h"

namespace batlehub::agent {

WeakenedWall weakened_wall() {
  return WeakenedWall::BATLEHUB_WEAKENED;
}

}  // namespace batlehub::agent
