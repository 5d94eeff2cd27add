// The tests' way into OciRuntime, as BwrapRuntimePeer is into BwrapRuntime: walls broken on
// purpose, each by an edit of the engine's argv that oci_argv() never makes, to prove the
// probe notices. Production options carry no such switch ([worker.sandbox.oci] extra_args
// is the operator's, and appends; these replace and remove). The agent's own walls are left
// out by an image holding a test-only agent instead (weakened_agent_bin()).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "adapters/sandbox/oci.h"

namespace batlehub::adapters {

class OciRuntimePeer {
 public:
  // /work mounted suid (both engines mount a tmpfs nosuid unless told `suid`), and no
  // no_new_privs from the engine: a setuid file the scanner wrote there would raise its
  // privileges. On docker only: podman's container is a descendant of the podman process,
  // which the worker starts (base::spawn_and_wait) with no_new_privs already set, so its
  // containers inherit it whatever the flags say.
  static void setuid_work_dir(OciRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      for (auto& a : argv) {
        const auto at = a.find("nosuid,");
        if (a.starts_with("/work:") && at != std::string::npos) a.replace(at, std::string("nosuid,").size(), "suid,");
      }
      erase_pair(argv, "--security-opt", "no-new-privileges");
    };
  }
  // Every run starts in the image's read-only / instead of /work (-w /): the one
  // directory the agent works in is not writable.
  static void work_in_the_root(OciRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == "-w") argv[i + 1] = "/";
      }
    };
  }
  // Every run as root inside (--user 0:0 instead of 65532:65532), its /work and /tmp its
  // own (docker's tmpfs uid=/gid=; podman's `U` follows --user by itself).
  static void root_inside(OciRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      auto user = std::find(argv.begin(), argv.end(), std::string("--user"));
      if (user != argv.end() && user + 1 != argv.end()) *(user + 1) = "0:0";
      for (auto& a : argv) {
        const auto at = a.find("uid=65532,gid=65532");
        if (at != std::string::npos && (a.starts_with("/work:") || a.starts_with("/tmp:"))) {
          a.replace(at, std::string("uid=65532,gid=65532").size(), "uid=0,gid=0");
        }
      }
    };
  }
  // No seccomp profile of the engine's own (--security-opt seccomp=unconfined): what is
  // left of the filter is the agent's. The engines' default profiles answer clone3 with
  // ENOSYS too, so a test of the agent's clone3 rule takes theirs away as well.
  static void no_engine_seccomp(OciRuntime& rt) {
    rt.edit_argv_for_tests_ = [](std::vector<std::string>& argv) {
      auto user = std::find(argv.begin(), argv.end(), std::string("--user"));
      argv.insert(user, {"--security-opt", "seccomp=unconfined"});
    };
  }

 private:
  static void erase_pair(std::vector<std::string>& argv, const std::string& flag, const std::string& value) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == flag && argv[i + 1] == value) {
        argv.erase(argv.begin() + static_cast<std::ptrdiff_t>(i), argv.begin() + static_cast<std::ptrdiff_t>(i) + 2);
        return;
      }
    }
  }
};

}  // namespace batlehub::adapters
