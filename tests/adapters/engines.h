// The container engines behind the `oci` runtime, for the tests that drive it for real
// (oci_runtime_test.cc, escape_test.cc): the engine CLI's environment, why an engine cannot
// be tested here, and an image of a room (scripts/build-image.py) to run.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "adapters/sandbox/oci.h"
#include "rooms.h"

namespace batlehub::testing {

using adapters::OciEngineKind;

inline const char* engine_name(OciEngineKind k) { return k == OciEngineKind::kPodman ? "podman" : "docker"; }

// The engine CLI's environment in these tests: the docker peer's socket (tests/oci_fixture.cmake).
inline std::vector<std::string> engine_env(OciEngineKind k) {
  std::vector<std::string> env{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  if (k == OciEngineKind::kDocker) {
    if (const char* h = std::getenv("BATLEHUB_TEST_DOCKER_HOST")) env.push_back(std::string("DOCKER_HOST=") + h);
  }
  return env;
}

// `<engine> <args>`'s stdout, run with engine_env() alone, or nullopt when it failed.
inline std::optional<std::string> engine_out(OciEngineKind k, const std::string& args) {
  std::string cmd = "env -i ";
  for (const auto& kv : engine_env(k)) cmd += kv + " ";
  cmd += std::string(engine_name(k)) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

// Why this engine cannot be tested here, or "" when it can.
inline std::string engine_unavailable(OciEngineKind k) {
  if (!BATLEHUB_AGENT_STATIC) {
    return "this build links the agent dynamically (sanitizers cannot link statically), and an image FROM scratch "
           "needs the static agent; the oci runtime tests run in the release build";
  }
  if (k == OciEngineKind::kDocker && !std::getenv("BATLEHUB_TEST_DOCKER_HOST")) {
    return "no docker peer: BATLEHUB_TEST_DOCKER_HOST is unset (tests/oci_fixture.cmake starts dockerd)";
  }
  if (!engine_out(k, "version")) {
    return std::string(engine_name(k)) +
           " does not answer `version` (scripts/install-deps.sh installs and configures both engines)";
  }
  return "";
}

// A tag for an image of `room` that no other test process uses (ctest runs them side by
// side, and each removes its own image).
inline std::string test_image_tag(const std::string& room) {
  return "localhost/batlehub-test-" + room + ":" + std::to_string(::getpid());
}

// Imports the room at room_dir into the engine as `tag` (scripts/build-image.py). Returns
// "" on success, else the command that failed.
inline std::string import_room_image(OciEngineKind k, const fs::path& room_dir, const std::string& tag) {
  std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-image.py --room " +
                    room_dir.string() + " --engine " + engine_name(k) + " --tag " + tag;
  if (const char* h = std::getenv("BATLEHUB_TEST_DOCKER_HOST"); h && k == OciEngineKind::kDocker) {
    cmd += std::string(" --docker-host ") + h;
  }
  return std::system((cmd + " >/dev/null").c_str()) == 0 ? "" : cmd;
}

inline void remove_image(OciEngineKind k, const std::string& tag) { engine_out(k, "rmi -f " + tag); }

// The oci runtime's options in these tests: every run in `image`, its per-run directories
// under scratch_dir, and a start timeout long enough for a loaded machine.
inline adapters::OciOptions test_oci_options(OciEngineKind k, const std::string& image, const fs::path& scratch_dir) {
  adapters::OciOptions o;
  o.engine = k;
  o.binary = engine_name(k);
  o.default_image = image;
  o.scratch_dir = scratch_dir.string();
  o.start_timeout = std::chrono::seconds(60);
  o.engine_env = engine_env(k);
  return o;
}

}  // namespace batlehub::testing
