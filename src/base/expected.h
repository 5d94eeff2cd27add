// One small result type for everything that can fail with a reason.
//
// std::expected would do, but g++ 12 only has it in C++23 mode and clang 14 (which builds
// the fuzzers) has none; this header is compiled by both, so it carries its own.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace batlehub {

template <class E>
struct Unexpected {
  // A constructor, not aggregate initialisation: `Unexpected(e)` on an aggregate needs
  // C++20's parenthesised aggregate init, which clang 14 (the fuzz build) lacks.
  explicit Unexpected(E e) : error(std::move(e)) {}
  E error;
};

template <class E>
Unexpected(E) -> Unexpected<E>;

template <class T, class E>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Unexpected<E> e) : v_(std::in_place_index<1>, std::move(e.error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const& {
    assert(!has_value());
    return std::get<1>(v_);
  }
  E&& error() && {
    assert(!has_value());
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, E> v_;
};

// For operations that succeed with nothing to say.
struct Ok {};

}  // namespace batlehub
