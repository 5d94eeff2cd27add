#include "server/scan_command.h"

#include <ostream>

#include "adapters/sandbox/blob.h"
#include "core/scanner.h"
#include "server/builders.h"
#include "server/log.h"
#include "server/report.h"
#include "server/sandbox_pool.h"
#include "server/scan_service.h"
#include "server/scanners.h"

namespace batlehub::server {

namespace {

std::string base_name(std::string_view p) {
  auto slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

ScanExit exit_for(core::VerdictState s) {
  switch (s) {
    case core::VerdictState::kAllowed: return ScanExit::kAllowed;
    case core::VerdictState::kWarned: return ScanExit::kWarned;
    case core::VerdictState::kQuarantined: return ScanExit::kQuarantined;
    case core::VerdictState::kDenied: return ScanExit::kDenied;
  }
  return ScanExit::kDenied;
}

}  // namespace

std::optional<core::PackageKind> kind_from_file_name(std::string_view file) {
  std::string f = base_name(file);
  auto ends = [&](std::string_view s) { return f.size() > s.size() && f.ends_with(s); };
  if (ends(".tgz")) return core::PackageKind::kNpm;
  if (ends(".whl")) return core::PackageKind::kPypi;
  if (ends(".crate")) return core::PackageKind::kCargo;
  if (ends(".gem")) return core::PackageKind::kRubygems;
  if (ends(".jar")) return core::PackageKind::kMaven;
  if (ends(".nupkg")) return core::PackageKind::kNuget;
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> name_version_from_file_name(std::string_view file) {
  std::string f = base_name(file);
  for (std::string_view ext : {".tar.gz", ".tgz", ".whl", ".crate", ".gem", ".jar", ".nupkg", ".zip", ".tar"}) {
    if (f.size() > ext.size() && f.ends_with(ext)) {
      f.resize(f.size() - ext.size());
      break;
    }
  }
  // A wheel: name-version-pythontag-abitag-platform.
  if (base_name(file).ends_with(".whl")) {
    auto dash = f.find('-');
    if (dash == std::string::npos) return std::nullopt;
    auto dash2 = f.find('-', dash + 1);
    return std::pair{f.substr(0, dash), f.substr(dash + 1, dash2 == std::string::npos ? std::string::npos : dash2 - dash - 1)};
  }
  // name-version: the last '-' that is followed by a digit.
  for (std::size_t i = f.size(); i-- > 0;) {
    if (f[i] == '-' && i + 1 < f.size() && std::isdigit(static_cast<unsigned char>(f[i + 1])) && i > 0) {
      return std::pair{f.substr(0, i), f.substr(i + 1)};
    }
  }
  return std::nullopt;
}

ScanExit scan_command(const ScanOptions& o, const config::Env& env, std::ostream& out) {
  auto log = logger("scan");
  auto sandbox_log = logger("sandbox");
  if (o.archives.empty()) {
    out << "batlehub scan: name at least one archive\n";
    return ScanExit::kUsage;
  }
  auto loaded = load_config(o.config_path, env);
  if (!loaded) {
    out << loaded.error() << "\n";
    return ScanExit::kUsage;
  }
  config::Config cfg = o.config_path ? std::move(*loaded) : default_scan_config(loaded->worker.sandbox.rooms_dir);
  auto runtime = build_sandbox_runtime(cfg, env);
  if (!runtime) {
    out << runtime.error() << "\n";
    return ScanExit::kUsage;
  }
  auto scanners = build_scanners(cfg, env);
  if (!scanners) {
    out << scanners.error() << "\n";
    return ScanExit::kUsage;
  }
  if (scanners->empty()) {
    out << "no scanner to run: none is configured, and no room of a known scanner (postmortem, guarddog, trivy, "
           "yara) exists under " << cfg.worker.sandbox.rooms_dir << " (build one with scripts/build-room.py)\n";
    return ScanExit::kUsage;
  }

  // The walls first, as the worker does: no scan behind walls that did not prove themselves.
  core::SandboxRuntime& rt = **runtime;
  WallsProof walls = prove_walls(rt, probe_targets(cfg), cfg.worker.sandbox.rooms_dir);
  if (!walls.proven) {
    out << walls.failure << "\n" << walls.hint << "\n";
    sandbox_log->error("refusing to scan — a sandbox that cannot be proven scans nothing");
    return ScanExit::kWallsFailed;
  }

  PoolBudget budget = pool_budget(cfg.worker);
  SandboxPool pool(rt, budget.size);
  std::vector<ScanReport> reports;
  ScanExit worst = ScanExit::kAllowed;
  for (const std::string& path : o.archives) {
    core::Package pkg;
    pkg.registry = o.registry;
    auto kind = o.kind ? o.kind : kind_from_file_name(path);
    if (!kind) {
      out << path << ": cannot tell the package kind from its name; pass --kind (npm, pypi, cargo, rubygems, composer, "
             "goproxy, maven, nuget, conda)\n";
      return ScanExit::kInput;
    }
    pkg.kind = *kind;
    auto nv = name_version_from_file_name(path);
    pkg.name = o.name ? *o.name : nv ? nv->first : "";
    pkg.version = o.version ? *o.version : nv ? nv->second : "";
    if (pkg.name.empty() || pkg.version.empty()) {
      out << path << ": cannot tell the package's name and version from its file name; pass --name and --version\n";
      return ScanExit::kInput;
    }
    auto blob = adapters::file_blob(path);
    if (!blob) {
      out << blob.error() << "\n";
      return ScanExit::kInput;
    }
    core::ScanInput in{pkg, *blob, std::nullopt};

    auto chosen = scanners_for(*scanners, pkg.kind);
    std::string names;
    for (const auto* s : chosen) names += (names.empty() ? "" : ", ") + s->name();
    log->info("{}: scanning with {} (runtime {}, at most {} at once)", pkg.coordinate(), names.empty() ? "no scanner" : names,
              rt.name(), pool.size());
    PackageScan scanned = scan_package(chosen, pool, in, o.policy);
    ScanReport rep{std::move(scanned.verdict), path, std::string(rt.name()), now_rfc3339()};
    worst = std::max(worst, exit_for(rep.verdict.state));
    reports.push_back(std::move(rep));
  }
  switch (o.format) {
    case ScanFormat::kText:
      for (std::size_t i = 0; i < reports.size(); ++i) out << (i ? "\n" : "") << render_text(reports[i]);
      break;
    case ScanFormat::kJson: out << render_json(reports); break;
    case ScanFormat::kSarif: out << render_sarif(reports); break;
  }
  return worst;
}

}  // namespace batlehub::server
