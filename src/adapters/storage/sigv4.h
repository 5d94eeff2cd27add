// AWS Signature Version 4 for S3, as pure functions: no clock, no I/O, no network.
//
// Written by hand over OpenSSL's SHA-256 and HMAC because nothing on Debian 12 does all of
// it: there is no aws-sdk-cpp package, and libcurl's CURLOPT_AWS_SIGV4 signs a request's
// Authorization header but cannot presign a query URL — which is what a sandbox without
// credentials is handed (RFC 0022 §5.2). Both entry points share one canonical request, so
// what the backend sends and what it presigns are signed the same way.
//
// The algorithm and its test suite are AWS's: "Signature Calculations for the Authorization
// Header" and "Authenticating Requests: Using Query Parameters" (tests/adapters/storage/
// sigv4_test.cc reproduces their published signatures).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace batlehub::adapters::sigv4 {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials; "" = none
};

// Name/value pairs, in any order: the canonical form sorts them.
using Pairs = std::vector<std::pair<std::string, std::string>>;

// The payload hash a request may carry when its body is not hashed (a streamed upload, and
// every presigned URL: the holder's body is unknown when the URL is made).
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
// S3 refuses a presigned URL valid for longer than seven days.
inline constexpr std::chrono::seconds kMaxPresignTtl{7 * 24 * 3600};

// AWS's URI encoding: A-Za-z0-9 - _ . ~ kept, every other byte %XX in upper-case hex; '/'
// kept too when `keep_slash` (an S3 object path, whose key is encoded exactly once).
std::string uri_encode(std::string_view s, bool keep_slash);
std::string sha256_hex(std::string_view bytes);
// "20130524T000000Z" (UTC, whole seconds).
std::string amz_date(std::chrono::system_clock::time_point t);

struct Request {
  std::string method;         // "GET", "PUT", …
  std::string canonical_uri;  // already encoded: "/", "/bucket/a%20key"
  Pairs query;                // raw names and values; encoded here
  // Raw names and values, `host` among them. x-amz-date, x-amz-content-sha256 and
  // x-amz-security-token are added by sign(); a presign signs only what is listed here.
  Pairs headers;
};

struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;  // lower-case hex
};

struct SignedRequest {
  Signature detail;
  // What to send on top of the request's own headers: x-amz-date, x-amz-content-sha256,
  // x-amz-security-token (when there is a session token), Authorization.
  Pairs headers;
};

// Signs `r` with an Authorization header. `payload_hash` is the body's hex SHA-256, or
// kUnsignedPayload.
SignedRequest sign(const Request& r, std::string_view payload_hash, const Credentials& c, std::string_view region,
                   std::chrono::system_clock::time_point now);

struct Presigned {
  Signature detail;
  // The whole query string, encoded and in canonical order, X-Amz-Signature last: the URL
  // is <scheme>://<host><canonical_uri>?<query>.
  std::string query;
};

// Presigns `r` for `expires` (1 s … kMaxPresignTtl; the caller checks). The payload is
// UNSIGNED-PAYLOAD; only the headers in `r.headers` are signed, and the holder must send
// exactly those values.
Presigned presign(const Request& r, std::chrono::seconds expires, const Credentials& c, std::string_view region,
                  std::chrono::system_clock::time_point now);

// A POST policy (S3's browser-based upload, "Creating a POST Policy" and "Calculating a
// Signature" of the S3 API reference): the form's fields, in the order they are sent, the
// file last. Unlike a presigned PUT, the policy can bound the upload's size
// (content-length-range), and S3 refuses a larger body itself.
struct PostPolicy {
  std::string bucket;
  std::string key;  // the whole object key, the backend's prefix included
  std::uint64_t max_bytes = 0;
};
// The fields: key, x-amz-algorithm, x-amz-credential, x-amz-date, x-amz-security-token (with
// a session token), policy (base64 of the JSON) and x-amz-signature (the policy's base64
// signed with the day's signing key), valid for `expires`.
Pairs post_form(const PostPolicy& p, std::chrono::seconds expires, const Credentials& c, std::string_view region,
                std::chrono::system_clock::time_point now);

}  // namespace batlehub::adapters::sigv4
