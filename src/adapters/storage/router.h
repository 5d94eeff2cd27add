// The part of upstream's deduplicating storage router this worker needs
// (upstream-storage-and-queue.md A.6; RFC 0022 §5.2): a content is stored once, as
// blob/<sha256>, on the backend the first key holding it was routed to. Which logical key
// holds which content is bookkeeping in the database (the dedup tables, read by
// server/service/artifact_cache.h), never an object: upstream reads an object at a logical key as
// the artifact itself (its legacy layout).
//
// The router presigns nothing and lists nothing: a key the sandbox writes is a bundle key
// on one leaf backend (bundle.h), which this router never tracks, so nothing a sandbox
// writes can ever be taken for an artifact (§7).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/storage.h"

namespace batlehub::adapters {

// "blob/<sha256>": the one physical key an artifact's content has.
std::string blob_key(const std::string& sha256);
// 64 lowercase hex digits: a sha256 as blob keys and the dedup tables spell it.
bool is_sha256_hex(std::string_view s);

class StorageRouter {
 public:
  // `backends` in configuration order; `default_backend` names one of them.
  StorageRouter(std::vector<std::shared_ptr<core::StorageBackend>> backends, std::string default_backend);

  // The leaf backend of that name, or nullptr: how the bundle module gets its own.
  std::shared_ptr<core::StorageBackend> leaf(const std::string& name) const;

  // Stores `blob` (whose content hashes to `sha256`) once: nothing when a backend already
  // holds blob/<sha256>, else on `backend` ("" = the default). The holder's name.
  Expected<std::string, core::StorageError> store_blob(const core::Blob& blob, const std::string& sha256,
                                                       const std::string& backend = "");

  struct Located {
    std::shared_ptr<core::StorageBackend> backend;
    std::string key;  // blob/<sha256>
    std::uint64_t size = 0;
  };
  // The first backend, in configuration order, whose HEAD finds blob/<sha256>; kNotFound
  // when none does.
  Expected<Located, core::StorageError> locate_blob(const std::string& sha256) const;

 private:
  std::vector<std::shared_ptr<core::StorageBackend>> backends_;
  std::shared_ptr<core::StorageBackend> default_;
};

}  // namespace batlehub::adapters
