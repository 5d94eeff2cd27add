// The container engines behind the `oci` runtime, for the tests that drive it for real
// (oci_runtime_test.cc, escape_test.cc): the engine CLI's environment, why an engine cannot
// be tested here, and an image of a room (scripts/build-image.py) to run.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "adapters/sandbox/oci.h"
#include "rooms.h"

namespace batlehub::testing {

using adapters::OciEngineKind;

// An engine as the tests drive it: podman (no daemon), or docker through one of the ctest
// fixtures' daemons (tests/oci_fixture.cmake), one of which runs with userns-remap.
struct TestEngine {
  OciEngineKind kind = OciEngineKind::kPodman;
  const char* name = "podman";     // the gtest parameter's name: …/podman, …/docker, …/docker_remap
  const char* host_var = nullptr;  // the env variable holding its DOCKER_HOST, for docker
  bool remapped = false;           // its daemon maps every container's uids (userns-remap)
  // Its containers run under gVisor: [worker.sandbox.oci] extra_args = ["--runtime=…runsc"],
  // as an operator sets it (docs/operations/oci.md, "The strongest configuration").
  bool gvisor = false;
  bool operator==(const TestEngine&) const = default;
};
inline constexpr TestEngine kPodman{OciEngineKind::kPodman, "podman", nullptr, false};
inline constexpr TestEngine kDocker{OciEngineKind::kDocker, "docker", "BATLEHUB_TEST_DOCKER_HOST", false};
inline constexpr TestEngine kDockerRemap{OciEngineKind::kDocker, "docker_remap", "BATLEHUB_TEST_DOCKER_REMAP_HOST",
                                         true};
inline constexpr TestEngine kPodmanGvisor{OciEngineKind::kPodman, "podman_gvisor", nullptr, false, true};
// The plain daemon: scripts/docker-peer.sh registers Debian's runsc there as "runsc".
inline constexpr TestEngine kDockerGvisor{OciEngineKind::kDocker, "docker_gvisor", "BATLEHUB_TEST_DOCKER_HOST", false,
                                          true};
// Where gVisor's runsc is: Debian 12's package (scripts/deps.txt).
inline constexpr const char* kRunsc = "/usr/bin/runsc";
// What gVisor's Sentry answers to uname, on any host (gVisor's fixed release and version).
inline constexpr const char* kGvisorKernel = "Linux 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016";

// What gtest prints for a parameter in its messages: the engine's name, not its bytes.
inline void PrintTo(const TestEngine& e, std::ostream* os) {
  *os << e.name;
}

inline const char* engine_cli(const TestEngine& e) {
  return e.kind == OciEngineKind::kPodman ? "podman" : "docker";
}

inline std::optional<std::string> docker_host_of(const TestEngine& e) {
  const char* h = e.host_var ? std::getenv(e.host_var) : nullptr;
  return h ? std::optional<std::string>(h) : std::nullopt;
}

// The engine CLI's environment in these tests: the docker peer's socket.
inline std::vector<std::string> engine_env(const TestEngine& e) {
  std::vector<std::string> env{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  if (auto h = docker_host_of(e)) env.push_back("DOCKER_HOST=" + *h);
  return env;
}

// `<engine> <args>`'s stdout, run with engine_env() alone, or nullopt when it failed.
inline std::optional<std::string> engine_out(const TestEngine& e, const std::string& args) {
  std::string cmd = "env -i ";
  for (const auto& kv : engine_env(e)) cmd += kv + " ";
  cmd += std::string(engine_cli(e)) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

// Why this engine cannot be tested here, or "" when it can.
inline std::string engine_unavailable(const TestEngine& e) {
  if (!BATLEHUB_AGENT_STATIC) {
    return "this build links the agent dynamically (sanitizers cannot link statically), and an image FROM scratch "
           "needs the static agent; the oci runtime tests run in the release build";
  }
  if (e.host_var && !docker_host_of(e)) {
    return std::string("no docker peer: ") + e.host_var + " is unset (tests/oci_fixture.cmake starts dockerd)";
  }
  if (!engine_out(e, "version")) {
    return std::string(e.name) +
           " does not answer `version` (scripts/install-deps.sh installs and configures both engines)";
  }
  if (e.remapped &&
      engine_out(e, "info --format '{{.SecurityOptions}}'").value_or("").find("name=userns") == std::string::npos) {
    return std::string(e.name) + ": the daemon at " + *docker_host_of(e) + " does not remap user namespaces";
  }
  if (e.gvisor && ::access(kRunsc, X_OK) != 0) {
    return std::string(e.name) + ": no gVisor here: " + kRunsc +
           " is missing (apt-get install runsc; scripts/deps.txt)";
  }
  if (e.gvisor && e.kind == OciEngineKind::kDocker &&
      engine_out(e, "info --format '{{json .Runtimes}}'").value_or("").find("\"runsc\"") == std::string::npos) {
    return std::string(e.name) + ": the daemon at " + *docker_host_of(e) +
           " has no runtime \"runsc\" (scripts/docker-peer.sh registers it when " + kRunsc + " exists)";
  }
  return "";
}

// A tag for an image of `room` that no other test process uses (ctest runs them side by
// side, and each removes its own image).
inline std::string test_image_tag(const std::string& room) {
  return "localhost/batlehub-test-" + room + ":" + std::to_string(::getpid());
}

// The room at room_dir as the engine's image `tag`, the way an operator's engine gets one: the
// image is pushed to the tests' registry (tests/registry_fixture.cmake) and the engine pulls it
// from there by digest (scripts/build-image.py --registry), then names it `tag`. A room whose
// definition allows a shell is built with that definition (`definition`, a path under rooms/).
// Returns "" on success, else what failed.
inline std::string import_room_image(const TestEngine& e, const fs::path& room_dir, const std::string& tag,
                                     const std::string& definition = "") {
  if (::access(BATLEHUB_TEST_REGISTRY_BIN, X_OK) != 0)
    return std::string("no registry at ") + BATLEHUB_TEST_REGISTRY_BIN + " (scripts/install-registry.sh builds it)";
  std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-image.py --room " +
                    room_dir.string() + " --engine " + engine_cli(e) + " --tag " + tag + " --registry " +
                    BATLEHUB_TEST_REGISTRY;
  if (!definition.empty()) cmd += " --definition " + definition;
  if (auto h = docker_host_of(e)) cmd += " --docker-host " + *h;
  return std::system((cmd + " >/dev/null").c_str()) == 0 ? "" : cmd;
}

// The room of `hostile` built under rooms_dir and imported into the engine; `image` is set
// to its tag once the room is built (what the caller then removes). Returns "" on success,
// else what failed.
inline std::string import_hostile_image(const TestEngine& e, const fs::path& rooms_dir, std::string& image) {
  fs::create_directories(rooms_dir);
  if (!build_room(rooms_dir, "hostile")) return "build-room.py of hostile";
  image = test_image_tag("hostile");
  return import_room_image(e, rooms_dir / "hostile", image);
}

// Whether a process in the container `id` runs `hostile sleep` (rooms.h): both engines run a
// container's processes in a cgroup whose path holds the container's id.
inline bool scanner_sleeping_in(const std::string& id) {
  return hostile_sleeping_in_cgroup(id);
}

// Waits (up to a minute) until the one container labelled with `worker` runs `hostile sleep`.
inline bool wait_for_a_sleeping_scanner(const TestEngine& e, const std::string& worker) {
  for (int i = 0; i < 600; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string name =
        engine_out(e, "ps -a --filter label=io.batlehub.worker=" + worker + " --format '{{.Names}}'").value_or("");
    while (!name.empty() && name.back() == '\n') name.pop_back();
    if (name.empty() || name.find('\n') != std::string::npos) continue;
    std::string id = engine_out(e, "inspect -f '{{.Id}}' " + name).value_or("");
    while (!id.empty() && id.back() == '\n') id.pop_back();
    if (!id.empty() && scanner_sleeping_in(id)) return true;
  }
  return false;
}

// Removes the image `tag` names. Pulled by digest (import_room_image), an image keeps that
// name once its tag is gone (podman; docker when the tag's repository is not the registry's):
// with no tag left it goes too, not forced, so a container still using it keeps it.
inline void remove_image(const TestEngine& e, const std::string& tag) {
  std::string id = engine_out(e, "image inspect --format '{{.Id}}' " + tag).value_or("");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  engine_out(e, "rmi -f " + tag);
  if (id.empty() || id.find_first_of(" '\"") != std::string::npos) return;
  const std::string tags = engine_out(e, "image inspect --format '{{json .RepoTags}}' " + id).value_or("");
  if (tags.starts_with("[]") || tags.starts_with("null")) engine_out(e, "rmi " + id);
}

// The oci runtime's options in these tests: every run in `image`, its per-run directories
// under scratch_dir, and a start timeout long enough for a loaded machine.
inline adapters::OciOptions test_oci_options(const TestEngine& e, const std::string& image,
                                             const fs::path& scratch_dir) {
  adapters::OciOptions o;
  o.engine = e.kind;
  o.binary = engine_cli(e);
  o.default_image = image;
  o.scratch_dir = scratch_dir.string();
  o.start_timeout = std::chrono::seconds(60);
  o.engine_env = engine_env(e);
  // podman takes runsc's path; docker the name its daemon registered it under.
  if (e.gvisor)
    o.extra_args = {e.kind == OciEngineKind::kPodman ? std::string("--runtime=") + kRunsc : "--runtime=runsc"};
  return o;
}

// The names of the containers labelled with this worker label, running or not.
inline std::string containers_of(const TestEngine& e, const std::string& worker) {
  return engine_out(e, "ps -a --filter label=io.batlehub.worker=" + worker + " --format '{{.Names}}'")
      .value_or("(ps failed)");
}

// A worker in a child process, in the middle of one long run.
struct HangingWorker {
  pid_t pid = -1;
  std::string label;       // its worker label: "<its pid>@<this host>"
  std::string containers;  // the names of its run's containers ("" if none appeared in 60 s)
};

// Forks a worker whose `run` (an oci runtime running the spec it is given) hangs in
// `hostile hang`, and waits for its container to run. The caller kills and reaps the child.
inline HangingWorker fork_worker_with_a_hanging_run(const TestEngine& e,
                                                    const std::function<void(const core::RunSpec&)>& run) {
  HangingWorker w;
  w.pid = ::fork();
  if (w.pid < 0) return w;
  if (w.pid == 0) {
    core::RunSpec spec;
    spec.label.scanner = "hostile";
    spec.argv = {"hostile", "hang"};
    spec.timeout = std::chrono::seconds(600);
    run(spec);
    ::_exit(0);
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  w.label = std::to_string(w.pid) + "@" + host;
  for (int i = 0; i < 300 && w.containers.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    w.containers =
        engine_out(e, "ps -a --filter label=io.batlehub.worker=" + w.label + " --format '{{.Names}}'").value_or("");
  }
  return w;
}

}  // namespace batlehub::testing
