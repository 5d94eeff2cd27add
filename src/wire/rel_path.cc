#include "wire/rel_path.h"

#include "wire/caps.h"

namespace batlehub::wire {

Expected<RelPath, std::string> RelPath::parse(std::string_view text) {
  if (text.empty()) return Unexpected(std::string("a path may not be empty"));
  if (text.size() > kMaxRelPathBytes) {
    return Unexpected("a path may not be longer than " + std::to_string(kMaxRelPathBytes) + " bytes");
  }
  if (text.front() == '/') return Unexpected("'" + std::string(text) + "' is absolute");
  for (char c : text) {
    if (c == '\\') return Unexpected("'" + std::string(text) + "' contains a backslash");
    if (c == '\0') return Unexpected(std::string("a path may not contain NUL"));
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view comp = text.substr(start, end - start);
    if (comp.empty()) return Unexpected("'" + std::string(text) + "' has an empty component");
    if (comp == "..") return Unexpected("'" + std::string(text) + "' climbs out with '..'");
    if (comp == ".") return Unexpected("'" + std::string(text) + "' has a '.' component");
    if (comp.size() > 255) return Unexpected("'" + std::string(text) + "' has a component over 255 bytes");
    start = end + 1;
  }
  return RelPath(std::string(text));
}

std::vector<std::string_view> RelPath::components() const {
  std::vector<std::string_view> out;
  std::string_view s = path_;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find('/', start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace batlehub::wire
