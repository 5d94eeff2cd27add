// The benches' client of their own S3 server (scripts/s3-peer.sh, started by each bench on a
// free loopback port): the script's fixed credentials and bucket, and an S3Backend on them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/storage/s3_backend.h"
#include "bench_support.h"
#include "config/config.h"
#include "core/storage.h"

namespace batlehub::bench {

inline constexpr const char* kAccessKey = "batlehub-test";
inline constexpr const char* kSecretKey = "batlehub-test-secret";
inline constexpr const char* kBucket = "batlehub-test";

// Path-style, plain http on host:port (127.0.0.1, or an address of this machine that relays to
// it); the keys through the AWS chain's first link, an environment of the bench's own (the
// process's is not read).
inline std::shared_ptr<core::StorageBackend> s3_backend(int port, const char* bucket = kBucket,
                                                        const std::string& host = "127.0.0.1") {
  config::StorageBackendConfig c;
  c.name = std::string("bench-") + bucket;
  c.type = config::StorageType::kS3;
  c.endpoint_url = "http://" + host + ":" + std::to_string(port);
  c.bucket = bucket;
  c.region = "us-east-1";
  c.force_path_style = true;
  auto s3 = adapters::S3Backend::create(
      c, config::env_of({{"AWS_ACCESS_KEY_ID", kAccessKey}, {"AWS_SECRET_ACCESS_KEY", kSecretKey}}));
  if (!s3) die("the S3 backend: " + s3.error());
  return std::shared_ptr<core::StorageBackend>(std::move(*s3));
}

}  // namespace batlehub::bench
