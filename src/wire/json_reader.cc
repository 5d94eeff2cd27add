#include "wire/json_reader.h"

namespace batlehub::wire::detail {

using nlohmann::json;

namespace {
struct TooDeep {};
}  // namespace

Expected<json, WireError> parse_bounded(std::string_view text, std::size_t max_bytes, int max_depth) {
  if (text.size() > max_bytes) {
    return Unexpected(WireError{"", "document is " + std::to_string(text.size()) + " bytes, more than the " +
                                        std::to_string(max_bytes) + " allowed"});
  }
  // nlohmann's parser is iterative, but a deep document is still a deep tree to build and
  // free; the callback stops it at the first level past the bound.
  json::parser_callback_t cb = [max_depth](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= max_depth) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const TooDeep&) {
    return Unexpected(WireError{"", "document nests deeper than " + std::to_string(max_depth) + " levels"});
  } catch (const json::exception& e) {
    return Unexpected(WireError{"", std::string("not valid JSON: ") + e.what()});
  }
}

ObjectReader::ObjectReader(const json& j, std::string where) : j_(j), where_(std::move(where)) {
  if (!j_.is_object()) refuse(where_.empty() ? "/" : where_, "expected an object");
}

std::string ObjectReader::path(std::string_view key) const {
  return where_ + "/" + std::string(key);
}

const json* ObjectReader::optional(std::string_view key) {
  seen_.emplace(key);
  auto it = j_.find(key);
  if (it == j_.end() || it->is_null()) return nullptr;
  return &*it;
}

const json& ObjectReader::required(std::string_view key) {
  const json* v = optional(key);
  if (v == nullptr) refuse(path(key), "is required");
  return *v;
}

std::uint64_t as_u64(const json& j, const std::string& where, std::uint64_t max) {
  if (!j.is_number_unsigned()) refuse(where, "expected a non-negative integer");
  auto v = j.get<std::uint64_t>();
  if (v > max) refuse(where, std::to_string(v) + " is more than the " + std::to_string(max) + " allowed");
  return v;
}

std::string as_string(const json& j, const std::string& where, std::size_t max_bytes) {
  if (!j.is_string()) refuse(where, "expected a string");
  const auto& s = j.get_ref<const std::string&>();
  if (s.size() > max_bytes) {
    refuse(where, "is " + std::to_string(s.size()) + " bytes, more than the " + std::to_string(max_bytes) + " allowed");
  }
  return s;
}

std::uint64_t ObjectReader::u64(std::string_view key, std::uint64_t max) {
  return as_u64(required(key), path(key), max);
}

std::uint64_t ObjectReader::u64_or(std::string_view key, std::uint64_t fallback, std::uint64_t max) {
  const json* v = optional(key);
  return v == nullptr ? fallback : as_u64(*v, path(key), max);
}

std::int64_t ObjectReader::i64(std::string_view key) {
  const json& v = required(key);
  if (!v.is_number_integer()) refuse(path(key), "expected an integer");
  return v.get<std::int64_t>();
}

bool ObjectReader::boolean(std::string_view key) {
  const json& v = required(key);
  if (!v.is_boolean()) refuse(path(key), "expected true or false");
  return v.get<bool>();
}

bool ObjectReader::boolean_or(std::string_view key, bool fallback) {
  const json* v = optional(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) refuse(path(key), "expected true or false");
  return v->get<bool>();
}

std::string ObjectReader::string(std::string_view key, std::size_t max_bytes) {
  return as_string(required(key), path(key), max_bytes);
}

std::string ObjectReader::string_or(std::string_view key, std::string fallback, std::size_t max_bytes) {
  const json* v = optional(key);
  return v == nullptr ? std::move(fallback) : as_string(*v, path(key), max_bytes);
}

const json& ObjectReader::array(std::string_view key, std::size_t max_items) {
  const json& v = required(key);
  if (!v.is_array()) refuse(path(key), "expected an array");
  if (v.size() > max_items) {
    refuse(path(key), "has " + std::to_string(v.size()) + " items, more than the " + std::to_string(max_items) +
                          " allowed");
  }
  return v;
}

const json& ObjectReader::object(std::string_view key) {
  const json& v = required(key);
  if (!v.is_object()) refuse(path(key), "expected an object");
  return v;
}

void ObjectReader::finish() const {
  for (const auto& [k, _] : j_.items()) {
    if (!seen_.contains(k)) refuse(path(k), "is not a field this wire version knows");
  }
}

}  // namespace batlehub::wire::detail
