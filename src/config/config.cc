// The value types' small helpers: spellings, look-ups, the environment, messages.
#include "config/config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "base/names.h"

namespace batlehub::config {

namespace {

using base::name_of;
using base::Names;
using base::value_of;

constexpr Names<ScannerType, 10> kScannerTypeNames{{{ScannerType::kPostmortem, "postmortem"},
                                                    {ScannerType::kGuarddog, "guarddog"},
                                                    {ScannerType::kTrivy, "trivy"},
                                                    {ScannerType::kYara, "yara"},
                                                    {ScannerType::kSignals, "signals"},
                                                    {ScannerType::kBehavior, "behavior"},
                                                    {ScannerType::kOsv, "osv"},
                                                    {ScannerType::kMlab, "mlab"},
                                                    {ScannerType::kSigstore, "sigstore"},
                                                    {ScannerType::kSocket, "socket"}}};
constexpr Names<StorageType, 3> kStorageTypeNames{
    {{StorageType::kFilesystem, "filesystem"}, {StorageType::kS3, "s3"}, {StorageType::kInMemory, "in_memory"}}};

}  // namespace

bool is_image_runtime(std::string_view runtime) {
  const RuntimeSchema* r = find_runtime_schema(runtime);
  return r != nullptr && r->image_runtime;
}

std::string_view to_string(ScannerType t) {
  return name_of(kScannerTypeNames, t);
}
std::optional<ScannerType> parse_scanner_type(std::string_view s) {
  return value_of(kScannerTypeNames, s);
}

bool runs_in_sandbox(ScannerType t) {
  switch (t) {
    case ScannerType::kPostmortem:
    case ScannerType::kGuarddog:
    case ScannerType::kTrivy:
    case ScannerType::kYara:
    case ScannerType::kSignals:
    case ScannerType::kBehavior:
      return true;
    case ScannerType::kOsv:
    case ScannerType::kMlab:
    case ScannerType::kSigstore:
    case ScannerType::kSocket:
      return false;
  }
  return false;
}

std::string_view to_string(StorageType t) {
  return name_of(kStorageTypeNames, t);
}

bool can_presign(StorageType t) {
  return t == StorageType::kS3;
}

const StorageBackendConfig* StorageConfig::find(std::string_view name) const {
  for (const auto& b : backends) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::string backend_key(const StorageConfig& s, std::size_t i) {
  return s.shape == StorageShape::kSingle ? std::string("storage") : "storage.backends[" + std::to_string(i) + "]";
}

std::optional<std::string> config_path(const std::optional<std::string>& flag, const Env& env) {
  if (flag) return flag;
  if (auto v = env ? env("BATLEHUB_CONFIG") : std::nullopt; v && !v->empty()) return v;
  struct stat st {};
  if (::stat("config.toml", &st) == 0) return std::string("config.toml");
  return std::nullopt;
}

const ScannerConfig* Config::find_scanner(std::string_view name) const {
  for (const auto& s : scanners) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const RegistryEntry* Config::find_registry(std::string_view name) const {
  auto it =
      std::find_if(registries.rbegin(), registries.rend(), [&](const RegistryEntry& r) { return r.name == name; });
  return it == registries.rend() ? nullptr : &*it;
}

const RegistrySecurity* Config::find_security(std::string_view registry) const {
  auto it = std::find_if(security_registries.rbegin(), security_registries.rend(),
                         [&](const RegistrySecurity& s) { return s.registry == registry; });
  return it == security_registries.rend() ? nullptr : &*it;
}

Config defaults() {
  return Config{};
}

const StorageBackendConfig* bundle_backend(const Config& c) {
  const std::string& name =
      c.worker.sandbox.bundle_backend.empty() ? c.storage.default_backend : c.worker.sandbox.bundle_backend;
  return c.storage.find(name);
}

bool uses_storage_transport(const SandboxConfig& s) {
  const RuntimeSchema* r = find_runtime_schema(s.runtime);
  return r != nullptr && r->storage_transport && r->storage_transport(s).has_value();
}

Env process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const std::string key(name);
    const char* v = std::getenv(key.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Env env_of(std::map<std::string, std::string, std::less<>> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string image_for(const Config& c, const ScannerConfig& s, const Env& env) {
  if (!is_image_runtime(c.worker.sandbox.runtime)) return "";
  return !s.image.empty() ? s.image : default_image(c, env);
}

std::string default_image(const Config& c, const Env& env) {
  const SandboxConfig& sb = c.worker.sandbox;
  const RuntimeSchema* r = find_runtime_schema(sb.runtime);
  if (r == nullptr || !r->image_runtime) return "";
  const std::string runtime_image = r->image ? r->image(sb) : std::string();
  if (!runtime_image.empty()) return runtime_image;
  if (env) {
    if (auto own = env("BATLEHUB_IMAGE")) return *own;
  }
  return "";
}

std::string ConfigError::describe() const {
  std::string out = file.empty() ? std::string("config") : file;
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  if (!key.empty()) {
    out += key;
    out += ": ";
  }
  out += message;
  return out;
}

int Origin::line_of(std::string_view key) const {
  while (true) {
    auto it = lines.find(key);
    if (it != lines.end() && it->second > 0) return it->second;
    // The parent of "a.b.c" is "a.b"; of "a.b[2]" it is "a.b".
    const std::size_t cut = key.find_last_of(".[");
    if (cut == std::string_view::npos) return 0;
    key = key.substr(0, cut);
  }
}

}  // namespace batlehub::config
