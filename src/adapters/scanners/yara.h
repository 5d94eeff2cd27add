// YARA as a consumer of the sandbox port: Debian's `yara` 4.2 CLI (upstream's fourth
// scanner runs yara-x's `yr`; upstream-today.md §1.2).
//
// The rules are bytes, never a path: the server reads the operator's rules file on the
// worker and hands its contents in; they travel in the bundle as the inline entry
// `rules.yar`. The artifact is an archive entry extracted at `scan/tree` (no wrapper
// strip; a gem's data.tar.gz descended in place, wire 2); an artifact the agent cannot
// extract is Unsupported. The argv
//
//   yara --recursive --print-tags --print-meta --no-follow-symlinks rules.yar scan
//
// uses paths relative to the work directory, which is the scanner's cwd on every runtime
// (under `none` the work dir is a TempDir, not /work). No network. Exit 0 is the answer,
// matches or none; any other exit is Crashed.
//
// yara 4.2 prints no JSON. With both --print-tags and --print-meta each match is one line
//
//   RULE [TAG,…] [KEY="escaped",KEY =INT,KEY=true,…] PATH
//
// (4.2.3 prints an integer meta as `KEY =INT`). No --print-strings: matched bytes are the
// artifact's, and the findings do not need them. PATH is the artifact's own file name and
// may hold a newline: a line that is not a match line continues the previous match's
// path. A match line must also name a rule the rules text declares, so a directory named
// "x\nsome_rule [] [] scan/y" can forge a match only of a rule that exists — which only
// adds a finding to its own package — and can never make a real match vanish or turn it
// into an error. A first line that is not a match line is an Output error.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/scanner.h"

namespace batlehub::adapters {

struct YaraOptions {
  std::string name = "yara";     // the [scanners.<name>] name: findings, labels, room
  std::string command = "yara";  // argv[0], inside the room / image
  std::string rules;             // the rules file's bytes, read on the worker
  core::Limits limits;
  std::chrono::milliseconds timeout{600'000};
};

// One line of yara's output (plus the continuation lines of its path).
struct YaraMatch {
  std::string rule;
  std::vector<std::string> tags;
  // In yara's order. A string's escapes are decoded (its bytes may not be UTF-8); an
  // integer is a JSON number, a boolean a JSON boolean.
  std::vector<std::pair<std::string, nlohmann::json>> meta;
  std::string path;  // as yara printed it: "scan/tree/…", raw bytes

  bool operator==(const YaraMatch&) const = default;
};

// yara's stdout as matches; Output when the first line is not a match line. `scan_root` is
// the directory argument yara was given: every match line's path begins with it. When
// `rules` is not empty, a match line must name one of them.
Expected<std::vector<YaraMatch>, core::ScannerError> parse_yara_output(std::string_view stdout_bytes,
                                                                       std::string_view scan_root = "scan",
                                                                       const std::set<std::string>& rules = {});

// The identifiers after each `rule` keyword in a rules text (a superset: a `rule` in a
// comment or a string counts too, which only makes the check above weaker, never wrong).
std::set<std::string> yara_rule_names(std::string_view rules_text);

class YaraScanner final : public core::Scanner {
 public:
  explicit YaraScanner(YaraOptions options)
      : options_(std::move(options)), rule_names_(yara_rule_names(options_.rules)) {}

  const std::string& name() const override { return options_.name; }
  // Every kind: any artifact the agent can extract.
  bool supports(core::PackageKind) const override { return true; }
  // One run. Unsupported without an artifact; Other when the rules are empty (an empty
  // rules file matches nothing, which would read as a clean answer) or larger than a bundle
  // carries inline (wire::kInlineEntryMaxBytes).
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput& in) const override;
  // One finding per match (kind malware_signal, code MALWARE_SIGNAL, severity from the
  // rule's `severity` meta, else high; summary "<rule> matched <path in the artifact>",
  // reference the rule), sorted by path then rule. At most kMaxFindings: past that, the
  // last finding counts the rest at their highest severity.
  Expected<std::vector<core::Finding>, core::ScannerError> parse(
      const core::ScanInput& in, const std::vector<core::RunOutcome>& results) const override;

  // Findings from yara's stdout (what parse() does with a run that exited 0).
  Expected<std::vector<core::Finding>, core::ScannerError> findings(std::string_view stdout_bytes) const;

  static constexpr std::size_t kMaxFindings = 1000;
  const YaraOptions& options() const { return options_; }

 private:
  YaraOptions options_;
  std::set<std::string> rule_names_;
};

}  // namespace batlehub::adapters
