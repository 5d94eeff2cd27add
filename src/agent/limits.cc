#include "agent/limits.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace batlehub::agent {

std::vector<RlimitSetting> rlimits_for(const wire::Rlimits& limits, std::uint64_t max_file_bytes) {
  std::vector<RlimitSetting> out;
  if (limits.memory_limit_mb > 0) out.push_back({RLIMIT_DATA, rlim_t(limits.memory_limit_mb) * 1024 * 1024});
  if (limits.cpu_seconds > 0) out.push_back({RLIMIT_CPU, rlim_t(limits.cpu_seconds)});
  out.push_back({RLIMIT_CORE, 0});
  if (max_file_bytes > 0) out.push_back({RLIMIT_FSIZE, rlim_t(max_file_bytes)});
  out.push_back({RLIMIT_NPROC, kScannerMaxProcesses});
  return out;
}

std::vector<RlimitSetting> fit_to_host(const std::vector<RlimitSetting>& wanted,
                                       std::vector<wire::LoweredRlimit>& lowered) {
  std::vector<RlimitSetting> out = wanted;
  // The limits asked above the hard limit (at most a few: rlimits_for sets four).
  constexpr std::size_t kMost = 8;
  std::array<std::size_t, kMost> above{};
  std::array<rlimit, kMost> ask{};
  std::array<rlim_t, kMost> hard{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < out.size() && n < kMost; ++i) {
    rlimit cur{};
    if (::getrlimit(out[i].resource, &cur) != 0 || cur.rlim_max == RLIM_INFINITY || out[i].value <= cur.rlim_max) {
      continue;
    }
    above[n] = i;
    ask[n] = rlimit{out[i].value, out[i].value};
    hard[n] = cur.rlim_max;
    ++n;
  }
  if (n == 0) return out;
  // Whether this process could raise them after all, tried in a child: the agent may be a
  // thread of the worker (the `none` runtime), so the child only calls setrlimit and _exit.
  unsigned refused = (1u << n) - 1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    unsigned bits = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (::setrlimit(wanted[above[k]].resource, &ask[k]) != 0) bits |= 1u << k;
    }
    ::_exit(static_cast<int>(bits));
  }
  if (pid > 0) {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) refused = static_cast<unsigned>(WEXITSTATUS(st));
  }
  for (std::size_t k = 0; k < n; ++k) {
    if ((refused & (1u << k)) == 0) continue;
    RlimitSetting& l = out[above[k]];
    lowered.push_back(wire::LoweredRlimit{rlimit_name(l.resource), l.value, hard[k]});
    l.value = hard[k];
  }
  return out;
}

const char* rlimit_name(int resource) {
  switch (resource) {
    case RLIMIT_DATA: return "RLIMIT_DATA";
    case RLIMIT_CPU: return "RLIMIT_CPU";
    case RLIMIT_CORE: return "RLIMIT_CORE";
    case RLIMIT_FSIZE:
      return "RLIMIT_FSIZE";
    case RLIMIT_AS: return "RLIMIT_AS";
    case RLIMIT_NPROC: return "RLIMIT_NPROC";
    case RLIMIT_NOFILE: return "RLIMIT_NOFILE";
    default: return "RLIMIT_?";
  }
}

}  // namespace batlehub::agent
