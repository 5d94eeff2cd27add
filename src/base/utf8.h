// Lossy UTF-8, for text a scanner wrote and we report.
#pragma once

#include <string>
#include <string_view>

namespace batlehub::base {

// `bytes` as valid UTF-8 (each invalid sequence becomes U+FFFD), keeping only the last
// `max_chars` code points.
std::string lossy_utf8_tail(std::string_view bytes, std::size_t max_chars);

}  // namespace batlehub::base
