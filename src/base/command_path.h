// A command found without a shell: PATH split and searched, once, for the agent (the
// scanner's argv[0]), the bwrap runtime (bwrap on the worker's PATH) and the worker's probe
// targets (a scanner's command inside its room).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::base {

// The non-empty directories of a PATH-style list, in order.
std::vector<std::string> split_path(std::string_view path);

// What a candidate must be to be found.
enum class Found { kExecutableFile, kRegularFile };

// argv[0] resolved without a shell: a name with a '/' is taken as it is; a bare name is
// looked up in `path`'s directories. With a `root`, each candidate is looked for under it
// (a room on the host) and the path is returned as seen from inside ("/usr/bin/yara").
std::optional<std::string> resolve_command(std::string_view argv0, std::string_view path, std::string_view root = "",
                                           Found want = Found::kExecutableFile);

}  // namespace batlehub::base
