#include "adapters/queue/sqlite_queue.h"

#include <openssl/rand.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "adapters/queue/verdict_rows.h"

namespace batlehub::adapters {

namespace {

using core::QueueError;
namespace rows = queue_rows;

// Long enough to wait out another process's transaction (they are all short), short
// enough that a wedged peer shows up as an error rather than a hang.
constexpr int kBusyTimeoutMs = 10'000;

// Applied in order, each once; PRAGMA user_version counts those applied. Append only: a
// released migration is never edited.
//
// Times in this file are milliseconds since the epoch: a one-second lease must last a
// second, not until the next whole second. The port speaks seconds.
//
// Migration 2 gives the file upstream's shapes (upstream-storage-and-queue.md B.2, A.6), as
// far as SQLite spells them: no kind on jobs or verdicts (the worker derives it from the
// registry), findings with a uuid id, confidence, available_at, JSON raw and created_at
// instead of an ordinal, and the dedup tables that say where an artifact's bytes are.
constexpr std::array<std::string_view, 2> kMigrations{
    R"sql(
CREATE TABLE scan_jobs (
  id TEXT PRIMARY KEY,
  registry TEXT NOT NULL,
  package_name TEXT NOT NULL,
  version TEXT NOT NULL,
  kind TEXT NOT NULL,
  published_at INTEGER,
  artifact_sha256 TEXT NOT NULL DEFAULT '',
  "trigger" TEXT NOT NULL,
  priority INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  leased_until INTEGER,
  leased_by TEXT,
  completed_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX scan_jobs_one_open ON scan_jobs (registry, package_name, version) WHERE completed_at IS NULL;
CREATE INDEX scan_jobs_ready ON scan_jobs (priority, created_at) WHERE completed_at IS NULL;
CREATE INDEX scan_jobs_coordinate ON scan_jobs (registry, package_name, version, created_at);
CREATE TABLE artifact_verdicts (
  registry TEXT NOT NULL,
  package_name TEXT NOT NULL,
  version TEXT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  reason_codes TEXT NOT NULL,
  policy_ref TEXT NOT NULL,
  available_at INTEGER,
  evaluated_at INTEGER NOT NULL,
  last_scanned_at INTEGER,
  scanners_done TEXT NOT NULL,
  PRIMARY KEY (registry, package_name, version)
);
CREATE TABLE artifact_findings (
  registry TEXT NOT NULL,
  package_name TEXT NOT NULL,
  version TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  scanner TEXT NOT NULL,
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  severity TEXT NOT NULL,
  reference TEXT,
  summary TEXT NOT NULL,
  raw TEXT NOT NULL,
  PRIMARY KEY (registry, package_name, version, ordinal)
);
CREATE TABLE worker_heartbeats (
  worker_id TEXT PRIMARY KEY,
  last_seen INTEGER NOT NULL,
  registries TEXT NOT NULL
);
)sql",
    R"sql(
ALTER TABLE scan_jobs DROP COLUMN kind;
ALTER TABLE artifact_verdicts DROP COLUMN kind;
CREATE TABLE artifact_findings_v2 (
  id TEXT PRIMARY KEY,
  registry TEXT NOT NULL,
  package_name TEXT NOT NULL,
  version TEXT NOT NULL,
  scanner TEXT NOT NULL,
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  severity TEXT NOT NULL,
  reference TEXT,
  summary TEXT NOT NULL,
  confidence INTEGER,
  available_at INTEGER,
  raw TEXT NOT NULL DEFAULT 'null',
  created_at INTEGER NOT NULL
);
INSERT INTO artifact_findings_v2 (id, registry, package_name, version, scanner, kind, code, severity, reference,
                                  summary, raw, created_at)
  SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2)
           || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-'
           || lower(hex(randomblob(6))),
         f.registry, f.package_name, f.version, f.scanner, f.kind, f.code, f.severity, f.reference, f.summary,
         CASE WHEN f.raw = '' THEN 'null' ELSE f.raw END,
         coalesce(v.evaluated_at, 0) + f.ordinal
  FROM artifact_findings f LEFT JOIN artifact_verdicts v USING (registry, package_name, version);
DROP TABLE artifact_findings;
ALTER TABLE artifact_findings_v2 RENAME TO artifact_findings;
CREATE INDEX artifact_findings_coordinate ON artifact_findings (registry, package_name, version);
CREATE INDEX artifact_verdicts_registry_state ON artifact_verdicts (registry, state);
CREATE TABLE artifact_dedup_index (
  content_hash TEXT PRIMARY KEY,
  content_key TEXT NOT NULL,
  ref_count INTEGER NOT NULL DEFAULT 1,
  size_bytes INTEGER
);
CREATE TABLE artifact_dedup_refs (
  logical_key TEXT PRIMARY KEY,
  content_hash TEXT NOT NULL REFERENCES artifact_dedup_index (content_hash)
);
CREATE INDEX artifact_dedup_refs_content_hash ON artifact_dedup_refs (content_hash);
CREATE TABLE artifact_storage (
  storage_key TEXT PRIMARY KEY,
  backend_name TEXT NOT NULL,
  stored_at INTEGER NOT NULL,
  size_bytes INTEGER
);
CREATE INDEX artifact_storage_backend_name ON artifact_storage (backend_name);
)sql"};

constexpr std::string_view kJobColumns =
    R"(id, registry, package_name, version, published_at, "trigger", attempts, leased_until, leased_by, created_at,
       completed_at, last_error)";
constexpr int kJobColumnCount = 12;

// A job the worker still holds: open, leased by it, the lease live. ?1 job, ?2 worker, ?3 now.
constexpr std::string_view kHeld = "id = ?1 AND leased_by = ?2 AND completed_at IS NULL AND leased_until >= ?3";
// An exhausted job: open, attempts spent, no live lease. ?1 job, ?2 max_attempts, ?3 now.
constexpr std::string_view kExhausted =
    "id = ?1 AND completed_at IS NULL AND attempts >= ?2 AND (leased_until IS NULL OR leased_until < ?3)";

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::int64_t floor_secs(std::int64_t ms) {
  return ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
}
std::optional<std::int64_t> floor_secs(std::optional<std::int64_t> ms) {
  if (!ms) return std::nullopt;
  return floor_secs(*ms);
}
std::optional<std::int64_t> to_ms(std::optional<std::int64_t> secs) {
  if (!secs) return std::nullopt;
  return *secs * 1000;
}

std::string sql(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

class Stmt;

// SQLite's message, and after a failed system call the system's reason with it: "disk I/O
// error" alone does not tell a full disk from a failing one; "(No space left on device)" does.
std::string reason(sqlite3* db, std::string message) {
  const int primary = sqlite3_extended_errcode(db) & 0xff;
  const int os = sqlite3_system_errno(db);
  if (os != 0 && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
    message += " (" + std::string(std::strerror(os)) + ")";
  }
  return message;
}

// The connection and the file's name, for messages.
class Session {
 public:
  Session(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  ~Session() { sqlite3_close_v2(db_); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // "sqlite /path: what: <SQLite's message>".
  Unexpected<QueueError> failure(std::string_view what) const {
    return failure(what, reason(db_, sqlite3_errmsg(db_)));
  }
  Unexpected<QueueError> failure(std::string_view what, std::string_view detail) const {
    return Unexpected(QueueError{"sqlite " + path_ + ": " + std::string(what) + ": " + std::string(detail)});
  }

  // Constant SQL only (migrations, transaction control, pragmas): values are bound, never
  // written into a statement.
  Expected<Ok, QueueError> exec(std::string_view constant_sql) {
    std::string text(constant_sql);
    char* err = nullptr;
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = reason(db_, err ? err : sqlite3_errmsg(db_));
      sqlite3_free(err);
      return failure(first_words(constant_sql), msg);
    }
    return Ok{};
  }

  Expected<Stmt, QueueError> prepare(std::string_view text);

  // Runs `body` in a transaction, committing what it returns and rolling back its errors.
  // BEGIN IMMEDIATE for writes takes the file's write lock up front, so that a
  // read-then-write (a lease, an enqueue, a complete) is atomic across processes and
  // never fails half-way on SQLITE_BUSY.
  template <class F>
  auto transaction(std::string_view begin, F&& body) -> decltype(body()) {
    if (auto b = exec(begin); !b) return Unexpected(b.error());
    auto result = body();
    if (!result) {
      (void)exec("ROLLBACK");
      return result;
    }
    if (auto c = exec("COMMIT"); !c) {
      (void)exec("ROLLBACK");
      return Unexpected(c.error());
    }
    return result;
  }
  template <class F>
  auto write(F&& body) {
    return transaction("BEGIN IMMEDIATE", std::forward<F>(body));
  }
  template <class F>
  auto read(F&& body) {
    return transaction("BEGIN", std::forward<F>(body));
  }

  sqlite3* db() const { return db_; }

 private:
  // A statement's first words name it in a message ("CREATE TABLE scan_jobs").
  static std::string first_words(std::string_view s) {
    std::size_t start = s.find_first_not_of(" \n");
    if (start == std::string_view::npos) return "";
    s.remove_prefix(start);
    std::size_t end = s.find_first_of("(\n;");
    std::string out(s.substr(0, std::min<std::size_t>(end, 40)));
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }

  std::string path_;
  sqlite3* db_;
};

class Stmt {
 public:
  Stmt(Session& session, sqlite3_stmt* s, std::string what) : session_(&session), s_(s), what_(std::move(what)) {}
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(Stmt&& o) noexcept
      : session_(o.session_), s_(std::exchange(o.s_, nullptr)), what_(std::move(o.what_)), bind_rc_(o.bind_rc_) {}
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;

  Stmt& bind(int i, std::string_view v) {
    // A null pointer would bind SQL NULL, not an empty string.
    note(sqlite3_bind_text(s_, i, v.data() ? v.data() : "", static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, std::int64_t v) {
    note(sqlite3_bind_int64(s_, i, v));
    return *this;
  }
  Stmt& bind(int i, const std::optional<std::string>& v) {
    if (!v) return bind_null(i);
    return bind(i, std::string_view(*v));
  }
  Stmt& bind(int i, std::optional<std::int64_t> v) {
    if (!v) return bind_null(i);
    return bind(i, *v);
  }
  Stmt& bind_null(int i) {
    note(sqlite3_bind_null(s_, i));
    return *this;
  }

  // true: a row is ready; false: done.
  Expected<bool, QueueError> step() {
    if (bind_rc_ != SQLITE_OK) return session_->failure(what_, sqlite3_errstr(bind_rc_));
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return session_->failure(what_);
  }
  // Runs to the end, for statements without rows; the number of rows changed.
  Expected<std::int64_t, QueueError> run() {
    for (;;) {
      auto r = step();
      if (!r) return Unexpected(r.error());
      if (!*r) return static_cast<std::int64_t>(sqlite3_changes(session_->db()));
    }
  }

  bool is_null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    int n = sqlite3_column_bytes(s_, col);
    return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
  }
  std::optional<std::string> opt_text(int col) const {
    if (is_null(col)) return std::nullopt;
    return text(col);
  }
  std::int64_t int64(int col) const { return sqlite3_column_int64(s_, col); }
  std::optional<std::int64_t> opt_int64(int col) const {
    if (is_null(col)) return std::nullopt;
    return int64(col);
  }

 private:
  void note(int rc) {
    if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  }

  Session* session_;
  sqlite3_stmt* s_;
  std::string what_;
  int bind_rc_ = SQLITE_OK;
};

Expected<Stmt, QueueError> Session::prepare(std::string_view text) {
  sqlite3_stmt* s = nullptr;
  std::string what = first_words(text);
  if (sqlite3_prepare_v2(db_, text.data(), static_cast<int>(text.size()), &s, nullptr) != SQLITE_OK) {
    return failure("prepare " + what);
  }
  return Stmt(*this, s, std::move(what));
}

rows::JobRow read_job(const Stmt& s) {
  rows::JobRow row;
  row.id = s.text(0);
  row.registry = s.text(1);
  row.package_name = s.text(2);
  row.version = s.text(3);
  row.published_at = floor_secs(s.opt_int64(4));
  row.trigger = s.text(5);
  row.attempts = s.int64(6);
  row.leased_until = floor_secs(s.opt_int64(7));
  row.leased_by = s.opt_text(8);
  row.created_at = floor_secs(s.int64(9));
  row.completed_at = floor_secs(s.opt_int64(10));
  row.last_error = s.opt_text(11);
  return row;
}

// A random (version 4) UUID, spelled as PostgreSQL spells its uuid type.
Expected<std::string, std::string> new_job_id() {
  std::array<unsigned char, 16> b{};
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) return Unexpected(std::string("RAND_bytes failed"));
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 0xf];
  }
  return out;
}

class SqliteQueue final : public core::ScanQueue {
 public:
  SqliteQueue(std::string path, sqlite3* db) : s_(std::move(path), db) {}

  std::string_view backend() const override { return "sqlite"; }

  Expected<Ok, QueueError> configure() {
    if (sqlite3_busy_timeout(s_.db(), kBusyTimeoutMs) != SQLITE_OK) return s_.failure("busy_timeout");
    // WAL: readers never block the writer, and several processes share the file.
    // synchronous=NORMAL: in WAL a power cut may lose the last commits, never the file; a
    // lost verdict is a package scanned again.
    if (auto r = switch_to_wal(); !r) return r;
    return s_.exec("PRAGMA synchronous=NORMAL");
  }

  // Switching the file to WAL needs an exclusive lock for a moment, and SQLite answers
  // SQLITE_BUSY to it without going through the busy handler when another connection is
  // opening the same file (seen: workers starting together). So the switch is retried
  // here, bounded by the same busy timeout.
  Expected<Ok, QueueError> switch_to_wal() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
      const int rc = sqlite3_exec(s_.db(), "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) return Ok{};
      const int primary = rc & 0xff;
      if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || std::chrono::steady_clock::now() >= deadline) {
        return s_.failure("PRAGMA journal_mode=WAL");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  Expected<Ok, QueueError> migrate() {
    return s_.write([&]() -> Expected<Ok, QueueError> {
      auto version = user_version();
      if (!version) return Unexpected(version.error());
      if (*version > static_cast<std::int64_t>(kMigrations.size())) {
        return s_.failure("schema", "version " + std::to_string(*version) + " is newer than this batlehub's " +
                                        std::to_string(kMigrations.size()));
      }
      for (auto v = static_cast<std::size_t>(*version); v < kMigrations.size(); ++v) {
        if (auto r = s_.exec(kMigrations[v]); !r) return r;
      }
      // PRAGMA takes no parameter; the number is ours.
      return s_.exec("PRAGMA user_version = " + std::to_string(kMigrations.size()));
    });
  }

  Expected<core::Enqueued, QueueError> enqueue(const core::JobRequest& r) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<core::Enqueued, QueueError> {
      const core::Coordinate& c = r.coordinate;
      auto open = open_job_locked(c.registry, c.name, c.version);
      if (!open) return Unexpected(open.error());
      if (*open) return core::Enqueued{(*open)->id, false};
      auto id = new_job_id();
      if (!id) return s_.failure("job id", id.error());
      auto ins = s_.prepare(
          R"(INSERT INTO scan_jobs (id, registry, package_name, version, published_at, "trigger", priority,
                                  created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))");
      if (!ins) return Unexpected(ins.error());
      ins->bind(1, *id).bind(2, c.registry).bind(3, c.name).bind(4, c.version);
      ins->bind(5, to_ms(r.published_at)).bind(6, core::to_string(r.trigger));
      ins->bind(7, static_cast<std::int64_t>(r.trigger)).bind(8, now_ms());
      if (auto done = ins->run(); !done) return Unexpected(done.error());
      return core::Enqueued{*id, true};
    });
  }

  Expected<std::vector<core::ScanJob>, QueueError> lease(const core::LeaseRequest& r) override {
    if (r.max <= 0) return std::vector<core::ScanJob>{};
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      // The write transaction holds the file's lock: no other worker leases between the picks.
      return rows::two_picks(r.max,
                             [&](bool lowest_first, std::int64_t limit) { return pick(r, lowest_first, limit); });
    });
  }

  Expected<bool, QueueError> heartbeat(const std::string& job_id, const std::string& worker_id,
                                       std::int64_t lease_secs) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<bool, QueueError> {
      auto st = s_.prepare(sql({"UPDATE scan_jobs SET leased_until = ?3 + ?4 WHERE ", kHeld}));
      if (!st) return Unexpected(st.error());
      st->bind(1, job_id).bind(2, worker_id).bind(3, now_ms()).bind(4, lease_secs * 1000);
      auto n = st->run();
      if (!n) return Unexpected(n.error());
      return *n == 1;
    });
  }

  Expected<bool, QueueError> complete(const std::string& job_id, const std::string& worker_id,
                                      const core::RecordedVerdict& v) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<bool, QueueError> { return close_job(kHeld, job_id, worker_id, &v); });
  }

  Expected<bool, QueueError> fail(const std::string& job_id, const std::string& worker_id,
                                  const std::string& error) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<bool, QueueError> {
      auto st = s_.prepare(
          sql({"UPDATE scan_jobs SET leased_until = NULL, leased_by = NULL, last_error = ?4 WHERE ", kHeld}));
      if (!st) return Unexpected(st.error());
      st->bind(1, job_id).bind(2, worker_id).bind(3, now_ms()).bind(4, rows::storable_text(error));
      auto n = st->run();
      if (!n) return Unexpected(n.error());
      return *n == 1;
    });
  }

  Expected<std::vector<core::ScanJob>, QueueError> exhausted(std::int64_t max_attempts, std::int64_t limit) override {
    std::lock_guard lock(mu_);
    return s_.read([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      auto st = s_.prepare(sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
        WHERE completed_at IS NULL AND attempts >= ?1 AND (leased_until IS NULL OR leased_until < ?2)
        ORDER BY created_at, rowid LIMIT ?3)"}));
      if (!st) return Unexpected(st.error());
      st->bind(1, max_attempts).bind(2, now_ms()).bind(3, limit);
      return collect_jobs(*st);
    });
  }

  Expected<bool, QueueError> close_exhausted(const std::string& job_id, std::int64_t max_attempts,
                                             const core::RecordedVerdict& v) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<bool, QueueError> { return close_job(kExhausted, job_id, max_attempts, &v); });
  }

  Expected<bool, QueueError> drop(const std::string& job_id, const std::string& worker_id) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<bool, QueueError> { return close_job(kHeld, job_id, worker_id, nullptr); });
  }

  Expected<bool, QueueError> drop_exhausted(const std::string& job_id, std::int64_t max_attempts) override {
    std::lock_guard lock(mu_);
    return s_.write(
        [&]() -> Expected<bool, QueueError> { return close_job(kExhausted, job_id, max_attempts, nullptr); });
  }

  Expected<std::optional<core::RecordedVerdict>, QueueError> verdict(const std::string& registry,
                                                                     const std::string& name,
                                                                     const std::string& version) override {
    std::lock_guard lock(mu_);
    return s_.read([&]() { return verdict_locked(registry, name, version); });
  }

  Expected<std::optional<core::ScanJob>, QueueError> open_job(const std::string& registry, const std::string& name,
                                                              const std::string& version) override {
    std::lock_guard lock(mu_);
    return s_.read([&]() { return open_job_locked(registry, name, version); });
  }

  Expected<std::vector<core::ScanJob>, QueueError> jobs(const std::string& registry, const std::string& name,
                                                        const std::string& version) override {
    std::lock_guard lock(mu_);
    return s_.read([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      auto st = s_.prepare(sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
        WHERE registry = ?1 AND package_name = ?2 AND version = ?3 ORDER BY created_at, rowid)"}));
      if (!st) return Unexpected(st.error());
      st->bind(1, registry).bind(2, name).bind(3, version);
      return collect_jobs(*st);
    });
  }

  Expected<std::vector<core::CachedArtifactRow>, QueueError> cached_artifacts(const std::string& key,
                                                                              bool prefix) override {
    std::lock_guard lock(mu_);
    return s_.read([&]() -> Expected<std::vector<core::CachedArtifactRow>, QueueError> {
      auto st = s_.prepare(rows::cached_artifacts_sql(prefix ? "substr(%, 1, length(?1)) = ?1" : "% = ?1", "?2"));
      if (!st) return Unexpected(st.error());
      st->bind(1, key).bind(2, static_cast<std::int64_t>(core::ScanQueue::kMaxCachedArtifactRows));
      std::vector<core::CachedArtifactRow> out;
      for (;;) {
        auto more = st->step();
        if (!more) return Unexpected(more.error());
        if (!*more) return out;
        out.push_back(
            core::CachedArtifactRow{st->text(0), st->text(1), st->text(2), st->opt_int64(3), st->opt_text(4)});
      }
    });
  }

  Expected<Ok, QueueError> record_artifact(const std::string& logical_key, const std::string& sha256,
                                           std::int64_t size_bytes, const std::string& backend_name) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<Ok, QueueError> {
      auto old = s_.prepare("SELECT content_hash FROM artifact_dedup_refs WHERE logical_key = ?1");
      if (!old) return Unexpected(old.error());
      old->bind(1, logical_key);
      auto found = old->step();
      if (!found) return Unexpected(found.error());
      const std::optional<std::string> previous = *found ? std::optional(old->text(0)) : std::nullopt;
      if (previous == sha256) return Ok{};
      auto run = [&](const char* text, auto bind) -> Expected<Ok, QueueError> {
        auto st = s_.prepare(text);
        if (!st) return Unexpected(st.error());
        bind(*st);
        if (auto n = st->run(); !n) return Unexpected(n.error());
        return Ok{};
      };
      if (auto r = run(R"(INSERT INTO artifact_dedup_index (content_hash, content_key, ref_count, size_bytes)
          VALUES (?1, 'blob/' || ?1, 1, ?2)
          ON CONFLICT (content_hash) DO UPDATE SET ref_count = artifact_dedup_index.ref_count + 1)",
                       [&](Stmt& st) { st.bind(1, sha256).bind(2, size_bytes); });
          !r) {
        return r;
      }
      if (previous) {
        if (auto r = run("UPDATE artifact_dedup_index SET ref_count = ref_count - 1 WHERE content_hash = ?1",
                         [&](Stmt& st) { st.bind(1, *previous); });
            !r) {
          return r;
        }
      }
      if (auto r = run(R"(INSERT INTO artifact_dedup_refs (logical_key, content_hash) VALUES (?1, ?2)
          ON CONFLICT (logical_key) DO UPDATE SET content_hash = excluded.content_hash)",
                       [&](Stmt& st) { st.bind(1, logical_key).bind(2, sha256); });
          !r) {
        return r;
      }
      return run(
          R"(INSERT INTO artifact_storage (storage_key, backend_name, stored_at, size_bytes)
          VALUES (?1, ?2, ?3, ?4) ON CONFLICT (storage_key) DO UPDATE SET backend_name = excluded.backend_name,
              stored_at = excluded.stored_at, size_bytes = excluded.size_bytes)",
          [&](Stmt& st) { st.bind(1, logical_key).bind(2, backend_name).bind(3, now_ms()).bind(4, size_bytes); });
    });
  }

  Expected<bool, QueueError> worker_heartbeat(const std::string& worker_id,
                                              const std::vector<std::string>& registries) override {
    std::lock_guard lock(mu_);
    return s_.write([&]() -> Expected<bool, QueueError> {
      auto st = s_.prepare(R"(INSERT INTO worker_heartbeats (worker_id, last_seen, registries) VALUES (?1, ?2, ?3)
        ON CONFLICT (worker_id) DO UPDATE SET last_seen = excluded.last_seen, registries = excluded.registries)");
      if (!st) return Unexpected(st.error());
      st->bind(1, worker_id).bind(2, now_ms()).bind(3, rows::json_list(registries));
      auto n = st->run();
      if (!n) return Unexpected(n.error());
      return true;
    });
  }

  Expected<core::QueueCounts, QueueError> counts() override {
    std::lock_guard lock(mu_);
    return s_.read([&]() -> Expected<core::QueueCounts, QueueError> {
      core::QueueCounts out;
      std::int64_t now = now_ms();
      auto queued = s_.prepare(R"(SELECT registry, "trigger", count(*) FROM scan_jobs
        WHERE completed_at IS NULL GROUP BY registry, "trigger")");
      if (!queued) return Unexpected(queued.error());
      for (;;) {
        auto more = queued->step();
        if (!more) return Unexpected(more.error());
        if (!*more) break;
        std::string trigger = queued->text(1);
        if (!core::parse_trigger(trigger))
          return s_.failure("counts", rows::bad_value("scan_jobs", "trigger", trigger));
        out.queued[{queued->text(0), trigger}] = queued->int64(2);
      }
      auto leased = s_.prepare(R"(SELECT leased_by, count(*) FROM scan_jobs
        WHERE completed_at IS NULL AND leased_until >= ?1 GROUP BY leased_by)");
      if (!leased) return Unexpected(leased.error());
      leased->bind(1, now);
      for (;;) {
        auto more = leased->step();
        if (!more) return Unexpected(more.error());
        if (!*more) break;
        out.leased[leased->text(0)] = leased->int64(1);
      }
      return out;
    });
  }

  Expected<std::int64_t, QueueError> now() override { return floor_secs(now_ms()); }

 private:
  // One pick, in a write transaction: by priority then age, or (lowest_first) by priority
  // descending then age.
  Expected<std::vector<core::ScanJob>, QueueError> pick(const core::LeaseRequest& r, bool lowest_first,
                                                        std::int64_t limit) {
    const std::string_view order = lowest_first ? "priority DESC, created_at, rowid" : "priority, created_at, rowid";
    auto st = s_.prepare(sql({R"(UPDATE scan_jobs SET attempts = attempts + 1, leased_by = ?1, leased_until = ?2 + ?3
        WHERE id IN (SELECT id FROM scan_jobs
                      WHERE completed_at IS NULL AND (leased_until IS NULL OR leased_until < ?2) AND attempts < ?4
                        AND (json_array_length(?5) = 0 OR registry IN (SELECT value FROM json_each(?5)))
                      ORDER BY )",
                              order, R"( LIMIT ?6)
        RETURNING )",
                              kJobColumns, ", priority, created_at, rowid"}));
    if (!st) return Unexpected(st.error());
    st->bind(1, r.worker_id).bind(2, now_ms()).bind(3, r.lease_secs * 1000).bind(4, r.max_attempts);
    st->bind(5, rows::json_list(r.registries)).bind(6, limit);
    // RETURNING follows no ORDER BY: the order is put back here.
    std::vector<std::pair<std::tuple<std::int64_t, std::int64_t, std::int64_t>, rows::JobRow>> leased;
    for (;;) {
      auto more = st->step();
      if (!more) return Unexpected(more.error());
      if (!*more) break;
      const std::int64_t priority = st->int64(kJobColumnCount);
      leased.emplace_back(std::tuple{lowest_first ? -priority : priority, st->int64(kJobColumnCount + 1),
                                     st->int64(kJobColumnCount + 2)},
                          read_job(*st));
    }
    std::sort(leased.begin(), leased.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<core::ScanJob> jobs;
    for (auto& [order_key, row] : leased) {
      auto job = to_job(std::move(row));
      if (!job) return Unexpected(job.error());
      jobs.push_back(std::move(*job));
    }
    return jobs;
  }

  Expected<std::int64_t, QueueError> user_version() {
    auto st = s_.prepare("PRAGMA user_version");
    if (!st) return Unexpected(st.error());
    auto row = st->step();
    if (!row) return Unexpected(row.error());
    return *row ? st->int64(0) : 0;
  }

  Expected<core::ScanJob, QueueError> to_job(rows::JobRow row) {
    auto job = rows::job_from_row(std::move(row));
    if (!job) return s_.failure("read", job.error());
    return std::move(*job);
  }

  Expected<std::vector<core::ScanJob>, QueueError> collect_jobs(Stmt& st) {
    std::vector<core::ScanJob> out;
    for (;;) {
      auto more = st.step();
      if (!more) return Unexpected(more.error());
      if (!*more) return out;
      auto job = to_job(read_job(st));
      if (!job) return Unexpected(job.error());
      out.push_back(std::move(*job));
    }
  }

  Expected<std::optional<core::ScanJob>, QueueError> open_job_locked(const std::string& registry,
                                                                     const std::string& name,
                                                                     const std::string& version) {
    auto st = s_.prepare(sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
      WHERE registry = ?1 AND package_name = ?2 AND version = ?3 AND completed_at IS NULL)"}));
    if (!st) return Unexpected(st.error());
    st->bind(1, registry).bind(2, name).bind(3, version);
    auto found = collect_jobs(*st);
    if (!found) return Unexpected(found.error());
    if (found->empty()) return std::optional<core::ScanJob>();
    return std::optional<core::ScanJob>(std::move(found->front()));
  }

  // Within a write transaction: when the job matches `condition` (?1 job, ?2 `who`, ?3
  // now), records the verdict for its coordinate (none when `v` is null: a dropped job) and
  // completes it.
  template <class Who>
  Expected<bool, QueueError> close_job(std::string_view condition, const std::string& job_id, const Who& who,
                                       const core::RecordedVerdict* v) {
    auto st = s_.prepare(sql({"SELECT registry, package_name, version FROM scan_jobs WHERE ", condition}));
    if (!st) return Unexpected(st.error());
    std::int64_t now = now_ms();
    st->bind(1, job_id).bind(2, who).bind(3, now);
    auto found = st->step();
    if (!found) return Unexpected(found.error());
    if (!*found) return false;
    if (v != nullptr) {
      auto recorded = record_verdict(st->text(0), st->text(1), st->text(2), now, *v);
      if (!recorded) return Unexpected(recorded.error());
    }
    auto done = s_.prepare("UPDATE scan_jobs SET completed_at = ?2, leased_until = NULL WHERE id = ?1");
    if (!done) return Unexpected(done.error());
    done->bind(1, job_id).bind(2, now);
    if (auto n = done->run(); !n) return Unexpected(n.error());
    return true;
  }

  // B.4, in the caller's write transaction. Findings are created a millisecond apart, so
  // that upstream's read order (created_at, scanner) is the order they were recorded in.
  Expected<Ok, QueueError> record_verdict(const std::string& registry, const std::string& name,
                                          const std::string& version, std::int64_t now,
                                          const core::RecordedVerdict& v) {
    rows::VerdictRow row = rows::verdict_row(v);
    auto up = s_.prepare(R"(INSERT OR REPLACE INTO artifact_verdicts (registry, package_name, version, state,
        reason_codes, policy_ref, available_at, evaluated_at, last_scanned_at, scanners_done)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10))");
    if (!up) return Unexpected(up.error());
    up->bind(1, registry).bind(2, name).bind(3, version).bind(4, row.state).bind(5, row.reason_codes);
    up->bind(6, row.policy_ref).bind(7, to_ms(row.available_at)).bind(8, row.evaluated_at * 1000);
    up->bind(9, to_ms(row.last_scanned_at)).bind(10, row.scanners_done);
    if (auto n = up->run(); !n) return Unexpected(n.error());

    auto del = s_.prepare("DELETE FROM artifact_findings WHERE registry = ?1 AND package_name = ?2 AND version = ?3");
    if (!del) return Unexpected(del.error());
    del->bind(1, registry).bind(2, name).bind(3, version);
    if (auto n = del->run(); !n) return Unexpected(n.error());

    std::int64_t ordinal = 0;
    for (const core::Finding& f : v.verdict.findings) {
      rows::FindingRow fr = rows::finding_row(f);
      auto id = new_job_id();
      if (!id) return s_.failure("finding id", id.error());
      auto ins = s_.prepare(R"(INSERT INTO artifact_findings (id, registry, package_name, version, scanner, kind,
          code, severity, reference, summary, confidence, available_at, raw, created_at)
          VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14))");
      if (!ins) return Unexpected(ins.error());
      ins->bind(1, *id).bind(2, registry).bind(3, name).bind(4, version).bind(5, fr.scanner);
      ins->bind(6, fr.kind).bind(7, fr.code).bind(8, fr.severity).bind(9, fr.reference);
      ins->bind(10, fr.summary).bind(11, fr.confidence).bind(12, to_ms(fr.available_at)).bind(13, fr.raw);
      ins->bind(14, now + ordinal++);
      if (auto n = ins->run(); !n) return Unexpected(n.error());
    }
    return Ok{};
  }

  Expected<std::optional<core::RecordedVerdict>, QueueError> verdict_locked(const std::string& registry,
                                                                            const std::string& name,
                                                                            const std::string& version) {
    auto st = s_.prepare(R"(SELECT state, reason_codes, scanners_done, policy_ref, available_at, evaluated_at,
        last_scanned_at FROM artifact_verdicts WHERE registry = ?1 AND package_name = ?2 AND version = ?3)");
    if (!st) return Unexpected(st.error());
    st->bind(1, registry).bind(2, name).bind(3, version);
    auto found = st->step();
    if (!found) return Unexpected(found.error());
    if (!*found) return std::optional<core::RecordedVerdict>();
    rows::VerdictRow row{st->text(0),
                         st->text(1),
                         st->text(2),
                         st->text(3),
                         floor_secs(st->opt_int64(4)),
                         floor_secs(st->int64(5)),
                         floor_secs(st->opt_int64(6))};

    auto fs = s_.prepare(R"(SELECT scanner, kind, code, severity, reference, summary, raw, confidence,
        available_at FROM artifact_findings
        WHERE registry = ?1 AND package_name = ?2 AND version = ?3 ORDER BY created_at, scanner)");
    if (!fs) return Unexpected(fs.error());
    fs->bind(1, registry).bind(2, name).bind(3, version);
    std::vector<rows::FindingRow> findings;
    for (;;) {
      auto more = fs->step();
      if (!more) return Unexpected(more.error());
      if (!*more) break;
      findings.push_back(rows::FindingRow{fs->text(0), fs->text(1), fs->text(2), fs->text(3), fs->opt_text(4),
                                          fs->text(5), fs->text(6), fs->opt_int64(7), floor_secs(fs->opt_int64(8))});
    }
    auto rv = rows::verdict_from_rows(registry, name, version, std::move(row), std::move(findings));
    if (!rv) return s_.failure("read", rv.error());
    return std::optional<core::RecordedVerdict>(std::move(*rv));
  }

  std::mutex mu_;  // one connection, one caller at a time
  Session s_;
};

}  // namespace

Expected<std::unique_ptr<core::ScanQueue>, QueueError> open_sqlite_queue(const std::string& path) {
  sqlite3* db = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? reason(db, sqlite3_errmsg(db)) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Unexpected(QueueError{"sqlite " + path + ": open: " + msg});
  }
  auto q = std::make_unique<SqliteQueue>(path, db);
  if (auto r = q->configure(); !r) return Unexpected(r.error());
  if (auto r = q->migrate(); !r) return Unexpected(r.error());
  return std::unique_ptr<core::ScanQueue>(std::move(q));
}

}  // namespace batlehub::adapters
