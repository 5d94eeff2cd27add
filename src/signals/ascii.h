// The few ASCII helpers the lexer, the decoders, the shell reader and the analysis share:
// written once here, not per file.
#pragma once

#include <string>
#include <string_view>

namespace batlehub::signals {

// The value of a hex digit, or -1.
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// ASCII letters lowercased; every other byte as it is.
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace batlehub::signals
