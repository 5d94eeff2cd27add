// ISO 8601 instants as S3 (LastModified) and STS and the container endpoint (Expiration)
// write them: "2026-12-04T10:00:00Z", with or without a fraction of up to nine digits
// (dropped), or with a "+hh:mm"/"-hh:mm" offset. Years outside 1970-2200 are refused: the
// clock counts nanoseconds, and a year far from now would overflow it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace batlehub::adapters {

std::optional<std::chrono::system_clock::time_point> parse_iso8601(std::string_view s);

// "2026-12-04T10:00:00Z": UTC, whole seconds, as a POST policy's expiration and the messages
// about expiring credentials write it.
std::string format_iso8601(std::chrono::system_clock::time_point t);

}  // namespace batlehub::adapters
