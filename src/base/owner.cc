#include "base/owner.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/file.h"

namespace batlehub::base {

std::optional<double> process_started_at(pid_t pid) {
  const std::string stat = read_small_file("/proc/" + std::to_string(pid) + "/stat");
  // The command may hold spaces and parentheses: the fields start after the last ')'.
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  // Field 22, starttime, is the 20th after the ')' (state is the 1st): 19 spaces on.
  const char* p = stat.c_str() + paren + 1;
  for (int field = 1; field < 20; ++field) {
    p = std::strchr(p + 1, ' ');
    if (p == nullptr) return std::nullopt;
  }
  char* end = nullptr;
  const unsigned long long ticks = std::strtoull(p + 1, &end, 10);
  if (end == p + 1) return std::nullopt;
  const std::string boot = read_small_file("/proc/stat");
  const std::size_t at = boot.find("\nbtime ");
  if (at == std::string::npos) return std::nullopt;
  const long long btime = std::strtoll(boot.c_str() + at + 7, nullptr, 10);
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (btime <= 0 || hz <= 0) return std::nullopt;
  return static_cast<double>(btime) + static_cast<double>(ticks) / static_cast<double>(hz);
}

Owner owner_of_leftover(pid_t owner, const timespec& modified) {
  if (owner <= 0 || (::kill(owner, 0) != 0 && errno == ESRCH)) return Owner::kGone;
  const auto started = process_started_at(owner);
  if (!started) return Owner::kUnplaceable;
  // The owner started before it made the leftover, and a process that took its pid started
  // after the owner died, which is after the owner's last change to it.
  const double changed = static_cast<double>(modified.tv_sec) + static_cast<double>(modified.tv_nsec) / 1e9;
  return *started <= changed ? Owner::kLive : Owner::kReused;
}

}  // namespace batlehub::base
