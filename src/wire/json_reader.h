// Strict, bounded reading of a parsed JSON document (internal to the wire library).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "wire/error.h"
#include "base/expected.h"

namespace batlehub::wire::detail {

// Thrown inside the codec only; parse_* turn it into a WireError.
struct Refusal {
  WireError error;
};

[[noreturn]] inline void refuse(std::string where, std::string message) {
  throw Refusal{WireError{std::move(where), std::move(message)}};
}

// The refusal of a document whose `wire` is another version than ours.
[[noreturn]] inline void refuse_version(std::string message) {
  throw Refusal{WireError{"/wire", std::move(message), true}};
}

// Parses `text` into a DOM, refusing it over `max_bytes` before parsing and refusing
// nesting deeper than `max_depth` while parsing (before the deep part is built).
Expected<nlohmann::json, WireError> parse_bounded(std::string_view text, std::size_t max_bytes, int max_depth);

// A view of one JSON object that refuses keys it was not asked about.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& j, std::string where);

  const nlohmann::json* optional(std::string_view key);
  const nlohmann::json& required(std::string_view key);

  std::uint64_t u64(std::string_view key, std::uint64_t max);
  std::uint64_t u64_or(std::string_view key, std::uint64_t fallback, std::uint64_t max);
  std::int64_t i64(std::string_view key);
  bool boolean(std::string_view key);
  bool boolean_or(std::string_view key, bool fallback);
  std::string string(std::string_view key, std::size_t max_bytes);
  std::string string_or(std::string_view key, std::string fallback, std::size_t max_bytes);
  const nlohmann::json& array(std::string_view key, std::size_t max_items);
  const nlohmann::json& object(std::string_view key);

  std::string path(std::string_view key) const;
  // Call last: refuses any key that was never asked for.
  void finish() const;

 private:
  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string, std::less<>> seen_;
};

std::string as_string(const nlohmann::json& j, const std::string& where, std::size_t max_bytes);
std::uint64_t as_u64(const nlohmann::json& j, const std::string& where, std::uint64_t max);

}  // namespace batlehub::wire::detail
