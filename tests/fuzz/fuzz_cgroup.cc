// fuzz_cgroup: the readers of /proc/self/cgroup and /proc/self/mountinfo (agent/cgroup.h)
// must never crash, never keep more than kMaxLines entries, and only ever return text
// that was in the input (a path is a piece of its line, a controller a piece of a list).
// The input is split in two at the first NUL: the cgroup file, then the mountinfo.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "base/cgroup.h"

namespace cg = batlehub::base::cgroup;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::size_t nul = all.find('\0');
  std::string_view cgroup = all.substr(0, nul);
  std::string_view mountinfo = nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1);
  auto memberships = cg::parse_proc_cgroup(cgroup);
  auto mounts = cg::parse_mountinfo(mountinfo);
  if (memberships.size() > cg::kMaxLines || mounts.size() > cg::kMaxLines) {
    std::fprintf(stderr, "fuzz_cgroup: more entries than lines allowed\n");
    __builtin_trap();
  }
  for (const auto& m : memberships) {
    if (cgroup.find(m.path) == std::string_view::npos) {
      std::fprintf(stderr, "fuzz_cgroup: a path that is not in the input\n");
      __builtin_trap();
    }
    for (const auto& c : m.controllers) {
      if (c.find(',') != std::string::npos || c.find('\n') != std::string::npos) __builtin_trap();
    }
  }
  for (const auto& m : mounts) {
    // Unescaping only ever shortens: \ooo becomes one byte.
    if (m.mount_point.size() > mountinfo.size() || m.root.size() > mountinfo.size()) __builtin_trap();
  }
  // Limits as the kernel writes them: never a crash, never a bound at or above 2^62.
  if (auto v = cg::parse_limit(cgroup); v && *v >= (std::uint64_t{1} << 62)) __builtin_trap();
  return 0;
}
