// The worker's metrics as a scraper reads them: the text exposition of server::Metrics, and
// a real HTTP scrape of server::StatusListener over loopback.
#include "server/service/metrics.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/service/sandbox_pool.h"
#include "server/service/status_listener.h"

namespace batlehub::server {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

#define EXPECT_LINE(text, line) EXPECT_TRUE(has_line(text, line)) << "missing line: " << (line) << "\nin:\n" << (text)

void expect_family(const std::string& text, const std::string& name, const std::string& type) {
  EXPECT_NE(text.find("# HELP " + name + " "), std::string::npos) << name << "\n" << text;
  EXPECT_LINE(text, "# TYPE " + name + " " + type);
}

// RFC 0022 §6.6's phases, from the agent's own timings and the runtime's trace: start is what
// the sandbox took before the agent's fetch, run the agent's fetch, extraction and scanner,
// collect what came after the sandbox ended.
TEST(RunPhases, start_run_and_collect_come_from_the_agents_timings_and_the_sandboxs_end) {
  using namespace std::chrono_literals;
  core::RunOutput out;
  out.report.timings = wire::Timings{100, 200, 700};
  const auto began = std::chrono::steady_clock::time_point{} + 10s;
  core::RunTrace trace;
  trace.ended = began + 1300ms;
  const auto returned = *trace.ended + 250ms;
  auto p = phases_of(out, trace, began, returned);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->start, 0.3, 1e-9);
  EXPECT_NEAR(p->run, 1.0, 1e-9);
  EXPECT_NEAR(p->collect, 0.25, 1e-9);

  // The agent's clock is not ours: a run it timed longer than the sandbox lasted starts at 0.
  out.report.timings = wire::Timings{0, 0, 1400};
  EXPECT_EQ(phases_of(out, trace, began, returned)->start, 0.0);
  // A run with no report (a timeout, a crash) or a sandbox that never ended is in no phase.
  EXPECT_FALSE(
      phases_of(Unexpected(core::SandboxError{core::SandboxError::Kind::kRunTimeout, "late"}), trace, began, returned));
  EXPECT_FALSE(phases_of(out, core::RunTrace{}, began, returned));
}

TEST(Metrics, SandboxSeries) {
  Metrics m;
  m.set_ready("bwrap", true);
  m.set_ready("oci", false);
  m.run_finished("bwrap", "yara", "ok", core::RunPhases{0.01, 0.2, 0.03});
  m.run_finished("bwrap", "yara", "ok", core::RunPhases{0.02, 3, 0.04});
  m.run_finished("bwrap", "trivy", "run_timeout", std::nullopt);  // no agent report: in no phase
  m.probe_failed("oci", "no_network");
  m.rlimit_lowered("bwrap", "RLIMIT_NPROC");
  m.rlimit_lowered("bwrap", "RLIMIT_NPROC");
  m.orphans_swept("bwrap", "bundle", 3);
  m.orphans_swept("bwrap", "bundle", 2);
  m.set_pool_size(4);
  m.permit_taken();
  m.permit_taken();
  m.permit_returned();
  const std::string text = m.scrape();

  expect_family(text, "batlehub_sandbox_ready", "gauge");
  EXPECT_LINE(text, R"(batlehub_sandbox_ready{runtime="bwrap"} 1)");
  EXPECT_LINE(text, R"(batlehub_sandbox_ready{runtime="oci"} 0)");

  expect_family(text, "batlehub_sandbox_runs_total", "counter");
  EXPECT_LINE(text, R"(batlehub_sandbox_runs_total{outcome="ok",runtime="bwrap",scanner="yara"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_runs_total{outcome="run_timeout",runtime="bwrap",scanner="trivy"} 1)");

  expect_family(text, "batlehub_sandbox_run_seconds", "histogram");
  // RFC 0022 §6.6's three phases, each its own series.
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_count{phase="run",runtime="bwrap"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_sum{phase="run",runtime="bwrap"} 3.2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_bucket{phase="run",runtime="bwrap",le="0.05"} 0)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_bucket{phase="run",runtime="bwrap",le="0.25"} 1)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_bucket{phase="run",runtime="bwrap",le="5"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_bucket{phase="run",runtime="bwrap",le="+Inf"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_count{phase="start",runtime="bwrap"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_bucket{phase="start",runtime="bwrap",le="0.05"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_count{phase="collect",runtime="bwrap"} 2)");
  EXPECT_LINE(text, R"(batlehub_sandbox_run_seconds_bucket{phase="collect",runtime="bwrap",le="0.05"} 2)");

  expect_family(text, "batlehub_sandbox_probe_failures_total", "counter");
  EXPECT_LINE(text, R"(batlehub_sandbox_probe_failures_total{assertion="no_network",runtime="oci"} 1)");
  expect_family(text, "batlehub_sandbox_rlimits_lowered_total", "counter");
  EXPECT_LINE(text, R"(batlehub_sandbox_rlimits_lowered_total{resource="RLIMIT_NPROC",runtime="bwrap"} 2)");
  expect_family(text, "batlehub_sandbox_orphans_swept_total", "counter");
  EXPECT_LINE(text, R"(batlehub_sandbox_orphans_swept_total{kind="bundle",runtime="bwrap"} 5)");
  expect_family(text, "batlehub_sandbox_pool_size", "gauge");
  EXPECT_LINE(text, "batlehub_sandbox_pool_size 4");
  expect_family(text, "batlehub_sandbox_permits_in_use", "gauge");
  EXPECT_LINE(text, "batlehub_sandbox_permits_in_use 1");
}

TEST(Metrics, PoolGaugesExistBeforeAnyCall) {
  const std::string text = Metrics().scrape();
  EXPECT_LINE(text, "batlehub_sandbox_pool_size 0");
  EXPECT_LINE(text, "batlehub_sandbox_permits_in_use 0");
}

TEST(Metrics, QueueAndVerdictSeries) {
  Metrics m;
  core::QueueCounts counts;
  counts.queued[{"npm", "first_seen"}] = 3;
  counts.leased["host-1"] = 2;
  m.set_queue(counts);
  m.job_scanner_finished("npm", "yara", true, 1.5);
  m.job_scanner_finished("npm", "yara", false, 0.01);
  m.scanner_error("yara", "timeout");
  m.job_expired("npm");
  m.job_expired("npm");
  m.verdict_recorded("npm", "denied", "first_seen");
  m.finding_recorded("npm", "yara", "malware", "critical");
  const std::string text = m.scrape();

  expect_family(text, "batlehub_scan_jobs_queued", "gauge");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_queued{registry="npm",trigger="first_seen"} 3)");
  expect_family(text, "batlehub_scan_jobs_leased", "gauge");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_leased{worker="host-1"} 2)");
  expect_family(text, "batlehub_scan_job_duration_seconds", "histogram");
  EXPECT_LINE(text, R"(batlehub_scan_job_duration_seconds_count{outcome="ok",registry="npm",scanner="yara"} 1)");
  EXPECT_LINE(text, R"(batlehub_scan_job_duration_seconds_count{outcome="error",registry="npm",scanner="yara"} 1)");
  EXPECT_LINE(
      text, R"(batlehub_scan_job_duration_seconds_bucket{outcome="error",registry="npm",scanner="yara",le="0.05"} 1)");
  expect_family(text, "batlehub_scanner_errors_total", "counter");
  EXPECT_LINE(text, R"(batlehub_scanner_errors_total{class="timeout",scanner="yara"} 1)");
  expect_family(text, "batlehub_scan_jobs_expired_total", "counter");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_expired_total{registry="npm",scanner="job"} 2)");
  expect_family(text, "batlehub_verdicts_total", "counter");
  EXPECT_LINE(text, R"(batlehub_verdicts_total{registry="npm",state="denied",trigger="first_seen"} 1)");
  expect_family(text, "batlehub_findings_total", "counter");
  EXPECT_LINE(text, R"(batlehub_findings_total{kind="malware",registry="npm",scanner="yara",severity="critical"} 1)");
}

TEST(Metrics, SetQueueZeroesSeriesThatVanished) {
  Metrics m;
  core::QueueCounts first;
  first.queued[{"npm", "first_seen"}] = 3;
  first.queued[{"pypi", "webhook"}] = 1;
  first.leased["host-1"] = 2;
  m.set_queue(first);

  core::QueueCounts second;
  second.queued[{"npm", "first_seen"}] = 1;
  second.leased["host-2"] = 1;
  m.set_queue(second);
  std::string text = m.scrape();
  EXPECT_LINE(text, R"(batlehub_scan_jobs_queued{registry="npm",trigger="first_seen"} 1)");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_queued{registry="pypi",trigger="webhook"} 0)");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_leased{worker="host-1"} 0)");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_leased{worker="host-2"} 1)");

  // A series that comes back after being zeroed is live again.
  m.set_queue(first);
  text = m.scrape();
  EXPECT_LINE(text, R"(batlehub_scan_jobs_queued{registry="pypi",trigger="webhook"} 1)");
  EXPECT_LINE(text, R"(batlehub_scan_jobs_leased{worker="host-2"} 0)");
}

TEST(Metrics, ConcurrentCallsAllCount) {
  Metrics m;
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 500; ++i) {
        m.run_finished("bwrap", "yara", "ok", core::RunPhases{0.01, 0.1, 0.01});
        core::QueueCounts c;
        c.queued[{"npm", "rescan"}] = i;
        m.set_queue(c);
        (void)m.scrape();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LINE(m.scrape(), R"(batlehub_sandbox_runs_total{outcome="ok",runtime="bwrap",scanner="yara"} 2000)");
}

// ---- The listener, over a real socket on loopback. ----

struct Response {
  int status = 0;
  std::string headers;  // lower-cased, "\r\n"-separated
  std::string body;
};

int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

Response http(std::uint16_t port, const std::string& method, const std::string& path) {
  Response r;
  const int fd = connect_loopback(port);
  if (fd < 0) {
    ADD_FAILURE() << "connect: " << std::strerror(-fd);
    return r;
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const std::string request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                              (method == "POST" ? "Content-Length: 0\r\n" : "") + "\r\n";
  EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  std::string raw;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) raw.append(buf, static_cast<std::size_t>(n));
  ::close(fd);

  const auto end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos) {
    ADD_FAILURE() << "not an HTTP response: " << raw;
    return r;
  }
  r.status = std::stoi(raw.substr(9, 3));
  for (std::size_t i = 0; i < end; ++i)
    r.headers += static_cast<char>(std::tolower(static_cast<unsigned char>(raw[i])));
  r.body = raw.substr(end + 4);
  return r;
}

std::unique_ptr<StatusListener> start_or_fail(std::uint16_t port, const Metrics& m) {
  auto l = StatusListener::start("127.0.0.1", port, m);
  if (!l) {
    ADD_FAILURE() << l.error();
    return nullptr;
  }
  return std::move(l).value();
}

TEST(StatusListener, ServesMetricsAndLivez) {
  Metrics m;
  m.run_finished("bwrap", "yara", "ok", core::RunPhases{0.1, 1, 0.1});
  m.run_finished("bwrap", "yara", "ok", core::RunPhases{0.1, 1, 0.1});
  auto listener = start_or_fail(0, m);
  ASSERT_NE(listener, nullptr);
  ASSERT_NE(listener->port(), 0);

  const Response metrics = http(listener->port(), "GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.headers.find("\r\ncontent-type: text/plain; version=0.0.4"), std::string::npos) << metrics.headers;
  EXPECT_LINE(metrics.body, R"(batlehub_sandbox_runs_total{outcome="ok",runtime="bwrap",scanner="yara"} 2)");
  EXPECT_LINE(metrics.body, "# TYPE batlehub_sandbox_runs_total counter");

  // The scrape is live, not a snapshot taken at start.
  m.set_ready("bwrap", true);
  EXPECT_LINE(http(listener->port(), "GET", "/metrics").body, R"(batlehub_sandbox_ready{runtime="bwrap"} 1)");

  const Response livez = http(listener->port(), "GET", "/livez");
  EXPECT_EQ(livez.status, 200);
  EXPECT_EQ(livez.body, "ok\n");
}

TEST(StatusListener, AnswersNothingElse) {
  Metrics m;
  auto listener = start_or_fail(0, m);
  ASSERT_NE(listener, nullptr);
  const std::uint16_t port = listener->port();

  for (const char* path : {"/nope", "/", "/healthz", "/metrics/", "/livez/x", "/index.html", "/../etc/passwd"}) {
    EXPECT_EQ(http(port, "GET", path).status, 404) << path;
  }
  const Response post = http(port, "POST", "/metrics");
  EXPECT_EQ(post.status, 405);
  EXPECT_NE(post.headers.find("\r\nallow: get"), std::string::npos) << post.headers;
  EXPECT_EQ(http(port, "DELETE", "/livez").status, 405);
  EXPECT_EQ(http(port, "OPTIONS", "/metrics").status, 405);
  const Response head = http(port, "HEAD", "/livez");
  EXPECT_EQ(head.status, 405);
  EXPECT_EQ(head.body, "");
  // The query string is not part of the path.
  EXPECT_EQ(http(port, "GET", "/livez?verbose=1").status, 200);
}

TEST(StatusListener, TakenPortIsAClearError) {
  Metrics m;
  auto first = start_or_fail(0, m);
  ASSERT_NE(first, nullptr);
  const auto second = StatusListener::start("127.0.0.1", first->port(), m);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error(), "cannot listen on 127.0.0.1:" + std::to_string(first->port()) + ": Address already in use");
  // The first one still answers.
  EXPECT_EQ(http(first->port(), "GET", "/livez").status, 200);
}

TEST(StatusListener, RefusesAnythingButANumericAddress) {
  Metrics m;
  for (const char* host : {"", "localhost", "127.0.0.1,127.0.0.2", "127.0.0.1s", "[not-v6]"}) {
    const auto l = StatusListener::start(host, 0, m);
    ASSERT_FALSE(l) << host;
    EXPECT_EQ(l.error().rfind(std::string("cannot listen on ") + host + ":0: ", 0), 0u) << l.error();
    EXPECT_EQ(l.error().find('\n'), std::string::npos) << l.error();
  }
}

TEST(StatusListener, StopsListeningWhenDestroyed) {
  Metrics m;
  auto listener = start_or_fail(0, m);
  ASSERT_NE(listener, nullptr);
  const std::uint16_t port = listener->port();
  EXPECT_EQ(http(port, "GET", "/livez").status, 200);
  listener.reset();
  const int fd = connect_loopback(port);
  if (fd >= 0) ::close(fd);
  EXPECT_EQ(fd, -ECONNREFUSED);
}

}  // namespace
}  // namespace batlehub::server
