// The rlimits the scanner runs under, from the manifest's limits.
#pragma once

#include <sys/resource.h>

#include <vector>

#include "wire/manifest.h"

namespace batlehub::agent {

struct RlimitSetting {
  int resource;
  rlim_t value;  // soft = hard
};

// memory_limit_mb → RLIMIT_DATA, not RLIMIT_AS: the Go runtime (Trivy) reserves far more
// address space than it ever touches and dies at start-up under a modest RLIMIT_AS
// (golang#38010), while RLIMIT_DATA counts only private writable memory. The address space
// as a whole is the cgroup's business on the runtimes that have one.
// cpu_seconds → RLIMIT_CPU. A zero leaves that limit as it was (upstream's rule).
// RLIMIT_CORE is always 0: a crashing scanner does not dump hostile memory into /work.
std::vector<RlimitSetting> rlimits_for(const wire::Limits& limits);

const char* rlimit_name(int resource);

}  // namespace batlehub::agent
