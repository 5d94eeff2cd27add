// The scanner's PATH inside every sandbox: what bwrap sets, what the agent passes on to the
// scanner, and where the worker looks for a scanner's command in its room.
#pragma once

#include <string_view>

namespace batlehub::wire {

inline constexpr std::string_view kSandboxPath = "/usr/local/bin:/usr/bin:/bin";

}  // namespace batlehub::wire
