// What the benches of the oci runtime (bench_oci.cc, bench_storage.cc) share beyond
// bench_support.h: the engines they are told to run on.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "adapters/sandbox/oci.h"
#include "bench_support.h"

namespace batlehub::bench {

// The engine CLI's PATH, as the oci tests give it: podman finds runc and conmon in sbin.
constexpr const char* kEnginePath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// --engine podman|docker (repeatable): the engine added to `engines`, once.
inline void add_engine(Args& args, std::vector<adapters::OciEngineKind>& engines) {
  std::string e = args.value();
  if (e != "podman" && e != "docker") args.fail("unknown engine " + e + " (podman or docker)");
  adapters::OciEngineKind k = e == "podman" ? adapters::OciEngineKind::kPodman : adapters::OciEngineKind::kDocker;
  if (std::find(engines.begin(), engines.end(), k) == engines.end()) engines.push_back(k);
}

// Once the arguments are read: by default podman, and docker too when --docker-host is given;
// docker only through a --docker-host that is a unix socket.
inline void settle_engines(Args& args, std::vector<adapters::OciEngineKind>& engines, const std::string& docker_host) {
  if (engines.empty()) {
    engines.push_back(adapters::OciEngineKind::kPodman);
    if (!docker_host.empty()) engines.push_back(adapters::OciEngineKind::kDocker);
  }
  const bool docker = std::find(engines.begin(), engines.end(), adapters::OciEngineKind::kDocker) != engines.end();
  if (docker && docker_host.empty())
    args.fail("--engine docker needs --docker-host unix://PATH (scripts/docker-peer.sh prints one)");
  // A unix socket only: the bench never talks to a daemon on another machine.
  if (!docker_host.empty() && !docker_host.starts_with("unix:///")) {
    args.fail("--docker-host " + docker_host + " is not unix:///PATH: the bench stays on this machine");
  }
}

// The options both benches take; each bench's Options adds its own.
struct OciBenchOptions {
  OciBenchOptions(std::string agent_bin, std::string hostile_bin)
      : agent(std::move(agent_bin)), hostile(std::move(hostile_bin)) {}
  std::string agent;
  std::string hostile;
  std::string dir = default_bench_dir();
  std::string build_room = source_script("build-room.py");
  std::string build_image = source_script("build-image.py");
  std::vector<adapters::OciEngineKind> engines;
  std::string docker_host;
  std::string podman = "podman";
  std::string docker = "docker";
  int reps = 10;
  int warmup = 2;
};

// When the flag is one of OciBenchOptions', its value read into `o`.
inline bool oci_bench_flag(Args& args, OciBenchOptions& o) {
  if (args.value_into({{"--agent", &o.agent},
                       {"--hostile", &o.hostile},
                       {"--dir", &o.dir},
                       {"--docker-host", &o.docker_host},
                       {"--podman", &o.podman},
                       {"--docker", &o.docker}}))
    return true;
  const std::string& a = args.flag();
  if (a == "--reps")
    o.reps = static_cast<int>(args.number(1));
  else if (a == "--warmup")
    o.warmup = static_cast<int>(args.number(0));
  else if (a == "--engine")
    add_engine(args, o.engines);
  else
    return false;
  return true;
}

// Once the arguments are read: the engines settled, the agent and hostile given, the dir absolute.
inline void settle_oci_bench_options(Args& args, OciBenchOptions& o) {
  settle_engines(args, o.engines, o.docker_host);
  if (o.agent.empty()) args.fail("--agent PATH is required");
  if (o.hostile.empty()) args.fail("--hostile PATH is required");
  o.dir = std::filesystem::absolute(o.dir).string();
}

// One engine as a bench drives it: its CLI and the image of the room imported into it.
struct EngineBase {
  adapters::OciEngineKind kind = adapters::OciEngineKind::kPodman;
  std::string name;              // "podman", "docker"
  std::string binary;            // resolved on PATH, as OciRuntime resolves it
  std::vector<std::string> env;  // the CLI's own environment, the runtime's and the anchor's
  std::string image;
  bool imported = false;
  std::string version;
  double import_s = 0;
  std::string load_before, pressure_before, pressure_after;
};

// The engine `kind`: its CLI `podman` or `docker` (a name on PATH or a path; the bench stops
// when it is not executable), docker's through docker_host, the room's image to be `image`.
inline EngineBase engine_base(adapters::OciEngineKind kind, const std::string& podman, const std::string& docker,
                              const std::string& docker_host, const std::string& image) {
  EngineBase e;
  e.kind = kind;
  e.name = kind == adapters::OciEngineKind::kPodman ? "podman" : "docker";
  e.binary = engine_binary(kind == adapters::OciEngineKind::kPodman ? podman : docker, e.name);
  e.env = {kEnginePath};
  if (kind == adapters::OciEngineKind::kDocker) e.env.push_back("DOCKER_HOST=" + docker_host);
  e.image = image;
  return e;
}

// The engines the options name, each to hold the room's image as `image`.
template <class Engine>
std::vector<Engine> engines_of(const OciBenchOptions& o, const std::string& image) {
  std::vector<Engine> engines;
  for (auto k : o.engines) {
    Engine e;
    static_cast<EngineBase&>(e) = engine_base(k, o.podman, o.docker, o.docker_host, image);
    engines.push_back(std::move(e));
  }
  return engines;
}

// This run's directory, <dir>/batlehub-bench/<prefix><pid>, new: what earlier runs of
// `prefix` left there removed.
inline std::string fresh_run_dir(const std::string& dir, const std::string& prefix) {
  std::string base = dir + "/batlehub-bench";
  std::filesystem::create_directories(base);
  remove_stale_runs(base, prefix);
  std::string run = base + "/" + prefix + std::to_string(::getpid());
  std::filesystem::remove_all(run);
  return run;
}

// The room of the agent and hostile built at `room` (scripts/build-room.py) and imported into
// each engine (scripts/build-image.py), with the engines' versions; the seconds the room took.
template <class Engine>
double build_room_and_images(const OciBenchOptions& o, const std::string& room, const std::string& logs,
                             std::vector<Engine>& engines) {
  auto py = find_on_path("python3");
  if (!py) die("python3 is not on PATH (scripts/build-room.py needs it)");
  const std::vector<std::string> script_env = own_env();
  double room_s = build_room(*py, o.build_room, o.agent, o.hostile, room, logs, script_env);
  for (EngineBase& e : engines) {
    const bool docker = e.kind == adapters::OciEngineKind::kDocker;
    e.imported = true;  // from here on, a failure removes it (rmi -f of nothing is harmless)
    e.import_s = build_image(*py, o.build_image, room, e.name, docker ? o.docker_host : "", e.image, logs, script_env);
    e.version = engine_version(docker, e.binary, e.env, logs);
  }
  return room_s;
}

// The oci runtime's options for runs of the engine's image, their directories under scratch.
inline adapters::OciOptions oci_options(const EngineBase& e, const std::string& scratch,
                                        std::chrono::seconds start_timeout) {
  adapters::OciOptions oo;
  oo.engine = e.kind;
  oo.binary = e.binary;
  oo.default_image = e.image;
  oo.scratch_dir = scratch;
  oo.start_timeout = start_timeout;
  oo.engine_env = e.env;
  return oo;
}

// The table's header lines on the engines: their versions and the images' imports.
template <class Engine>
void print_engines(const std::vector<Engine>& engines, const std::string& docker_host) {
  std::string versions, imports;
  for (const EngineBase& e : engines) {
    versions += (versions.empty() ? "" : "; ") + e.name + " " + (e.version.empty() ? "(version unknown)" : e.version);
    if (e.kind == adapters::OciEngineKind::kDocker) versions += " at " + docker_host;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.1f s", e.name.c_str(), e.import_s);
    imports += (imports.empty() ? "" : ", ") + std::string(buf);
  }
  std::printf("  engines  %s\n", versions.c_str());
  std::printf("  images   the room imported into each by scripts/build-image.py: %s\n", imports.c_str());
}

}  // namespace batlehub::bench
