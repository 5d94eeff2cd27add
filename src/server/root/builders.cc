#include "server/root/builders.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "adapters/queue/postgres_queue.h"
#include "adapters/queue/sqlite_queue.h"
#include "adapters/sandbox/registry.h"
#include "adapters/sandbox/run_frame.h"
#include "adapters/scanners/behavior.h"
#include "adapters/storage/local_backends.h"
#include "adapters/storage/s3_backend.h"
#include "base/command_path.h"
#include "server/root/log.h"
#include "server/service/sandbox_pool.h"
#include "wire/sandbox_layout.h"

namespace batlehub::server {

namespace fs = std::filesystem;

core::Limits limits_of(const config::SandboxConfig& s) {
  core::Limits l;
  l.memory_limit_mb = static_cast<std::uint64_t>(s.memory_limit_mb);
  l.cpu_seconds = static_cast<std::uint64_t>(s.cpu_seconds);
  l.max_extracted_mb = static_cast<std::uint64_t>(s.max_extracted_mb);
  l.max_entries = static_cast<std::uint64_t>(s.max_entries);
  return l;
}

namespace {
std::string scratch_dir(const config::Env& env) {
  auto t = env("TMPDIR");
  return t && !t->empty() ? *t : "/tmp";
}

}  // namespace

Expected<std::shared_ptr<adapters::StorageRouter>, std::string> build_storage(const config::Config& c,
                                                                              const config::Env& env) {
  std::vector<std::shared_ptr<core::StorageBackend>> backends;
  for (const auto& b : c.storage.backends) {
    switch (b.type) {
      case config::StorageType::kFilesystem: {
        // Upstream creates the store's root (with its parents) at start; a root that cannot
        // be made (a read-only filesystem, no permission) stops the start here, named, rather
        // than the first job that stores or reads an artifact.
        std::error_code ec;
        std::filesystem::create_directories(b.path, ec);
        if (ec || !std::filesystem::is_directory(b.path, ec)) {
          return Unexpected("storage backend '" + b.name + "' (filesystem " + b.path +
                            "): its directory cannot be created: " + (ec ? ec.message() : "not a directory"));
        }
        backends.push_back(adapters::filesystem_backend(b.name, b.path));
        break;
      }
      case config::StorageType::kInMemory:
        backends.push_back(adapters::memory_backend(b.name));
        break;
      case config::StorageType::kS3: {
        auto s3 = adapters::S3Backend::create(b, env);
        if (!s3) return Unexpected(s3.error());  // names the backend itself
        // Upstream's HeadBucket at start: keys, bucket, region or endpoint that do not work
        // stop here, with S3's own reason, rather than at the first job.
        if (auto reachable = (*s3)->check_bucket(); !reachable) return Unexpected(reachable.error().message);
        backends.push_back(std::move(*s3));
        break;
      }
    }
  }
  return std::make_shared<adapters::StorageRouter>(std::move(backends), c.storage.default_backend);
}

Expected<std::shared_ptr<adapters::BundleStore>, std::string> build_bundle_store(const config::Config& c,
                                                                                 const config::Env& env,
                                                                                 const std::string& worker) {
  auto router = build_storage(c, env);
  if (!router) return Unexpected(router.error());
  // The leaf backend, resolved once here: every bundle operation is on it, never on the router.
  const config::StorageBackendConfig* b = config::bundle_backend(c);
  auto leaf = b != nullptr ? (*router)->leaf(b->name) : nullptr;
  if (!leaf) return Unexpected(std::string("the bundle backend is not declared in [storage]"));
  const auto& s = c.worker.sandbox;
  return std::make_shared<adapters::BundleStore>(
      std::move(leaf), *router,
      adapters::BundleOptions{s.bundle_prefix, std::chrono::seconds(s.bundle_ttl_secs), worker});
}

Expected<std::unique_ptr<core::SandboxRuntime>, std::string> build_sandbox_runtime(const config::Config& c,
                                                                                   const config::Env& env) {
  const auto& s = c.worker.sandbox;
  const adapters::RuntimeRegistration* r = adapters::find_runtime(s.runtime);
  if (r == nullptr) {
    return Unexpected("runtime = \"" + s.runtime + "\" is not one of " + config::runtime_names());
  }
  adapters::RuntimeContext ctx{.config = c, .env = env};
  ctx.scratch_dir = scratch_dir(env);
  ctx.slots = pool_budget(c.worker).size;
  if (r->schema.image_runtime) {
    for (const auto& sc : c.scanners) {
      if (config::runs_in_sandbox(sc.type)) ctx.images[sc.name] = config::image_for(c, sc, env);
    }
    ctx.default_image = config::default_image(c, env);
  }
  ctx.bundles = [&c, &env] { return build_bundle_store(c, env, adapters::this_worker_label()); };
  auto built = r->build(ctx);
  if (!built) return Unexpected(built.error() + (r->hint.empty() ? "" : "\n  hint: " + r->hint));
  return built;
}

namespace {
// argv[0] as it will be found inside the room: the first PATH directory of the sandbox
// that holds it, or /usr/bin/<name> (which the probe will then report missing).
std::string command_in_room(const std::string& room, const std::string& command) {
  if (command.starts_with('/')) return command;
  return base::resolve_command(command, wire::kSandboxPath, room, base::Found::kRegularFile)
      .value_or("/usr/bin/" + command);
}
// The detonation's probe runs its observer's own check too (adapters/scanners/behavior.h).
core::ProbeTarget::SelfCheck behavior_self_check(const config::ScannerConfig& sc, const core::Limits& limits) {
  adapters::BehaviorOptions o;
  o.name = sc.name;
  o.command = sc.command;
  o.limits = limits;
  return {adapters::self_test_run(o), adapters::judge_self_test};
}
}  // namespace

std::vector<core::ProbeTarget> probe_targets(const config::Config& c, const config::Env& env) {
  const auto& s = c.worker.sandbox;
  std::vector<core::ProbeTarget> out;
  core::Limits limits = limits_of(s);
  const bool images = config::is_image_runtime(s.runtime);
  for (const auto& sc : c.scanners) {
    if (!config::runs_in_sandbox(sc.type)) continue;
    if (!images) {
      std::string room = s.rooms_dir + "/" + sc.name;
      out.push_back(core::ProbeTarget{sc.name, std::nullopt, {command_in_room(room, sc.command)}, limits});
      out.back().shell_expected = sc.type == config::ScannerType::kBehavior;
      if (sc.type == config::ScannerType::kBehavior) out.back().self_check = behavior_self_check(sc, limits);
      continue;
    }
    // An image is proven once, however many scanners run from it (one made like a room for
    // them all): its one probe stats every one of their commands. The worker cannot
    // look inside an image, so a bare command is resolved there by the agent.
    const std::string image = config::image_for(c, sc, env);
    auto same = std::find_if(out.begin(), out.end(), [&](const core::ProbeTarget& t) { return t.image == image; });
    if (same == out.end()) {
      out.push_back(core::ProbeTarget{sc.name, image, {sc.command}, limits});
      out.back().shell_expected = sc.type == config::ScannerType::kBehavior;
      if (sc.type == config::ScannerType::kBehavior) out.back().self_check = behavior_self_check(sc, limits);
    } else {
      same->shell_expected = same->shell_expected && sc.type == config::ScannerType::kBehavior;
      same->room += "+" + sc.name;
      if (std::find(same->commands.begin(), same->commands.end(), sc.command) == same->commands.end()) {
        same->commands.push_back(sc.command);
      }
    }
  }
  if (c.scanners.empty()) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(s.rooms_dir, ec)) {
      if (e.is_directory(ec)) out.push_back(core::ProbeTarget{e.path().filename().string(), std::nullopt, {}, limits});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.room < b.room; });
  }
  for (auto& t : out) t.require_landlock = s.require_landlock;
  return out;
}

IdentifyPlace identify_place(const config::Config& c, const config::Env& env) {
  IdentifyPlace place;
  place.limits = limits_of(c.worker.sandbox);
  place.agent_command = wire::kAgentCommand;
  if (config::is_image_runtime(c.worker.sandbox.runtime)) {
    // The image of the first sandboxed scanner: proven by the probe, and every image holds the agent.
    for (const auto& sc : c.scanners) {
      if (!config::runs_in_sandbox(sc.type)) continue;
      place.room = sc.name;
      return place;
    }
  }
  auto targets = probe_targets(c, env);
  std::error_code ec;
  for (const auto& t : targets) {
    if (fs::is_directory(c.worker.sandbox.rooms_dir + "/" + t.room, ec)) {
      place.room = t.room;
      return place;
    }
  }
  if (!targets.empty()) place.room = targets.front().room;
  return place;
}

Expected<config::Config, std::string> load_config(const std::optional<std::string>& path, const config::Env& env) {
  if (!path) return config::defaults();
  auto loaded = config::load_file(*path, env);
  if (!loaded) return Unexpected(loaded.error().describe());
  for (const auto& o : loaded->overrides) logger("config")->info("{}", o);
  if (!loaded->proxy_only.empty()) logger("config")->info("{}", proxy_only_line(loaded->proxy_only));
  for (const auto& w : loaded->warnings) logger("config")->warn("{}", w);
  return std::move(loaded->config);
}

namespace {
std::string describe_backend(const config::StorageBackendConfig& b) {
  switch (b.type) {
    case config::StorageType::kFilesystem:
      return "filesystem " + b.path;
    case config::StorageType::kInMemory:
      return "in_memory";
    case config::StorageType::kS3:
      break;
  }
  std::string out = "s3 bucket " + b.bucket + ", region " + b.region + ", endpoint " +
                    (b.endpoint_url.empty() ? "AWS's" : b.endpoint_url) +
                    (b.force_path_style ? ", path-style" : ", virtual-hosted");
  if (!b.prefix.empty()) out += ", prefix " + b.prefix;
  return out;
}
}  // namespace

void describe_storage(const config::StorageConfig& s, std::ostream& out) {
  if (s.shape == config::StorageShape::kSingle && s.backends.size() == 1) {
    out << "storage one backend: " << describe_backend(s.backends.front()) << "\n";
    return;
  }
  out << "storage default " << s.default_backend;
  for (const auto& b : s.backends) out << "; " << b.name << ": " << describe_backend(b);
  out << "\n";
}

std::string proxy_only_line(const std::vector<std::string>& proxy_only) {
  std::string out = "read by the proxy, not by this worker:";
  for (std::size_t i = 0; i < proxy_only.size(); ++i) out += (i == 0 ? " " : ", ") + proxy_only[i];
  return out;
}

Expected<std::unique_ptr<core::ScanQueue>, std::string> open_queue(const config::Config& c) {
  const std::string& url = c.database.url;
  if (!url.empty()) {
    auto q = adapters::open_postgres_queue(url);
    if (!q) return Unexpected(q.error().message);
    return std::move(*q);
  }
  const std::string& dir = c.worker.state_dir;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Unexpected("state_dir " + dir + " cannot be created: " + std::strerror(errno));
  }
  auto q = adapters::open_sqlite_queue(dir + "/queue.sqlite3");
  if (!q) return Unexpected(q.error().message);
  return std::move(*q);
}

std::optional<core::SecurityPolicy> registry_policy(const config::Config& c, const std::string& registry) {
  const config::RegistrySecurity* r = c.find_security(registry);
  if (r == nullptr) return std::nullopt;
  using P = core::SecurityPolicy;
  P p;
  p.mode = r->mode == "warn" ? P::Mode::kWarn : P::Mode::kBlock;
  if (auto sev = core::parse_severity(r->max_severity); sev && core::to_string(*sev) == r->max_severity) {
    p.max_severity = *sev;
  }
  p.deny_install_hooks = r->deny_install_hooks == "deny"     ? P::InstallHooks::kDeny
                         : r->deny_install_hooks == "ignore" ? P::InstallHooks::kIgnore
                                                             : P::InstallHooks::kWarn;
  p.scanner_error = r->scanner_error == "warn"     ? P::ScannerErrors::kWarn
                    : r->scanner_error == "ignore" ? P::ScannerErrors::kIgnore
                                                   : P::ScannerErrors::kQuarantine;
  p.required_scanners = r->required_scanners;
  // Upstream floors the age rule at an hour (upstream-today.md §5.3).
  p.min_age_secs = std::max<std::int64_t>(r->min_age_secs, 3600);
  p.hold_missing_timestamp = r->hold_missing_timestamp;
  p.mature_age_secs = std::max<std::int64_t>(r->mature_age_secs, 0);
  p.require_provenance = r->require_provenance;
  for (const auto& sc : c.scanners) {
    if (!sc.escalation) continue;
    core::Escalation e;
    for (const auto& k : sc.escalation->kinds) {
      if (auto kind = core::parse_finding_kind(k)) e.kinds.push_back(*kind);
    }
    e.count = sc.escalation->count;
    e.from = sc.escalation->from;
    e.to = sc.escalation->to;
    p.escalations[sc.name] = std::move(e);
  }
  return p;
}

bool drops_jobs(const config::Config& c, const std::string& registry) {
  return c.find_registry(registry) != nullptr && c.find_security(registry) == nullptr;
}

std::string unservable_because(const config::Config& c, const config::RegistrySecurity& r) {
  for (const auto& name : r.required_scanners) {
    // Upstream's osv exists without a table (upstream-today.md §5.2): build_network_scanners
    // makes it at its defaults.
    if (c.find_scanner(name) != nullptr || name == "osv") continue;
    return "it requires scanner '" + name +
           "', which no [scanners] table declares: its versions would stay SCAN_PENDING";
  }
  if (r.require_provenance) {
    const bool sigstore = std::any_of(c.scanners.begin(), c.scanners.end(),
                                      [](const auto& s) { return s.type == config::ScannerType::kSigstore; });
    if (!sigstore) {
      return "it requires provenance (require_provenance = true), which a sigstore scanner checks, and no "
             "[scanners] table of type sigstore is declared";
    }
  }
  return "";
}

Expected<std::string, std::string> served_registries(const config::Config& c) {
  const auto& listed = c.worker.registries;
  std::string line;
  auto describe = [&](const std::string& name) {
    const config::RegistryEntry* entry = c.find_registry(name);
    std::string policy;
    if (const config::RegistrySecurity* s = c.find_security(name)) {
      for (const auto& r : s->required_scanners) policy += (policy.empty() ? "" : ", ") + r;
      policy = policy.empty() ? "requires no scanner" : "requires " + policy;
    } else {
      policy = entry != nullptr ? "no security table: its jobs are dropped, as upstream drops them"
                                : "no security table: batlehub scan's defaults";
    }
    return name + " (" + (entry != nullptr ? entry->type : "not among [[registries]]") + "; " + policy + ")";
  };
  for (const auto& s : c.security_registries) {
    if (!listed.empty() && std::find(listed.begin(), listed.end(), s.registry) == listed.end()) continue;
    if (auto why = unservable_because(c, s); !why.empty()) {
      return Unexpected("registry '" + s.registry + "' (" + s.key + ") cannot be served by this worker: " + why +
                        (listed.empty() ? ". [worker] registries is empty, so this worker would lease every registry: "
                                          "list the ones it serves, and leave the rest to upstream's worker"
                                        : ". Remove it from [worker] registries and leave it to upstream's worker"));
    }
  }
  if (listed.empty()) {
    for (const auto& s : c.security_registries) line += (line.empty() ? "" : ", ") + describe(s.registry);
    return "serving every registry in the queue" + (line.empty() ? std::string() : ": " + line);
  }
  for (const auto& name : listed) line += (line.empty() ? "" : ", ") + describe(name);
  return "serving " + line;
}

std::string spool_dir(const config::Config& c) {
  return c.worker.state_dir + "/spool";
}

}  // namespace batlehub::server
