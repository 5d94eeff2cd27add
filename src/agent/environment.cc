#include "agent/environment.h"

namespace batlehub::agent {

std::vector<std::string> scanner_environment(std::string_view home, std::string_view path) {
  return {"HOME=" + std::string(home), "PATH=" + std::string(path)};
}

}  // namespace batlehub::agent
