// `${VAR}` over a configuration file's text, before TOML sees it, with upstream's rules
// (upstream-storage-and-queue.md A.5): every `${NAME}` outside a comment becomes the value
// of the environment variable NAME, an unset one is an error naming it and its line,
// `$${NAME}` is the literal text `${NAME}`, and a comment (a `#` outside any string, to the
// end of its line) is left as it is. Anything else with a `$` in it (`$HOME`, `${}`,
// `${A-B}`) is not a placeholder and is kept verbatim.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/expected.h"
#include "core/env.h"

namespace batlehub::config {

struct ExpandError {
  int line = 0;  // 1-based, in the file as written
  std::string message;
};

// `max_bytes` bounds the expanded text: a value may be large, the file may hold it many
// times, and what comes out still goes through the loader's size limit.
Expected<std::string, ExpandError> expand_variables(std::string_view text, const core::Env& env, std::size_t max_bytes);

}  // namespace batlehub::config
