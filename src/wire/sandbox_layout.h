// What every sandbox looks like from inside, whichever runtime made it: the agent's command,
// the identity the scanner runs as, its directories and its PATH. The runtimes' argvs and pod
// manifests, the agent and the worker's look-ups in a room all read them here.
#pragma once

#include <string_view>

namespace batlehub::wire {

// The agent's command name, on the room's PATH (/usr/bin in a room, the image's in an image).
inline constexpr const char* kAgentCommand = "batlehub-sandbox";

// The uid and gid everything inside runs as (a user no host account has: 65532, "nonroot").
inline constexpr unsigned kSandboxId = 65532;
inline constexpr const char* kSandboxIdText = "65532";

// The one writable directory (the scanner's HOME and cwd), and the run's private /tmp.
inline constexpr const char* kWorkDir = "/work";
inline constexpr const char* kTmpDir = "/tmp";
// Where the image runtimes mount the run's bundle over the mount transport.
inline constexpr const char* kBundleDir = "/bundle";

// The scanner's PATH inside every sandbox: what bwrap sets, what the agent passes on to the
// scanner, and where the worker looks for a scanner's command in its room.
inline constexpr std::string_view kSandboxPath = "/usr/local/bin:/usr/bin:/bin";

}  // namespace batlehub::wire
