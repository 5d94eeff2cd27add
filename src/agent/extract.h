// Extraction of an untrusted archive under an ExtractPolicy (RFC 0022 §4.2, §6.2).
//
// Only libarchive's tar and zip readers and its xz and bzip2 filters are registered: the
// other readers (RAR above all) are where its recent CVEs are, and no package format needs
// them. The gzip layer of a .tar.gz is inflated by ISA-L's igzip (gunzip.h), not libarchive.
// The format is sniffed from the first bytes, never from a name.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "agent/workdir.h"
#include "base/expected.h"
#include "wire/extract_policy.h"
#include "wire/run_result.h"

namespace batlehub::agent {

enum class ArchiveFormat { kTarGz, kTarXz, kTarBz2, kZip, kTar };

std::optional<ArchiveFormat> sniff(std::span<const unsigned char> head);

struct ExtractError {
  wire::FailureKind kind = wire::FailureKind::kMalformed;  // kTraversal … kMalformed, kWrite
  std::string message;
};

struct ExtractTarget {
  WorkDir* work = nullptr;
  // Where beneath the work dir; must not exist yet.
  std::vector<std::string> dest;
  bool strip_wrapper = false;
  // A member to descend (wire::Entry::descend), relative to `dest` once the wrapper is
  // stripped; empty for none. It must be a regular file holding an archive the sniffer
  // knows: it is removed, and its contents are extracted into the directory that held it,
  // charged to the same budget as the archive (entries and bytes counted once for both, the
  // ratio against the archive's size), so a bomb inside is refused as a bomb.
  std::vector<std::string> descend;
};

// Reads the archive from `fd` (its `size` bytes, from offset 0).
Expected<wire::ExtractReport, ExtractError> extract_fd(int fd, std::uint64_t size, const ExtractTarget& target,
                                                      const wire::ExtractPolicy& policy);
// The same from memory (fuzzing, tests).
Expected<wire::ExtractReport, ExtractError> extract_memory(std::span<const unsigned char> bytes,
                                                          const ExtractTarget& target,
                                                          const wire::ExtractPolicy& policy);

// Whether a file of this name is an archive in its own right (written, never descended
// unless it is the target's `descend`).
bool looks_like_nested_archive(std::string_view name);

}  // namespace batlehub::agent
