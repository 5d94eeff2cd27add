// The deduplicating storage router, the part of it the sandbox reads through (RFC 0022
// §5.2): an artifact is stored once per content, as blob/<sha256> on the backend that first
// received it, and its logical key (artifact:<registry>/<name>/<version>) is a small ref
// object on the default backend naming that blob and that backend. A read of the logical
// key — and presign_get, which is the sandbox's read — resolves the ref and answers with
// the physical blob on the backend that holds it.
//
// The router presigns reads only. presign_put stays Unsupported here on purpose: a key the
// sandbox writes is a bundle key on one leaf backend, which this router never tracks, so
// nothing a sandbox writes can ever be resolved as an artifact (§7).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/storage.h"

namespace batlehub::adapters {

// "blob/<sha256>": the one physical key an artifact's content has.
std::string blob_key(const std::string& sha256);

class StorageRouter {
 public:
  // `backends` in configuration order; `default_backend` names one of them.
  StorageRouter(std::vector<std::shared_ptr<core::StorageBackend>> backends, std::string default_backend);

  // The leaf backend of that name, or nullptr: how the bundle module gets its own.
  std::shared_ptr<core::StorageBackend> leaf(const std::string& name) const;

  // Stores `blob` (whose content hashes to `sha256`) under `logical_key`: its bytes once
  // (none when any backend already holds blob/<sha256>), then the ref.
  Expected<Ok, core::StorageError> store_artifact(const std::string& logical_key, const core::Blob& blob,
                                                  const std::string& sha256);

  struct Located {
    std::shared_ptr<core::StorageBackend> backend;
    std::string key;  // blob/<sha256>
    std::uint64_t size = 0;
  };
  // The backend holding blob/<sha256>: the ref's when a logical key names it, otherwise
  // the first in configuration order whose HEAD finds it. kNotFound when none does.
  Expected<Located, core::StorageError> locate_blob(const std::string& sha256) const;
  Expected<Located, core::StorageError> resolve(const std::string& logical_key) const;

  // A presigned GET on the physical blob a logical key resolves to, from the backend that
  // holds it (Unsupported when that backend cannot presign).
  Expected<std::string, core::StorageError> presign_get(const std::string& logical_key, std::chrono::seconds ttl) const;
  Expected<std::string, core::StorageError> presign_put(const std::string& key, std::chrono::seconds ttl,
                                                        std::uint64_t max_bytes) const;

 private:
  std::vector<std::shared_ptr<core::StorageBackend>> backends_;
  std::shared_ptr<core::StorageBackend> default_;
};

}  // namespace batlehub::adapters
