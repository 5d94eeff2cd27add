// Blobs the worker holds: a file it opened, or bytes in memory.
#pragma once

#include <memory>
#include <string>

#include "core/sandbox.h"

namespace batlehub::adapters {

// Opens `path` read-only now; the blob keeps the descriptor, so what a run copies is what
// was opened, whatever happens to the path afterwards.
Expected<std::shared_ptr<const core::Blob>, std::string> file_blob(const std::string& path);
std::shared_ptr<const core::Blob> memory_blob(std::string bytes, std::string name);

}  // namespace batlehub::adapters
