// Which cgroup a process is in, and what bounds it — read from /proc/self/cgroup,
// /proc/self/mountinfo and the cgroup files themselves, on cgroup v1, v2 or a hybrid of the
// two. The agent's probe uses it to prove from inside that a run is bounded as a whole
// (memory_bounded, pids_bounded); the bwrap runtime uses the same parsers to find where it
// may create a run's cgroup.
//
// The parsers are pure and bounded (the files are the kernel's, but a room's /proc is a
// mount like any other): at most kMaxLines lines are read, each field is kept as text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"

namespace batlehub::base::cgroup {

inline constexpr std::size_t kMaxLines = 4096;

enum class Version { kV1, kV2 };

// One line of /proc/<pid>/cgroup: "4:memory:/a/b" (v1) or "0::/a/b" (v2).
struct Membership {
  int hierarchy = 0;
  std::vector<std::string> controllers;  // v1: "memory", "cpu", "name=systemd"…; v2: none
  std::string path;                      // relative to the reader's cgroup namespace
  bool operator==(const Membership&) const = default;
};

// A path field of /proc/self/mountinfo or /proc/self/mounts, which write a space, tab,
// newline or backslash as \ooo; anything else is kept as it is.
std::string unescape_mount_field(std::string_view field);

// A cgroup or cgroup2 mount of /proc/self/mountinfo.
struct Mount {
  Version version = Version::kV1;
  std::string mount_point;               // where it is mounted, unescaped
  std::string root;                      // the cgroup path that is the mount's root
  std::vector<std::string> controllers;  // v1: the hierarchy's controllers (super options)
  bool operator==(const Mount&) const = default;
};

std::vector<Membership> parse_proc_cgroup(std::string_view text);
std::vector<Mount> parse_mountinfo(std::string_view text);

// A controller's cgroup for the process: the directory (mount point + the process's path
// below the mount's root) and how it got there.
struct Located {
  Version version = Version::kV1;
  std::string dir;          // e.g. /sys/fs/cgroup/memory/process_api/x/run-1
  std::string mount_point;  // the limit is the smallest from `dir` up to here
  std::string path;         // the process's cgroup path, as /proc/self/cgroup says it
  bool operator==(const Located&) const = default;
};

// Where `controller` ("memory", "pids", "cpu") bounds the process, if anywhere: a v1
// hierarchy that carries it, else the v2 hierarchy when the controller is enabled for the
// process's cgroup (its limit file exists there: a stat). nullopt: no mount shows it.
std::optional<Located> locate(std::string_view controller, const std::vector<Membership>& memberships,
                              const std::vector<Mount>& mounts);

// A limit as the kernel writes it: a number, or none for "max" / v1's "unlimited"
// (anything at or above 2^62, which is what v1 prints for PAGE_COUNTER_MAX pages).
std::optional<std::uint64_t> parse_limit(std::string_view text);

// The tightest `file` from `l.dir` up to its mount point ("memory.max", "pids.max"…), and
// the directory that sets it. nullopt when no directory on the way has a finite one.
struct Bound {
  std::uint64_t value = 0;
  std::string where;  // the file that set it
};
std::optional<Bound> tightest(const Located& l, std::string_view file);

// The file that holds a controller's limit on a version: memory.max / memory.limit_in_bytes,
// pids.max, cpu.max / cpu.cfs_quota_us.
std::string_view limit_file(std::string_view controller, Version v);

// Where `controller` bounds this process: locate() over /proc/self/cgroup and
// /proc/self/mountinfo.
std::optional<Located> locate_self(std::string_view controller);

// The OOM-killer's count for a memory cgroup directory: v2 memory.events "oom_kill N",
// v1 memory.oom_control "oom_kill N". 0 when the file has no such line.
std::uint64_t oom_kills(const std::string& memory_dir, Version v);


}  // namespace batlehub::base::cgroup
