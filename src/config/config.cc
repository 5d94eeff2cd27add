// The value types' small helpers: spellings, look-ups, the environment, messages.
#include "config/config.h"

#include <cstdlib>
#include <utility>

namespace batlehub::config {

std::string_view to_string(RuntimeKind r) {
  switch (r) {
    case RuntimeKind::kNone:
      return "none";
    case RuntimeKind::kBwrap:
      return "bwrap";
    case RuntimeKind::kOci:
      return "oci";
    case RuntimeKind::kKubernetes:
      return "kubernetes";
  }
  return "?";
}

std::optional<RuntimeKind> parse_runtime(std::string_view s) {
  for (RuntimeKind r : {RuntimeKind::kNone, RuntimeKind::kBwrap, RuntimeKind::kOci, RuntimeKind::kKubernetes}) {
    if (s == to_string(r)) return r;
  }
  return std::nullopt;
}

bool is_image_runtime(RuntimeKind r) {
  return r == RuntimeKind::kOci || r == RuntimeKind::kKubernetes;
}

std::string_view to_string(OciEngine e) {
  return e == OciEngine::kDocker ? "docker" : "podman";
}

std::string_view to_string(OciTransport t) {
  return t == OciTransport::kStorage ? "storage" : "mount";
}

std::string_view to_string(ScannerType t) {
  switch (t) {
    case ScannerType::kPostmortem:
      return "postmortem";
    case ScannerType::kGuarddog:
      return "guarddog";
    case ScannerType::kTrivy:
      return "trivy";
    case ScannerType::kYara:
      return "yara";
    case ScannerType::kOsv:
      return "osv";
  }
  return "?";
}

std::optional<ScannerType> parse_scanner_type(std::string_view s) {
  for (ScannerType t :
       {ScannerType::kPostmortem, ScannerType::kGuarddog, ScannerType::kTrivy, ScannerType::kYara, ScannerType::kOsv}) {
    if (s == to_string(t)) return t;
  }
  return std::nullopt;
}

bool runs_in_sandbox(ScannerType t) {
  return t != ScannerType::kOsv;
}

std::string_view to_string(StorageType t) {
  switch (t) {
    case StorageType::kFilesystem:
      return "filesystem";
    case StorageType::kS3:
      return "s3";
    case StorageType::kInMemory:
      return "in_memory";
  }
  return "?";
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

const ScannerConfig* Config::find_scanner(std::string_view name) const {
  for (const auto& s : scanners) {
    if (s.name == name) return &s;
  }
  return nullptr;
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
  return s.runtime == RuntimeKind::kKubernetes ||
         (s.runtime == RuntimeKind::kOci && s.oci.transport == OciTransport::kStorage);
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
  const SandboxConfig& sb = c.worker.sandbox;
  if (!is_image_runtime(sb.runtime)) return "";
  if (!s.image.empty()) return s.image;
  const std::string& runtime_image = sb.runtime == RuntimeKind::kOci ? sb.oci.image : sb.kubernetes.image;
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
