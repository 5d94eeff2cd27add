#include "adapters/queue/postgres_queue.h"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <map>
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

// Upstream's tables, as its migrations leave them (upstream-storage-and-queue.md B.2 and
// A.6: migrations 002, 004, 007 and 049–052), for a database upstream has never migrated:
// this worker alone, beside no proxy. On upstream's own database nothing here runs; the
// columns are checked against kTables instead. IF NOT EXISTS, as upstream's own DDL: a
// table made by either side is the other's.
constexpr const char* kUpstreamDdl = R"sql(
CREATE TABLE IF NOT EXISTS artifact_dedup_index (
  content_hash text PRIMARY KEY,
  content_key text NOT NULL,
  ref_count integer NOT NULL DEFAULT 1,
  size_bytes bigint
);
CREATE TABLE IF NOT EXISTS artifact_dedup_refs (
  logical_key text PRIMARY KEY,
  content_hash text NOT NULL REFERENCES artifact_dedup_index (content_hash)
);
CREATE INDEX IF NOT EXISTS idx_artifact_dedup_refs_content_hash ON artifact_dedup_refs (content_hash);
CREATE TABLE IF NOT EXISTS artifact_storage (
  storage_key text PRIMARY KEY,
  backend_name text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  size_bytes bigint
);
CREATE INDEX IF NOT EXISTS idx_artifact_storage_backend_name ON artifact_storage (backend_name);
CREATE TABLE IF NOT EXISTS artifact_verdicts (
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  state text NOT NULL,
  reason_codes text[] NOT NULL DEFAULT '{}',
  policy_ref text NOT NULL,
  available_at timestamptz,
  evaluated_at timestamptz NOT NULL,
  last_scanned_at timestamptz,
  scanners_done text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (registry, package_name, version)
);
CREATE INDEX IF NOT EXISTS idx_artifact_verdicts_registry_state ON artifact_verdicts (registry, state);
CREATE TABLE IF NOT EXISTS artifact_findings (
  id uuid PRIMARY KEY,
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  scanner text NOT NULL,
  kind text NOT NULL,
  code text NOT NULL,
  severity text NOT NULL,
  reference text,
  summary text NOT NULL,
  confidence smallint,
  available_at timestamptz,
  raw jsonb NOT NULL DEFAULT 'null'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_artifact_findings_coordinate ON artifact_findings (registry, package_name, version);
CREATE TABLE IF NOT EXISTS scan_jobs (
  id uuid PRIMARY KEY,
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  published_at timestamptz,
  artifact_sha256 text,
  trigger text NOT NULL,
  priority smallint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  leased_until timestamptz,
  leased_by text,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS idx_scan_jobs_open_coordinate ON scan_jobs (registry, package_name, version)
  WHERE completed_at IS NULL;
CREATE INDEX IF NOT EXISTS idx_scan_jobs_lease ON scan_jobs (priority, created_at) WHERE completed_at IS NULL;
CREATE TABLE IF NOT EXISTS worker_heartbeats (
  worker_id text PRIMARY KEY,
  last_seen timestamptz NOT NULL,
  registries text[] NOT NULL DEFAULT '{}'
);
)sql";

// What this worker reads and writes, column by column, as upstream's DDL has it: the type
// as information_schema.columns.udt_name spells it, and whether it takes NULL.
struct ColumnSpec {
  const char* name;
  const char* udt;
  bool nullable;
};
struct TableSpec {
  const char* name;
  const char* migration;  // upstream's, for the message when it is missing
  std::vector<ColumnSpec> columns;
};
const std::vector<TableSpec>& upstream_tables() {
  static const std::vector<TableSpec> kTables{
      {"scan_jobs",
       "051",
       {{"id", "uuid", false},
        {"registry", "text", false},
        {"package_name", "text", false},
        {"version", "text", false},
        {"published_at", "timestamptz", true},
        {"artifact_sha256", "text", true},
        {"trigger", "text", false},
        {"priority", "int2", false},
        {"attempts", "int4", false},
        {"leased_until", "timestamptz", true},
        {"leased_by", "text", true},
        {"last_error", "text", true},
        {"created_at", "timestamptz", false},
        {"completed_at", "timestamptz", true}}},
      {"artifact_verdicts",
       "049",
       {{"registry", "text", false},
        {"package_name", "text", false},
        {"version", "text", false},
        {"state", "text", false},
        {"reason_codes", "_text", false},
        {"policy_ref", "text", false},
        {"available_at", "timestamptz", true},
        {"evaluated_at", "timestamptz", false},
        {"last_scanned_at", "timestamptz", true},
        {"scanners_done", "_text", false}}},
      {"artifact_findings",
       "050",
       {{"id", "uuid", false},
        {"registry", "text", false},
        {"package_name", "text", false},
        {"version", "text", false},
        {"scanner", "text", false},
        {"kind", "text", false},
        {"code", "text", false},
        {"severity", "text", false},
        {"reference", "text", true},
        {"summary", "text", false},
        {"confidence", "int2", true},
        {"available_at", "timestamptz", true},
        {"raw", "jsonb", false},
        {"created_at", "timestamptz", false}}},
      {"worker_heartbeats",
       "052",
       {{"worker_id", "text", false}, {"last_seen", "timestamptz", false}, {"registries", "_text", false}}},
      {"artifact_dedup_index",
       "002",
       {{"content_hash", "text", false},
        {"content_key", "text", false},
        {"ref_count", "int4", false},
        {"size_bytes", "int8", true}}},
      {"artifact_dedup_refs", "002", {{"logical_key", "text", false}, {"content_hash", "text", false}}},
      {"artifact_storage",
       "004",
       {{"storage_key", "text", false},
        {"backend_name", "text", false},
        {"stored_at", "timestamptz", false},
        {"size_bytes", "int8", true}}},
  };
  return kTables;
}

// Held while the tables are made or checked, so that two workers starting on an empty
// database create them once ("batlehub" in ASCII).
constexpr std::int64_t kSchemaLock = 0x6261746c65687562;

#define BATLEHUB_EPOCH(col) "floor(extract(epoch FROM " col "))::bigint"
// B.3's returned columns, and the rest of the row.
constexpr std::string_view kJobColumns =
    "id::text AS j_id, registry AS j_registry, package_name AS j_name, version AS j_version, "
    BATLEHUB_EPOCH("published_at") " AS j_published_at, "
    "trigger AS j_trigger, attempts AS j_attempts, "
    BATLEHUB_EPOCH("leased_until") " AS j_leased_until, leased_by AS j_leased_by, "
    BATLEHUB_EPOCH("created_at") " AS j_created_at, "
    BATLEHUB_EPOCH("completed_at") " AS j_completed_at, last_error AS j_last_error";

// A job the worker still holds ($1 job, $2 worker), and an exhausted one ($1 job, $2
// max_attempts): on the database's clock, so that workers on many hosts agree. Upstream
// leases a row whose leased_until is strictly before now(), so a lease is live up to and
// including its last instant.
constexpr std::string_view kHeld =
    "id = $1::uuid AND leased_by = $2 AND completed_at IS NULL AND leased_until >= now()";
constexpr std::string_view kExhausted =
    "id = $1::uuid AND completed_at IS NULL AND attempts >= $2::bigint "
    "AND (leased_until IS NULL OR leased_until < now())";

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
  row.published_at = r.opt_int64(i, 4);
  row.trigger = r.text(i, 5);
  row.attempts = r.int64(i, 6);
  row.leased_until = r.opt_int64(i, 7);
  row.leased_by = r.opt_text(i, 8);
  row.created_at = r.int64(i, 9);
  row.completed_at = r.opt_int64(i, 10);
  row.last_error = r.opt_text(i, 11);
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

  // Upstream's tables, made when this database has never seen upstream (no
  // _sqlx_migrations, the bookkeeping of upstream's migrator), then checked column by column
  // either way: a worker that would write rows upstream cannot read does not start.
  Expected<Ok, QueueError> ensure_schema() {
    return c_.write([&]() -> Expected<Ok, QueueError> {
      if (auto l = c_.exec("schema", "SELECT pg_advisory_xact_lock($1::bigint)", {num(kSchemaLock)}); !l) {
        return Unexpected(l.error());
      }
      auto found = c_.exec("schema", R"(SELECT to_regclass('_sqlx_migrations') IS NOT NULL,
          EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = current_schema() AND table_name = 'scan_jobs' AND column_name = 'kind'),
          to_regclass('schema_migrations') IS NOT NULL)");
      if (!found) return Unexpected(found.error());
      const bool upstream = found->text(0, 0) == "t";
      if (found->text(0, 1) == "t") {
        return c_.failure(
            "schema",
            "scan_jobs has a column \"kind\", which upstream's scan_jobs does not: these are the tables "
            "batlehub-sandbox made before it spoke upstream's schema" +
                std::string(found->text(0, 2) == "t" ? " (with its schema_migrations)" : "") +
                ". Point [database] url at batlehub's own database, or, when nothing in them is worth keeping, "
                "drop them (DROP TABLE scan_jobs, artifact_findings, artifact_verdicts, worker_heartbeats, "
                "schema_migrations) and start again: this worker then makes upstream's tables");
      }
      if (!upstream) {
        if (auto d = c_.exec_constant("schema", kUpstreamDdl); !d) return Unexpected(d.error());
      }
      return check_columns(upstream);
    });
  }

  Expected<core::Enqueued, QueueError> enqueue(const core::JobRequest& r) override {
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<core::Enqueued, QueueError> {
      // The open job may complete between a conflict and the look-up; a few rounds settle it.
      for (int round = 0; round < 3; ++round) {
        const core::Coordinate& p = r.coordinate;
        // B.3: a v4 uuid, ON CONFLICT DO NOTHING against the one-open-job index.
        auto ins = c_.exec("enqueue", R"(INSERT INTO scan_jobs (id, registry, package_name, version, published_at,
                  trigger, priority)
            VALUES (gen_random_uuid(), $1, $2, $3, to_timestamp($4::bigint), $5, $6::smallint)
            ON CONFLICT DO NOTHING
            RETURNING id::text)",
                           {p.registry, p.name, p.version, num(r.published_at), std::string(core::to_string(r.trigger)),
                            num(static_cast<std::int64_t>(r.trigger))});
        if (!ins) return Unexpected(ins.error());
        if (ins->size() == 1) return core::Enqueued{ins->text(0, 0), true};
        auto open = c_.exec("enqueue", R"(SELECT id::text FROM scan_jobs
            WHERE registry = $1 AND package_name = $2 AND version = $3 AND completed_at IS NULL)",
                            {r.coordinate.registry, r.coordinate.name, r.coordinate.version});
        if (!open) return Unexpected(open.error());
        if (open->size() == 1) return core::Enqueued{open->text(0, 0), false};
      }
      return c_.failure("enqueue", "the open job of " + r.coordinate.coordinate() + " kept changing");
    });
  }

  Expected<std::vector<core::ScanJob>, QueueError> lease(const core::LeaseRequest& r) override {
    if (r.max <= 0) return std::vector<core::ScanJob>{};
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      return rows::two_picks(r.max,
                             [&](bool lowest_first, std::int64_t limit) { return pick(r, lowest_first, limit); });
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
    return c_.write(
        [&]() -> Expected<bool, QueueError> { return close_job("complete", kHeld, job_id, worker_id, &v); });
  }

  Expected<bool, QueueError> drop(const std::string& job_id, const std::string& worker_id) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write(
        [&]() -> Expected<bool, QueueError> { return close_job("drop", kHeld, job_id, worker_id, nullptr); });
  }

  Expected<bool, QueueError> drop_exhausted(const std::string& job_id, std::int64_t max_attempts) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> {
      return close_job("drop exhausted", kExhausted, job_id, std::to_string(max_attempts), nullptr);
    });
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

  Expected<std::vector<core::ScanJob>, QueueError> exhausted(std::int64_t max_attempts, std::int64_t limit) override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<std::vector<core::ScanJob>, QueueError> {
      auto found = c_.exec("exhausted", sql({"SELECT ", kJobColumns, R"( FROM scan_jobs
          WHERE completed_at IS NULL AND attempts >= $1::bigint AND (leased_until IS NULL OR leased_until < now())
          ORDER BY created_at, id LIMIT $2::bigint)"}),
                           {num(max_attempts), num(limit)});
      if (!found) return Unexpected(found.error());
      return jobs_of(*found);
    });
  }

  Expected<bool, QueueError> close_exhausted(const std::string& job_id, std::int64_t max_attempts,
                                             const core::RecordedVerdict& v) override {
    if (!rows::is_uuid(job_id)) return false;
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<bool, QueueError> {
      return close_job("close exhausted", kExhausted, job_id, std::to_string(max_attempts), &v);
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

  Expected<std::vector<core::CachedArtifactRow>, QueueError> cached_artifacts(const std::string& key,
                                                                              bool prefix) override {
    std::lock_guard lock(mu_);
    return c_.read([&]() -> Expected<std::vector<core::CachedArtifactRow>, QueueError> {
      auto r = c_.exec("cached artifacts",
                       rows::cached_artifacts_sql(prefix ? "left(%, length($1)) = $1" : "% = $1", "$2::bigint"),
                       {key, num(core::ScanQueue::kMaxCachedArtifactRows)});
      if (!r) return Unexpected(r.error());
      std::vector<core::CachedArtifactRow> out;
      for (int i = 0; i < r->size(); ++i) {
        out.push_back(core::CachedArtifactRow{r->text(i, 0), r->text(i, 1), r->text(i, 2), r->opt_int64(i, 3),
                                              r->opt_text(i, 4)});
      }
      return out;
    });
  }

  Expected<Ok, QueueError> record_artifact(const std::string& logical_key, const std::string& sha256,
                                           std::int64_t size_bytes, const std::string& backend_name) override {
    std::lock_guard lock(mu_);
    return c_.write([&]() -> Expected<Ok, QueueError> {
      auto old =
          c_.exec("record artifact", "SELECT content_hash FROM artifact_dedup_refs WHERE logical_key = $1 FOR UPDATE",
                  {logical_key});
      if (!old) return Unexpected(old.error());
      if (old->size() == 1 && old->text(0, 0) == sha256) return Ok{};
      auto idx = c_.exec("record artifact", R"(INSERT INTO artifact_dedup_index (content_hash, content_key, ref_count,
              size_bytes) VALUES ($1, 'blob/' || $1, 1, $2::bigint)
          ON CONFLICT (content_hash) DO UPDATE SET ref_count = artifact_dedup_index.ref_count + 1)",
                         {sha256, num(size_bytes)});
      if (!idx) return Unexpected(idx.error());
      if (old->size() == 1) {
        auto dec = c_.exec("record artifact",
                           "UPDATE artifact_dedup_index SET ref_count = ref_count - 1 WHERE content_hash = $1",
                           {old->text(0, 0)});
        if (!dec) return Unexpected(dec.error());
      }
      auto ref = c_.exec("record artifact", R"(INSERT INTO artifact_dedup_refs (logical_key, content_hash)
          VALUES ($1, $2) ON CONFLICT (logical_key) DO UPDATE SET content_hash = excluded.content_hash)",
                         {logical_key, sha256});
      if (!ref) return Unexpected(ref.error());
      auto where = c_.exec("record artifact", R"(INSERT INTO artifact_storage (storage_key, backend_name, size_bytes)
          VALUES ($1, $2, $3::bigint) ON CONFLICT (storage_key) DO UPDATE SET backend_name = excluded.backend_name,
              stored_at = now(), size_bytes = excluded.size_bytes)",
                           {logical_key, backend_name, num(size_bytes)});
      if (!where) return Unexpected(where.error());
      return Ok{};
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
          WHERE completed_at IS NULL GROUP BY registry, trigger)");
      if (!queued) return Unexpected(queued.error());
      for (int i = 0; i < queued->size(); ++i) {
        std::string trigger = queued->text(i, 1);
        if (!core::parse_trigger(trigger))
          return c_.failure("counts", rows::bad_value("scan_jobs", "trigger", trigger));
        out.queued[{queued->text(i, 0), trigger}] = queued->int64(i, 2);
      }
      auto leased = c_.exec("counts", R"(SELECT leased_by, count(*) FROM scan_jobs
          WHERE completed_at IS NULL AND leased_until >= now() GROUP BY leased_by)");
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
  // One pick: a single UPDATE whose subquery chooses and row-locks its candidates, so that
  // choosing and leasing are one step, and a row another worker is leasing right now is
  // skipped rather than waited for. By priority then age, or (lowest_first) by priority
  // descending then age. The registry list is bound as the other lists are (JSON, unpacked).
  Expected<std::vector<core::ScanJob>, QueueError> pick(const core::LeaseRequest& r, bool lowest_first,
                                                        std::int64_t limit) {
    const std::string_view order = lowest_first ? "priority DESC, created_at" : "priority, created_at";
    const std::string_view returned = lowest_first ? "j_priority DESC, j_created_ts" : "j_priority, j_created_ts";
    auto leased =
        c_.exec("lease",
                sql({R"(WITH leased AS (
            UPDATE scan_jobs SET leased_until = now() + make_interval(secs => $2::float8), leased_by = $1,
                                 attempts = attempts + 1
            WHERE id IN (SELECT id FROM scan_jobs
                          WHERE completed_at IS NULL AND (leased_until IS NULL OR leased_until < now())
                            AND attempts < $3::integer
                            AND (jsonb_array_length($4::jsonb) = 0 OR registry = ANY()" BATLEHUB_TEXT_ARRAY("$4") R"())
                          ORDER BY )",
                     order, R"(
                          LIMIT $5::bigint
                          FOR UPDATE SKIP LOCKED)
            RETURNING )",
                     kJobColumns, R"(, priority AS j_priority, created_at AS j_created_ts)
          SELECT * FROM leased ORDER BY )",
                     returned}),
                {r.worker_id, num(r.lease_secs), num(r.max_attempts), rows::json_list(r.registries), num(limit)});
    if (!leased) return Unexpected(leased.error());
    return jobs_of(*leased);
  }

  Expected<Ok, QueueError> check_columns(bool upstream) {
    auto cols = c_.exec("schema", R"(SELECT table_name::text, column_name::text, udt_name::text, is_nullable::text,
            column_default IS NOT NULL
        FROM information_schema.columns
        WHERE table_schema = current_schema()
          AND table_name IN ('scan_jobs', 'artifact_verdicts', 'artifact_findings', 'worker_heartbeats',
                             'artifact_dedup_index', 'artifact_dedup_refs', 'artifact_storage'))");
    if (!cols) return Unexpected(cols.error());
    struct Seen {
      std::string udt;
      bool nullable = false;
      bool has_default = false;
    };
    std::map<std::pair<std::string, std::string>, Seen> seen;
    for (int i = 0; i < cols->size(); ++i) {
      seen[{cols->text(i, 0), cols->text(i, 1)}] =
          Seen{cols->text(i, 2), cols->text(i, 3) == "YES", cols->text(i, 4) == "t"};
    }
    const std::string whose = upstream ? "upstream's database" : "this database";
    for (const TableSpec& t : upstream_tables()) {
      bool any = false;
      for (const auto& [key, _] : seen) any = any || key.first == t.name;
      if (!any) {
        return c_.failure("schema", whose + " has no table " + t.name + " (upstream's migration " + t.migration +
                                        "): upgrade batlehub and let its proxy migrate, then start this worker");
      }
      for (const ColumnSpec& col : t.columns) {
        auto it = seen.find({t.name, col.name});
        const std::string where = std::string(t.name) + "." + col.name;
        if (it == seen.end()) {
          return c_.failure("schema", where + " is missing from " + whose + " (upstream's migration " + t.migration +
                                          " has it): upgrade batlehub and let its proxy migrate");
        }
        if (it->second.udt != col.udt) {
          return c_.failure("schema", where + " is of type " + it->second.udt + " where upstream's is " + col.udt);
        }
        if (it->second.nullable != col.nullable) {
          return c_.failure("schema", where + (col.nullable ? " is NOT NULL where upstream's takes NULL"
                                                            : " takes NULL where upstream's is NOT NULL"));
        }
      }
      // A newer upstream may add columns; one this worker would have to fill is refused here
      // rather than at its first INSERT.
      for (const auto& [key, c] : seen) {
        if (key.first != t.name || c.nullable || c.has_default) continue;
        bool known = false;
        for (const ColumnSpec& col : t.columns) known = known || key.second == col.name;
        if (!known) {
          return c_.failure("schema", key.first + "." + key.second +
                                          " is NOT NULL with no default, and this worker does not know it: a newer "
                                          "upstream schema than this build reads");
        }
      }
    }
    return Ok{};
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
  // `v` null: the job is closed and nothing is recorded (a dropped job).
  Expected<bool, QueueError> close_job(std::string_view what, std::string_view condition, const std::string& job_id,
                                       const std::string& who, const core::RecordedVerdict* v) {
    auto job =
        c_.exec(what, sql({"SELECT registry, package_name, version FROM scan_jobs WHERE ", condition, " FOR UPDATE"}),
                {job_id, who});
    if (!job) return Unexpected(job.error());
    if (job->size() != 1) return false;
    if (v != nullptr) {
      auto recorded = record_verdict(job->text(0, 0), job->text(0, 1), job->text(0, 2), *v);
      if (!recorded) return Unexpected(recorded.error());
    }
    auto done =
        c_.exec(what, "UPDATE scan_jobs SET completed_at = now(), leased_until = NULL WHERE id = $1::uuid", {job_id});
    if (!done) return Unexpected(done.error());
    return true;
  }

  // B.4, in the caller's transaction. The verdict's row first: its lock orders two writers
  // of one coordinate, so that their findings never interleave.
  Expected<Ok, QueueError> record_verdict(const std::string& registry, const std::string& name,
                                          const std::string& version, const core::RecordedVerdict& v) {
    rows::VerdictRow row = rows::verdict_row(v);
    auto up = c_.exec("record verdict", R"(INSERT INTO artifact_verdicts (registry, package_name, version, state,
            reason_codes, policy_ref, available_at, evaluated_at, last_scanned_at, scanners_done)
        VALUES ($1, $2, $3, $4, )" BATLEHUB_TEXT_ARRAY("$5") R"(, $6, to_timestamp($7::bigint),
                to_timestamp($8::bigint), to_timestamp($9::bigint), )" BATLEHUB_TEXT_ARRAY("$10") R"()
        ON CONFLICT (registry, package_name, version) DO UPDATE SET state = excluded.state,
            reason_codes = excluded.reason_codes, policy_ref = excluded.policy_ref,
            available_at = excluded.available_at, evaluated_at = excluded.evaluated_at,
            last_scanned_at = excluded.last_scanned_at, scanners_done = excluded.scanners_done)",
                      {registry, name, version, row.state, row.reason_codes, row.policy_ref, num(row.available_at),
                       num(row.evaluated_at), num(row.last_scanned_at), row.scanners_done});
    if (!up) return Unexpected(up.error());
    auto del = c_.exec("record verdict",
                       "DELETE FROM artifact_findings WHERE registry = $1 AND package_name = $2 AND version = $3",
                       {registry, name, version});
    if (!del) return Unexpected(del.error());
    // Upstream reads findings ORDER BY created_at, scanner, and its writer leaves created_at
    // to now(), one value for the whole set. A microsecond apart each, they read back in the
    // order they were recorded, by upstream's query and ours.
    std::int64_t ordinal = 0;
    for (const core::Finding& f : v.verdict.findings) {
      rows::FindingRow fr = rows::finding_row(f);
      auto ins = c_.exec("record finding", R"(INSERT INTO artifact_findings (id, registry, package_name, version,
              scanner, kind, code, severity, reference, summary, confidence, available_at, raw, created_at)
          VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10::smallint, to_timestamp($11::bigint),
                  $12::jsonb, now() + $13::bigint * interval '1 microsecond'))",
                         {registry, name, version, fr.scanner, fr.kind, fr.code, fr.severity, fr.reference, fr.summary,
                          num(fr.confidence), num(fr.available_at), fr.raw, num(ordinal++)});
      if (!ins) return Unexpected(ins.error());
    }
    return Ok{};
  }

  Expected<std::optional<core::RecordedVerdict>, QueueError> verdict_locked(const std::string& registry,
                                                                            const std::string& name,
                                                                            const std::string& version) {
    auto v = c_.exec("verdict",
                     R"(SELECT state, array_to_json(reason_codes)::text, array_to_json(scanners_done)::text,
            policy_ref, )" BATLEHUB_EPOCH("available_at") ", " BATLEHUB_EPOCH("evaluated_at") ", " BATLEHUB_EPOCH(
                         "last_scanned_at") R"(
        FROM artifact_verdicts WHERE registry = $1 AND package_name = $2 AND version = $3)",
                     {registry, name, version});
    if (!v) return Unexpected(v.error());
    if (v->size() != 1) return std::optional<core::RecordedVerdict>();
    rows::VerdictRow row{v->text(0, 0),      v->text(0, 1),  v->text(0, 2),     v->text(0, 3),
                         v->opt_int64(0, 4), v->int64(0, 5), v->opt_int64(0, 6)};
    // Upstream's read order (B.2).
    auto f = c_.exec("verdict", R"(SELECT scanner, kind, code, severity, reference, summary, raw::text,
            confidence::bigint, )" BATLEHUB_EPOCH("available_at") R"(
        FROM artifact_findings WHERE registry = $1 AND package_name = $2 AND version = $3
        ORDER BY created_at, scanner)",
                     {registry, name, version});
    if (!f) return Unexpected(f.error());
    std::vector<rows::FindingRow> findings;
    for (int i = 0; i < f->size(); ++i) {
      findings.push_back(rows::FindingRow{f->text(i, 0), f->text(i, 1), f->text(i, 2), f->text(i, 3), f->opt_text(i, 4),
                                          f->text(i, 5), f->text(i, 6), f->opt_int64(i, 7), f->opt_int64(i, 8)});
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
  if (auto m = q->ensure_schema(); !m) return Unexpected(m.error());
  return std::unique_ptr<core::ScanQueue>(std::move(q));
}

}  // namespace batlehub::adapters
