// bench_oci: what one run costs on the `oci` runtime, on podman and on docker, beside a bare
// `podman run` / `docker run` of the same image with the same flags (issue 12).
//
//   bench_oci [--agent PATH] [--hostile PATH] [--dir DIR] [--engine podman|docker]...
//             [--docker-host unix://PATH] [--podman PATH] [--docker PATH] [--reps N]
//             [--warmup N]
//
// One run:
//   1. builds one room (scripts/build-room.py: the agent and the static `hostile` test
//      scanner as /usr/bin/hostile) in a fresh dir under DIR (default $BATLEHUB_BENCH_DIR,
//      else /dev/shm), and imports it as an image into each engine asked
//      (scripts/build-image.py): podman, and docker when a docker host is given;
//   2. per engine, times, alternating, after --warmup untimed rounds, --reps of each of:
//        OciRuntime::run() of `hostile exit 0 ok` (found on the image's PATH), empty bundle;
//        the anchor: the runtime's own engine argv (oci_argv() of the same OciArgvInput:
//          same image, limits, labels and a bundle dir bound the same way) with the agent's
//          argv replaced by `/usr/bin/hostile exit 0 ok`, fork to wait4;
//        for the breakdown only, the same argv with the agent left in (the runtime's
//          container without the runtime around it), each of the runtime's own steps around
//          the engine timed one by one;
//      and, where gVisor's runsc is here (/usr/bin/runsc; on docker, registered with the
//      daemon as "runsc", which scripts/docker-peer.sh does), the same OciRuntime::run() under
//      gVisor ([worker.sandbox.oci] extra_args = ["--runtime=…runsc"]), in the same
//      alternation: the gVisor / runc ratio is the figure an operator weighs the strongest
//      configuration by (no aim);
//   3. checks every run (status 0 and stdout "ok"; a wrong run is a failure, exit 1) and
//      prints the table with the aim (<= 1.1) marked PASS or MISS (a miss is not a failure).
//
// Nothing leaves the machine: the images are imported from a local tar, runs never pull
// (--pull never), the containers have --network none, and a docker host must be a unix
// socket.
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/oci.h"
#include "adapters/sandbox/run_dir.h"
#include "bench_engines.h"
#include "bench_support.h"
#include "wire/sandbox_layout.h"

namespace {

namespace fs = std::filesystem;
namespace ad = batlehub::adapters;
namespace wire = batlehub::wire;
namespace core = batlehub::core;
using namespace batlehub::bench;

// The bundle's place inside the container: the runtime binds its per-run directory there.
// gVisor's runsc, Debian 12's package.
constexpr const char* kRunsc = "/usr/bin/runsc";

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Options : OciBenchOptions {
  Options() : OciBenchOptions(kAgentBin, kHostileBin) {}
};

constexpr const char* kUsage =
    "usage: bench_oci [--agent PATH] [--hostile PATH] [--dir DIR] [--engine podman|docker]...\n"
    "                 [--docker-host unix://PATH] [--podman PATH] [--docker PATH] [--reps N] [--warmup N]\n"
    "  engines: --engine, repeatable; by default podman, and docker too when --docker-host is given\n";

Options parse_args(int argc, char** argv) {
  Options o;
  Args args(argc, argv, kUsage);
  while (args.next()) {
    if (!oci_bench_flag(args, o)) args.unknown();
  }
  settle_oci_bench_options(args, o);
  require_executables({&o.agent, &o.hostile});
  for (const auto* p : {&o.build_room, &o.build_image}) {
    if (p->empty() || ::access(p->c_str(), R_OK) != 0) die("scripts/build-room.py or scripts/build-image.py not found");
  }
  return o;
}

// One engine's setup and samples.
struct Engine : EngineBase {
  std::vector<RunSample> runtime, agent, gvisor;
  std::string gvisor_skipped;  // why there is no gVisor row, when there is none
  std::vector<Sample> anchor;
  // The runtime's own steps around the engine, as the breakdown row repeats them.
  std::vector<double> dir_ms, mount_ms, collect_ms, remove_ms;
};

// What a failure must undo, besides the run's directory: a bundle dir still bound onto
// itself (docker), and the images imported into the engines.
std::string g_mounted;
std::vector<Engine>* g_engines = nullptr;

void remove_images() {
  if (!g_engines) return;
  for (auto& e : *g_engines) {
    if (!e.imported) continue;
    e.imported = false;
    run_process({e.binary, "rmi", "-f", e.image}, "/dev/null", "/dev/null", std::nullopt, e.env);
  }
}

// The per-run /bundle directory exactly as the runtime makes it (ad::OciBundleDir: open to
// every uid; for docker also bound onto itself nosuid,nodev), remembered for a failure's
// cleanup: die() exits without running destructors.
std::optional<ad::OciBundleDir> bundle_dir_in(const ad::TempDir& run, ad::OciEngineKind kind) {
  auto b = ad::OciBundleDir::make(run.path(), kind);
  if (!b) die("the bundle directory: " + b.error().message);
  std::optional<ad::OciBundleDir> out;
  out.emplace(std::move(*b));
  if (kind == ad::OciEngineKind::kDocker) g_mounted = out->path();
  return out;
}

void release(std::optional<ad::OciBundleDir>& bundle) {
  bundle.reset();
  g_mounted.clear();
}

void bench(int argc, char** argv) {
  Options opt = parse_args(argc, argv);
  // The runtime mounts docker's bundle dirs and podman's --userns auto needs root's
  // subordinate ids: the oci runtime is a root worker's here (docs/operations/oci.md).
  if (::geteuid() != 0)
    die("run as root: the docker engine's bundle dir is a mount, and podman's --userns auto is root's");
  // What the measured commands leave behind (podman's conmon, which daemonises) comes back
  // here to be reaped, untimed, after each bare run: the runtime's keeper reaps the same
  // (timed, as part of the run), and the next run does not start beside the last one's tail.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    die(std::string("prctl(PR_SET_CHILD_SUBREAPER): ") + std::strerror(errno));

  bool tmpfs = on_tmpfs(opt.dir, "bench_oci");

  std::vector<Engine> engines =
      engines_of<Engine>(opt, "localhost/batlehub-bench-hostile:" + std::to_string(::getpid()));

  // 1. The directories, the room and the images.
  std::string run = fresh_run_dir(opt.dir, "oci-");
  std::string rooms = run + "/rooms", scratch = run + "/scratch", logs = run + "/logs";
  for (const auto& d : {run, rooms, scratch, logs}) fs::create_directories(d);
  g_engines = &engines;
  on_failure().cleanup = [run] {
    if (!g_mounted.empty()) ::umount2(g_mounted.c_str(), MNT_DETACH);
    remove_images();
    std::error_code ec;
    fs::remove_all(run, ec);
  };

  std::string room = rooms + "/" + kScanner;
  double room_s = build_room_and_images(opt, room, logs, engines);

  // 2. What is measured.
  core::RunSpec spec;  // an empty bundle: the run is all engine, container, agent and process start
  spec.label.scanner = kScanner;
  spec.timeout = std::chrono::seconds(20);
  spec.argv = {kScanner, "exit", "0", kExpect};  // found on the image's PATH as /usr/bin/hostile
  const auto start_timeout = std::chrono::seconds(60);

  for (auto& e : engines) {
    ad::OciOptions oo = oci_options(e, scratch, start_timeout);
    ad::OciRuntime oci(oo);
    ad::OciOptions go = oo;
    go.extra_args = {e.kind == ad::OciEngineKind::kPodman ? std::string("--runtime=") + kRunsc : "--runtime=runsc"};
    ad::OciRuntime gvisor(go);
    if (::access(kRunsc, X_OK) != 0) {
      e.gvisor_skipped = std::string(kRunsc) + " is missing (apt-get install runsc)";
    } else if (e.kind == ad::OciEngineKind::kDocker) {
      ProcResult p = run_process({e.binary, "info", "--format", "{{json .Runtimes}}"}, logs + "/runtimes.out",
                                 "/dev/null", std::nullopt, e.env);
      if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0 ||
          read_file(logs + "/runtimes.out").find("\"runsc\"") == std::string::npos) {
        e.gvisor_skipped = "the daemon has no runtime \"runsc\" (scripts/docker-peer.sh registers it)";
      }
    }

    // The runtime's OciArgvInput for a run of `spec` (OciRuntime::contain builds the same):
    // the same labels, deadline, limits and image; only the name and the directory differ.
    unsigned serial = 0;
    auto engine_argv = [&](const std::string& dir, bool agent) {
      ad::OciArgvInput in;
      in.engine = e.kind;
      in.binary = e.binary;
      in.name = ad::oci_container_name(spec.label, std::to_string(::getpid()) + "-bench" + std::to_string(serial++));
      in.worker = oci.worker_label();
      in.job = spec.label.job;
      const auto deadline = spec.timeout + std::chrono::duration_cast<std::chrono::milliseconds>(start_timeout);
      in.deadline_epoch =
          std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
              .count() +
          std::chrono::duration_cast<std::chrono::seconds>(deadline).count() + 1;
      in.bundle_dir = dir;
      in.network = spec.network;
      in.memory_mb = spec.limits.memory_limit_mb;
      in.work_mb = spec.limits.max_extracted_mb;
      in.image = e.image;
      std::vector<std::string> a = ad::oci_argv(in);
      if (agent) return a;
      // The agent's argv is everything after the image (the last word that is the image).
      auto img = std::find(a.rbegin(), a.rend(), e.image);
      if (img == a.rend()) die("oci_argv() has no image " + e.image);
      a.erase(img.base(), a.end());
      for (const char* w : {kInRoom, "exit", "0", kExpect}) a.emplace_back(w);
      return a;
    };
    const std::string who_anchor = "bare " + e.name + " run";

    // The anchor's bundle dir is prepared untimed the way the runtime prepares its own
    // (ad::OciBundleDir, the same bundle written), so that the engine binds the same thing
    // on both sides.
    auto anchor_once = [&]() {
      auto dir = ad::TempDir::create_owned(scratch, "anchor", kScanner);
      if (!dir) die(dir.error());
      auto bundle = bundle_dir_in(*dir, e.kind);
      if (auto m = ad::write_bundle(spec, ad::RunDirView{bundle->path(), wire::kBundleDir}); !m)
        die("write_bundle: " + m.error().message);
      std::vector<std::string> cmd = engine_argv(bundle->path(), false);
      ProcResult p = run_process(cmd, logs + "/anchor.out", logs + "/anchor.err", std::nullopt, e.env);
      release(bundle);
      if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
        die(who_anchor + " ended with " + describe_status(p.status) + "; its stderr: \"" +
            read_file(logs + "/anchor.err") + "\"");
      }
      if (std::string out = read_file(logs + "/anchor.out"); out != kExpect)
        die(who_anchor + " printed \"" + out + "\", not \"ok\"");
      return p.s;
    };
    // The runtime's container without the runtime around it: its argv, the agent inside,
    // fork to wait4. Each of the runtime's own steps around the engine is timed apart.
    auto agent_once = [&]() {
      auto t = Clock::now();
      std::optional<ad::TempDir> dir;
      if (auto d = ad::TempDir::create_owned(scratch, "agent", kScanner); d)
        dir.emplace(std::move(*d));
      else
        die(d.error());
      e.dir_ms.push_back(ms_since(t));
      t = Clock::now();
      auto bundle = bundle_dir_in(*dir, e.kind);
      double mount_ms = ms_since(t);
      t = Clock::now();
      if (auto m = ad::write_bundle(spec, ad::RunDirView{bundle->path(), wire::kBundleDir}); !m)
        die("write_bundle: " + m.error().message);
      e.dir_ms.back() += ms_since(t);
      std::vector<std::string> cmd = engine_argv(bundle->path(), true);
      ProcResult p = run_process(cmd, logs + "/agent.out", logs + "/agent.err", std::nullopt, e.env);
      if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
        die(e.name + " run with the agent ended with " + describe_status(p.status) + "; its stderr: \"" +
            read_file(logs + "/agent.err") + "\"");
      }
      t = Clock::now();
      auto out = ad::collect(bundle->path(), spec.argv[0]);
      e.collect_ms.push_back(ms_since(t));
      t = Clock::now();
      release(bundle);
      mount_ms += ms_since(t);
      e.mount_ms.push_back(mount_ms);
      expect_run_ok(e.name + " run with the agent", out, kExpect);
      t = Clock::now();
      dir.reset();
      e.remove_ms.push_back(ms_since(t));
      return RunSample{p.s, out->report.timings};
    };

    e.load_before = load_now();
    e.pressure_before = cpu_pressure();
    for (int i = -opt.warmup; i < opt.reps; ++i) {
      auto a = timed_run("the oci runtime on " + e.name, oci, spec, kExpect);
      auto b = anchor_once();
      auto c = agent_once();
      std::optional<RunSample> g;
      if (e.gvisor_skipped.empty()) g = timed_run("the oci runtime under gVisor on " + e.name, gvisor, spec, kExpect);
      if (i < 0) {  // warm-up: the image's first mount, the engine's caches
        e.dir_ms.clear();
        e.mount_ms.clear();
        e.collect_ms.clear();
        e.remove_ms.clear();
        continue;
      }
      e.runtime.push_back(a);
      e.anchor.push_back(b);
      e.agent.push_back(c);
      if (g) e.gvisor.push_back(*g);
    }
    e.pressure_after = cpu_pressure();
  }
  std::uint64_t room_bytes = tree_bytes(room);
  remove_images();
  fs::remove_all(run);
  on_failure().cleanup = nullptr;

  // 3. The table.
  using T = batlehub::wire::Timings;

  std::printf(
      "bench_oci: one trivial run on the oci runtime vs a bare `<engine> run` of the same image, same flags\n\n");
  std::fputs(machine_line(opt.dir, tmpfs).c_str(), stdout);
  std::printf("           running as root\n");
  std::printf("  scanner  `hostile exit 0 ok` (static, %.1f MiB) over an empty bundle\n",
              static_cast<double>(fs::file_size(opt.hostile)) / (1024 * 1024));
  std::printf("  room     the agent + hostile, %.1f MiB, built once by scripts/build-room.py (%.1f s)\n",
              static_cast<double>(room_bytes) / (1024 * 1024), room_s);
  print_engines(engines, opt.docker_host);
  std::printf("  runs     %d of each, alternating, after %d untimed warm-up round%s, one engine after the other\n",
              opt.reps, opt.warmup, opt.warmup == 1 ? "" : "s");

  const char* head = "  %-48s %9s    %9s    %9s    %8s\n";
  const char* row = "  %-48s %9.1f ms %9.1f ms %9.1f ms %8.1f ms\n";
  const char* ratio = "  %-48s %9.2fx   %9.2fx   %9.2fx\n";
  const char* step = "    %-62s %8.1f ms\n";
  std::vector<std::pair<std::string, double>> aims;
  for (const auto& e : engines) {
    Stats sr = stats(samples(e.runtime)), sa = stats(e.anchor), sg = stats(samples(e.agent));
    double r = sr.med / sa.med;
    aims.emplace_back(e.name, r);
    const std::string bare = "bare " + e.name + " run";
    std::printf("\n== %s   load average %s before; CPU pressure %s before, %s after\n", e.name.c_str(),
                e.load_before.c_str(), e.pressure_before.c_str(), e.pressure_after.c_str());
    std::printf(head, "wall clock of one run", "median", "p90", "min", "cpu med");
    std::printf(row, "oci runtime: OciRuntime::run()", sr.med, sr.p90, sr.min, sr.cpu);
    std::printf(row, (bare + ", same argv, hostile (the anchor)").c_str(), sa.med, sa.p90, sa.min, sa.cpu);
    std::printf(ratio, ("ratio oci runtime / " + bare).c_str(), r, sr.p90 / sa.p90, sr.min / sa.min);
    std::printf("\n  for the breakdown only, in the same alternation:\n");
    std::printf(row, (bare + ", same argv, the agent inside").c_str(), sg.med, sg.p90, sg.min, sg.cpu);
    std::printf("  %-48s fetch %.0f, extract %.0f, run %.0f\n", "the agent's timings_ms, median (whole ms)",
                median_timing(e.runtime, &T::fetch_ms), median_timing(e.runtime, &T::extract_ms),
                median_timing(e.runtime, &T::run_ms));
    std::printf("  %-48s run dir + bundle %.2f, collect %.2f, removal %.2f ms\n",
                "the runtime's steps around it, median", median(e.dir_ms), median(e.collect_ms), median(e.remove_ms));
    if (e.kind == ad::OciEngineKind::kDocker) {
      std::printf("  %-48s the /bundle dir: mkdir, bind nosuid,nodev, umount %.2f ms\n", "", median(e.mount_ms));
    }
    std::printf("\n  where the runtime's time goes (differences of the medians above)\n");
    std::printf(step, (bare + " (the anchor)").c_str(), sa.med);
    std::printf(step, "+ the agent in place of the scanner", sg.med - sa.med);
    std::printf(step, "+ the runtime around the engine (run dir, keeper, collect)", sr.med - sg.med);
    std::printf(step, "= OciRuntime::run()", sr.med);
    if (!e.gvisor.empty()) {
      Stats sv = stats(samples(e.gvisor));
      std::printf("\n  the strongest configuration, in the same alternation (no aim: the cost to weigh)\n");
      std::printf(row, "oci runtime under gVisor (runsc)", sv.med, sv.p90, sv.min, sv.cpu);
      std::printf(ratio, "ratio gVisor / runc (OciRuntime::run())", sv.med / sr.med, sv.p90 / sr.p90, sv.min / sr.min);
    } else {
      std::printf("\n  gVisor: not measured: %s\n", e.gvisor_skipped.c_str());
    }
  }

  std::printf(
      "\n  every run exited 0 and printed \"ok\" (the runtime: by its RunOutput; the anchors: by their\n"
      "  exit status and stdout); cpu: the bench, the engine's CLI and what it left to reap (conmon),\n"
      "  never the daemons (dockerd, containerd)\n\n");
  for (const auto& [name, r] : aims) {
    std::printf("  aim: ratio oci runtime / bare %s run <= 1.1   %6.2f  %s\n", name.c_str(), r,
                r <= 1.1 ? "PASS" : "MISS");
  }
}

}  // namespace

int main(int argc, char** argv) {
  return batlehub::bench::bench_main("bench_oci", bench, argc, argv);
}
