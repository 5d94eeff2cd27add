// The local runtimes' per-run directory: written with the bundle before the sandbox
// starts, read for out.tar after it has ended, removed whatever happened.
#pragma once

#include <string>

#include "core/sandbox.h"

namespace batlehub::adapters {

// A fresh private directory (0700) under a parent, removed with everything in it on
// destruction.
class TempDir {
 public:
  static Expected<TempDir, std::string> create(const std::string& parent, const std::string& prefix);
  // A run's or a probe's directory: "batlehub-<what>-<pid>-<label>-XXXXXX", so that a sweep
  // can tell whose it is once its worker is gone (a `kill -9` leaves it behind).
  static Expected<TempDir, std::string> create_owned(const std::string& parent, std::string_view what,
                                                     const std::string& label);
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string p) : path_(std::move(p)) {}
  std::string path_;
};

// Removes the run and probe directories under `scratch_dir` (create_owned's) whose worker
// is gone (its pid no longer runs), or that are older than `older_than` and not this
// process's. Nothing is followed: a link the scanner left inside is removed, not its target.
std::size_t sweep_run_dirs(const std::string& scratch_dir, std::chrono::seconds older_than);

// Where, inside the sandbox, the run directory is seen: "/work" under bwrap, the host path
// itself under none.
struct RunDirView {
  std::string host;     // the directory on the worker's filesystem
  std::string sandbox;  // the same directory as the agent sees it
};

// Writes manifest.json and every blob the bundle names into the run dir, and returns the
// manifest it wrote. Blobs go to <dir>/.batlehub-in/<n>; their URLs are file:// under
// `view.sandbox`.
Expected<wire::Manifest, core::SandboxError> write_bundle(const core::RunSpec& spec, const RunDirView& view);

// Writes a manifest as-is (the probe's).
Expected<Ok, core::SandboxError> write_manifest(const wire::Manifest& m, const std::string& host_dir);

// Reads <dir>/out.tar (never following a link, refusing it over kOutTarMaxBytes before
// reading) and turns it into the run's outcome: a RunOutput, or the SandboxError its result
// says. `program` names the scanner in messages.
Expected<core::RunOutput, core::SandboxError> collect(const std::string& host_dir, const std::string& program);

// Reads the result alone (the probe's), or says why there is none.
Expected<wire::RunResult, core::SandboxError> read_result(const std::string& host_dir);

// The same two, from out.tar's bytes however they came back (the storage transport reads
// them from its bundle backend). A tar over kOutTarMaxBytes is refused unread.
Expected<core::RunOutput, core::SandboxError> collect_tar(const std::string& tar, const std::string& program);
Expected<wire::RunResult, core::SandboxError> read_result_tar(const std::string& tar);

}  // namespace batlehub::adapters
