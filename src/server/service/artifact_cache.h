// A version's artifact where upstream's proxy caches it (upstream-storage-and-queue.md A.6):
// found through the deduplicating router's tables in the queue's database, read from the
// [storage] backend they name, and verified against the sha256 and size they record before
// any scanner sees it. This worker downloads nothing from registries: a version whose file is
// not cached is an error naming the key.
//
// `batlehub submit` stores the way upstream's router does: the bytes once, as blob/<sha256>
// on the backend the key routes to (or wherever they already are), and the key's rows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "adapters/storage/router.h"
#include "base/expected.h"
#include "config/config.h"
#include "core/findings.h"
#include "core/queue.h"
#include "core/sandbox.h"

namespace batlehub::server {

struct CachedArtifact {
  core::PackageKind kind = core::PackageKind::kNpm;
  std::string logical_key;
  // A private copy, read and hashed before it is handed out: what a scanner reads is what
  // was verified, whatever happens to the stored object afterwards. Its sha256 is known.
  std::shared_ptr<const core::Blob> blob;
};

// The key a version's file is cached under. A `[[registries]]` entry's type names upstream's
// file (A.6's table); a registry of this worker's own (`batlehub submit` beside no proxy)
// uses that name for the package's kind when upstream has one, else the archive's own file
// name — so that the key alone says the kind when the worker reads it back.
Expected<std::string, std::string> artifact_key(const config::Config& c, const core::Package& p,
                                                std::string_view file_name);

class ArtifactCache {
 public:
  // `spool_dir`: where verified copies are made (each unlinked once opened).
  // `cfg` ([[registries]], [storage], the extraction bound) must outlive the cache.
  ArtifactCache(const config::Config& cfg, std::shared_ptr<adapters::StorageRouter> storage, core::ScanQueue& queue,
                std::string spool_dir);

  // A.6's read algorithm for the coordinate's key, the kind the registry (or the key) says.
  Expected<CachedArtifact, std::string> fetch(const core::Coordinate& c) const;
  // Stores the archive at `path` as `p`'s artifact; its sha256.
  Expected<std::string, std::string> store(const std::string& path, const core::Package& p) const;

 private:
  // The most bytes one artifact may have: what extraction may write at most, twice over for
  // a tar's headers and padding. Larger cannot pass extraction, and is refused unread.
  std::uint64_t max_bytes() const;
  Expected<std::shared_ptr<const core::Blob>, std::string> read_verified(
      core::StorageBackend& backend, const std::string& object_key, const std::string& logical_key,
      const std::string& want_sha256, std::optional<std::int64_t> want_size, bool* not_found) const;

  const config::Config& cfg_;
  std::shared_ptr<adapters::StorageRouter> storage_;
  core::ScanQueue& queue_;
  std::string spool_dir_;
};

}  // namespace batlehub::server
