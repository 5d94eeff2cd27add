#include "server/scanners.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "adapters/scanners/guarddog.h"
#include "adapters/scanners/postmortem.h"
#include "adapters/scanners/trivy.h"
#include "adapters/scanners/yara.h"
#include "base/file.h"
#include "server/builders.h"

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
      case config::ScannerType::kOsv:
      case config::ScannerType::kMlab:
      case config::ScannerType::kSigstore:
      case config::ScannerType::kSocket:
        break;  // a network scanner, not in this build: the loader's warning said so at start
    }
  }
  return out;
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
  return c;
}

}  // namespace batlehub::server
