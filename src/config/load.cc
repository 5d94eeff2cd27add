// Reading the TOML: every key under [worker], [scanners] and [storage] is asked for by
// name, with its type; whatever is left over in a table is an unknown key and refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "base/file.h"
#include "config/config.h"
#include "config/expand.h"
#include "config/text.h"
#include "config/toml_reader.h"

namespace batlehub::config {
namespace {

using namespace toml_reader;

constexpr std::array kScannerTypes = {ScannerType::kPostmortem, ScannerType::kGuarddog, ScannerType::kTrivy,
                                      ScannerType::kYara,       ScannerType::kSignals,  ScannerType::kBehavior,
                                      ScannerType::kOsv,        ScannerType::kMlab,     ScannerType::kSigstore,
                                      ScannerType::kSocket};
constexpr std::array kSeverities = {Severity::kLow, Severity::kMedium, Severity::kHigh, Severity::kCritical};
constexpr std::array kStorageTypes = {StorageType::kFilesystem, StorageType::kS3, StorageType::kInMemory};

// A runtime's registration reads its own table through this (config/runtime_table.h).
class RuntimeTableReader final : public TableReader {
 public:
  explicit RuntimeTableReader(Table& t) : t_(t) {}
  std::optional<std::string> str(std::string_view key) override { return t_.str(key); }
  std::optional<std::int64_t> integer(std::string_view key) override { return t_.integer(key); }
  std::optional<bool> boolean(std::string_view key) override { return t_.boolean(key); }
  std::optional<std::vector<std::string>> strings(std::string_view key) override { return t_.strings(key); }
  std::optional<std::map<std::string, std::string>> string_map(std::string_view key) override {
    return t_.string_map(key);
  }
  std::optional<std::string> one_of(std::string_view key, const std::vector<std::string_view>& names) override {
    std::string listed;
    for (auto n : names) listed += (listed.empty() ? "" : ", ") + std::string(n);
    return t_.one_of(key, names, listed);
  }

 private:
  Table& t_;
};

void read_sandbox(Loader& l, Table t, SandboxConfig& out) {
  std::vector<std::string_view> runtimes;
  for (const RuntimeSchema* r : runtime_schemas()) runtimes.push_back(r->name);
  if (auto v = t.one_of("runtime", runtimes, runtime_names())) out.runtime = *v;
  if (auto v = t.integer("memory_limit_mb")) out.memory_limit_mb = *v;
  if (auto v = t.integer("cpu_seconds")) out.cpu_seconds = *v;
  if (auto v = t.integer("max_extracted_mb")) out.max_extracted_mb = *v;
  if (auto v = t.integer("max_entries")) out.max_entries = *v;
  if (auto v = t.integer("start_timeout_secs")) out.start_timeout_secs = *v;
  if (auto v = t.integer("probe_interval_secs")) out.probe_interval_secs = *v;
  if (auto v = t.strings("probe_canaries")) out.probe_canaries = *v;
  if (auto v = t.boolean("accept_per_process_limits")) out.accept_per_process_limits = *v;
  if (auto v = t.boolean("require_landlock")) out.require_landlock = *v;
  if (auto v = t.str("bundle_backend")) out.bundle_backend = *v;
  if (auto v = t.str("bundle_prefix")) out.bundle_prefix = *v;
  if (auto v = t.integer("bundle_ttl_secs")) out.bundle_ttl_secs = *v;
  if (auto v = t.str("rooms_dir")) out.rooms_dir = *v;
  // Each registered runtime reads its own table; a table no runtime claims is an unknown key.
  for (const RuntimeSchema* r : runtime_schemas()) {
    if (!r->read) continue;
    const toml::table* sub = t.table(r->name);
    if (sub == nullptr) continue;
    Table table(l, *sub, t.key_path(r->name));
    RuntimeTableReader reader(table);
    r->read(reader, out.tables);
    if (!out.tables.has(r->name)) {
      l.refuse(table.line(), t.key_path(r->name), "the " + r->name + " runtime's registration did not keep its table");
    }
    out.tables.set_keys(r->name, table.keys_in_file());
    table.finish();
  }
  t.finish();
}

void read_worker(Loader& l, Table t, WorkerConfig& out) {
  if (auto v = t.integer("max_concurrent")) out.max_concurrent = *v;
  if (auto v = t.integer("job_timeout_secs")) out.job_timeout_secs = *v;
  if (auto v = t.integer("max_attempts")) out.max_attempts = *v;
  if (auto v = t.strings("registries")) out.registries = *v;
  if (auto v = t.str("state_dir")) out.state_dir = *v;
  if (auto v = t.integer("pool_slots")) out.pool_slots = *v;
  if (auto v = t.integer("shutdown_grace_secs")) out.shutdown_grace_secs = *v;
  if (const auto* s = t.table("sandbox")) read_sandbox(l, Table(l, *s, t.key_path("sandbox")), out.sandbox);
  t.finish();
}

Escalation read_escalation(Table t) {
  constexpr std::string_view kWhy = "in an escalation: {kinds = [...], count = N, from = \"sev\", to = \"sev\"}";
  Escalation e;
  e.kinds = t.required_strings("kinds", kWhy);
  e.count = t.required_integer("count", kWhy);
  e.from = t.required_choice("from", kSeverities, kWhy);
  e.to = t.required_choice("to", kSeverities, kWhy);
  t.finish();
  return e;
}

ScannerConfig read_scanner(Loader& l, const std::string& name, const toml::table& tbl) {
  const std::string path = join_key("scanners", name);
  ScannerConfig s;
  s.name = name;
  // The type is read first, so that the unknown-key message can say which type it was.
  std::optional<ScannerType> type;
  {
    Table probe(l, tbl, path);
    type = probe.choice("type", kScannerTypes);
  }
  if (!type) {
    type = parse_scanner_type(name);
    if (!type) {
      l.refuse(line_of(tbl.source()), join_key(path, "type"),
               "[" + path + "] has no type, and " + quoted(name, '\'') +
                   " is not the name of a scanner type; set type = one of " + names_of(kScannerTypes));
    }
  }
  s.type = *type;
  const std::string what_type = a_or_an(to_string(s.type)) + " scanner";
  Table t(l, tbl, path, "[" + path + "] (" + what_type + ")");
  (void)t.str("type");  // already read
  const std::string why = "for " + what_type;
  switch (s.type) {
    case ScannerType::kPostmortem:
      s.command = t.required_str("command", why);
      if (auto v = t.boolean("online")) s.online = *v;
      if (auto v = t.boolean("timeline")) s.timeline = *v;
      if (auto v = t.str("image")) s.image = *v;
      break;
    case ScannerType::kGuarddog:
      s.command = t.required_str("command", why);
      if (auto v = t.strings("ecosystems")) s.ecosystems = *v;
      if (auto v = t.str("image")) s.image = *v;
      break;
    case ScannerType::kTrivy:
      s.command = "trivy";
      if (auto v = t.str("command")) s.command = *v;
      s.endpoint = t.required_str("endpoint", why + " (\"\" = a local database)");
      if (auto v = t.str("db_repository")) s.db_repository = *v;
      if (auto v = t.integer("timeout_secs")) s.timeout_secs = *v;
      if (auto v = t.str("image")) s.image = *v;
      break;
    case ScannerType::kYara: {
      s.command = "yara";
      if (auto v = t.str("command")) s.command = *v;
      // Ours is a rules file; upstream's is rules_dir. Either loads; validate() refuses both.
      auto rules = t.str("rules");
      auto rules_dir = t.str("rules_dir");
      if (!rules && !rules_dir) (void)t.required_str("rules", why + " (the path of a rules file on the worker host)");
      s.rules = rules.value_or("");
      s.rules_dir = rules_dir.value_or("");
      if (auto v = t.str("image")) s.image = *v;
      break;
    }
    case ScannerType::kSignals:
      // Ours: batlehub's own static scanner (src/signals/), no key of upstream's.
      s.command = "batlehub-signals";
      if (auto v = t.str("command")) s.command = *v;
      if (auto v = t.str("image")) s.image = *v;
      break;
    case ScannerType::kBehavior:
      // Ours: the detonation (src/behavior/), no key of upstream's.
      s.command = "batlehub-behavior";
      if (auto v = t.str("command")) s.command = *v;
      if (auto v = t.str("image")) s.image = *v;
      if (auto v = t.integer("install_timeout_secs")) s.install_timeout_secs = *v;
      if (auto v = t.integer("import_timeout_secs")) s.import_timeout_secs = *v;
      break;
    // The network scanners: upstream's keys, and ours (ca_file, timeout_secs, on_outage).
    case ScannerType::kOsv:
      if (auto v = t.str("api_url")) s.api_url = *v;
      if (auto v = t.str("on_outage")) s.on_outage = *v;
      break;
    case ScannerType::kMlab:
      if (auto v = t.str("api_key")) s.api_key = *v;
      if (auto v = t.str("api_url")) s.api_url = *v;
      break;
    case ScannerType::kSigstore:
      if (auto v = t.str("rekor_url")) s.rekor_url = *v;
      if (auto v = t.strings("require_for")) s.require_for = *v;
      break;
    case ScannerType::kSocket:
      if (auto v = t.str("api_key")) s.api_key = *v;
      if (auto v = t.str("api_url")) s.api_url = *v;
      break;
  }
  if (!runs_in_sandbox(s.type)) {
    s.timeout_secs = 30;
    if (auto v = t.str("ca_file")) s.ca_file = *v;
    if (auto v = t.integer("timeout_secs")) s.timeout_secs = *v;
  }
  if (const auto* e = t.table("escalation")) {
    s.escalation = read_escalation(Table(l, *e, t.key_path("escalation")));
  }
  t.finish();
  return s;
}

std::vector<ScannerConfig> read_scanners(Loader& l, const toml::table& t) {
  std::vector<ScannerConfig> out;
  for (const auto& [k, v] : in_file_order(t)) {
    const std::string name(k->str());
    const std::string path = join_key("scanners", name);
    out.push_back(read_scanner(l, name, as_table_or_refuse(l, *v, path)));
  }
  return out;
}

// What upstream does with a key of [storage] it does not know: nothing, silently (A.1).
constexpr std::string_view kStorageLenient = "upstream ignores it, and so does this worker";

// One backend's keys, flat in `t` (which is [storage] itself in the single shape, a
// [[storage.backends]] element in the multi shape); `type` has been read.
void read_backend_keys(Table& t, StorageBackendConfig& b) {
  const std::string why = "for " + a_or_an(to_string(b.type)) + " backend";
  switch (b.type) {
    case StorageType::kFilesystem:
      b.path = t.required_str("path", why);
      break;
    case StorageType::kS3:
      b.bucket = t.required_str("bucket", why);
      b.region = t.required_str("region", why + " (the signing region, e.g. \"us-east-1\"; upstream has no default)");
      if (auto v = t.str("prefix")) b.prefix = *v;
      if (auto v = t.str("endpoint_url")) b.endpoint_url = *v;
      if (auto v = t.boolean("force_path_style")) b.force_path_style = *v;
      if (auto v = t.str("ca_file")) b.ca_file = *v;
      break;
    case StorageType::kInMemory:
      break;
  }
}

// The keys of this worker's own [storage] spelling before it read upstream's, each with
// what replaced it: an old file is told what to write instead of "unknown key".
std::string retired_storage_key(std::string_view key) {
  if (key == "endpoint") return "endpoint_url";
  if (key == "path_style") return "force_path_style (whose default is false, as upstream's)";
  if (key == "access_key_id" || key == "secret_access_key" || key == "session_token") {
    return "the AWS default credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in the worker's environment, "
           "a shared credentials file, web identity or the container endpoint); credentials are never in the file";
  }
  return "";
}

void refuse_retired_keys(Loader& l, const toml::table& tbl, const std::string& path) {
  for (const auto& [k, v] : in_file_order(tbl)) {
    if (auto instead = retired_storage_key(k->str()); !instead.empty()) {
      l.refuse(line_of(k->source()), join_key(path, k->str()),
               "'" + std::string(k->str()) + "' is not a key of upstream's [storage]; use " + instead);
    }
  }
}

StorageType read_backend_type(Table& t, std::string_view where) {
  auto type = t.choice("type", kStorageTypes);
  if (!type) {
    t.refuse("type", "type is required " + std::string(where) + " (filesystem or s3; in_memory for tests)");
  }
  return *type;
}

// [storage], in the shape upstream would read it (A.1): `type` makes it the single shape,
// else `default` and `[[storage.backends]]` the multi shape.
StorageConfig read_storage(Loader& l, const toml::table& tbl) {
  StorageConfig out;
  out.backends.clear();
  refuse_retired_keys(l, tbl, "storage");
  if (tbl.contains("type")) {
    out.shape = StorageShape::kSingle;
    out.default_backend = "default";
    StorageBackendConfig b;
    b.name = "default";
    Table probe(l, tbl, "storage");
    b.type = read_backend_type(probe, "in [storage]");
    Table t(l, tbl, "storage", "[storage] (" + a_or_an(to_string(b.type)) + " backend)");
    (void)t.str("type");
    read_backend_keys(t, b);
    for (std::string_view multi : {"default", "backends"}) {
      auto it = tbl.find(multi);
      if (it == tbl.end()) continue;
      t.known(multi);
      l.warn(line_of(it->first.source()), join_key("storage", multi),
             "ignored: [storage] has type, so it is one backend (named \"default\") and upstream reads it so too, "
             "without a word about default and [[storage.backends]]; remove type to use named backends");
    }
    t.finish_leniently(kStorageLenient);
    out.backends.push_back(std::move(b));
    return out;
  }
  out.shape = StorageShape::kMulti;
  Table t(l, tbl, "storage", "[storage] (named backends)");
  auto def = t.str("default");
  const toml::node* backends = tbl.get("backends");
  t.known("backends");
  if (!def && backends == nullptr) {
    l.refuse(line_of(tbl.source()), "storage",
             "[storage] is neither of upstream's two shapes: give it type = \"filesystem\" or \"s3\" with that "
             "type's keys (one backend), or default = \"<name>\" with [[storage.backends]] entries");
  }
  if (!def)
    t.refuse("backends",
             "default is required with [[storage.backends]]: the name of the backend used when a registry names none");
  out.default_backend = *def;
  if (backends != nullptr) {
    const auto* arr = backends->as_array();
    if (arr == nullptr) {
      if (backends->is_table()) {
        t.refuse("backends",
                 "backends is a table here; upstream's is an array of tables: write each backend as "
                 "[[storage.backends]] with name = \"<name>\" (the [storage.backends.<name>] spelling "
                 "was this worker's own)");
      }
      l.refuse(line_of(backends->source()), "storage.backends",
               "expected an array of tables ([[storage.backends]]), not " + std::string(kind_of(*backends)));
    }
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string path = "storage.backends[" + std::to_string(i) + "]";
      const auto* bt = arr->get(i)->as_table();
      if (bt == nullptr) {
        l.refuse(line_of(arr->get(i)->source()), path,
                 "expected a table ([[storage.backends]]), not " + std::string(kind_of(*arr->get(i))));
      }
      refuse_retired_keys(l, *bt, path);
      StorageBackendConfig b;
      Table probe(l, *bt, path);
      auto name = probe.str("name");
      if (!name) {
        l.refuse(
            line_of(bt->source()), join_key(path, "name"),
            "name is required for every [[storage.backends]] entry: default and a registry's storage select by it");
      }
      b.name = *name;
      b.type = read_backend_type(probe, "for every [[storage.backends]] entry");
      Table bk(l, *bt, path, "[[storage.backends]] '" + b.name + "' (" + a_or_an(to_string(b.type)) + " backend)");
      (void)bk.str("name");
      (void)bk.str("type");
      read_backend_keys(bk, b);
      bk.finish_leniently(kStorageLenient);
      if (b.name.empty()) bk.refuse("name", "a backend's name must not be empty");
      // Upstream keeps the later of two entries with one name; so does this worker, aloud.
      auto same = std::find_if(out.backends.begin(), out.backends.end(),
                               [&](const StorageBackendConfig& o) { return o.name == b.name; });
      if (same != out.backends.end()) {
        l.warn(line_of(bt->source()), join_key(path, "name"),
               "a second backend named '" + b.name + "' replaces the first, as upstream does; give each its own name");
        out.backends.erase(same);
      }
      out.backends.push_back(std::move(b));
    }
  }
  t.finish_leniently(kStorageLenient);
  return out;
}

// The strings of an array, or nullopt when the node is not an array; anything else in it is
// skipped. [registries] is the proxy's to check, never refused here.
std::optional<std::vector<std::string>> lenient_strings(const toml::node* n) {
  const auto* a = n != nullptr ? n->as_array() : nullptr;
  if (a == nullptr) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& e : *a) {
    if (const auto* s = e.as_string()) out.push_back(s->get());
  }
  return out;
}

// One registry's security table, when it has one: the scanners its verdicts wait for.
void read_security(Loader& l, const toml::table& reg, std::string registry, const std::string& key,
                   std::vector<RegistrySecurity>& out) {
  const toml::node* sec_node = reg.get("security");
  const auto* sec = sec_node != nullptr ? sec_node->as_table() : nullptr;
  if (sec == nullptr) return;
  if (const auto* name = reg.get("name"); name != nullptr && name->is_string()) registry = name->as_string()->get();
  RegistrySecurity r;
  r.registry = std::move(registry);
  r.key = join_key(key, "security");
  l.note(r.key, line_of(sec->source()));
  for (const auto& [k, v] : *sec) l.note(join_key(r.key, k.str()), line_of(k.source()));
  if (auto v = lenient_strings(sec->get("scanners"))) r.scanners = std::move(*v);
  if (auto v = lenient_strings(sec->get("required_scanners"))) r.required_scanners = std::move(*v);
  auto integer = [&](std::string_view k, std::int64_t& into) {
    if (const auto* n = sec->get(k); n != nullptr && n->is_integer()) into = n->as_integer()->get();
  };
  auto boolean = [&](std::string_view k, bool& into) {
    if (const auto* n = sec->get(k); n != nullptr && n->is_boolean()) into = n->as_boolean()->get();
  };
  auto text = [&](std::string_view k, std::string& into) {
    if (const auto* n = sec->get(k); n != nullptr && n->is_string()) into = n->as_string()->get();
  };
  integer("mature_age_secs", r.mature_age_secs);
  integer("min_age_secs", r.min_age_secs);
  boolean("hold_missing_timestamp", r.hold_missing_timestamp);
  boolean("require_provenance", r.require_provenance);
  text("mode", r.mode);
  text("max_severity", r.max_severity);
  text("deny_install_hooks", r.deny_install_hooks);
  text("scanner_error", r.scanner_error);
  out.push_back(std::move(r));
}

// [registries]: upstream's array of tables (`[[registries]]`, each followed by its own
// `[registries.security]`), or a table of registries (`[registries.<name>.security]`).
std::vector<RegistrySecurity> security_registries(Loader& l, const toml::node& registries) {
  std::vector<RegistrySecurity> out;
  if (const auto* a = registries.as_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string key = "registries[" + std::to_string(i) + "]";
      if (const auto* reg = a->get(i)->as_table()) read_security(l, *reg, key, key, out);
    }
  } else if (const auto* t = registries.as_table()) {
    for (const auto& [k, v] : in_file_order(*t)) {
      const std::string name(k->str());
      if (const auto* reg = v->as_table()) read_security(l, *reg, name, join_key("registries", name), out);
    }
  }
  return out;
}

// Each registry's name, kind and storage backend, read as leniently as its security table.
std::vector<RegistryEntry> registry_entries(Loader& l, const toml::node& registries) {
  std::vector<RegistryEntry> out;
  auto read = [&](const toml::table& reg, std::string name, std::string key) {
    RegistryEntry e;
    auto text = [&](std::string_view k) -> std::optional<std::string> {
      const toml::node* n = reg.get(k);
      if (n == nullptr || !n->is_string()) return std::nullopt;
      l.note(join_key(key, k), line_of(n->source()));
      return n->as_string()->get();
    };
    e.name = text("name").value_or(std::move(name));
    e.type = text("type").value_or("");
    e.storage = text("storage").value_or("");
    if (const toml::node* n = reg.get("upstreams"); n != nullptr && n->is_array()) {
      l.note(join_key(key, "upstreams"), line_of(n->source()));
      for (const auto& u : *n->as_array()) {
        if (u.is_string()) e.upstreams.push_back(u.as_string()->get());
      }
    }
    e.key = std::move(key);
    out.push_back(std::move(e));
  };
  if (const auto* a = registries.as_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string key = "registries[" + std::to_string(i) + "]";
      if (const auto* reg = a->get(i)->as_table()) {
        l.note(key, line_of(reg->source()));
        read(*reg, key, key);
      }
    }
  } else if (const auto* t = registries.as_table()) {
    for (const auto& [k, v] : in_file_order(*t)) {
      if (const auto* reg = v->as_table()) read(*reg, std::string(k->str()), join_key("registries", k->str()));
    }
  }
  return out;
}

// The keys of a table this worker reads in part, other than `read`: named as the proxy's.
void name_the_rest(const toml::table& t, std::string_view table, std::initializer_list<std::string_view> read,
                   std::vector<std::string>& proxy_only) {
  for (const auto& [k, v] : in_file_order(t)) {
    if (std::find(read.begin(), read.end(), k->str()) == read.end()) proxy_only.push_back(join_key(table, k->str()));
  }
}

Config read_document(Loader& l, const toml::table& root, std::vector<std::string>& proxy_only) {
  Config c;
  bool has_storage = false;
  for (const auto& [k, v] : in_file_order(root)) {
    const std::string_view name = k->str();
    if (name == "worker") {
      read_worker(l, Table(l, as_table_or_refuse(l, *v, "worker"), "worker"), c.worker);
    } else if (name == "scanners") {
      const auto& t = as_table_or_refuse(l, *v, "scanners");
      l.note("scanners", line_of(t.source()));
      c.scanners = read_scanners(l, t);
    } else if (name == "storage") {
      has_storage = true;
      c.storage = read_storage(l, as_table_or_refuse(l, *v, "storage"));
    } else if (name == "registries") {
      c.security_registries = security_registries(l, *v);
      c.has_security_registry = !c.security_registries.empty();
      c.registries = registry_entries(l, *v);
      // Their upstreams, modes, policies and routes are the proxy's.
      proxy_only.emplace_back("registries (all but each one's name, type, storage, upstreams and security table)");
    } else if (name == "server") {
      const auto& tbl = as_table_or_refuse(l, *v, "server");
      Table t(l, tbl, "server");
      if (auto h = t.str("host")) c.server.host = *h;
      if (auto p = t.integer("port")) c.server.port = *p;
      if (auto r = t.strings("roles")) {
        for (std::size_t i = 0; i < r->size(); ++i) {
          if ((*r)[i] != "proxy" && (*r)[i] != "worker") {
            t.refuse("roles",
                     "roles[" + std::to_string(i) + "] = " + quoted((*r)[i]) + " is not a role: proxy or worker");
          }
        }
        if (r->empty()) t.refuse("roles", "roles = [] names no role; upstream refuses it too (proxy, worker, or both)");
        c.server.roles = *r;
      }
      name_the_rest(tbl, "server", {"host", "port", "roles"}, proxy_only);
    } else if (name == "database") {
      const auto& tbl = as_table_or_refuse(l, *v, "database");
      Table t(l, tbl, "database");
      if (auto u = t.str("url")) c.database.url = *u;
      if (auto ty = t.str("type"); ty && *ty != "postgres" && *ty != "postgresql") {
        t.refuse("type",
                 "type = " + quoted(*ty) + ": upstream's queue is PostgreSQL only (\"postgresql\" or \"postgres\")");
      }
      name_the_rest(tbl, "database", {"url", "type"}, proxy_only);
    } else {
      // [stats], [cache], [auth], [upstream_audit], notifications, …: the proxy's.
      proxy_only.emplace_back(v->is_table() ? "[" + std::string(name) + "]" : std::string(name));
    }
  }
  if (!has_storage) {
    l.refuse(0, "storage",
             "[storage] is missing; upstream requires it too. One backend: [storage] type = \"filesystem\" with "
             "path, or type = \"s3\" with bucket and region; named backends: default = \"<name>\" with "
             "[[storage.backends]] entries");
  }
  return c;
}

// Upstream's environment overrides (A.5, B.1): the database URL, and in the single shape
// the storage backend's location keys of its own type. Each is recorded, so that the start
// can say which values did not come from the file.
void apply_overrides(Config& c, const Env& env, std::vector<std::string>& applied) {
  auto var = [&](std::string_view name) -> std::optional<std::string> {
    auto v = env ? env(name) : std::nullopt;
    if (v && v->empty()) return std::nullopt;
    return v;
  };
  auto set = [&](std::string& field, std::string_view key, std::string_view name) {
    if (auto v = var(name)) {
      field = *v;
      applied.push_back(std::string(key) + " from " + std::string(name));
    }
  };
  set(c.database.url, "database.url", "PROXY_CACHE__DATABASE__URL");
  if (c.storage.shape != StorageShape::kSingle || c.storage.backends.size() != 1) return;
  StorageBackendConfig& b = c.storage.backends.front();
  if (b.type == StorageType::kFilesystem) set(b.path, "storage.path", "PROXY_CACHE__STORAGE__PATH");
  if (b.type == StorageType::kS3) {
    set(b.bucket, "storage.bucket", "PROXY_CACHE__STORAGE__BUCKET");
    set(b.region, "storage.region", "PROXY_CACHE__STORAGE__REGION");
    set(b.endpoint_url, "storage.endpoint_url", "PROXY_CACHE__STORAGE__ENDPOINT_URL");
  }
}

ConfigError file_error(const std::string& path, std::string message) {
  return ConfigError{path, 0, "", std::move(message)};
}

std::string size_message(std::uint64_t size) {
  return "the file is " + std::to_string(size) + " bytes; a configuration file may be at most " +
         std::to_string(kMaxConfigBytes) + " bytes (1 MiB)";
}

}  // namespace

Expected<Loaded, ConfigError> load_string(std::string_view toml, std::string_view source_name, const Env& env) {
  const std::string file(source_name);
  if (toml.size() > kMaxConfigBytes) return Unexpected(file_error(file, size_message(toml.size())));

  Loaded out;
  out.origin.file = file;
  auto expanded = expand_variables(toml, env, kMaxConfigBytes);
  if (!expanded) return Unexpected(ConfigError{file, expanded.error().line, "", expanded.error().message});
  toml::table root;
  try {
    root = toml::parse(*expanded, source_name);
  } catch (const toml::parse_error& e) {
    return Unexpected(ConfigError{file, line_of(e.source()), "", "TOML syntax error: " + std::string(e.description())});
  }
  std::vector<std::string> load_warnings;
  try {
    Loader l(file, out.origin);
    out.config = read_document(l, root, out.proxy_only);
    load_warnings = std::move(l.warnings());
  } catch (const Refusal& r) {
    return Unexpected(r.error);
  }
  apply_overrides(out.config, env, out.overrides);
  auto warnings = validate(out.config, env, out.origin);
  if (!warnings) return Unexpected(std::move(warnings).error());
  out.warnings = std::move(load_warnings);
  out.warnings.insert(out.warnings.end(), warnings->begin(), warnings->end());
  return out;
}

Expected<Loaded, ConfigError> load_file(const std::string& path, const Env& env) {
  // Its size is checked before a byte is read, and the read is bounded too, in case the
  // file grows; a FIFO is refused without waiting for a writer.
  auto file = base::read_regular_file(path, kMaxConfigBytes);
  if (!file) {
    const base::FileError& e = file.error();
    switch (e.kind) {
      case base::FileError::Kind::kOpen:
        return Unexpected(file_error(path, std::string("cannot be opened: ") + std::strerror(e.err)));
      case base::FileError::Kind::kNotRegular:
        return Unexpected(file_error(path, "is not a regular file"));
      case base::FileError::Kind::kTooLarge:
        return Unexpected(file_error(path, size_message(e.size)));
      case base::FileError::Kind::kStat:
      case base::FileError::Kind::kRead:
        return Unexpected(file_error(path, std::string("cannot be read: ") + std::strerror(e.err)));
    }
  }
  return load_string(file->bytes, path, env);
}

}  // namespace batlehub::config
