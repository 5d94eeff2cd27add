// postmortem (mlab.sh) as a consumer of the sandbox port (RFC 0022 §6.3; upstream's
// postmortem.rs, upstream-today.md §2.2).
//
// postmortem scans a project directory: it recognises the ecosystem from a lockfile and a
// manifest at the root and walks the tree for source-level signals. plan() describes that
// project as data — the artifact as an archive entry extracted where the ecosystem keeps a
// dependency (wrapper stripped), the synthetic lockfile and manifest inline at the work
// root, written from the coordinate and never by the ecosystem's own tool — and the argv
//
//   postmortem scan . --json -o - --no-config --no-progress --severity critical [--enrich]
//
// `--no-config` is not optional (a postmortem.conf shipped in the tarball would otherwise
// suppress its own findings). For npm with `timeline`, a second run: an EMPTY bundle with
// the network on, `postmortem timeline <name> --json -o - --no-progress` (RFC 0022 §4.2:
// the run that reaches the network never shares a filesystem with the artifact).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scanner.h"

namespace batlehub::adapters {

struct PostmortemOptions {
  std::string name = "postmortem";     // the [scanners.<name>] name: findings, labels, room
  std::string command = "postmortem";  // argv[0], inside the room / image
  bool online = false;                 // `--enrich`, and the scan run gets the network
  bool timeline = true;                // npm only: the second, empty-bundle, network-on run
  core::Limits limits;
  std::chrono::milliseconds timeout{600'000};
};

// Where one ecosystem keeps a dependency, and what pins it (upstream-today.md §2.2).
struct PostmortemLayout {
  std::string dir;             // relative to the work root: where the artifact's contents land
  std::string lockfile_name;   // at the work root
  std::string lockfile;
  std::optional<std::string> manifest_name;  // at the work root, beside the lockfile
  std::string manifest;
};

// The seven layouts, as upstream writes them but for cargo's dir (`src/<name>-<version>`:
// postmortem reads a Rust project's `<root>/src` and nothing else); nullopt for a kind
// postmortem does not cover. Pure text: the caller validates `dir` as a path.
std::optional<PostmortemLayout> postmortem_layout(core::PackageKind kind, std::string_view name,
                                                  std::string_view version);

class PostmortemScanner final : public core::Scanner {
 public:
  explicit PostmortemScanner(PostmortemOptions options) : options_(std::move(options)) {}

  const std::string& name() const override { return options_.name; }
  // npm, pypi, cargo, rubygems, composer, goproxy, maven.
  bool supports(core::PackageKind k) const override;
  // [scan] or [scan, timeline]. Unsupported without an artifact, for a kind with no layout,
  // or for a name that cannot be a path inside the work directory.
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput& in) const override;
  // The scan run decides: 0 an answer; 1 an answer when stdout holds one, else Crashed
  // (main() returned an error); 2 Unsupported when stderr says no supported ecosystem was
  // detected, else Other (clap refused the command line); any other code, or a signal,
  // Crashed. The timeline's findings are added when it exited 0 and skipped on any other
  // outcome.
  Expected<std::vector<core::Finding>, core::ScannerError> parse(const core::ScanInput& in,
                                                                 const std::vector<core::RunOutcome>& results) const override;

  // The mappings, for tests: `postmortem scan --json` and `postmortem timeline --json`
  // documents to findings. Every category of postmortem's enum is mapped by name
  // (`outdated` is no finding); one it does not define is a SCANNER_ERROR finding naming it.
  // Severity `info` is unknown, below low.
  std::vector<core::Finding> map_scan(const nlohmann::json& doc) const;
  std::vector<core::Finding> map_timeline(const nlohmann::json& doc, std::string_view version) const;

  const PostmortemOptions& options() const { return options_; }

 private:
  PostmortemOptions options_;
};

}  // namespace batlehub::adapters
