// How the worker reads its environment: one function type for every part that reads it
// (the configuration's rules, the none runtime's refusal), so tests hand in a map instead
// of touching the process's environment.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace batlehub::core {

// The variable's value, or nullopt when it is unset.
using Env = std::function<std::optional<std::string>(std::string_view name)>;

}  // namespace batlehub::core
