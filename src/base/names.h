// One way to spell an enum: a table of (value, name) pairs, read both ways. Every enum
// that crosses a wire, a configuration file or a message is spelled through one of these,
// so that a name and its value are written once, side by side, and reviewed as data.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace batlehub::base {

template <class E, std::size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

// The value's name; "?" for a value the table lacks (a cast from a stray integer).
template <class E, std::size_t N>
constexpr std::string_view name_of(const Names<E, N>& names, E e) {
  for (const auto& [k, v] : names) {
    if (k == e) return v;
  }
  return "?";
}

// The value a name spells, exactly (case and all), or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const Names<E, N>& names, std::string_view s) {
  for (const auto& [k, v] : names) {
    if (v == s) return k;
  }
  return std::nullopt;
}

}  // namespace batlehub::base
