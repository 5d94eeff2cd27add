// batlehub-behavior as a consumer of the sandbox port: the detonation (src/behavior/), which
// installs and imports a package inside the walls and reports what its processes did — the
// programs they started, the names they asked, the connections they opened and what they
// sent, the decoy credentials they read, the files they wrote outside the install tree.
//
// npm: the tarball is extracted at `pkg` (its `package/` wrapper stripped) and the argv is
// `batlehub-behavior npm pkg`; PyPI: the archive is placed as it is at `in/artifact` and the
// argv is `batlehub-behavior pypi in/artifact`. No network: the sandbox's network is the
// observer's sink. Other kinds are not detonated (Unsupported): crates, gems and jars run no
// code of theirs at install that an import could reach here.
//
// The trace is weighed here, outside the walls (docs/verdicts.md, "behavior"): a decoy's
// canary in anything sent is critical; host identity sent, a token store read, persistence
// written, a downloaded program run, a shell bound to a connection are high; network at
// install or import, a credential file of a tool read, a downloader started, a process left
// running are medium. Only what happened at install or import counts, never the
// preparation of the venv, and never the phase's own program (pip, the hook's `sh -c`).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scanner.h"

namespace batlehub::adapters {

struct BehaviorOptions {
  std::string name = "behavior";
  std::string command = "batlehub-behavior";
  core::Limits limits;
  std::chrono::milliseconds timeout{600'000};
  std::chrono::milliseconds install_timeout{120'000};  // each install phase (pip install; an npm hook)
  std::chrono::milliseconds import_timeout{20'000};    // each import (a module; the package's require)
};

struct BehaviorEvent {
  std::string kind;  // exec, connect, dns, stream, datagram, decoy-open, write, left-running, limit
  std::string phase;
  std::string path, resolved, family, address, host, qtype, protocol, request_line, head, decoy, what;
  std::string view;  // "windows": seen in a phase whose package code read Windows' answers
  std::string stdin_kind;  // exec: "socket" or "terminal" when its input was one
  std::vector<std::string> argv;
  std::uint16_t port = 0;
  bool write = false, canary = false, identity = false, written = false;
  std::uint64_t bytes = 0, count = 0;
  bool operator==(const BehaviorEvent&) const = default;
};

struct BehaviorPhase {
  std::string phase;
  bool started = false;
  bool timed_out = false;
  std::optional<int> exit_code;
  std::string output_tail;
  bool operator==(const BehaviorPhase&) const = default;
};

struct BehaviorTrace {
  std::string ecosystem;
  std::string home;  // the decoy home the phases ran with
  std::vector<BehaviorPhase> phases;
  std::vector<BehaviorEvent> events;
};

// The scanner's stdout as a trace: refused (Output) over kBehaviorMaxBytes, with more than
// kBehaviorMaxEvents events, or when it is not the document batlehub-behavior writes. Every
// string is the package's doing: kept to kBehaviorMaxField bytes.
constexpr std::size_t kBehaviorMaxBytes = 16 * 1024 * 1024;
constexpr std::size_t kBehaviorMaxEvents = 8192;
constexpr std::size_t kBehaviorMaxField = 4096;
Expected<BehaviorTrace, core::ScannerError> parse_behavior_output(std::string_view stdout_bytes);

// The findings the trace adds up to (docs/verdicts.md, "behavior").
std::vector<core::Finding> weigh_behavior(const BehaviorTrace& trace, const std::string& scanner);

// The observer's own check, which the worker's probe runs in the behavior room once the
// agent's walls hold (`batlehub-behavior self-test`, src/behavior/detonate.h), and its
// judge: nullopt when the trace shows the helper's shell, its read of the decoy key, the
// name it asked, its connection and the key in what it sent; else what the observer missed.
core::RunSpec self_test_run(const BehaviorOptions& options);
std::optional<std::string> judge_self_test(const core::RunOutcome& outcome);

class BehaviorScanner final : public core::Scanner {
 public:
  explicit BehaviorScanner(BehaviorOptions options) : options_(std::move(options)) {}
  const std::string& name() const override { return options_.name; }
  bool supports(core::PackageKind k) const override {
    return k == core::PackageKind::kNpm || k == core::PackageKind::kPypi;
  }
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput& in) const override;
  Expected<std::vector<core::Finding>, core::ScannerError> parse(
      const core::ScanInput& in, const std::vector<core::RunOutcome>& results) const override;
  const BehaviorOptions& options() const { return options_; }

 private:
  BehaviorOptions options_;
};

}  // namespace batlehub::adapters
