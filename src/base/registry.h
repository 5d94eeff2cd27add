// Named entries registered before main (by objects at namespace scope) and looked up after.
// Entries live in a deque, so that a pointer handed out stays valid while later entries are
// added; a mutex, so that a registration made outside static initialisation is safe too.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace batlehub::base {

template <class T>
class NamedRegistry {
 public:
  // false, and nothing added, when `name` is already taken.
  bool add(std::string name, T value) {
    std::lock_guard lock(mu_);
    for (const auto& [n, v] : entries_) {
      if (n == name) return false;
    }
    entries_.emplace_back(std::move(name), std::move(value));
    return true;
  }
  const T* find(std::string_view name) const {
    std::lock_guard lock(mu_);
    for (const auto& [n, v] : entries_) {
      if (n == name) return &v;
    }
    return nullptr;
  }
  // In registration order.
  std::vector<const T*> all() const {
    std::lock_guard lock(mu_);
    std::vector<const T*> out;
    for (const auto& [n, v] : entries_) out.push_back(&v);
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::deque<std::pair<std::string, T>> entries_;
};

}  // namespace batlehub::base
