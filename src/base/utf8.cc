#include "base/utf8.h"

#include <vector>

namespace batlehub::base {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  std::size_t left = s.size() - i;
  auto cont = [&](std::size_t k) { return k < left && (b(k) & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;
    if (c == 0xED && b(1) >= 0xA0) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;
    if (c == 0xF4 && b(1) >= 0x90) return 0;
    return 4;
  }
  return 0;
}

std::string lossy_utf8_tail(std::string_view bytes, std::size_t max_chars) {
  // Code points as (offset, length) into the input; length 0 stands for U+FFFD.
  std::vector<std::pair<std::size_t, std::size_t>> cps;
  cps.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t n = utf8_sequence_length(bytes, i);
    cps.emplace_back(i, n);
    i += n == 0 ? 1 : n;
  }
  std::size_t first = cps.size() > max_chars ? cps.size() - max_chars : 0;
  std::string out;
  for (std::size_t k = first; k < cps.size(); ++k) {
    auto [off, n] = cps[k];
    if (n == 0) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(bytes.substr(off, n));
    }
  }
  return out;
}

}  // namespace batlehub::base
