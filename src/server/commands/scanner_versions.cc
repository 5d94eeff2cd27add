#include "server/commands/scanner_versions.h"

#include <thread>

#include "server/root/log.h"

namespace batlehub::server {

core::RunSpec version_request(const config::ScannerConfig& s, const core::Limits& limits) {
  core::RunSpec spec;
  // As build_scanners() names argv[0]: trivy's command defaults to "trivy".
  spec.argv = {s.command.empty() && s.type == config::ScannerType::kTrivy ? "trivy" : s.command, "--version"};
  spec.network = false;
  spec.limits = limits;
  spec.timeout = std::chrono::seconds(30);
  spec.label.job = "version";
  spec.label.scanner = s.name;
  return spec;
}

namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}
bool word(char c) {
  return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

std::optional<std::string> version_in(std::string_view out) {
  out = out.substr(0, 4096);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::size_t start = i;
    if (out[i] == 'v' && i + 1 < out.size() && digit(out[i + 1])) ++i;
    if (!digit(out[i])) continue;
    // A token starts here only at a boundary: not inside a word, a number or a dotted run.
    if (start > 0 && (word(out[start - 1]) || out[start - 1] == '.' || out[start - 1] == '-')) continue;
    std::size_t j = i;
    int dots = 0;
    while (j < out.size() && (digit(out[j]) || (out[j] == '.' && j + 1 < out.size() && digit(out[j + 1])))) {
      if (out[j] == '.') ++dots;
      ++j;
    }
    if (dots == 0) {
      i = j;
      continue;
    }
    if (j < out.size() && (out[j] == '-' || out[j] == '+')) {
      std::size_t k = j + 1;
      while (k < out.size() && (word(out[k]) || out[k] == '.' || out[k] == '-')) ++k;
      if (k > j + 1) j = k;
    }
    if (j < out.size() && (word(out[j]) || out[j] == '.')) {
      i = j;
      continue;
    }
    return std::string(out.substr(i, j - i));
  }
  return std::nullopt;
}

std::map<std::string, std::string> scanner_versions(core::SandboxRuntime& rt,
                                                    const std::vector<config::ScannerConfig>& scanners,
                                                    const core::Limits& limits) {
  auto log = logger("scan");
  std::vector<std::optional<std::string>> found(scanners.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < scanners.size(); ++i) {
      threads.emplace_back([&, i] {
        const config::ScannerConfig& s = scanners[i];
        auto r = rt.run(version_request(s, limits));
        if (!r) {
          log->warn("{}: `--version` failed ({}): SARIF names it without a version", s.name, r.error().message);
        } else if (!(found[i] = version_in(r->stdout_bytes))) {
          log->warn("{}: `--version` exited {} and printed no version: SARIF names it without one", s.name, r->status);
        }
      });
    }
  }  // joins
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < scanners.size(); ++i) {
    if (found[i]) out[scanners[i].name] = *found[i];
  }
  return out;
}

}  // namespace batlehub::server
