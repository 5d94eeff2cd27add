// The scan queue's semantics (core/queue.h), one suite run against both adapters: SQLite in
// a fresh file per test, PostgreSQL in a fresh schema per test on the fixture's server
// (tests/pg_fixture.cmake). A PostgreSQL case that cannot reach its server fails.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "adapters/queue/postgres_queue.h"
#include "adapters/queue/sqlite_queue.h"
#include "core/queue.h"

namespace batlehub {
namespace {

using core::Finding;
using core::FindingKind;
using core::JobRequest;
using core::LeaseRequest;
using core::Coordinate;
using core::QueueError;
using core::ReasonCode;
using core::RecordedVerdict;
using core::ScanJob;
using core::ScanQueue;
using core::Severity;
using core::Trigger;
using core::VerdictState;

template <class T>
T must(Expected<T, QueueError> e, const char* what) {
  if (!e) throw std::runtime_error(std::string(what) + ": " + e.error().message);
  return std::move(e).value();
}
#define MUST(expr) must((expr), #expr)

std::string random_hex(int n) {
  static std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) out += kHex[rng() % 16];
  return out;
}

void pause_secs(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// Where one test's queue lives, made empty for it and removed after it.
class Store {
 public:
  explicit Store(std::string backend) : backend_(std::move(backend)) {
    if (backend_ == "sqlite") {
      dir_ = std::filesystem::temp_directory_path() / ("batlehub-queue-test-" + random_hex(12));
      std::filesystem::create_directories(dir_);
      path_ = (dir_ / "queue.sqlite3").string();
      return;
    }
    const char* base = std::getenv("BATLEHUB_TEST_PG_DSN");
    if (!base || !*base) throw std::runtime_error("BATLEHUB_TEST_PG_DSN is unset: run the PostgreSQL cases with ctest");
    admin_ = PQconnectdb(base);
    if (PQstatus(admin_) != CONNECTION_OK) {
      std::string msg = PQerrorMessage(admin_);
      PQfinish(admin_);
      admin_ = nullptr;
      throw std::runtime_error("cannot reach the test server: " + msg);
    }
    PQsetNoticeProcessor(
        admin_, [](void*, const char*) {}, nullptr);
    move_to_fresh_place();
  }
  ~Store() {
    if (admin_) {
      for (const std::string& s : schemas_) exec_pg("DROP SCHEMA IF EXISTS " + s + " CASCADE");
      PQfinish(admin_);
    }
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  Expected<std::unique_ptr<ScanQueue>, QueueError> open() const {
    return backend_ == "sqlite" ? adapters::open_sqlite_queue(path_) : adapters::open_postgres_queue(dsn_);
  }

  // Another empty store, as if for another test.
  void move_to_fresh_place() {
    if (backend_ == "sqlite") {
      path_ = (dir_ / ("queue-" + random_hex(6) + ".sqlite3")).string();
      return;
    }
    schema_ = "q_" + random_hex(12);
    schemas_.push_back(schema_);
    exec_pg("CREATE SCHEMA " + schema_);
    std::string base = std::getenv("BATLEHUB_TEST_PG_DSN");
    dsn_ = base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema_ +
           "&application_name=" + schema_;
  }

  // Constant SQL straight to the store, past the adapter: a row as a newer release, or
  // someone with the database's password, might leave it.
  void tamper(const std::string& sql) const {
    if (backend_ != "sqlite") {
      exec_pg("SET search_path TO " + schema_ + "; " + sql);
      return;
    }
    sqlite3* db = nullptr;
    sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    sqlite3_busy_timeout(db, 10'000);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    if (rc != SQLITE_OK) throw std::runtime_error("tamper: " + msg);
  }

  // The first column of the first row a constant query returns, read past the adapter.
  std::string scalar(const std::string& sql) const {
    if (backend_ != "sqlite") {
      PGresult* r = PQexec(admin_, ("SET search_path TO " + schema_ + "; " + sql).c_str());
      bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0;
      std::string out = ok ? PQgetvalue(r, 0, 0) : std::string("query failed: ") + PQresultErrorMessage(r);
      PQclear(r);
      return out;
    }
    sqlite3* db = nullptr;
    sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    std::string out = "query failed";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(st, 0);
      out = text ? reinterpret_cast<const char*>(text) : "";
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }

  // PostgreSQL: ends the server side of every connection the adapter opened for this store.
  void drop_connections() const {
    exec_pg("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + schema_ + "'");
  }

 private:
  void exec_pg(const std::string& sql) const {
    PGresult* r = PQexec(admin_, sql.c_str());
    ExecStatusType st = PQresultStatus(r);
    std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) throw std::runtime_error(sql + ": " + msg);
  }

  std::string backend_;
  std::filesystem::path dir_;
  std::string path_;
  PGconn* admin_ = nullptr;
  std::string schema_;
  std::vector<std::string> schemas_;
  std::string dsn_;
};

Coordinate pkg(std::string name, std::string version = "1.0.0", std::string registry = "npmjs") {
  return Coordinate{std::move(registry), std::move(name), std::move(version)};
}

JobRequest req(const Coordinate& p, Trigger t = Trigger::kFirstSeen,
               std::optional<std::int64_t> published_at = std::nullopt) {
  return JobRequest{p, published_at, t};
}

LeaseRequest lease_by(std::string worker, std::int64_t max = 1, std::int64_t lease_secs = 600,
                      std::int64_t max_attempts = 3, std::vector<std::string> registries = {}) {
  return LeaseRequest{std::move(worker), max, lease_secs, max_attempts, std::move(registries)};
}

RecordedVerdict plain_verdict(const Coordinate& p, std::int64_t at, VerdictState state = VerdictState::kAllowed) {
  RecordedVerdict rv;
  rv.verdict.package = p;
  rv.verdict.state = state;
  rv.verdict.scanners_done = {"guarddog"};
  rv.verdict.policy_ref = p.registry + "/default";
  rv.evaluated_at = at;
  rv.last_scanned_at = at;
  return rv;
}

// What a malicious package's scanner output looks like once it reaches the queue.
RecordedVerdict hostile_verdict(const Coordinate& p, std::int64_t at) {
  RecordedVerdict rv;
  rv.verdict.package = p;
  rv.verdict.state = VerdictState::kDenied;
  rv.verdict.reason_codes = {ReasonCode::kMalwareSignal, ReasonCode::kVulnerability, ReasonCode::kScanPending};
  rv.verdict.scanners_done = {"guarddog", "trivy", "it's \"quoted\""};
  rv.verdict.policy_ref = p.registry + "/default";
  rv.verdict.findings = {
      Finding{
          "guarddog", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kCritical,
          "https://example.invalid/advisory?id=1&x='y'",
          "it's \"evil\"\nline two\r\n\ttabbed — naïve 日本語 🚀 '); DROP TABLE scan_jobs;-- $1 ? %s \\x00",
          // As it reads back: one serialization, keys in order (upstream's raw is jsonb).
          R"json({"evidence":"eval(atob('ZXZpbA=='))","nested":{"n":[1,2,null],"q":"\"'"},"rule":"exec-base64"})json",
          200, at + 3600},
      Finding{"trivy", FindingKind::kVulnerability, ReasonCode::kVulnerability, Severity::kHigh, std::nullopt, "",
              "{}"},
      Finding{"yara", FindingKind::kPending, ReasonCode::kScanPending, Severity::kUnknown, std::string(""),
              "'; DELETE FROM artifact_verdicts; --", "[]"},
  };
  rv.evaluated_at = at;
  rv.last_scanned_at = at - 3;
  return rv;
}

void expect_same(const RecordedVerdict& got, const RecordedVerdict& want) {
  EXPECT_EQ(got.verdict.package.registry, want.verdict.package.registry);
  EXPECT_EQ(got.verdict.package.name, want.verdict.package.name);
  EXPECT_EQ(got.verdict.package.version, want.verdict.package.version);
  EXPECT_EQ(got.verdict.state, want.verdict.state);
  EXPECT_EQ(got.verdict.reason_codes, want.verdict.reason_codes);
  EXPECT_EQ(got.verdict.scanners_done, want.verdict.scanners_done);
  EXPECT_EQ(got.verdict.policy_ref, want.verdict.policy_ref);
  EXPECT_EQ(got.verdict.available_at, want.verdict.available_at);
  ASSERT_EQ(got.verdict.findings.size(), want.verdict.findings.size());
  for (std::size_t i = 0; i < want.verdict.findings.size(); ++i) {
    EXPECT_EQ(got.verdict.findings[i], want.verdict.findings[i]) << "finding " << i;
  }
  EXPECT_EQ(got.evaluated_at, want.evaluated_at);
  EXPECT_EQ(got.last_scanned_at, want.last_scanned_at);
}

std::vector<std::string> names_of(const std::vector<ScanJob>& jobs) {
  std::vector<std::string> out;
  for (const ScanJob& j : jobs) out.push_back(j.coordinate.name);
  return out;
}

class QueueTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    store_ = std::make_unique<Store>(GetParam());
    q_ = MUST(store_->open());
  }
  void TearDown() override {
    q_.reset();
    store_.reset();
  }

  // Enqueues, leases and completes `p`'s job with `v`.
  std::string scan(const Coordinate& p, const RecordedVerdict& v, Trigger t = Trigger::kFirstSeen) {
    auto e = MUST(q_->enqueue(req(p, t)));
    auto leased = MUST(q_->lease(lease_by("scanner", 1, 600, 3, {p.registry})));
    if (leased.size() != 1 || leased[0].id != e.job_id) throw std::runtime_error("scan: leased something else");
    if (!MUST(q_->complete(e.job_id, "scanner", v))) throw std::runtime_error("scan: complete refused");
    return e.job_id;
  }

  std::unique_ptr<Store> store_;
  std::unique_ptr<ScanQueue> q_;
};

TEST_P(QueueTest, NamesItsBackend) {
  EXPECT_EQ(q_->backend(), GetParam());
}

TEST_P(QueueTest, EnqueueIsIdempotentWhileTheJobIsOpen) {
  Coordinate p = pkg("left-pad");
  auto first = MUST(q_->enqueue(req(p)));
  EXPECT_TRUE(first.created);
  EXPECT_TRUE(
      std::regex_match(first.job_id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << first.job_id;

  auto again = MUST(q_->enqueue(req(p, Trigger::kWebhook)));
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.job_id, first.job_id);
  auto other = MUST(q_->enqueue(req(pkg("left-pad", "1.0.1"))));
  EXPECT_TRUE(other.created);
  EXPECT_NE(other.job_id, first.job_id);

  auto leased = MUST(q_->lease(lease_by("w1", 10)));
  ASSERT_EQ(leased.size(), 2u);
  EXPECT_FALSE(MUST(q_->enqueue(req(p))).created) << "a leased job is still open";
  ASSERT_TRUE(MUST(q_->complete(first.job_id, "w1", plain_verdict(p, MUST(q_->now())))));

  auto after = MUST(q_->enqueue(req(p, Trigger::kRescan)));
  EXPECT_TRUE(after.created);
  EXPECT_NE(after.job_id, first.job_id);
  auto open = MUST(q_->open_job("npmjs", "left-pad", "1.0.0"));
  ASSERT_TRUE(open.has_value());
  EXPECT_EQ(open->id, after.job_id);
  EXPECT_EQ(open->trigger, Trigger::kRescan);
  auto all = MUST(q_->jobs("npmjs", "left-pad", "1.0.0"));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, first.job_id);
  EXPECT_TRUE(all[0].completed_at.has_value());
  EXPECT_EQ(all[1].id, after.job_id);
  EXPECT_FALSE(all[1].completed_at.has_value());
}

// Upstream's two picks (B.3): n−1 by priority then age, then one slot for the lowest tier
// waiting; a lease of one is a lease by priority.
TEST_P(QueueTest, LeasesByPriorityThenAgeWithOneSlotForTheLowestTier) {
  std::vector<std::pair<std::string, Trigger>> order = {{"a-backfill", Trigger::kBackfill},
                                                        {"b-rescan", Trigger::kRescan},
                                                        {"c-first", Trigger::kFirstSeen},
                                                        {"d-webhook", Trigger::kWebhook},
                                                        {"e-first", Trigger::kFirstSeen}};
  for (const auto& [name, trigger] : order) {
    MUST(q_->enqueue(req(pkg(name), trigger)));
    pause_secs(0.005);  // distinct ages on any clock
  }
  auto one = MUST(q_->lease(lease_by("w0", 1)));
  EXPECT_EQ(names_of(one), (std::vector<std::string>{"c-first"}));
  auto first = MUST(q_->lease(lease_by("w1", 3)));
  EXPECT_EQ(names_of(first), (std::vector<std::string>{"e-first", "d-webhook", "a-backfill"}));
  auto rest = MUST(q_->lease(lease_by("w2", 10)));
  EXPECT_EQ(names_of(rest), (std::vector<std::string>{"b-rescan"}));
  EXPECT_TRUE(MUST(q_->lease(lease_by("w3", 10))).empty());
}

TEST_P(QueueTest, LeaseSetsAttemptsHolderAndExpiry) {
  Coordinate p = pkg("requests", "2.32.3", "pypi");
  std::int64_t before = MUST(q_->now());
  auto e = MUST(q_->enqueue(req(p, Trigger::kWebhook, 1700000000)));
  auto leased = MUST(q_->lease(lease_by("host-1234", 5, 600)));
  std::int64_t after = MUST(q_->now());
  ASSERT_EQ(leased.size(), 1u);
  const ScanJob& j = leased[0];
  EXPECT_EQ(j.id, e.job_id);
  EXPECT_EQ(j.coordinate, p);
  EXPECT_EQ(j.published_at, 1700000000);
  EXPECT_EQ(j.trigger, Trigger::kWebhook);
  EXPECT_EQ(j.attempts, 1);
  EXPECT_EQ(j.leased_by, "host-1234");
  EXPECT_GE(j.leased_until, before + 600);
  EXPECT_LE(j.leased_until, after + 600);
  EXPECT_GE(j.created_at, before);
  EXPECT_LE(j.created_at, after);
  EXPECT_FALSE(j.completed_at.has_value());
  EXPECT_EQ(j.last_error, "");

  auto open = MUST(q_->open_job("pypi", "requests", "2.32.3"));
  ASSERT_TRUE(open.has_value());
  EXPECT_EQ(open->attempts, 1);
  EXPECT_EQ(open->leased_by, "host-1234");
  EXPECT_EQ(open->leased_until, j.leased_until);
}

TEST_P(QueueTest, ALiveLeaseIsNotLeasedAgain) {
  MUST(q_->enqueue(req(pkg("a"))));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 600))).size(), 1u);
  EXPECT_TRUE(MUST(q_->lease(lease_by("w2", 10, 600))).empty());
  EXPECT_TRUE(MUST(q_->lease(lease_by("w1", 10, 600))).empty()) << "nor by its own holder";
}

TEST_P(QueueTest, AnExpiredLeaseIsLeasedAgain) {
  auto e = MUST(q_->enqueue(req(pkg("a"))));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 1))).size(), 1u);
  pause_secs(1.2);
  auto again = MUST(q_->lease(lease_by("w2", 1, 600)));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, e.job_id);
  EXPECT_EQ(again[0].attempts, 2);
  EXPECT_EQ(again[0].leased_by, "w2");
}

TEST_P(QueueTest, HeartbeatExtendsALease) {
  auto e = MUST(q_->enqueue(req(pkg("a"))));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 1))).size(), 1u);
  EXPECT_TRUE(MUST(q_->heartbeat(e.job_id, "w1", 600)));
  pause_secs(1.2);
  EXPECT_TRUE(MUST(q_->lease(lease_by("w2", 1, 600))).empty());
  EXPECT_TRUE(MUST(q_->heartbeat(e.job_id, "w1", 600)));
  EXPECT_FALSE(MUST(q_->heartbeat(e.job_id, "w2", 600))) << "w2 never held it";
}

TEST_P(QueueTest, AWorkerThatLostItsLeaseRecordsNothing) {
  Coordinate p = pkg("a");
  auto e = MUST(q_->enqueue(req(p)));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 1))).size(), 1u);
  pause_secs(1.2);
  ASSERT_EQ(MUST(q_->lease(lease_by("w2", 1, 600))).size(), 1u);

  std::int64_t now = MUST(q_->now());
  EXPECT_FALSE(MUST(q_->heartbeat(e.job_id, "w1", 600)));
  EXPECT_FALSE(MUST(q_->complete(e.job_id, "w1", hostile_verdict(p, now))));
  EXPECT_FALSE(MUST(q_->fail(e.job_id, "w1", "too late")));
  EXPECT_FALSE(MUST(q_->verdict("npmjs", "a", "1.0.0")).has_value());
  auto open = MUST(q_->open_job("npmjs", "a", "1.0.0"));
  ASSERT_TRUE(open.has_value());
  EXPECT_EQ(open->leased_by, "w2");
  EXPECT_EQ(open->last_error, "");
  EXPECT_FALSE(open->completed_at.has_value());

  ASSERT_TRUE(MUST(q_->complete(e.job_id, "w2", plain_verdict(p, now))));
  EXPECT_FALSE(MUST(q_->complete(e.job_id, "w2", hostile_verdict(p, now)))) << "a verdict is recorded once";
  EXPECT_FALSE(MUST(q_->heartbeat(e.job_id, "w2", 600)));
  EXPECT_FALSE(MUST(q_->fail(e.job_id, "w2", "after the fact")));
  expect_same(*MUST(q_->verdict("npmjs", "a", "1.0.0")), plain_verdict(p, now));
}

TEST_P(QueueTest, AJobIdThatIsNoJobIsNotHeld) {
  std::int64_t now = MUST(q_->now());
  for (const std::string id : {"not-a-job", "", "00000000-0000-4000-8000-000000000000", "'; DROP TABLE scan_jobs;--"}) {
    EXPECT_FALSE(MUST(q_->heartbeat(id, "w1", 600))) << id;
    EXPECT_FALSE(MUST(q_->complete(id, "w1", plain_verdict(pkg("a"), now)))) << id;
    EXPECT_FALSE(MUST(q_->fail(id, "w1", "x"))) << id;
    EXPECT_FALSE(MUST(q_->close_exhausted(id, 0, plain_verdict(pkg("a"), now)))) << id;
  }
  EXPECT_TRUE(MUST(q_->enqueue(req(pkg("a")))).created);
}

TEST_P(QueueTest, CompleteRecordsTheVerdictAndItsFindings) {
  Coordinate p = pkg("evil-pkg", "6.6.6");
  std::int64_t now = MUST(q_->now());
  RecordedVerdict v = hostile_verdict(p, now);
  std::string id = scan(p, v);

  auto got = MUST(q_->verdict("npmjs", "evil-pkg", "6.6.6"));
  ASSERT_TRUE(got.has_value());
  expect_same(*got, v);
  auto jobs = MUST(q_->jobs("npmjs", "evil-pkg", "6.6.6"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, id);
  ASSERT_TRUE(jobs[0].completed_at.has_value());
  EXPECT_GE(*jobs[0].completed_at, now);
  EXPECT_FALSE(MUST(q_->open_job("npmjs", "evil-pkg", "6.6.6")).has_value());
  EXPECT_FALSE(MUST(q_->verdict("npmjs", "evil-pkg", "6.6.7")).has_value());
  // The tables the summaries name are all still there.
  EXPECT_TRUE(MUST(q_->enqueue(req(pkg("next")))).created);
}

TEST_P(QueueTest, ScannerTextIsKeptAsValidUtf8WithoutNul) {
  Coordinate p = pkg("bytes");
  std::int64_t now = MUST(q_->now());
  RecordedVerdict v = plain_verdict(p, now);
  v.verdict.findings = {Finding{"guarddog", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kHigh,
                                std::string("ref\xff", 4), std::string("a\0b\xc3", 4),
                                std::string("{\"k\":\"\0\"}", 9)}};
  scan(p, v);
  auto got = MUST(q_->verdict("npmjs", "bytes", "1.0.0"));
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->verdict.findings.size(), 1u);
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(got->verdict.findings[0].reference, "ref" + fffd);
  EXPECT_EQ(got->verdict.findings[0].summary, "a" + fffd + "b" + fffd);
  EXPECT_EQ(got->verdict.findings[0].raw, "{\"k\":\"" + fffd + "\"}");
}

TEST_P(QueueTest, ANewVerdictReplacesThePreviousOne) {
  Coordinate p = pkg("a");
  std::int64_t now = MUST(q_->now());
  scan(p, hostile_verdict(p, now - 100));
  RecordedVerdict second = plain_verdict(p, now, VerdictState::kWarned);
  second.last_scanned_at.reset();
  second.verdict.reason_codes = {ReasonCode::kInstallHook};
  second.verdict.findings = {Finding{"postmortem", FindingKind::kInstallHook, ReasonCode::kInstallHook,
                                     Severity::kMedium, std::nullopt, "postinstall runs node x.js", "{\"hook\":1}"}};
  scan(p, second, Trigger::kRescan);
  expect_same(*MUST(q_->verdict("npmjs", "a", "1.0.0")), second);

  RecordedVerdict third = plain_verdict(p, now + 1, VerdictState::kQuarantined);
  third.verdict.scanners_done.clear();
  scan(p, third, Trigger::kRescan);
  expect_same(*MUST(q_->verdict("npmjs", "a", "1.0.0")), third);
  EXPECT_EQ(MUST(q_->jobs("npmjs", "a", "1.0.0")).size(), 3u);
}

// Upstream drops the job of a registry with no security profile: closed, nothing recorded.
TEST_P(QueueTest, ADroppedJobIsClosedWithNoVerdict) {
  auto e = MUST(q_->enqueue(req(pkg("dropped"))));
  EXPECT_FALSE(MUST(q_->drop(e.job_id, "w1"))) << "not held yet";
  ASSERT_EQ(MUST(q_->lease(lease_by("w1"))).size(), 1u);
  EXPECT_FALSE(MUST(q_->drop(e.job_id, "w2"))) << "held by another";
  EXPECT_TRUE(MUST(q_->drop(e.job_id, "w1")));
  EXPECT_FALSE(MUST(q_->verdict("npmjs", "dropped", "1.0.0")).has_value());
  auto jobs = MUST(q_->jobs("npmjs", "dropped", "1.0.0"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(jobs[0].completed_at.has_value());

  auto spent = MUST(q_->enqueue(req(pkg("spent"))));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 600, 1))).size(), 1u);
  EXPECT_TRUE(MUST(q_->fail(spent.job_id, "w1", "boom")));
  EXPECT_TRUE(MUST(q_->drop_exhausted(spent.job_id, 1)));
  EXPECT_FALSE(MUST(q_->drop_exhausted(spent.job_id, 1))) << "once";
  EXPECT_FALSE(MUST(q_->verdict("npmjs", "spent", "1.0.0")).has_value());
  EXPECT_FALSE(MUST(q_->open_job("npmjs", "spent", "1.0.0")).has_value());
}

TEST_P(QueueTest, FailClearsTheLeaseAndKeepsTheAttempt) {
  auto e = MUST(q_->enqueue(req(pkg("a"))));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1"))).size(), 1u);
  EXPECT_TRUE(MUST(q_->fail(e.job_id, "w1", "trivy: exit 2\nstderr: 'oops'")));
  auto again = MUST(q_->lease(lease_by("w2")));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempts, 2);
  EXPECT_EQ(again[0].last_error, "trivy: exit 2\nstderr: 'oops'");
}

TEST_P(QueueTest, SpentJobsAreNotLeasedButClosedAsExhaustedOnce) {
  Coordinate p = pkg("flaky");
  auto e = MUST(q_->enqueue(req(p)));
  for (int attempt = 1; attempt <= 2; ++attempt) {
    auto leased = MUST(q_->lease(lease_by("w1", 1, 600, 2)));
    ASSERT_EQ(leased.size(), 1u) << "attempt " << attempt;
    EXPECT_TRUE(MUST(q_->fail(e.job_id, "w1", "boom " + std::to_string(attempt))));
  }
  EXPECT_TRUE(MUST(q_->lease(lease_by("w1", 1, 600, 2))).empty());
  EXPECT_TRUE(MUST(q_->exhausted(3, 10)).empty()) << "a third attempt is still allowed at max 3";

  auto spent = MUST(q_->exhausted(2, 10));
  ASSERT_EQ(spent.size(), 1u);
  EXPECT_EQ(spent[0].id, e.job_id);
  EXPECT_EQ(spent[0].attempts, 2);
  EXPECT_EQ(spent[0].last_error, "boom 2");

  std::int64_t now = MUST(q_->now());
  RecordedVerdict v = plain_verdict(p, now, VerdictState::kQuarantined);
  v.verdict.reason_codes = {ReasonCode::kScannerError};
  v.verdict.findings = {Finding{"trivy", FindingKind::kScannerError, ReasonCode::kScannerError, Severity::kUnknown,
                                std::nullopt, "gave up after 2 attempts", "{}"}};
  EXPECT_TRUE(MUST(q_->close_exhausted(e.job_id, 2, v)));
  EXPECT_FALSE(MUST(q_->close_exhausted(e.job_id, 2, plain_verdict(p, now)))) << "closed once only";
  expect_same(*MUST(q_->verdict("npmjs", "flaky", "1.0.0")), v);
  EXPECT_TRUE(MUST(q_->exhausted(2, 10)).empty());
  EXPECT_FALSE(MUST(q_->open_job("npmjs", "flaky", "1.0.0")).has_value());
}

TEST_P(QueueTest, AJobOnItsLastLiveLeaseIsNotExhaustedYet) {
  Coordinate p = pkg("slow");
  auto e = MUST(q_->enqueue(req(p)));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 600, 1))).size(), 1u);
  EXPECT_TRUE(MUST(q_->exhausted(1, 10)).empty());
  EXPECT_FALSE(MUST(q_->close_exhausted(e.job_id, 1, plain_verdict(p, MUST(q_->now())))));
  EXPECT_TRUE(MUST(q_->complete(e.job_id, "w1", plain_verdict(p, MUST(q_->now())))));
}

TEST_P(QueueTest, LeasesOnlyFromTheWorkersRegistries) {
  MUST(q_->enqueue(req(pkg("a", "1", "npmjs"))));
  pause_secs(0.005);
  MUST(q_->enqueue(req(pkg("b", "1", "pypi"))));
  EXPECT_TRUE(MUST(q_->lease(lease_by("w", 10, 600, 3, {"crates"}))).empty());
  auto pypi = MUST(q_->lease(lease_by("w", 10, 600, 3, {"pypi", "crates"})));
  ASSERT_EQ(pypi.size(), 1u);
  EXPECT_EQ(pypi[0].coordinate.name, "b");
  auto any = MUST(q_->lease(lease_by("w", 10, 600, 3, {})));
  ASSERT_EQ(any.size(), 1u);
  EXPECT_EQ(any[0].coordinate.name, "a");
}

TEST_P(QueueTest, CountsQueuedAndLeasedJobs) {
  MUST(q_->enqueue(req(pkg("a"))));
  pause_secs(0.005);
  MUST(q_->enqueue(req(pkg("b"))));
  MUST(q_->enqueue(req(pkg("c"), Trigger::kRescan)));
  MUST(q_->enqueue(req(pkg("d", "1", "pypi"), Trigger::kWebhook)));
  auto leased = MUST(q_->lease(lease_by("w1", 1)));
  ASSERT_EQ(leased.size(), 1u);

  auto c = MUST(q_->counts());
  using Key = std::pair<std::string, std::string>;
  // Upstream's depth: open jobs, leased or not.
  EXPECT_EQ(c.queued, (std::map<Key, std::int64_t>{
                          {{"npmjs", "first_seen"}, 2}, {{"npmjs", "rescan"}, 1}, {{"pypi", "webhook"}, 1}}));
  EXPECT_EQ(c.leased, (std::map<std::string, std::int64_t>{{"w1", 1}}));

  ASSERT_TRUE(MUST(q_->complete(leased[0].id, "w1", plain_verdict(leased[0].coordinate, MUST(q_->now())))));
  EXPECT_TRUE(MUST(q_->counts()).leased.empty());
  EXPECT_EQ(MUST(q_->counts()).queued.at({"npmjs", "first_seen"}), 1);
}

TEST_P(QueueTest, WorkerHeartbeatIsRecordedAndRefreshed) {
  EXPECT_TRUE(MUST(q_->worker_heartbeat("host-1", {"npmjs", "pypi"})));
  EXPECT_TRUE(MUST(q_->worker_heartbeat("host-2", {"it's"})));
  store_->tamper(GetParam() == "sqlite" ? "UPDATE worker_heartbeats SET last_seen = 0"
                                        : "UPDATE worker_heartbeats SET last_seen = to_timestamp(0)");
  EXPECT_TRUE(MUST(q_->worker_heartbeat("host-1", {})));
  EXPECT_EQ(store_->scalar("SELECT count(*) FROM worker_heartbeats"), "2");
  // Refreshed: seen within the last minute again (the two backends keep different units).
  std::string seen = GetParam() == "sqlite"
                         ? "SELECT last_seen / 1000 FROM worker_heartbeats WHERE worker_id = 'host-1'"
                         : "SELECT floor(extract(epoch FROM last_seen))::bigint FROM worker_heartbeats "
                           "WHERE worker_id = 'host-1'";
  EXPECT_GE(std::stoll(store_->scalar(seen)), MUST(q_->now()) - 60);
}

TEST_P(QueueTest, AReopenedQueueKeepsEverything) {
  Coordinate done = pkg("done"), leased = pkg("leased"), waiting = pkg("waiting", "2", "pypi");
  std::int64_t now = MUST(q_->now());
  RecordedVerdict v = hostile_verdict(done, now);
  std::string done_id = scan(done, v);
  auto l = MUST(q_->enqueue(req(leased)));
  ASSERT_EQ(MUST(q_->lease(lease_by("w1", 1, 600, 3, {"npmjs"}))).size(), 1u);
  auto w = MUST(q_->enqueue(req(waiting, Trigger::kBackfill)));
  auto counts = MUST(q_->counts());

  q_.reset();
  q_ = MUST(store_->open());

  expect_same(*MUST(q_->verdict("npmjs", "done", "1.0.0")), v);
  auto done_jobs = MUST(q_->jobs("npmjs", "done", "1.0.0"));
  ASSERT_EQ(done_jobs.size(), 1u);
  EXPECT_EQ(done_jobs[0].id, done_id);
  EXPECT_TRUE(done_jobs[0].completed_at.has_value());
  auto held = MUST(q_->open_job("npmjs", "leased", "1.0.0"));
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->id, l.job_id);
  EXPECT_EQ(held->leased_by, "w1");
  EXPECT_TRUE(MUST(q_->heartbeat(l.job_id, "w1", 600))) << "the lease survives the restart";
  EXPECT_FALSE(MUST(q_->enqueue(req(waiting))).created);
  auto after = MUST(q_->counts());
  EXPECT_EQ(after.queued, counts.queued);
  EXPECT_EQ(after.leased, counts.leased);
  auto next = MUST(q_->lease(lease_by("w2", 10)));
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].id, w.job_id);
}

TEST_P(QueueTest, TwoQueuesOnOneStoreShareIt) {
  auto other = MUST(store_->open());
  auto e = MUST(q_->enqueue(req(pkg("a"))));
  EXPECT_FALSE(MUST(other->enqueue(req(pkg("a")))).created);
  auto leased = MUST(other->lease(lease_by("w2")));
  ASSERT_EQ(leased.size(), 1u);
  EXPECT_EQ(leased[0].id, e.job_id);
  EXPECT_TRUE(MUST(q_->lease(lease_by("w1"))).empty());
}

TEST_P(QueueTest, WorkersOpeningTogetherMigrateOnce) {
  store_->move_to_fresh_place();
  std::vector<std::string> errors(4);
  std::vector<std::unique_ptr<ScanQueue>> queues(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto q = store_->open();
      if (q) {
        queues[i] = std::move(*q);
      } else {
        errors[i] = q.error().message;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) ASSERT_EQ(errors[i], "") << "opener " << i;
  auto e = MUST(queues[0]->enqueue(req(pkg("a"))));
  EXPECT_EQ(MUST(queues[3]->enqueue(req(pkg("a")))).job_id, e.job_id);
}

TEST_P(QueueTest, FourWorkersCompleteEveryJobExactlyOnce) {
  constexpr int kJobs = 200;
  constexpr int kWorkers = 4;
  for (int i = 0; i < kJobs; ++i) MUST(q_->enqueue(req(pkg("pkg-" + std::to_string(i)))));

  std::vector<std::unique_ptr<ScanQueue>> queues;
  for (int w = 0; w < kWorkers; ++w) queues.push_back(MUST(store_->open()));
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> holders;  // job → every worker that leased it
  std::map<std::string, int> completed;                     // job → completes that returned true
  std::vector<std::string> problems;
  auto work = [&](int w) {
    std::string me = "worker-" + std::to_string(w);
    for (;;) {
      auto jobs = queues[w]->lease(lease_by(me, 3, 600));
      if (!jobs) {
        std::lock_guard lock(mu);
        problems.push_back(me + " lease: " + jobs.error().message);
        return;
      }
      if (jobs->empty()) return;
      for (const ScanJob& j : *jobs) {
        {
          std::lock_guard lock(mu);
          holders[j.id].push_back(me);
        }
        auto done = queues[w]->complete(j.id, me, plain_verdict(j.coordinate, j.created_at));
        std::lock_guard lock(mu);
        if (!done) {
          problems.push_back(me + " complete: " + done.error().message);
        } else if (*done) {
          ++completed[j.id];
        } else {
          problems.push_back(me + " lost " + j.id);
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) threads.emplace_back(work, w);
  for (auto& t : threads) t.join();

  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(holders.size(), static_cast<std::size_t>(kJobs));
  EXPECT_EQ(completed.size(), static_cast<std::size_t>(kJobs));
  for (const auto& [id, who] : holders) EXPECT_EQ(who.size(), 1u) << id << " was leased by two workers";
  for (const auto& [id, n] : completed) EXPECT_EQ(n, 1) << id;
  // And as the database has it.
  for (int i = 0; i < kJobs; ++i) {
    std::string name = "pkg-" + std::to_string(i);
    auto jobs = MUST(q_->jobs("npmjs", name, "1.0.0"));
    ASSERT_EQ(jobs.size(), 1u) << name;
    EXPECT_TRUE(jobs[0].completed_at.has_value()) << name;
    EXPECT_EQ(jobs[0].attempts, 1) << name;
    ASSERT_EQ(holders[jobs[0].id].size(), 1u) << name;
    EXPECT_EQ(jobs[0].leased_by, holders[jobs[0].id][0]) << name;
    EXPECT_TRUE(MUST(q_->verdict("npmjs", name, "1.0.0")).has_value()) << name;
  }
  auto c = MUST(q_->counts());
  EXPECT_TRUE(c.queued.empty());
  EXPECT_TRUE(c.leased.empty());
}

TEST_P(QueueTest, AnUnknownSpellingInARowIsAnErrorNamingIt) {
  Coordinate p = pkg("a");
  scan(p, hostile_verdict(p, MUST(q_->now())));
  MUST(q_->enqueue(req(pkg("b"))));
  std::string prefix = GetParam() == "sqlite" ? "sqlite " : "postgresql 127.0.0.1:";

  store_->tamper(R"(UPDATE scan_jobs SET "trigger" = 'tomorrow' WHERE package_name = 'b')");
  for (auto r : {q_->jobs("npmjs", "b", "1.0.0"), q_->lease(lease_by("w1", 10))}) {
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().message.rfind(prefix, 0), 0u) << r.error().message;
    EXPECT_NE(r.error().message.find("scan_jobs.trigger: unknown value \"tomorrow\""), std::string::npos)
        << r.error().message;
  }
  auto counted = q_->counts();
  ASSERT_FALSE(counted.has_value());
  EXPECT_NE(counted.error().message.find("tomorrow"), std::string::npos) << counted.error().message;

  store_->tamper("UPDATE artifact_findings SET kind = 'apocalyptic' WHERE scanner = 'trivy'");
  auto v = q_->verdict("npmjs", "a", "1.0.0");
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message.find("artifact_findings.kind: unknown value \"apocalyptic\""), std::string::npos)
      << v.error().message;
  store_->tamper("UPDATE artifact_findings SET kind = 'vulnerability' WHERE scanner = 'trivy'");
  // A severity outside the set reads as unknown, as upstream's readers read it (B.2).
  store_->tamper("UPDATE artifact_findings SET severity = 'apocalyptic' WHERE scanner = 'trivy'");
  v = q_->verdict("npmjs", "a", "1.0.0");
  ASSERT_TRUE(v.has_value()) << v.error().message;
  ASSERT_EQ((*v)->verdict.findings.size(), 3u);
  EXPECT_EQ((*v)->verdict.findings[1].scanner, "trivy");
  EXPECT_EQ((*v)->verdict.findings[1].severity, Severity::kUnknown);
  store_->tamper("UPDATE artifact_verdicts SET state = 'ok\nx'");
  v = q_->verdict("npmjs", "a", "1.0.0");
  ASSERT_FALSE(v.has_value());
  EXPECT_NE(v.error().message.find("artifact_verdicts.state: unknown value \"ok\\x0ax\""), std::string::npos)
      << v.error().message;
  EXPECT_EQ(v.error().message.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, QueueTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& backend) { return backend.param; });

TEST(Trigger, SpellingsRoundTripAndNumbersArePriorities) {
  for (Trigger t : {Trigger::kFirstSeen, Trigger::kWebhook, Trigger::kRescan, Trigger::kBackfill}) {
    EXPECT_EQ(core::parse_trigger(core::to_string(t)), t);
  }
  EXPECT_EQ(core::to_string(Trigger::kFirstSeen), "first_seen");
  EXPECT_EQ(core::to_string(Trigger::kBackfill), "backfill");
  EXPECT_EQ(static_cast<int>(Trigger::kWebhook), 1);
  EXPECT_FALSE(core::parse_trigger("Webhook").has_value());
  EXPECT_FALSE(core::parse_trigger("").has_value());
}

TEST(SqliteQueue, AnErrorNamesTheFile) {
  auto q = adapters::open_sqlite_queue("/nonexistent-batlehub-dir/queue.sqlite3");
  ASSERT_FALSE(q.has_value());
  EXPECT_EQ(q.error().message.rfind("sqlite /nonexistent-batlehub-dir/queue.sqlite3: open: ", 0), 0u)
      << q.error().message;
}

// A queue file of this project's first schema (a job with a kind, findings by ordinal) opens
// in upstream's shapes with nothing lost.
TEST(SqliteQueue, AFileOfTheFirstSchemaIsMigratedWithNothingLost) {
  Store store("sqlite");
  store.move_to_fresh_place();
  store.tamper(R"(
CREATE TABLE scan_jobs (id TEXT PRIMARY KEY, registry TEXT NOT NULL, package_name TEXT NOT NULL,
  version TEXT NOT NULL, kind TEXT NOT NULL, published_at INTEGER, artifact_sha256 TEXT NOT NULL DEFAULT '',
  "trigger" TEXT NOT NULL, priority INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, leased_until INTEGER,
  leased_by TEXT, completed_at INTEGER, last_error TEXT, created_at INTEGER NOT NULL);
CREATE UNIQUE INDEX scan_jobs_one_open ON scan_jobs (registry, package_name, version) WHERE completed_at IS NULL;
CREATE INDEX scan_jobs_ready ON scan_jobs (priority, created_at) WHERE completed_at IS NULL;
CREATE INDEX scan_jobs_coordinate ON scan_jobs (registry, package_name, version, created_at);
CREATE TABLE artifact_verdicts (registry TEXT NOT NULL, package_name TEXT NOT NULL, version TEXT NOT NULL,
  kind TEXT NOT NULL, state TEXT NOT NULL, reason_codes TEXT NOT NULL, policy_ref TEXT NOT NULL,
  available_at INTEGER, evaluated_at INTEGER NOT NULL, last_scanned_at INTEGER, scanners_done TEXT NOT NULL,
  PRIMARY KEY (registry, package_name, version));
CREATE TABLE artifact_findings (registry TEXT NOT NULL, package_name TEXT NOT NULL, version TEXT NOT NULL,
  ordinal INTEGER NOT NULL, scanner TEXT NOT NULL, kind TEXT NOT NULL, code TEXT NOT NULL, severity TEXT NOT NULL,
  reference TEXT, summary TEXT NOT NULL, raw TEXT NOT NULL, PRIMARY KEY (registry, package_name, version, ordinal));
CREATE TABLE worker_heartbeats (worker_id TEXT PRIMARY KEY, last_seen INTEGER NOT NULL, registries TEXT NOT NULL);
INSERT INTO scan_jobs (id, registry, package_name, version, kind, "trigger", priority, created_at)
  VALUES ('7d3c1f7e-1111-4222-8333-444455556666', 'local', 'waiting', '1.0.0', 'npm', 'webhook', 1, 1700000000000);
INSERT INTO artifact_verdicts VALUES ('local', 'done', '2.0.0', 'pypi', 'denied', '["MALWARE_SIGNAL"]',
  'local/default', NULL, 1700000000000, 1700000000000, '["guarddog","yara"]');
INSERT INTO artifact_findings VALUES ('local', 'done', '2.0.0', 0, 'yara', 'malware_signal', 'MALWARE_SIGNAL',
  'high', 'rule_b', 'second rule', '{"rule":"b"}');
INSERT INTO artifact_findings VALUES ('local', 'done', '2.0.0', 1, 'guarddog', 'malware_signal', 'MALWARE_SIGNAL',
  'critical', NULL, 'exec', '');
PRAGMA user_version = 1;)");
  auto q = MUST(store.open());
  auto open = MUST(q->open_job("local", "waiting", "1.0.0"));
  ASSERT_TRUE(open.has_value());
  EXPECT_EQ(open->id, "7d3c1f7e-1111-4222-8333-444455556666");
  EXPECT_EQ(open->trigger, Trigger::kWebhook);
  auto v = MUST(q->verdict("local", "done", "2.0.0"));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->verdict.state, VerdictState::kDenied);
  EXPECT_EQ(v->verdict.scanners_done, (std::vector<std::string>{"guarddog", "yara"}));
  ASSERT_EQ(v->verdict.findings.size(), 2u);
  EXPECT_EQ(v->verdict.findings[0].scanner, "yara") << "the recorded order is kept";
  EXPECT_EQ(v->verdict.findings[0].raw, R"({"rule":"b"})");
  EXPECT_EQ(v->verdict.findings[1].scanner, "guarddog");
  EXPECT_EQ(v->verdict.findings[1].raw, "");
  EXPECT_EQ(store.scalar("SELECT count(*) FROM pragma_table_info('scan_jobs') WHERE name = 'kind'"), "0");
  EXPECT_EQ(store.scalar("PRAGMA user_version"), "2");
  EXPECT_EQ(store.scalar("SELECT count(DISTINCT id) FROM artifact_findings"), "2");
}

TEST(PostgresQueue, AnErrorNamesTheServerNeverThePassword) {
  for (const std::string dsn : {"postgresql://app:hunter2secret@127.0.0.1:1/batlehub?connect_timeout=5",
                                "host=127.0.0.1 port=1 user=app password=hunter2secret dbname=batlehub"}) {
    auto q = adapters::open_postgres_queue(dsn);
    ASSERT_FALSE(q.has_value());
    const std::string& m = q.error().message;
    EXPECT_EQ(m.rfind("postgresql 127.0.0.1:1: connect: ", 0), 0u) << m;
    EXPECT_EQ(m.find("hunter2secret"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  auto bad = adapters::open_postgres_queue("host=127.0.0.1 password=hunter2secret bogus");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message.rfind("postgresql: ", 0), 0u) << bad.error().message;
  EXPECT_EQ(bad.error().message.find("hunter2secret"), std::string::npos) << bad.error().message;
}

std::string upstream_schema() {
  std::ifstream in(std::string(BATLEHUB_SOURCE_DIR) + "/tests/upstream/schema.sql");
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().empty()) throw std::runtime_error("tests/upstream/schema.sql is missing");
  return text.str();
}

std::string refusal(const Store& store) {
  auto q = store.open();
  if (q) return "(opened)";
  return q.error().message;
}

// Upstream's own database (its migrator has run: _sqlx_migrations is there): nothing is
// created, and what this worker writes lands in upstream's columns.
TEST(PostgresQueue, OnUpstreamsDatabaseItCreatesNothingAndWritesUpstreamsRows) {
  Store store("postgresql");
  store.tamper(upstream_schema());
  const std::string tables = "SELECT string_agg(table_name::text, ',' ORDER BY table_name) FROM "
                             "information_schema.tables WHERE table_schema = current_schema()";
  const std::string before = store.scalar(tables);
  auto q = MUST(store.open());
  EXPECT_EQ(store.scalar(tables), before);
  EXPECT_EQ(store.scalar("SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname "
                         "LIKE 'idx_%'"),
            "0")
      << "an index of this worker's was made on upstream's database";

  Coordinate p = pkg("evil-pkg", "6.6.6");
  auto e = MUST(q->enqueue(req(p, Trigger::kWebhook, 1700000000)));
  EXPECT_EQ(store.scalar("SELECT priority || ' ' || trigger || ' ' || extract(epoch FROM published_at)::bigint || ' ' "
                         "|| (artifact_sha256 IS NULL) FROM scan_jobs"),
            "1 webhook 1700000000 true");
  ASSERT_EQ(MUST(q->lease(lease_by("w1"))).size(), 1u);
  std::int64_t now = MUST(q->now());
  RecordedVerdict v = hostile_verdict(p, now);
  v.verdict.state = VerdictState::kQuarantined;
  v.verdict.available_at = now + 3600;
  ASSERT_TRUE(MUST(q->complete(e.job_id, "w1", v)));
  EXPECT_EQ(store.scalar("SELECT (completed_at IS NOT NULL) || ' ' || (leased_until IS NULL) FROM scan_jobs"),
            "true true");
  EXPECT_EQ(store.scalar("SELECT state || ' ' || array_to_string(reason_codes, ',') || ' ' || policy_ref || ' ' || "
                         "(extract(epoch FROM available_at)::bigint - extract(epoch FROM evaluated_at)::bigint) "
                         "FROM artifact_verdicts"),
            "quarantined MALWARE_SIGNAL,VULNERABILITY,SCAN_PENDING npmjs/default 3600");
  // Findings: a uuid each, raw as jsonb, confidence and available_at where given.
  EXPECT_EQ(store.scalar("SELECT count(DISTINCT id) FROM artifact_findings"), "3");
  EXPECT_EQ(store.scalar("SELECT raw->>'rule' || ' ' || confidence FROM artifact_findings WHERE scanner = 'guarddog'"),
            "exec-base64 200");
  EXPECT_EQ(store.scalar("SELECT jsonb_typeof(raw) FROM artifact_findings WHERE scanner = 'trivy'"), "object");
  EXPECT_EQ(store.scalar("SELECT string_agg(scanner, ',' ORDER BY created_at, scanner) FROM artifact_findings"),
            "guarddog,trivy,yara")
      << "upstream's read order is the order recorded";
  expect_same(*MUST(q->verdict("npmjs", "evil-pkg", "6.6.6")), v);
  EXPECT_TRUE(MUST(q->worker_heartbeat("w1", {"npmjs", "it's \"q\""})));
  EXPECT_EQ(store.scalar("SELECT registries[2] FROM worker_heartbeats"), "it's \"q\"");
}

TEST(PostgresQueue, OnAnEmptyDatabaseItMakesUpstreamsTablesAndNoOthers) {
  Store store("postgresql");
  auto q = MUST(store.open());
  EXPECT_EQ(store.scalar("SELECT string_agg(table_name::text, ',' ORDER BY table_name) FROM "
                         "information_schema.tables WHERE table_schema = current_schema()"),
            "artifact_dedup_index,artifact_dedup_refs,artifact_findings,artifact_storage,artifact_verdicts,scan_jobs,"
            "worker_heartbeats");
  // Column for column what tests/upstream/schema.sql makes: the same check passes on both.
  const std::string columns =
      "SELECT string_agg(table_name || '.' || column_name || ':' || udt_name || ':' || is_nullable || ':' || "
      "coalesce(column_default, ''), ',' ORDER BY table_name, column_name) FROM information_schema.columns WHERE "
      "table_schema = current_schema() AND table_name <> '_sqlx_migrations'";
  const std::string ours = store.scalar(columns);
  Store upstream("postgresql");
  upstream.tamper(upstream_schema());
  EXPECT_EQ(ours, upstream.scalar(columns));
}

TEST(PostgresQueue, AMissingOrDifferentColumnIsRefusedByName) {
  struct Case {
    std::string change, message;
  };
  const std::vector<Case> cases = {
      {"DROP TABLE worker_heartbeats",
       "schema: upstream's database has no table worker_heartbeats (upstream's migration 052)"},
      {"ALTER TABLE scan_jobs DROP COLUMN published_at",
       "schema: scan_jobs.published_at is missing from upstream's database (upstream's migration 051 has it)"},
      {"ALTER TABLE artifact_findings ALTER COLUMN raw TYPE text",
       "schema: artifact_findings.raw is of type text where upstream's is jsonb"},
      {"ALTER TABLE artifact_verdicts ALTER COLUMN policy_ref DROP NOT NULL",
       "schema: artifact_verdicts.policy_ref takes NULL where upstream's is NOT NULL"},
      {"ALTER TABLE scan_jobs ADD COLUMN shard integer NOT NULL",
       "schema: scan_jobs.shard is NOT NULL with no default, and this worker does not know it"},
  };
  for (const Case& c : cases) {
    Store store("postgresql");
    store.tamper(upstream_schema());
    store.tamper(c.change);
    const std::string m = refusal(store);
    EXPECT_EQ(m.rfind("postgresql 127.0.0.1:", 0), 0u) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << c.change << "\n" << m;
  }
  // A column upstream added with a default is no business of this worker's.
  Store store("postgresql");
  store.tamper(upstream_schema());
  store.tamper("ALTER TABLE scan_jobs ADD COLUMN shard integer NOT NULL DEFAULT 0");
  EXPECT_EQ(refusal(store), "(opened)");
}

// The tables this project made before it spoke upstream's schema: refused with what was
// found and what to do, and left as they are.
TEST(PostgresQueue, ThisProjectsOldTablesAreRefusedWithWhatToDo) {
  Store store("postgresql");
  store.tamper(R"(CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL);
    INSERT INTO schema_migrations VALUES (1, now());
    CREATE TABLE scan_jobs (id uuid PRIMARY KEY, registry text NOT NULL, package_name text NOT NULL,
      version text NOT NULL, kind text NOT NULL, published_at timestamptz, artifact_sha256 text, trigger text NOT NULL,
      priority smallint NOT NULL, attempts integer NOT NULL DEFAULT 0, leased_until timestamptz, leased_by text,
      completed_at timestamptz, last_error text, created_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO scan_jobs (id, registry, package_name, version, kind, trigger, priority)
      VALUES (gen_random_uuid(), 'npmjs', 'a', '1', 'npm', 'first_seen', 0);)");
  const std::string m = refusal(store);
  EXPECT_NE(m.find("scan_jobs has a column \"kind\", which upstream's scan_jobs does not"), std::string::npos) << m;
  EXPECT_NE(m.find("(with its schema_migrations)"), std::string::npos) << m;
  EXPECT_NE(m.find("DROP TABLE scan_jobs"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(store.scalar("SELECT count(*) FROM scan_jobs"), "1");
  EXPECT_EQ(store.scalar("SELECT to_regclass('artifact_findings') IS NULL"), "t") << "nothing was created beside them";
}

TEST(PostgresQueue, ReconnectsOnceAfterTheServerDroppedTheConnection) {
  Store store("postgresql");
  auto q = MUST(store.open());
  auto e = MUST(q->enqueue(req(pkg("a"))));
  store.drop_connections();
  pause_secs(0.2);
  EXPECT_FALSE(MUST(q->enqueue(req(pkg("a")))).created);
  EXPECT_EQ(MUST(q->open_job("npmjs", "a", "1.0.0"))->id, e.job_id);
}

}  // namespace
}  // namespace batlehub
