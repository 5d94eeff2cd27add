#include "core/storage.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "base/fd.h"
#include "base/percent_encode.h"

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

Expected<std::uint64_t, StorageError> StorageBackend::get_to_fd(const std::string& key, int fd,
                                                                std::uint64_t max_bytes) {
  auto bytes = get(key, max_bytes);
  if (!bytes) return Unexpected(bytes.error());
  if (!base::write_all(fd, *bytes)) {
    return Unexpected(StorageError{StorageError::Kind::kIo,
                                   "storage backend '" + name() + "': writing " + key + " out: " + std::strerror(errno)});
  }
  return static_cast<std::uint64_t>(bytes->size());
}

std::string StorageBackend::location(const std::string& key_prefix) const {
  return std::string(type()) + " backend " + name() + ", keys " + key_prefix;
}

Expected<std::string, StorageError> StorageBackend::presign_get(const std::string& /*key*/,
                                                                std::chrono::seconds /*ttl*/) const {
  return Unexpected(cannot_presign(name(), type()));
}

Expected<PresignedPost, StorageError> StorageBackend::presign_post(const std::string& /*key*/,
                                                                   std::chrono::seconds /*ttl*/,
                                                                   std::uint64_t /*max_bytes*/) const {
  return Unexpected(cannot_presign(name(), type()));
}

Expected<std::string, StorageError> StorageBackend::presign_put(const std::string& /*key*/,
                                                                std::chrono::seconds /*ttl*/,
                                                                std::uint64_t /*max_bytes*/) const {
  return Unexpected(cannot_presign(name(), type()));
}

namespace {

using base::hex_digit;

// Decodes %XX repeatedly (a bounded number of times: each pass shortens the text) and says
// whether the segment ever reads "." or "..".
bool percent_decoded_is_dot_dot(std::string_view seg) {
  std::string cur(seg);
  for (int pass = 0; pass < 8 && cur.find('%') != std::string::npos; ++pass) {
    std::string next;
    for (std::size_t i = 0; i < cur.size(); ++i) {
      if (cur[i] == '%' && i + 2 < cur.size() && hex_digit(cur[i + 1]) >= 0 && hex_digit(cur[i + 2]) >= 0) {
        next += static_cast<char>(hex_digit(cur[i + 1]) * 16 + hex_digit(cur[i + 2]));
        i += 2;
      } else {
        next += cur[i];
      }
    }
    if (next == cur) break;
    cur = std::move(next);
    if (cur == ".." || cur == ".") return true;
  }
  return false;
}

}  // namespace

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
    // Upstream refuses it too (upstream-storage-and-queue.md A.6): a separator elsewhere.
    if (ch == '\\') return bad("a backslash");
  }
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t end = std::min(key.find('/', start), key.size());
    const std::string_view seg = key.substr(start, end - start);
    // A trailing '/' (a prefix-like key) is refused too: no object is named so.
    if (seg.empty()) return bad("an empty path segment");
    if (seg == "." || seg == "..") return bad("a '.' or '..' segment");
    // As upstream: a segment that percent-decodes (once or more) to "..", since a key may
    // become a URL path ("%2e%2e", "%252e%252e").
    if (percent_decoded_is_dot_dot(seg)) return bad("a segment that percent-decodes to '.' or '..'");
    start = end + 1;
  }
  return Ok{};
}

std::optional<std::string> upstream_artifact_key(std::string_view registry_type, std::string_view registry,
                                                 std::string_view name, std::string_view version) {
  static constexpr std::pair<std::string_view, std::string_view> kFile[] = {
      {"npm", "tarball"},   {"galaxy", "tarball"}, {"cargo", "dl"},
      {"composer", "dist"}, {"rubygems", "gem"},   {"goproxy", "zip"},
      {"openvsx", "vsix"},  {"vscode-marketplace", "vsix"}, {"jetbrains-marketplace", "plugin"}};
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  };
  const std::string head = "artifact:" + std::string(registry) + "/";
  if (registry_type == "nuget") {
    const std::string id = lower(name), v = lower(version);
    return head + id + "/" + v + "/" + id + "." + v + ".nupkg";
  }
  for (const auto& [type, file] : kFile) {
    if (type == registry_type) {
      return head + std::string(name) + "/" + std::string(version) + "/" + std::string(file);
    }
  }
  return std::nullopt;
}

}  // namespace batlehub::core
