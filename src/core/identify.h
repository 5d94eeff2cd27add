// A package's kind, name and version from its archive's file name, by each ecosystem's own
// grammar — a wheel per PEP 427, an sdist per PEP 625 (and the older `name-version` sdists),
// an npm tarball and a crate as `name-<semver>`, a gem as `name-version[-platform]`. Pure
// functions over a string the operator gave: a name that fits no grammar is nullopt, never a
// guess, and the command asks for --kind / --name / --version.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/findings.h"

namespace batlehub::core {

struct FileIdentity {
  PackageKind kind = PackageKind::kNpm;
  std::string name;
  std::string version;
};

// What the file name says, when it says it: kind alone (a .tgz that holds no version), or
// kind, name and version. `kind_hint` (the operator's --kind) picks the grammar for a name
// that several ecosystems share (.tar.gz, .zip).
struct FileNameReading {
  std::optional<PackageKind> kind;
  std::optional<std::string> name;
  std::optional<std::string> version;
};
FileNameReading read_file_name(std::string_view path, std::optional<PackageKind> kind_hint = std::nullopt);

// The grammars are wire/identity.h's: the agent judges the versions it reads by the same ones.
// "1.2.3", "2.0.0-beta.1", "1.0.0+build.5".
bool is_semver(std::string_view v);
// PEP 440's public versions, case-insensitive: "2.31.0", "1.0rc1", "2!1.0.post2.dev3", "1.0+local.7".
bool is_pep440(std::string_view v);

// What keeps `name` from being a `kind` package's name, in words an operator can act on ("it
// holds a space", "it holds a path separator ('/')", "it does not follow PEP 508 (…)"), or
// nullopt when the kind's registry could have published it. A name reaches a storage key, a
// log line and a report: a file called "pip install x-1.0.tar.gz" names no package.
std::optional<std::string> name_problem(PackageKind kind, std::string_view name);
// The same for a version: semver for npm and Cargo, PEP 440 for PyPI, RubyGems' own, "v" and
// semver for Go modules, and for the others a version's usual characters.
std::optional<std::string> version_problem(PackageKind kind, std::string_view version);
// A name or version as a message can quote it: a control character or a byte outside ASCII
// as \xNN, at most `max` bytes of the input.
std::string shown(std::string_view s, std::size_t max = 120);

}  // namespace batlehub::core
