#include "core/storage.h"

#include <algorithm>

namespace batlehub::core {

std::string_view to_string(StorageError::Kind k) {
  switch (k) {
    case StorageError::Kind::kNotFound:
      return "not found";
    case StorageError::Kind::kUnsupported:
      return "unsupported";
    case StorageError::Kind::kTooLarge:
      return "too large";
    case StorageError::Kind::kRefused:
      return "refused";
    case StorageError::Kind::kBadKey:
      return "bad key";
    case StorageError::Kind::kIo:
      return "io";
  }
  return "io";
}

StorageError cannot_presign(std::string_view backend_name, std::string_view type) {
  return {StorageError::Kind::kUnsupported,
          "storage backend '" + std::string(backend_name) + "': '" + std::string(type) +
              "' cannot presign a URL; configure an S3-compatible backend, or name one in bundle_backend"};
}

Expected<std::string, StorageError> StorageBackend::presign_get(const std::string& /*key*/,
                                                                std::chrono::seconds /*ttl*/) const {
  return Unexpected(cannot_presign(name(), type()));
}

Expected<std::string, StorageError> StorageBackend::presign_put(const std::string& /*key*/,
                                                                std::chrono::seconds /*ttl*/,
                                                                std::uint64_t /*max_bytes*/) const {
  return Unexpected(cannot_presign(name(), type()));
}

Expected<Ok, StorageError> check_key(std::string_view backend_name, std::string_view key) {
  auto bad = [&](std::string_view why) {
    return Unexpected(StorageError{StorageError::Kind::kBadKey, "storage backend '" + std::string(backend_name) +
                                                                    "': key refused (" + std::string(why) + ")"});
  };
  if (key.empty()) return bad("empty");
  if (key.size() > 1024) return bad("longer than 1024 bytes");
  if (key.front() == '/') return bad("starts with '/'");
  for (unsigned char ch : key) {
    if (ch < 0x20 || ch == 0x7f) return bad("a control character");
  }
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t end = std::min(key.find('/', start), key.size());
    const std::string_view seg = key.substr(start, end - start);
    // A trailing '/' (a prefix-like key) is refused too: no object is named so.
    if (seg.empty()) return bad("an empty path segment");
    if (seg == "." || seg == "..") return bad("a '.' or '..' segment");
    start = end + 1;
  }
  return Ok{};
}

}  // namespace batlehub::core
