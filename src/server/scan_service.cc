#include "server/scan_service.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/identify.h"
#include "server/log.h"

namespace batlehub::server {

namespace {

void log_passed(const core::ProbeReport& r, const std::string& room) {
  auto log = logger("sandbox");
  bool whole = true;
  for (const auto& a : r.agent.assertions) {
    if (a.verdict != wire::AssertionVerdict::kWarn) continue;
    log->warn("room {}: {}: {}", room, wire::to_string(a.check), a.evidence);
    if (a.check == wire::Check::kMemoryBounded || a.check == wire::Check::kPidsBounded) whole = false;
  }
  log->info(
      "probe passed in {} — room {}: no network, read-only root, one writable dir, empty environment, "
      "unprivileged, no shell, seccomp filter, {}, {} command(s) hashed",
      elapsed_text(r.elapsed_ms), room,
      whole ? "memory and processes bounded as a whole" : "memory and processes bounded per process only",
      r.agent.commands.size());
}

}  // namespace

std::string elapsed_text(std::uint64_t ms) {
  std::ostringstream s;
  if (ms < 1000) {
    s << ms << " ms";
  } else {
    s << std::fixed << std::setprecision(1) << static_cast<double>(ms) / 1000.0 << " s";
  }
  return s.str();
}

WallsProof prove_walls(core::SandboxRuntime& rt, const std::vector<core::ProbeTarget>& targets,
                       const std::string& rooms_dir, const std::function<void(const core::ProbeReport&)>& on_report) {
  auto log = logger("sandbox");
  if (targets.empty()) {
    // Nothing proven is not proven: a worker with no room would scan nothing behind no wall.
    std::string why = "no room to probe: no sandboxed scanner is configured and " + rooms_dir +
                      " holds no room (build one with scripts/build-room.py)";
    log->error("{}", why);
    return WallsProof{false, why, rt.hint(), "", "result_at_all"};
  }
  for (const auto& t : targets) {
    log->info("probing runtime \"{}\" (room {}/{})", rt.name(), rooms_dir, t.room);
    auto r = rt.probe(t);
    if (!r) {
      log->error("probe failed for runtime \"{}\": {}", rt.name(), r.error().message);
      return WallsProof{false, "a result at all: " + r.error().message, rt.hint(), t.room, "result_at_all"};
    }
    if (on_report) on_report(*r);
    if (r->skipped) {
      log->warn("runtime \"{}\" skips the probe: {}", rt.name(), rt.hint());
      continue;
    }
    if (auto f = r->failure()) {
      std::string line = f->describe();
      log->error("probe failed for runtime \"{}\" in room {}: {}", rt.name(), t.room, line);
      std::string check = f->check ? std::string(wire::to_string(*f->check)) : "result_at_all";
      return WallsProof{false, line, rt.hint(), t.room, check};
    }
    log_passed(*r, t.room);
  }
  return WallsProof{true, "", "", "", ""};
}

Expected<core::Package, std::string> package_of(const std::string& path, const Naming& given) {
  core::FileNameReading read = core::read_file_name(path, given.kind);
  core::Package p;
  p.registry = given.registry;
  auto kind = given.kind ? given.kind : read.kind;
  if (!kind) {
    return Unexpected(path + ": cannot tell the package kind from its name (a wheel, an sdist named <name>-<version>, "
                             "an npm .tgz, a .crate, a .gem…); pass --kind (npm, pypi, cargo, rubygems, composer, "
                             "goproxy, maven, nuget, conda)");
  }
  p.kind = *kind;
  p.name = given.name ? *given.name : read.name.value_or("");
  p.version = given.version ? *given.version : read.version.value_or("");
  if (p.name.empty() || p.version.empty()) {
    return Unexpected(path + ": cannot tell the package's name and version from its file name by " +
                      std::string(core::to_string(p.kind)) + "'s naming rules; pass --name and --version");
  }
  return p;
}

std::vector<const core::Scanner*> scanners_for(const std::vector<std::unique_ptr<core::Scanner>>& all,
                                               core::PackageKind kind) {
  std::vector<const core::Scanner*> out;
  for (const auto& s : all) {
    if (s->supports(kind)) out.push_back(s.get());
  }
  return out;
}

PackageScan scan_package(const std::vector<const core::Scanner*>& scanners, core::SandboxRuntime& rt,
                         const core::ScanInput& in, const core::SecurityPolicy& policy,
                         const std::function<void(const ScannerRun&)>& on_done) {
  auto log = logger("scan");
  std::vector<ScannerRun> runs(scanners.size());
  std::vector<std::vector<core::Finding>> found(scanners.size());
  {
    std::vector<std::jthread> threads;
    std::mutex done_mu;  // on_done is the caller's: called one at a time
    for (std::size_t i = 0; i < scanners.size(); ++i) {
      threads.emplace_back([&, i] {
        const core::Scanner& s = *scanners[i];
        const auto start = std::chrono::steady_clock::now();
        auto r = core::scan_with(s, rt, in);
        ScannerRun& run = runs[i];
        run.scanner = s.name();
        run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (r) {
          run.findings = r->size();
          found[i] = std::move(*r);
          log->info("{}: {} answered with {} finding(s)", in.package.coordinate(), s.name(), run.findings);
        } else {
          run.error = r.error();
          found[i].push_back(core::scanner_error_finding(s.name(), r.error()));
          log->warn("{}: {} failed: {}", in.package.coordinate(), s.name(), core::describe(r.error()));
        }
        std::lock_guard lock(done_mu);
        if (on_done) on_done(run);
      });
    }
  }  // joins
  // Findings by scanner as configured, then as each reported; scanners_done sorted.
  std::vector<core::Finding> findings;
  std::vector<std::string> done;
  for (std::size_t i = 0; i < scanners.size(); ++i) {
    std::move(found[i].begin(), found[i].end(), std::back_inserter(findings));
    if (!runs[i].error) done.push_back(runs[i].scanner);
  }
  std::sort(done.begin(), done.end());
  return PackageScan{core::evaluate(in.package, std::move(findings), std::move(done), policy), std::move(runs)};
}

}  // namespace batlehub::server
