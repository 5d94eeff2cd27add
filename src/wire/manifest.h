// manifest.json: everything one run needs, as data (RFC 0022 §5.2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wire/error.h"
#include "base/expected.h"
#include "wire/extract_policy.h"
#include "wire/rel_path.h"

namespace batlehub::wire {

// The rlimits the agent installs on the scanner. 0 leaves a limit unset.
struct Rlimits {
  std::uint64_t memory_limit_mb = 0;
  std::uint64_t cpu_seconds = 0;
  bool operator==(const Rlimits&) const = default;
};

enum class EntryKind {
  kInline,   // bytes carried in the manifest itself (a lockfile, an SBOM, rules)
  kFile,     // a file fetched from a URL, written as-is
  kArchive,  // an archive fetched from a URL, extracted under the ExtractPolicy
};

struct Entry {
  EntryKind kind = EntryKind::kInline;
  RelPath path = *RelPath::parse("x");
  std::string bytes;  // kInline only
  std::string url;    // kFile, kArchive
  // kFile, kArchive: the exact size the input must have. More bytes than this is a
  // refusal, not a truncation.
  std::uint64_t size = 0;
  // kArchive: when the archive holds one top-level directory and nothing else, its
  // contents land at `path` rather than at `path/<that directory>`.
  bool strip_wrapper = false;
  // kArchive (wire 2): a member that is an archive of its own (a gem's data.tar.gz),
  // relative to `path` once the wrapper is stripped. After the archive is placed, the
  // member is removed and its contents extracted into the directory that held it, under
  // the same ExtractPolicy budget as the archive (one count of entries and bytes, the
  // ratio against the archive's `size`).
  std::optional<RelPath> descend;

  bool operator==(const Entry&) const = default;
};

// "A probe is a field, not a flag": a manifest with this section asks the agent to check
// its walls from inside instead of running a scanner.
struct ProbeSpec {
  // "a.b.c.d:port" or "[v6]:port": addresses, never names, that must not be reachable.
  std::vector<std::string> canaries;
  // Absolute paths in the room that must be executable files; each is hashed.
  std::vector<std::string> commands;
  bool operator==(const ProbeSpec&) const = default;
};

struct Manifest {
  int wire = 0;
  std::vector<std::string> argv;
  bool network = false;
  Rlimits limits;
  std::uint64_t timeout_ms = 0;
  ExtractPolicy extract_policy;
  std::vector<Entry> entries;
  std::optional<ProbeSpec> probe;

  bool operator==(const Manifest&) const = default;
};

// Refuses a document over kManifestMaxBytes before parsing it, and every field out of
// bounds before allocating for it. A manifest of another wire version is refused with a
// WireError whose `where` is "/wire".
Expected<Manifest, WireError> parse_manifest(std::string_view json);

// Only the wire version, for an agent that must say which version it refused.
std::optional<int> peek_wire_version(std::string_view json);

std::string serialize(const Manifest& m);

// "1.2.3.4:53" or "[::1]:8080": an address and a port 1–65535, never a name (RFC 0022 §4.3:
// DNS may be allowed where a canary is tried, so a name would prove nothing). What the
// manifest's probe.canaries and the configuration's probe_canaries accept.
bool is_canary_address(std::string_view s);

std::string_view to_string(EntryKind k);

}  // namespace batlehub::wire
