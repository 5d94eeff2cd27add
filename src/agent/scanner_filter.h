// The scanner's seccomp filter as this build compiled it, once, at build time: seccomp_gen
// (seccomp_gen.cc) runs compile(deny_list()) with the real errnos — the same rules, the same
// libseccomp, the same code the agent would otherwise run on every start — and writes the
// program out as data. The rules stay the reviewable source (seccomp_policy.cc); this is
// their output, and SeccompPolicy.the_filter_compiled_at_build_time_is_the_policy_compiled_now
// proves it is the same program instruction for instruction. What it saves: ~0.2 ms of every
// run (libseccomp's compile in a static binary, bench/README.md), a tenth of the agent's cost.
#pragma once

#include <linux/filter.h>

#include <cstddef>

#include "base/spawn.h"

namespace batlehub::agent {

extern const sock_filter kScannerFilter[];
extern const std::size_t kScannerFilterLength;

// kScannerFilter as a program the spawner loads.
base::SeccompProgram built_scanner_filter();

}  // namespace batlehub::agent
