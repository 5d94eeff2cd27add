#include "adapters/storage/router.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace batlehub::adapters {

namespace {

using core::StorageError;
using Kind = StorageError::Kind;

// A ref names 64 hex digits and a backend's name: anything longer is not ours.
constexpr std::uint64_t kRefMaxBytes = 4096;

bool is_sha256(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Unexpected<StorageError> router_error(Kind k, const std::string& what) {
  return Unexpected(StorageError{k, "storage router: " + what});
}

}  // namespace

std::string blob_key(const std::string& sha256) {
  return "blob/" + sha256;
}

StorageRouter::StorageRouter(std::vector<std::shared_ptr<core::StorageBackend>> backends, std::string default_backend)
    : backends_(std::move(backends)) {
  for (const auto& b : backends_) {
    if (b->name() == default_backend) default_ = b;
  }
  if (!default_ && !backends_.empty()) default_ = backends_.front();
}

std::shared_ptr<core::StorageBackend> StorageRouter::leaf(const std::string& name) const {
  for (const auto& b : backends_) {
    if (b->name() == name) return b;
  }
  return nullptr;
}

Expected<Ok, StorageError> StorageRouter::store_artifact(const std::string& logical_key, const core::Blob& blob,
                                                         const std::string& sha256) {
  if (!is_sha256(sha256)) return router_error(Kind::kBadKey, "\"" + sha256 + "\" is not a sha256");
  if (!default_) return router_error(Kind::kIo, "no backend is declared");
  auto where = locate_blob(sha256);
  std::string holder;
  if (where) {
    holder = where->backend->name();
  } else if (where.error().kind == Kind::kNotFound) {
    if (auto put = default_->put_blob(blob_key(sha256), blob); !put) return Unexpected(put.error());
    holder = default_->name();
  } else {
    return Unexpected(where.error());
  }
  const nlohmann::json ref = {{"sha256", sha256}, {"backend", holder}};
  return default_->put(logical_key, ref.dump());
}

Expected<StorageRouter::Located, StorageError> StorageRouter::locate_blob(const std::string& sha256) const {
  if (!is_sha256(sha256)) return router_error(Kind::kBadKey, "\"" + sha256 + "\" is not a sha256");
  const std::string key = blob_key(sha256);
  for (const auto& b : backends_) {
    auto h = b->head(key);
    if (h) return Located{b, key, h->size};
    if (h.error().kind != Kind::kNotFound) return Unexpected(h.error());
  }
  return router_error(Kind::kNotFound, "no backend holds " + key);
}

Expected<StorageRouter::Located, StorageError> StorageRouter::resolve(const std::string& logical_key) const {
  if (!default_) return router_error(Kind::kIo, "no backend is declared");
  auto bytes = default_->get(logical_key, kRefMaxBytes);
  if (!bytes) return Unexpected(bytes.error());
  const auto ref = nlohmann::json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (!ref.is_object() || !ref.contains("sha256") || !ref["sha256"].is_string() || !ref.contains("backend") ||
      !ref["backend"].is_string()) {
    return router_error(Kind::kIo, "the ref at " + logical_key + " is not {sha256, backend}");
  }
  const std::string sha256 = ref["sha256"].get<std::string>();
  if (!is_sha256(sha256)) return router_error(Kind::kIo, "the ref at " + logical_key + " names no sha256");
  auto backend = leaf(ref["backend"].get<std::string>());
  if (backend) {
    auto h = backend->head(blob_key(sha256));
    if (h) return Located{backend, blob_key(sha256), h->size};
    if (h.error().kind != Kind::kNotFound) return Unexpected(h.error());
  }
  // The ref's backend was renamed or lost the blob: any backend that holds the content will do.
  return locate_blob(sha256);
}

Expected<std::string, StorageError> StorageRouter::presign_get(const std::string& logical_key,
                                                               std::chrono::seconds ttl) const {
  auto where = resolve(logical_key);
  if (!where) return Unexpected(where.error());
  return where->backend->presign_get(where->key, ttl);
}

Expected<std::string, StorageError> StorageRouter::presign_put(const std::string& key, std::chrono::seconds /*ttl*/,
                                                               std::uint64_t /*max_bytes*/) const {
  return router_error(Kind::kUnsupported, "presign_put of " + key +
                                              " refused: the router presigns reads only; a sandbox writes a bundle "
                                              "key on its leaf backend");
}

}  // namespace batlehub::adapters
