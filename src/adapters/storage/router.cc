#include "adapters/storage/router.h"

#include <algorithm>

namespace batlehub::adapters {

namespace {

using core::StorageError;
using Kind = StorageError::Kind;

Unexpected<StorageError> router_error(Kind k, const std::string& what) {
  return Unexpected(StorageError{k, "storage router: " + what});
}

}  // namespace

bool is_sha256_hex(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

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

Expected<std::string, StorageError> StorageRouter::store_blob(const core::Blob& blob, const std::string& sha256,
                                                               const std::string& backend) {
  if (!is_sha256_hex(sha256)) return router_error(Kind::kBadKey, "\"" + sha256 + "\" is not a sha256");
  auto where = locate_blob(sha256);
  if (where) return where->backend->name();
  if (where.error().kind != Kind::kNotFound) return Unexpected(where.error());
  auto target = backend.empty() ? default_ : leaf(backend);
  if (!target) return router_error(Kind::kIo, "no backend named '" + (backend.empty() ? "(default)" : backend) + "'");
  if (auto put = target->put_blob(blob_key(sha256), blob); !put) return Unexpected(put.error());
  return target->name();
}

Expected<StorageRouter::Located, StorageError> StorageRouter::locate_blob(const std::string& sha256) const {
  if (!is_sha256_hex(sha256)) return router_error(Kind::kBadKey, "\"" + sha256 + "\" is not a sha256");
  const std::string key = blob_key(sha256);
  for (const auto& b : backends_) {
    auto h = b->head(key);
    if (h) return Located{b, key, h->size};
    if (h.error().kind != Kind::kNotFound) return Unexpected(h.error());
  }
  return router_error(Kind::kNotFound, "no backend holds " + key);
}

}  // namespace batlehub::adapters
