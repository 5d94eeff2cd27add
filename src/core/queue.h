// The scan queue: upstream's RFC 0018 job queue as a port (upstream-today.md §6), with the
// verdicts and findings it records and the dedup tables that say where artifacts are —
// upstream's tables, columns and value sets (upstream-storage-and-queue.md Part B, A.6).
// Two adapters: PostgreSQL, upstream's own database or an empty one (many workers on many
// hosts), and SQLite, one file under the worker's state directory (one host), which holds
// the same shapes as SQLite spells them. Both keep the same semantics, and
// tests/adapters/queue_test.cc runs the same cases against each:
//
// - one open job per coordinate: enqueue is idempotent;
// - lease: open jobs (not completed, lease null or expired, attempts < max_attempts, registry
//   in the worker's list when it has one), at most `max`, each getting leased_until = now +
//   lease_secs, leased_by = worker, attempts + 1 — atomically, so that two workers never
//   hold one job at once. Upstream's two picks: max−1 by priority then age, then one by
//   lowest priority first (anti-starvation);
// - heartbeat extends a lease the worker still holds; complete and fail act only on a job
//   the worker still holds (a worker whose lease expired and was taken over records nothing:
//   a verdict is recorded once);
// - exhausted jobs (attempts >= max_attempts, no live lease) are closed by a worker with
//   the verdict it gives them.
//
// Times are seconds since the Unix epoch, from the adapter's clock (PostgreSQL's now() for
// PostgreSQL, so that workers on many hosts agree).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "core/findings.h"
#include "core/verdict.h"

namespace batlehub::core {

// Why a job was queued; the number is its priority (lower first), as upstream.
enum class Trigger { kFirstSeen = 0, kWebhook = 1, kRescan = 2, kBackfill = 3 };
std::string_view to_string(Trigger t);  // first_seen, webhook, rescan, backfill
std::optional<Trigger> parse_trigger(std::string_view s);

struct QueueError {
  // "sqlite /var/lib/batlehub/queue.sqlite3: database is locked", "postgresql: …": what
  // failed and where, on one line.
  std::string message;
};

// What upstream's proxy inserts (B.3 "Enqueue"). No kind: the worker derives it from the
// registry's `[[registries]]` entry.
struct JobRequest {
  Coordinate coordinate;
  std::optional<std::int64_t> published_at;  // the registry's publish date, for the age rule
  Trigger trigger = Trigger::kFirstSeen;
};

struct Enqueued {
  std::string job_id;
  bool created = false;  // false: an open job for the coordinate already existed (its id)
};

// A scan_jobs row (B.2), times in seconds since the epoch.
struct ScanJob {
  std::string id;
  Coordinate coordinate;
  std::optional<std::int64_t> published_at;
  Trigger trigger = Trigger::kFirstSeen;
  std::int64_t attempts = 0;  // including the lease that returned it
  std::int64_t leased_until = 0;
  std::string leased_by;
  std::int64_t created_at = 0;
  std::optional<std::int64_t> completed_at;
  std::string last_error;
};

struct LeaseRequest {
  std::string worker_id;  // <hostname>-<pid>
  std::int64_t max = 1;
  std::int64_t lease_secs = 600;  // [worker] job_timeout_secs
  std::int64_t max_attempts = 3;
  std::vector<std::string> registries;  // empty = every registry
};

// A verdict as recorded: the evaluation plus when it happened.
struct RecordedVerdict {
  Verdict verdict;
  std::int64_t evaluated_at = 0;
  std::optional<std::int64_t> last_scanned_at;  // unset when no scanner answered
};

// Where upstream's deduplicating router says a logical key's bytes are
// (upstream-storage-and-queue.md A.6): its dedup ref and the content's row, and the backend
// artifact_storage names for the key. A key artifact_storage knows but no dedup ref names
// (upstream's legacy layout: the object stored at the key itself) has no content fields.
struct CachedArtifactRow {
  std::string logical_key;
  std::string content_hash;  // sha256, lowercase hex, as the router recorded it; "" without a ref
  std::string content_key;   // "blob/<sha256>"; "" without a ref
  std::optional<std::int64_t> size_bytes;
  std::optional<std::string> backend_name;  // artifact_storage's, when it has a row
};

// For the metrics: batlehub_scan_jobs_queued{registry, trigger}, …_leased{worker}.
struct QueueCounts {
  std::map<std::pair<std::string, std::string>, std::int64_t> queued;  // (registry, trigger) → open (B.3's depth)
  std::map<std::string, std::int64_t> leased;                          // worker → live leases
};

class ScanQueue {
 public:
  virtual ~ScanQueue() = default;

  // "sqlite" or "postgresql".
  virtual std::string_view backend() const = 0;

  virtual Expected<Enqueued, QueueError> enqueue(const JobRequest& r) = 0;
  virtual Expected<std::vector<ScanJob>, QueueError> lease(const LeaseRequest& r) = 0;
  // false: the worker no longer holds the job (its lease expired and another took it, or
  // it was completed).
  virtual Expected<bool, QueueError> heartbeat(const std::string& job_id, const std::string& worker_id,
                                               std::int64_t lease_secs) = 0;
  // Records the verdict (replacing the coordinate's previous one and its findings) and
  // completes the job, in one transaction. false, and nothing recorded: the worker no
  // longer holds the job.
  virtual Expected<bool, QueueError> complete(const std::string& job_id, const std::string& worker_id,
                                              const RecordedVerdict& v) = 0;
  // Completes a job the worker holds and records nothing: upstream drops the job of a
  // registry that has no security profile (upstream-today.md §6). false: not held.
  virtual Expected<bool, QueueError> drop(const std::string& job_id, const std::string& worker_id) = 0;
  // The same for an exhausted job (B.3: "If the registry no longer has a security profile,
  // just complete it").
  virtual Expected<bool, QueueError> drop_exhausted(const std::string& job_id, std::int64_t max_attempts) = 0;
  // Clears the lease and records the error; the attempt stays spent. false: not held.
  virtual Expected<bool, QueueError> fail(const std::string& job_id, const std::string& worker_id,
                                          const std::string& error) = 0;
  // Open jobs whose attempts are spent and whose lease (if any) has expired, oldest first, at
  // most `limit` (upstream closes max_concurrent per pass).
  virtual Expected<std::vector<ScanJob>, QueueError> exhausted(std::int64_t max_attempts, std::int64_t limit) = 0;
  // Records the verdict and completes an exhausted job (it holds no live lease). false:
  // it was closed already, or is no longer exhausted.
  virtual Expected<bool, QueueError> close_exhausted(const std::string& job_id, std::int64_t max_attempts,
                                                     const RecordedVerdict& v) = 0;

  // The latest recorded verdict of a coordinate, findings included.
  virtual Expected<std::optional<RecordedVerdict>, QueueError> verdict(const std::string& registry,
                                                                       const std::string& name,
                                                                       const std::string& version) = 0;
  // The coordinate's open job, if any.
  virtual Expected<std::optional<ScanJob>, QueueError> open_job(const std::string& registry, const std::string& name,
                                                                const std::string& version) = 0;
  // Every job ever queued for the coordinate, oldest first (tests and `batlehub why` use it).
  virtual Expected<std::vector<ScanJob>, QueueError> jobs(const std::string& registry, const std::string& name,
                                                          const std::string& version) = 0;

  // The rows of `key` (prefix = false) or of every key starting with it, in key order, at
  // most kMaxCachedArtifactRows.
  static constexpr int kMaxCachedArtifactRows = 16;
  virtual Expected<std::vector<CachedArtifactRow>, QueueError> cached_artifacts(const std::string& key,
                                                                                bool prefix) = 0;
  // What upstream's router records when it stores `logical_key` on `backend_name` as
  // blob/<sha256> (A.6): the content's row (a new reference counted), the key's ref, and
  // where the key was written. Storing a key again with the same content changes nothing.
  virtual Expected<Ok, QueueError> record_artifact(const std::string& logical_key, const std::string& sha256,
                                                   std::int64_t size_bytes, const std::string& backend_name) = 0;

  virtual Expected<bool, QueueError> worker_heartbeat(const std::string& worker_id,
                                                      const std::vector<std::string>& registries) = 0;
  virtual Expected<QueueCounts, QueueError> counts() = 0;
  // The adapter's clock, in seconds since the epoch.
  virtual Expected<std::int64_t, QueueError> now() = 0;
};

}  // namespace batlehub::core
