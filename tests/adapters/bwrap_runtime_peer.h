// The tests' way into BwrapRuntime (as sandbox2's tests reach PolicyBuilderPeer): walls
// broken on purpose, to prove the probe notices. Production options carry no such switch.
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
};

}  // namespace batlehub::adapters
