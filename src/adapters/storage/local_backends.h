// The two storage backends that cannot presign: a directory tree on the worker's own
// filesystem, and a map in memory (tests, a single process). Both answer presign_get and
// presign_put with Unsupported (core/storage.h), which is why the configuration refuses a
// storage transport on them.
#pragma once

#include <memory>
#include <string>

#include "core/storage.h"

namespace batlehub::adapters {

// Keys are paths under `root`, checked by core::check_key before any path is made of
// them; an object is written to a temporary file and renamed into place, so a reader sees
// the whole object or none.
std::unique_ptr<core::StorageBackend> filesystem_backend(std::string name, std::string root);

std::unique_ptr<core::StorageBackend> memory_backend(std::string name);

}  // namespace batlehub::adapters
