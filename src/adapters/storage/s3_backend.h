// The storage port on an S3-compatible endpoint (RFC 0022 §5.2): one bucket, signed with
// SigV4 (storage/sigv4.h), spoken over libcurl, one easy handle per request.
//
// Presigning. presign_get signs `host` only. presign_put signs `host` only too, and so does
// NOT bound the body: a query presign can sign a Content-Length, but only an exact one, and
// the agent's out.tar length is not known when the URL is made; "at most N" exists only in
// a POST policy (content-length-range), which is not a PUT. `max_bytes` is therefore not
// enforced by the URL: the worker HEADs the result and refuses one above the ceiling (the
// RFC's own defence, which holds whatever the endpoint does). TTLs above S3's 7 days are
// refused.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "adapters/storage/sigv4.h"
#include "base/expected.h"
#include "config/config.h"
#include "core/env.h"
#include "core/storage.h"

namespace batlehub::adapters {

struct S3Options {
  std::chrono::seconds timeout{300};  // one whole request; connecting has 10 s of it
  int max_keys = 1000;                // ListObjectsV2's page size (tests make it small)
  // What presigned URLs are dated with; system_clock::now when empty.
  std::function<std::chrono::system_clock::time_point()> clock;
};

class S3Backend final : public core::StorageBackend {
 public:
  // Credentials come from the config, or — when it names neither key — from `env`'s
  // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, read now. Neither is an
  // error, as are an endpoint that is not http(s)://host[:port] and an empty bucket.
  static Expected<std::unique_ptr<S3Backend>, std::string> create(const config::StorageBackendConfig& c,
                                                                  const core::Env& env, S3Options options = {});

  const std::string& name() const override { return name_; }
  std::string_view type() const override { return "s3"; }

  Expected<Ok, core::StorageError> put(const std::string& key, std::string_view bytes) override;
  Expected<Ok, core::StorageError> put_blob(const std::string& key, const core::Blob& blob) override;
  Expected<std::string, core::StorageError> get(const std::string& key, std::uint64_t max_bytes) override;
  Expected<core::ObjectInfo, core::StorageError> head(const std::string& key) override;
  Expected<Ok, core::StorageError> remove(const std::string& key) override;
  Expected<std::vector<core::ObjectInfo>, core::StorageError> list(const std::string& prefix) override;

  Expected<std::string, core::StorageError> presign_get(const std::string& key,
                                                        std::chrono::seconds ttl) const override;
  Expected<std::string, core::StorageError> presign_put(const std::string& key, std::chrono::seconds ttl,
                                                        std::uint64_t max_bytes) const override;

  // What a request carries, before and after signing; public for the backend's own file.
  struct Call;
  struct Response;

 private:
  S3Backend() = default;

  std::string object_uri(const std::string& key) const;  // canonical, encoded once
  Expected<Call, core::StorageError> object_call(const char* method, const std::string& key) const;
  std::string bucket_uri() const;
  Expected<Response, core::StorageError> perform(const Call& call) const;
  Expected<std::string, core::StorageError> presign(const char* method, const std::string& key,
                                                    std::chrono::seconds ttl) const;
  core::StorageError error(core::StorageError::Kind kind, std::string_view op, std::string_view key,
                           std::string_view why) const;

  std::string name_;
  std::string scheme_;  // "http" or "https"
  std::string host_;    // the Host header: [bucket.]host[:port], a default port left out
  std::string bucket_;
  std::string region_;
  bool path_style_ = true;
  std::string ca_file_;
  sigv4::Credentials credentials_;
  S3Options options_;
};

}  // namespace batlehub::adapters
