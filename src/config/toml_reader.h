// A strict reader of TOML tables, apart from any schema: every key is asked for by name and
// type, a key nobody asked for is refused with the closest known one, a wrong type names
// what was expected and what was found, and every refusal carries the file, the line and
// the dotted key (RFC 0022 §4.3's style). config/load.cc is the schema written with it.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "config/config.h"
#include "config/text.h"

namespace batlehub::config::toml_reader {

// Thrown inside the loader only; load_string turns it into the Expected's error.
struct Refusal {
  ConfigError error;
};

inline std::string_view kind_of(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// "a guarddog scanner", "an osv scanner", "an s3 backend", "an mlab scanner" (said em-lab).
inline std::string a_or_an(std::string_view word) {
  const bool an = !word.empty() &&
                  (std::string_view("aeiou").find(word[0]) != std::string_view::npos || word == "s3" || word == "mlab");
  return (an ? "an " : "a ") + std::string(word);
}

inline int line_of(const toml::source_region& r) {
  return static_cast<int>(r.begin.line);
}

// Entries of a table in the order they first appear in the file (toml++ keeps them
// sorted by name).
inline std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> out;
  for (const auto& [k, v] : t) out.emplace_back(&k, &v);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const auto& sa = a.first->source().begin;
    const auto& sb = b.first->source().begin;
    return sa.line != sb.line ? sa.line < sb.line : sa.column < sb.column;
  });
  return out;
}

class Loader {
 public:
  Loader(std::string file, Origin& origin) : file_(std::move(file)), origin_(origin) {}

  [[noreturn]] void refuse(int line, std::string key, std::string message) const {
    throw Refusal{ConfigError{file_, line, std::move(key), std::move(message)}};
  }
  void note(const std::string& key, int line) { origin_.lines.emplace(key, line); }
  // A warning formatted as a refusal is (file:line: key: message), kept for Loaded.
  void warn(int line, std::string key, std::string message) {
    warnings_.push_back(ConfigError{file_, line, std::move(key), std::move(message)}.describe());
  }
  std::vector<std::string>& warnings() { return warnings_; }

 private:
  std::string file_;
  Origin& origin_;
  std::vector<std::string> warnings_;
};

template <class E, std::size_t N>
std::string names_of(const std::array<E, N>& all) {
  std::string out;
  for (E e : all) {
    if (!out.empty()) out += ", ";
    out += to_string(e);
  }
  return out;
}

// One TOML table being read. Every accessor marks its key as known; finish() refuses the
// rest. `what` is how messages name the table ("[worker.sandbox]").
class Table {
 public:
  Table(Loader& l, const toml::table& t, std::string path, std::string what = "")
      : l_(l), t_(t), path_(std::move(path)), what_(what.empty() ? "[" + path_ + "]" : std::move(what)) {
    l_.note(path_, line());
  }

  int line() const { return line_of(t_.source()); }
  std::string key_path(std::string_view key) const { return join_key(path_, key); }

  [[noreturn]] void refuse(std::string_view key, std::string message) const {
    auto it = t_.find(key);
    const int at = it != t_.end() ? line_of(it->first.source()) : line();
    l_.refuse(at, key_path(key), std::move(message));
  }

  std::optional<std::string> str(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    return string_value(*n, key_path(key));
  }

  // The required accessors do not refuse at once: a missing key is reported by finish(),
  // after any unknown key, which is often the same key misspelled.
  std::string required_str(std::string_view key, std::string_view why) {
    auto v = str(key);
    if (!v) missing(key, why);
    return v.value_or("");
  }

  std::optional<std::int64_t> integer(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* i = n->as_integer();
    if (i == nullptr) wrong_type(*n, key_path(key), "an integer");
    return i->get();
  }

  std::int64_t required_integer(std::string_view key, std::string_view why) {
    auto v = integer(key);
    if (!v) missing(key, why);
    return v.value_or(0);
  }

  std::vector<std::string> required_strings(std::string_view key, std::string_view why) {
    auto v = strings(key);
    if (!v) missing(key, why);
    return v.value_or(std::vector<std::string>{});
  }

  std::optional<bool> boolean(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* b = n->as_boolean();
    if (b == nullptr) wrong_type(*n, key_path(key), "a boolean");
    return b->get();
  }

  std::optional<std::vector<std::string>> strings(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* a = n->as_array();
    if (a == nullptr) wrong_type(*n, key_path(key), "an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a->size(); ++i) {
      out.push_back(string_value(*a->get(i), key_path(key) + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  std::optional<std::map<std::string, std::string>> string_map(std::string_view key) {
    const toml::table* t = table(key);
    if (t == nullptr) return std::nullopt;
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : *t) {
      const std::string p = join_key(key_path(key), k.str());
      l_.note(p, line_of(k.source()));
      out.emplace(std::string(k.str()), string_value(v, p));
    }
    return out;
  }

  // A sub-table (a [header] table or an inline one), or nullptr when absent.
  const toml::table* table(std::string_view key) {
    const toml::node* n = get(key);
    if (n == nullptr) return nullptr;
    const auto* t = n->as_table();
    if (t == nullptr) wrong_type(*n, key_path(key), "a table");
    return t;
  }

  template <class E, std::size_t N>
  std::optional<E> choice(std::string_view key, const std::array<E, N>& all) {
    auto s = str(key);
    if (!s) return std::nullopt;
    for (E e : all) {
      if (*s == to_string(e)) return e;
    }
    refuse(key, std::string(key) + " = " + quoted(*s) + " is not one of " + names_of(all));
  }

  // A string among `names` (a registry's, not an enum's).
  std::optional<std::string> one_of(std::string_view key, const std::vector<std::string_view>& names,
                                    std::string_view listed) {
    auto s = str(key);
    if (!s) return std::nullopt;
    if (std::find(names.begin(), names.end(), *s) != names.end()) return s;
    refuse(key, std::string(key) + " = " + quoted(*s) + " is not one of " + std::string(listed));
  }

  // The keys the file set here, in file order.
  std::vector<std::string> keys_in_file() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : in_file_order(t_)) out.emplace_back(k->str());
    return out;
  }

  template <class E, std::size_t N>
  E required_choice(std::string_view key, const std::array<E, N>& all, std::string_view why) {
    auto v = choice(key, all);
    if (!v) missing(key, why);
    return v.value_or(all[0]);
  }

  // Refuses the first key (in file order) that no accessor asked for, then the first
  // required key that was missing.
  void finish() const {
    for (const auto& [k, v] : in_file_order(t_)) {
      if (known_.count(k->str()) != 0) continue;
      l_.refuse(line_of(k->source()), key_path(k->str()), unknown_key_message(k->str()));
    }
    refuse_missing();
  }

  // For a table upstream reads leniently: each key no accessor asked for is a warning that
  // ends with `why` (what happens to it), then the first missing required key is refused.
  void finish_leniently(std::string_view why) const {
    for (const auto& [k, v] : in_file_order(t_)) {
      if (known_.count(k->str()) != 0) continue;
      l_.warn(line_of(k->source()), key_path(k->str()), unknown_key_message(k->str()) + "; " + std::string(why));
    }
    refuse_missing();
  }

  // Marks a key as known without reading it (read elsewhere, or deliberately ignored).
  void known(std::string_view key) { known_.emplace(key); }

 private:
  std::string unknown_key_message(std::string_view key) const {
    std::string message = "unknown key '" + std::string(key) + "' in " + what_;
    if (auto near = closest(key)) message += " (did you mean '" + *near + "'?)";
    return message;
  }

  void refuse_missing() const {
    if (missing_) l_.refuse(line(), key_path(missing_->first), missing_->second);
  }

  void missing(std::string_view key, std::string_view why) {
    if (!missing_) missing_.emplace(std::string(key), std::string(key) + " is required " + std::string(why));
  }

  const toml::node* get(std::string_view key) {
    known_.emplace(key);
    auto it = t_.find(key);
    if (it == t_.end()) return nullptr;
    l_.note(key_path(key), line_of(it->first.source()));
    return &it->second;
  }

  [[noreturn]] void wrong_type(const toml::node& n, const std::string& key, std::string_view expected) const {
    l_.refuse(line_of(n.source()), key, "expected " + std::string(expected) + ", not " + std::string(kind_of(n)));
  }

  std::string string_value(const toml::node& n, const std::string& key) const {
    const auto* s = n.as_string();
    if (s == nullptr) wrong_type(n, key, "a string");
    const std::string& v = s->get();
    if (v.find('\0') != std::string::npos) l_.refuse(line_of(n.source()), key, "must not contain a NUL character");
    return v;
  }

  // A known key within two edits (and fewer edits than half the key's length), else one
  // the unknown key is the start of ("memory_limit" → "memory_limit_mb").
  std::optional<std::string> closest(std::string_view unknown) const {
    std::optional<std::string> best;
    if (unknown.size() > 64) return best;
    std::size_t best_d = std::min<std::size_t>(3, (unknown.size() + 1) / 2);
    for (const auto& k : known_) {
      const std::size_t d = edit_distance(unknown, k);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    if (!best && unknown.size() >= 4) {
      for (const auto& k : known_) {
        if (k.size() > unknown.size() && k.compare(0, unknown.size(), unknown) == 0) return k;
      }
    }
    return best;
  }

  Loader& l_;
  const toml::table& t_;
  std::string path_;
  std::string what_;
  std::set<std::string, std::less<>> known_;
  std::optional<std::pair<std::string, std::string>> missing_;  // key, message
};

inline const toml::table& as_table_or_refuse(Loader& l, const toml::node& n, const std::string& key) {
  const auto* t = n.as_table();
  if (t == nullptr) l.refuse(line_of(n.source()), key, "expected a table, not " + std::string(kind_of(n)));
  return *t;
}

}  // namespace batlehub::config::toml_reader
