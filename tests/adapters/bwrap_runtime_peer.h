// The tests' way into BwrapRuntime (as sandbox2's tests reach PolicyBuilderPeer): walls
// broken on purpose, to prove the probe notices. Production options carry no such switch.
//
// Each edit is one the runtime's own bwrap_argv() never makes. The agent's own walls (its
// seccomp filter, its rlimits) are not the runtime's to break: those tests run a room built
// with a test-only agent instead (weakened_agent_bin(), tests/helpers/weakened_agent.cc).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "adapters/sandbox/bwrap.h"

namespace batlehub::adapters {

class BwrapRuntimePeer {
 public:
  // Every run keeps the worker's network: --unshare-net is dropped from the argv.
  static void keep_network(BwrapRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      argv.erase(std::remove(argv.begin(), argv.end(), std::string("--unshare-net")), argv.end());
    };
  }
  // Every run gets this variable from bwrap itself (--setenv before the command).
  static void leak_env(BwrapRuntime& rt, std::string key, std::string value) {
    rt.edit_argv_for_tests_ = [key, value](std::vector<std::string>& argv) {
      auto dash = std::find(argv.begin(), argv.end(), std::string("--"));
      argv.insert(dash, {"--setenv", key, value});
    };
  }
  // Every run starts in the room's read-only / instead of its work dir (--chdir /): the one
  // directory the agent works in is not writable. (bwrap mounts every bind nosuid and sets
  // no_new_privs itself, and no device node can be made in its user namespace: the nosuid
  // and nodev halves of one_writable_dir cannot be taken away through bwrap's argv.)
  static void work_in_the_root(BwrapRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      auto chdir = std::find(argv.begin(), argv.end(), std::string("--chdir"));
      if (chdir != argv.end() && chdir + 1 != argv.end()) *(chdir + 1) = "/";
    };
  }
  // Every run is root inside its user namespace, with every capability (--uid 0 --gid 0
  // --cap-add ALL instead of uid 65532 with none).
  static void root_inside(BwrapRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == "--uid" || argv[i] == "--gid") argv[i + 1] = "0";
      }
      auto dash = std::find(argv.begin(), argv.end(), std::string("--"));
      argv.insert(dash, {"--cap-add", "ALL"});
    };
  }
};

}  // namespace batlehub::adapters
