// The identity document: what `batlehub-sandbox identify DIR [KIND]` prints on its stdout
// after reading a package's own metadata inside the walls, and what the worker reads back
// from that run's stdout as untrusted bytes (docs/wire-format.md#identity).
//
// It lives in the wire library because it crosses the wall like result.json does: the
// agent writes it, the worker parses it, and both must agree on every bound. The name and
// version grammars live here too (core/identify.h forwards to them): the agent may include
// nothing of core, and both sides must judge a version the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "base/expected.h"
#include "wire/error.h"

namespace batlehub::wire {

// The document is small by construction; anything bigger is not ours.
inline constexpr std::size_t kIdentityMaxBytes = 16 * 1024;
// npm's own bound on a name (validate-npm-package-name); the other ecosystems' are lower.
inline constexpr std::size_t kPackageNameMaxBytes = 214;
inline constexpr std::size_t kPackageVersionMaxBytes = 256;
// The message of a refusal and the metadata file's relative path.
inline constexpr std::size_t kIdentityTextMaxBytes = 2048;

// The ecosystems whose metadata the agent reads: "npm", "pypi", "cargo", "rubygems".
bool is_identified_kind(std::string_view kind);

// "1.2.3", "2.0.0-beta.1", "1.0.0+build.5".
bool is_semver(std::string_view v);
// PEP 440's public versions, case-insensitive: "2.31.0", "1.0rc1", "2!1.0.post2.dev3", "1.0+local.7".
bool is_pep440(std::string_view v);
// Gem::Version's grammar: "13.0.6", "1.0.0.pre", "2.0.0-rc1".
bool is_gem_version(std::string_view v);

// Each ecosystem's rule for a name: npm's (optionally @scope/, lowercase for new names but
// legacy uppercase accepted), PEP 508's project name, a crate's, a gem's.
bool valid_package_name(std::string_view kind, std::string_view name);
// The version grammar of `kind`: semver (npm, cargo), PEP 440 (pypi), Gem::Version (rubygems).
bool valid_package_version(std::string_view kind, std::string_view version);

struct Identity {
  std::string kind;     // one of is_identified_kind()
  std::string name;
  std::string version;
  std::string from;     // the metadata file, relative to the extracted dir ("package/package.json")
  bool operator==(const Identity&) const = default;
};

// What the agent saw when it could not identify the package: the problem, and the file it
// concerns ("" when no metadata file was found at all).
struct IdentityRefusal {
  std::string error;
  std::string from;
  bool operator==(const IdentityRefusal&) const = default;
};

using IdentityAnswer = std::variant<Identity, IdentityRefusal>;

// One line of JSON: {"kind":…,"name":…,"version":…,"from":…} or {"error":…,"from":…}.
std::string serialize(const IdentityAnswer& a);

// Closed objects, every field bounded and checked (a kind we read, a name and a version
// by that kind's grammar, UTF-8 text), the whole refused over kIdentityMaxBytes.
Expected<IdentityAnswer, WireError> parse_identity(std::string_view text);

}  // namespace batlehub::wire
