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

#include "config/config.h"
#include "base/file.h"
#include "config/text.h"

namespace batlehub::config {
namespace {

// Thrown inside the loader only; load_string turns it into the Expected's error.
struct Refusal {
  ConfigError error;
};

std::string_view kind_of(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// "a guarddog scanner", "an osv scanner", "an s3 backend".
std::string a_or_an(std::string_view word) {
  const bool an = !word.empty() && (std::string_view("aeiou").find(word[0]) != std::string_view::npos || word == "s3");
  return (an ? "an " : "a ") + std::string(word);
}

int line_of(const toml::source_region& r) {
  return static_cast<int>(r.begin.line);
}

// Entries of a table in the order they first appear in the file (toml++ keeps them
// sorted by name).
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> out;
  for (const auto& [k, v] : t) out.emplace_back(&k, &v);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const auto& sa = a.first->source().begin;
    const auto& sb = b.first->source().begin;
    return sa.line != sb.line ? sa.line < sb.line : sa.column < sb.column;
  });
  return out;
}

class Loader {
 public:
  Loader(std::string file, Origin& origin) : file_(std::move(file)), origin_(origin) {}

  [[noreturn]] void refuse(int line, std::string key, std::string message) const {
    throw Refusal{ConfigError{file_, line, std::move(key), std::move(message)}};
  }
  void note(const std::string& key, int line) { origin_.lines.emplace(key, line); }

 private:
  std::string file_;
  Origin& origin_;
};

template <class E, std::size_t N>
std::string names_of(const std::array<E, N>& all) {
  std::string out;
  for (E e : all) {
    if (!out.empty()) out += ", ";
    out += to_string(e);
  }
  return out;
}

constexpr std::array kRuntimes = {RuntimeKind::kNone, RuntimeKind::kBwrap, RuntimeKind::kOci, RuntimeKind::kKubernetes};
constexpr std::array kEngines = {OciEngine::kPodman, OciEngine::kDocker};
constexpr std::array kTransports = {OciTransport::kMount, OciTransport::kStorage};
constexpr std::array kScannerTypes = {ScannerType::kPostmortem, ScannerType::kGuarddog, ScannerType::kTrivy,
                                      ScannerType::kYara, ScannerType::kOsv};
constexpr std::array kSeverities = {Severity::kLow, Severity::kMedium, Severity::kHigh, Severity::kCritical};
constexpr std::array kStorageTypes = {StorageType::kFilesystem, StorageType::kS3, StorageType::kInMemory};

// One TOML table being read. Every accessor marks its key as known; finish() refuses the
// rest. `what` is how messages name the table ("[worker.sandbox]").
class Table {
 public:
  Table(Loader& l, const toml::table& t, std::string path, std::string what = "")
      : l_(l), t_(t), path_(std::move(path)), what_(what.empty() ? "[" + path_ + "]" : std::move(what)) {
    l_.note(path_, line());
  }

  int line() const { return line_of(t_.source()); }
  std::string key_path(std::string_view key) const { return join_key(path_, key); }

  [[noreturn]] void refuse(std::string_view key, std::string message) const {
    auto it = t_.find(key);
    const int at = it != t_.end() ? line_of(it->first.source()) : line();
    l_.refuse(at, key_path(key), std::move(message));
  }

  std::optional<std::string> str(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    return string_value(*n, key_path(key));
  }

  // The required accessors do not refuse at once: a missing key is reported by finish(),
  // after any unknown key, which is often the same key misspelled.
  std::string required_str(std::string_view key, std::string_view why) {
    auto v = str(key);
    if (!v) missing(key, why);
    return v.value_or("");
  }

  std::optional<std::int64_t> integer(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* i = n->as_integer();
    if (i == nullptr) wrong_type(*n, key_path(key), "an integer");
    return i->get();
  }

  std::int64_t required_integer(std::string_view key, std::string_view why) {
    auto v = integer(key);
    if (!v) missing(key, why);
    return v.value_or(0);
  }

  std::vector<std::string> required_strings(std::string_view key, std::string_view why) {
    auto v = strings(key);
    if (!v) missing(key, why);
    return v.value_or(std::vector<std::string>{});
  }

  std::optional<bool> boolean(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* b = n->as_boolean();
    if (b == nullptr) wrong_type(*n, key_path(key), "a boolean");
    return b->get();
  }

  std::optional<std::vector<std::string>> strings(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* a = n->as_array();
    if (a == nullptr) wrong_type(*n, key_path(key), "an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a->size(); ++i) {
      out.push_back(string_value(*a->get(i), key_path(key) + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  std::optional<std::map<std::string, std::string>> string_map(std::string_view key) {
    const toml::table* t = table(key);
    if (t == nullptr) return std::nullopt;
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : *t) {
      const std::string p = join_key(key_path(key), k.str());
      l_.note(p, line_of(k.source()));
      out.emplace(std::string(k.str()), string_value(v, p));
    }
    return out;
  }

  // A sub-table (a [header] table or an inline one), or nullptr when absent.
  const toml::table* table(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return nullptr;
    const auto* t = n->as_table();
    if (t == nullptr) wrong_type(*n, key_path(key), "a table");
    return t;
  }

  template <class E, std::size_t N>
  std::optional<E> choice(std::string_view key, const std::array<E, N>& all) {
    auto s = str(key);
    if (!s) return std::nullopt;
    for (E e : all) {
      if (*s == to_string(e)) return e;
    }
    refuse(key, std::string(key) + " = " + quoted(*s) + " is not one of " + names_of(all));
  }

  template <class E, std::size_t N>
  E required_choice(std::string_view key, const std::array<E, N>& all, std::string_view why) {
    auto v = choice(key, all);
    if (!v) missing(key, why);
    return v.value_or(all[0]);
  }

  // Refuses the first key (in file order) that no accessor asked for, then the first
  // required key that was missing.
  void finish() const {
    for (const auto& [k, v] : in_file_order(t_)) {
      if (known_.count(k->str()) != 0) continue;
      std::string message = "unknown key '" + std::string(k->str()) + "' in " + what_;
      if (auto near = closest(k->str())) message += " (did you mean '" + *near + "'?)";
      l_.refuse(line_of(k->source()), key_path(k->str()), std::move(message));
    }
    if (missing_) l_.refuse(line(), key_path(missing_->first), missing_->second);
  }

 private:
  void missing(std::string_view key, std::string_view why) {
    if (!missing_) missing_.emplace(std::string(key), std::string(key) + " is required " + std::string(why));
  }

  const toml::node* get(std::string_view key) {
    known_.emplace(key);
    auto it = t_.find(key);
    if (it == t_.end()) return nullptr;
    l_.note(key_path(key), line_of(it->first.source()));
    return &it->second;
  }

  [[noreturn]] void wrong_type(const toml::node& n, const std::string& key, std::string_view expected) const {
    l_.refuse(line_of(n.source()), key, "expected " + std::string(expected) + ", not " + std::string(kind_of(n)));
  }

  std::string string_value(const toml::node& n, const std::string& key) const {
    const auto* s = n.as_string();
    if (s == nullptr) wrong_type(n, key, "a string");
    const std::string& v = s->get();
    if (v.find('\0') != std::string::npos) l_.refuse(line_of(n.source()), key, "must not contain a NUL character");
    return v;
  }

  // A known key within two edits (and fewer edits than half the key's length), else one
  // the unknown key is the start of ("memory_limit" → "memory_limit_mb").
  std::optional<std::string> closest(std::string_view unknown) const {
    std::optional<std::string> best;
    if (unknown.size() > 64) return best;
    std::size_t best_d = std::min<std::size_t>(3, (unknown.size() + 1) / 2);
    for (const auto& k : known_) {
      const std::size_t d = edit_distance(unknown, k);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    if (!best && unknown.size() >= 4) {
      for (const auto& k : known_) {
        if (k.size() > unknown.size() && k.compare(0, unknown.size(), unknown) == 0) return k;
      }
    }
    return best;
  }

  Loader& l_;
  const toml::table& t_;
  std::string path_;
  std::string what_;
  std::set<std::string, std::less<>> known_;
  std::optional<std::pair<std::string, std::string>> missing_;  // key, message
};

const toml::table& as_table_or_refuse(Loader& l, const toml::node& n, const std::string& key) {
  const auto* t = n.as_table();
  if (t == nullptr) l.refuse(line_of(n.source()), key, "expected a table, not " + std::string(kind_of(n)));
  return *t;
}

void read_bwrap(Table t, BwrapConfig& out) {
  if (auto v = t.str("binary")) out.binary = *v;
  if (auto v = t.str("cgroup_parent")) out.cgroup_parent = *v;
  t.finish();
}

void read_oci(Table t, OciConfig& out) {
  if (auto v = t.choice("engine", kEngines)) out.engine = *v;
  // The CLI defaults to the engine's own name, so `engine = "docker"` alone runs docker.
  out.binary = std::string(to_string(out.engine));
  if (auto v = t.str("binary")) out.binary = *v;
  if (auto v = t.str("image")) out.image = *v;
  if (auto v = t.choice("transport", kTransports)) out.transport = *v;
  if (auto v = t.strings("extra_args")) out.extra_args = *v;
  t.finish();
}

void read_kubernetes(Table t, KubernetesConfig& out) {
  if (auto v = t.str("namespace")) out.namespace_ = *v;
  if (auto v = t.str("service_account")) out.service_account = *v;
  if (auto v = t.str("image")) out.image = *v;
  if (auto v = t.str("runtime_class")) out.runtime_class = *v;
  if (auto v = t.string_map("node_selector")) out.node_selector = *v;
  if (auto v = t.strings("image_pull_secrets")) out.image_pull_secrets = *v;
  if (auto v = t.integer("orphan_after_secs")) out.orphan_after_secs = *v;
  t.finish();
}

void read_sandbox(Loader& l, Table t, SandboxConfig& out) {
  if (auto v = t.choice("runtime", kRuntimes)) out.runtime = *v;
  if (auto v = t.integer("memory_limit_mb")) out.memory_limit_mb = *v;
  if (auto v = t.integer("cpu_seconds")) out.cpu_seconds = *v;
  if (auto v = t.integer("max_extracted_mb")) out.max_extracted_mb = *v;
  if (auto v = t.integer("max_entries")) out.max_entries = *v;
  if (auto v = t.integer("start_timeout_secs")) out.start_timeout_secs = *v;
  if (auto v = t.integer("probe_interval_secs")) out.probe_interval_secs = *v;
  if (auto v = t.strings("probe_canaries")) out.probe_canaries = *v;
  if (auto v = t.boolean("accept_per_process_limits")) out.accept_per_process_limits = *v;
  if (auto v = t.str("bundle_backend")) out.bundle_backend = *v;
  if (auto v = t.str("bundle_prefix")) out.bundle_prefix = *v;
  if (auto v = t.integer("bundle_ttl_secs")) out.bundle_ttl_secs = *v;
  if (auto v = t.str("rooms_dir")) out.rooms_dir = *v;
  if (const auto* b = t.table("bwrap")) {
    out.has_bwrap_table = true;
    read_bwrap(Table(l, *b, t.key_path("bwrap")), out.bwrap);
  }
  if (const auto* o = t.table("oci")) {
    out.has_oci_table = true;
    read_oci(Table(l, *o, t.key_path("oci")), out.oci);
  }
  if (const auto* k = t.table("kubernetes")) {
    out.has_kubernetes_table = true;
    read_kubernetes(Table(l, *k, t.key_path("kubernetes")), out.kubernetes);
  }
  t.finish();
}

void read_worker(Loader& l, Table t, WorkerConfig& out) {
  if (auto v = t.integer("max_concurrent")) out.max_concurrent = *v;
  if (auto v = t.integer("job_timeout_secs")) out.job_timeout_secs = *v;
  if (auto v = t.integer("max_attempts")) out.max_attempts = *v;
  if (auto v = t.strings("registries")) out.registries = *v;
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
    case ScannerType::kYara:
      s.command = "yara";
      if (auto v = t.str("command")) s.command = *v;
      s.rules = t.required_str("rules", why + " (the path of a rules file on the worker host)");
      if (auto v = t.str("image")) s.image = *v;
      break;
    case ScannerType::kOsv:
      if (auto v = t.str("api_url")) s.api_url = *v;
      break;
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

StorageBackendConfig read_backend(Loader& l, const std::string& name, const toml::table& tbl) {
  const std::string path = join_key("storage.backends", name);
  StorageBackendConfig b;
  b.name = name;
  {
    // Refused at once when missing: without a type, which keys belong is unknown.
    Table probe(l, tbl, path);
    auto type = probe.choice("type", kStorageTypes);
    if (!type) probe.refuse("type", "type is required for a storage backend (one of " + names_of(kStorageTypes) + ")");
    b.type = *type;
  }
  Table t(l, tbl, path, "[" + path + "] (" + a_or_an(to_string(b.type)) + " backend)");
  (void)t.str("type");
  const std::string why = "for " + a_or_an(to_string(b.type)) + " backend";
  switch (b.type) {
    case StorageType::kFilesystem:
      b.path = t.required_str("path", why);
      break;
    case StorageType::kS3:
      b.endpoint = t.required_str("endpoint", why);
      b.bucket = t.required_str("bucket", why);
      if (auto v = t.str("region")) b.region = *v;
      if (auto v = t.boolean("path_style")) b.path_style = *v;
      if (auto v = t.str("access_key_id")) b.access_key_id = *v;
      if (auto v = t.str("secret_access_key")) b.secret_access_key = *v;
      break;
    case StorageType::kInMemory:
      break;
  }
  t.finish();
  return b;
}

StorageConfig read_storage(Loader& l, Table t) {
  StorageConfig out;
  out.declared_in_file = true;
  out.backends.clear();
  if (auto v = t.str("default")) out.default_backend = *v;
  if (const auto* bs = t.table("backends")) {
    for (const auto& [k, v] : in_file_order(*bs)) {
      const std::string name(k->str());
      const std::string path = join_key("storage.backends", name);
      out.backends.push_back(read_backend(l, name, as_table_or_refuse(l, *v, path)));
    }
  }
  t.finish();
  return out;
}

// [registries.<name>.security]: recorded, nothing else read.
bool has_security_registry(const toml::node& registries) {
  const auto* t = registries.as_table();
  if (t == nullptr) return false;
  for (const auto& [k, v] : *t) {
    const auto* reg = v.as_table();
    if (reg != nullptr && reg->get("security") != nullptr && reg->get("security")->is_table()) return true;
  }
  return false;
}

Config read_document(Loader& l, const toml::table& root) {
  Config c;
  for (const auto& [k, v] : in_file_order(root)) {
    const std::string_view name = k->str();
    if (name == "worker") {
      read_worker(l, Table(l, as_table_or_refuse(l, *v, "worker"), "worker"), c.worker);
    } else if (name == "scanners") {
      const auto& t = as_table_or_refuse(l, *v, "scanners");
      l.note("scanners", line_of(t.source()));
      c.scanners = read_scanners(l, t);
    } else if (name == "storage") {
      c.storage = read_storage(l, Table(l, as_table_or_refuse(l, *v, "storage"), "storage"));
    } else if (name == "registries") {
      c.has_security_registry = has_security_registry(*v);
    }
    // Anything else ([server], [stats], …) belongs to other parts of batlehub.
  }
  return c;
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
  toml::table root;
  try {
    root = toml::parse(toml, source_name);
  } catch (const toml::parse_error& e) {
    return Unexpected(ConfigError{file, line_of(e.source()), "", "TOML syntax error: " + std::string(e.description())});
  }
  try {
    Loader l(file, out.origin);
    out.config = read_document(l, root);
  } catch (const Refusal& r) {
    return Unexpected(r.error);
  }
  auto warnings = validate(out.config, env, out.origin);
  if (!warnings) return Unexpected(std::move(warnings).error());
  out.warnings = std::move(*warnings);
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
      case base::FileError::Kind::kNotRegular: return Unexpected(file_error(path, "is not a regular file"));
      case base::FileError::Kind::kTooLarge: return Unexpected(file_error(path, size_message(e.size)));
      case base::FileError::Kind::kStat:
      case base::FileError::Kind::kRead:
        return Unexpected(file_error(path, std::string("cannot be read: ") + std::strerror(e.err)));
    }
  }
  return load_string(file->bytes, path, env);
}

}  // namespace batlehub::config
