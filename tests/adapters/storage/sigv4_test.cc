// AWS's own SigV4 test suite for S3: the examples published in "Signature Calculations for
// the Authorization Header: Transferring Payload in a Single Chunk" and "Authenticating
// Requests: Using Query Parameters" (Amazon S3 API Reference), each reproduced to the
// published signature. The host names are strings only; nothing connects anywhere.
#include "adapters/storage/sigv4.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "wire/base64.h"

#include <chrono>
#include <ctime>

namespace batlehub::adapters::sigv4 {
namespace {

const Credentials kExample{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
constexpr std::string_view kHost = "examplebucket.s3.amazonaws.com";
constexpr std::string_view kEmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// 2013-05-24T00:00:00Z, the examples' instant.
std::chrono::system_clock::time_point example_time() {
  std::tm tm{};
  tm.tm_year = 2013 - 1900;
  tm.tm_mon = 4;
  tm.tm_mday = 24;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::string header(const SignedRequest& s, std::string_view name) {
  for (const auto& [n, v] : s.headers) {
    if (n == name) return v;
  }
  return "<absent>";
}

TEST(SigV4, AwsExampleGetObjectWithRange) {
  const Request r{"GET", "/test.txt", {}, {{"Host", std::string(kHost)}, {"Range", "bytes=0-9"}}};
  const SignedRequest s = sign(r, kEmptyHash, kExample, "us-east-1", example_time());
  EXPECT_EQ(s.detail.canonical_request,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.detail.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.detail.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(header(s, "Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(header(s, "x-amz-date"), "20130524T000000Z");
  EXPECT_EQ(header(s, "x-amz-content-sha256"), kEmptyHash);
  EXPECT_EQ(header(s, "x-amz-security-token"), "<absent>");
}

TEST(SigV4, AwsExamplePutObject) {
  const std::string body = "Welcome to Amazon S3.";
  ASSERT_EQ(sha256_hex(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  // The key "test$file.text", encoded once.
  const Request r{"PUT",
                  "/" + uri_encode("test$file.text", true),
                  {},
                  {{"Host", std::string(kHost)},
                   {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                   {"x-amz-storage-class", "REDUCED_REDUNDANCY"}}};
  EXPECT_EQ(r.canonical_uri, "/test%24file.text");
  const SignedRequest s = sign(r, sha256_hex(body), kExample, "us-east-1", example_time());
  EXPECT_EQ(s.detail.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(s.detail.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, AwsExampleGetBucketLifecycle) {
  const Request r{"GET", "/", {{"lifecycle", ""}}, {{"Host", std::string(kHost)}}};
  const SignedRequest s = sign(r, kEmptyHash, kExample, "us-east-1", example_time());
  EXPECT_NE(s.detail.canonical_request.find("GET\n/\nlifecycle=\n"), std::string::npos);
  EXPECT_EQ(s.detail.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4, AwsExampleListObjects) {
  // Given out of order: the canonical query sorts them.
  const Request r{"GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {{"Host", std::string(kHost)}}};
  const SignedRequest s = sign(r, kEmptyHash, kExample, "us-east-1", example_time());
  EXPECT_NE(s.detail.canonical_request.find("GET\n/\nmax-keys=2&prefix=J\n"), std::string::npos);
  EXPECT_EQ(s.detail.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, AwsExamplePresignedGet) {
  const Request r{"GET", "/test.txt", {}, {{"host", std::string(kHost)}}};
  const Presigned p = presign(r, std::chrono::seconds(86400), kExample, "us-east-1", example_time());
  EXPECT_EQ(p.detail.canonical_request,
            "GET\n/test.txt\n"
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2F"
            "aws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host\n"
            "host:examplebucket.s3.amazonaws.com\n\nhost\nUNSIGNED-PAYLOAD");
  EXPECT_EQ(p.detail.signature, "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  EXPECT_EQ(p.query,
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2F"
            "aws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&"
            "X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

// The POST policy's form: its fields in the order they are sent, and a policy that pins the
// bucket, the key and every field, bounds the body and expires. Its signature is proven by
// versitygw itself (S3BundleTest: a good form stores, a tampered or late one is refused).
TEST(SigV4, APostPolicyPinsEveryFieldAndBoundsTheBody) {
  const Credentials temporary{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "a-session-token"};
  const Pairs f = post_form(PostPolicy{"examplebucket", "cache/sandbox/j/yara/1/r/out.tar", 33554432},
                            std::chrono::seconds(660), temporary, "us-east-1", example_time());
  std::vector<std::string> names;
  for (const auto& [n, v] : f) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"key", "x-amz-algorithm", "x-amz-credential", "x-amz-date",
                                             "x-amz-security-token", "policy", "x-amz-signature"}));
  EXPECT_EQ(f[0].second, "cache/sandbox/j/yara/1/r/out.tar");
  EXPECT_EQ(f[2].second, "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request");
  EXPECT_EQ(f[3].second, "20130524T000000Z");
  EXPECT_EQ(f[6].second.size(), 64u);
  auto text = wire::base64_decode(f[5].second);
  ASSERT_TRUE(text);
  const auto policy = nlohmann::json::parse(*text);
  EXPECT_EQ(policy["expiration"], "2013-05-24T00:11:00Z");
  const auto& c = policy["conditions"];
  EXPECT_EQ(c[0], (nlohmann::json{{"bucket", "examplebucket"}}));
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(c[i + 1], (nlohmann::json{{f[i].first, f[i].second}})) << i;
  EXPECT_EQ(c[6], (nlohmann::json::array({"content-length-range", 0, 33554432})));
  EXPECT_EQ(c.size(), 7u);
  // Without a session token there is no such field, nor condition.
  const Pairs plain =
      post_form(PostPolicy{"b", "k", 1}, std::chrono::seconds(60), kExample, "eu-west-1", example_time());
  for (const auto& [n, v] : plain) EXPECT_NE(n, "x-amz-security-token");
}

// Not AWS's examples: what the backend relies on around them.

TEST(SigV4, SessionTokenIsSignedInTheHeaderAndInThePresignedQuery) {
  const Credentials c{kExample.access_key_id, kExample.secret_access_key, "token/with+chars="};
  const Request r{"GET", "/test.txt", {}, {{"host", std::string(kHost)}}};
  const SignedRequest s = sign(r, kEmptyHash, c, "us-east-1", example_time());
  EXPECT_EQ(header(s, "x-amz-security-token"), "token/with+chars=");
  EXPECT_NE(header(s, "Authorization").find("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"),
            std::string::npos);
  const Presigned p = presign(r, std::chrono::seconds(60), c, "us-east-1", example_time());
  EXPECT_NE(p.detail.canonical_request.find("&X-Amz-Security-Token=token%2Fwith%2Bchars%3D&"), std::string::npos);
  EXPECT_NE(p.query.find("X-Amz-Security-Token=token%2Fwith%2Bchars%3D"), std::string::npos);
  // The token changes what is signed.
  EXPECT_NE(p.detail.signature,
            presign(r, std::chrono::seconds(60), kExample, "us-east-1", example_time()).detail.signature);
}

TEST(SigV4, UriEncodingFollowsAwsRules) {
  EXPECT_EQ(uri_encode("AZaz09-_.~", false), "AZaz09-_.~");
  EXPECT_EQ(uri_encode("a b+c/d", false), "a%20b%2Bc%2Fd");
  EXPECT_EQ(uri_encode("a b+c/d", true), "a%20b%2Bc/d");
  EXPECT_EQ(uri_encode("\xc3\xa9*=&?%", true), "%C3%A9%2A%3D%26%3F%25");
}

TEST(SigV4, HeaderValuesAreTrimmedAndFoldedAndNamesLowered) {
  const Request r{"GET", "/", {}, {{"Host", std::string(kHost)}, {"X-Amz-Meta-A", "  one   two  "}}};
  const SignedRequest s = sign(r, kEmptyHash, kExample, "us-east-1", example_time());
  EXPECT_NE(s.detail.canonical_request.find("\nx-amz-meta-a:one two\n"), std::string::npos);
}

TEST(SigV4, AmzDate) {
  EXPECT_EQ(amz_date(example_time() + std::chrono::seconds(3661)), "20130524T010101Z");
}

}  // namespace
}  // namespace batlehub::adapters::sigv4
