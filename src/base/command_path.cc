#include "base/command_path.h"

#include <sys/stat.h>

namespace batlehub::base {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::optional<std::string> resolve_command(std::string_view argv0, std::string_view path, std::string_view root,
                                           Found want) {
  if (argv0.empty()) return std::nullopt;
  if (argv0.find('/') != std::string_view::npos) return std::string(argv0);
  for (const std::string& dir : split_path(path)) {
    std::string inside = dir + "/" + std::string(argv0);
    std::string on_host = std::string(root) + inside;
    struct stat st{};
    if (::stat(on_host.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (want == Found::kExecutableFile && (st.st_mode & 0111) == 0) continue;
    return inside;
  }
  return std::nullopt;
}

}  // namespace batlehub::base
