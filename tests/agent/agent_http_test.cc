// The agent over http:// and https:// against a real local server (tests/agent/http_peer.py):
// GET for the manifest and inputs, PUT with a Content-Length or a form POST for the result, and the
// refusals — a body longer than declared, a redirect, a certificate no compiled-in root
// vouches for, a certificate that does not name the host (an address is checked against
// the certificate's IP SANs, a name against its DNS SANs).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <algorithm>
#include <thread>

#include "archive_builder.h"
#include "harness.h"
#include "wire/post_form.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;
using wire::EntryKind;
using wire::FailureKind;

class Peer {
 public:
  // `host` is the loopback address the peer listens on and its URLs name; `tls13_only`
  // refuses TLS 1.2.
  Peer(const fs::path& dir, bool tls, std::string host = "127.0.0.1", bool tls13_only = false)
      : host_(std::move(host)) {
    fs::path port_file = dir / "port";
    std::string script = std::string(BATLEHUB_SOURCE_DIR) + "/tests/agent/http_peer.py";
    std::string tls_dir = std::string(BATLEHUB_SOURCE_DIR) + "/tests/fixtures/tls";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      std::vector<std::string> a = {"/usr/bin/python3", script, "--dir", dir.string()};
      a.insert(a.end(), {"--port-file", port_file.string(), "--bind", host_});
      if (tls) {
        a.insert(a.end(), {"--cert", tls_dir + "/server.pem", "--key", tls_dir + "/server.key"});
      }
      if (tls13_only) a.push_back("--tls13-only");
      std::vector<char*> c;
      for (auto& s : a) c.push_back(s.data());
      c.push_back(nullptr);
      ::execv(c[0], c.data());
      ::_exit(127);
    }
    for (int i = 0; i < 500 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    port_ = std::stoi(Scratch::read(port_file));
  }
  ~Peer() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string url(const std::string& path, bool tls = false) const { return url_as(host_, path, tls); }
  // The same peer under another name for the host (`localhost` for 127.0.0.1).
  std::string url_as(const std::string& host, const std::string& path, bool tls) const {
    return std::string(tls ? "https" : "http") + "://" + host + ":" + std::to_string(port_) + path;
  }

 private:
  std::string host_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// The agent's own stderr: under AddressSanitizer its clone(CLONE_VM | CLONE_VFORK) makes ASan
// print a three-line warning of its own (__asan_handle_no_return), which is not the agent's.
std::string agent_stderr(const std::string& err) {
  std::string out;
  std::size_t at = 0;
  while (at < err.size()) {
    std::size_t eol = err.find('\n', at);
    eol = eol == std::string::npos ? err.size() : eol + 1;
    const std::string_view line(err.data() + at, eol - at);
    const bool asan = line.starts_with("==") || line.starts_with("False positive error reports may follow") ||
                      line.starts_with("For details see https://github.com/google/sanitizers/issues/189");
    if (!asan) out.append(line);
    at = eol;
  }
  return out;
}

class AgentHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    served_ = s_.root() / "served";
    fs::create_directories(served_);
  }

  wire::Entry archive(const std::string& url_path, const std::string& file_name) {
    wire::Entry e;
    e.kind = EntryKind::kArchive;
    e.path = *wire::RelPath::parse("tree");
    e.url = peer().url(url_path);
    e.size = fs::file_size(served_ / file_name);
    return e;
  }

  int run_agent(const std::string& in, const std::string& out, const std::string& agent = BATLEHUB_AGENT_BIN) {
    return run_process({agent, "--in", in, "--out", out}, s_.work(), {});
  }

  Outcome outcome(int rc) { return read_outcome(served_ / "out.tar", rc); }

  Peer& peer(bool tls = false) {
    if (!peer_) peer_.emplace(served_, tls);
    return *peer_;
  }

  Scratch s_;
  fs::path served_;
  std::optional<Peer> peer_;
};

TEST_F(AgentHttp, gets_the_manifest_and_inputs_and_puts_the_result_with_a_content_length) {
  Scratch::write(served_ / "artifact.tgz", make_tgz({file("package/index.js", "hello")}));
  auto m = scan_manifest({hostile(), "cat", "tree/package/index.js"});
  m.entries = {archive("/f/artifact.tgz", "artifact.tgz")};
  wire::Entry chunked = archive("/chunked/artifact.tgz", "artifact.tgz");
  chunked.path = *wire::RelPath::parse("tree2");
  m.entries.push_back(chunked);
  Scratch::write(served_ / "manifest.json", wire::serialize(m));
  int rc = run_agent(peer().url("/f/manifest.json"), peer().url("/put/out.tar"));
  Outcome o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_EQ(o.stdout_bytes, "hello");
  EXPECT_EQ(o.result.extract.files, 2u);
  std::string headers = Scratch::read(served_ / "out.tar.headers");
  EXPECT_NE(headers.find("Content-Length: " + std::to_string(fs::file_size(served_ / "out.tar"))), std::string::npos)
      << headers;
  EXPECT_EQ(headers.find("Transfer-Encoding"), std::string::npos);
}

TEST_F(AgentHttp, a_body_longer_than_declared_is_refused) {
  Scratch::write(served_ / "artifact.tgz", make_tgz({file("a", "1")}));
  for (const char* path : {"/long/artifact.tgz?extra=1", "/nolen/artifact.tgz?extra=100000"}) {
    auto m = scan_manifest({hostile(), "exit", "0"});
    m.entries = {archive(path, "artifact.tgz")};
    Scratch::write(served_ / "manifest.json", wire::serialize(m));
    fs::remove(served_ / "out.tar");
    Outcome o = outcome(run_agent(peer().url("/f/manifest.json"), peer().url("/put/out.tar")));
    ASSERT_TRUE(o.have_result) << path << ": " << o.error;
    EXPECT_FALSE(o.result.ran);
    ASSERT_TRUE(o.result.failure) << path;
    EXPECT_EQ(o.result.failure->kind, FailureKind::kInputSize) << path << ": " << o.result.failure->message;
    EXPECT_NE(o.result.failure->message.find("declares"), std::string::npos) << o.result.failure->message;
  }
}

TEST_F(AgentHttp, a_redirect_is_not_followed) {
  Scratch::write(served_ / "manifest.json", wire::serialize(scan_manifest({hostile(), "exit", "0"})));
  Outcome o = outcome(run_agent(peer().url("/redirect/manifest.json"), peer().url("/put/out.tar")));
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kFetch);
  EXPECT_NE(o.result.failure->message.find("GET answered 302"), std::string::npos) << o.result.failure->message;
}

TEST_F(AgentHttp, a_refused_put_is_a_nonzero_exit_that_says_why_on_stderr_after_one_attempt) {
  Scratch::write(served_ / "manifest.json", wire::serialize(scan_manifest({hostile(), "exit", "0"})));
  std::string err;
  const int rc =
      run_process({BATLEHUB_AGENT_BIN, "--in", peer().url("/f/manifest.json"), "--out", peer().url("/gone/9/out.tar")},
                  s_.work(), {}, &err);
  err = agent_stderr(err);
  EXPECT_EQ(rc, static_cast<int>(AgentExit::kNoResult));
  // A 404 is the server saying no: asked once.
  EXPECT_EQ(Scratch::read(served_ / "out.tar.attempts"), "1");
  const std::string authority = peer().url("").substr(std::string("http://").size());
  const std::string head = "batlehub-sandbox: no result written: PUT " + authority + ": PUT answered 404: ";
  EXPECT_EQ(err.rfind(head, 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_TRUE(err.ends_with("\n")) << err;
}

// The storage hop crosses a network the sandbox does not own: a server that is busy (503)
// or a connection dropped before its answer is tried again, for the manifest, the input and
// the result alike, and the scan is whole; the result was written once, in full.
TEST_F(AgentHttp, a_busy_server_or_a_dropped_connection_is_tried_again) {
  Scratch::write(served_ / "artifact.tgz", make_tgz({file("package/index.js", "hello")}));
  auto m = scan_manifest({hostile(), "cat", "tree/package/index.js"});
  m.entries = {archive("/drop/1/artifact.tgz", "artifact.tgz")};
  Scratch::write(served_ / "manifest.json", wire::serialize(m));
  std::string err;
  const int rc = run_process(
      {BATLEHUB_AGENT_BIN, "--in", peer().url("/busy/2/manifest.json"), "--out", peer().url("/drop/2/out.tar")},
      s_.work(), {}, &err);
  err = agent_stderr(err);
  Outcome o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error << err;
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(err, "");
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_EQ(o.stdout_bytes, "hello");
  EXPECT_EQ(Scratch::read(served_ / "manifest.json.attempts"), "3");
  EXPECT_EQ(Scratch::read(served_ / "artifact.tgz.attempts"), "2");
  EXPECT_EQ(Scratch::read(served_ / "out.tar.attempts"), "3");
}

// The storage transport's result: a post+ URL (wire/post_form.h) is POSTed as a form, its
// fields as parts in the order given, out.tar last as the part "file", one Content-Length.
TEST_F(AgentHttp, a_post_form_result_is_sent_as_its_fields_in_order_then_out_tar) {
  Scratch::write(served_ / "manifest.json", wire::serialize(scan_manifest({hostile(), "exit", "0"})));
  const std::string out = wire::post_form_url(
      peer().url("/form/out.tar"), {{"key", "sandbox/j 1/out.tar"}, {"policy", "eyJ+/="}, {"x-amz-signature", "0a"}});
  std::string err;
  const int rc =
      run_process({BATLEHUB_AGENT_BIN, "--in", peer().url("/f/manifest.json"), "--out", out}, s_.work(), {}, &err);
  Outcome o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error << agent_stderr(err);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(Scratch::read(served_ / "out.tar.fields"), "key=sandbox/j 1/out.tar\npolicy=eyJ+/=\nx-amz-signature=0a\n");
  const std::string headers = Scratch::read(served_ / "out.tar.headers");
  EXPECT_NE(headers.find("Content-Type: multipart/form-data; boundary=batlehub-"), std::string::npos) << headers;
  EXPECT_NE(headers.find("Content-Length: "), std::string::npos) << headers;
}

// Four attempts and no more: the last failure is the reason, with the count.
TEST_F(AgentHttp, a_server_busy_through_every_attempt_is_no_result_naming_the_attempts) {
  Scratch::write(served_ / "manifest.json", wire::serialize(scan_manifest({hostile(), "exit", "0"})));
  std::string err;
  const int rc =
      run_process({BATLEHUB_AGENT_BIN, "--in", peer().url("/f/manifest.json"), "--out", peer().url("/busy/9/out.tar")},
                  s_.work(), {}, &err);
  err = agent_stderr(err);
  EXPECT_EQ(rc, static_cast<int>(AgentExit::kNoResult));
  EXPECT_EQ(Scratch::read(served_ / "out.tar.attempts"), "4");
  EXPECT_NE(err.find(": PUT answered 503: "), std::string::npos) << err;
  EXPECT_TRUE(err.ends_with(" (4 attempts)\n")) << err;
  EXPECT_FALSE(fs::exists(served_ / "out.tar"));
}

TEST_F(AgentHttp, https_verifies_against_the_compiled_in_roots) {
  peer(/*tls=*/true);
  Scratch::write(served_ / "artifact.tgz", make_tgz({file("x", "over tls")}));
  auto m = scan_manifest({hostile(), "cat", "tree/x"});
  m.entries = {archive("/f/artifact.tgz", "artifact.tgz")};
  m.entries[0].url = peer(true).url("/f/artifact.tgz", true);
  Scratch::write(served_ / "manifest.json", wire::serialize(m));
  int rc = run_agent(peer().url("/f/manifest.json", true), peer().url("/put/out.tar", true), BATLEHUB_AGENT_TESTROOTS_BIN);
  Outcome o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.stdout_bytes, "over tls");

  // The real agent carries the system's roots, which do not include the test CA: its
  // manifest GET is refused (and so is its PUT, so no result comes back at all).
  fs::remove(served_ / "out.tar");
  rc = run_agent(peer().url("/f/manifest.json", true), peer().url("/put/out.tar", true));
  EXPECT_EQ(rc, static_cast<int>(AgentExit::kNoResult));
  EXPECT_FALSE(fs::exists(served_ / "out.tar"));
}

// tests/fixtures/tls/server.pem names IP 127.0.0.1 and DNS localhost (its CN is 127.0.0.1).
// The same server as https://localhost is accepted on its DNS SAN; a server presenting it
// from 127.0.0.2 is refused — the certificate does not name that address — and the result
// says so.
TEST_F(AgentHttp, https_checks_the_host_an_address_or_a_name_against_the_certificate) {
  peer(/*tls=*/true);
  Scratch::write(served_ / "artifact.tgz", make_tgz({file("x", "by name")}));
  auto m = scan_manifest({hostile(), "cat", "tree/x"});
  m.entries = {archive("/f/artifact.tgz", "artifact.tgz")};
  m.entries[0].url = peer().url_as("localhost", "/f/artifact.tgz", true);
  Scratch::write(served_ / "manifest.json", wire::serialize(m));
  int rc =
      run_agent(peer().url("/f/manifest.json", true), peer().url("/put/out.tar", true), BATLEHUB_AGENT_TESTROOTS_BIN);
  Outcome o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_EQ(o.stdout_bytes, "by name");

  fs::path other_dir = s_.root() / "served-127.0.0.2";
  fs::create_directories(other_dir);
  Scratch::write(other_dir / "artifact.tgz", make_tgz({file("x", "wrong address")}));
  Peer other(other_dir, /*tls=*/true, "127.0.0.2");
  m.entries[0].url = other.url("/f/artifact.tgz", true);
  m.entries[0].size = fs::file_size(other_dir / "artifact.tgz");
  Scratch::write(served_ / "manifest.json", wire::serialize(m));
  fs::remove(served_ / "out.tar");
  rc = run_agent(peer().url("/f/manifest.json", true), peer().url("/put/out.tar", true), BATLEHUB_AGENT_TESTROOTS_BIN);
  o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.ran);
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kFetch);
  EXPECT_NE(o.result.failure->message.find("certificate is refused"), std::string::npos) << o.result.failure->message;
  EXPECT_NE(o.result.failure->message.find("does not match"), std::string::npos) << o.result.failure->message;
}

// The agent speaks TLS 1.2 only (Debian 12's mbedTLS 2.28 has no TLS 1.3): a server that
// accepts only TLS 1.3 is refused at the handshake, and the result says which version is
// missing.
TEST_F(AgentHttp, a_server_that_speaks_only_tls_1_3_is_refused_and_the_result_says_why) {
  peer(/*tls=*/true);
  fs::path other_dir = s_.root() / "served-tls13";
  fs::create_directories(other_dir);
  Scratch::write(other_dir / "artifact.tgz", make_tgz({file("x", "1.3 only")}));
  Peer other(other_dir, /*tls=*/true, "127.0.0.1", /*tls13_only=*/true);
  auto m = scan_manifest({hostile(), "cat", "tree/x"});
  wire::Entry e;
  e.kind = EntryKind::kArchive;
  e.path = *wire::RelPath::parse("tree");
  e.url = other.url("/f/artifact.tgz", true);
  e.size = fs::file_size(other_dir / "artifact.tgz");
  m.entries = {e};
  Scratch::write(served_ / "manifest.json", wire::serialize(m));
  int rc =
      run_agent(peer().url("/f/manifest.json", true), peer().url("/put/out.tar", true), BATLEHUB_AGENT_TESTROOTS_BIN);
  Outcome o = outcome(rc);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kFetch);
  EXPECT_NE(o.result.failure->message.find("TLS handshake failed"), std::string::npos) << o.result.failure->message;
  EXPECT_NE(o.result.failure->message.find("TLS 1.2"), std::string::npos) << o.result.failure->message;
}

}  // namespace
}  // namespace batlehub::agent
