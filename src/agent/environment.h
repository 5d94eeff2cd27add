// The scanner's environment: exactly HOME and PATH, whatever the agent received.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::agent {

std::vector<std::string> scanner_environment(std::string_view home, std::string_view path);

}  // namespace batlehub::agent
