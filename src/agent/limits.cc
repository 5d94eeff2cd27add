#include "agent/limits.h"

namespace batlehub::agent {

std::vector<RlimitSetting> rlimits_for(const wire::Rlimits& limits) {
  std::vector<RlimitSetting> out;
  if (limits.memory_limit_mb > 0) out.push_back({RLIMIT_DATA, rlim_t(limits.memory_limit_mb) * 1024 * 1024});
  if (limits.cpu_seconds > 0) out.push_back({RLIMIT_CPU, rlim_t(limits.cpu_seconds)});
  out.push_back({RLIMIT_CORE, 0});
  out.push_back({RLIMIT_NPROC, kScannerMaxProcesses});
  return out;
}

const char* rlimit_name(int resource) {
  switch (resource) {
    case RLIMIT_DATA: return "RLIMIT_DATA";
    case RLIMIT_CPU: return "RLIMIT_CPU";
    case RLIMIT_CORE: return "RLIMIT_CORE";
    case RLIMIT_AS: return "RLIMIT_AS";
    case RLIMIT_NPROC: return "RLIMIT_NPROC";
    case RLIMIT_NOFILE: return "RLIMIT_NOFILE";
    default: return "RLIMIT_?";
  }
}

}  // namespace batlehub::agent
