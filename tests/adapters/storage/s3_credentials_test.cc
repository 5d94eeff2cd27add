// The S3 backend against versitygw (the fixture "s3") with its keys from each link of the
// AWS default credential chain: the environment, a shared credentials file, web identity
// and the container endpoint — the last two through their stand-in on loopback
// (tests/scripts/aws-credentials-peer.py), which hands out versitygw's keys. For each: a
// put, a get, a presigned GET and check_bucket work; a wrong secret, an absent bucket and an
// endpoint nobody listens on each fail check_bucket with their own reason.
//
// The stand-in sends no session token: versitygw 1.8.0 refuses every request that carries
// one it did not issue (400 InvalidToken; s3_backend_test.cc shows it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "adapters/storage/s3_backend.h"
#include "aws_links.h"
#include "s3_peer.h"
#include "scratch.h"

namespace batlehub::adapters {
namespace {

using namespace std::chrono_literals;
using namespace batlehub::testing;
using Kind = core::StorageError::Kind;

class S3CredentialsTest : public ::testing::TestWithParam<AwsLink> {
 protected:
  void SetUp() override {
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    endpoint_ = env_or("BATLEHUB_TEST_S3_ENDPOINT");
    ASSERT_FALSE(endpoint_.empty()) << "BATLEHUB_TEST_S3_ENDPOINT is unset: run under ctest (fixture s3)";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '-');
    prefix_ = name + "-" + std::to_string(::getpid()) + "/";
  }

  // A backend on `c` whose keys GetParam()'s link gives, with `secret`.
  std::unique_ptr<S3Backend> make(const config::StorageBackendConfig& c, const std::string& secret) {
    link_ = aws_link_setup(GetParam(), secret, s_.root());
    EXPECT_EQ(link_.error, "");
    auto b = S3Backend::create(c, config::env_of(link_.vars));
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error());
    return b ? std::move(*b) : nullptr;
  }

  std::string where(const std::string& endpoint, const std::string& bucket) const {
    return "storage backend 's3test' (" + endpoint + ", path-style): S3 bucket '" + bucket + "' is not reachable: ";
  }

  Scratch s_;
  AwsLinkSetup link_;
  std::string endpoint_;
  std::string prefix_;
};

TEST_P(S3CredentialsTest, TheKeysOfTheLinkWork) {
  auto b = make(test_s3_config(endpoint_), BATLEHUB_TEST_S3_SECRET_KEY);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->credentials_source().starts_with(aws_link_source(GetParam()))) << b->credentials_source();
  ASSERT_OK(b->check_bucket());
  ASSERT_OK(b->put(prefix_ + "k", "through the chain"));
  auto got = b->get(prefix_ + "k", 100);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, "through the chain");
  auto url = b->presign_get(prefix_ + "k", 60s);
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(http("GET", *url).body, "through the chain");
  ASSERT_OK(b->remove(prefix_ + "k"));
  if (link_.peer) {
    // Asked once, and cached: the peer's keys live an hour.
    const std::string stats = link_.peer->stats();
    EXPECT_NE(stats.find(GetParam() == AwsLink::kWebIdentity ? "\"sts\": 1," : "\"container\": 1,"), std::string::npos)
        << stats;
  }
}

TEST_P(S3CredentialsTest, AWrongSecretFailsCheckBucket) {
  auto b = make(test_s3_config(endpoint_), "not-the-secret");
  ASSERT_NE(b, nullptr);
  auto r = b->check_bucket();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kRefused);
  EXPECT_EQ(r.error().message, where(endpoint_, BATLEHUB_TEST_S3_BUCKET) + "SignatureDoesNotMatch (HTTP 403)");
}

TEST_P(S3CredentialsTest, AnAbsentBucketFailsCheckBucket) {
  config::StorageBackendConfig c = test_s3_config(endpoint_);
  c.bucket = "absent-" + std::to_string(::getpid());
  auto b = make(c, BATLEHUB_TEST_S3_SECRET_KEY);
  ASSERT_NE(b, nullptr);
  auto r = b->check_bucket();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kNotFound);
  EXPECT_EQ(r.error().message, where(endpoint_, c.bucket) + "NoSuchBucket (HTTP 404)");
}

TEST_P(S3CredentialsTest, AnEndpointNobodyListensOnFailsCheckBucket) {
  const std::string closed = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  auto b = make(test_s3_config(closed), BATLEHUB_TEST_S3_SECRET_KEY);
  ASSERT_NE(b, nullptr);
  auto r = b->check_bucket();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kIo);
  EXPECT_TRUE(r.error().message.starts_with(where(closed, BATLEHUB_TEST_S3_BUCKET) + "Couldn't connect to server"))
      << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(Links, S3CredentialsTest,
                         ::testing::Values(AwsLink::kEnvironment, AwsLink::kSharedFile, AwsLink::kWebIdentity,
                                           AwsLink::kContainer),
                         [](const auto& i) { return aws_link_name(i.param); });

// A link that applies and cannot give keys fails check_bucket with its own reason, the
// link named.
TEST(S3CredentialsFailure, AWebIdentityStsRefusesIsTheReason) {
  if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string endpoint = env_or("BATLEHUB_TEST_S3_ENDPOINT");
  ASSERT_FALSE(endpoint.empty()) << "BATLEHUB_TEST_S3_ENDPOINT is unset: run under ctest (fixture s3)";
  Scratch s;
  Scratch::write(s.root() / "expected", "the-token-sts-wants");
  Scratch::write(s.root() / "token", "an-expired-token");
  AwsCredentialsPeer peer({"--access-key", BATLEHUB_TEST_S3_ACCESS_KEY, "--secret-key", BATLEHUB_TEST_S3_SECRET_KEY,
                           "--web-identity-token-file", (s.root() / "expected").string()});
  ASSERT_EQ(peer.error(), "");
  auto b = S3Backend::create(test_s3_config(endpoint),
                             config::env_of({{"AWS_WEB_IDENTITY_TOKEN_FILE", (s.root() / "token").string()},
                                             {"AWS_ROLE_ARN", "arn:aws:iam::000000000000:role/batlehub-worker"},
                                             {"AWS_ENDPOINT_URL_STS", peer.url()}}));
  ASSERT_TRUE(b) << b.error();
  auto r = (*b)->check_bucket();
  ASSERT_FALSE(r);
  EXPECT_TRUE(
      r.error().message.starts_with("storage backend 's3test' (" + endpoint +
                                    ", path-style): S3 bucket 'batlehub-test' is not reachable: no credentials: "
                                    "web identity (role arn:aws:iam::000000000000:role/batlehub-worker"))
      << r.error().message;
  EXPECT_NE(r.error().message.find("HTTP 400 InvalidIdentityToken"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("an-expired-token"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace batlehub::adapters
