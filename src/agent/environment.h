// The scanner's environment: exactly HOME and PATH, whatever the agent received.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::agent {

inline constexpr std::string_view kSandboxPath = "/usr/local/bin:/usr/bin:/bin";

std::vector<std::string> scanner_environment(std::string_view home, std::string_view path);

// argv[0] resolved without a shell: a name with a '/' is taken as it is, a bare name is
// looked up in `path`'s directories for an executable regular file.
std::optional<std::string> resolve_command(std::string_view argv0, std::string_view path);

}  // namespace batlehub::agent
