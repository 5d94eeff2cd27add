// The rlimits the scanner runs under, from the manifest's limits.
#pragma once

#include <sys/resource.h>

#include <vector>

#include "base/spawn.h"
#include "wire/manifest.h"

namespace batlehub::agent {

using base::RlimitSetting;

// memory_limit_mb → RLIMIT_DATA, not RLIMIT_AS: the Go runtime (Trivy) reserves far more
// address space than it ever touches and dies at start-up under a modest RLIMIT_AS
// (golang#38010), while RLIMIT_DATA counts only private writable memory. The address space
// as a whole is the cgroup's business on the runtimes that have one.
// cpu_seconds → RLIMIT_CPU. A zero leaves that limit as it was (upstream's rule).
// RLIMIT_CORE is always 0: a crashing scanner does not dump hostile memory into /work.
// RLIMIT_NPROC is always kScannerMaxProcesses (threads count): a fork bomb stops there. In
// a user namespace of its own the count is the sandbox's alone; the kernel exempts a
// process whose real uid is the host's root, which is why the bwrap runtime never runs a
// sandbox as root.
inline constexpr rlim_t kScannerMaxProcesses = 1024;

std::vector<RlimitSetting> rlimits_for(const wire::Rlimits& limits);

const char* rlimit_name(int resource);

}  // namespace batlehub::agent
