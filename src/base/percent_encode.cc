#include "base/percent_encode.h"

namespace batlehub::base {

std::string percent_encode(std::string_view s, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char ch : s) {
    const bool unreserved = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                            ch == '-' || ch == '_' || ch == '.' || ch == '~';
    if (unreserved || (keep_slash && ch == '/')) {
      out.push_back(static_cast<char>(ch));
    } else {
      out.push_back('%');
      out.push_back(kDigits[ch >> 4]);
      out.push_back(kDigits[ch & 0xf]);
    }
  }
  return out;
}

}  // namespace batlehub::base
