// The storage port: where bytes live by key (RFC 0022 §5.2, §6.1).
//
// A backend is a leaf — one filesystem tree, one memory map, one S3 bucket — and answers
// for its own keys only. Presigning is the one thing only some backends can do: a URL that
// lets a holder without credentials GET one key, or PUT one key up to a signed length,
// until it expires. The filesystem and in-memory backends answer Unsupported, in the RFC's
// §4.3 words, and the configuration refuses a storage transport on them before a run ever
// asks.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "core/sandbox.h"

namespace batlehub::core {

struct StorageError {
  enum class Kind {
    kNotFound,     // no object at that key
    kUnsupported,  // this backend cannot do that (presigning on filesystem, in_memory)
    kTooLarge,     // the object is larger than the caller would read
    kRefused,      // the backend said no (403, a signature it did not accept…)
    kBadKey,       // a key this port refuses before any I/O (empty, "..", a leading '/')
    kIo,           // a transport or file-system failure
  };
  Kind kind = Kind::kIo;
  std::string message;  // names the backend and the key
};

std::string_view to_string(StorageError::Kind k);

struct ObjectInfo {
  std::string key;
  std::uint64_t size = 0;
  std::chrono::system_clock::time_point last_modified;
  bool operator==(const ObjectInfo&) const = default;
};

// A presigned POST (S3's browser-based upload): the URL to POST a multipart/form-data body
// to, and the form's fields in the order they are sent — the signed policy among them —
// before the file, which goes last.
struct PresignedPost {
  std::string url;
  std::vector<std::pair<std::string, std::string>> fields;
};

class StorageBackend {
 public:
  virtual ~StorageBackend() = default;
  // [storage.backends.<name>]: for messages and for the router.
  virtual const std::string& name() const = 0;
  // "filesystem", "in_memory", "s3".
  virtual std::string_view type() const = 0;
  // Where keys under `key_prefix` live, for an operator's log line: "s3://cache/sandbox/",
  // "/var/cache/batlehub/sandbox/". The default names the backend and its type.
  virtual std::string location(const std::string& key_prefix) const;

  virtual Expected<Ok, StorageError> put(const std::string& key, std::string_view bytes) = 0;
  // The blob's bytes streamed, never held whole: an artifact may be hundreds of MiB.
  virtual Expected<Ok, StorageError> put_blob(const std::string& key, const Blob& blob) = 0;
  // The whole object, refused (kTooLarge) before reading one byte past `max_bytes`.
  virtual Expected<std::string, StorageError> get(const std::string& key, std::uint64_t max_bytes) = 0;
  // The object written to `fd` as it arrives (an artifact of hundreds of MiB is never held
  // whole), refused (kTooLarge) past `max_bytes`; its size. On an error `fd` holds a part.
  // The default reads it whole through get(): fine for in_memory.
  virtual Expected<std::uint64_t, StorageError> get_to_fd(const std::string& key, int fd, std::uint64_t max_bytes);
  virtual Expected<ObjectInfo, StorageError> head(const std::string& key) = 0;
  // Deleting a key that is not there is not an error: a sweep and a cleanup may race.
  virtual Expected<Ok, StorageError> remove(const std::string& key) = 0;
  // Every key under `prefix` (a plain string prefix), in key order.
  virtual Expected<std::vector<ObjectInfo>, StorageError> list(const std::string& prefix) = 0;

  // A URL a holder without credentials can GET `key` with, valid for `ttl`.
  virtual Expected<std::string, StorageError> presign_get(const std::string& key, std::chrono::seconds ttl) const;
  // A URL a holder can PUT `key` with, valid for `ttl`. `max_bytes` is the most the caller
  // will read back, and a URL cannot enforce it: a query presign signs an exact
  // Content-Length or none, and what the sandbox will write is not known when the URL is
  // made (S3's "at most" is a POST policy's, not a PUT's). The bound is the caller's HEAD
  // before reading (BundleStore::read_result), whatever the backend accepted.
  virtual Expected<std::string, StorageError> presign_put(const std::string& key, std::chrono::seconds ttl,
                                                          std::uint64_t max_bytes) const;
  // A form a holder can POST `key` with, valid for `ttl`, whose body the server itself
  // refuses past `max_bytes` (the policy's content-length-range): the bound a presigned PUT
  // cannot carry. What the sandbox writes its result with (RFC 0022 §5.2).
  virtual Expected<PresignedPost, StorageError> presign_post(const std::string& key, std::chrono::seconds ttl,
                                                             std::uint64_t max_bytes) const;
};

// The RFC's §4.3 wording, for every backend that cannot presign.
StorageError cannot_presign(std::string_view backend_name, std::string_view type);

// Keys this port accepts: non-empty, at most 1024 bytes, no leading '/', no "." or ".."
// segment (literal or percent-decoded), no empty segment, no NUL, control character or
// backslash — upstream's rule (upstream-storage-and-queue.md A.6). Checked by every backend
// before any I/O, so that a filesystem backend never makes a path of what it refuses.
Expected<Ok, StorageError> check_key(std::string_view backend_name, std::string_view key);

// The logical key under which upstream's proxy caches a version's one downloadable file
// (upstream-storage-and-queue.md A.6): "artifact:<registry>/<name>/<version>/<file>", the
// file named by the registry's type (npm and galaxy "tarball", cargo "dl", composer "dist",
// rubygems "gem", goproxy "zip", openvsx and vscode-marketplace "vsix",
// jetbrains-marketplace "plugin"; nuget "<id>.<version>.nupkg" with the id, the version and
// the key's own name and version segments lower-cased). nullopt for a type upstream keeps no
// single file of (pypi, conda, maven, terraform, the forges, …): its worker gets no bytes.
std::optional<std::string> upstream_artifact_key(std::string_view registry_type, std::string_view registry,
                                                 std::string_view name, std::string_view version);

}  // namespace batlehub::core
