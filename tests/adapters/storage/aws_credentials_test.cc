// The AWS default credential chain (src/adapters/storage/aws_credentials.h): each link as
// data — the environment, shared files with profiles (and malformed ones), the order of the
// links, the container URL rules, STS's and the container endpoint's answers — the refresh
// timing on a fake clock, and web identity and the container endpoint against a stand-in of
// their own on loopback (tests/scripts/aws-credentials-peer.py). No test contacts anything
// but 127.0.0.1: the container's link-local addresses are only ever parsed.
#include "adapters/storage/aws_credentials.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "aws_peer.h"
#include "config/config.h"
#include "scratch.h"

namespace batlehub::adapters::aws {
namespace {

using namespace std::chrono_literals;
using batlehub::testing::AwsCredentialsPeer;
using batlehub::testing::Scratch;
namespace fs = std::filesystem;
using Vars = std::map<std::string, std::string, std::less<>>;
using TimePoint = std::chrono::system_clock::time_point;

constexpr const char* kAk = "AKIAPEER";
constexpr const char* kSk = "peer-secret-never-shown";

// The chain's answer as its source, or its error; "" for what is not.
std::string source_of(const Expected<std::shared_ptr<CredentialsProvider>, std::string>& r) {
  return r ? (*r)->source() : "";
}
std::string error_of(const Expected<std::shared_ptr<CredentialsProvider>, std::string>& r) {
  return r ? "" : r.error();
}

ProfileSet parse(std::string_view text, ProfileFile kind, const std::string& path = "/f") {
  ProfileSet set;
  auto ok = parse_profile_file(text, path, kind, set);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error());
  return set;
}

std::string parse_error(std::string_view text, ProfileFile kind = ProfileFile::kCredentials) {
  ProfileSet set;
  auto ok = parse_profile_file(text, "/home/w/.aws/credentials", kind, set);
  return ok ? "" : ok.error();
}

// ---------------------------------------------------------------------------------------
// The shared files' grammar.

TEST(AwsProfileFiles, CredentialsFileSectionsAreProfileNames) {
  const ProfileSet set = parse(
      "# a comment\n"
      "; another\n"
      "[default]\n"
      "aws_access_key_id = AKIADEFAULT\n"
      "AWS_Secret_Access_Key=s3cr3t#not-a-comment  ; a comment\n"
      "\n"
      "[ dev ]   # trailing comment\r\n"
      "aws_access_key_id =  AKIADEV  \r\n",
      ProfileFile::kCredentials, "/c");
  ASSERT_EQ(set.size(), 2u);
  const Profile& d = set.at("default");
  EXPECT_EQ(d.at("aws_access_key_id").value, "AKIADEFAULT");
  EXPECT_EQ(d.at("aws_access_key_id").file, "/c");
  EXPECT_EQ(d.at("aws_access_key_id").line, 4);
  // Keys are case-insensitive; a '#' glued to a value is the value's, one after a blank is not.
  EXPECT_EQ(d.at("aws_secret_access_key").value, "s3cr3t#not-a-comment");
  EXPECT_EQ(set.at("dev").at("aws_access_key_id").value, "AKIADEV");
}

TEST(AwsProfileFiles, ConfigFileProfilesAreDefaultAndProfileNamed) {
  const ProfileSet set = parse(
      "[default]\nregion = eu-west-1\n"
      "[profile dev]\naws_access_key_id = AKIADEV\n"
      "[profile   spaced ]\nregion = us-east-2\n"
      "[sso-session corp]\nsso_start_url = https://corp.example.test/start\n"
      "[services local]\ns3 =\n  endpoint_url = http://127.0.0.1:9000\n"
      "[plain]\naws_access_key_id = NOT-A-PROFILE\n",
      ProfileFile::kConfig);
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(set.at("default").at("region").value, "eu-west-1");
  EXPECT_EQ(set.at("dev").at("aws_access_key_id").value, "AKIADEV");
  EXPECT_EQ(set.at("spaced").at("region").value, "us-east-2");
  EXPECT_FALSE(set.contains("plain"));
  EXPECT_FALSE(set.contains("corp"));
}

TEST(AwsProfileFiles, IndentedLinesContinueTheProperty) {
  const ProfileSet set =
      parse("[profile p]\ns3 =\n  max_concurrent_requests = 10\n  addressing_style = path\n", ProfileFile::kConfig);
  EXPECT_EQ(set.at("p").at("s3").value, "\nmax_concurrent_requests = 10\naddressing_style = path");
}

TEST(AwsProfileFiles, LaterKeysReplaceEarlierOnes) {
  ProfileSet set;
  ASSERT_TRUE(
      parse_profile_file("[default]\naws_access_key_id = A\nregion = r1\n", "/config", ProfileFile::kConfig, set));
  ASSERT_TRUE(parse_profile_file("[default]\naws_access_key_id = B\n", "/credentials", ProfileFile::kCredentials, set));
  EXPECT_EQ(set.at("default").at("aws_access_key_id").value, "B");
  EXPECT_EQ(set.at("default").at("aws_access_key_id").file, "/credentials");
  EXPECT_EQ(set.at("default").at("region").value, "r1");
}

TEST(AwsProfileFiles, MalformedLinesNameTheFileAndLine) {
  const std::string f = "/home/w/.aws/credentials:";
  EXPECT_EQ(parse_error("aws_access_key_id = A\n"), f + "1: a property before any [section]");
  EXPECT_EQ(parse_error("# c\n[default\n"), f + "2: a section header without ']'");
  EXPECT_EQ(parse_error("[default]\naws_access_key_id\n"), f + "2: expected 'key = value'");
  EXPECT_EQ(parse_error("[default]\n = v\n"), f + "2: an indented line with no property above it to continue");
  EXPECT_EQ(parse_error("[default]\n\n= v\n"), f + "3: a property without a name");
  EXPECT_EQ(parse_error("  x = 1\n"), f + "1: an indented line before any [section]");
  EXPECT_EQ(parse_error("[default] junk\n"), f + "1: 'junk' after a section header");
  EXPECT_EQ(parse_error("[ ]\n"), f + "1: a section without a name");
  EXPECT_EQ(parse_error("[profile]\n", ProfileFile::kConfig), f + "1: [profile] without a profile name");
}

// ---------------------------------------------------------------------------------------
// The chain: which link, in which order, and what it says when none applies.

class AwsChain : public ::testing::Test {
 protected:
  // HOME of its own, so that the real ~/.aws never takes part.
  Vars vars() const { return {{"HOME", home().string()}}; }
  fs::path home() const { return s_.root() / "home"; }
  void write(const fs::path& p, std::string_view text) const { Scratch::write(p, text); }
  Expected<std::shared_ptr<CredentialsProvider>, std::string> chain(const Vars& v, ChainOptions o = {}) const {
    return default_chain(config::env_of(v), std::move(o));
  }

  Scratch s_;
};

TEST_F(AwsChain, NothingSetNamesEveryLinkAndSaysImdsIsNotInThisBuild) {
  auto r = chain(vars());
  ASSERT_FALSE(r);
  const std::string h = home().string();
  EXPECT_EQ(r.error(),
            "no AWS credentials: the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are unset; the shared "
            "files: " +
                h + "/.aws/credentials and " + h +
                "/.aws/config do not exist; web identity: AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are unset; the "
                "container endpoint: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and AWS_CONTAINER_CREDENTIALS_FULL_URI "
                "are unset; instance metadata (IMDS): not in this build");
  auto bare = chain({});
  ASSERT_FALSE(bare);
  EXPECT_NE(bare.error().find("the shared files: HOME, AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE are unset"),
            std::string::npos)
      << bare.error();
  // Empty values are unset ones, as in the SDKs.
  auto empty = chain({{"AWS_ACCESS_KEY_ID", ""}, {"AWS_SECRET_ACCESS_KEY", ""}});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are unset"), std::string::npos);
}

TEST_F(AwsChain, TheEnvironmentComesFirst) {
  write(home() / ".aws/credentials", "[default]\naws_access_key_id = FROMFILE\naws_secret_access_key = f\n");
  Vars v = vars();
  v["AWS_ACCESS_KEY_ID"] = "AKIAENV";
  v["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  v["AWS_SESSION_TOKEN"] = "env-token";
  v["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/nonexistent/token";
  v["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
  v["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://127.0.0.1:1/creds";
  auto r = chain(v);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ((*r)->source(), "the environment (AWS_ACCESS_KEY_ID AKIAENV)");
  auto keys = (*r)->current();
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->access_key_id, "AKIAENV");
  EXPECT_EQ(keys->secret_access_key, "env-secret");
  EXPECT_EQ(keys->session_token, "env-token");
}

TEST_F(AwsChain, HalfAnEnvironmentPairIsAnErrorNotTheNextLink) {
  write(home() / ".aws/credentials", "[default]\naws_access_key_id = FROMFILE\naws_secret_access_key = f\n");
  Vars id_only = vars();
  id_only["AWS_ACCESS_KEY_ID"] = "AKIAHALF";
  EXPECT_EQ(
      error_of(chain(id_only)),
      "AWS credentials from the environment: AWS_ACCESS_KEY_ID (AKIAHALF) is set but AWS_SECRET_ACCESS_KEY is not");
  Vars secret_only = vars();
  secret_only["AWS_SECRET_ACCESS_KEY"] = "half-secret";
  const std::string e = error_of(chain(secret_only));
  EXPECT_EQ(e, "AWS credentials from the environment: AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  EXPECT_EQ(e.find("half-secret"), std::string::npos);
}

TEST_F(AwsChain, TheSharedCredentialsFileDefaultProfile) {
  write(
      home() / ".aws/credentials",
      "[default]\naws_access_key_id = AKIAFILE\naws_secret_access_key = file-secret\naws_session_token = file-token\n");
  auto r = chain(vars());
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ((*r)->source(), "the shared files (profile 'default', " + home().string() +
                                "/.aws/credentials:2, aws_access_key_id AKIAFILE)");
  auto keys = (*r)->current();
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->access_key_id, "AKIAFILE");
  EXPECT_EQ(keys->secret_access_key, "file-secret");
  EXPECT_EQ(keys->session_token, "file-token");
}

TEST_F(AwsChain, AwsProfileChoosesAndTheCredentialsFileWinsOverTheConfigFile) {
  write(home() / ".aws/config",
        "[default]\naws_access_key_id = CFGDEFAULT\naws_secret_access_key = c\n"
        "[profile ci]\naws_access_key_id = CFGCI\naws_secret_access_key = cfg-ci-secret\nregion = eu-west-1\n"
        "[profile only-in-config]\naws_access_key_id = CFGONLY\naws_secret_access_key = o\n");
  write(home() / ".aws/credentials", "[ci]\naws_access_key_id = CREDCI\n");
  Vars v = vars();
  v["AWS_PROFILE"] = "ci";
  auto r = chain(v);
  ASSERT_TRUE(r) << r.error();
  auto keys = (*r)->current();
  // Key by key: the credentials file's id, the config file's secret.
  EXPECT_EQ(keys->access_key_id, "CREDCI");
  EXPECT_EQ(keys->secret_access_key, "cfg-ci-secret");
  v["AWS_PROFILE"] = "only-in-config";
  EXPECT_EQ((*chain(v))->current()->access_key_id, "CFGONLY");
}

TEST_F(AwsChain, TheFilesVariablesReplaceHome) {
  write(s_.root() / "elsewhere/creds", "[default]\naws_access_key_id = AKIAELSEWHERE\naws_secret_access_key = e\n");
  write(home() / "mine/config", "[profile x]\naws_access_key_id = AKIATILDE\naws_secret_access_key = t\n");
  Vars v = vars();
  v["AWS_SHARED_CREDENTIALS_FILE"] = (s_.root() / "elsewhere/creds").string();
  EXPECT_EQ((*chain(v))->current()->access_key_id, "AKIAELSEWHERE");
  // ~/ is HOME, as the SDKs expand it.
  Vars t = vars();
  t["AWS_CONFIG_FILE"] = "~/mine/config";
  t["AWS_PROFILE"] = "x";
  EXPECT_EQ((*chain(t))->current()->access_key_id, "AKIATILDE");
}

TEST_F(AwsChain, ANamedProfileThatIsNotThereIsAnErrorAMissingDefaultIsNot) {
  write(home() / ".aws/credentials", "[other]\naws_access_key_id = AKIAOTHER\naws_secret_access_key = o\n");
  Vars named = vars();
  named["AWS_PROFILE"] = "prod";
  EXPECT_EQ(error_of(chain(named)),
            "AWS credentials from the shared files: AWS_PROFILE names profile 'prod', which is "
            "not in " +
                home().string() + "/.aws/credentials and " + home().string() + "/.aws/config");
  // Without AWS_PROFILE a file with no [default] passes to the next link.
  Vars next = vars();
  next["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/var/run/secrets/token";
  next["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
  EXPECT_TRUE(source_of(chain(next)).starts_with("web identity (role arn:aws:iam::1:role/r")) << error_of(chain(next));
  EXPECT_NE(error_of(chain(vars())).find("the shared files: no default profile in"), std::string::npos);
}

TEST_F(AwsChain, AProfileWithoutCredentialsPassesToTheNextLink) {
  write(home() / ".aws/config", "[default]\nregion = eu-west-1\n");
  Vars v = vars();
  v["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://127.0.0.1:1/creds";
  EXPECT_EQ(source_of(chain(v)), "the container endpoint (http://127.0.0.1:1/creds)");
  EXPECT_NE(error_of(chain(vars())).find("profile 'default' in "), std::string::npos);
}

TEST_F(AwsChain, WhatThisBuildCannotDoIsSaidAndNotSkipped) {
  const fs::path cfg = home() / ".aws/config";
  auto error_for = [&](const std::string& profile_body) {
    write(cfg, "[default]\n" + profile_body);
    Vars v = vars();
    v["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://127.0.0.1:1/creds";  // never reached
    return error_of(chain(v));
  };
  const std::string at = "AWS credentials from the shared files: " + cfg.string() + ":2: profile 'default' ";
  EXPECT_EQ(error_for("credential_process = /usr/bin/fetch-keys\n"),
            at + "gets its keys from credential_process, which is not supported by this build");
  EXPECT_EQ(error_for("sso_session = corp\nsso_account_id = 1\n"),
            at + "signs in with SSO (sso_session), which is not supported by this build");
  EXPECT_NE(error_for("role_arn = arn:aws:iam::1:role/r\nsource_profile = base\naws_access_key_id = A\n"
                      "aws_secret_access_key = S\n")
                .find(at + "assumes a role from another source (role_arn with source_profile or credential_source), "
                           "which is not supported by this build"),
            std::string::npos);
  EXPECT_EQ(error_for("web_identity_token_file = /t\n"), at + "has web_identity_token_file but no role_arn");
  EXPECT_EQ(error_for("aws_access_key_id = AKIALONE\n"), at + "has aws_access_key_id but no aws_secret_access_key");
  const std::string secret_alone = error_for("aws_secret_access_key = lonely-secret\n");
  EXPECT_EQ(secret_alone, at + "has aws_secret_access_key but no aws_access_key_id");
  // Keys beside credential_process are used.
  write(cfg,
        "[default]\ncredential_process = /usr/bin/fetch-keys\naws_access_key_id = AKIABOTH\n"
        "aws_secret_access_key = b\n");
  EXPECT_EQ((*chain(vars()))->current()->access_key_id, "AKIABOTH");
}

TEST_F(AwsChain, AProfileWithRoleArnAndTokenFileIsWebIdentity) {
  write(home() / ".aws/config",
        "[profile eks]\nrole_arn = arn:aws:iam::1:role/eks\nweb_identity_token_file = /var/run/token\n"
        "role_session_name = from-profile\n");
  Vars v = vars();
  v["AWS_PROFILE"] = "eks";
  v["AWS_REGION"] = "eu-central-1";
  EXPECT_EQ(source_of(chain(v)), "web identity of profile 'eks' (" + home().string() +
                                     "/.aws/config:2; role arn:aws:iam::1:role/eks, token file /var/run/token, STS "
                                     "https://sts.eu-central-1.amazonaws.com)");
}

TEST_F(AwsChain, AMalformedSharedFileStopsTheChain) {
  write(home() / ".aws/credentials", "[default]\naws_access_key_id AKIA\n");
  Vars v = vars();
  v["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/var/run/token";
  v["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
  EXPECT_EQ(error_of(chain(v)), "AWS credentials from the shared files: " + home().string() +
                                    "/.aws/credentials:2: expected 'key = value'");
}

TEST_F(AwsChain, SharedFilesAreSizeCheckedAndMustBeRegular) {
  fs::create_directories(home() / ".aws/credentials");
  EXPECT_EQ(error_of(chain(vars())), "AWS credentials from the shared files: the shared credentials file " +
                                         home().string() + "/.aws/credentials is not a regular file");
  fs::remove(home() / ".aws/credentials");
  write(home() / ".aws/config", "[default]\n" + std::string(kMaxFileBytes, '#'));
  EXPECT_EQ(error_of(chain(vars())), "AWS credentials from the shared files: the shared config file " +
                                         home().string() + "/.aws/config is larger than 1048576 bytes");
}

TEST_F(AwsChain, WebIdentityNeedsItsRole) {
  Vars v = vars();
  v["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/var/run/token";
  EXPECT_EQ(error_of(chain(v)),
            "AWS credentials from web identity: AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN "
            "is not");
  Vars role_only = vars();
  role_only["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
  EXPECT_NE(error_of(chain(role_only))
                .find("web identity: AWS_WEB_IDENTITY_TOKEN_FILE is unset (AWS_ROLE_ARN alone is "
                      "not enough)"),
            std::string::npos);
}

TEST_F(AwsChain, TheContainerRelativeUriIsTheEcsAgentsAddress) {
  // Resolved, never asked: resolving the chain sends nothing.
  Vars v = vars();
  v["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] = "/v2/credentials/0b8f1f2e";
  v["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://127.0.0.1:1/ignored";
  EXPECT_EQ(source_of(chain(v)), "the container endpoint (http://169.254.170.2/v2/credentials/0b8f1f2e)");
}

TEST(AwsContainerUrl, AsTheSdksAllowIt) {
  auto url = [](Vars v) { return container_credentials_url(config::env_of(std::move(v))); };
  EXPECT_FALSE(*url({}));
  EXPECT_EQ(**url({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/x"}}),
            "http://169.254.170.2/v2/credentials/x");
  EXPECT_FALSE(url({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "v2/credentials/x"}}));
  for (const char* ok : {"https://creds.example.test/v1", "http://127.0.0.1:8080/creds", "http://127.1.2.3/c",
                         "http://localhost:9/c", "http://[::1]:9/c", "http://169.254.170.23/v1/credentials",
                         "http://169.254.170.2/creds", "http://[fd00:ec2::23]/v1/credentials"}) {
    auto r = url({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", ok}});
    ASSERT_TRUE(r) << ok << ": " << r.error();
    EXPECT_EQ(**r, ok);
  }
  for (const char* bad : {"http://creds.example.test/v1", "http://169.254.169.254/latest", "ftp://127.0.0.1/x",
                          "http://user@127.0.0.1/x", "http:///x", "http://[::1/x"}) {
    EXPECT_FALSE(url({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", bad}})) << bad;
  }
  EXPECT_NE(url({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://creds.example.test/v1"}})
                .error()
                .find("plain http is allowed only to a loopback address, 169.254.170.2 or 169.254.170.23"),
            std::string::npos);
}

TEST(AwsStsEndpoint, TheVariablesThenTheRegion) {
  auto at = [](Vars v) { return sts_endpoint(config::env_of(std::move(v))); };
  EXPECT_EQ(at({}), "https://sts.us-east-1.amazonaws.com");
  EXPECT_EQ(at({{"AWS_DEFAULT_REGION", "eu-west-1"}}), "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(at({{"AWS_DEFAULT_REGION", "eu-west-1"}, {"AWS_REGION", "ap-south-1"}}),
            "https://sts.ap-south-1.amazonaws.com");
  EXPECT_EQ(at({{"AWS_REGION", "ap-south-1"}, {"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}}), "http://127.0.0.1:1");
  EXPECT_EQ(at({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}, {"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:2"}}),
            "http://127.0.0.1:2");
  EXPECT_EQ(at({{"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:2"}, {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"}}),
            "https://sts.us-east-1.amazonaws.com");
}

// ---------------------------------------------------------------------------------------
// The answers.

TEST(AwsAnswers, StsCredentials) {
  auto c = parse_sts_response(
      R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:ns:sa</SubjectFromWebIdentityToken>
    <AssumedRoleUser><Arn>arn:aws:sts::1:assumed-role/r/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser>
    <Credentials>
      <SessionToken>FwoGZXIvYXdzE&amp;token</SessionToken>
      <SecretAccessKey>wJalrXUtnFEMI</SecretAccessKey>
      <Expiration>2026-12-04T13:00:00.123Z</Expiration>
      <AccessKeyId>ASIASTS</AccessKeyId>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>)");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->keys.access_key_id, "ASIASTS");
  EXPECT_EQ(c->keys.secret_access_key, "wJalrXUtnFEMI");
  EXPECT_EQ(c->keys.session_token, "FwoGZXIvYXdzE&token");
  EXPECT_EQ(c->expiration, parse_iso8601("2026-12-04T13:00:00Z"));
}

TEST(AwsAnswers, StsErrorsAndMalformedAnswers) {
  auto e = parse_sts_response(
      R"(<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>)"
      R"(<Code>InvalidIdentityToken</Code><Message>Incorrect token audience</Message></Error></ErrorResponse>)");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "InvalidIdentityToken: Incorrect token audience");
  const std::string head = "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>";
  const std::string tail = "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
  EXPECT_EQ(
      parse_sts_response(head + "<AccessKeyId>A</AccessKeyId><SecretAccessKey>S</SecretAccessKey>" + tail).error(),
      "no Expiration (AccessKeyId A)");
  EXPECT_EQ(
      parse_sts_response(head + "<AccessKeyId>A</AccessKeyId><Expiration>2026-12-04T13:00:00Z</Expiration>" + tail)
          .error(),
      "no SecretAccessKey (AccessKeyId A)");
  EXPECT_EQ(parse_sts_response(head +
                               "<AccessKeyId>A</AccessKeyId><SecretAccessKey>S</SecretAccessKey><Expiration>"
                               "tomorrow</Expiration>" +
                               tail)
                .error(),
            "an Expiration that is not an ISO 8601 time: 'tomorrow'");
  // Without a session token the keys are taken (versitygw's case; see the peer).
  auto no_token = parse_sts_response(head +
                                     "<AccessKeyId>A</AccessKeyId><SecretAccessKey>S</SecretAccessKey><Expiration>"
                                     "2026-12-04T13:00:00Z</Expiration>" +
                                     tail);
  ASSERT_TRUE(no_token) << no_token.error();
  EXPECT_EQ(no_token->keys.session_token, "");
  EXPECT_EQ(parse_sts_response("<Other/>").error(), "no <Credentials> in the answer");
  EXPECT_TRUE(parse_sts_response("not xml").error().starts_with("an answer that is not XML: "));
  EXPECT_EQ(parse_sts_response("<!DOCTYPE x [<!ENTITY a \"b\">]><x>&a;</x>").error(),
            "an answer that is not STS's: a DTD");
  EXPECT_EQ(parse_sts_response("<ErrorResponse><Error></Error></ErrorResponse>").error(),
            "an <ErrorResponse> without a <Code>");
}

TEST(AwsAnswers, ContainerCredentials) {
  auto c = parse_container_response(
      R"({"AccessKeyId":"ASIACONTAINER","SecretAccessKey":"s","Token":"t","Expiration":"2026-12-04T13:00:00Z",
          "RoleArn":"arn:aws:iam::1:role/task"})");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->keys.access_key_id, "ASIACONTAINER");
  EXPECT_EQ(c->keys.session_token, "t");
  EXPECT_EQ(c->expiration, parse_iso8601("2026-12-04T13:00:00Z"));
  EXPECT_EQ(parse_container_response(R"({"code":"AccessDenied","message":"no role"})").error(),
            "AccessDenied: no role");
  EXPECT_EQ(parse_container_response("[1]").error(), "an answer that is not a JSON object");
  EXPECT_EQ(parse_container_response("{").error(), "an answer that is not a JSON object");
  EXPECT_EQ(parse_container_response(R"({"SecretAccessKey":"s"})").error(), "no AccessKeyId");
  EXPECT_EQ(parse_container_response(R"({"AccessKeyId":"A","SecretAccessKey":"s"})").error(),
            "no Expiration (AccessKeyId A)");
}

TEST(AwsAnswers, Iso8601) {
  const auto base = std::chrono::system_clock::from_time_t(1796389200);  // 2026-12-04T13:00:00Z
  EXPECT_EQ(parse_iso8601("2026-12-04T13:00:00Z"), base);
  EXPECT_EQ(parse_iso8601("2026-12-04T13:00:00.999999Z"), base);
  EXPECT_EQ(parse_iso8601("2026-12-04T14:30:00+01:30"), base);
  EXPECT_EQ(parse_iso8601("2026-12-04T12:00:00-01:00"), base);
  for (const char* bad :
       {"", "2026-12-04", "2026-12-04T13:00:00", "2026-12-04 13:00:00Z", "2026-13-04T13:00:00Z",
        "2026-12-04T13:00:00.Z", "2026-12-04T13:00:00+0100", "1969-12-31T23:59:59Z", "2026-12-04T13:00:00Zjunk"}) {
    EXPECT_FALSE(parse_iso8601(bad)) << bad;
  }
}

// ---------------------------------------------------------------------------------------
// Refreshing, on a fake clock.

// Seconds since the epoch, from the real time (the peer dates its answers by it) or a
// fixed one.
struct FakeClock {
  explicit FakeClock(
      std::int64_t start =
          std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count())
      : secs(std::make_shared<std::atomic<std::int64_t>>(start)) {}
  std::shared_ptr<std::atomic<std::int64_t>> secs;
  Clock clock() const {
    return [s = secs] { return std::chrono::system_clock::from_time_t(static_cast<std::time_t>(s->load())); };
  }
  TimePoint now() const { return clock()(); }
  void advance(std::chrono::seconds d) { *secs += d.count(); }
};

TEST(AwsRefresh, CachedUntilFiveMinutesBeforeTheyExpire) {
  FakeClock clock;
  int fetches = 0;
  const TimePoint expires = clock.now() + 1h;
  auto p = refreshing(
      [&]() -> Expected<TimedCredentials, std::string> {
        ++fetches;
        return TimedCredentials{{"ASIA" + std::to_string(fetches), "s", "t"}, expires + (fetches - 1) * 1h};
      },
      "test", clock.clock());
  EXPECT_EQ(p->current()->access_key_id, "ASIA1");
  clock.advance(54min + 59s);
  EXPECT_EQ(p->current()->access_key_id, "ASIA1");
  EXPECT_EQ(fetches, 1);
  clock.advance(1s);  // exactly five minutes before
  EXPECT_EQ(p->current()->access_key_id, "ASIA2");
  EXPECT_EQ(fetches, 2);
  clock.advance(30min);
  EXPECT_EQ(p->current()->access_key_id, "ASIA2");
  EXPECT_EQ(fetches, 2);
}

TEST(AwsRefresh, AFailedRefreshKeepsKeysThatStillWorkUntilTheyExpire) {
  FakeClock clock;
  bool fail = false;
  int fetches = 0;
  const TimePoint expires = clock.now() + 1h;
  auto p = refreshing(
      [&]() -> Expected<TimedCredentials, std::string> {
        ++fetches;
        if (fail) return Unexpected(std::string("STS is down"));
        return TimedCredentials{{"ASIAOK", "s", ""}, expires};
      },
      "web identity (test)", clock.clock());
  ASSERT_TRUE(p->current());
  fail = true;
  clock.advance(58min);
  EXPECT_EQ(p->current()->access_key_id, "ASIAOK");
  EXPECT_EQ(p->current()->access_key_id, "ASIAOK");
  EXPECT_EQ(fetches, 3);  // each call in the window tries again
  clock.advance(2min);    // expired now
  auto gone = p->current();
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error(), "web identity (test): STS is down");
}

TEST(AwsRefresh, AnAnswerThatHasAlreadyExpiredIsAnError) {
  FakeClock clock(1796389200);  // 2026-12-04T13:00:00Z
  auto p = refreshing(
      [&]() -> Expected<TimedCredentials, std::string> {
        return TimedCredentials{{"ASIAOLD", "old-secret", ""}, clock.now() - 1s};
      },
      "test", clock.clock());
  auto r = p->current();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(),
            "test: the keys it gave (ASIAOLD) expired at 2026-12-04T12:59:59Z, before they were used (now "
            "2026-12-04T13:00:00Z)");
}

TEST(AwsRefresh, KeysWithoutExpirationAreFetchedOnce) {
  int fetches = 0;
  auto p = refreshing(
      [&]() -> Expected<TimedCredentials, std::string> {
        ++fetches;
        return TimedCredentials{{"AKIA", "s", ""}, std::nullopt};
      },
      "test");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p->current());
  EXPECT_EQ(fetches, 1);
}

TEST(AwsRefresh, ManyThreadsOneFetch) {
  std::atomic<int> fetches = 0;
  auto p = refreshing(
      [&]() -> Expected<TimedCredentials, std::string> {
        ++fetches;
        std::this_thread::sleep_for(50ms);
        return TimedCredentials{{"ASIA", "s", "t"}, std::chrono::system_clock::now() + 1h};
      },
      "test");
  std::vector<std::thread> threads;
  std::atomic<int> ok = 0;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) ok += p->current().has_value() ? 1 : 0;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 400);
  EXPECT_EQ(fetches, 1);
}

// ---------------------------------------------------------------------------------------
// Web identity and the container endpoint against the stand-in.

class AwsPeerTest : public ::testing::Test {
 protected:
  std::unique_ptr<AwsCredentialsPeer> start(std::vector<std::string> args) {
    std::vector<std::string> all{"--access-key", kAk, "--secret-key", kSk};
    all.insert(all.end(), args.begin(), args.end());
    auto peer = std::make_unique<AwsCredentialsPeer>(all);
    EXPECT_EQ(peer->error(), "");
    return peer;
  }
  fs::path file(const std::string& name, std::string_view text) const {
    Scratch::write(s_.root() / name, text);
    return s_.root() / name;
  }
  // The environment of web identity on `peer`.
  Vars web_identity(const AwsCredentialsPeer& peer, const fs::path& token) const {
    return {{"AWS_WEB_IDENTITY_TOKEN_FILE", token.string()},
            {"AWS_ROLE_ARN", "arn:aws:iam::000000000000:role/batlehub-worker"},
            {"AWS_ENDPOINT_URL_STS", peer.url()}};
  }

  Scratch s_;
};

TEST_F(AwsPeerTest, WebIdentityExchangesTheTokenForKeys) {
  const fs::path token = file("token", "eyJhbGciOiJSUzI1NiJ9.first\n");
  auto peer = start({"--web-identity-token-file", token.string(), "--role-arn",
                     "arn:aws:iam::000000000000:role/batlehub-worker", "--session-token", "peer-session-token"});
  auto chain = default_chain(config::env_of(web_identity(*peer, token)));
  ASSERT_TRUE(chain) << chain.error();
  auto keys = (*chain)->current();
  ASSERT_TRUE(keys) << keys.error();
  EXPECT_EQ(keys->access_key_id, kAk);
  EXPECT_EQ(keys->secret_access_key, kSk);
  EXPECT_EQ(keys->session_token, "peer-session-token");
  const std::string stats = peer->stats();
  EXPECT_NE(stats.find("\"sts\": 1,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"session_names\": [\"batlehub-worker-" + std::to_string(::getpid()) + "-"), std::string::npos)
      << stats;

  Vars named = web_identity(*peer, token);
  named["AWS_ROLE_SESSION_NAME"] = "ci-run-7";
  ASSERT_TRUE((*default_chain(config::env_of(named)))->current());
  EXPECT_NE(peer->stats().find("\"ci-run-7\""), std::string::npos) << peer->stats();
}

TEST_F(AwsPeerTest, TheTokenFileIsReadAgainAtEveryRefresh) {
  // The client's file and the one the peer checks against are two: the peer accepts the
  // rotated token only, so a client that kept the first one would be refused.
  const fs::path mine = file("mine", "token-1");
  const fs::path expected = file("expected", "token-1");
  auto peer = start({"--web-identity-token-file", expected.string()});
  FakeClock clock;
  auto chain = default_chain(config::env_of(web_identity(*peer, mine)), {.clock = clock.clock()});
  ASSERT_TRUE(chain) << chain.error();
  ASSERT_TRUE((*chain)->current());
  file("mine", "token-2");
  file("expected", "token-2");
  clock.advance(56min);  // within five minutes of the peer's one hour
  auto again = (*chain)->current();
  ASSERT_TRUE(again) << again.error();
  EXPECT_NE(peer->stats().find("\"sts\": 2,"), std::string::npos) << peer->stats();
}

TEST_F(AwsPeerTest, AWebIdentityThatFailsNamesTheLinkAndNeverTheToken) {
  const fs::path token = file("token", "the-wrong-token");
  auto peer = start({"--web-identity-token-file", file("expected", "the-right-token").string(), "--role-arn",
                     "arn:aws:iam::000000000000:role/batlehub-worker"});
  auto chain = default_chain(config::env_of(web_identity(*peer, token)));
  ASSERT_TRUE(chain) << chain.error();
  auto r = (*chain)->current();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "web identity (role arn:aws:iam::000000000000:role/batlehub-worker, token file " +
                           token.string() + ", STS " + peer->url() + "): STS AssumeRoleWithWebIdentity at " +
                           peer->url() +
                           ": HTTP 400 InvalidIdentityToken: the web identity token is not the one expected");
  EXPECT_EQ(r.error().find("the-wrong-token"), std::string::npos);

  Vars no_file = web_identity(*peer, s_.root() / "absent");
  auto missing = (*default_chain(config::env_of(no_file)))->current();
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("the web identity token file " + (s_.root() / "absent").string() +
                                 " cannot be opened: No such file or directory"),
            std::string::npos)
      << missing.error();

  Vars wrong_role = web_identity(*peer, file("right", "the-right-token"));
  wrong_role["AWS_ROLE_ARN"] = "arn:aws:iam::000000000000:role/someone-else";
  auto denied = (*default_chain(config::env_of(wrong_role)))->current();
  ASSERT_FALSE(denied);
  EXPECT_NE(denied.error().find("HTTP 403 AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity"),
            std::string::npos)
      << denied.error();
}

TEST_F(AwsPeerTest, WhatAnEndpointEchoesOfTheRequestIsTakenOut) {
  const fs::path token = file("token", "the-wrong-token");
  auto peer = start({"--echo", "--web-identity-token-file", file("expected", "the-right-token").string(),
                     "--container-token", "right"});
  auto sts = (*default_chain(config::env_of(web_identity(*peer, token))))->current();
  ASSERT_FALSE(sts);
  EXPECT_NE(sts.error().find("the web identity token is not the one expected (got <redacted>)"), std::string::npos)
      << sts.error();
  EXPECT_EQ(sts.error().find("the-wrong-token"), std::string::npos) << sts.error();
  auto container = (*default_chain(config::env_of({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", peer->url("/container/c")},
                                                   {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong-bearer"}})))
                       ->current();
  ASSERT_FALSE(container);
  EXPECT_NE(container.error().find("the Authorization header is not the one expected (got <redacted>)"),
            std::string::npos)
      << container.error();
  EXPECT_EQ(container.error().find("wrong-bearer"), std::string::npos) << container.error();
}

TEST_F(AwsPeerTest, AnStsThatIsNotThereIsTheConnectionsError) {
  Vars v = web_identity(AwsCredentialsPeer({"--access-key", "a", "--secret-key", "b"}), file("token", "t"));
  // The peer above is gone: its port is closed now.
  auto r = (*default_chain(config::env_of(v)))->current();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("Couldn't connect to server"), std::string::npos) << r.error();
}

TEST_F(AwsPeerTest, AnExpiredOrOversizedAnswerIsRefused) {
  const fs::path token = file("token", "t");
  auto expired = start({"--web-identity-token-file", token.string(), "--expires-in", "-60"});
  auto r = (*default_chain(config::env_of(web_identity(*expired, token))))->current();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("the keys it gave (AKIAPEER) expired at "), std::string::npos) << r.error();

  auto padded = start({"--web-identity-token-file", token.string(), "--pad", std::to_string(kMaxResponseBytes)});
  auto big = (*default_chain(config::env_of(web_identity(*padded, token))))->current();
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().find("an answer larger than 65536 bytes"), std::string::npos) << big.error();
}

TEST_F(AwsPeerTest, TheContainerEndpointWithItsTokenFileReadAgainEachTime) {
  const fs::path expected = file("expected", "Bearer pod-identity-1");
  const fs::path mine = file("mine", "Bearer pod-identity-1\n");
  auto peer = start({"--container-token-file", expected.string(), "--session-token", "container-token"});
  FakeClock clock;
  const Vars v{{"AWS_CONTAINER_CREDENTIALS_FULL_URI", peer->url("/container/v1/credentials")},
               {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", mine.string()},
               {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "ignored-when-the-file-is-set"}};
  auto chain = default_chain(config::env_of(v), {.clock = clock.clock()});
  ASSERT_TRUE(chain) << chain.error();
  EXPECT_EQ((*chain)->source(), "the container endpoint (" + peer->url("/container/v1/credentials") +
                                    ", authorization from " + mine.string() + ")");
  auto keys = (*chain)->current();
  ASSERT_TRUE(keys) << keys.error();
  EXPECT_EQ(keys->access_key_id, kAk);
  EXPECT_EQ(keys->session_token, "container-token");
  file("expected", "Bearer pod-identity-2");
  file("mine", "Bearer pod-identity-2");
  clock.advance(56min);
  ASSERT_TRUE((*chain)->current());
  EXPECT_NE(peer->stats().find("\"authorizations\": [\"Bearer pod-identity-1\", \"Bearer pod-identity-2\"]"),
            std::string::npos)
      << peer->stats();
}

TEST_F(AwsPeerTest, TheContainerEndpointRefusesAWrongToken) {
  auto peer = start({"--container-token", "right"});
  const std::string url = peer->url("/container/creds");
  auto with = [&](const std::string& token) {
    return default_chain(
        config::env_of({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", url}, {"AWS_CONTAINER_AUTHORIZATION_TOKEN", token}}));
  };
  ASSERT_TRUE((*with("right"))->current());
  auto wrong = (*with("wrong"))->current();
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error(), "the container endpoint (" + url +
                               ", authorization from AWS_CONTAINER_AUTHORIZATION_TOKEN): " + url +
                               ": HTTP 401 AccessDenied: the Authorization header is not the one expected");
  // A line break would make a second header: refused before anything is sent.
  auto injected = (*with("right\r\nX-Injected: 1"))->current();
  ASSERT_FALSE(injected);
  EXPECT_NE(injected.error().find("the container authorization token holds a line break"), std::string::npos);
  EXPECT_NE(peer->stats().find("\"container\": 2,"), std::string::npos) << peer->stats();
}

}  // namespace
}  // namespace batlehub::adapters::aws
