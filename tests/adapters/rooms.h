// Rooms for the runtime tests, built with the project's own tool (scripts/build-room.py).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "scratch.h"

namespace batlehub::testing {

// Builds <rooms_dir>/<name> holding the agent and the hostile test scanner (static), plus
// whatever `extra` arguments add. Returns false (with the tool's words) on failure.
inline bool build_room(const fs::path& rooms_dir, const std::string& name, const std::string& extra = "",
                       const std::string& agent = BATLEHUB_AGENT_BIN) {
  std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-room.py --name " + name +
                    " --agent " + agent + " --binary " + std::string(BATLEHUB_HELPERS_DIR) +
                    "/hostile:/usr/bin/hostile " + extra + " --out " + (rooms_dir / name).string() + " >/dev/null";
  return std::system(cmd.c_str()) == 0;
}

inline bool have_bwrap() { return ::access("/usr/bin/bwrap", X_OK) == 0; }

// Why the bwrap tests cannot run here, or "" when they can.
inline std::string bwrap_unavailable() {
  if (!BATLEHUB_AGENT_STATIC) {
    return "this build links the agent dynamically (sanitizers cannot link statically); "
           "the bwrap runtime tests run in the release build";
  }
  if (!have_bwrap()) return "bwrap is not installed (scripts/install-deps.sh installs bubblewrap)";
  return "";
}

}  // namespace batlehub::testing
