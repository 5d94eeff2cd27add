// The [storage] table every configuration file needs (upstream refuses a file without one,
// and so does the loader): one filesystem backend, for tests whose subject is elsewhere.
#pragma once

#include <string>
#include <string_view>

namespace batlehub::testing {

// "" when `rest` (the rest of the file, or the parts a test passes in) already has its own
// [storage]; the table is appended after every line a test counts.
inline std::string storage_table(std::string_view rest = "", std::string_view path = "/var/cache/batlehub") {
  if (rest.find("[storage") != std::string_view::npos) return "";
  return "\n[storage]\ntype = \"filesystem\"\npath = \"" + std::string(path) + "\"\n";
}

}  // namespace batlehub::testing
