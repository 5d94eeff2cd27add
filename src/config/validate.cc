// The rules a parsed configuration must satisfy: the value ranges, and every rule of
// RFC 0022 §4.3. docs/configuration.md lists each one with its message; keep the two in
// step.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "config/text.h"
#include "wire/caps.h"
#include "wire/manifest.h"

namespace batlehub::config {
namespace {

struct Refusal {
  ConfigError error;
};

// Upper bounds. Where the wire bounds a value (manifest.cc), a config that loads must
// never produce a manifest the agent refuses, so the bound here is the wire's; elsewhere
// it only keeps arithmetic on seconds and counts far from overflow.
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxMemoryLimitMb = std::int64_t{1} << 30;  // manifest limits.memory_limit_mb
constexpr std::int64_t kMaxCpuSeconds = std::int64_t{1} << 31;     // manifest limits.cpu_seconds
// manifest extract_policy.max_extracted_bytes ≤ kMaxInputBytes × 64, in MiB
constexpr std::int64_t kMaxExtractedMb = static_cast<std::int64_t>(wire::kMaxInputBytes * 64 / wire::kMiB);
constexpr std::int64_t kMaxEntries = 10'000'000;  // manifest extract_policy.max_entries
constexpr std::int64_t kMaxRunSeconds = static_cast<std::int64_t>(wire::kMaxTimeoutMs / 1000);  // manifest timeout_ms

constexpr std::array<std::string_view, 3> kEcosystems = {"npm", "pypi", "go"};
// FindingKind, snake_case (upstream crates/core/src/entities/security.rs).
constexpr std::array<std::string_view, 15> kFindingKinds = {
    "vulnerability", "malware_signal", "install_hook",  "provenance", "signature",
    "license",       "publisher",      "typosquat",     "transition", "age",
    "pending",       "soc_verdict",    "scanner_error", "block_list", "ref"};
// Every key the proxy reads carries one of these namespaces (RFC 0022 §4.3, §7).
constexpr std::array<std::string_view, 3> kProxyNamespaces = {"artifact:", "local:", "meta:"};

template <std::size_t N>
std::string list_of(const std::array<std::string_view, N>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

template <std::size_t N>
bool one_of(std::string_view v, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), v) != names.end();
}

std::string runtime_name(std::string_view r) {
  return "'" + std::string(r) + "'";
}

// "oci and kubernetes": the registered runtimes that read a scanner's `image`.
std::string image_runtime_names() {
  std::vector<std::string> names;
  for (const RuntimeSchema* r : runtime_schemas()) {
    if (r->image_runtime) names.push_back(r->name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

class Validator {
 public:
  Validator(const Config& c, const Env& env, const Origin& origin) : c_(c), env_(env), origin_(origin) {}

  std::vector<std::string> run() {
    worker();
    runtime();
    sandbox_values();
    bundle_prefix();
    storage();
    bundle_backend_rules();
    runtime_in_use();
    memory_backed_work();
    for (const auto& s : c_.scanners) scanner(s);
    inert_tables();
    registry_tables();
    return std::move(warnings_);
  }

 private:
  [[noreturn]] void refuse(const std::string& key, std::string message) const {
    throw Refusal{ConfigError{origin_.file, origin_.line_of(key), key, std::move(message)}};
  }
  void warn(const std::string& key, std::string message) {
    warnings_.push_back(ConfigError{origin_.file, origin_.line_of(key), key, std::move(message)}.describe());
  }

  // The runtimes' rules and these are worded by the one TableCheck.
  void range(const std::string& key, std::int64_t v, std::int64_t lo, std::int64_t hi, std::string_view why = "") {
    check_.range(key, v, lo, hi, why);
  }

  // An API's base: http(s)://host[:port][/path], nothing after it ("" = the default).
  void api_url(const std::string& key, const std::string& v) {
    if (v.empty()) return;
    const bool scheme = v.starts_with("https://") || v.starts_with("http://");
    const std::size_t host = v.find("://") + 3;
    if (!scheme || host >= v.size() || v[host] == '/' || v.find_first_of("?#@ ") != std::string::npos) {
      const std::string name = key.substr(key.find_last_of('.') + 1);
      refuse(key, name + " = " + quoted(v) + " is not an http(s)://host[:port][/path] base URL");
    }
  }

  void not_empty(const std::string& key, const std::string& v) { check_.not_empty(key, v); }

  void worker() {
    const WorkerConfig& w = c_.worker;
    range("worker.max_concurrent", w.max_concurrent, 1, kInt32Max);
    range("worker.job_timeout_secs", w.job_timeout_secs, 1, kMaxRunSeconds,
          "24 hours, the longest timeout a run's manifest carries");
    range("worker.max_attempts", w.max_attempts, 1, kInt32Max);
    range("worker.pool_slots", w.pool_slots, 0, 1024);
    range("worker.shutdown_grace_secs", w.shutdown_grace_secs, 0, kMaxRunSeconds);
    if (w.state_dir.empty() || w.state_dir.front() != '/') {
      refuse("worker.state_dir", "state_dir = " + quoted(w.state_dir) + " must be an absolute path");
    }
    range("server.port", c_.server.port, 0, 65535);
    if (c_.server.host.empty()) refuse("server.host", "host must not be empty (\"127.0.0.1\", \"0.0.0.0\", …)");
    for (std::size_t i = 0; i < w.registries.size(); ++i) {
      if (w.registries[i].empty()) {
        refuse("worker.registries[" + std::to_string(i) + "]", "a registry name must not be empty");
      }
    }
  }

  // The runtime is a registered one by now when the config was loaded from a file; a Config
  // built in code may still name another.
  void runtime() {
    const std::string& name = c_.worker.sandbox.runtime;
    if (find_runtime_schema(name) == nullptr) {
      refuse("worker.sandbox.runtime", "runtime = " + quoted(name) + " is not one of " + runtime_names());
    }
  }

  // The rules a runtime's registration applies when it is the one in use (RFC 0018's rule for
  // none, oci's storage_network), after every rule of [worker.sandbox] and [storage].
  void runtime_in_use() {
    const RuntimeSchema* r = find_runtime_schema(c_.worker.sandbox.runtime);
    if (r != nullptr && r->check_in_use) r->check_in_use(c_.worker.sandbox, check_);
  }

  // Each entry becomes a manifest canary, so the wire's rule is the rule here; the two the
  // runtime adds itself (its own listener on loopback and on the host's address) leave room
  // under the manifest's bound.
  void probe_canaries(const std::vector<std::string>& canaries) {
    const std::string key = "worker.sandbox.probe_canaries";
    if (canaries.size() > wire::kMaxProbeCanaries - 2) {
      refuse(key, "probe_canaries lists " + std::to_string(canaries.size()) + " addresses; at most " +
                      std::to_string(wire::kMaxProbeCanaries - 2) + " fit beside the worker's own two");
    }
    for (std::size_t i = 0; i < canaries.size(); ++i) {
      if (!wire::is_canary_address(canaries[i])) {
        refuse(key + "[" + std::to_string(i) + "]",
               "probe canary " + quoted(canaries[i]) +
                   " is not an address and a port (\"a.b.c.d:port\" or \"[v6]:port\"): a canary is an address, "
                   "never a name, because a sandbox may be allowed its resolver");
      }
    }
  }

  void sandbox_values() {
    const SandboxConfig& s = c_.worker.sandbox;
    range("worker.sandbox.memory_limit_mb", s.memory_limit_mb, 1, kMaxMemoryLimitMb);
    range("worker.sandbox.cpu_seconds", s.cpu_seconds, 1, kMaxCpuSeconds);
    range("worker.sandbox.max_extracted_mb", s.max_extracted_mb, 1, kMaxExtractedMb);
    range("worker.sandbox.max_entries", s.max_entries, 1, kMaxEntries);
    range("worker.sandbox.start_timeout_secs", s.start_timeout_secs, 1, kInt32Max);
    range("worker.sandbox.probe_interval_secs", s.probe_interval_secs, 1, kInt32Max);
    range("worker.sandbox.bundle_ttl_secs", s.bundle_ttl_secs, 1, kInt32Max);
    probe_canaries(s.probe_canaries);
    if (s.rooms_dir.empty() || s.rooms_dir.front() != '/') {
      refuse("worker.sandbox.rooms_dir", "rooms_dir = " + quoted(s.rooms_dir) +
                                             " must be an absolute path (bwrap's root for a scanner is "
                                             "<rooms_dir>/<scanner name>)");
    }
    // Each table the file has, by its own runtime's rules, whichever runtime is in use.
    for (const RuntimeSchema* r : runtime_schemas()) {
      if (r->check && s.tables.has(r->name)) r->check(s, check_);
    }
  }

  // One path segment with a trailing '/', and never a prefix the proxy reads (§4.3, §7).
  void bundle_prefix() {
    const std::string key = "worker.sandbox.bundle_prefix";
    const std::string& p = c_.worker.sandbox.bundle_prefix;
    const std::string shown = "bundle_prefix = " + quoted(p);
    constexpr std::string_view kWhy = "; what the sandbox writes must never share a prefix with a key the proxy reads";
    for (auto ns : kProxyNamespaces) {
      if (p.compare(0, ns.size(), ns) == 0) {
        refuse(key, shown + " starts with '" + std::string(ns) + "', one of the proxy's key namespaces (" +
                        list_of(kProxyNamespaces) + ")" + std::string(kWhy));
      }
    }
    if (p == "blob/") {
      refuse(key, shown + " is where the deduplicating storage router keeps its blobs" + std::string(kWhy));
    }
    const std::string_view segment = std::string_view(p).substr(0, p.empty() ? 0 : p.size() - 1);
    const bool one_segment = !segment.empty() && p.back() == '/' && segment.find('/') == std::string_view::npos &&
                             segment != "." && segment != ".." &&
                             std::none_of(segment.begin(), segment.end(), [](char ch) {
                               return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f || ch == '\\';
                             });
    if (!one_segment) refuse(key, shown + " must be one path segment with a trailing '/', like \"sandbox/\"");
  }

  void storage() {
    const StorageConfig& st = c_.storage;
    if (st.shape == StorageShape::kMulti && st.backends.empty()) {
      refuse("storage.default",
             "default = " + quoted(st.default_backend) + " names no backend: [[storage.backends]] declares none");
    }
    if (st.find(st.default_backend) == nullptr) {
      refuse("storage.default",
             "storage default '" + st.default_backend +
                 "' does not match any backend name in [[storage.backends]]; declared: " + declared_backends());
    }
    for (std::size_t i = 0; i < st.backends.size(); ++i) {
      const StorageBackendConfig& b = st.backends[i];
      const std::string base = backend_key(st, i);
      switch (b.type) {
        case StorageType::kFilesystem:
          not_empty(join_key(base, "path"), b.path);
          break;
        case StorageType::kS3:
          not_empty(join_key(base, "bucket"), b.bucket);
          not_empty(join_key(base, "region"), b.region);
          s3_backend(base, b);
          break;
        case StorageType::kInMemory:
          break;
      }
    }
    registry_routes();
  }

  // A registry's `storage = "<name>"` (A.4), with upstream's two messages.
  void registry_routes() {
    const StorageConfig& st = c_.storage;
    for (const auto& r : c_.registries) {
      if (r.storage.empty()) continue;
      const std::string key = join_key(r.key, "storage");
      const std::string shown = "'storage = \"" + r.storage + "\"'";
      if (st.shape == StorageShape::kSingle && r.storage != "default") {
        refuse(key, "registry '" + r.name + "': " + shown +
                        " requires a multi-backend [[storage.backends]] configuration; single-backend storage has no "
                        "named backends to select");
      }
      if (st.shape == StorageShape::kMulti && st.find(r.storage) == nullptr) {
        refuse(key, "registry '" + r.name + "': " + shown +
                        " does not match any backend name in [[storage.backends]]; declared: " + declared_backends());
      }
    }
  }

  // What the S3 backend needs to sign and reach its endpoint, checked now rather than at
  // the first request.
  void s3_backend(const std::string& base, const StorageBackendConfig& b) {
    const std::string& url = b.endpoint_url;
    const bool https = url.rfind("https://", 0) == 0;
    const bool http = url.rfind("http://", 0) == 0;
    if (!url.empty() && !https && !http) {
      refuse(join_key(base, "endpoint_url"),
             "endpoint_url = " + quoted(url) + " must start with https:// (or http:// for a peer on this host)");
    }
    if (const auto scheme_end = url.find("://"); (https || http) &&
                                                 url.find_first_of("/?#", scheme_end + 3) != std::string::npos &&
                                                 url.find_first_of("/?#", scheme_end + 3) != url.size() - 1) {
      refuse(join_key(base, "endpoint_url"),
             "endpoint_url = " + quoted(url) +
                 " must be a scheme and an authority only, like \"https://s3.example:9000\"; "
                 "the bucket is its own key and a key prefix is `prefix`");
    }
    const bool valid_bucket =
        b.bucket.size() >= 3 && b.bucket.size() <= 63 && std::all_of(b.bucket.begin(), b.bucket.end(), [](char ch) {
          return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
        });
    if (!b.bucket.empty() && !valid_bucket) {
      refuse(join_key(base, "bucket"),
             "bucket = " + quoted(b.bucket) + " is not an S3 bucket name (3-63 characters: a-z, 0-9, '-', '.')");
    }
    if (!b.ca_file.empty() && http) {
      refuse(join_key(base, "ca_file"),
             "ca_file is read for an https:// endpoint only; endpoint_url is " + quoted(url));
    }
  }

  std::string declared_backends() const {
    if (c_.storage.backends.empty()) return "none";
    std::string out;
    for (const auto& b : c_.storage.backends) {
      if (!out.empty()) out += ", ";
      out += b.name;
    }
    return out;
  }

  // bundle_backend must be declared; the storage transport needs it to presign (§4.3).
  void bundle_backend_rules() {
    const SandboxConfig& s = c_.worker.sandbox;
    if (!s.bundle_backend.empty() && c_.storage.find(s.bundle_backend) == nullptr) {
      refuse("worker.sandbox.bundle_backend", "bundle_backend = " + quoted(s.bundle_backend) +
                                                  " names no backend of [storage]; declared: " + declared_backends());
    }
    if (!uses_storage_transport(s)) return;
    const StorageBackendConfig* b = bundle_backend(c_);
    if (b == nullptr) return;  // refused in storage()
    if (can_presign(b->type)) return;
    const std::string who = find_runtime_schema(s.runtime)->storage_transport(s).value_or(s.runtime);
    refuse(s.bundle_backend.empty() ? "worker.sandbox.runtime" : "worker.sandbox.bundle_backend",
           who + " moves bundles through the storage backend and '" + std::string(to_string(b->type)) +
               "' cannot presign a URL; configure an S3-compatible backend, or name one in bundle_backend "
               "(bundle backend: '" +
               b->name + "')");
  }

  // On the image runtimes /work is memory-backed and charged to the memory limit (§4.2).
  void memory_backed_work() {
    const SandboxConfig& s = c_.worker.sandbox;
    if (!is_image_runtime(s.runtime) || s.max_extracted_mb < s.memory_limit_mb) return;
    refuse("worker.sandbox.max_extracted_mb",
           "max_extracted_mb = " + std::to_string(s.max_extracted_mb) + " is not below memory_limit_mb = " +
               std::to_string(s.memory_limit_mb) + ": under runtime " + runtime_name(s.runtime) +
               " /work is memory-backed and charged to the same limit, so the scanner would have no memory left "
               "once the extraction filled it");
  }

  static bool valid_scanner_name(std::string_view n) {
    auto alnum = [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    };
    if (n.empty() || n.size() > 63 || !alnum(n.front()) || !alnum(n.back())) return false;
    return std::all_of(n.begin(), n.end(), [&](char ch) { return alnum(ch) || ch == '_' || ch == '-'; });
  }

  void scanner(const ScannerConfig& s) {
    const std::string base = join_key("scanners", s.name);
    const std::string who = quoted(s.name, '\'');
    if (!valid_scanner_name(s.name)) {
      refuse(base, "scanner name " + who +
                       " must be 1 to 63 characters among A-Z, a-z, 0-9, '_' and '-', beginning and ending with a "
                       "letter or a digit: it names the scanner's room (<rooms_dir>/<name>) and labels its sandboxes");
    }
    const std::string& runtime = c_.worker.sandbox.runtime;
    switch (s.type) {
      case ScannerType::kPostmortem:
      case ScannerType::kGuarddog:
      case ScannerType::kTrivy:
      case ScannerType::kSignals:
        not_empty(join_key(base, "command"), s.command);
        break;
      case ScannerType::kBehavior:
        not_empty(join_key(base, "command"), s.command);
        // The one scanner that runs the package's own code: never without walls.
        if (runtime == "none") {
          refuse(join_key(base, "type"),
                 "a behavior scanner runs the package's install and import, which only a sandbox may do: it is "
                 "refused under the none runtime (use bwrap, oci or kubernetes)");
        }
        for (auto [key, v] : {std::pair{"install_timeout_secs", s.install_timeout_secs},
                              {"import_timeout_secs", s.import_timeout_secs}}) {
          if (v < 1 || v > 3600) refuse(join_key(base, key), std::string(key) + " must be 1 to 3600 seconds");
        }
        break;
      case ScannerType::kYara:
        not_empty(join_key(base, "command"), s.command);
        yara_rules(base, s);
        break;
      case ScannerType::kSocket:
        // Upstream's schema has api_key optional and its validation requires it.
        if (s.api_key.empty()) {
          refuse(join_key(base, "api_key"), "api_key is required for a socket scanner (socket.dev's API key)");
        }
        api_url(join_key(base, "api_url"), s.api_url);
        break;
      case ScannerType::kOsv:
        api_url(join_key(base, "api_url"), s.api_url);
        if (s.on_outage != "clean" && s.on_outage != "error") {
          refuse(join_key(base, "on_outage"),
                 "on_outage = " + quoted(s.on_outage) +
                     " is not one of \"clean\" (upstream's: an outage is no advisory, logged and counted) and "
                     "\"error\" (the scanner's error, judged by the registry's scanner_error)");
        }
        break;
      case ScannerType::kMlab:
        api_url(join_key(base, "api_url"), s.api_url);
        break;
      case ScannerType::kSigstore:
        api_url(join_key(base, "rekor_url"), s.rekor_url);
        for (const auto& kind : s.require_for) {
          // Upstream's kinds are more than this worker scans (deb, rpm…): not refused, said.
          if (!core::parse_package_kind(kind)) {
            warn(join_key(base, "require_for"),
                 "require_for names " + quoted(kind) +
                     ", which is not a kind this worker scans (npm, pypi, cargo, rubygems, composer, goproxy, maven, "
                     "nuget, conda): it is ignored here");
          }
        }
        break;
    }
    if (!runs_in_sandbox(s.type)) {
      range(join_key(base, "timeout_secs"), s.timeout_secs, 1, kMaxRunSeconds);
      if (!s.ca_file.empty() && !s.ca_file.starts_with('/')) {
        refuse(join_key(base, "ca_file"), "ca_file = " + quoted(s.ca_file) + " must be an absolute path");
      }
    }
    if (s.type == ScannerType::kGuarddog) {
      for (std::size_t i = 0; i < s.ecosystems.size(); ++i) {
        if (!one_of(s.ecosystems[i], kEcosystems)) {
          refuse(join_key(base, "ecosystems") + "[" + std::to_string(i) + "]",
                 "ecosystems[" + std::to_string(i) + "] = " + quoted(s.ecosystems[i]) + " is not one of " +
                     list_of(kEcosystems));
        }
      }
    }
    if (s.type == ScannerType::kTrivy) {
      range(join_key(base, "timeout_secs"), s.timeout_secs, 1, kMaxRunSeconds,
            "24 hours, the longest timeout a run's manifest carries");
    }
    if (s.escalation) escalation(base, *s.escalation);

    if (!runs_in_sandbox(s.type)) return;
    if (!s.image.empty() && !is_image_runtime(runtime)) {
      refuse(join_key(base, "image"), "image on scanner " + who + " has no effect under runtime " +
                                          runtime_name(runtime) + "; it is read by the " + image_runtime_names() +
                                          " runtimes");
    }
    if (is_image_runtime(runtime) && image_for(c_, s, env_).empty()) {
      const std::string table = "[worker.sandbox." + runtime + "]";
      refuse(join_key(base, "image"), "scanner " + who + " has no image to run from under runtime " +
                                          runtime_name(runtime) + ": set image on the scanner or in " + table +
                                          " (or BATLEHUB_IMAGE in the worker's environment) to an image made "
                                          "like its room: the scanner and the agent, no shell, no batlehub");
    }
  }

  // rules (ours, a file) or rules_dir (upstream's, a directory): one of them, absolute, on
  // the worker host; the worker reads it and ships the bytes, the sandbox never sees the path.
  void yara_rules(const std::string& base, const ScannerConfig& s) {
    if (!s.rules.empty() && !s.rules_dir.empty()) {
      refuse(join_key(base, "rules_dir"), "rules and rules_dir are both set: name a rules file or a directory of them");
    }
    if (!s.rules_dir.empty()) {
      if (s.rules_dir.front() != '/') {
        refuse(join_key(base, "rules_dir"),
               "rules_dir = " + quoted(s.rules_dir) +
                   " must be an absolute path on the worker host (the worker reads its *.yar and *.yara files and "
                   "ships their bytes in the bundle)");
      }
      return;
    }
    if (s.rules.empty() || s.rules.front() != '/') {
      refuse(join_key(base, "rules"),
             "rules = " + quoted(s.rules) +
                 " must be an absolute path on the worker host (the worker reads the file and ships its bytes "
                 "in the bundle)");
    }
  }

  void escalation(const std::string& base, const Escalation& e) {
    const std::string key = join_key(base, "escalation");
    if (e.kinds.empty()) refuse(join_key(key, "kinds"), "kinds must name at least one finding kind");
    for (std::size_t i = 0; i < e.kinds.size(); ++i) {
      if (!one_of(e.kinds[i], kFindingKinds)) {
        refuse(join_key(key, "kinds") + "[" + std::to_string(i) + "]",
               "kinds[" + std::to_string(i) + "] = " + quoted(e.kinds[i]) + " is not a finding kind (one of " +
                   list_of(kFindingKinds) + ")");
      }
    }
    range(join_key(key, "count"), e.count, 1, kInt32Max);
  }

  // A table for another runtime is inert: a warning, not a refusal (§4.3). Unless the runtime
  // in use reads some of its keys too (its registration's also_reads: oci's sweep reads
  // [worker.sandbox.kubernetes] orphan_after_secs): a table that sets only those is read, and
  // one that sets more says which are.
  void inert_tables() {
    const SandboxConfig& s = c_.worker.sandbox;
    const RuntimeSchema* in_use = find_runtime_schema(s.runtime);
    for (const RuntimeSchema* r : runtime_schemas()) {
      if (r->name == s.runtime || !s.tables.has(r->name)) continue;
      std::vector<std::string> read_too;
      if (in_use != nullptr) {
        for (const auto& [table, key] : in_use->also_reads) {
          if (table == r->name) read_too.push_back(key);
        }
      }
      const std::vector<std::string> set = s.tables.keys_of(r->name);
      const bool only_read_too = !set.empty() && std::all_of(set.begin(), set.end(), [&](const std::string& k) {
        return std::find(read_too.begin(), read_too.end(), k) != read_too.end();
      });
      if (only_read_too) continue;
      std::string but;
      for (std::size_t i = 0; i < read_too.size(); ++i) {
        but += (i == 0 ? " but for " : ", ") + read_too[i];
      }
      if (!but.empty()) but += ", which " + s.runtime + "'s sweep reads too";
      warn("worker.sandbox." + r->name,
           "[worker.sandbox." + r->name + "] has no effect under runtime " + runtime_name(s.runtime) + but +
               (but.empty() ? "; it is" : "; the rest is") + " read by the " + r->name + " runtime only");
    }
  }

  // What each registry's security table asks of the scanners, said once at start: a
  // spelling upstream refuses, and mlab made a required scanner (it makes no finding of its
  // own: upstream's config warns the same).
  void registry_tables() {
    for (const auto& r : c_.security_registries) {
      auto spelled = [&](std::string_view k, const std::string& v, std::initializer_list<std::string_view> ok) {
        if (std::find(ok.begin(), ok.end(), v) != ok.end()) return;
        std::string list;
        for (auto o : ok) list += (list.empty() ? "" : ", ") + std::string(o);
        warn(join_key(r.key, k), quoted(v, '"') + " is not one of " + list +
                                     ": upstream refuses this file, and this worker judges by the default instead");
      };
      spelled("mode", r.mode, {"block", "warn"});
      spelled("max_severity", r.max_severity, {"unknown", "low", "medium", "high", "critical"});
      spelled("deny_install_hooks", r.deny_install_hooks, {"deny", "warn", "ignore"});
      spelled("scanner_error", r.scanner_error, {"quarantine", "warn", "ignore"});
      for (const auto& name : r.required_scanners) {
        const ScannerConfig* s = c_.find_scanner(name);
        if (s != nullptr && s->type == ScannerType::kMlab) {
          warn(join_key(r.key, "required_scanners"),
               "registry " + quoted(r.registry, '\'') + " requires scanner " + quoted(name, '\'') +
                   " (type mlab), which enriches the findings of others and makes none of its own: an mlab "
                   "outage would hold every version SCAN_PENDING");
        }
      }
    }
  }

  // How a runtime's registration refuses and warns: as the validator does, with the line.
  class Check final : public TableCheck {
   public:
    explicit Check(Validator& v) : v_(v) {}
    [[noreturn]] void refuse(const std::string& key, std::string message) override {
      v_.refuse(key, std::move(message));
    }
    void warn(const std::string& key, std::string message) override { v_.warn(key, std::move(message)); }
    const core::Env& env() const override { return v_.env_; }

   private:
    Validator& v_;
  };

  const Config& c_;
  const Env& env_;
  const Origin& origin_;
  std::vector<std::string> warnings_;
  Check check_{*this};
};

}  // namespace

Expected<std::vector<std::string>, ConfigError> validate(const Config& c, const Env& env, const Origin& origin) {
  try {
    return Validator(c, env, origin).run();
  } catch (const Refusal& r) {
    return Unexpected(r.error);
  }
}

}  // namespace batlehub::config
