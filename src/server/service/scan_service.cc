#include "server/service/scan_service.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/kernel_identity.h"
#include "core/identify.h"
#include "server/root/log.h"

namespace batlehub::server {

namespace {

void log_passed(const core::ProbeReport& r, const std::string& room) {
  auto log = logger("sandbox");
  bool whole = true;
  bool landlock = true;
  for (const auto& a : r.agent.assertions) {
    if (a.verdict != wire::AssertionVerdict::kWarn) continue;
    log->warn("room {}: {}: {}", room, wire::to_string(a.check), a.evidence);
    if (a.check == wire::Check::kMemoryBounded || a.check == wire::Check::kPidsBounded) whole = false;
    if (a.check == wire::Check::kLandlock) landlock = false;
  }
  log->info(
      "probe passed in {} — room {}: no network, read-only root, one writable dir, empty environment, "
      "unprivileged, no shell, seccomp filter, {}, the agent out of the scanner's reach, {}, {} command(s) hashed, "
      "agent {}",
      elapsed_text(r.elapsed_ms), room, landlock ? "Landlock" : "no Landlock (the kernel has none)",
      whole ? "memory and processes bounded as a whole" : "memory and processes bounded per process only",
      r.agent.commands.size(), r.agent_version.empty() ? "of unknown version" : r.agent_version);
  log->info("room {}: {}", room, kernel_text(r.agent.kernel, base::kernel_identity()));
}

}  // namespace

std::string kernel_text(const std::string& sandbox, const std::string& worker) {
  // gVisor's Sentry answers uname with fixed fields (release 4.4.0 and this version string,
  // unchanged since its first release), whatever host it runs on.
  static constexpr std::string_view kGvisorVersion = "#1 SMP Sun Jan 10 15:06:54 PST 2016";
  if (sandbox.empty()) return "kernel not reported (an agent of an older release?)";
  if (sandbox == worker) return "the scanner ran on the worker's own kernel, " + sandbox;
  std::string s = "the scanner ran on a kernel of its own, " + sandbox + " (the worker's: " + worker + ")";
  if (sandbox.find(kGvisorVersion) != std::string::npos) s += ": gVisor's";
  return s;
}

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
    return WallsProof{false, why,
                      "configure a sandboxed scanner ([scanners.NAME] of type guarddog, postmortem, trivy or "
                      "yara) and build its room (scripts/build-room.py); osv, mlab, sigstore and socket run in the "
                      "worker and need no room",
                      "", "result_at_all"};
  }
  const std::string where = rt.where();
  const std::string in = where.empty() ? "" : where + "; ";
  for (const auto& t : targets) {
    // RFC 0022 §1's line, where the runtime makes its runs first; then what this probe opens.
    if (t.image) {
      log->info("probing runtime \"{}\" ({}image {}, for {})", rt.name(), in, *t.image, t.room);
    } else {
      log->info("probing runtime \"{}\" ({}room {}/{})", rt.name(), in, rooms_dir, t.room);
    }
    auto r = rt.probe(t);
    if (!r) {
      log->error("probe failed for runtime \"{}\": {}", rt.name(), r.error().message);
      return WallsProof{false, "a result at all: " + r.error().message, rt.hint(std::nullopt), t.room, "result_at_all"};
    }
    core::hold_to_target(*r, t);
    if (on_report) on_report(*r);
    if (r->skipped) {
      log->warn("runtime \"{}\" skips the probe: {}", rt.name(), rt.hint(std::nullopt));
      continue;
    }
    if (auto f = r->failure()) {
      std::string line = f->describe();
      log->error("probe failed for runtime \"{}\" in room {}: {}", rt.name(), t.room, line);
      std::string check = f->check ? std::string(wire::to_string(*f->check)) : "result_at_all";
      return WallsProof{false, line, rt.hint(f->check), t.room, check};
    }
    log_passed(*r, t.room);
    if (t.self_check) {
      core::RunSpec spec = t.self_check->run;
      if (t.image) spec.image = t.image;
      if (auto missed = t.self_check->judge(rt.run(spec))) {
        log->error("probe failed for runtime \"{}\" in room {}: observer_sees: {}", rt.name(), t.room, *missed);
        return WallsProof{false, "observer_sees: " + *missed,
                          "the detonation's observer needs seccomp user notification with SECCOMP_ADDFD_FLAG_SEND "
                          "(Linux 5.14) and /proc/<pid>/mem of its own children; see docs/operations/bwrap.md",
                          t.room, "observer_sees"};
      }
      log->info("room {}: the detonation's observer sees a helper's exec, decoy read, DNS query and connection",
                t.room);
    }
  }
  return WallsProof{true, "", "", "", ""};
}

Expected<core::Package, std::string> package_of(const std::string& path, const Naming& given,
                                                const Identify& identify) {
  core::FileNameReading read = core::read_file_name(path, given.kind);
  core::Package p;
  p.registry = given.registry;
  auto kind = given.kind ? given.kind : read.kind;
  std::optional<std::string> name = given.name ? given.name : read.name;
  std::optional<std::string> version = given.version ? given.version : read.version;
  // Where each part came from, for the refusal that names it.
  std::string name_from = given.name ? "given with --name" : "read from its file name";
  std::string version_from = given.version ? "given with --version" : "read from its file name";
  // The agent reads npm, PyPI, Cargo and gem metadata; for another kind it has nothing to say.
  const bool readable = !kind || wire::is_identified_kind(core::to_string(*kind));
  std::optional<std::string> agent_saw;
  if ((!kind || !name || !version) && identify && readable) {
    auto id = identify(kind);
    if (id) {
      // The file name and the metadata must tell one story: an archive renamed to pass for
      // another version (or another ecosystem's package) is refused, not reconciled.
      if (!given.kind && read.kind && id->kind != core::to_string(*read.kind)) {
        return Unexpected(path + ": its file name reads as " + std::string(core::to_string(*read.kind)) +
                          " but inside the sandbox the agent found " + id->kind + " metadata (" + id->from +
                          "); pass --kind");
      }
      if (!given.version && read.version && id->version != *read.version) {
        return Unexpected(path + ": its file name says version " + *read.version + " but its metadata (" + id->from +
                          ") says " + id->version + "; pass --version");
      }
      // Operator first, then the file name, then the metadata: each fills only a gap.
      if (!kind) kind = core::parse_package_kind(id->kind);
      if (!name) {
        name = id->name;
        name_from = "read from its metadata (" + id->from + ")";
      }
      if (!version) {
        version = id->version;
        version_from = "read from its metadata (" + id->from + ")";
      }
    } else {
      agent_saw = id.error();
    }
  }
  const std::string saw = agent_saw ? "; inside the sandbox the agent found " + *agent_saw : "";
  if (!kind) {
    return Unexpected(path +
                      ": cannot tell the package kind from its name (a wheel, an sdist named <name>-<version>, "
                      "an npm .tgz, a .crate, a .gem…)" +
                      saw +
                      "; pass --kind (npm, pypi, cargo, rubygems, composer, "
                      "goproxy, maven, nuget, conda)");
  }
  p.kind = *kind;
  p.name = name.value_or("");
  p.version = version.value_or("");
  if (p.name.empty() || p.version.empty()) {
    // npm pack writes @babel/core as babel-core-<version>.tgz: the dash may be a scope's.
    const std::string why = p.kind == core::PackageKind::kNpm && read.version && !read.name
                                ? " (an npm tarball's file name cannot tell @scope/name from scope-name)"
                                : "";
    return Unexpected(path + ": cannot tell the package's name and version from its file name by " +
                      std::string(core::to_string(p.kind)) + "'s naming rules" + why + saw +
                      "; pass --name and --version");
  }
  // A name or version no registry could have published (a file saved as "pip install
  // x-1.0.tar.gz") is refused whichever way it came: it would be a storage key, a log line and
  // the name in a report.
  const std::string kind_name(core::to_string(p.kind));
  if (auto why = core::name_problem(p.kind, p.name)) {
    return Unexpected(path + ": the package name \"" + core::shown(p.name) + "\" (" + name_from + ") cannot be a " +
                      kind_name + " name: " + *why);
  }
  if (auto why = core::version_problem(p.kind, p.version)) {
    return Unexpected(path + ": the version \"" + core::shown(p.version) + "\" (" + version_from + ") cannot be a " +
                      kind_name + " version: " + *why);
  }
  return p;
}

Expected<wire::Identity, std::string> identity_from_run(const Expected<core::RunOutput, core::SandboxError>& run) {
  if (!run) {
    return Unexpected("nothing it could read (the identify run failed: " +
                      std::string(core::to_string(run.error().kind)) + ": " + run.error().message + ")");
  }
  // The agent's stdout is the archive's story told by our code, but it ran on hostile bytes
  // under the same walls as a scanner: it is read like a scanner's output.
  auto doc = wire::parse_identity(run->stdout_bytes);
  if (!doc)
    return Unexpected("nothing it could say (its answer was refused: " + doc.error().describe("identity") + ")");
  if (auto* refusal = std::get_if<wire::IdentityRefusal>(&*doc)) return Unexpected(refusal->error);
  return std::get<wire::Identity>(std::move(*doc));
}

Expected<wire::Identity, std::string> identify_in_sandbox(core::SandboxRuntime& rt,
                                                          std::shared_ptr<const core::Blob> archive,
                                                          std::optional<core::PackageKind> kind,
                                                          const IdentifyPlace& place) {
  core::RunSpec spec;
  // Extracted as it came (no strip_wrapper): the agent looks for npm's package/ itself, and
  // its answer names the file as it sits in the archive.
  spec.bundle.entries.push_back(core::BundleEntry::archive(*wire::RelPath::parse("pkg"), std::move(archive), false));
  spec.argv = {place.agent_command, "identify", "pkg"};
  if (kind) spec.argv.emplace_back(core::to_string(*kind));
  spec.network = false;
  spec.limits = place.limits;
  spec.timeout = place.timeout;
  spec.label.job = "identify";
  spec.label.scanner = place.room;
  auto r = identity_from_run(rt.run(spec));
  logger("scan")->info("identify in room {}: {}", place.room,
                       r ? r->kind + " " + r->name + "@" + r->version + " from " + r->from : r.error());
  return r;
}

std::string cyclonedx_of(const std::vector<std::vector<std::string>>& components) {
  // The inventory as the least CycloneDX document that holds it: what osv reads of an SBOM.
  std::string out = R"({"bomFormat":"CycloneDX","specVersion":"1.5","components":[)";
  std::set<std::string> seen;
  for (const auto& list : components) {
    for (const std::string& purl : list) {
      if (!seen.insert(purl).second) continue;
      out += (seen.size() == 1 ? "" : ",") + std::string(R"({"type":"library","purl":)") +
             nlohmann::json(purl).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}";
    }
  }
  return out + "]}";
}

std::string ScannerSet::names() const {
  std::string out;
  for (const auto* s : sandboxed) out += (out.empty() ? "" : ", ") + s->name();
  for (const auto* s : network) out += (out.empty() ? "" : ", ") + s->name();
  for (const auto* e : enrichers) out += " (+" + e->name() + ")";
  return out;
}

PackageScan scan_package(const std::vector<const core::Scanner*>& scanners, core::SandboxRuntime& rt,
                         const core::ScanInput& in, const core::SecurityPolicy& policy,
                         const std::function<void(const ScannerRun&)>& on_done) {
  return scan_package(ScannerSet{scanners, {}, {}}, rt, in, policy, on_done);
}

PackageScan scan_package(const ScannerSet& set, core::SandboxRuntime& rt, const core::ScanInput& in,
                         const core::SecurityPolicy& policy, const std::function<void(const ScannerRun&)>& on_done) {
  auto log = logger("scan");
  const std::size_t n_sandboxed = set.sandboxed.size();
  const std::size_t n = n_sandboxed + set.network.size();
  std::vector<ScannerRun> runs(n);
  std::vector<std::vector<core::Finding>> found(n);
  std::mutex done_mu;  // on_done is the caller's: called one at a time
  auto finish = [&](std::size_t i, const std::string& name, Expected<core::Lookup, core::ScannerError> r,
                    std::chrono::steady_clock::time_point start) {
    ScannerRun& run = runs[i];
    run.scanner = name;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r) {
      run.findings = r->findings.size();
      run.tolerated = std::move(r->tolerated);
      found[i] = std::move(r->findings);
      for (const auto& t : run.tolerated) {
        log->warn("{}: {} answered as clean after a failure, as upstream does: {}", in.package.coordinate(), name,
                  core::describe(t));
      }
      log->info("{}: {} answered with {} finding(s)", in.package.coordinate(), name, run.findings);
    } else {
      run.error = r.error();
      found[i].push_back(core::scanner_error_finding(name, r.error()));
      log->warn("{}: {} failed: {}", in.package.coordinate(), name, core::describe(r.error()));
    }
    std::lock_guard lock(done_mu);
    if (on_done) on_done(run);
  };
  // A network scanner that reads an SBOM (osv) waits for the scanners that inventory the
  // package's components (Trivy) when one runs and no SBOM was given: it then asks about
  // what they found too. Every other scanner starts at once.
  const bool inventoried = !in.sbom && std::any_of(set.sandboxed.begin(), set.sandboxed.end(),
                                                   [](const core::Scanner* s) { return s->inventories(); });
  auto waits = [&](std::size_t i) {
    return i >= n_sandboxed && inventoried && set.network[i - n_sandboxed]->reads_sbom();
  };
  std::vector<std::vector<std::string>> components(n_sandboxed);
  auto run_one = [&](std::size_t i, const core::ScanInput& input) {
    const auto start = std::chrono::steady_clock::now();
    if (i < n_sandboxed) {
      const core::Scanner& s = *set.sandboxed[i];
      auto r = core::scan_with(s, rt, input, &components[i]);
      finish(i, s.name(),
             r ? Expected<core::Lookup, core::ScannerError>(core::Lookup{std::move(*r), {}})
               : Expected<core::Lookup, core::ScannerError>(Unexpected(r.error())),
             start);
    } else {
      const core::NetworkScanner& s = *set.network[i - n_sandboxed];
      finish(i, s.name(), s.scan(input, input.deadline), start);
    }
  };
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < n; ++i) {
      if (!waits(i)) threads.emplace_back([&, i] { run_one(i, in); });
    }
  }  // joins
  if (inventoried) {
    core::ScanInput with_sbom = in;
    with_sbom.sbom = cyclonedx_of(components);
    std::vector<std::jthread> threads;
    for (std::size_t i = n_sandboxed; i < n; ++i) {
      if (waits(i)) threads.emplace_back([&, i] { run_one(i, with_sbom); });
    }
  }  // joins
  // Findings by scanner as configured, then as each reported; scanners_done sorted.
  std::vector<core::Finding> findings;
  std::vector<std::string> done;
  for (std::size_t i = 0; i < n; ++i) {
    std::move(found[i].begin(), found[i].end(), std::back_inserter(findings));
    if (!runs[i].error) done.push_back(runs[i].scanner);
  }
  for (const core::FindingEnricher* e : set.enrichers) {
    const auto start = std::chrono::steady_clock::now();
    ScannerRun run;
    run.scanner = e->name();
    if (auto r = e->enrich(findings, in.deadline); !r) {
      run.error = r.error();
      log->warn("{}: {} could not enrich the findings (they stand as they were): {}", in.package.coordinate(),
                e->name(), core::describe(r.error()));
    } else {
      done.push_back(e->name());
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (on_done) on_done(run);
    runs.push_back(std::move(run));
  }
  std::sort(done.begin(), done.end());
  return PackageScan{core::evaluate(in.package, std::move(findings), std::move(done), policy), std::move(runs)};
}

}  // namespace batlehub::server
