#include "adapters/queue/postgres_queue.h"

#include <libpq-fe.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/queue/verdict_rows.h"

namespace batlehub::adapters {

namespace {

using core::QueueError;
namespace rows = queue_rows;

// Applied in order, each once, in its own transaction; schema_migrations lists those
// applied. Append only: a released migration is never edited.
constexpr std::array<const char*, 1> kMigrations{
    R"sql(
CREATE TABLE scan_jobs (
  id uuid PRIMARY KEY,
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  kind text NOT NULL,
  published_at timestamptz,
  artifact_sha256 text,
  trigger text NOT NULL,
  priority smallint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  leased_until timestamptz,
  leased_by text,
  completed_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX scan_jobs_one_open ON scan_jobs (registry, package_name, version) WHERE completed_at IS NULL;
CREATE INDEX scan_jobs_ready ON scan_jobs (priority, created_at) WHERE completed_at IS NULL;
CREATE INDEX scan_jobs_coordinate ON scan_jobs (registry, package_name, version, created_at);
CREATE TABLE artifact_verdicts (
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  kind text NOT NULL,
  state text NOT NULL,
  reason_codes text[] NOT NULL,
  policy_ref text NOT NULL,
  available_at timestamptz,
  evaluated_at timestamptz NOT NULL,
  last_scanned_at timestamptz,
  scanners_done text[] NOT NULL,
  PRIMARY KEY (registry, package_name, version)
);
CREATE TABLE artifact_findings (
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  ordinal integer NOT NULL,
  scanner text NOT NULL,
  kind text NOT NULL,
  code text NOT NULL,
  severity text NOT NULL,
  reference text,
  summary text NOT NULL,
  raw text NOT NULL,
  PRIMARY KEY (registry, package_name, version, ordinal),
  FOREIGN KEY (registry, package_name, version) REFERENCES artifact_verdicts ON DELETE CASCADE
);
CREATE TABLE worker_heartbeats (
  worker_id text PRIMARY KEY,
  last_seen timestamptz NOT NULL,
  registries text[] NOT NULL
);
)sql"};

// Held by the transaction that applies a migration, so that two workers starting together
// apply each once ("batlehub" in ASCII).
constexpr std::int64_t kMigrationLock = 0x6261746c65687562;

#define BATLEHUB_EPOCH(col) "floor(extract(epoch FROM " col "))::bigint"
constexpr std::string_view kJobColumns =
    "id::text AS j_id, registry AS j_registry, package_name AS j_name, version AS j_version, kind AS j_kind, "
    "coalesce(artifact_sha256, '') AS j_sha256, trigger AS j_trigger, attempts AS j_attempts, "
    BATLEHUB_EPOCH("leased_until") " AS j_leased_until, leased_by AS j_leased_by, "
    BATLEHUB_EPOCH("created_at") " AS j_created_at, "
    BATLEHUB_EPOCH("completed_at") " AS j_completed_at, last_error AS j_last_error";

// A job the worker still holds ($1 job, $2 worker), and an exhausted one ($1 job, $2
// max_attempts): on the database's clock, so that workers on many hosts agree.
constexpr std::string_view kHeld = "id = $1::uuid AND leased_by = $2 AND completed_at IS NULL AND leased_until > now()";
constexpr std::string_view kExhausted =
    "id = $1::uuid AND completed_at IS NULL AND attempts >= $2::bigint "
    "AND (leased_until IS NULL OR leased_until <= now())";

// A JSON list of strings ($n) as text[], in order.
#define BATLEHUB_TEXT_ARRAY(n) \
  "ARRAY(SELECT e FROM jsonb_array_elements_text(" n "::jsonb) WITH ORDINALITY AS t(e, i) ORDER BY i)"

std::string sql(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

// libpq's messages span lines ("ERROR:  …\nDETAIL:  …"); ours are one line.
std::string one_line(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// "127.0.0.1:55432", for messages: the server, never the DSN (it may carry a password).
// nullopt when libpq cannot parse the DSN; its message is not repeated, since it quotes
// the DSN's text.
std::optional<std::string> server_label(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  PQfreemem(err);
  if (!opts) return std::nullopt;
  std::string host, hostaddr, port;
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    if (!o->val) continue;
    std::string_view k = o->keyword;
    if (k == "host") host = o->val;
    if (k == "hostaddr") hostaddr = o->val;
    if (k == "port") port = o->val;
  }
  PQconninfoFree(opts);
  if (host.empty()) host = hostaddr.empty() ? "localhost" : hostaddr;
  return host + ":" + (port.empty() ? "5432" : port);
}

using Params = std::vector<std::optional<std::string>>;
std::optional<std::string> num(std::optional<std::int64_t> v) {
  if (!v) return std::nullopt;
  return std::to_string(*v);
}

// A result's rows, read as text.
class Rows {
 public:
  explicit Rows(PGresult* r) : r_(r, &PQclear) {}

  int size() const { return PQntuples(r_.get()); }
  std::int64_t changed() const {
    std::int64_t n = 0;
    std::string_view t = PQcmdTuples(r_.get());
    std::from_chars(t.data(), t.data() + t.size(), n);
    return n;
  }
  bool is_null(int row, int col) const { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string text(int row, int col) const {
    return std::string(PQgetvalue(r_.get(), row, col), static_cast<std::size_t>(PQgetlength(r_.get(), row, col)));
  }
  std::optional<std::string> opt_text(int row, int col) const {
    if (is_null(row, col)) return std::nullopt;
    return text(row, col);
  }
  // Only ever on columns cast to bigint by the statement, which the server writes in decimal.
  std::int64_t int64(int row, int col) const {
    std::int64_t v = 0;
    const char* p = PQgetvalue(r_.get(), row, col);
    std::from_chars(p, p + PQgetlength(r_.get(), row, col), v);
    return v;
  }
  std::optional<std::int64_t> opt_int64(int row, int col) const {
    if (is_null(row, col)) return std::nullopt;
    return int64(row, col);
  }

  PGresult* get() const { return r_.get(); }

 private:
  std::unique_ptr<PGresult, decltype(&PQclear)> r_;
};

rows::JobRow read_job(const Rows& r, int i) {
  rows::JobRow row;
  row.id = r.text(i, 0);
  row.registry = r.text(i, 1);
  row.package_name = r.text(i, 2);
  row.version = r.text(i, 3);
  row.kind = r.text(i, 4);
  row.artifact_sha256 = r.text(i, 5);
  row.trigger = r.text(i, 6);
  row.attempts = r.int64(i, 7);
  row.leased_until = r.opt_int64(i, 8);
  row.leased_by = r.opt_text(i, 9);
  row.created_at = r.int64(i, 10);
  row.completed_at = r.opt_int64(i, 11);
  row.last_error = r.opt_text(i, 12);
  return row;
}

class Connection {
 public:
  Connection(PGconn* c, std::string label) : c_(c), label_(std::move(label)) {}
  ~Connection() { PQfinish(c_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Unexpected<QueueError> failure(std::string_view what, std::string_view detail) const {
    return Unexpected(QueueError{"postgresql " + label_ + ": " + std::string(what) + ": " + one_line(detail)});
  }

  // A statement with its values bound as parameters, in text form.
  Expected<Rows, QueueError> exec(std::string_view what, const std::string& statement, const Params& params = {}) {
    std::vector<const char*> values;
    for (const auto& p : params) {
      // libpq reads a text parameter up to its first NUL; PostgreSQL's text holds none.
      // Refused rather than cut short.
      if (p && p->find('\0') != std::string::npos) return failure(what, "a value holds a NUL byte");
      values.push_back(p ? p->c_str() : nullptr);
    }
    Rows r(PQexecParams(c_, statement.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                        nullptr, 0));
    return checked(what, std::move(r));
  }

  // Constant SQL only (migrations, transaction control): no value is ever written into it.
  Expected<Rows, QueueError> exec_constant(std::string_view what, const char* statement) {
    return checked(what, Rows(PQexec(c_, statement)));
  }

  // Runs `body` in a transaction opened with `begin`, committing what it returns and
  // rolling back its errors.
  template <class F>
  auto transaction(const char* begin, F&& body) -> decltype(body()) {
    if (auto b = open(begin); !b) return Unexpected(b.error());
    auto result = body();
    if (!result) {
      (void)exec_constant("rollback", "ROLLBACK");
      return result;
    }
    if (auto c = exec_constant("commit", "COMMIT"); !c) return Unexpected(c.error());
    return result;
  }
  template <class F>
  auto write(F&& body) {
    return transaction("BEGIN", std::forward<F>(body));
  }
  template <class F>
  auto read(F&& body) {
    // One snapshot for a verdict and its findings.
    return transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", std::forward<F>(body));
  }

 private:
  Expected<Rows, QueueError> checked(std::string_view what, Rows r) {
    // PQexec* returns null only when out of memory or the connection is unusable.
    ExecStatusType st = PQresultStatus(r.get());
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return r;
    std::string msg = r.get() ? PQresultErrorMessage(r.get()) : "";
    if (msg.empty()) msg = PQerrorMessage(c_);
    return failure(what, msg);
  }

  // BEGIN, on a connection that works: a connection the server dropped since the last call
  // (a restart, a failover, an idle timeout) is reset, once.
  Expected<Ok, QueueError> open(const char* begin) {
    bool reset = false;
    if (PQstatus(c_) != CONNECTION_OK) {
      PQreset(c_);
      reset = true;
    }
    auto b = exec_constant("begin", begin);
    if (!b && !reset && PQstatus(c_) != CONNECTION_OK) {
      PQreset(c_);
      b = exec_constant("begin", begin);
    }
    if (!b) return Unexpected(b.error());
    return Ok{};
  }

  PGconn* c_;
  std::string label_;
};

class PostgresQueue final : public core::ScanQueue {
 public:
  PostgresQueue(PGconn* c, std::string label) : c_(c, std::move(label)) {}

  std::string_view backend() const override { return "postgresql"; }

  Expected<Ok, QueueError> migrate() {
    for (;;) {
      auto applied = c_.write([&]() -> Expected<bool, QueueError> { return migrate_one(); });
      if (!applied) return Unexpected(applied.error());
      if (!*applied) return Ok{};
    }
  }

  Expected<core::Enqueued, QueueError> enqueue(const core::JobRequest& r) override {
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<core::Enqueued, QueueError> {
      const core::Package& p = r.package;
      // The open job may complete between a conflict and the look-up; a few rounds settle it.
      for (int round = 0; round < 3; ++round) {
        auto ins = c_.exec("enqueue", R"(INSERT INTO scan_jobs (id, registry, package_name, version, kind,
                  artifact_sha256, trigger, priority)
            VALUES (gen_random_uuid(), $1, $2, $3, $4, nullif($5, ''), $6, $7::smallint)
            ON CONFLICT (registry, package_name, version) WHERE completed_at IS NULL DO NOTHING
            RETURNING id::text)",
                           {p.registry, p.name, p.version, std::string(core::to_string(p.kind)), r.artifact_sha256,
                            std::string(core::to_string(r.trigger)), num(static_cast<std::int64_t>(r.trigger))});
        if (!ins) return Unexpected(ins.error());
        if (ins->size() == 1) return core::Enqueued{ins->text(0, 0), true};
        auto open = c_.exec("enqueue", R"(SELECT id::text FROM scan_jobs
            WHERE registry = $1 AND package_name = $2 AND version = $3 AND completed_at IS NULL)",
                            {p.registry, p.name, p.version});
        if (!open) return Unexpected(open.error());
        if (open->size() == 1) return core::Enqueued{open->text(0, 0), false};
      }
      return c_.failure("enqueue", "the open job of " + p.coordinate() + " kept changing");
    });
  }

  Expected<std::vector<core::ScanJob>, QueueError> lease(const core::LeaseRequest& r) override {
    if (r.max <= 0) return std::vector<core::ScanJob>{};
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      // One statement: the rows the subquery locks are the rows leased, and a row another
      // worker is leasing right now is skipped rather than waited for.
      auto leased =
          c_.exec("lease",
                  sql({R"(WITH leased AS (
            UPDATE scan_jobs SET attempts = attempts + 1, leased_by = $1,
                                 leased_until = now() + $2::bigint * interval '1 second'
            WHERE id IN (SELECT id FROM scan_jobs
                          WHERE completed_at IS NULL AND (leased_until IS NULL OR leased_until <= now())
                            AND attempts < $3::bigint
                            AND (jsonb_array_length($4::jsonb) = 0
                                 OR registry IN (SELECT jsonb_array_elements_text($4::jsonb)))
                          ORDER BY priority, created_at
                          LIMIT $5::bigint
                          FOR UPDATE SKIP LOCKED)
            RETURNING )",
                       kJobColumns, R"(, priority AS j_priority, created_at AS j_created_ts)
          SELECT * FROM leased ORDER BY j_priority, j_created_ts)"}),
                  {r.worker_id, num(r.lease_secs), num(r.max_attempts), rows::json_list(r.registries), num(r.max)});
      if (!leased) return Unexpected(leased.error());
      return jobs_of(*leased);
    });
  }

  Expected<bool, QueueError> heartbeat(const std::string& job_id, const std::string& worker_id,
                                       std::int64_t lease_secs) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> {
      auto n =
          c_.exec("heartbeat",
                  sql({"UPDATE scan_jobs SET leased_until = now() + $3::bigint * interval '1 second' WHERE ", kHeld}),
                  {job_id, worker_id, num(lease_secs)});
      if (!n) return Unexpected(n.error());
      return n->changed() == 1;
    });
  }

  Expected<bool, QueueError> complete(const std::string& job_id, const std::string& worker_id,
                                      const core::RecordedVerdict& v) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> { return close_job("complete", kHeld, job_id, worker_id, v); });
  }

  Expected<bool, QueueError> fail(const std::string& job_id, const std::string& worker_id,
                                  const std::string& error) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> {
      auto n = c_.exec(
          "fail", sql({"UPDATE scan_jobs SET leased_until = NULL, leased_by = NULL, last_error = $3 WHERE ", kHeld}),
          {job_id, worker_id, rows::storable_text(error)});
      if (!n) return Unexpected(n.error());
      return n->changed() == 1;
    });
  }

  Expected<std::vector<core::ScanJob>, QueueError> exhausted(std::int64_t max_attempts) override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      auto found = c_.exec("exhausted", sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
          WHERE completed_at IS NULL AND attempts >= $1::bigint AND (leased_until IS NULL OR leased_until <= now())
          ORDER BY created_at, id)"}),
                           {num(max_attempts)});
      if (!found) return Unexpected(found.error());
      return jobs_of(*found);
    });
  }

  Expected<bool, QueueError> close_exhausted(const std::string& job_id, std::int64_t max_attempts,
                                             const core::RecordedVerdict& v) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> {
      return close_job("close exhausted", kExhausted, job_id, std::to_string(max_attempts), v);
    });
  }

  Expected<std::optional<core::RecordedVerdict>, QueueError> verdict(const std::string& registry,
                                                                     const std::string& name,
                                                                     const std::string& version) override {
    std::lock_guard lock(mu_);
    return c_.read([&]() { return verdict_locked(registry, name, version); });
  }

  Expected<std::optional<core::ScanJob>, QueueError> open_job(const std::string& registry, const std::string& name,
                                                              const std::string& version) override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<std::optional<core::ScanJob>, QueueError> {
      auto found = c_.exec("open job", sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
          WHERE registry = $1 AND package_name = $2 AND version = $3 AND completed_at IS NULL)"}),
                           {registry, name, version});
      if (!found) return Unexpected(found.error());
      auto jobs = jobs_of(*found);
      if (!jobs) return Unexpected(jobs.error());
      if (jobs->empty()) return std::optional<core::ScanJob>();
      return std::optional<core::ScanJob>(std::move(jobs->front()));
    });
  }

  Expected<std::vector<core::ScanJob>, QueueError> jobs(const std::string& registry, const std::string& name,
                                                        const std::string& version) override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      auto found = c_.exec("jobs", sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
          WHERE registry = $1 AND package_name = $2 AND version = $3 ORDER BY created_at, id)"}),
                           {registry, name, version});
      if (!found) return Unexpected(found.error());
      return jobs_of(*found);
    });
  }

  Expected<bool, QueueError> worker_heartbeat(const std::string& worker_id,
                                              const std::vector<std::string>& registries) override {
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> {
      auto n = c_.exec("worker heartbeat", R"(INSERT INTO worker_heartbeats (worker_id, last_seen, registries)
          VALUES ($1, now(), )" BATLEHUB_TEXT_ARRAY("$2") R"()
          ON CONFLICT (worker_id) DO UPDATE SET last_seen = excluded.last_seen, registries = excluded.registries)",
                       {worker_id, rows::json_list(registries)});
      if (!n) return Unexpected(n.error());
      return true;
    });
  }

  Expected<core::QueueCounts, QueueError> counts() override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<core::QueueCounts, QueueError> {
      core::QueueCounts out;
      auto queued = c_.exec("counts", R"(SELECT registry, trigger, count(*) FROM scan_jobs
          WHERE completed_at IS NULL AND (leased_until IS NULL OR leased_until <= now()) GROUP BY registry, trigger)");
      if (!queued) return Unexpected(queued.error());
      for (int i = 0; i < queued->size(); ++i) {
        std::string trigger = queued->text(i, 1);
        if (!core::parse_trigger(trigger))
          return c_.failure("counts", rows::bad_value("scan_jobs", "trigger", trigger));
        out.queued[{queued->text(i, 0), trigger}] = queued->int64(i, 2);
      }
      auto leased = c_.exec("counts", R"(SELECT leased_by, count(*) FROM scan_jobs
          WHERE completed_at IS NULL AND leased_until > now() GROUP BY leased_by)");
      if (!leased) return Unexpected(leased.error());
      for (int i = 0; i < leased->size(); ++i) out.leased[leased->text(i, 0)] = leased->int64(i, 1);
      return out;
    });
  }

  Expected<std::int64_t, QueueError> now() override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<std::int64_t, QueueError> {
      auto r = c_.exec("now", "SELECT " BATLEHUB_EPOCH("now()"));
      if (!r) return Unexpected(r.error());
      return r->int64(0, 0);
    });
  }

 private:
  // Within a transaction holding the migration lock: applies the next migration; false
  // when there is none.
  Expected<bool, QueueError> migrate_one() {
    if (auto l = c_.exec("migrate", "SELECT pg_advisory_xact_lock($1::bigint)", {num(kMigrationLock)}); !l) {
      return Unexpected(l.error());
    }
    auto t = c_.exec_constant("migrate", R"(CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()))");
    if (!t) return Unexpected(t.error());
    auto v = c_.exec("migrate", "SELECT coalesce(max(version), 0)::bigint FROM schema_migrations");
    if (!v) return Unexpected(v.error());
    auto version = static_cast<std::size_t>(v->int64(0, 0));
    if (version > kMigrations.size()) {
      return c_.failure("migrate", "schema version " + std::to_string(version) + " is newer than this batlehub's " +
                                       std::to_string(kMigrations.size()));
    }
    if (version == kMigrations.size()) return false;
    std::string what = "migration " + std::to_string(version + 1);
    if (auto m = c_.exec_constant(what, kMigrations[version]); !m) return Unexpected(m.error());
    auto mark = c_.exec(what, "INSERT INTO schema_migrations (version) VALUES ($1::integer)",
                        {num(static_cast<std::int64_t>(version + 1))});
    if (!mark) return Unexpected(mark.error());
    return true;
  }

  Expected<std::vector<core::ScanJob>, QueueError> jobs_of(const Rows& r) {
    std::vector<core::ScanJob> out;
    for (int i = 0; i < r.size(); ++i) {
      auto job = rows::job_from_row(read_job(r, i));
      if (!job) return c_.failure("read", job.error());
      out.push_back(std::move(*job));
    }
    return out;
  }

  // Within a transaction: when the job matches `condition` ($1 job, $2 `who`), locks it,
  // records the verdict for its coordinate and completes it.
  Expected<bool, QueueError> close_job(std::string_view what, std::string_view condition, const std::string& job_id,
                                       const std::string& who, const core::RecordedVerdict& v) {
    auto job = c_.exec(
        what, sql({"SELECT registry, package_name, version, kind FROM scan_jobs WHERE ", condition, " FOR UPDATE"}),
        {job_id, who});
    if (!job) return Unexpected(job.error());
    if (job->size() != 1) return false;
    std::string kind_text = job->text(0, 3);
    auto kind = core::parse_package_kind(kind_text);
    if (!kind) return c_.failure(what, rows::bad_value("scan_jobs", "kind", kind_text));
    auto recorded = record_verdict(job->text(0, 0), job->text(0, 1), job->text(0, 2), *kind, v);
    if (!recorded) return Unexpected(recorded.error());
    auto done = c_.exec(what, "UPDATE scan_jobs SET completed_at = now() WHERE id = $1::uuid", {job_id});
    if (!done) return Unexpected(done.error());
    return true;
  }

  // The verdict's row first: its lock orders two writers of one coordinate, so that their
  // findings never interleave.
  Expected<Ok, QueueError> record_verdict(const std::string& registry, const std::string& name,
                                          const std::string& version, core::PackageKind kind,
                                          const core::RecordedVerdict& v) {
    rows::VerdictRow row = rows::verdict_row(kind, v);
    auto up = c_.exec("record verdict", R"(INSERT INTO artifact_verdicts (registry, package_name, version, kind, state,
            reason_codes, policy_ref, evaluated_at, last_scanned_at, scanners_done)
        VALUES ($1, $2, $3, $4, $5, )" BATLEHUB_TEXT_ARRAY("$6") R"(, $7, to_timestamp($8::bigint),
                to_timestamp($9::bigint), )" BATLEHUB_TEXT_ARRAY("$10") R"()
        ON CONFLICT (registry, package_name, version) DO UPDATE SET kind = excluded.kind, state = excluded.state,
            reason_codes = excluded.reason_codes, policy_ref = excluded.policy_ref,
            evaluated_at = excluded.evaluated_at, last_scanned_at = excluded.last_scanned_at,
            scanners_done = excluded.scanners_done)",
                      {registry, name, version, row.kind, row.state, row.reason_codes, row.policy_ref,
                       num(row.evaluated_at), num(row.last_scanned_at), row.scanners_done});
    if (!up) return Unexpected(up.error());
    auto del = c_.exec("record verdict",
                       "DELETE FROM artifact_findings WHERE registry = $1 AND package_name = $2 AND version = $3",
                       {registry, name, version});
    if (!del) return Unexpected(del.error());
    std::int64_t ordinal = 0;
    for (const core::Finding& f : v.verdict.findings) {
      rows::FindingRow fr = rows::finding_row(f);
      auto ins = c_.exec("record finding", R"(INSERT INTO artifact_findings (registry, package_name, version, ordinal,
              scanner, kind, code, severity, reference, summary, raw)
          VALUES ($1, $2, $3, $4::integer, $5, $6, $7, $8, $9, $10, $11))",
                         {registry, name, version, num(ordinal++), fr.scanner, fr.kind, fr.code, fr.severity,
                          fr.reference, fr.summary, fr.raw});
      if (!ins) return Unexpected(ins.error());
    }
    return Ok{};
  }

  Expected<std::optional<core::RecordedVerdict>, QueueError> verdict_locked(const std::string& registry,
                                                                            const std::string& name,
                                                                            const std::string& version) {
    auto v = c_.exec("verdict",
                     R"(SELECT kind, state, array_to_json(reason_codes)::text,
            array_to_json(scanners_done)::text, policy_ref, )" BATLEHUB_EPOCH("evaluated_at") ", " BATLEHUB_EPOCH(
                         "last_scanned_at") R"(
        FROM artifact_verdicts WHERE registry = $1 AND package_name = $2 AND version = $3)",
                     {registry, name, version});
    if (!v) return Unexpected(v.error());
    if (v->size() != 1) return std::optional<core::RecordedVerdict>();
    rows::VerdictRow row{v->text(0, 0), v->text(0, 1),  v->text(0, 2),     v->text(0, 3),
                         v->text(0, 4), v->int64(0, 5), v->opt_int64(0, 6)};
    auto f = c_.exec("verdict", R"(SELECT scanner, kind, code, severity, reference, summary, raw
        FROM artifact_findings WHERE registry = $1 AND package_name = $2 AND version = $3 ORDER BY ordinal)",
                     {registry, name, version});
    if (!f) return Unexpected(f.error());
    std::vector<rows::FindingRow> findings;
    for (int i = 0; i < f->size(); ++i) {
      findings.push_back(rows::FindingRow{f->text(i, 0), f->text(i, 1), f->text(i, 2), f->text(i, 3), f->opt_text(i, 4),
                                          f->text(i, 5), f->text(i, 6)});
    }
    auto rv = rows::verdict_from_rows(registry, name, version, std::move(row), std::move(findings));
    if (!rv) return c_.failure("read", rv.error());
    return std::optional<core::RecordedVerdict>(std::move(*rv));
  }

  std::mutex mu_;  // libpq's connection is not thread-safe: one caller at a time
  Connection c_;
};

}  // namespace

Expected<std::unique_ptr<core::ScanQueue>, QueueError> open_postgres_queue(const std::string& dsn) {
  auto label = server_label(dsn);
  if (!label) return Unexpected(QueueError{"postgresql: invalid connection string (libpq cannot parse it)"});
  // The DSN's own settings win over the timeout (it comes first); UTF-8 is ours, last.
  const char* keys[] = {"connect_timeout", "dbname", "client_encoding", nullptr};
  const char* values[] = {"10", dsn.c_str(), "UTF8", nullptr};
  PGconn* c = PQconnectdbParams(keys, values, 1);
  if (!c) return Unexpected(QueueError{"postgresql " + *label + ": connect: out of memory"});
  if (PQstatus(c) != CONNECTION_OK) {
    std::string msg = "postgresql " + *label + ": connect: " + one_line(PQerrorMessage(c));
    PQfinish(c);
    return Unexpected(QueueError{std::move(msg)});
  }
  // NOTICEs (CREATE TABLE IF NOT EXISTS …) are not errors and go nowhere.
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);
  auto q = std::make_unique<PostgresQueue>(c, *label);
  if (auto m = q->migrate(); !m) return Unexpected(m.error());
  return std::unique_ptr<core::ScanQueue>(std::move(q));
}

}  // namespace batlehub::adapters
