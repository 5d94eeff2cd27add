// out.tar: result.json and stdout, the only thing the sandbox hands back.
#pragma once

#include <string>
#include <string_view>

#include "base/expected.h"

namespace batlehub::agent {

struct OutTar {
  std::string result_json;
  std::string stdout_bytes;
};

// A ustar archive holding exactly "result.json" then "stdout".
Expected<std::string, std::string> build_out_tar(std::string_view result_json, std::string_view stdout_bytes);

// The worker's side: refuses anything but those two regular entries, each within its cap
// (checked from the header, before a byte is allocated), in an archive within
// kOutTarMaxBytes.
Expected<OutTar, std::string> read_out_tar(std::string_view tar);

}  // namespace batlehub::agent
