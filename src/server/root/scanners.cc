#include "server/root/scanners.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "adapters/network_scanners/mlab.h"
#include "adapters/network_scanners/osv.h"
#include "adapters/network_scanners/sigstore.h"
#include "adapters/network_scanners/socket.h"
#include "adapters/scanners/behavior.h"
#include "adapters/scanners/guarddog.h"
#include "adapters/scanners/postmortem.h"
#include "adapters/scanners/signals.h"
#include "adapters/scanners/trivy.h"
#include "adapters/scanners/yara.h"
#include "base/file.h"
#include "server/root/builders.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

namespace fs = std::filesystem;

namespace {

// The rules are the worker's: read here, bounded, and shipped as bytes in every bundle.
Expected<std::string, std::string> read_rules(const std::string& path) {
  constexpr std::uint64_t kMaxRules = 4 * 1024 * 1024;  // well inside the wire's inline cap
  auto file = base::read_regular_file(path, kMaxRules);
  if (!file) {
    const base::FileError& e = file.error();
    switch (e.kind) {
      case base::FileError::Kind::kNotRegular:
        return Unexpected("yara rules " + path + ": not a regular file");
      case base::FileError::Kind::kTooLarge:
        return Unexpected("yara rules " + path + " are " + std::to_string(e.size) + " bytes, more than 4 MiB");
      default:
        return Unexpected("yara rules " + path + ": " + std::strerror(e.err));
    }
  }
  if (file->bytes.size() != file->size_at_open) return Unexpected("yara rules " + path + ": short read");
  return std::move(file->bytes);
}

// Upstream's rules_dir: every *.yar and *.yara file under it, in path order, joined into one
// rules text within the same 4 MiB — the bundle carries one inline rules entry, and the
// sandbox never sees the host's directory (so an `include` there cannot be followed).
Expected<std::string, std::string> read_rules_dir(const std::string& dir) {
  constexpr std::uint64_t kMaxRules = 4 * 1024 * 1024;
  std::error_code ec;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    if ((p.extension() == ".yar" || p.extension() == ".yara") && it->is_regular_file(ec)) files.push_back(p);
  }
  if (ec) return Unexpected("yara rules_dir " + dir + ": " + ec.message());
  if (files.empty()) return Unexpected("yara rules_dir " + dir + " holds no .yar or .yara file");
  std::sort(files.begin(), files.end());
  std::string out;
  for (const fs::path& p : files) {
    if (out.size() >= kMaxRules) {
      return Unexpected("yara rules_dir " + dir + " holds more than 4 MiB of rules (at " + p.string() + ")");
    }
    auto file = base::read_regular_file(p.string(), kMaxRules - out.size());
    if (!file) {
      const base::FileError& e = file.error();
      if (e.kind == base::FileError::Kind::kTooLarge) {
        return Unexpected("yara rules_dir " + dir + " holds more than 4 MiB of rules (at " + p.string() + ")");
      }
      return Unexpected("yara rules " + p.string() + ": " + std::strerror(e.err));
    }
    out += file->bytes;
    out += '\n';
  }
  return out;
}

}  // namespace

Expected<std::vector<std::unique_ptr<core::Scanner>>, std::string> build_scanners(const config::Config& c,
                                                                                  const config::Env&) {
  std::vector<std::unique_ptr<core::Scanner>> out;
  core::Limits limits = limits_of(c.worker.sandbox);
  std::chrono::milliseconds job_timeout = std::chrono::seconds(c.worker.job_timeout_secs);
  for (const config::ScannerConfig& s : c.scanners) {
    switch (s.type) {
      case config::ScannerType::kPostmortem: {
        adapters::PostmortemOptions o;
        o.name = s.name;
        o.command = s.command;
        o.online = s.online;
        o.timeline = s.timeline;
        o.limits = limits;
        o.timeout = job_timeout;
        out.push_back(std::make_unique<adapters::PostmortemScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kGuarddog: {
        adapters::GuardDogOptions o;
        o.name = s.name;
        o.command = s.command;
        o.ecosystems = s.ecosystems;
        o.limits = limits;
        o.timeout = job_timeout;
        out.push_back(std::make_unique<adapters::GuardDogScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kTrivy: {
        adapters::TrivyOptions o;
        o.name = s.name;
        o.command = s.command.empty() ? "trivy" : s.command;
        o.endpoint = s.endpoint;
        o.db_repository = s.db_repository;
        o.timeout_secs = std::chrono::seconds(s.timeout_secs);
        o.job_timeout = job_timeout;
        o.limits = limits;
        out.push_back(std::make_unique<adapters::TrivyScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kYara: {
        auto rules = s.rules_dir.empty() ? read_rules(s.rules) : read_rules_dir(s.rules_dir);
        if (!rules) return Unexpected("[scanners." + s.name + "] " + rules.error());
        adapters::YaraOptions o;
        o.name = s.name;
        o.command = s.command;
        o.rules = std::move(*rules);
        o.limits = limits;
        o.timeout = job_timeout;
        out.push_back(std::make_unique<adapters::YaraScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kSignals: {
        adapters::SignalsOptions o;
        o.name = s.name;
        o.command = s.command;
        o.limits = limits;
        o.timeout = job_timeout;
        out.push_back(std::make_unique<adapters::SignalsScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kBehavior: {
        adapters::BehaviorOptions o;
        o.name = s.name;
        o.command = s.command;
        o.limits = limits;
        o.timeout = job_timeout;
        o.install_timeout = std::chrono::seconds(s.install_timeout_secs);
        o.import_timeout = std::chrono::seconds(s.import_timeout_secs);
        out.push_back(std::make_unique<adapters::BehaviorScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kOsv:
      case config::ScannerType::kMlab:
      case config::ScannerType::kSigstore:
      case config::ScannerType::kSocket:
        break;  // build_network_scanners'
    }
  }
  return out;
}

namespace {

Expected<adapters::net::ApiOptions, std::string> api_options(const config::ScannerConfig& s, std::string url,
                                                             const char* fallback) {
  adapters::net::ApiOptions o;
  o.name = s.name;
  o.api_url = url.empty() ? fallback : std::move(url);
  while (o.api_url.ends_with('/')) o.api_url.pop_back();
  o.timeout = std::chrono::seconds(s.timeout_secs);
  if (!s.ca_file.empty()) {
    // Read once here so that a missing file stops the worker at start, not every job.
    std::error_code ec;
    if (!fs::is_regular_file(s.ca_file, ec) || ::access(s.ca_file.c_str(), R_OK) != 0) {
      return Unexpected("[scanners." + s.name + "] ca_file " + s.ca_file + ": not a readable file");
    }
    o.tls.ca_file = s.ca_file;
  }
  return o;
}

bool names(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

Expected<NetworkScanners, std::string> build_network_scanners(const config::Config& c) {
  namespace net = adapters::net;
  NetworkScanners out;
  for (const config::ScannerConfig& s : c.scanners) {
    switch (s.type) {
      case config::ScannerType::kOsv: {
        auto api = api_options(s, s.api_url, net::kOsvDefaultApi);
        if (!api) return Unexpected(api.error());
        out.scanners.push_back(std::make_unique<net::OsvScanner>(net::OsvOptions{*api, s.on_outage == "error"}));
        break;
      }
      case config::ScannerType::kSocket: {
        auto api = api_options(s, s.api_url, net::kSocketDefaultApi);
        if (!api) return Unexpected(api.error());
        out.scanners.push_back(std::make_unique<net::SocketScanner>(net::SocketOptions{*api, s.api_key}));
        break;
      }
      case config::ScannerType::kSigstore: {
        auto api = api_options(s, s.rekor_url, net::kRekorDefaultApi);
        if (!api) return Unexpected(api.error());
        net::SigstoreOptions o;
        o.api = *api;
        for (const auto& k : s.require_for) {
          if (auto kind = core::parse_package_kind(k)) o.require_for.push_back(*kind);
        }
        for (const auto& r : c.registries) {
          if (!r.upstreams.empty()) o.registries[r.name] = r.upstreams.front();
        }
        out.scanners.push_back(std::make_unique<net::SigstoreScanner>(std::move(o)));
        break;
      }
      case config::ScannerType::kMlab: {
        auto api = api_options(s, s.api_url, net::kMlabDefaultApi);
        if (!api) return Unexpected(api.error());
        out.enrichers.push_back(std::make_unique<net::MlabEnricher>(net::MlabOptions{*api, s.api_key}));
        break;
      }
      default:
        break;
    }
  }
  // Upstream's osv exists without a table (upstream-today.md §5.2).
  const bool implicit_osv = c.find_scanner("osv") == nullptr &&
                            std::any_of(c.security_registries.begin(), c.security_registries.end(), [](const auto& r) {
                              return names(r.scanners, "osv") || names(r.required_scanners, "osv");
                            });
  if (implicit_osv) {
    config::ScannerConfig s;
    s.name = "osv";
    s.type = config::ScannerType::kOsv;
    s.timeout_secs = 30;
    auto api = api_options(s, "", net::kOsvDefaultApi);
    if (!api) return Unexpected(api.error());
    out.scanners.push_back(std::make_unique<net::OsvScanner>(net::OsvOptions{*api, false}));
  }
  return out;
}

ScannerSet scanners_for(const config::Config& c, const std::vector<std::unique_ptr<core::Scanner>>& sandboxed,
                        const NetworkScanners& network, const std::string& registry, core::PackageKind kind) {
  const config::RegistrySecurity* table = c.find_security(registry);
  auto listed = [&](const std::string& name) {
    return table == nullptr || names(table->scanners, name) || names(table->required_scanners, name);
  };
  ScannerSet set;
  for (const auto& s : sandboxed) {
    if (s->supports(kind) && listed(s->name())) set.sandboxed.push_back(s.get());
  }
  for (const auto& s : network.scanners) {
    if (s->supports(kind) && listed(s->name())) set.network.push_back(s.get());
  }
  for (const auto& e : network.enrichers) {
    if (listed(e->name())) set.enrichers.push_back(e.get());
  }
  return set;
}

config::Config default_scan_config(const std::string& rooms_dir) {
  config::Config c = config::defaults();
  c.worker.sandbox.rooms_dir = rooms_dir;
  auto has_room = [&](const char* name) {
    std::error_code ec;
    return fs::is_directory(rooms_dir + "/" + name, ec);
  };
  auto add = [&](const char* name, config::ScannerType type, const char* command) {
    config::ScannerConfig s;
    s.name = name;
    s.type = type;
    s.command = command;
    c.scanners.push_back(std::move(s));
  };
  if (has_room("postmortem")) add("postmortem", config::ScannerType::kPostmortem, "postmortem");
  if (has_room("guarddog")) add("guarddog", config::ScannerType::kGuarddog, "guarddog");
  if (has_room("trivy")) add("trivy", config::ScannerType::kTrivy, "trivy");
  std::error_code ec;
  if (has_room("yara") && fs::is_regular_file(kDefaultYaraRules, ec)) {
    add("yara", config::ScannerType::kYara, "yara");
    c.scanners.back().rules = kDefaultYaraRules;
  }
  if (has_room("signals")) add("signals", config::ScannerType::kSignals, "batlehub-signals");
  return c;
}

}  // namespace batlehub::server
