// Where the S3 backend's keys come from: the AWS SDKs' default credential chain, as
// upstream's S3 client has it (upstream-storage-and-queue.md A.2: no credential is ever in
// the configuration file). In the SDKs' order:
//
//   1. the environment: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
//   2. the shared files: AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials) over
//      AWS_CONFIG_FILE (~/.aws/config), profile AWS_PROFILE (default "default"): static
//      keys, or role_arn + web_identity_token_file (then as 3);
//   3. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN, exchanged with STS
//      (AssumeRoleWithWebIdentity) for temporary keys, the token file re-read each time
//      (Kubernetes rotates it);
//   4. the container endpoint: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS) or
//      AWS_CONTAINER_CREDENTIALS_FULL_URI (EKS Pod Identity, and local https), with the
//      Authorization token of AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (re-read each time) or
//      AWS_CONTAINER_AUTHORIZATION_TOKEN.
//
// Instance metadata (IMDS, the SDKs' last link) is not in this build. The chain is resolved
// once, as the SDKs resolve it: the first link that applies (its variables are set, its file
// holds the profile) is the one used, and a link that applies but fails is an error naming
// it — the next link is never tried behind the operator's back. Temporary keys (3, 4) are
// cached and fetched again when they are within kRefreshWindow of their expiry.
//
// The environment is read only through core::Env (tests hand in a map); secrets are never
// put in a message (an access key id may be: it is not a secret, and it is what an
// operator looks up).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/storage/iso8601.h"
#include "adapters/storage/sigv4.h"
#include "base/expected.h"
#include "core/env.h"

namespace batlehub::adapters::aws {

using Clock = std::function<std::chrono::system_clock::time_point()>;

// Temporary keys are fetched again this long before they expire, as the SDKs do.
inline constexpr std::chrono::minutes kRefreshWindow{5};
// What STS or the container endpoint may answer; more is cut off while it is received.
inline constexpr std::size_t kMaxResponseBytes = 64 * 1024;
// A shared file, a token file: small, or not one.
inline constexpr std::uint64_t kMaxFileBytes = 1024 * 1024;

struct TimedCredentials {
  sigv4::Credentials keys;
  // When temporary keys stop working; nullopt for long-term keys.
  std::optional<std::chrono::system_clock::time_point> expiration;
};

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // The keys to sign with now. Thread-safe: the S3 backend asks from every thread that
  // makes a request.
  virtual Expected<sigv4::Credentials, std::string> current() = 0;
  // Which link, for messages: "the environment (AWS_ACCESS_KEY_ID AKIA…)", "web identity
  // (role …, token file …)".
  virtual const std::string& source() const = 0;
};

struct ChainOptions {
  Clock clock;  // system_clock::now when empty
  // One request to STS or the container endpoint, connecting included.
  std::chrono::seconds timeout{10};
  // Web identity's RoleSessionName when AWS_ROLE_SESSION_NAME (or the profile's
  // role_session_name) is unset; "" = "batlehub-worker-<pid>-<unix time>".
  std::string session_name;
};

// The chain resolved against `env`: the provider of the first link that applies, or why
// none did (each link and its reason) or why the one that applied failed.
Expected<std::shared_ptr<CredentialsProvider>, std::string> default_chain(const core::Env& env,
                                                                          ChainOptions options = {});

// Keys that never change (tests; the environment and shared-file links).
std::shared_ptr<CredentialsProvider> static_credentials(sigv4::Credentials keys, std::string source);

// Keys from `fetch`, cached until they are within kRefreshWindow of their expiration, then
// fetched again (under a lock: one fetch at a time). A failed refresh while the cached keys
// still work returns them, and the next call tries again; keys without an expiration are
// fetched once.
using Fetch = std::function<Expected<TimedCredentials, std::string>()>;
std::shared_ptr<CredentialsProvider> refreshing(Fetch fetch, std::string source, Clock clock = {});

// ---------------------------------------------------------------------------------------
// The pieces, as data, for the tests.

// One key of a profile and where it was written, for messages.
struct ProfileValue {
  std::string value;
  std::string file;
  int line = 0;
};
using Profile = std::map<std::string, ProfileValue, std::less<>>;  // key (lower case) → value
using ProfileSet = std::map<std::string, Profile, std::less<>>;    // profile name → keys

enum class ProfileFile { kCredentials, kConfig };

// One shared file's text merged into `into` (a key read later replaces one read before).
// The credentials file's sections are profile names; the config file's are `[default]` and
// `[profile <name>]` (other sections, `[sso-session …]`, `[services …]`, are not profiles).
// A malformed line is an error "<path>:<line>: …".
Expected<Ok, std::string> parse_profile_file(std::string_view text, const std::string& path, ProfileFile kind,
                                             ProfileSet& into);

// STS's endpoint for web identity: AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL, else the
// regional endpoint of AWS_REGION, AWS_DEFAULT_REGION or us-east-1.
std::string sts_endpoint(const core::Env& env);

// The container endpoint's URL: nullopt when neither variable is set; an error when
// FULL_URI is a URL the SDKs refuse (plain http to a host other than loopback,
// 169.254.170.2 or 169.254.170.23).
Expected<std::optional<std::string>, std::string> container_credentials_url(const core::Env& env);

// AssumeRoleWithWebIdentity's answer: <Credentials>' AccessKeyId, SecretAccessKey and
// Expiration (required) and SessionToken (STS always sends one; taken as "" when absent, as
// the tests' stand-in answers for versitygw). An <ErrorResponse> is an error
// "<Code>: <Message>".
Expected<TimedCredentials, std::string> parse_sts_response(std::string_view xml);

// The container endpoint's answer: {AccessKeyId, SecretAccessKey, Token, Expiration}, Token
// optional as SessionToken is; {"code", "message"} is an error "<code>: <message>".
Expected<TimedCredentials, std::string> parse_container_response(std::string_view json);

// "2026-12-04T10:00:00Z", with or without a fraction, or with a "+hh:mm" offset.
using adapters::parse_iso8601;

}  // namespace batlehub::adapters::aws
