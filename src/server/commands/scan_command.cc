#include "server/commands/scan_command.h"

#include <map>
#include <ostream>
#include <thread>

#include "adapters/sandbox/blob.h"
#include "core/scanner.h"
#include "server/commands/report.h"
#include "server/commands/scanner_versions.h"
#include "server/root/builders.h"
#include "server/root/log.h"
#include "server/root/scanners.h"
#include "server/service/sandbox_pool.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

namespace {

ScanExit exit_for(core::VerdictState s) {
  switch (s) {
    case core::VerdictState::kAllowed:
      return ScanExit::kAllowed;
    case core::VerdictState::kWarned:
      return ScanExit::kWarned;
    case core::VerdictState::kQuarantined:
      return ScanExit::kQuarantined;
    case core::VerdictState::kDenied:
      return ScanExit::kDenied;
  }
  return ScanExit::kDenied;
}

}  // namespace

core::SecurityPolicy scan_policy(const config::Config& c, const std::string& registry, const PolicyFlags& flags) {
  core::SecurityPolicy p = registry_policy(c, registry).value_or(core::SecurityPolicy{});
  p.min_age_secs = 0;
  p.hold_missing_timestamp = false;
  if (flags.max_severity) p.max_severity = *flags.max_severity;
  if (flags.scanner_error) p.scanner_error = *flags.scanner_error;
  if (flags.deny_install_hooks) p.deny_install_hooks = *flags.deny_install_hooks;
  if (flags.mode) p.mode = *flags.mode;
  return p;
}

ScanExit scan_command(const ScanOptions& o, const config::Env& env, std::ostream& out) {
  auto log = logger("scan");
  auto sandbox_log = logger("sandbox");
  // Every refusal goes out in the format asked for: a machine reading JSON gets JSON.
  auto refuse = [&](ScanExit code, const std::string& message, const std::string& archive = "") {
    out << render_refusal(o.format, static_cast<int>(code), message, archive);
    return code;
  };
  if (o.archives.empty()) return refuse(ScanExit::kUsage, "batlehub scan: name at least one archive");
  auto loaded = load_config(o.config_path, env);
  if (!loaded) return refuse(ScanExit::kUsage, loaded.error());
  config::Config cfg = o.config_path ? std::move(*loaded) : default_scan_config(loaded->worker.sandbox.rooms_dir);
  auto runtime = build_sandbox_runtime(cfg, env);
  if (!runtime) return refuse(ScanExit::kUsage, runtime.error());
  auto scanners = build_scanners(cfg, env);
  if (!scanners) return refuse(ScanExit::kUsage, scanners.error());
  auto network = build_network_scanners(cfg);
  if (!network) return refuse(ScanExit::kUsage, network.error());
  if (scanners->empty()) {
    return refuse(ScanExit::kUsage,
                  "no scanner to run: none is configured, and no room of a known scanner (postmortem, guarddog, "
                  "trivy, yara, signals) exists under " +
                      cfg.worker.sandbox.rooms_dir + " (build one with scripts/build-room.py)");
  }

  // The walls first, as the worker does: no scan behind walls that did not prove themselves.
  core::SandboxRuntime& rt = **runtime;
  WallsProof walls = prove_walls(rt, probe_targets(cfg, env), cfg.worker.sandbox.rooms_dir);
  if (!walls.proven) {
    sandbox_log->error("refusing to scan — a sandbox that cannot be proven scans nothing");
    return refuse(ScanExit::kWallsFailed, walls.failure + "\n" + walls.hint);
  }

  PoolBudget budget = pool_budget(cfg.worker);
  SandboxPool pool(rt, budget.size);
  std::vector<ScanReport> reports;
  ScanExit worst = ScanExit::kAllowed;
  // Behind the walls just proven: a name that says too little is completed by the agent
  // reading the package's own metadata in one of those rooms (scan_service.h).
  const IdentifyPlace place = identify_place(cfg, env);
  // SARIF names each scanner's version, as the scanner says it in its own room: asked while
  // the archives are scanned, through the same pool.
  std::vector<config::ScannerConfig> sandboxed;
  for (const auto& s : *scanners) {
    for (const auto& c : cfg.scanners) {
      if (c.name == s->name()) sandboxed.push_back(c);
    }
  }
  std::map<std::string, std::string> versions;
  std::jthread asking;
  if (o.format == ScanFormat::kSarif) {
    asking = std::jthread([&] { versions = scanner_versions(pool, sandboxed, limits_of(cfg.worker.sandbox)); });
  }
  for (const std::string& path : o.archives) {
    auto blob = adapters::file_blob(path);
    if (!blob) return refuse(ScanExit::kInput, blob.error(), path);
    auto named = package_of(path, o.naming, [&](std::optional<core::PackageKind> kind) {
      return identify_in_sandbox(pool, *blob, kind, place);
    });
    if (!named) return refuse(ScanExit::kInput, named.error(), path);
    const core::Package& pkg = *named;
    core::ScanInput in{pkg, *blob, std::nullopt};
    in.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(cfg.worker.job_timeout_secs);

    const ScannerSet chosen = scanners_for(cfg, *scanners, *network, pkg.registry, pkg.kind);
    const std::string names = chosen.names();
    log->info("{}: scanning with {} (runtime {}, at most {} at once)", pkg.coordinate(),
              names.empty() ? "no scanner" : names, rt.name(), pool.size());
    PackageScan scanned = scan_package(chosen, pool, in, scan_policy(cfg, pkg.registry, o.flags));
    ScanReport rep{std::move(scanned.verdict), path, std::string(rt.name()), now_rfc3339()};
    rep.kind = pkg.kind;
    for (const ScannerRun& run : scanned.runs) {
      rep.ran.push_back(
          ScannerOutcome{run.scanner, run.error ? std::optional(core::describe(*run.error)) : std::nullopt});
    }
    worst = std::max(worst, exit_for(rep.verdict.state));
    reports.push_back(std::move(rep));
  }
  switch (o.format) {
    case ScanFormat::kText:
      for (std::size_t i = 0; i < reports.size(); ++i) out << (i ? "\n" : "") << render_text(reports[i]);
      break;
    case ScanFormat::kJson:
      out << render_json(reports);
      break;
    case ScanFormat::kSarif: {
      if (asking.joinable()) asking.join();
      std::vector<SarifTool> tools;
      for (const auto& c : sandboxed) {
        auto v = versions.find(c.name);
        tools.push_back(SarifTool{c.name, std::string(config::to_string(c.type)),
                                  v == versions.end() ? std::nullopt : std::optional(v->second)});
      }
      out << render_sarif(reports, tools);
      break;
    }
  }
  return worst;
}

}  // namespace batlehub::server
