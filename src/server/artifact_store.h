// Where submitted archives wait for the worker: content-addressed files under
// <state_dir>/artifacts/sha256/<hex>, written once (a temporary file renamed into place),
// never modified. The queue's job names an artifact by its sha256 only, so a path in the
// queue can never point a worker at a file of the operator's choosing.
#pragma once

#include <memory>
#include <string>

#include "base/expected.h"
#include "core/sandbox.h"

namespace batlehub::server {

class ArtifactStore {
 public:
  explicit ArtifactStore(std::string root) : root_(std::move(root)) {}

  // Copies the regular file at `path` into the store (once: an artifact already there is
  // kept) and returns its sha256, lowercase hex.
  Expected<std::string, std::string> put_file(const std::string& path) const;
  // The stored artifact, opened now. An id that is not 64 hex digits is refused before
  // any path is made of it.
  Expected<std::shared_ptr<const core::Blob>, std::string> get(const std::string& sha256) const;
  std::string path_of(const std::string& sha256) const;

 private:
  std::string root_;  // <state_dir>/artifacts
};

bool is_sha256_hex(std::string_view s);

}  // namespace batlehub::server
