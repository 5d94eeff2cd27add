// Small text helpers shared by the loader and the validator.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace batlehub::config {

// "worker.sandbox" + "runtime" → "worker.sandbox.runtime"; a key that is not a bare TOML
// key is quoted: "scanners" + "my scanner" → `scanners."my scanner"`.
std::string join_key(std::string_view parent, std::string_view key);

// A value as it may be shown in a message: quoted, control characters escaped, and cut
// after 100 bytes ("…" marks the cut).
std::string quoted(std::string_view value, char quote = '"');

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace batlehub::config
