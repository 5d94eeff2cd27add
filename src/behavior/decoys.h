// The decoy home: the credential stores a package's malware reaches for — an SSH key, cloud
// and registry tokens, a browser's saved logins, Discord's token store, wallets — planted in
// the HOME the package runs with, each carrying the run's canary. A read of one is a finding;
// the canary in anything the package sends is an exfiltration seen with its payload.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"

namespace batlehub::behavior {

struct Decoy {
  std::string_view kind;  // "ssh-key", "aws-credentials", ...
  std::string_view path;  // relative to HOME
};

// Every decoy, in the order they are planted.
std::span<const Decoy> decoys();

// A fresh canary: 24 characters of [a-z0-9] from getrandom.
Expected<std::string, std::string> make_canary();

// Writes every decoy under `home` (created), each holding `canary`.
Expected<Ok, std::string> plant(const std::string& home, std::string_view canary);

// The decoy at `path` (absolute, its backslashes read as slashes), if it is one or lies under
// one's directory; nullptr else.
const Decoy* decoy_at(std::string_view home, std::string_view path);

// The environment variables a package also finds (as OSSF package-analysis plants): cloud
// keys holding the canary, "NAME=value".
std::vector<std::string> bait_environment(std::string_view canary);

// The variables Windows sets that code written for it reads first (%COMPUTERNAME%,
// %APPDATA%…), pointing into the decoy home: on Linux nothing else reads them, and a stealer
// that does goes on to the stores it came for.
std::vector<std::string> windows_environment(std::string_view home, std::string_view host, std::string_view user);

// Whether `bytes` carry the canary: as it is, hex-encoded, percent-encoded (it has no byte
// to encode) or base64-encoded at any of the three alignments a longer text puts it at.
bool carries_canary(std::string_view bytes, std::string_view canary);

}  // namespace batlehub::behavior
