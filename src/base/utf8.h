// Lossy UTF-8, for text a scanner wrote and we report.
#pragma once

#include <string>
#include <string_view>

namespace batlehub::base {

// `bytes` as valid UTF-8 (each invalid sequence becomes U+FFFD), keeping only the last
// `max_chars` code points.
std::string lossy_utf8_tail(std::string_view bytes, std::size_t max_chars);

// Length of the valid UTF-8 sequence at s[i] (i < s.size()), or 0 when it is not one
// (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace batlehub::base
