// batlehub-signals as a consumer of the sandbox port: our own static scanner
// (src/signals/), which reads a package's source for what it would do and reports facts,
// one JSON object per line, ending with a "done" line. The artifact is an archive entry
// extracted at `scan/tree`; the argv is `batlehub-signals scan/tree`; no network. Exit 0
// with the done line is the answer; anything else is Crashed, and output without the done
// line is Output (cut short).
//
// The facts are weighed here, outside the walls, where the rest of the verdict model lives
// (finding_model.h, docs/verdicts.md "batlehub-signals"): a decoded payload that is
// executed, a dropper's or a miner's or a reverse shell's command line, and what a file
// collects together with how it sends — high when a token store is read and sent anywhere,
// or when host identity, the environment or a credential file is read and sent by code that
// runs at install or at import (an npm install hook's script, setup.py, a .pth, a
// top-level __init__.py, npm's entry point). A place moves it as it moves any rule's hit:
// low in tests and docs, one step up at install, one step down in a vendored copy.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "core/scanner.h"

namespace batlehub::adapters {

struct SignalsOptions {
  std::string name = "signals";
  std::string command = "batlehub-signals";
  core::Limits limits;
  std::chrono::milliseconds timeout{600'000};
};

// One line of batlehub-signals' output.
struct SignalsFact {
  std::string
      fact;  // decoded-executed, decoded-code, decoding-bomb, shell, collect, send, runs-at-install, runs-at-require
  std::string
      what;  // the fact's class (shell: download-executed…; collect: host, environment, token-store, credential-file)
  std::string file;  // relative to the package's tree
  std::size_t line = 0;
  std::string phase;  // "install", "require" or "" (npm's package.json says; Python's place is by path)
  std::string detail;
  bool operator==(const SignalsFact&) const = default;
};

// The scanner's stdout as facts. Output error when a line is not a JSON object of that
// shape, when there are more than kMaxLines lines or a line over kMaxLineBytes, or when
// the "done" line is missing (the run was cut short).
constexpr std::size_t kSignalsMaxLines = 4096;
constexpr std::size_t kSignalsMaxLineBytes = 16 * 1024;
Expected<std::vector<SignalsFact>, core::ScannerError> parse_signals_output(std::string_view stdout_bytes);

// The findings the facts add up to (docs/verdicts.md, "batlehub-signals").
std::vector<core::Finding> weigh_signals(const std::vector<SignalsFact>& facts, const std::string& scanner);

class SignalsScanner final : public core::Scanner {
 public:
  explicit SignalsScanner(SignalsOptions options) : options_(std::move(options)) {}
  const std::string& name() const override { return options_.name; }
  bool supports(core::PackageKind) const override { return true; }
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput& in) const override;
  Expected<std::vector<core::Finding>, core::ScannerError> parse(
      const core::ScanInput& in, const std::vector<core::RunOutcome>& results) const override;
  const SignalsOptions& options() const { return options_; }

 private:
  SignalsOptions options_;
};

}  // namespace batlehub::adapters
