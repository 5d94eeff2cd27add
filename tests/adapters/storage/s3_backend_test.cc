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
// What versitygw 1.8.0 answers a request that carries an X-Amz-Security-Token it did not
// issue (any: it issues none), signed with the right keys: 400 InvalidToken ("The provided
// token is malformed or otherwise invalid."), to HEAD as to GET and PUT. So every test here
// that reaches it signs without a session token, and ASessionTokenIsSentAndSigned uses the
// refusal to show the token travels.
//
// The filesystem and in-memory backends are not tested here: they are not this backend.
#include "adapters/storage/s3_backend.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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
    env_ = test_s3_env();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    prefix_ = std::string(info->name()) + "-" + std::to_string(::getpid()) + "/";
    backend_ = make({});
    ASSERT_NE(backend_, nullptr);
  }

  std::unique_ptr<S3Backend> make(S3Options o) {
    auto b = S3Backend::create(config_, env_, std::move(o));
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error());
    return b ? std::move(*b) : nullptr;
  }

  std::string endpoint_;
  config::StorageBackendConfig config_;
  core::Env env_;
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
  const sigv4::Presigned p = sigv4::presign(req, 60s, {BATLEHUB_TEST_S3_ACCESS_KEY, BATLEHUB_TEST_S3_SECRET_KEY, ""},
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
  env_ =
      config::env_of({{"AWS_ACCESS_KEY_ID", BATLEHUB_TEST_S3_ACCESS_KEY}, {"AWS_SECRET_ACCESS_KEY", "not-the-secret"}});
  auto wrong = make({});
  auto r = wrong->put(prefix_ + "k", "x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kRefused) << r.error().message;
  EXPECT_NE(r.error().message.find("SignatureDoesNotMatch"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("not-the-secret"), std::string::npos) << r.error().message;
}

TEST_F(S3BackendTest, NoCredentialsIsAnErrorAtCreate) {
  auto none = S3Backend::create(config_, config::env_of({}));
  ASSERT_FALSE(none);
  EXPECT_TRUE(none.error().starts_with("storage backend 's3test': no AWS credentials: the environment: "))
      << none.error();
}

// The keys are asked for at every request and every presign, so that temporary ones are
// refreshed under a running worker.
TEST_F(S3BackendTest, TheProviderIsAskedAtEveryRequest) {
  struct Counting final : aws::CredentialsProvider {
    Expected<sigv4::Credentials, std::string> current() override {
      ++asked;
      if (fail) return Unexpected(std::string("the test's provider is down"));
      return sigv4::Credentials{BATLEHUB_TEST_S3_ACCESS_KEY, BATLEHUB_TEST_S3_SECRET_KEY, ""};
    }
    const std::string& source() const override { return name; }
    std::atomic<int> asked = 0;
    std::atomic<bool> fail = false;
    std::string name = "the test's provider";
  };
  auto provider = std::make_shared<Counting>();
  auto b = make({.credentials = provider});
  EXPECT_EQ(b->credentials_source(), "the test's provider");
  EXPECT_EQ(provider->asked, 0);  // create() sends nothing and signs nothing
  ASSERT_OK(b->put(prefix_ + "k", "v"));
  ASSERT_OK(b->get(prefix_ + "k", 10));
  ASSERT_TRUE(b->presign_get(prefix_ + "k", 60s));
  ASSERT_OK(b->check_bucket());
  EXPECT_EQ(provider->asked, 4);
  provider->fail = true;
  auto r = b->get(prefix_ + "k", 10);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "storage backend 's3test': GET '" + prefix_ + "k': no credentials: the test's provider is down");
  EXPECT_FALSE(b->presign_put(prefix_ + "k", 60s, 1));
}

TEST_F(S3BackendTest, ASessionTokenIsSentAndSigned) {
  // versitygw issued no token, so it refuses this one: proof the token reaches it, in the
  // header of a request and in the query of a presigned URL.
  env_ = test_s3_env({{"AWS_SESSION_TOKEN", "a-token-versitygw-never-issued"}});
  auto b = make({});
  auto r = b->put(prefix_ + "k", "x");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP 400 InvalidToken"), std::string::npos) << r.error().message;
  auto url = b->presign_get(prefix_ + "k", 60s);
  ASSERT_TRUE(url);
  EXPECT_NE(url->find("X-Amz-Security-Token=a-token-versitygw-never-issued&"), std::string::npos) << *url;
  EXPECT_EQ(http("GET", *url).status, 400);
  auto check = b->check_bucket();
  ASSERT_FALSE(check);
  EXPECT_NE(check.error().message.find("is not reachable: InvalidToken (HTTP 400)"), std::string::npos)
      << check.error().message;
}

TEST_F(S3BackendTest, ThePrefixIsPrependedVerbatimAndListedWithout) {
  config_.prefix = prefix_ + "batlehub";  // no '/' is added between it and a key
  auto prefixed = make({});
  // A key the port refuses is refused as it is, whatever the prefix would make of it.
  EXPECT_EQ(prefixed->put("/a", "1").error().kind, Kind::kBadKey);
  ASSERT_OK(prefixed->put("a/one", "1"));
  ASSERT_OK(prefixed->put("a/two", "2"));
  ASSERT_OK(prefixed->put("b", "3"));
  const PatternedFile file = patterned_file_blob(1000, "/tmp/batlehub-s3-prefix.XXXXXX");
  ASSERT_TRUE(file.blob) << file.error;
  ASSERT_OK(prefixed->put_blob("blob", *file.blob));

  // Where the objects are, seen from a backend without the prefix.
  auto listed = backend_->list(prefix_);
  ASSERT_TRUE(listed) << listed.error().message;
  std::vector<std::string> raw;
  for (const auto& o : *listed) raw.push_back(o.key);
  EXPECT_EQ(raw, (std::vector<std::string>{prefix_ + "batlehuba/one", prefix_ + "batlehuba/two", prefix_ + "batlehubb",
                                           prefix_ + "batlehubblob"}));

  // The caller sees its own keys.
  auto mine = prefixed->list("a/");
  ASSERT_TRUE(mine) << mine.error().message;
  ASSERT_EQ(mine->size(), 2u);
  EXPECT_EQ((*mine)[0].key, "a/one");
  EXPECT_EQ((*mine)[1].key, "a/two");
  auto all = prefixed->list("");
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->size(), 4u);
  EXPECT_EQ(*prefixed->get("a/two", 10), "2");
  EXPECT_EQ(prefixed->head("blob")->size, 1000u);
  EXPECT_EQ(prefixed->head("blob")->key, "blob");
  auto url = prefixed->presign_get("b", 60s);
  ASSERT_TRUE(url);
  EXPECT_NE(url->find("/" + config_.bucket + "/" + sigv4::uri_encode(prefix_ + "batlehubb", true) + "?"),
            std::string::npos)
      << *url;
  EXPECT_EQ(http("GET", *url).body, "3");
  auto put_url = prefixed->presign_put("c", 60s, 10);
  ASSERT_TRUE(put_url);
  EXPECT_EQ(http("PUT", *put_url, "4").status, 200);
  EXPECT_EQ(*backend_->get(prefix_ + "batlehubc", 10), "4");
  ASSERT_OK(prefixed->remove("b"));
  EXPECT_EQ(backend_->head(prefix_ + "batlehubb").error().kind, Kind::kNotFound);
  // The prefix counts toward S3's 1024 bytes.
  auto long_key = prefixed->put(std::string(1024 - config_.prefix.size() + 1, 'k'), "x");
  ASSERT_FALSE(long_key);
  EXPECT_EQ(long_key.error().kind, Kind::kBadKey);
}

TEST_F(S3BackendTest, CheckBucket) {
  ASSERT_OK(backend_->check_bucket());
  const std::string where = "storage backend 's3test' (" + endpoint_ + ", path-style): S3 bucket '";

  env_ =
      config::env_of({{"AWS_ACCESS_KEY_ID", BATLEHUB_TEST_S3_ACCESS_KEY}, {"AWS_SECRET_ACCESS_KEY", "not-the-secret"}});
  auto wrong = make({})->check_bucket();
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().kind, Kind::kRefused);
  EXPECT_EQ(wrong.error().message, where + config_.bucket + "' is not reachable: SignatureDoesNotMatch (HTTP 403)");

  // An access key id versitygw does not know: 404 to HEAD, and its own code to the GET that
  // asks why (AWS says 403 InvalidAccessKeyId).
  env_ = config::env_of({{"AWS_ACCESS_KEY_ID", "nobody"}, {"AWS_SECRET_ACCESS_KEY", "not-the-secret"}});
  auto unknown = make({})->check_bucket();
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, where + config_.bucket + "' is not reachable: XAdminUserNotFound (HTTP 404)");

  env_ = test_s3_env();
  config_.bucket = "no-such-bucket-" + std::to_string(::getpid());
  auto absent = make({})->check_bucket();
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().kind, Kind::kNotFound);
  EXPECT_EQ(absent.error().message, where + config_.bucket + "' is not reachable: NoSuchBucket (HTTP 404)");

  config_ = test_s3_config("http://127.0.0.1:" + std::to_string(free_loopback_port()));
  auto closed = make({})->check_bucket();
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().kind, Kind::kIo);
  EXPECT_NE(closed.error().message.find("' is not reachable: Couldn't connect to server"), std::string::npos)
      << closed.error().message;
}

// Not on the server: the shape of what create() accepts and the URL it makes.
TEST(S3BackendConfig, EndpointsAndAddressing) {
  config::StorageBackendConfig c;
  c.name = "s3";
  c.type = config::StorageType::kS3;
  c.bucket = "bkt";
  c.region = "eu-west-1";
  const core::Env env = config::env_of({{"AWS_ACCESS_KEY_ID", "AK"}, {"AWS_SECRET_ACCESS_KEY", "SK"}});
  for (const char* bad : {"s3.example.test", "ftp://s3.example.test", "https://", "https://h/path", "https://u@h"}) {
    c.endpoint_url = bad;
    auto r = S3Backend::create(c, env);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error(), "storage backend 's3': endpoint_url '" + std::string(bad) + "' is not http(s)://host[:port]");
  }
  // No endpoint_url: AWS's own, virtual-hosted unless forced.
  c.endpoint_url.clear();
  auto aws = S3Backend::create(c, env);
  ASSERT_TRUE(aws) << aws.error();
  EXPECT_EQ((*aws)->endpoint(), "https://s3.eu-west-1.amazonaws.com");
  EXPECT_TRUE((*aws)->presign_get("k", 60s)->starts_with("https://bkt.s3.eu-west-1.amazonaws.com/k?")) << "";
  EXPECT_NE((*aws)->presign_get("k", 60s)->find("%2Feu-west-1%2Fs3%2Faws4_request"), std::string::npos);
  c.force_path_style = true;
  EXPECT_TRUE(
      (*S3Backend::create(c, env))->presign_get("k", 60s)->starts_with("https://s3.eu-west-1.amazonaws.com/bkt/k?"));
  c.force_path_style = false;
  c.region = "EU West";
  EXPECT_FALSE(S3Backend::create(c, env));

  c.region = "us-east-1";
  c.endpoint_url = "https://s3.example.test:443/";
  auto vhost = S3Backend::create(c, env);
  ASSERT_TRUE(vhost) << vhost.error();
  auto url = (*vhost)->presign_get("dir/a b", 60s);
  ASSERT_TRUE(url);
  EXPECT_TRUE(url->starts_with("https://bkt.s3.example.test/dir/a%20b?X-Amz-Algorithm=AWS4-HMAC-SHA256&")) << *url;
  // Where the SDKs fall back to path-style themselves: an IP address, a dotted bucket.
  c.endpoint_url = "http://127.0.0.1:9000";
  EXPECT_TRUE((*S3Backend::create(c, env))->presign_get("k", 60s)->starts_with("http://127.0.0.1:9000/bkt/k?"));
  c.endpoint_url = "https://s3.example.test";
  c.bucket = "dotted.bucket";
  EXPECT_TRUE(
      (*S3Backend::create(c, env))->presign_get("k", 60s)->starts_with("https://s3.example.test/dotted.bucket/k?"));
  c.bucket = "bkt";
  c.force_path_style = true;
  c.endpoint_url = "http://s3.example.test:9000";
  auto path = S3Backend::create(c, env);
  ASSERT_TRUE(path) << path.error();
  EXPECT_TRUE((*path)->presign_put("k", 60s, 1)->starts_with("http://s3.example.test:9000/bkt/k?X-Amz-")) << "";
  c.prefix = "cache/";
  EXPECT_TRUE(
      (*S3Backend::create(c, env))->presign_put("k", 60s, 1)->starts_with("http://s3.example.test:9000/bkt/cache/k?"));
  c.prefix = "bad\nprefix";
  EXPECT_FALSE(S3Backend::create(c, env));
  c.prefix.clear();
  c.region.clear();
  EXPECT_EQ(S3Backend::create(c, env).error(),
            "storage backend 's3': no region (the signing region, e.g. \"us-east-1\")");
  c.region = "us-east-1";
  c.bucket.clear();
  EXPECT_FALSE(S3Backend::create(c, env));
}

}  // namespace
}  // namespace batlehub::adapters
