// The wire's version and every size bound the two sides of the wire agree on.
//
// Each bound is checked before the bytes it bounds are allocated or read; a document
// that exceeds one is refused whole, never truncated.
#pragma once

#include <cstddef>
#include <cstdint>

namespace batlehub::wire {

// The version of manifest.json and result.json this build speaks. A manifest of another
// version is refused by the agent (which still writes a result saying so), and a result
// of another version is refused by the worker. 2: an archive entry's `descend`. 3: the
// probe's `kernel`.
inline constexpr int kWireVersion = 3;

inline constexpr std::size_t kMiB = 1024 * 1024;

// manifest.json: inline entries live inside it, so it is sized for a lockfile, an SBOM
// or a rules file, not for an artifact (those travel by URL).
inline constexpr std::size_t kManifestMaxBytes = 16 * kMiB;
inline constexpr std::size_t kInlineEntryMaxBytes = 6 * kMiB;
inline constexpr std::size_t kInlineTotalMaxBytes = 8 * kMiB;  // base64 of this fits the document cap
inline constexpr std::size_t kMaxEntries = 1024;
inline constexpr std::size_t kMaxArgs = 4096;
inline constexpr std::size_t kMaxArgvBytes = 1 * kMiB;
inline constexpr std::size_t kMaxUrlBytes = 16 * 1024;
inline constexpr std::size_t kMaxRelPathBytes = 1024;
inline constexpr std::size_t kMaxProbeCanaries = 64;
inline constexpr std::size_t kMaxProbeCommands = 256;
// An input fetched by URL: its declared size may not exceed this.
inline constexpr std::uint64_t kMaxInputBytes = 8ULL * 1024 * kMiB;
// JSON nesting deeper than this is refused while parsing, before it is built.
inline constexpr int kMaxJsonDepth = 32;

// What the scanner may print on stdout (upstream's STDOUT_CAP_BYTES, kept).
inline constexpr std::size_t kStdoutCapBytes = 32 * kMiB;
// How much of stderr comes back: the last this-many characters.
inline constexpr std::size_t kStderrTailChars = 2000;

// result.json and out.tar, as the worker will read them.
inline constexpr std::size_t kResultMaxBytes = 1 * kMiB;
inline constexpr std::size_t kOutTarMaxBytes = kStdoutCapBytes + kResultMaxBytes + 64 * 1024;

// The most processes and threads one run may hold at once, as a whole: the pids bound every
// runtime sets on a run (bwrap's cgroup pids.max, oci's --pids-limit) and the probe's
// pids_bounded assertion holds it to.
inline constexpr std::uint64_t kRunPidsMax = 256;

// Timeouts the manifest may ask for.
inline constexpr std::uint64_t kMaxTimeoutMs = 24ULL * 3600 * 1000;

}  // namespace batlehub::wire
