// The four links of the AWS credential chain a test can make give versitygw's access key id
// with a secret of its choosing: the environment, a shared credentials file (a named
// profile), web identity and the container endpoint — the last two through their stand-in
// (aws_peer.h). Shared by the adapter's tests and the worker's.
//
// Its includer defines BATLEHUB_TEST_S3_* and BATLEHUB_SOURCE_DIR and links CURL::libcurl.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aws_peer.h"

namespace batlehub::testing {

enum class AwsLink { kEnvironment, kSharedFile, kWebIdentity, kContainer };

inline std::string aws_link_name(AwsLink l) {
  switch (l) {
    case AwsLink::kEnvironment:
      return "environment";
    case AwsLink::kSharedFile:
      return "shared_file";
    case AwsLink::kWebIdentity:
      return "web_identity";
    case AwsLink::kContainer:
      return "container";
  }
  return "";
}

// What the link's source() starts with.
inline std::string aws_link_source(AwsLink l) {
  switch (l) {
    case AwsLink::kEnvironment:
      return "the environment (";
    case AwsLink::kSharedFile:
      return "the shared files (profile 'worker', ";
    case AwsLink::kWebIdentity:
      return "web identity (";
    case AwsLink::kContainer:
      return "the container endpoint (";
  }
  return "";
}

struct AwsLinkSetup {
  // The variables that make the link, HOME (under `dir`) among them, so that no real
  // ~/.aws takes part.
  std::map<std::string, std::string, std::less<>> vars;
  std::unique_ptr<AwsCredentialsPeer> peer;  // web identity, container: the stand-in
  std::string error;                         // why the stand-in did not start

  std::vector<std::string> as_environ() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
    return out;
  }
};

// `link`, and no other, gives versitygw's access key id and `secret`; its files go under `dir`.
inline AwsLinkSetup aws_link_setup(AwsLink link, const std::string& secret, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  auto write = [](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  };
  const std::string id = BATLEHUB_TEST_S3_ACCESS_KEY;
  const std::string role = "arn:aws:iam::000000000000:role/batlehub-worker";
  AwsLinkSetup s;
  s.vars["HOME"] = (dir / "home").string();
  switch (link) {
    case AwsLink::kEnvironment:
      s.vars["AWS_ACCESS_KEY_ID"] = id;
      s.vars["AWS_SECRET_ACCESS_KEY"] = secret;
      break;
    case AwsLink::kSharedFile:
      write(dir / "home/.aws/credentials",
            "[default]\naws_access_key_id = AKIAUNUSED\naws_secret_access_key = unused\n\n"
            "[worker]\naws_access_key_id = " +
                id + "\naws_secret_access_key = " + secret + "\n");
      s.vars["AWS_PROFILE"] = "worker";
      break;
    case AwsLink::kWebIdentity:
      write(dir / "token", "eyJhbGciOiJSUzI1NiJ9.service-account-token");
      s.peer = std::make_unique<AwsCredentialsPeer>(
          std::vector<std::string>{"--access-key", id, "--secret-key", secret, "--web-identity-token-file",
                                   (dir / "token").string(), "--role-arn", role});
      s.vars["AWS_WEB_IDENTITY_TOKEN_FILE"] = (dir / "token").string();
      s.vars["AWS_ROLE_ARN"] = role;
      s.vars["AWS_ENDPOINT_URL_STS"] = s.peer->url();
      break;
    case AwsLink::kContainer:
      write(dir / "authorization", "pod-identity-token");
      s.peer = std::make_unique<AwsCredentialsPeer>(std::vector<std::string>{
          "--access-key", id, "--secret-key", secret, "--container-token-file", (dir / "authorization").string()});
      s.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = s.peer->url("/container/v1/credentials");
      s.vars["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = (dir / "authorization").string();
      break;
  }
  if (s.peer) s.error = s.peer->error();
  return s;
}

}  // namespace batlehub::testing
