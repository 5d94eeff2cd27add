// Rooms for the runtime tests, built with the project's own tool (scripts/build-room.py).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "adapters/sandbox/blob.h"
#include "archive_builder.h"
#include "core/sandbox.h"
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

// What a worker test runs its worker on: <root>/rooms holding a postmortem room whose
// scanner is the stand-in fake_postmortem, and <root>/tmp, a sticky world-writable TMPDIR
// as /tmp is. false (and nothing else built) when the room cannot be.
struct FakePostmortemSite {
  fs::path rooms, tmp;
};
inline std::optional<FakePostmortemSite> fake_postmortem_site(const fs::path& root) {
  FakePostmortemSite site{root / "rooms", root / "tmp"};
  fs::create_directories(site.rooms);
  fs::create_directories(site.tmp);
  fs::permissions(site.tmp, fs::perms::all | fs::perms::sticky_bit);
  if (!build_room(site.rooms, "postmortem",
                  "--binary " + std::string(BATLEHUB_HELPERS_DIR) + "/fake_postmortem:/usr/bin/postmortem")) {
    return std::nullopt;
  }
  return site;
}

// Whether some process runs `hostile sleep` in a cgroup whose path holds `cgroup_part` (a
// container's id; a cluster's cgroup root): the scanner has started, so the agent has
// fetched its bundle. What the fault tests wait for before they take a peer away.
inline bool hostile_sleeping_in_cgroup(const std::string& cgroup_part) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_what_is_there(e.path() / "cmdline");
    if (cmdline.find("hostile") == std::string::npos ||
        cmdline.find(std::string("\0sleep\0", 7)) == std::string::npos) {
      continue;
    }
    if (read_what_is_there(e.path() / "cgroup").find(cgroup_part) != std::string::npos) return true;
  }
  return false;
}

// A run of the hostile scanner over a small package: an archive (with a symlink out of it,
// which extraction refuses) and a lockfile; it prints the package's index.js. The same spec
// on every runtime is how "gives the same output as none" is asserted.
inline core::RunSpec fixture_run_spec() {
  std::string tgz = make_tgz({dir("package/"), file("package/index.js", "module.exports = 42;\n"),
                              file("package/lib/a.js", "a"), symlink("package/evil", "/etc/passwd")});
  core::RunSpec spec;
  spec.label.scanner = "hostile";
  spec.timeout = std::chrono::seconds(20);
  spec.bundle.entries = {
      core::BundleEntry::archive(*wire::RelPath::parse("node_modules/x"), adapters::memory_blob(tgz, "x.tgz"), true),
      core::BundleEntry::inline_file(*wire::RelPath::parse("package-lock.json"), "{}")};
  spec.argv = {"hostile", "cat", "node_modules/x/index.js"};
  return spec;
}

// What `hostile mounts` could write to, less what is beneath /work and /tmp (a run's own
// package is extracted under /work): the places a scanner could write outside its work dirs,
// and /work and /tmp themselves.
inline std::set<std::string> written_by_hostile_mounts(const std::string& report) {
  std::set<std::string> out;
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (!line.ends_with(" written")) continue;
    const std::string path = line.substr(0, line.size() - std::string(" written").size());
    if (!path.starts_with("/work/") && !path.starts_with("/tmp/")) out.insert(path);
  }
  return out;
}

inline bool have_bwrap() { return ::access("/usr/bin/bwrap", X_OK) == 0; }

#ifdef BATLEHUB_WEAKENED_AGENTS_DIR
// The test-only agent that leaves `wall` (seccomp_filter, canary_syscall, clone3_enosys,
// rlimits) out of its own walls (tests/helpers/weakened_agent.cc): what a room or an image
// holds instead of batlehub-sandbox in the tests that prove the probe names that wall.
inline std::string weakened_agent_bin(const std::string& wall) {
  return std::string(BATLEHUB_WEAKENED_AGENTS_DIR) + "/batlehub-sandbox-without-" + wall;
}
#endif

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
