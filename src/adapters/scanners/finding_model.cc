#include "adapters/scanners/finding_model.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace batlehub::adapters::finding_model {

using core::Severity;

namespace {

// Each row: GuardDog's rule, batlehub's severity for a hit of it. The rule's own meta says
// severity/specificity; the row follows from them — a capability is low (what code can do is
// not what it does); a threat that GuardDog rates high and specific is high, high but
// unspecific (it also matches benign code) medium, medium and specific medium, the rest low
// — except where the corpus showed the rule's pattern in ordinary libraries (the rows with a
// comment). docs/verdicts.md is this table with its reasons.
constexpr std::array<std::pair<std::string_view, Severity>, 54> kGuardDog{{
    {"capability-filesystem-browser", Severity::kLow},
    {"capability-filesystem-delete", Severity::kLow},
    {"capability-filesystem-read", Severity::kLow},
    {"capability-filesystem-write-executable", Severity::kLow},
    {"capability-network-download", Severity::kLow},
    {"capability-network-lolbas", Severity::kLow},
    {"capability-network-outbound", Severity::kLow},
    {"capability-process-hooks", Severity::kLow},  // an install hook is INSTALL_HOOK (the adapter)
    {"capability-process-schedule", Severity::kLow},
    {"capability-process-spawn", Severity::kLow},
    {"capability-runtime-clipboard", Severity::kLow},
    {"threat-filesystem-autostart",
     Severity::kMedium},  // shell-completion installers write ~/.bashrc: high in setup.py only
    {"threat-filesystem-destruction", Severity::kMedium},  // CLIs quote `rm -rf /` (click): high in setup.py only
    {"threat-filesystem-read", Severity::kMedium},
    {"threat-network-dns-exfil", Severity::kMedium},  // a bundled wordlist matches it; no malicious hit
    // A Telegram or Discord bot library calls its API (telegraf, aiogram, pyTelegramBotAPI,
    // held-out-5): high in setup.py only; signals' token-store-sent is what decides a stealer.
    {"threat-network-exfil-messenger", Severity::kMedium},
    {"threat-network-exfil-sysinfo",
     Severity::kMedium},  // loggers and error reporters send the host name (pino, sentry)
    {"threat-network-exfiltration", Severity::kMedium},
    {"threat-network-outbound-shady-links", Severity::kMedium},
    // On the tuning half (3,994 archives, 2026-12-07) each decided one benign package alone
    // (pacu, an AWS exploitation framework; docsify's self-referencing dependency) and no
    // malicious one: the reverse shell's six malicious hits are all in setup.py, where it is
    // still high by place; the dependency-confusion rule hit no malicious archive at all.
    {"threat-network-reverse-shell", Severity::kMedium},
    {"threat-npm-dependency-confusion", Severity::kMedium},
    // A URL dependency: more popular packages than malicious ones (ssh2, pm2); low when the
    // URL is loopback (the adapter).
    {"threat-npm-http-dependency", Severity::kMedium},
    {"threat-npm-preinstall-script", Severity::kHigh},
    // A wallet or key-derivation library names coins and pools (bip-utils, held-out-5): high
    // in setup.py only; signals' miner reads the miner's command line itself.
    {"threat-process-cryptomining", Severity::kMedium},
    // pip install in build tools, and a setup.py that builds a C extension: medium even in
    // setup.py (the adapter), where batlehub-signals reads the command itself.
    {"threat-process-download-exec", Severity::kMedium},
    {"threat-process-hooks", Severity::kHigh},  // the adapter decides: see guarddog.cc
    {"threat-process-injection-dll", Severity::kMedium},
    {"threat-process-memory", Severity::kMedium},
    {"threat-process-powershell-encoded", Severity::kHigh},
    {"threat-process-spawn-silent", Severity::kLow},
    {"threat-process-sysinfo", Severity::kLow},
    {"threat-runtime-dynamic-loader", Severity::kMedium},  // __import__(name) in plugin loaders: high in setup.py only
    {"threat-runtime-enumeration", Severity::kLow},
    {"threat-runtime-environment-read", Severity::kLow},
    {"threat-runtime-keylogging", Severity::kMedium},
    {"threat-runtime-obfuscation-api", Severity::kMedium},
    {"threat-runtime-obfuscation-base64exec", Severity::kMedium},
    {"threat-runtime-obfuscation-chr", Severity::kHigh},
    {"threat-runtime-obfuscation-dynamic-eval", Severity::kHigh},
    {"threat-runtime-obfuscation-general", Severity::kLow},
    {"threat-runtime-obfuscation-hidden-code", Severity::kHigh},
    {"threat-runtime-obfuscation-import-exec", Severity::kHigh},
    {"threat-runtime-obfuscation-js-mangling", Severity::kMedium},
    {"threat-runtime-obfuscation-log-suppress", Severity::kMedium},
    {"threat-runtime-obfuscation-pyarmor", Severity::kMedium},
    {"threat-runtime-obfuscation-steganography", Severity::kMedium},
    {"threat-runtime-obfuscation-unicode", Severity::kLow},
    {"threat-runtime-obfuscation", Severity::kLow},
    {"threat-runtime-screencapture", Severity::kMedium},
    {"threat-runtime-self-propagation", Severity::kHigh},
    {"threat-runtime-system-info", Severity::kLow},
    {"threat-setup-import-aliasing", Severity::kHigh},
    {"threat-setup-network-in-install", Severity::kHigh},
    {"threat-setup-suspicious-imports", Severity::kHigh},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Directories no install runs and no import reaches.
bool not_installed_dir(std::string_view d) {
  static constexpr std::array<std::string_view, 20> kDirs{"test",    "tests",    "__tests__", "testing",   "spec",
                                                          "specs",   "doc",      "docs",      "example",   "examples",
                                                          "sample",  "samples",  "bench",     "benchmark", "benchmarks",
                                                          "fixture", "fixtures", "test_data", "testdata",  "__mocks__"};
  return std::find(kDirs.begin(), kDirs.end(), d) != kDirs.end();
}

// Directories that hold another project's code, copied in.
bool vendored_dir(std::string_view d) {
  static constexpr std::array<std::string_view, 7> kDirs{"_vendor",    "vendor",       "vendored",        "third_party",
                                                         "thirdparty", "node_modules", "bower_components"};
  return std::find(kDirs.begin(), kDirs.end(), d) != kDirs.end();
}

// A minified or packed bundle: one line holding many libraries.
bool minified_file(std::string_view f) {
  for (std::string_view tail : {".min.js", ".min.mjs", ".min.cjs", ".bundle.js", "-bundle.js", ".packed.js"}) {
    if (f.size() > tail.size() && f.ends_with(tail)) return true;
  }
  return false;
}

// The non-empty '/'-separated parts of a path: "a//b/c" → a, b, c.
std::vector<std::string_view> parts_of(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (i > start) parts.push_back(path.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

bool test_file(std::string_view f) {
  auto ends = [&](std::string_view s) { return f.size() > s.size() && f.ends_with(s); };
  if (f.starts_with("test_") && ends(".py")) return true;
  if (ends("_test.py") || f == "conftest.py") return true;
  for (std::string_view js : {".test.js", ".spec.js", ".test.ts", ".spec.ts", ".test.mjs", ".spec.mjs", ".test.cjs",
                              ".test.jsx", ".test.tsx"}) {
    if (ends(js)) return true;
  }
  return false;
}

}  // namespace

std::string_view file_of(std::string_view location) {
  if (auto colon = location.rfind(':'); colon != std::string_view::npos) {
    std::string_view tail = location.substr(colon + 1);
    if (!tail.empty() && std::all_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      location = location.substr(0, colon);
    }
  }
  return location;
}

Place place_of(std::string_view location) {
  const std::string path = lower(file_of(location));
  const std::vector<std::string_view> parts = parts_of(path);
  if (parts.empty()) return Place::kRuntime;
  const std::string_view file = parts.back();
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (not_installed_dir(parts[i])) return Place::kNotInstalled;
  }
  if (test_file(file)) return Place::kNotInstalled;
  // setup.py at the sdist's root ("name-1.0/setup.py") or the archive's; a .pth anywhere
  // (site-packages runs its import lines at every interpreter start).
  if ((file == "setup.py" && parts.size() <= 2) || file.ends_with(".pth")) return Place::kInstallTime;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (vendored_dir(parts[i])) return Place::kBundled;
  }
  if (minified_file(file)) return Place::kBundled;
  return Place::kRuntime;
}

Severity at(Severity base, Place p) {
  switch (p) {
    case Place::kNotInstalled:
      return std::min(base, Severity::kLow);
    case Place::kInstallTime:
      if (base == Severity::kMedium) return Severity::kHigh;
      if (base == Severity::kHigh) return Severity::kCritical;
      return base;
    case Place::kBundled:
      if (base == Severity::kCritical) return Severity::kHigh;
      if (base == Severity::kHigh) return Severity::kMedium;
      if (base == Severity::kMedium) return Severity::kLow;
      return base;
    case Place::kRuntime:
      return base;
  }
  return base;
}

unsigned behaviour_of(std::string_view rule) {
  // Each row: a rule, or a prefix ending in '-', and what a hit of it says the code does.
  static constexpr std::array<std::pair<std::string_view, unsigned>, 32> kRows{{
      {"capability-network-", kNetwork},
      {"capability-network-outbound", kConnect},
      {"threat-network-", kNetwork},
      {"threat-setup-network-in-install", kNetwork},
      {"threat-network-exfil-sysinfo", kNetwork | kCollect},
      {"threat-process-download-exec", kConnect | kExecute},
      {"capability-process-spawn", kExecute},
      {"threat-process-spawn-silent", kExecute},
      {"threat-process-powershell-encoded", kExecute | kConceal},
      {"threat-process-injection-dll", kExecute},
      {"threat-process-memory", kExecute},
      {"threat-runtime-dynamic-loader", kExecute},
      {"threat-runtime-obfuscation-dynamic-eval", kExecute | kConceal},
      {"threat-runtime-obfuscation-import-exec", kExecute | kConceal},
      {"threat-runtime-obfuscation-base64exec", kExecute | kConceal},
      {"threat-runtime-obfuscation", kConceal},
      {"threat-runtime-obfuscation-", kConceal},
      {"capability-filesystem-browser", kCollect},
      {"capability-runtime-clipboard", kCollect},
      {"threat-filesystem-read", kCollect},
      {"threat-runtime-environment-read", kCollect},
      {"threat-runtime-system-info", kCollect},
      {"threat-process-sysinfo", kCollect},
      {"threat-runtime-enumeration", kCollect},
      {"threat-runtime-keylogging", kCollect},
      {"threat-runtime-screencapture", kCollect},
      {"threat-filesystem-autostart", kPersist},
      {"capability-process-schedule", kPersist},
      {"capability-filesystem-write-executable", kPersist},
      {"threat-process-cryptomining", kExecute},
      {"threat-runtime-self-propagation", kPersist | kNetwork},
      {"threat-setup-suspicious-imports", kNetwork},
  }};
  // The exact row wins over a prefix ("threat-runtime-obfuscation-base64exec" executes too).
  for (const auto& [r, b] : kRows) {
    if (r == rule) return b;
  }
  for (const auto& [r, b] : kRows) {
    if (r.ends_with('-') && rule.starts_with(r)) return b;
  }
  return kNoBehaviour;
}

std::string behaviour_names(unsigned set) {
  static constexpr std::array<std::pair<unsigned, std::string_view>, 6> kNames{{{kNetwork, "network"},
                                                                                {kConnect, "connect"},
                                                                                {kExecute, "execute"},
                                                                                {kCollect, "collect"},
                                                                                {kConceal, "conceal"},
                                                                                {kPersist, "persist"}}};
  std::string out;
  for (const auto& [b, name] : kNames) {
    if ((set & b) == 0) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

bool runs_at_import(std::string_view location) {
  const std::vector<std::string_view> parts = parts_of(file_of(location));
  if (parts.empty() || !parts.back().ends_with(".py") || parts.back() == "setup.py") return false;
  // An sdist's top directory is "<name>-<version>": a dash followed by a digit.
  auto sdist_top = [](std::string_view d) {
    for (std::size_t i = 0; i + 1 < d.size(); ++i) {
      if (d[i] == '-' && d[i + 1] >= '0' && d[i + 1] <= '9') return true;
    }
    return false;
  };
  // Parts from the installed root to the file, the file included: an sdist's top directory
  // and its src/ are not installed.
  std::size_t below = parts.size();
  const bool sdist = parts.size() >= 2 && sdist_top(parts[0]);
  if (sdist) {
    --below;
    if (parts.size() >= 3 && parts[1] == "src") --below;
  }
  if (parts.back() == "__init__.py") return below == 2;
  // A module at an sdist's top is its build's (setupbase.py, hatch_build.py): nothing
  // installs it; a wheel's top-level module is installed as it stands.
  return below == 1 && !sdist;
}

bool unspecific_to_guarddog(std::string_view rule) {
  // GuardDog's own meta: high severity with low or medium specificity. On the 2,187 archives
  // scored on 2026-12-06, raising these at install blocked three benign packages alone
  // (lsassy, pypykatz, seleniumbase) and decided no malicious archive alone
  // (docs/verdicts.md, "Per rule"): what a setup.py does is read by the rules that are specific.
  static constexpr std::array<std::string_view, 8> kRules{"threat-filesystem-read",
                                                          "threat-network-exfiltration",
                                                          "threat-process-download-exec",
                                                          "threat-process-injection-dll",
                                                          "threat-process-memory",
                                                          "threat-runtime-keylogging",
                                                          "threat-runtime-obfuscation-base64exec",
                                                          "threat-runtime-obfuscation-steganography"};
  return std::find(kRules.begin(), kRules.end(), rule) != kRules.end();
}

bool unspecific(std::string_view rule) {
  // The rows the table rates below GuardDog's own severity because ordinary libraries match
  // them: GuardDog's own unspecific rules, and six the corpus showed in libraries. One of
  // these is no evidence of intent, and three of them are a big library. (Reverse shell and
  // dependency confusion, lowered for one benign package each, still count.)
  static constexpr std::array<std::string_view, 6> kInLibraries{
      "threat-runtime-dynamic-loader", "threat-filesystem-autostart",    "threat-filesystem-destruction",
      "threat-network-exfil-sysinfo",  "threat-network-exfil-messenger", "threat-process-cryptomining"};
  return unspecific_to_guarddog(rule) ||
         std::find(kInLibraries.begin(), kInLibraries.end(), rule) != kInLibraries.end();
}

std::optional<Severity> guarddog_base(std::string_view rule) {
  for (const auto& [r, s] : kGuardDog) {
    if (r == rule) return s;
  }
  return std::nullopt;
}

}  // namespace batlehub::adapters::finding_model
