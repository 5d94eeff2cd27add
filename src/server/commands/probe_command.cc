#include "server/commands/probe_command.h"

#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "base/kernel_identity.h"
#include "server/root/builders.h"
#include "server/root/log.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

namespace {

void print_assertions(const core::ProbeReport& r, std::ostream& out) {
  out << "room " << r.room << " (runtime " << r.runtime << ", " << elapsed_text(r.elapsed_ms) << ")\n";
  out << "  " << std::left << std::setw(5) << (r.result_at_all ? "pass" : "FAIL") << " " << std::setw(18)
      << "a result at all" << " " << (r.result_at_all ? "out.tar came back" : r.no_result_reason) << "\n";
  for (const auto& a : r.agent.assertions) {
    std::string v(wire::to_string(a.verdict));
    if (a.verdict == wire::AssertionVerdict::kFail) v = "FAIL";
    out << "  " << std::left << std::setw(5) << v << " " << std::setw(18) << wire::to_string(a.check) << " " << a.evidence
        << "\n";
  }
  for (const auto& c : r.agent.commands) out << "  sha256 " << c.sha256 << "  " << c.path << " (" << c.size << " bytes)\n";
  if (r.result_at_all) out << "  kernel " << kernel_text(r.agent.kernel, base::kernel_identity()) << "\n";
}

}  // namespace

ProbeExit probe_command(const std::optional<std::string>& config_path, const config::Env& env, std::ostream& out) {
  auto log = logger("sandbox");
  auto loaded = load_config(config_path, env);
  if (!loaded) {
    out << loaded.error() << "\n";
    logger("config")->error("{}", loaded.error());
    return ProbeExit::kConfig;
  }
  const config::Config cfg = std::move(*loaded);
  auto runtime = build_sandbox_runtime(cfg, env);
  if (!runtime) {
    out << runtime.error() << "\n";
    log->error("{}", runtime.error());
    log->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
    return ProbeExit::kConfig;
  }
  auto& rt = **runtime;
  auto targets = probe_targets(cfg, env);
  std::ostringstream report;
  WallsProof walls = prove_walls(rt, targets, cfg.worker.sandbox.rooms_dir, [&](const core::ProbeReport& r) {
    if (r.skipped) {
      report << "room " << r.room << ": probe skipped (runtime " << rt.name() << " has no walls)\n";
    } else {
      print_assertions(r, report);
    }
  });
  if (!walls.proven) {
    out << walls.failure << "\n" << walls.hint << "\n" << report.str();
    log->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
    return ProbeExit::kFailed;
  }
  out << report.str();
  return ProbeExit::kPassed;
}

}  // namespace batlehub::server
