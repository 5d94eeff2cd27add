// Whether a leftover a process named after itself (a run's directory, a run's cgroup:
// "…-<pid>-…") still belongs to that process: what every sweep asks before it removes one.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <optional>

namespace batlehub::base {

// When `pid` started, in seconds since the epoch (its /proc/<pid>/stat start time on the
// boot clock, plus /proc/stat's btime: never later than the true start, by under a second).
// nullopt when /proc cannot say (no such process).
std::optional<double> process_started_at(pid_t pid);

// What became of the process a leftover last modified at `modified` is named after.
enum class Owner {
  kGone,         // no such process: an orphan
  kReused,       // a process that started after the leftover was last modified has its pid
  kLive,         // the process that made it, still running: never another's to sweep,
                 // however long its run takes (a detonation's minutes against a worker's
                 // 2 × job_timeout_secs)
  kUnplaceable,  // alive, and /proc does not say when it started (hidepid)
};
Owner owner_of_leftover(pid_t owner, const timespec& modified);

}  // namespace batlehub::base
