// ExtractPolicy (what an extraction may cost) and ExtractReport (what it did).
#pragma once

#include <cstdint>

namespace batlehub::wire {

struct ExtractPolicy {
  // Every header counts: files, directories, and entries skipped by type.
  std::uint64_t max_entries = 50'000;
  std::uint64_t max_extracted_bytes = 512ULL * 1024 * 1024;
  // Bytes written so far ÷ the compressed input's size, checked after every block.
  std::uint64_t max_ratio = 100;

  bool operator==(const ExtractPolicy&) const = default;
};

struct ExtractReport {
  std::uint64_t files = 0;
  std::uint64_t directories = 0;
  std::uint64_t bytes = 0;
  // Symlinks, hardlinks, devices, fifos, sockets: never created, only counted.
  std::uint64_t refused_by_type = 0;
  // Archives inside the archive: written as files, never descended.
  std::uint64_t nested_archives = 0;

  ExtractReport& operator+=(const ExtractReport& o) {
    files += o.files;
    directories += o.directories;
    bytes += o.bytes;
    refused_by_type += o.refused_by_type;
    nested_archives += o.nested_archives;
    return *this;
  }
  bool operator==(const ExtractReport&) const = default;
};

}  // namespace batlehub::wire
