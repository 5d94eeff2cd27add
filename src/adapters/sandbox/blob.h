// Blobs the worker holds: a file it opened, or bytes in memory.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/sandbox.h"

namespace batlehub::adapters {

// Opens `path` read-only now; the blob keeps the descriptor, so what a run copies is what
// was opened, whatever happens to the path afterwards.
// `sha256`, when given, is the content's hash as the caller knows it (a content-addressed
// store's name for it); it is not recomputed.
Expected<std::shared_ptr<const core::Blob>, std::string> file_blob(const std::string& path,
                                                                   std::optional<std::string> sha256 = std::nullopt);
std::shared_ptr<const core::Blob> memory_blob(std::string bytes, std::string name);

}  // namespace batlehub::adapters
