// Which image a run or a probe of an image runtime (oci, kubernetes) is opened from: the
// one the run names, else its scanner's (config::image_for), else the runtime's default
// (its table's `image`, else BATLEHUB_IMAGE's); none is a refusal, never a guess (and never the
// worker's own image, which holds batlehub: docs/architecture.md, departure 20).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/sandbox.h"

namespace batlehub::adapters {

inline Expected<std::string, core::SandboxError> choose_image(const std::map<std::string, std::string>& images,
                                                              const std::string& default_image, const std::string& room,
                                                              const std::optional<std::string>& given,
                                                              const std::string& table) {
  if (given && !given->empty()) return *given;
  if (auto it = images.find(room); it != images.end() && !it->second.empty()) return it->second;
  if (!default_image.empty()) return default_image;
  return Unexpected(core::SandboxError{core::SandboxError::Kind::kConfig,
                                       "no image for '" + room + "': set image on the scanner or in " + table +
                                           " (or BATLEHUB_IMAGE in the worker's environment)"});
}

}  // namespace batlehub::adapters
