// bench_runtimes: what one run costs on each local runtime when there is nothing to extract,
// beside the bare command that does the same job: `bwrap` on the same room, and a plain
// fork+exec on the host.
//
//   bench_runtimes [--agent PATH] [--hostile PATH] [--bwrap PATH] [--dir DIR] [--reps N]
//                  [--warmup N]
//
// One run:
//   1. builds one room (scripts/build-room.py: the agent and the static `hostile` test
//      scanner as /usr/bin/hostile) in a fresh rooms dir under DIR (default
//      $BATLEHUB_BENCH_DIR, else /dev/shm), and a scratch dir beside it;
//   2. times, alternating, after --warmup untimed rounds, --reps of each of:
//        BwrapRuntime::run() of `hostile exit 0 ok` (found on the room's PATH), empty bundle;
//        bare `bwrap --unshare-all --die-with-parent --ro-bind ROOM / --proc /proc --dev /dev
//          -- /usr/bin/hostile exit 0 ok` (the anchor), fork to wait4, stdout to /dev/null;
//        NoneRuntime::run() of the same program (its host path), empty bundle;
//        bare fork+exec of hostile on the host (the anchor), stdout to /dev/null;
//      and, for the breakdown only, bwrap with the runtime's own argv (bwrap_argv()) running
//      the agent on a run dir prepared untimed, and the same argv with hostile in the
//      agent's place;
//   3. checks every run (status 0 and stdout "ok"; a wrong run is a failure, exit 1) and
//      prints the table with the aim marked PASS or MISS (a miss is not a failure).
#include <sys/prctl.h>
#include <sys/stat.h>
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
#include <string_view>
#include <vector>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/none.h"
#include "adapters/sandbox/run_dir.h"
#include "bench_support.h"
#include "wire/sandbox_layout.h"

namespace {

namespace fs = std::filesystem;
namespace ad = batlehub::adapters;
namespace wire = batlehub::wire;
namespace core = batlehub::core;
using namespace batlehub::bench;

// As root, bwrap runs as uid 65532, which must be able to reach the room and the run dirs:
// every directory from / down to `dir` must be searchable by others.
void require_traversable(const std::string& dir) {
  fs::path p = fs::absolute(dir);
  for (fs::path cur = p;; cur = cur.parent_path()) {
    struct stat st{};
    if (::stat(cur.c_str(), &st) != 0) die("cannot stat " + cur.string() + ": " + std::strerror(errno));
    if ((st.st_mode & S_IXOTH) == 0) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      die(cur.string() + " is not searchable by others (mode " + mode + "), and bwrap runs as uid " +
          wire::kSandboxIdText + " under root: pass --dir under a directory everybody can reach");
    }
    if (cur == cur.parent_path()) break;
  }
}

struct Options {
  std::string agent = kAgentBin;
  std::string hostile = kHostileBin;
  std::string bwrap;
  std::string dir = default_bench_dir();
  std::string build_room = source_script("build-room.py");
  int reps = 30;
  int warmup = 3;
};

constexpr const char* kUsage =
    "usage: bench_runtimes [--agent PATH] [--hostile PATH] [--bwrap PATH] [--dir DIR] [--reps N]\n"
    "                      [--warmup N]\n";

Options parse_args(int argc, char** argv) {
  Options o;
  Args args(argc, argv, kUsage);
  while (args.next()) {
    const std::string& a = args.flag();
    if (args.value_into({{"--agent", &o.agent}, {"--hostile", &o.hostile}, {"--bwrap", &o.bwrap}, {"--dir", &o.dir}}))
      continue;
    if (a == "--reps") o.reps = static_cast<int>(args.number(1));
    else if (a == "--warmup") o.warmup = static_cast<int>(args.number(0));
    else args.unknown();
  }
  if (o.agent.empty()) args.fail("--agent PATH is required");
  if (o.hostile.empty()) args.fail("--hostile PATH is required");
  if (o.bwrap.empty()) {
    auto b = find_on_path("bwrap");
    if (!b) die("bwrap is not on PATH (apt-get install bubblewrap), or pass --bwrap");
    o.bwrap = *b;
  }
  o.dir = fs::absolute(o.dir).string();
  require_executables({&o.agent, &o.hostile, &o.bwrap});
  if (o.build_room.empty() || ::access(o.build_room.c_str(), R_OK) != 0) die("scripts/build-room.py not found");
  return o;
}

void bench(int argc, char** argv) {
  Options opt = parse_args(argc, argv);
  const bool root = ::geteuid() == 0;
  // Orphans of what is measured (bwrap's pid 1 in its namespace) come back here to be
  // reaped, so that the cpu column holds the whole tree's CPU time on every row.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die(std::string("prctl(PR_SET_CHILD_SUBREAPER): ") + std::strerror(errno));

  bool tmpfs = on_tmpfs(opt.dir, "bench_runtimes");

  // 1. The directories and the room. As root the runtime starts bwrap as uid 65532, which
  //    must reach the room and the scratch dir: everything here is 0755.
  std::string base = opt.dir + "/batlehub-bench";
  fs::create_directories(base);
  if (root) ::chmod(base.c_str(), 0755);
  remove_stale_runs(base, "runtimes-");
  std::string run = base + "/runtimes-" + std::to_string(::getpid());
  fs::remove_all(run);
  std::string rooms = run + "/rooms", scratch = run + "/scratch", logs = run + "/logs";
  for (const auto& d : {run, rooms, scratch, logs}) {
    fs::create_directories(d);
    if (::chmod(d.c_str(), 0755) != 0) die("chmod " + d + ": " + std::strerror(errno));
  }
  // A failure from here on removes the run's directory (rooms, scratch, logs).
  on_failure().cleanup = [run] {
    std::error_code ec;
    fs::remove_all(run, ec);
  };
  if (root) require_traversable(scratch);

  std::string room = rooms + "/" + kScanner;
  auto py = find_on_path("python3");
  if (!py) die("python3 is not on PATH (scripts/build-room.py needs it)");
  double room_s = build_room(*py, opt.build_room, opt.agent, opt.hostile, room, logs);

  // 2. What is measured.
  ad::BwrapOptions bo;
  bo.binary = opt.bwrap;
  bo.rooms_dir = rooms;
  bo.scratch_dir = scratch;
  bo.start_timeout = std::chrono::seconds(30);
  ad::BwrapRuntime bwrap(bo);
  auto none_or = ad::NoneRuntime::create(ad::NoneOptions{scratch, "/usr/local/bin:/usr/bin:/bin"},
                                         [](std::string_view k) -> std::optional<std::string> {
                                           if (k == "BATLEHUB_UNSAFE_NO_SANDBOX") return std::string("1");
                                           return std::nullopt;
                                         });
  if (!none_or) die("NoneRuntime::create: " + none_or.error().message);
  std::unique_ptr<ad::NoneRuntime> none = std::move(none_or).value();

  core::RunSpec bspec;  // an empty bundle: the run is all sandbox, agent and process start
  bspec.label.scanner = kScanner;
  bspec.timeout = std::chrono::seconds(20);
  bspec.argv = {"hostile", "exit", "0", kExpect};  // found on the room's PATH as /usr/bin/hostile
  core::RunSpec nspec = bspec;
  nspec.argv[0] = opt.hostile;  // none has no room: the same program, by its host path

  const std::vector<std::string> bare_bwrap = {opt.bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", room, "/",
                                               "--proc", "/proc", "--dev", "/dev", "--", kInRoom, "exit", "0", kExpect};
  const std::vector<std::string> bare_exec = {opt.hostile, "exit", "0", kExpect};

  // For the breakdown: the runtime's own bwrap argv, with hostile where the agent would be,
  // on one work dir kept for all the runs (hostile writes nothing).
  std::string direct_work = scratch + "/direct-work";
  fs::create_directories(direct_work);
  if (root && ::chown(direct_work.c_str(), wire::kSandboxId, wire::kSandboxId) != 0)
    die("chown " + direct_work + ": " + std::strerror(errno));
  std::vector<std::string> runtime_direct = ad::bwrap_argv({opt.bwrap, room, direct_work, false});
  runtime_direct.erase(std::find(runtime_direct.begin(), runtime_direct.end(), std::string("--")) + 1, runtime_direct.end());
  for (const char* a : {kInRoom, "exit", "0", kExpect}) runtime_direct.emplace_back(a);

  const std::string devnull = "/dev/null";
  // As root the runtime starts bwrap as the sandbox user; so do the rows that use its argv.
  const std::optional<unsigned> sandbox_user = root ? std::optional<unsigned>(wire::kSandboxId) : std::nullopt;
  auto anchor_once = [&](const char* who, const std::vector<std::string>& cmd, bool as_sandbox_user, bool check_stdout) {
    std::string out = check_stdout ? logs + "/anchor.out" : devnull;
    ProcResult p = run_process(cmd, out, logs + "/anchor.err", as_sandbox_user ? sandbox_user : std::nullopt);
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
      die(std::string(who) + " ended with " + describe_status(p.status) + "; its stderr: \"" + read_file(logs + "/anchor.err") + "\"");
    }
    if (check_stdout && read_file(out) != kExpect) die(std::string(who) + " printed \"" + read_file(out) + "\", not \"ok\"");
    return p.s;
  };
  // bwrap with the runtime's argv and the agent inside, on a run dir prepared untimed the
  // way the runtime prepares it; its out.tar is read, untimed, the way the runtime reads it.
  auto agent_in_bwrap_once = [&]() {
    auto dir = ad::TempDir::create(scratch, "bench-agent");
    if (!dir) die(dir.error());
    auto m = ad::write_bundle(bspec, ad::RunDirView{dir->path(), "/work"});
    if (!m) die("write_bundle: " + m.error().message);
    if (root && ::chown(dir->path().c_str(), wire::kSandboxId, wire::kSandboxId) != 0)
      die("chown " + dir->path() + ": " + std::strerror(errno));
    std::vector<std::string> cmd = ad::bwrap_argv({opt.bwrap, room, dir->path(), false});
    ProcResult p = run_process(cmd, logs + "/agent.out", logs + "/agent.err", sandbox_user);
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
      die("bwrap with the agent ended with " + describe_status(p.status) + "; its stderr: \"" + read_file(logs + "/agent.err") + "\"");
    }
    auto out = ad::collect(dir->path(), bspec.argv[0]);
    expect_run_ok("bwrap with the agent", out, kExpect);
    return RunSample{p.s, out->report.timings};
  };

  std::string load_before = load_now(), pressure_before = cpu_pressure();

  // One untimed round that also reads what the anchors print (measured, they print to /dev/null).
  anchor_once("bare bwrap", bare_bwrap, false, true);
  anchor_once("bare exec", bare_exec, false, true);
  anchor_once("bwrap with the runtime's argv and hostile", runtime_direct, root, true);
  std::vector<RunSample> rt_bwrap, rt_none, agent_bwrap;
  std::vector<Sample> an_bwrap, an_exec, direct;
  for (int i = -opt.warmup; i < opt.reps; ++i) {
    auto a = timed_run("the bwrap runtime", bwrap, bspec, kExpect);
    auto b = anchor_once("bare bwrap", bare_bwrap, false, false);
    auto c = timed_run("the none runtime", *none, nspec, kExpect);
    auto d = anchor_once("bare exec", bare_exec, false, false);
    auto e = agent_in_bwrap_once();
    auto f = anchor_once("bwrap with the runtime's argv and hostile", runtime_direct, root, false);
    if (i < 0) continue;  // warm-up
    rt_bwrap.push_back(a);
    an_bwrap.push_back(b);
    rt_none.push_back(c);
    an_exec.push_back(d);
    agent_bwrap.push_back(e);
    direct.push_back(f);
  }
  std::string pressure_after = cpu_pressure();
  std::uint64_t room_bytes = tree_bytes(room);
  fs::remove_all(run);
  on_failure().cleanup = nullptr;

  // 3. The table.
  using T = batlehub::wire::Timings;
  Stats sb = stats(samples(rt_bwrap)), sa = stats(an_bwrap), sn = stats(samples(rt_none)), se = stats(an_exec),
        sg = stats(samples(agent_bwrap)), sd = stats(direct);
  double ratio_bwrap = sb.med / sa.med, ratio_none = sn.med / se.med;

  std::printf("bench_runtimes: one trivial run on each local runtime vs the bare command, same program, same room\n\n");
  std::fputs(machine_line(opt.dir, tmpfs).c_str(), stdout);
  // Wall clock is only as good as the machine is quiet: other load shows here first.
  std::printf("           load average %s before the runs\n", load_before.c_str());
  std::printf("           CPU pressure %s before, %s after\n", pressure_before.c_str(), pressure_after.c_str());
  std::printf("           %s\n", root ? "running as root: the bwrap runtime starts bwrap as uid 65532" : "not running as root");
  std::printf("  scanner  `hostile exit 0 ok` (static, %.1f MiB) over an empty bundle\n",
              static_cast<double>(fs::file_size(opt.hostile)) / (1024 * 1024));
  std::printf("  room     the agent + hostile, %.1f MiB, built once by scripts/build-room.py (%.1f s)\n",
              static_cast<double>(room_bytes) / (1024 * 1024), room_s);
  std::printf("  runs     %d of each, alternating, after %d untimed warm-up round%s\n\n", opt.reps, opt.warmup,
              opt.warmup == 1 ? "" : "s");

  const char* head = "  %-44s %8s    %8s    %8s    %8s\n";
  const char* row = "  %-44s %8.2f ms %8.2f ms %8.2f ms %8.2f ms\n";
  const char* ratio = "  %-44s %8.2fx   %8.2fx   %8.2fx\n";
  std::printf(head, "wall clock of one run", "median", "p90", "min", "cpu med");
  std::printf(row, "bwrap runtime: BwrapRuntime::run()", sb.med, sb.p90, sb.min, sb.cpu);
  std::printf(row, "bare bwrap --unshare-all ... (the anchor)", sa.med, sa.p90, sa.min, sa.cpu);
  std::printf(row, "none runtime: NoneRuntime::run()", sn.med, sn.p90, sn.min, sn.cpu);
  std::printf(row, "bare fork+exec of hostile (the anchor)", se.med, se.p90, se.min, se.cpu);
  std::printf(ratio, "ratio bwrap runtime / bare bwrap", ratio_bwrap, sb.p90 / sa.p90, sb.min / sa.min);
  std::printf(ratio, "ratio none runtime / bare exec", ratio_none, sn.p90 / se.p90, sn.min / se.min);
  std::printf("\n  for the breakdown only, in the same alternation (fork to wait4, no keeper around bwrap):\n");
  std::printf(row, "bwrap, the runtime's argv, the agent inside", sg.med, sg.p90, sg.min, sg.cpu);
  std::printf(row, "bwrap, the runtime's argv, hostile directly", sd.med, sd.p90, sd.min, sd.cpu);
  std::printf("  %-44s bwrap: fetch %.0f, extract %.0f, run %.0f; none: run %.0f\n",
              "the agent's timings_ms, median (whole ms)", median_timing(rt_bwrap, &T::fetch_ms),
              median_timing(rt_bwrap, &T::extract_ms), median_timing(rt_bwrap, &T::run_ms),
              median_timing(rt_none, &T::run_ms));

  const char* step = "    %-66s %8.2f ms\n";
  std::printf("\n  where the bwrap runtime's time goes (differences of the medians above)\n");
  std::printf(step, "bare bwrap (the anchor)", sa.med);
  std::printf(step, "+ the runtime's own bwrap argv in place of the anchor's", sd.med - sa.med);
  std::printf(step, "+ the agent in place of the scanner (start, seccomp, supervision)", sg.med - sd.med);
  std::printf(step, "+ the runtime around bwrap (run dir, cgroup, collect)", sb.med - sg.med);
  std::printf(step, "= BwrapRuntime::run()", sb.med);

  std::printf("\n  every run exited 0 and printed \"ok\" (the runtimes: by their RunOutput; the anchors: by\n"
              "  their exit status, and by what they printed in one untimed round)\n\n");
  std::printf("  aim: ratio bwrap runtime / bare bwrap <= 1.5    %6.2f  %s\n", ratio_bwrap, ratio_bwrap <= 1.5 ? "PASS" : "MISS");
}

}  // namespace

int main(int argc, char** argv) { return batlehub::bench::bench_main("bench_runtimes", bench, argc, argv); }
