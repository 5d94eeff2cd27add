// GuardDog (DataDog, 3.2.0) as a consumer of the sandbox port (upstream's guarddog.rs,
// upstream-today.md §2.3).
//
// One run: the artifact as an archive entry extracted at `package` (no wrapper strip), no
// network, and the argv
//
//   guarddog <npm|pypi|go> scan package --output-format json
//
// `package` is relative to the work directory, the scanner's cwd on every runtime: under
// `none` the work dir is a TempDir, not /work, and GuardDog echoes the target as given in
// its report's "package", so a relative target also keeps the output identical across
// runtimes. Exit 0 or 1 is an answer; any other exit is Crashed("guarddog exited N: …").
//
// What GuardDog 3.2.0 really prints for a local scan (recorded in tests/fixtures/guarddog/)
// is not upstream's "documented" shape: `results` sits at the TOP level of the object
// (upstream looked for `result.results` only), a source-code rule with no hit is `{}`
// rather than an empty list, a metadata rule's value is null or a message string, and each
// hit carries a `match` besides `location`, `code` and `message`. This adapter reads the
// real shape and upstream's: an object, or an array of objects, any of which carries a
// `results` map at its top level or under `result`. None at all is an Output error — an
// unknown shape is never a clean answer.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scanner.h"

namespace batlehub::adapters {

struct GuardDogOptions {
  std::string name = "guarddog";        // the [scanners.<name>] name: findings, labels, room
  std::string command = "guarddog";     // argv[0], inside the room / image
  std::vector<std::string> ecosystems;  // among npm, pypi, go; empty = all three
  core::Limits limits;
  std::chrono::milliseconds timeout{600'000};
};

class GuardDogScanner final : public core::Scanner {
 public:
  explicit GuardDogScanner(GuardDogOptions options) : options_(std::move(options)) {}

  // GuardDog's name for a kind's ecosystem: npm → npm, pypi → pypi, goproxy → go.
  static std::optional<std::string_view> ecosystem_of(core::PackageKind k);

  const std::string& name() const override { return options_.name; }
  // The kinds with an ecosystem, restricted to `ecosystems` when it is not empty.
  bool supports(core::PackageKind k) const override;
  // One run. Unsupported without an artifact or for a kind it does not support.
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput& in) const override;
  Expected<std::vector<core::Finding>, core::ScannerError> parse(
      const core::ScanInput& in, const std::vector<core::RunOutcome>& results) const override;

  // Findings from a GuardDog JSON document, by rule name (lower-cased), as upstream maps
  // them: `install`, `exec-base64` or `cmd-overwrite` → install_hook / INSTALL_HOOK / high;
  // `typosquat` → typosquat / TYPOSQUAT_SUSPECT / medium; `exfiltrat`, `steganography` or
  // `shady` → malware_signal / high; anything else → malware_signal / medium. Summary
  // "rule: message (location)", reference the rule, raw the hit.
  Expected<std::vector<core::Finding>, core::ScannerError> map(const nlohmann::json& doc) const;

  const GuardDogOptions& options() const { return options_; }

 private:
  GuardDogOptions options_;
};

}  // namespace batlehub::adapters
