// bench_detonation: what a detonation costs beside GuardDog's scan of the same archive
// (issue 47), both as the worker runs them: the scanner's adapter planning its run, the bwrap
// runtime running it in the scanner's room, the adapter reading the result.
//
//   bench_detonation [--agent PATH] [--behavior PATH] [--archives DIR] [--per-ecosystem N]
//                    [--dir DIR]
//
// One run:
//   1. builds two rooms (scripts/build-room.py) in a fresh rooms dir under DIR (default
//      $BATLEHUB_BENCH_DIR, else /dev/shm): guarddog (rooms/guarddog.toml, the venv
//      scripts/install-scanners.sh installed) and behavior (rooms/behavior.toml with
//      batlehub-behavior);
//   2. picks N npm tarballs (*.tgz) and N PyPI archives (*.tar.gz, *.zip, *.whl) from --archives
//      (default /var/cache/batlehub-corpus/benign, the verdict bench's benign corpus,
//      bench/verdicts/fetch-benign.py), spread evenly over the names in sorted order; the
//      sample packages in examples/ when that directory is missing;
//   3. for each archive, in alternating order, times core::scan_with() of GuardDog (the
//      anchor) and of behavior (install, import, execute; each phase at the scanner's default
//      bound), on one BwrapRuntime, and checks each: a scanner error is a failure (exit 1),
//      except a detonation the scanner refuses as unsupported, which never happens for npm
//      and PyPI;
//   4. prints, per ecosystem and in all, the median seconds of each and their ratio.
//
// Nothing here touches the network: the archives are on disk, GuardDog's refresh of its
// top-packages list fails inside the walls at once, and the detonation's network is its sink.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/bwrap.h"
#include "adapters/scanners/behavior.h"
#include "adapters/scanners/guarddog.h"
#include "bench_support.h"
#include "core/scanner.h"

namespace {

namespace fs = std::filesystem;
namespace ad = batlehub::adapters;
namespace core = batlehub::core;
using namespace batlehub::bench;

constexpr const char* kUsage =
    "usage: bench_detonation [--agent PATH] [--behavior PATH] [--archives DIR] [--per-ecosystem N] [--dir DIR]\n";
constexpr const char* kGuardDogVenv = "/opt/batlehub/guarddog";
constexpr const char* kCorpus = "/var/cache/batlehub-corpus/benign";

#ifdef BATLEHUB_BEHAVIOR_BIN
constexpr const char* kBehaviorBin = BATLEHUB_BEHAVIOR_BIN;
#else
constexpr const char* kBehaviorBin = "";
#endif

struct Archive {
  fs::path path;
  core::PackageKind kind;
};

bool is_pypi(const std::string& n) {
  return n.ends_with(".tar.gz") || n.ends_with(".zip") || n.ends_with(".whl");
}

// `per` archives of each ecosystem, spread evenly over the directory's sorted names.
std::vector<Archive> pick(const fs::path& dir, std::size_t per) {
  std::vector<fs::path> npm, pypi;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string n = e.path().filename().string();
    if (n.ends_with(".tgz")) {
      npm.push_back(e.path());
    } else if (is_pypi(n)) {
      pypi.push_back(e.path());
    }
  }
  std::vector<Archive> out;
  for (auto [list, kind] : {std::pair{&npm, core::PackageKind::kNpm}, {&pypi, core::PackageKind::kPypi}}) {
    std::sort(list->begin(), list->end());
    const std::size_t n = std::min(per, list->size());
    for (std::size_t i = 0; i < n; ++i) out.push_back({(*list)[i * list->size() / n], kind});
  }
  return out;
}

// One scan as core::scan_with() makes it (plan, run, parse), timed whole. A detonation is
// checked further: its trace must hold the phases it ran, so that a detonation that ran
// nothing is a failure, not a fast figure. Returns the seconds; `phases` gets the count.
double timed_scan(const core::Scanner& scanner, core::SandboxRuntime& rt, const Archive& a, std::size_t* phases) {
  auto blob = ad::file_blob(a.path.string(), a.path.filename().string());
  if (!blob) die("cannot read " + a.path.string() + ": " + blob.error());
  core::ScanInput in;
  in.package.kind = a.kind;
  in.package.name = "bench";
  in.package.version = "1.0";
  in.artifact = *blob;
  const std::string what = scanner.name() + " on " + a.path.filename().string();
  const auto t0 = Clock::now();
  auto plan = scanner.plan(in);
  if (!plan) die(what + ": " + core::describe(plan.error()));
  std::vector<core::RunOutcome> results;
  for (const core::RunSpec& spec : *plan) results.push_back(rt.run(spec));
  auto got = scanner.parse(in, results);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!got) die(what + ": " + core::describe(got.error()));
  if (phases != nullptr) {
    auto trace = ad::parse_behavior_output(results.at(0)->stdout_bytes);
    if (!trace) die(what + ": " + trace.error().message);
    if (trace->phases.empty()) die(what + ": the detonation's trace holds no phase");
    *phases = trace->phases.size();
  }
  return s;
}

void bench(int argc, char** argv) {
  std::string agent = kAgentBin, behavior = kBehaviorBin, archives = kCorpus, dir = default_bench_dir();
  std::size_t per = 10;
  Args args(argc, argv, kUsage);
  while (args.next()) {
    if (args.value_into({{"--agent", &agent}, {"--behavior", &behavior}, {"--archives", &archives}, {"--dir", &dir}})) {
      continue;
    }
    if (args.flag() == "--per-ecosystem") {
      per = args.number(1, 1000);
      continue;
    }
    args.unknown();
  }
  require_executables({&agent, &behavior});
  const std::string guarddog = std::string(kGuardDogVenv) + "/bin/guarddog";
  if (::access(guarddog.c_str(), X_OK) != 0) {
    std::printf("bench_detonation: SKIP: GuardDog, the anchor, is not installed at %s (scripts/install-scanners.sh)\n",
                guarddog.c_str());
    return;
  }

  const fs::path root = fs::path(dir) / ("batlehub-bench-detonation." + std::to_string(::getpid()));
  fs::create_directories(root / "rooms");
  fs::create_directories(root / "scratch");
  fs::permissions(root, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  on_failure().cleanup = [root] { fs::remove_all(root); };
  const std::string build_room = source_script("build-room.py");
  const std::string source(kSourceDir);
  for (auto [name, extra] : {std::pair<std::string, std::string>{"guarddog", ""},
                             {"behavior", " --binary " + behavior + ":/usr/local/bin/batlehub-behavior"}}) {
    const std::string cmd = "python3 " + build_room + " --definition " + source + "/rooms/" + name + ".toml --agent " +
                            agent + extra + " --out " + (root / "rooms" / name).string() + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) die("building the " + name + " room failed: " + cmd);
  }

  fs::path from = archives;
  std::string samples_note;
  if (!fs::is_directory(from)) {
    from = root / "samples";
    const std::string cmd = "python3 " + source + "/examples/make-samples.py " + from.string() + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) die("examples/make-samples.py failed");
    samples_note = " (" + archives + " is missing: the sample packages of examples/)";
  }
  const std::vector<Archive> picked = pick(from, per);
  if (picked.empty()) die("no archive in " + from.string());

  ad::BwrapOptions o;
  o.rooms_dir = (root / "rooms").string();
  o.scratch_dir = (root / "scratch").string();
  ad::BwrapRuntime rt(o);
  const ad::GuardDogScanner guarddog_scanner{ad::GuardDogOptions{}};
  const ad::BehaviorScanner behavior_scanner{ad::BehaviorOptions{}};

  std::printf("%s\n", machine_line(dir, on_tmpfs(dir, "bench_detonation")).c_str());
  std::printf("%zu archives from %s%s, each scanned by GuardDog (the anchor) and detonated, alternating\n",
              picked.size(), from.c_str(), samples_note.c_str());
  std::map<std::string, std::vector<double>> anchor, detonation;
  for (std::size_t i = 0; i < picked.size(); ++i) {
    const Archive& a = picked[i];
    const std::string eco = a.kind == core::PackageKind::kNpm ? "npm" : "pypi";
    double g = 0, b = 0;
    std::size_t phases = 0;
    if (i % 2 == 0) {
      g = timed_scan(guarddog_scanner, rt, a, nullptr);
      b = timed_scan(behavior_scanner, rt, a, &phases);
    } else {
      b = timed_scan(behavior_scanner, rt, a, &phases);
      g = timed_scan(guarddog_scanner, rt, a, nullptr);
    }
    anchor[eco].push_back(g);
    detonation[eco].push_back(b);
    anchor["all"].push_back(g);
    detonation["all"].push_back(b);
    std::printf("  %-5s %-50s guarddog %6.2f s   behavior %6.2f s (%zu phases)\n", eco.c_str(),
                a.path.filename().c_str(), g, b, phases);
  }
  std::printf("\n  %-5s %8s %18s %18s %10s\n", "", "archives", "guarddog median", "behavior median", "ratio");
  for (const char* eco : {"npm", "pypi", "all"}) {
    if (anchor[eco].empty()) continue;
    const double g = median(anchor[eco]), b = median(detonation[eco]);
    std::printf("  %-5s %8zu %16.2f s %16.2f s %9.2fx\n", eco, anchor[eco].size(), g, b, b / g);
  }
  fs::remove_all(root);
  on_failure().cleanup = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main("bench_detonation", bench, argc, argv);
}
