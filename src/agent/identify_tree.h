// `batlehub-sandbox identify DIR [KIND]`: a package's kind, name and version from its own
// metadata, read from the tree the agent has just extracted — inside the walls.
//
// The worker never opens an archive (architecture.md, "The extractor lives in the agent"),
// so when a file name says too little the agent is run as the scanner of one more run:
// argv = [the agent's own path in the room, "identify", the extracted dir]. The metadata
// readers below then run under the rlimits and the seccomp filter of every scanner, and the
// manifest gains nothing. What they print is the identity document (wire/identity.h).
//
// The readers are pure functions over a file's bytes (unit-tested and fuzzed as data);
// identify_tree() finds the files, beneath DIR only, never following a symlink, every size
// checked before a byte is allocated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/expected.h"
#include "wire/identity.h"

namespace batlehub::agent {

// No metadata file we read is anywhere near this; a bigger one is refused unread.
inline constexpr std::uint64_t kMetadataMaxBytes = 1024 * 1024;

using MetadataReading = Expected<wire::Identity, wire::IdentityRefusal>;

// npm's package.json: "name" (a scope included) and "version" (semver).
MetadataReading read_package_json(std::string_view bytes, std::string_view from);
// PyPA core metadata (PKG-INFO of an sdist, METADATA of a wheel): the RFC 822 headers
// `Name:` and `Version:` (PEP 440), each exactly once, before the first empty line.
MetadataReading read_core_metadata(std::string_view bytes, std::string_view from);
// Cargo.toml's [package] name and version. Not toml++: the fence keeps it out of the agent
// (scripts/check-fence.sh), and `cargo package` writes a normalised manifest in which both
// are plain `key = "value"` lines of the [package] table. Anything else there — a multi-line
// or escaped string, an inherited `version.workspace` — is refused by name, never guessed.
MetadataReading read_cargo_toml(std::string_view bytes, std::string_view from);
// A gem's metadata (the YAML of a Gem::Specification, as RubyGems writes it): the top-level
// `name:` and the `version:` mapping's own `  version:` line. Not a YAML library: the
// agent's link line is fenced to libarchive, zlib, libseccomp and OpenSSL, and a full YAML
// parser (tags, anchors, aliases) is attack surface for two scalars whose layout RubyGems
// fixes; a file that does not have that layout is refused.
MetadataReading read_gem_metadata(std::string_view yaml, std::string_view from);

// A gzip stream inflated, refused as soon as it would exceed `max` bytes (metadata.gz).
Expected<std::string, std::string> gunzip_bounded(std::string_view gz, std::size_t max);

// Finds and reads the package's metadata in the tree at `dir`:
//   rubygems  metadata.gz or metadata at the top (a .gem is a plain tar of these)
//   pypi      <name>.dist-info/METADATA at the top (a wheel); PKG-INFO at the top or in the
//             top's one directory (an sdist)
//   npm       package/package.json (npm's wrapper), or package.json at the top or in the
//             top's one directory
//   cargo     Cargo.toml at the top or in the top's one directory (a crate's name-version/)
// Without `kind` they are tried in that order — the files a packaging tool writes before
// the manifests a developer writes — and a package.json beside a Cargo.toml with neither
// wrapper nor packaging metadata is ambiguous (refused: pass --kind). With `kind` ("npm",
// "pypi", "cargo", "rubygems") only that ecosystem's files are read.
wire::IdentityAnswer identify_tree(const std::string& dir, std::optional<std::string_view> kind);

// The `identify` mode of the binary: argv is exactly [self, "identify", DIR] or
// [self, "identify", DIR, KIND]. Prints the identity document on stdout; returns 0 when
// the package was identified, 1 when refused, 2 on a usage error.
int identify_main(int argc, char** argv);

}  // namespace batlehub::agent
