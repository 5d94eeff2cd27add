#include "agent/environment.h"

#include <sys/stat.h>

namespace batlehub::agent {

std::vector<std::string> scanner_environment(std::string_view home, std::string_view path) {
  return {"HOME=" + std::string(home), "PATH=" + std::string(path)};
}

namespace {
bool is_executable_file(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
}
}  // namespace

std::optional<std::string> resolve_command(std::string_view argv0, std::string_view path) {
  if (argv0.empty()) return std::nullopt;
  if (argv0.find('/') != std::string_view::npos) return std::string(argv0);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view dir = path.substr(start, end - start);
    if (!dir.empty()) {
      std::string candidate = std::string(dir) + "/" + std::string(argv0);
      if (is_executable_file(candidate)) return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace batlehub::agent
