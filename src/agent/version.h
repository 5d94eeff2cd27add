#pragma once

#include <string_view>

namespace batlehub::agent {
inline constexpr std::string_view kAgentVersion = "0.1.0";
}  // namespace batlehub::agent
