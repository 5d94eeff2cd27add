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

// An ASCII letter or underscore: where a name of either language may start.
inline bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// An ASCII letter, digit or underscore: what the names of both languages are made of (a
// reader adds JavaScript's '$', or UTF-8's bytes from 0x80, where it needs them).
inline bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
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
