#include "server/probe_command.h"

#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "server/builders.h"
#include "server/log.h"

namespace batlehub::server {

namespace {

std::string seconds(std::uint64_t ms) {
  std::ostringstream s;
  if (ms < 1000) {
    s << ms << " ms";
  } else {
    s << std::fixed << std::setprecision(1) << static_cast<double>(ms) / 1000.0 << " s";
  }
  return s.str();
}

void print_assertions(const core::ProbeReport& r, std::ostream& out) {
  out << "room " << r.room << " (runtime " << r.runtime << ", " << seconds(r.elapsed_ms) << ")\n";
  out << "  " << std::left << std::setw(5) << (r.result_at_all ? "pass" : "FAIL") << " " << std::setw(18)
      << "a result at all" << " " << (r.result_at_all ? "out.tar came back" : r.no_result_reason) << "\n";
  for (const auto& a : r.agent.assertions) {
    std::string v(wire::to_string(a.verdict));
    if (a.verdict == wire::AssertionVerdict::kFail) v = "FAIL";
    out << "  " << std::left << std::setw(5) << v << " " << std::setw(18) << wire::to_string(a.check) << " " << a.evidence
        << "\n";
  }
  for (const auto& c : r.agent.commands) out << "  sha256 " << c.sha256 << "  " << c.path << " (" << c.size << " bytes)\n";
}

}  // namespace

ProbeExit probe_command(const std::optional<std::string>& config_path, const config::Env& env, std::ostream& out) {
  auto log = logger("sandbox");
  config::Config cfg = config::defaults();
  if (config_path) {
    auto loaded = config::load_file(*config_path, env);
    if (!loaded) {
      out << loaded.error().describe() << "\n";
      logger("config")->error("{}", loaded.error().describe());
      return ProbeExit::kConfig;
    }
    for (const auto& w : loaded->warnings) logger("config")->warn("{}", w);
    cfg = std::move(loaded->config);
  }
  auto runtime = build_sandbox_runtime(cfg, env);
  if (!runtime) {
    out << runtime.error() << "\n";
    log->error("{}", runtime.error());
    log->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
    return ProbeExit::kConfig;
  }
  auto& rt = **runtime;
  auto targets = probe_targets(cfg);
  if (targets.empty()) {
    std::string why = "no room to probe: no sandboxed scanner is configured and " + cfg.worker.sandbox.rooms_dir +
                      " holds no room (build one with scripts/build-room.py)";
    out << why << "\n" << rt.hint() << "\n";
    log->error("{}", why);
    return ProbeExit::kFailed;
  }
  std::ostringstream report;
  for (const auto& t : targets) {
    log->info("probing runtime \"{}\" (room {}/{})", rt.name(), cfg.worker.sandbox.rooms_dir, t.room);
    auto r = rt.probe(t);
    if (!r) {
      out << "a result at all: " << r.error().message << "\n" << rt.hint() << "\n" << report.str();
      log->error("probe failed for runtime \"{}\": {}", rt.name(), r.error().message);
      log->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
      return ProbeExit::kFailed;
    }
    if (r->skipped) {
      log->warn("runtime \"{}\" skips the probe: {}", rt.name(), rt.hint());
      report << "room " << t.room << ": probe skipped (runtime " << rt.name() << " has no walls)\n";
      continue;
    }
    print_assertions(*r, report);
    if (auto f = r->first_failure()) {
      out << *f << "\n" << rt.hint() << "\n" << report.str();
      log->error("probe failed for runtime \"{}\" in room {}: {}", rt.name(), t.room, *f);
      log->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
      return ProbeExit::kFailed;
    }
    bool whole = true;
    for (const auto& a : r->agent.assertions) {
      if (a.verdict != wire::AssertionVerdict::kWarn) continue;
      log->warn("room {}: {}: {}", t.room, wire::to_string(a.check), a.evidence);
      if (a.check == wire::Check::kMemoryBounded || a.check == wire::Check::kPidsBounded) whole = false;
    }
    log->info("probe passed in {} — room {}: no network, read-only root, one writable dir, empty environment, "
              "unprivileged, no shell, seccomp filter, {}, {} command(s) hashed",
              seconds(r->elapsed_ms), t.room,
              whole ? "memory and processes bounded as a whole" : "memory and processes bounded per process only",
              r->agent.commands.size());
  }
  out << report.str();
  return ProbeExit::kPassed;
}

}  // namespace batlehub::server
