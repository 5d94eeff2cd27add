// What the network scanners read back (RFC 0022 §6.3): the answers of OSV, Socket, npm's
// registry, Rekor and mlab, parsed as hostile input. No I/O here: the HTTP client and the
// scanner classes that call these functions live elsewhere.
//
// Every parser
//   - checks the answer's byte size against its cap before it parses anything;
//   - parses with a depth bound (kMaxAnswerDepth, nlohmann's parser with a callback guard:
//     the DOM nlohmann builds is destroyed recursively, so nesting is what must be bounded);
//   - never throws: a nlohmann exception, a wrong type or a missing field becomes an
//     AnswerError whose `where` names the answer and the JSON pointer of the field;
//   - passes every string taken from an answer through adapters::printable() before it goes
//     into a summary or an error message.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/scanners/subprocess.h"
#include "base/expected.h"

namespace batlehub::adapters::net {

// Why an answer was refused: `where` names the answer and, when one field is to blame, its
// JSON pointer ("osv querybatch /results/2/vulns/0/id", "socket purl line 3 /alerts/0").
struct AnswerError {
  std::string where;
  std::string what;
  std::string describe() const { return where + ": " + what; }
};

// The caps, checked before parsing.
inline constexpr std::size_t kMaxOsvAnswer = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxSocketAnswer = 8 * 1024 * 1024;  // upstream's
inline constexpr std::size_t kMaxSocketLine = 1024 * 1024;
inline constexpr std::size_t kMaxAttestations = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxRekorEntry = 1024 * 1024;
inline constexpr std::size_t kMaxMlabRecord = 256 * 1024;
inline constexpr std::size_t kMaxNpmVersionDoc = 8 * 1024 * 1024;

// Containers nested deeper than this are refused (the root is at depth 0). The deepest
// documented answer (a Sigstore bundle inside npm's attestations) nests 7.
inline constexpr int kMaxAnswerDepth = 64;

// The helpers the parsers share. Not an interface of its own.
namespace detail {

struct TooDeep {};

// The first `n` code points of UTF-8 text (bytes that do not start a code point are not
// counted, so invalid input is cut somewhere, never read past its end).
inline std::string_view first_chars(std::string_view s, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (count == n) return s.substr(0, i);
      ++count;
    }
  }
  return s;
}

// A string from an answer, made fit for a message: printable, at most 80 code points.
inline std::string quote_of(std::string_view s) {
  std::string_view head = first_chars(s, 80);
  return "\"" + printable(head) + (head.size() < s.size() ? "…\"" : "\"");
}

// A JSON value from an answer, for a message: its type, or the value itself when short.
inline std::string shown(const nlohmann::json& v) {
  if (v.is_string()) return "the string " + quote_of(v.get_ref<const std::string&>());
  if (v.is_number() || v.is_boolean() || v.is_null()) return printable(v.dump());
  return std::string("a JSON ") + v.type_name();
}

inline AnswerError error(const std::string& where, std::string what) {
  return AnswerError{where, std::move(what)};
}

// `where` followed by a JSON pointer (which starts with '/').
inline std::string at(const std::string& where, const std::string& pointer) {
  return pointer.empty() ? where : where + " " + pointer;
}

// The member `key` of `obj`, or nullptr when `obj` is not an object or has no such member.
// (const operator[] on a missing key is undefined behaviour in nlohmann-json: never used.)
inline const nlohmann::json* member(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// A member that is absent or null reads as absent.
inline const nlohmann::json* present(const nlohmann::json& obj, const char* key) {
  const nlohmann::json* m = member(obj, key);
  return m == nullptr || m->is_null() ? nullptr : m;
}

// The answer as JSON: its size checked against `cap`, then parsed with the depth guard.
inline Expected<nlohmann::json, AnswerError> parse_answer(std::string_view body, std::size_t cap,
                                                          const std::string& where) {
  if (body.size() > cap) {
    return Unexpected(error(where, "the answer is " + std::to_string(body.size()) + " bytes, more than the " +
                                       std::to_string(cap) + " read"));
  }
  nlohmann::json::parser_callback_t guard = [](int depth, nlohmann::json::parse_event_t e, nlohmann::json&) {
    if ((e == nlohmann::json::parse_event_t::object_start || e == nlohmann::json::parse_event_t::array_start) &&
        depth >= kMaxAnswerDepth) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    return nlohmann::json::parse(body.begin(), body.end(), guard);
  } catch (const TooDeep&) {
    return Unexpected(error(where, "the answer is nested deeper than " + std::to_string(kMaxAnswerDepth)));
  } catch (const nlohmann::json::exception& e) {
    return Unexpected(error(where, "the answer is not JSON: " + printable(first_chars(e.what(), 200))));
  } catch (const std::exception& e) {
    return Unexpected(error(where, "the answer could not be read: " + printable(first_chars(e.what(), 200))));
  }
}

// An integer given as a JSON integer or as a string of decimal digits (protobuf's JSON form
// of int64), within [0 or INT64_MIN, INT64_MAX]. nullopt with `what` saying why.
inline std::optional<std::int64_t> read_int64(const nlohmann::json& v, bool non_negative, std::string& what) {
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
  if (v.is_number_unsigned()) {
    std::uint64_t u = v.get<std::uint64_t>();
    if (u > kMax) {
      what = "is too big (" + std::to_string(u) + "; at most " + std::to_string(kMax) + ")";
      return std::nullopt;
    }
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) {
    std::int64_t i = v.get<std::int64_t>();
    if (non_negative && i < 0) {
      what = "is negative (" + std::to_string(i) + ")";
      return std::nullopt;
    }
    return i;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    what = d >= 9.2e18             ? "is too big (" + printable(v.dump()) + "; at most " + std::to_string(kMax) + ")"
           : d < 0 && non_negative ? "is negative (" + printable(v.dump()) + ")"
                                   : "is not an integer (" + printable(v.dump()) + ")";
    return std::nullopt;
  }
  if (!v.is_string()) {
    what = "is not a number but " + shown(v);
    return std::nullopt;
  }
  const std::string& s = v.get_ref<const std::string&>();
  std::size_t i = 0;
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i == s.size()) {
    what = "is not a number but " + shown(v);
    return std::nullopt;
  }
  std::uint64_t u = 0;
  bool too_big = false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      what = "is not a number but " + shown(v);
      return std::nullopt;
    }
    auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (u > (kMax + 1 - digit) / 10) too_big = true;  // past INT64_MAX + 1 either way
    if (!too_big) u = u * 10 + digit;
  }
  if (negative && non_negative && !(u == 0 && !too_big)) {
    what = "is negative (" + quote_of(s) + ")";
    return std::nullopt;
  }
  if (too_big || (!negative && u > kMax)) {
    what = "is too big (" + quote_of(s) + "; at most " + std::to_string(kMax) + ")";
    return std::nullopt;
  }
  if (negative) return u == kMax + 1 ? INT64_MIN : -static_cast<std::int64_t>(u);
  return static_cast<std::int64_t>(u);
}

}  // namespace detail

}  // namespace batlehub::adapters::net
