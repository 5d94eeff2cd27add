// The storage port on an S3-compatible endpoint (RFC 0022 §5.2): one bucket, signed with
// SigV4 (storage/sigv4.h), spoken through the worker's HTTP client
// (adapters/http/http_client.h), one attempt per request.
//
// Configured as upstream's `type = "s3"` (upstream-storage-and-queue.md A.2): `bucket`,
// `region`, `prefix` (prepended verbatim to every key: put, get, head, remove, list and
// presign all see the caller's key, the bucket holds prefix + key), `endpoint_url` (AWS's
// own regional endpoint when empty) and `force_path_style`. Without it a request is
// virtual-hosted (<bucket>.<host>) as the SDKs make it, except where the SDKs fall back to
// path-style themselves: a bucket name that is not one DNS label, or an endpoint that is an
// IP address. The keys come from the AWS default credential chain (aws_credentials.h),
// asked at every request, so that temporary keys are refreshed under a running worker.
//
// Presigning. presign_get signs `host` only. presign_put signs `host` only too, and so does
// NOT bound the body: a query presign can sign a Content-Length, but only an exact one, and
// the agent's out.tar length is not known when the URL is made; "at most N" exists only in
// a POST policy (content-length-range), which is not a PUT. presign_post makes that policy,
// and the server refuses a larger body (EntityTooLarge): the sandbox writes its result with
// it. The worker still HEADs the result and refuses one above the ceiling (the RFC's own
// defence, which holds whatever the endpoint does). TTLs above S3's 7 days are
// refused. A URL signed with temporary keys carries their session token and lives no longer
// than they do, whatever its TTL says.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "adapters/storage/aws_credentials.h"
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
  // Where the keys come from; the AWS default chain over create()'s `env` when null.
  std::shared_ptr<aws::CredentialsProvider> credentials;
  aws::ChainOptions chain;  // the default chain's clock, timeout and session name
};

class S3Backend final : public core::StorageBackend {
 public:
  // The credential chain is resolved now, against `env` (aws_credentials.h): no link that
  // applies, or one that applies and is wrong (a partial pair, a malformed shared file), is
  // an error, as are an empty bucket or region and an endpoint_url that is not
  // http(s)://host[:port]. Nothing is sent: check_bucket() is the first request.
  static Expected<std::unique_ptr<S3Backend>, std::string> create(const config::StorageBackendConfig& c,
                                                                  const core::Env& env, S3Options options = {});

  const std::string& name() const override { return name_; }
  // "http://127.0.0.1:9000", "https://s3.eu-west-1.amazonaws.com": for messages.
  const std::string& endpoint() const { return endpoint_; }
  // Which link of the credential chain signs this backend's requests.
  const std::string& credentials_source() const { return credentials_->source(); }
  std::string_view type() const override { return "s3"; }
  // s3://<bucket>/<prefix><key_prefix>, as the aws CLI names it.
  std::string location(const std::string& key_prefix) const override {
    return "s3://" + bucket_ + "/" + prefix_ + key_prefix;
  }

  Expected<Ok, core::StorageError> put(const std::string& key, std::string_view bytes) override;
  Expected<Ok, core::StorageError> put_blob(const std::string& key, const core::Blob& blob) override;
  Expected<std::string, core::StorageError> get(const std::string& key, std::uint64_t max_bytes) override;
  Expected<std::uint64_t, core::StorageError> get_to_fd(const std::string& key, int fd,
                                                        std::uint64_t max_bytes) override;
  Expected<core::ObjectInfo, core::StorageError> head(const std::string& key) override;
  Expected<Ok, core::StorageError> remove(const std::string& key) override;
  Expected<std::vector<core::ObjectInfo>, core::StorageError> list(const std::string& prefix) override;

  Expected<std::string, core::StorageError> presign_get(const std::string& key,
                                                        std::chrono::seconds ttl) const override;
  Expected<std::string, core::StorageError> presign_put(const std::string& key, std::chrono::seconds ttl,
                                                        std::uint64_t max_bytes) const override;
  Expected<core::PresignedPost, core::StorageError> presign_post(const std::string& key, std::chrono::seconds ttl,
                                                                 std::uint64_t max_bytes) const override;

  // HeadBucket, as upstream issues it at start: Ok when the bucket answers to these keys.
  // Otherwise "storage backend '<name>' (<endpoint>): S3 bucket '<bucket>' is not
  // reachable: <why>", where <why> is the S3 error code and the HTTP status
  // ("SignatureDoesNotMatch (HTTP 403)", "NoSuchBucket (HTTP 404)", a wrong region), the
  // transfer's failure (curl's message), or why there are no credentials.
  Expected<Ok, core::StorageError> check_bucket() const;

  // What a request carries, before and after signing; public for the backend's own file.
  struct Call;
  struct Response;
  struct Failure;

 private:
  S3Backend() = default;

  std::string object_uri(const std::string& key) const;  // canonical, encoded once
  Expected<Call, core::StorageError> object_call(const char* method, const std::string& key) const;
  std::string bucket_uri() const;
  // The response whatever its status; only a request that got none is a Failure.
  Expected<Response, Failure> transfer(const Call& call) const;
  Expected<Response, core::StorageError> perform(const Call& call) const;
  Expected<std::string, core::StorageError> presign(const char* method, const std::string& key,
                                                    std::chrono::seconds ttl) const;
  // What every presign checks first (the key, its length with the prefix, the TTL), and the
  // credentials it signs with.
  Expected<sigv4::Credentials, core::StorageError> presignable(const std::string& op, const std::string& key,
                                                               std::chrono::seconds ttl) const;
  core::StorageError error(core::StorageError::Kind kind, std::string_view op, std::string_view key,
                           std::string_view why) const;

  std::string name_;
  std::string scheme_;    // "http" or "https"
  std::string host_;      // the Host header: [bucket.]host[:port], a default port left out
  std::string endpoint_;  // scheme://host[:port], without the bucket
  std::string bucket_;
  std::string region_;
  std::string prefix_;
  bool path_style_ = true;
  std::string ca_file_;
  std::shared_ptr<aws::CredentialsProvider> credentials_;
  S3Options options_;
};

}  // namespace batlehub::adapters
