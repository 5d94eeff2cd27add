#include "server/scan_command.h"

#include <semaphore>
#include <sstream>
#include <mutex>
#include <ostream>
#include <thread>

#include "adapters/sandbox/blob.h"
#include "base/cgroup.h"
#include "base/file.h"
#include "core/scanner.h"
#include "server/builders.h"
#include "server/log.h"
#include "server/report.h"
#include "server/scanners.h"

namespace batlehub::server {

namespace {

std::string base_name(std::string_view p) {
  auto slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

// The worker's own memory bound, in MiB: the tightest limit on its memory cgroup, found the
// way the probe finds a run's (base/cgroup.h). 0 when none is set or none is visible.
std::uint64_t own_memory_bound_mb() {
  namespace cg = base::cgroup;
  auto where = cg::locate("memory", cg::parse_proc_cgroup(base::read_small_file("/proc/self/cgroup")),
                          cg::parse_mountinfo(base::read_small_file("/proc/self/mountinfo", 1024 * 1024)));
  if (!where) return 0;
  auto bound = cg::tightest(*where, cg::limit_file("memory", where->version));
  return bound ? bound->value / (1024 * 1024) : 0;
}

std::uint64_t host_memory_mb() {
  std::istringstream f(base::read_small_file("/proc/meminfo"));
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit) {
    if (key == "MemTotal:") return kb / 1024;
  }
  return 0;
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

std::size_t sandbox_pool_size(const config::SandboxConfig& s) {
  std::uint64_t budget_mb = own_memory_bound_mb();
  std::uint64_t host = host_memory_mb();
  if (budget_mb == 0 || budget_mb >= host) budget_mb = host > 1024 ? host - 1024 : 0;
  std::uint64_t cost = static_cast<std::uint64_t>(s.memory_limit_mb + s.max_extracted_mb);
  std::uint64_t n = cost > 0 ? budget_mb / cost : 1;
  return static_cast<std::size_t>(std::max<std::uint64_t>(n, 1));
}

ScanExit scan_command(const ScanOptions& o, const config::Env& env, std::ostream& out) {
  auto log = logger("scan");
  auto sandbox_log = logger("sandbox");
  if (o.archives.empty()) {
    out << "batlehub scan: name at least one archive\n";
    return ScanExit::kUsage;
  }
  config::Config cfg = config::defaults();
  if (o.config_path) {
    auto loaded = config::load_file(*o.config_path, env);
    if (!loaded) {
      out << loaded.error().describe() << "\n";
      return ScanExit::kUsage;
    }
    for (const auto& w : loaded->warnings) logger("config")->warn("{}", w);
    cfg = std::move(loaded->config);
  } else {
    cfg = default_scan_config(cfg.worker.sandbox.rooms_dir);
  }
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
  for (const auto& target : probe_targets(cfg)) {
    sandbox_log->info("probing runtime \"{}\" (room {}/{})", rt.name(), cfg.worker.sandbox.rooms_dir, target.room);
    auto r = rt.probe(target);
    std::string failure = !r ? "a result at all: " + r.error().message : r->first_failure().value_or("");
    if (r && r->skipped) {
      sandbox_log->warn("runtime \"{}\" skips the probe: {}", rt.name(), rt.hint());
      continue;
    }
    if (!failure.empty()) {
      out << failure << "\n" << rt.hint() << "\n";
      sandbox_log->error("probe failed for runtime \"{}\" in room {}: {}", rt.name(), target.room, failure);
      sandbox_log->error("refusing to scan — a sandbox that cannot be proven scans nothing");
      return ScanExit::kWallsFailed;
    }
  }

  std::size_t pool = sandbox_pool_size(cfg.worker.sandbox);
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

    std::vector<const core::Scanner*> chosen;
    for (const auto& s : *scanners) {
      if (s->supports(pkg.kind)) chosen.push_back(s.get());
    }
    std::string names;
    for (const auto* s : chosen) names += (names.empty() ? "" : ", ") + s->name();
    log->info("{}: scanning with {} (runtime {}, at most {} at once)", pkg.coordinate(), names.empty() ? "no scanner" : names,
              rt.name(), pool);

    // The sandbox pool: at most `pool` scanners in flight.
    std::counting_semaphore<1024> permits(static_cast<std::ptrdiff_t>(std::min<std::size_t>(pool, 1024)));
    std::mutex mu;
    std::vector<core::Finding> findings;
    std::vector<std::string> done;
    std::vector<std::jthread> workers;
    for (const core::Scanner* s : chosen) {
      workers.emplace_back([&, s] {
        permits.acquire();
        auto r = core::scan_with(*s, rt, in);
        permits.release();
        std::lock_guard lock(mu);
        if (r) {
          findings.insert(findings.end(), r->begin(), r->end());
          done.push_back(s->name());
          log->info("{}: {} answered with {} finding(s)", pkg.coordinate(), s->name(), r->size());
        } else {
          findings.push_back(core::scanner_error_finding(s->name(), r.error()));
          log->warn("{}: {} failed: {}", pkg.coordinate(), s->name(), core::describe(r.error()));
        }
      });
    }
    workers.clear();  // joins
    // Stable order: by scanner as configured, then as each reported.
    std::stable_sort(findings.begin(), findings.end(), [&](const core::Finding& a, const core::Finding& b) {
      auto pos = [&](const std::string& n) {
        for (std::size_t i = 0; i < chosen.size(); ++i) {
          if (chosen[i]->name() == n) return i;
        }
        return chosen.size();
      };
      return pos(a.scanner) < pos(b.scanner);
    });
    std::sort(done.begin(), done.end());
    ScanReport rep{core::evaluate(pkg, std::move(findings), std::move(done), o.policy), path, std::string(rt.name()),
                   now_rfc3339()};
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
