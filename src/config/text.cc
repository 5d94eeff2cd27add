#include "config/text.h"

#include <algorithm>
#include <vector>

namespace batlehub::config {

namespace {
bool is_bare_key(std::string_view k) {
  if (k.empty()) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}
}  // namespace

std::string join_key(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (!out.empty()) out += '.';
  out += is_bare_key(key) ? std::string(key) : quoted(key);
  return out;
}

std::string quoted(std::string_view value, char quote) {
  constexpr std::size_t kMaxShown = 100;
  static constexpr char kHex[] = "0123456789abcdef";
  // Cut on a character boundary, never inside a UTF-8 sequence.
  std::size_t shown = std::min(value.size(), kMaxShown);
  while (shown > 0 && shown < value.size() && (static_cast<unsigned char>(value[shown]) & 0xC0) == 0x80) --shown;
  std::string out(1, quote);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c == static_cast<unsigned char>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (shown < value.size()) out += "\xe2\x80\xa6";  // …
  out += quote;
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace batlehub::config
