// The S3 backend over https:// against a real server: versitygw on a free 127.0.0.1 port of
// this suite's own (scripts/s3-peer.sh start … --tls), presenting tests/fixtures/tls/server.pem
// — a certificate for IP 127.0.0.1 signed by the throwaway test CA ca.pem
// (scripts/make-test-ca.sh). The backend trusts the CA its config's ca_file names
// (CURLOPT_CAINFO), the system's roots otherwise; neither of those vouches for a certificate
// signed by another CA (other-ca.pem, which signed nothing here).
//
// What libcurl answers, as these tests assert it: a certificate no trusted CA signed is
// CURLE_PEER_FAILED_VERIFICATION, "SSL certificate problem: unable to get local issuer
// certificate", which the backend reports as kIo; the request is never sent, so the object
// a refused PUT named is not there afterwards.
#include <arpa/inet.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "adapters/sandbox/blob.h"
#include "adapters/storage/s3_backend.h"
#include "s3_peer.h"

namespace batlehub::adapters {
namespace {

namespace fs = std::filesystem;
using core::StorageError;
using Kind = core::StorageError::Kind;
using namespace std::chrono_literals;
using namespace batlehub::testing;

const std::string kTlsDir = std::string(BATLEHUB_SOURCE_DIR) + "/tests/fixtures/tls";
const std::string kTestCa = kTlsDir + "/ca.pem";
const std::string kOtherCa = kTlsDir + "/other-ca.pem";

// A GET without credentials, what a sandbox holding a presigned URL is; it trusts `ca_file`
// only (the system's roots when empty).
HttpAnswer https_get(const std::string& url, const std::string& ca_file) {
  return http("GET", url, "", HttpOptions{.ca_file = ca_file, .https_only = true});
}

class S3TlsTest : public ::testing::Test {
 protected:
  // One server for the suite; SetUp fails each test with why it did not start.
  static void SetUpTestSuite() {
    if (::access(BATLEHUB_TEST_S3_BIN, X_OK) != 0) return;
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/batlehub-s3-tls.XXXXXX";
    if (::mkdtemp(dir.data()) == nullptr) {
      *start_error_ = "mkdtemp " + dir + ": " + std::strerror(errno);
      return;
    }
    *dir_ = dir;
    const int port = free_loopback_port();
    const std::string start = "VERSITYGW=" + std::string(BATLEHUB_TEST_S3_BIN) + " " + BATLEHUB_SOURCE_DIR +
                              "/scripts/s3-peer.sh start " + dir + "/peer " + std::to_string(port) + " --tls " +
                              kTlsDir + "/server.pem " + kTlsDir + "/server.key >" + dir + "/url";
    if (std::system(start.c_str()) != 0) {
      *start_error_ = "the server did not start: " + start;
      return;
    }
    std::ifstream in(dir + "/url");
    std::getline(in, *endpoint_);
    if (*endpoint_ != "https://127.0.0.1:" + std::to_string(port)) {
      *start_error_ = "s3-peer.sh printed '" + *endpoint_ + "'";
    }
  }

  static void TearDownTestSuite() {
    if (dir_->empty()) return;
    std::system((std::string(BATLEHUB_SOURCE_DIR) + "/scripts/s3-peer.sh stop " + *dir_ + "/peer").c_str());
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    dir_->clear();
  }

  void SetUp() override {
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(start_error_->empty()) << *start_error_;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    prefix_ = std::string(info->name()) + "-" + std::to_string(::getpid()) + "/";
  }

  // A backend on the suite's https endpoint that trusts `ca_file` (the system's roots when
  // empty).
  static std::unique_ptr<S3Backend> make(const std::string& ca_file) {
    config::StorageBackendConfig c = test_s3_config(*endpoint_, "s3tls");
    c.ca_file = ca_file;
    auto b = S3Backend::create(c, test_s3_env());
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error());
    return b ? std::move(*b) : nullptr;
  }

  // A backend that does not trust the server: its first request fails on the certificate
  // before anything is sent, and the PUT it tried left nothing behind.
  void expect_refused_certificate(const std::string& ca_file) {
    auto untrusting = make(ca_file);
    ASSERT_NE(untrusting, nullptr);
    const std::string key = prefix_ + "never-sent.txt";
    auto put = untrusting->put(key, "must not arrive");
    ASSERT_FALSE(put) << "a PUT over TLS to a server no trusted CA vouches for succeeded";
    EXPECT_EQ(put.error().kind, Kind::kIo) << put.error().message;
    EXPECT_NE(put.error().message.find("SSL certificate problem"), std::string::npos) << put.error().message;
    EXPECT_NE(put.error().message.find("certificate"), std::string::npos) << put.error().message;

    auto expect_refused = [](const auto& r, const char* op) {
      ASSERT_FALSE(r) << op << " succeeded";
      EXPECT_EQ(r.error().kind, Kind::kIo) << r.error().message;
      EXPECT_NE(r.error().message.find("SSL certificate problem"), std::string::npos) << r.error().message;
    };
    expect_refused(untrusting->get(key, 1024), "GET");
    expect_refused(untrusting->head(key), "HEAD");
    expect_refused(untrusting->list(prefix_), "list");
    expect_refused(untrusting->remove(key), "DELETE");

    // The refused PUT never reached the server: a client that trusts it finds nothing.
    auto trusting = make(kTestCa);
    ASSERT_NE(trusting, nullptr);
    auto head = trusting->head(key);
    ASSERT_FALSE(head) << "the object the refused PUT named is there";
    EXPECT_EQ(head.error().kind, Kind::kNotFound) << head.error().message;
  }

  static inline std::string* const start_error_ = new std::string;
  static inline std::string* const dir_ = new std::string;
  static inline std::string* const endpoint_ = new std::string;
  std::string prefix_;
};

TEST_F(S3TlsTest, TheTestCaInCaFileReachesTheServer) {
  auto s3 = make(kTestCa);
  ASSERT_NE(s3, nullptr);
  const std::string key = prefix_ + "a/object.bin";
  ASSERT_OK(s3->put(key, "hello over tls"));
  auto got = s3->get(key, 1024);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, "hello over tls");

  auto info = s3->head(key);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->size, 14u);

  // put_blob: the streamed body is UNSIGNED-PAYLOAD, its integrity TLS's.
  const PatternedFile file = patterned_file_blob(300 * 1024 + 7, "/tmp/batlehub-s3-tls-blob.XXXXXX");
  ASSERT_TRUE(file.blob) << file.error;
  const std::string& bytes = file.bytes;
  const std::string blob_key = prefix_ + "b/blob.bin";
  ASSERT_OK(s3->put_blob(blob_key, *file.blob));
  auto blob_got = s3->get(blob_key, bytes.size());
  ASSERT_TRUE(blob_got) << blob_got.error().message;
  EXPECT_TRUE(*blob_got == bytes);

  auto listed = s3->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, key);
  EXPECT_EQ((*listed)[0].size, 14u);
  EXPECT_EQ((*listed)[1].key, blob_key);
  EXPECT_EQ((*listed)[1].size, bytes.size());

  ASSERT_OK(s3->remove(key));
  ASSERT_OK(s3->remove(blob_key));
  auto gone = s3->head(key);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().kind, Kind::kNotFound) << gone.error().message;
  listed = s3->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_TRUE(listed->empty());
}

TEST_F(S3TlsTest, SystemRootsDoNotVouchForTheTestCa) {
  expect_refused_certificate("");
}

TEST_F(S3TlsTest, AnotherCaInCaFileDoesNotVouchForTheServer) {
  expect_refused_certificate(kOtherCa);
}

TEST_F(S3TlsTest, PresignedGetOverHttpsNeedsOnlyTheCa) {
  auto s3 = make(kTestCa);
  ASSERT_NE(s3, nullptr);
  const std::string key = prefix_ + "presigned.bin";
  const std::string bytes = std::string("over tls\0and binary\xff", 20);
  ASSERT_OK(s3->put(key, bytes));
  auto url = s3->presign_get(key, 60s);
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_TRUE(url->starts_with(*endpoint_ + "/")) << *url;

  const HttpAnswer a = https_get(*url, kTestCa);
  ASSERT_EQ(a.rc, CURLE_OK) << a.error;
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.body, bytes);

  // The same URL to a holder that trusts another CA, or only the system's roots: refused
  // on the certificate, not answered.
  for (const std::string& ca : {kOtherCa, std::string()}) {
    const HttpAnswer refused = https_get(*url, ca);
    EXPECT_EQ(refused.rc, CURLE_PEER_FAILED_VERIFICATION) << "ca_file '" << ca << "': " << refused.error;
    EXPECT_TRUE(refused.body.empty());
  }
  ASSERT_OK(s3->remove(key));
}

}  // namespace
}  // namespace batlehub::adapters
