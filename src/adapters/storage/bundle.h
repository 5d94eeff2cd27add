// The bundle module of the storage transport (RFC 0022 §5.2): what a run needs, put where a
// sandbox that shares no filesystem with the worker can GET it through a presigned URL, and
// the result brought back through one presigned PUT.
//
// Every bundle operation is on one leaf backend (bundle_backend, else the default), never
// on the router: a presigned PUT lands there with no bookkeeping row, so the router would
// never know the key existed, and a key the sandbox writes must never be resolvable as an
// artifact (§7). The router is asked one thing only: where an artifact's own blob lies, so
// that a cached artifact is presigned in place and not copied.
//
// The keys, under bundle_prefix:
//   <job>/artifact-<sha256>                      an uncached artifact, once per job
//   <job>/<scanner>/<attempt>/<run>/manifest.json
//   <job>/<scanner>/<attempt>/<run>/in-<n>        an input with no content address
//   <job>/<scanner>/<attempt>/<run>/out.tar       the one key the sandbox may write
// <run> is "<pid>@<host>-<serial>": the worker that staged it, which is how a sweep tells a
// dead worker's keys from a live one's.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "adapters/storage/router.h"
#include "core/sandbox.h"
#include "core/storage.h"

namespace batlehub::adapters {

struct BundleOptions {
  std::string prefix = "sandbox/";  // bundle_prefix
  std::chrono::seconds ttl{60};     // bundle_ttl_secs: how long a URL outlives the run's deadline
  std::string worker;               // "<pid>@<host>"
};

// One run's keys and its two URLs: the whole of what the sandbox is given.
struct StagedRun {
  std::string run_prefix;  // <prefix><job>/<scanner>/<attempt>/<run>/
  std::string manifest_key;
  std::string out_key;
  std::string manifest_url;          // presigned GET
  std::string out_url;               // a presigned POST (wire/post_form.h), bounded by kOutTarMaxBytes
  std::uint64_t bytes_uploaded = 0;  // what staging wrote: the manifest, any uploaded input
  std::uint64_t bytes_in_place = 0;  // cached inputs presigned where they lie
};

class BundleStore {
 public:
  // `router` may be null: then no artifact is ever found cached.
  BundleStore(std::shared_ptr<core::StorageBackend> leaf, std::shared_ptr<const StorageRouter> router, BundleOptions o);

  // Writes the manifest (its inputs by presigned URL: a cached artifact's own blob, else the
  // job's one copy, uploaded the first time any run of the job needs it) and presigns the
  // manifest's GET and out.tar's PUT, each valid for `valid_for` + ttl.
  Expected<StagedRun, core::SandboxError> stage(const core::RunSpec& spec, std::chrono::seconds valid_for);
  // A manifest written as-is (the probe's: no inputs).
  Expected<StagedRun, core::SandboxError> stage_manifest(const wire::Manifest& m, const core::RunLabel& label,
                                                         std::chrono::seconds valid_for);

  // out.tar's bytes: a HEAD first, and an object above kOutTarMaxBytes is refused unread
  // whatever the backend accepted. No object: kCrashed with Reason::kNoResult.
  Expected<std::string, core::SandboxError> read_result(const StagedRun& run) const;

  // Deletes the run's keys (manifest, inputs, out.tar): after every run, however it ended.
  void finish(const StagedRun& run);
  // Deletes the job's uploaded artifacts: when the job closes.
  void close_job(const std::string& job);

  // Deletes bundle keys listed on the leaf backend: those staged by a worker of this host
  // that no longer runs, and any older than `older_than`, except the runs in flight here.
  // Counts bundles, not keys: a run's keys are one bundle, an uploaded artifact another.
  Expected<std::size_t, core::StorageError> sweep(std::chrono::seconds older_than);

  const core::StorageBackend& leaf() const { return *leaf_; }
  // Where the bundles go: "s3://cache/sandbox/".
  std::string location() const { return leaf_->location(options_.prefix); }
  const std::string& prefix() const { return options_.prefix; }

 private:
  Expected<std::string, core::SandboxError> input_url(const core::BundleEntry& e, const core::RunLabel& label,
                                                      const std::string& run_prefix, int n, std::chrono::seconds ttl,
                                                      StagedRun& staged);
  Expected<StagedRun, core::SandboxError> write_and_presign(const wire::Manifest& m, StagedRun staged,
                                                            std::chrono::seconds ttl);
  std::string run_prefix(const core::RunLabel& label);

  std::shared_ptr<core::StorageBackend> leaf_;
  std::shared_ptr<const StorageRouter> router_;
  BundleOptions options_;
  mutable std::mutex mu_;
  std::set<std::string> uploaded_;   // <job>/artifact-<sha256> keys this worker wrote
  std::set<std::string> in_flight_;  // run prefixes staged and not finished
  std::uint64_t serial_ = 0;
};

// Finishes a staged run when it goes out of scope: its keys go however the run ended.
class FinishOnExit {
 public:
  FinishOnExit(BundleStore& store, const StagedRun& run) : store_(store), run_(run) {}
  FinishOnExit(const FinishOnExit&) = delete;
  FinishOnExit& operator=(const FinishOnExit&) = delete;
  ~FinishOnExit() { store_.finish(run_); }

 private:
  BundleStore& store_;
  const StagedRun& run_;
};

// A key segment from a label's field: what S3 and a filesystem both take as-is.
std::string bundle_key_segment(std::string_view s);

}  // namespace batlehub::adapters
