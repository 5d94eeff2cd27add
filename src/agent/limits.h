// The rlimits the scanner runs under, from the manifest's limits.
#pragma once

#include <sys/resource.h>

#include <vector>

#include "base/spawn.h"
#include "wire/manifest.h"
#include "wire/run_result.h"

namespace batlehub::agent {

using base::RlimitSetting;

// memory_limit_mb → RLIMIT_DATA, not RLIMIT_AS: the Go runtime (Trivy) reserves far more
// address space than it ever touches and dies at start-up under a modest RLIMIT_AS
// (golang#38010), while RLIMIT_DATA counts only private writable memory. The address space
// as a whole is the cgroup's business on the runtimes that have one.
// cpu_seconds → RLIMIT_CPU. A zero leaves that limit as it was (upstream's rule).
// RLIMIT_CORE is always 0: a crashing scanner does not dump hostile memory into /work.
// RLIMIT_FSIZE is the extraction budget (max_extracted_bytes): no one file the scanner writes
// grows past what the whole package may take, wherever the runtime left it a writable file
// (a kubelet's /dev/termination-log, an engine's bundle file) — Landlock refuses those
// writes outright where the kernel has it; this bounds them where it has not.
// RLIMIT_NPROC is always kScannerMaxProcesses (threads count): a fork bomb stops there. In
// a user namespace of its own the count is the sandbox's alone; the kernel exempts a
// process whose real uid is the host's root, which is why the bwrap runtime never runs a
// sandbox as root.
inline constexpr rlim_t kScannerMaxProcesses = 1024;

std::vector<RlimitSetting> rlimits_for(const wire::Rlimits& limits, std::uint64_t max_file_bytes);

// `wanted` as this host lets the scanner have it. rlimits are best-effort (RFC 0022 §4.2): a
// value above this process's hard limit that it may not raise (no CAP_SYS_RESOURCE where it
// counts — tried in a child, since a capability in a user namespace of its own does not) is
// lowered to the hard limit, which is tighter than asked, never looser; each lowering is
// appended to `lowered` for the result and the probe. A limit the host would refuse for
// another reason is left as asked: setting it then fails, and the probe's rlimits names it.
std::vector<RlimitSetting> fit_to_host(const std::vector<RlimitSetting>& wanted,
                                       std::vector<wire::LoweredRlimit>& lowered);

const char* rlimit_name(int resource);

}  // namespace batlehub::agent
