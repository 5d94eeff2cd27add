// The S3 backend against a real S3 server: versitygw 1.8.0 on 127.0.0.1, started by the
// fixture "s3" (tests/s3_fixture.cmake, scripts/s3-peer.sh). Every test works under a key
// prefix of its own, so that the tests share the bucket and may run side by side.
//
// What versitygw answers, as these tests assert it:
//   - a presigned URL whose signature has one hex digit flipped: 403 SignatureDoesNotMatch;
//   - a presigned URL used for another key than it was made for: 403 SignatureDoesNotMatch;
//   - a presigned URL past its X-Amz-Expires: 403 AccessDenied ("Request has expired");
//   - a presigned PUT (signed headers: host) with a body longer than presign_put's
//     max_bytes: 200, stored whole. Nothing in such a URL bounds the length (s3_backend.h
//     says why), so the worker's HEAD of the result is the defence, as the RFC has it;
//   - a URL that does sign content-length (the exact length, the only kind a query presign
//     can carry): another length is 403 SignatureDoesNotMatch, the signed one 200.
//
// The filesystem and in-memory backends are not tested here: they are not this backend.
#include "adapters/storage/s3_backend.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "adapters/sandbox/blob.h"
#include "adapters/storage/s3_xml.h"
#include "adapters/storage/sigv4.h"
#include "s3_peer.h"

namespace batlehub::adapters {
namespace {

using core::StorageError;
using Kind = core::StorageError::Kind;
using namespace std::chrono_literals;
using namespace batlehub::testing;

class S3BackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    endpoint_ = env_or("BATLEHUB_TEST_S3_ENDPOINT");
    ASSERT_FALSE(endpoint_.empty()) << "BATLEHUB_TEST_S3_ENDPOINT is unset: run under ctest (fixture s3)";
    config_ = test_s3_config(endpoint_);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    prefix_ = std::string(info->name()) + "-" + std::to_string(::getpid()) + "/";
    backend_ = make({});
    ASSERT_NE(backend_, nullptr);
  }

  std::unique_ptr<S3Backend> make(S3Options o) {
    auto b = S3Backend::create(config_, core::Env{}, std::move(o));
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error());
    return b ? std::move(*b) : nullptr;
  }

  std::string endpoint_;
  config::StorageBackendConfig config_;
  std::string prefix_;
  std::unique_ptr<S3Backend> backend_;
};

TEST_F(S3BackendTest, PutGetHeadListRemove) {
  const std::string key = prefix_ + "a/object.bin";
  const auto before = std::chrono::system_clock::now() - 5s;
  ASSERT_OK(backend_->put(key, "hello, bucket"));
  auto got = backend_->get(key, 1024);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, "hello, bucket");

  auto info = backend_->head(key);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->key, key);
  EXPECT_EQ(info->size, 13u);
  EXPECT_GE(info->last_modified, before);
  EXPECT_LE(info->last_modified, std::chrono::system_clock::now() + 5s);

  auto listed = backend_->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, key);
  EXPECT_EQ((*listed)[0].size, 13u);
  EXPECT_GE((*listed)[0].last_modified, before);

  ASSERT_OK(backend_->remove(key));
  auto gone = backend_->head(key);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().kind, Kind::kNotFound) << gone.error().message;
  // Removing what is not there is not an error.
  ASSERT_OK(backend_->remove(key));
  listed = backend_->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_TRUE(listed->empty());
}

TEST_F(S3BackendTest, ListFollowsContinuationTokens) {
  auto small_pages = make({.max_keys = 2});
  std::vector<std::string> keys;
  for (int i = 0; i < 7; ++i) keys.push_back(prefix_ + "k" + std::to_string(i));
  for (const auto& k : keys) ASSERT_OK(small_pages->put(k, k));
  ASSERT_OK(small_pages->put(prefix_.substr(0, prefix_.size() - 1) + "-outside", "x"));

  auto listed = small_pages->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  std::vector<std::string> got;
  for (const auto& o : *listed) got.push_back(o.key);
  EXPECT_EQ(got, keys);
  ASSERT_OK(small_pages->remove(prefix_.substr(0, prefix_.size() - 1) + "-outside"));
}

TEST_F(S3BackendTest, GetOverMaxBytesIsTooLarge) {
  const std::string key = prefix_ + "hundred";
  ASSERT_OK(backend_->put(key, std::string(100, 'x')));
  auto over = backend_->get(key, 99);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, Kind::kTooLarge) << over.error().message;
  auto exact = backend_->get(key, 100);
  ASSERT_TRUE(exact) << exact.error().message;
  EXPECT_EQ(exact->size(), 100u);
}

TEST_F(S3BackendTest, MissingKeysAreNotFound) {
  auto h = backend_->head(prefix_ + "nothing");
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().kind, Kind::kNotFound) << h.error().message;
  auto g = backend_->get(prefix_ + "nothing", 10);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind, Kind::kNotFound) << g.error().message;
  EXPECT_NE(g.error().message.find("NoSuchKey"), std::string::npos) << g.error().message;
}

TEST_F(S3BackendTest, KeysThatNeedEncodingRoundTrip) {
  const std::vector<std::string> keys = {
      prefix_ + "with space/and+plus=eq&amp?q%pct~tilde",
      prefix_ + "unicode/\xc3\xa9t\xc3\xa9 \xf0\x9f\x93\xa6.tgz",
      prefix_ + "punct/!$'()*,;:@[]",
  };
  for (const auto& k : keys) {
    ASSERT_OK(backend_->put(k, "v:" + k));
    auto got = backend_->get(k, 4096);
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(*got, "v:" + k);
    auto url = backend_->presign_get(k, 60s);
    ASSERT_TRUE(url) << url.error().message;
    const HttpAnswer a = http("GET", *url);
    EXPECT_EQ(a.status, 200) << k << ": " << a.body;
    EXPECT_EQ(a.body, "v:" + k);
  }
  auto listed = backend_->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  std::vector<std::string> got;
  for (const auto& o : *listed) got.push_back(o.key);
  std::vector<std::string> want = keys;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST_F(S3BackendTest, PutBlobStreamsAMultiMiBFile) {
  const PatternedFile file = patterned_file_blob(5 * 1024 * 1024 + 123, "/tmp/batlehub-s3-blob.XXXXXX");
  ASSERT_TRUE(file.blob) << file.error;
  const std::string& bytes = file.bytes;

  const std::string key = prefix_ + "artifact.tgz";
  ASSERT_OK(backend_->put_blob(key, *file.blob));
  auto info = backend_->head(key);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->size, bytes.size());
  auto got = backend_->get(key, bytes.size());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(*got == bytes);
}

TEST_F(S3BackendTest, PutBlobOfAShortBlobFails) {
  // A blob that says 10 bytes and gives 3: the upload is cut, never stored as complete.
  class Short final : public core::Blob {
   public:
    std::uint64_t size() const override { return 10; }
    Expected<Ok, std::string> copy_to(int fd) const override {
      if (::write(fd, "abc", 3) != 3) return Unexpected(std::string("write"));
      return Ok{};
    }
    std::string describe() const override { return "short blob"; }
  } blob;
  auto r = backend_->put_blob(prefix_ + "short", blob);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kIo) << r.error().message;
  EXPECT_FALSE(backend_->head(prefix_ + "short"));
}

TEST_F(S3BackendTest, PresignedGetNeedsNoCredentials) {
  const std::string key = prefix_ + "bundle.tar";
  ASSERT_OK(backend_->put(key, "the bundle"));
  auto url = backend_->presign_get(key, 60s);
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_TRUE(url->starts_with(endpoint_ + "/")) << *url;
  EXPECT_NE(url->find("X-Amz-SignedHeaders=host&"), std::string::npos) << *url;
  const HttpAnswer a = http("GET", *url);
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.body, "the bundle");
  // The same URL does not PUT.
  EXPECT_EQ(http("PUT", *url, "overwritten").status, 403);
  EXPECT_EQ(*backend_->get(key, 100), "the bundle");
}

TEST_F(S3BackendTest, PresignedPutStoresTheBody) {
  const std::string key = prefix_ + "out.tar";
  auto url = backend_->presign_put(key, 60s, 1024);
  ASSERT_TRUE(url) << url.error().message;
  const HttpAnswer a = http("PUT", *url, "results");
  EXPECT_EQ(a.status, 200) << a.body;
  auto got = backend_->get(key, 1024);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, "results");
}

TEST_F(S3BackendTest, TamperedSignatureIsRefused) {
  const std::string key = prefix_ + "bundle.tar";
  ASSERT_OK(backend_->put(key, "the bundle"));
  auto url = backend_->presign_get(key, 60s);
  ASSERT_TRUE(url) << url.error().message;
  std::string tampered = *url;
  char& last = tampered.back();  // X-Amz-Signature's last hex digit
  last = last == '0' ? '1' : '0';
  const HttpAnswer a = http("GET", tampered);
  EXPECT_EQ(a.status, 403);
  EXPECT_EQ(s3::parse_error_code(a.body), "SignatureDoesNotMatch") << a.body;
}

TEST_F(S3BackendTest, ExpiredUrlIsRefused) {
  const std::string key = prefix_ + "bundle.tar";
  ASSERT_OK(backend_->put(key, "the bundle"));
  // Signed an hour ago for a minute: long expired, without waiting.
  auto past = make({.clock = [] { return std::chrono::system_clock::now() - 1h; }});
  auto url = past->presign_get(key, 60s);
  ASSERT_TRUE(url) << url.error().message;
  const HttpAnswer a = http("GET", *url);
  EXPECT_EQ(a.status, 403);
  EXPECT_EQ(s3::parse_error_code(a.body), "AccessDenied") << a.body;
  // And one that lives one second, used after two.
  auto brief = backend_->presign_get(key, 1s);
  ASSERT_TRUE(brief) << brief.error().message;
  std::this_thread::sleep_for(2100ms);
  EXPECT_EQ(http("GET", *brief).status, 403);
}

TEST_F(S3BackendTest, UrlForAnotherKeyIsRefused) {
  ASSERT_OK(backend_->put(prefix_ + "mine", "mine"));
  ASSERT_OK(backend_->put(prefix_ + "yours", "yours"));
  auto url = backend_->presign_get(prefix_ + "mine", 60s);
  ASSERT_TRUE(url) << url.error().message;
  const std::size_t at = url->find("/mine?");
  ASSERT_NE(at, std::string::npos) << *url;
  const std::string other = url->substr(0, at) + "/yours" + url->substr(at + 5);
  const HttpAnswer a = http("GET", other);
  EXPECT_EQ(a.status, 403);
  EXPECT_EQ(s3::parse_error_code(a.body), "SignatureDoesNotMatch") << a.body;
}

TEST_F(S3BackendTest, PresignedPutLongerThanMaxBytesIsStoredAndHeadShowsIt) {
  // What versitygw does (and S3 would): the URL signs `host` only, so the length is free.
  const std::string key = prefix_ + "out.tar";
  auto url = backend_->presign_put(key, 60s, 10);
  ASSERT_TRUE(url) << url.error().message;
  const HttpAnswer a = http("PUT", *url, std::string(11, 'y'));
  EXPECT_EQ(a.status, 200) << a.body;
  // The worker's defence: HEAD, then refuse what is above the ceiling.
  auto info = backend_->head(key);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->size, 11u);
  EXPECT_GT(info->size, 10u);
}

TEST_F(S3BackendTest, ASignedContentLengthIsExact) {
  // A query presign signing content-length, made by hand with sigv4.h: the bound it gives
  // is an exact length, which is why presign_put cannot use it for out.tar.
  const std::string host = endpoint_.substr(endpoint_.find("://") + 3);
  const std::string uri = "/" + config_.bucket + "/" + sigv4::uri_encode(prefix_ + "exact", true);
  const sigv4::Request req{"PUT", uri, {}, {{"host", host}, {"content-length", "10"}}};
  const sigv4::Presigned p = sigv4::presign(req, 60s, {config_.access_key_id, config_.secret_access_key, ""},
                                            "us-east-1", std::chrono::system_clock::now());
  const std::string url = endpoint_ + uri + "?" + p.query;
  const HttpAnswer longer = http("PUT", url, std::string(11, 'z'));
  EXPECT_EQ(longer.status, 403);
  EXPECT_EQ(s3::parse_error_code(longer.body), "SignatureDoesNotMatch") << longer.body;
  const HttpAnswer shorter = http("PUT", url, std::string(9, 'z'));
  EXPECT_EQ(shorter.status, 403) << shorter.body;
  const HttpAnswer exact = http("PUT", url, std::string(10, 'z'));
  EXPECT_EQ(exact.status, 200) << exact.body;
}

TEST_F(S3BackendTest, TtlIsBoundedBySevenDays) {
  ASSERT_TRUE(backend_->presign_get(prefix_ + "k", 7 * 24h));
  auto over = backend_->presign_get(prefix_ + "k", 7 * 24h + 1s);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, Kind::kUnsupported);
  auto zero = backend_->presign_put(prefix_ + "k", 0s, 10);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().kind, Kind::kUnsupported);
}

TEST_F(S3BackendTest, BadKeysAreRefusedBeforeAnyRequest) {
  for (const std::string& k : std::vector<std::string>{"", "/abs", "a/../b", "a//b", std::string("nul\0x", 5)}) {
    auto r = backend_->put(k, "x");
    ASSERT_FALSE(r) << k;
    EXPECT_EQ(r.error().kind, Kind::kBadKey);
    EXPECT_EQ(backend_->presign_get(k, 60s).error().kind, Kind::kBadKey);
  }
}

TEST_F(S3BackendTest, WrongSecretIsRefused) {
  config_.secret_access_key = "not-the-secret";
  auto wrong = make({});
  auto r = wrong->put(prefix_ + "k", "x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kRefused) << r.error().message;
  EXPECT_NE(r.error().message.find("SignatureDoesNotMatch"), std::string::npos) << r.error().message;
}

TEST_F(S3BackendTest, CredentialsFromTheEnvironment) {
  const std::map<std::string, std::string, std::less<>> vars = {{"AWS_ACCESS_KEY_ID", config_.access_key_id},
                                                                {"AWS_SECRET_ACCESS_KEY", config_.secret_access_key}};
  const core::Env env = [&](std::string_view n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  config_.access_key_id.clear();
  config_.secret_access_key.clear();
  auto b = S3Backend::create(config_, env);
  ASSERT_TRUE(b) << b.error();
  ASSERT_OK((*b)->put(prefix_ + "k", "from env"));
  EXPECT_EQ(*(*b)->get(prefix_ + "k", 100), "from env");

  auto none = S3Backend::create(config_, core::Env{});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("no credentials"), std::string::npos) << none.error();
}

// Not on the server: the shape of what create() accepts and what a virtual-host URL is.
TEST(S3BackendConfig, EndpointsAndAddressing) {
  config::StorageBackendConfig c;
  c.name = "s3";
  c.type = config::StorageType::kS3;
  c.bucket = "bkt";
  c.access_key_id = "AK";
  c.secret_access_key = "SK";
  for (const char* bad : {"s3.example.test", "ftp://s3.example.test", "https://", "https://h/path", "https://u@h"}) {
    c.endpoint = bad;
    EXPECT_FALSE(S3Backend::create(c, core::Env{})) << bad;
  }
  c.endpoint = "https://s3.example.test:443/";
  c.path_style = false;
  auto vhost = S3Backend::create(c, core::Env{});
  ASSERT_TRUE(vhost) << vhost.error();
  auto url = (*vhost)->presign_get("dir/a b", 60s);
  ASSERT_TRUE(url);
  EXPECT_TRUE(url->starts_with("https://bkt.s3.example.test/dir/a%20b?X-Amz-Algorithm=AWS4-HMAC-SHA256&")) << *url;
  c.path_style = true;
  c.endpoint = "http://s3.example.test:9000";
  auto path = S3Backend::create(c, core::Env{});
  ASSERT_TRUE(path) << path.error();
  EXPECT_TRUE((*path)->presign_put("k", 60s, 1)->starts_with("http://s3.example.test:9000/bkt/k?X-Amz-")) << "";
  c.bucket.clear();
  EXPECT_FALSE(S3Backend::create(c, core::Env{}));
}

}  // namespace
}  // namespace batlehub::adapters
