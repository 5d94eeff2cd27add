// The worker's HTTP client (adapters/http/http_client.h) against the scripted API peer
// (tests/helpers/api_peer.h) over HTTPS with tests/fixtures/tls: answers, bodies both ways,
// the cap on an answer, cut and slow answers, the wrong CA, and the retry policy. The tests
// assert what happened, never how long it took — except that a wait that must not happen
// did not (less than the Retry-After it would have been).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adapters/http/http_client.h"
#include "base/fd.h"
#include "helpers/api_peer.h"

namespace batlehub::http {
namespace {

using namespace std::chrono_literals;
using batlehub::testing::ApiPeer;

// A binary body: every byte value, a CR LF, a NUL.
std::string every_byte() {
  std::string s;
  for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
  return s + "\r\n\0end";
}

// A file whose bytes the test reads back.
class SinkFile {
 public:
  SinkFile() {
    char name[] = "/tmp/batlehub-http-sink.XXXXXX";
    fd_ = ::mkstemp(name);
    ::unlink(name);
  }
  ~SinkFile() { ::close(fd_); }
  int fd() const { return fd_; }
  std::string bytes() const {
    std::string out;
    char buf[65536];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
      if (n <= 0) return out;
      out.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
  }

 private:
  int fd_ = -1;
};

// A loopback port nothing listens on: bound, then closed.
int closed_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

class HttpClientTest : public ::testing::Test {
 protected:
  Request get(const std::string& path) const {
    Request r;
    r.url = peer_.url(path);
    return r;
  }

  ApiPeer peer_;
  Client client_{Tls{.ca_file = ApiPeer::ca_file()}};
};

TEST_F(HttpClientTest, AnAnswerWithItsStatusHeadersAndBody) {
  peer_.script({{"GET",
                 "/v1/thing",
                 {{.status = 201,
                   .headers = {{"Content-Type", "application/json"}, {"X-Thing", "one"}, {"X-Thing", "two"}},
                   .body = R"({"ok":true})"}}}});
  auto r = client_.send(get("/v1/thing?name=left-out"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->body, R"({"ok":true})");
  EXPECT_EQ(r->body_size, r->body.size());
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(r->header("x-thing"), "one");  // the first of its name
  EXPECT_EQ(r->header("X-Thing"), std::nullopt);
  EXPECT_FALSE(r->stopped);
  const auto seen = peer_.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].path, "/v1/thing");
  EXPECT_EQ(seen[0].query, "name=left-out");
  EXPECT_EQ(seen[0].headers.at("user-agent"), "batlehub-worker");
  EXPECT_EQ(seen[0].headers.count("expect"), 0u);
}

TEST_F(HttpClientTest, AnUnscriptedPathIsThePeers404) {
  auto r = client_.send(get("/nowhere"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("no route in the test's script"), std::string::npos) << r->body;
}

TEST_F(HttpClientTest, APostBodyArrivesByteExactWithItsHeaders) {
  peer_.script({{"POST", "/v1/querybatch", {{.status = 200, .body = "{}"}}}});
  Request r = get("/v1/querybatch");
  r.method = "POST";
  r.headers = {{"Content-Type", "application/octet-stream"}, {"Authorization", "Bearer t"}};
  r.body = every_byte();
  auto got = client_.send(r);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, 200);
  const auto seen = peer_.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_TRUE(seen[0].body == every_byte());
  EXPECT_EQ(seen[0].headers.at("content-length"), std::to_string(every_byte().size()));
  EXPECT_EQ(seen[0].headers.at("content-type"), "application/octet-stream");
  EXPECT_EQ(seen[0].headers.at("authorization"), "Bearer t");
  EXPECT_EQ(seen[0].headers.count("expect"), 0u);
}

TEST_F(HttpClientTest, PutsFromAStringAndFromADescriptorAndADeleteWithABody) {
  peer_.script({{"*", "/o/*", {{.status = 200}}}});
  Request put = get("/o/a");
  put.method = "PUT";
  put.body = every_byte();
  ASSERT_TRUE(client_.send(put));

  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::string streamed(200'000, 's');
  std::thread writer([&] {
    base::write_all(p[1], streamed);
    ::close(p[1]);
  });
  Request from_fd = get("/o/b");
  from_fd.method = "PUT";
  from_fd.body_fd = p[0];
  from_fd.body_fd_size = streamed.size();
  auto r = client_.send(from_fd);
  writer.join();
  ::close(p[0]);
  ASSERT_TRUE(r) << r.error().message;

  Request empty = get("/o/c");
  empty.method = "PUT";
  ASSERT_TRUE(client_.send(empty));

  Request del = get("/o/d");
  del.method = "DELETE";
  del.body = R"({"kind":"DeleteOptions"})";
  ASSERT_TRUE(client_.send(del));

  const auto seen = peer_.seen();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].method, "PUT");
  EXPECT_TRUE(seen[0].body == every_byte());
  EXPECT_EQ(seen[1].method, "PUT");
  EXPECT_EQ(seen[1].headers.at("content-length"), std::to_string(streamed.size()));
  EXPECT_TRUE(seen[1].body == streamed);
  EXPECT_EQ(seen[2].headers.at("content-length"), "0");  // an empty PUT still says so
  EXPECT_EQ(seen[3].method, "DELETE");
  EXPECT_EQ(seen[3].body, R"({"kind":"DeleteOptions"})");
}

TEST_F(HttpClientTest, ADescriptorThatGivesLessThanItsSizeIsTheSourcesFault) {
  peer_.script({{"PUT", "/o/short", {{.status = 200}}}});
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ASSERT_EQ(::write(p[1], "abc", 3), 3);
  ::close(p[1]);
  Request r = get("/o/short");
  r.method = "PUT";
  r.body_fd = p[0];
  r.body_fd_size = 10;
  auto got = client_.send(r);
  ::close(p[0]);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kSource) << got.error().message;
  EXPECT_NE(got.error().message.find("fewer than its 10 bytes"), std::string::npos) << got.error().message;
}

TEST_F(HttpClientTest, AContentLengthOverTheCapIsRefusedBeforeTheBodyIsRead) {
  peer_.script({{"GET", "/big", {{.status = 200, .body = "0123456789", .repeat = 100'000}}}});
  SinkFile sink;
  Request r = get("/big");
  r.max_body = 1000;
  r.sink_fd = sink.fd();
  auto got = client_.send(r);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kTooLarge) << got.error().message;
  EXPECT_NE(got.error().message.find("its Content-Length is 1000000"), std::string::npos) << got.error().message;
  EXPECT_EQ(sink.bytes(), "");  // not one byte of it taken
  // At the cap exactly, it is an answer.
  r.max_body = 1'000'000;
  r.sink_fd = -1;
  auto exact = client_.send(r);
  ASSERT_TRUE(exact) << exact.error().message;
  EXPECT_EQ(exact->body.size(), 1'000'000u);
}

TEST_F(HttpClientTest, AChunkedBodyOverTheCapIsRefusedAsItArrives) {
  peer_.script({{"GET", "/stream", {{.status = 200, .body = "0123456789", .repeat = 100'000, .chunked = true}}}});
  SinkFile sink;
  Request r = get("/stream");
  r.max_body = 50'000;
  r.sink_fd = sink.fd();
  auto got = client_.send(r);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kTooLarge) << got.error().message;
  EXPECT_EQ(got.error().message.find("Content-Length"), std::string::npos) << got.error().message;
  EXPECT_LE(sink.bytes().size(), 50'000u);
}

TEST_F(HttpClientTest, AHeadIsNotRefusedForTheSizeItDeclares) {
  peer_.script({{"HEAD", "/object", {{.status = 200, .body = "0123456789", .repeat = 1000}}}});
  Request r = get("/object");
  r.method = "HEAD";
  r.max_body = 10;
  auto got = client_.send(r);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->header("content-length"), "10000");
  EXPECT_EQ(got->body, "");
}

TEST_F(HttpClientTest, AnErrorBodyIsCutNotRefusedAndNeverSunkWhenMaxErrorBodyIsSet) {
  peer_.script({{"GET", "/missing", {{.status = 404, .body = "<Error>NoSuchKey</Error>", .repeat = 1000}}},
                {"GET", "/there", {{.status = 200, .body = "payload"}}}});
  SinkFile sink;
  Request r = get("/missing");
  r.max_body = 10;
  r.max_error_body = 24;
  r.sink_fd = sink.fd();
  auto got = client_.send(r);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, 404);
  EXPECT_EQ(got->body, "<Error>NoSuchKey</Error>");
  EXPECT_EQ(got->body_size, 24'000u);
  EXPECT_EQ(sink.bytes(), "");
  r.url = peer_.url("/there");
  auto ok = client_.send(r);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->body, "");
  EXPECT_EQ(ok->body_size, 7u);
  EXPECT_EQ(sink.bytes(), "payload");
}

TEST_F(HttpClientTest, HeadersWithoutEndAreRefused) {
  const std::string kb80(80 * 1024, 'h');
  peer_.script({{"GET",
                 "/headers",
                 {{.status = 200, .headers = {{"X-A", kb80}, {"X-B", kb80}, {"X-C", kb80}, {"X-D", kb80}}}}}});
  auto got = client_.send(get("/headers"));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kTooLarge) << got.error().message;
  EXPECT_NE(got.error().message.find("headers"), std::string::npos) << got.error().message;
}

TEST_F(HttpClientTest, ACutAnswerIsTruncated) {
  peer_.script({{"GET", "/cut", {{.status = 200, .body = "half of it", .truncate = true}}}});
  auto got = client_.send(get("/cut"));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kTruncated) << got.error().message;
}

TEST_F(HttpClientTest, AnAnswerSlowerThanTheTimeoutIsATimeout) {
  peer_.script({{"GET", "/slow", {{.status = 200, .body = "late", .delay_ms = 3000}}}});
  Request r = get("/slow");
  r.timeout = 300ms;
  auto got = client_.send(r);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kTimeout) << got.error().message;
}

TEST_F(HttpClientTest, TheWrongCaIsATlsErrorAndIsNotRetried) {
  peer_.script({{"GET", "/v1/thing", {{.status = 200}}}});
  Client wrong{Tls{.ca_file = ApiPeer::wrong_ca_file()}};
  int retries = 0;
  auto got = wrong.send(get("/v1/thing"), RetryPolicy{.max_attempts = 3, .base_delay = 1ms},
                        [&](int, const std::string&, std::chrono::milliseconds) { ++retries; });
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::kTls) << got.error().message;
  EXPECT_TRUE(got.error().message.starts_with("GET " + peer_.url("/v1/thing") + ": ")) << got.error().message;
  EXPECT_EQ(retries, 0);
  EXPECT_TRUE(peer_.seen().empty());
  // The system's roots do not know the test CA either.
  auto system = Client{}.send(get("/v1/thing"));
  ASSERT_FALSE(system);
  EXPECT_EQ(system.error().kind, ErrorKind::kTls) << system.error().message;
}

TEST_F(HttpClientTest, TheCaAsPemInMemoryIsTrusted) {
  peer_.script({{"GET", "/v1/thing", {{.status = 200, .body = "ok"}}}});
  std::ifstream in(ApiPeer::ca_file());
  std::stringstream pem;
  pem << in.rdbuf();
  Client in_memory{Tls{.ca_pem = pem.str()}};
  auto got = in_memory.send(get("/v1/thing"));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->body, "ok");
}

TEST_F(HttpClientTest, A429WithRetryAfterIsWaitedForThenTheAnswer) {
  peer_.script({{"POST",
                 "/v1/querybatch",
                 {{.status = 429, .headers = {{"Retry-After", "1"}}, .body = "slow down"},
                  {.status = 200, .body = R"({"results":[]})"}}}});
  Request r = get("/v1/querybatch");
  r.method = "POST";
  r.body = "{}";
  std::vector<std::pair<int, std::chrono::milliseconds>> retries;
  std::string why;
  auto got = client_.send(r, RetryPolicy{.max_attempts = 3},
                          [&](int attempt, const std::string& w, std::chrono::milliseconds wait) {
                            retries.emplace_back(attempt, wait);
                            why = w;
                          });
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, R"({"results":[]})");
  ASSERT_EQ(retries.size(), 1u);
  EXPECT_EQ(retries[0].first, 1);
  EXPECT_EQ(retries[0].second, 1000ms);
  EXPECT_NE(why.find("HTTP 429"), std::string::npos) << why;
  const auto seen = peer_.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].body, "{}");
  EXPECT_EQ(seen[1].body, "{}");
}

TEST_F(HttpClientTest, ThreeServerErrorsAreTheLastAnswerAfterThreeAttempts) {
  peer_.script({{"GET", "/flaky", {{.status = 503, .body = "down"}}}});
  std::vector<std::chrono::milliseconds> waits;
  auto got = client_.send(get("/flaky"), RetryPolicy{.max_attempts = 3, .base_delay = 10ms, .max_delay = 40ms},
                          [&](int, const std::string&, std::chrono::milliseconds wait) { waits.push_back(wait); });
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, 503);
  EXPECT_EQ(got->body, "down");
  EXPECT_EQ(peer_.seen().size(), 3u);
  ASSERT_EQ(waits.size(), 2u);
  // base_delay, then twice it, each with at most a quarter more.
  EXPECT_GE(waits[0], 10ms);
  EXPECT_LE(waits[0], 12ms);
  EXPECT_GE(waits[1], 20ms);
  EXPECT_LE(waits[1], 25ms);
}

TEST_F(HttpClientTest, AWaitPastTheDeadlineIsNotBegun) {
  peer_.script({{"GET", "/limited", {{.status = 429, .headers = {{"Retry-After", "5"}}}, {.status = 200}}}});
  int retries = 0;
  const auto start = std::chrono::steady_clock::now();
  auto got = client_.send(get("/limited"), RetryPolicy{.max_attempts = 3, .max_delay = 30s, .deadline = start + 2s},
                          [&](int, const std::string&, std::chrono::milliseconds) { ++retries; });
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, 429);
  EXPECT_EQ(retries, 0);
  EXPECT_EQ(peer_.seen().size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // it did not wait the Retry-After
}

TEST_F(HttpClientTest, ARetryAfterLongerThanMaxDelayIsTheAnswer) {
  peer_.script({{"GET", "/later", {{.status = 503, .headers = {{"Retry-After", "120"}}}, {.status = 200}}}});
  int retries = 0;
  const auto start = std::chrono::steady_clock::now();
  auto got = client_.send(get("/later"), RetryPolicy{.max_attempts = 3, .max_delay = 8s},
                          [&](int, const std::string&, std::chrono::milliseconds) { ++retries; });
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, 503);
  EXPECT_EQ(retries, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 120s);
}

TEST_F(HttpClientTest, AConnectionClosedWithoutAnAnswerIsRetried) {
  peer_.script({{"GET", "/hangup", {{.hangup = true}, {.status = 200, .body = "back"}}}});
  std::vector<std::string> whys;
  auto got = client_.send(get("/hangup"), RetryPolicy{.max_attempts = 2, .base_delay = 1ms},
                          [&](int, const std::string& why, std::chrono::milliseconds) { whys.push_back(why); });
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->body, "back");
  ASSERT_EQ(whys.size(), 1u);
  EXPECT_TRUE(whys[0].starts_with("GET " + peer_.url("/hangup") + ": ")) << whys[0];
}

TEST_F(HttpClientTest, ARequestThatCannotBeReplayedIsRefusedUnderRetries) {
  peer_.script({{"GET", "/x", {{.status = 200}}}});
  Request streamed = get("/x");
  streamed.on_chunk = [](std::string_view) { return true; };
  auto a = client_.send(streamed, RetryPolicy{.max_attempts = 2});
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().kind, ErrorKind::kOther);
  Request from_fd = get("/x");
  from_fd.method = "PUT";
  from_fd.body_fd = 0;
  auto b = client_.send(from_fd, RetryPolicy{.max_attempts = 2});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().kind, ErrorKind::kOther);
  EXPECT_TRUE(peer_.seen().empty());
  // One attempt is not a replay.
  auto once = client_.send(streamed, RetryPolicy{.max_attempts = 1});
  ASSERT_TRUE(once) << once.error().message;
}

TEST_F(HttpClientTest, TheBodyToADescriptor) {
  peer_.script({{"GET", "/blob", {{.status = 200, .body = every_byte(), .repeat = 1000}}}});
  SinkFile sink;
  Request r = get("/blob");
  r.sink_fd = sink.fd();
  auto got = client_.send(r);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->body, "");
  EXPECT_EQ(got->body_size, every_byte().size() * 1000);
  std::string want;
  for (int i = 0; i < 1000; ++i) want += every_byte();
  EXPECT_TRUE(sink.bytes() == want);
  // A descriptor that cannot be written is the sink's fault.
  r.sink_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto bad = client_.send(r);
  ::close(r.sink_fd);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kSink) << bad.error().message;
  EXPECT_EQ(bad.error().err, EBADF);
}

TEST_F(HttpClientTest, TheBodyAsItArrivesUntilTheCallbackStops) {
  peer_.script(
      {{"GET", "/watch", {{.status = 200, .body = "{\"type\":\"ADDED\"}\n", .repeat = 5000, .chunked = true}}}});
  std::string all;
  Request r = get("/watch");
  r.max_body = 10;  // not a stream's limit: the callback bounds what it keeps
  r.on_chunk = [&](std::string_view chunk) {
    all += chunk;
    return true;
  };
  auto got = client_.send(r);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_FALSE(got->stopped);
  EXPECT_EQ(all.size(), 17u * 5000);
  EXPECT_EQ(got->body, "");

  std::size_t chunks = 0;
  r.on_chunk = [&](std::string_view) { return ++chunks < 2; };
  auto stopped = client_.send(r);
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_TRUE(stopped->stopped);
  EXPECT_EQ(stopped->status, 200);
  EXPECT_EQ(chunks, 2u);
}

TEST_F(HttpClientTest, WhatIsNotAnHttpUrlOrNotListeningIsSaidWithTheRequest) {
  Request ftp;
  ftp.url = "ftp://127.0.0.1/file";
  auto bad = client_.send(ftp);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kBadUrl);

  Request closed;
  closed.url = "https://127.0.0.1:" + std::to_string(closed_port()) + "/v1/query?key=secret";
  auto refused = client_.send(closed);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kConnect) << refused.error().message;
  EXPECT_TRUE(refused.error().message.starts_with(describe(closed) + ": ")) << refused.error().message;
  EXPECT_EQ(refused.error().message, describe(closed) + ": " + refused.error().detail);
  EXPECT_EQ(refused.error().message.find("secret"), std::string::npos) << refused.error().message;

  Request injected = get("/x");
  injected.headers = {{"X-Token", "a\r\nX-Injected: 1"}};
  auto no = client_.send(injected);
  ASSERT_FALSE(no);
  EXPECT_TRUE(peer_.seen().empty());
}

TEST(HttpDescribe, TheUrlWithoutItsQueryOrCredentials) {
  EXPECT_EQ(describe({.method = "GET", .url = "https://127.0.0.1:1234/v1/query?key=secret"}),
            "GET https://127.0.0.1:1234/v1/query");
  EXPECT_EQ(describe({.method = "POST", .url = "http://user:pw@127.0.0.1/p#frag"}), "POST http://127.0.0.1/p");
  EXPECT_EQ(to_string(ErrorKind::kTooLarge), "too_large");
}

TEST(HttpRetryAfter, SecondsOrADateOrNothing) {
  // "Sun, 06 Nov 1994 08:49:37 GMT" is 784111777.
  const auto then = std::chrono::system_clock::from_time_t(784111777);
  EXPECT_EQ(parse_retry_after("120", then), 120'000ms);
  EXPECT_EQ(parse_retry_after(" 0 ", then), 0ms);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", then - 30s), 30'000ms);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", then + 30s), 0ms);  // already past
  EXPECT_EQ(parse_retry_after("99999999999999999999", then), 86'400'000ms);        // a day at most
  EXPECT_EQ(parse_retry_after("", then), std::nullopt);
  EXPECT_EQ(parse_retry_after("soon", then), std::nullopt);
  EXPECT_EQ(parse_retry_after("-5", then), std::nullopt);
  EXPECT_EQ(parse_retry_after("1.5", then), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), then);
  EXPECT_EQ(parse_http_date("12"), std::nullopt);
}

}  // namespace
}  // namespace batlehub::http
