// A run's own cgroup on the local runtimes: what makes [worker.sandbox] memory_limit_mb a
// bound on the whole run — every process the scanner forks, and what it writes to the
// run's tmpfs — as it is on oci and kubernetes (RFC 0022 §4.2), where rlimits alone bound
// each process and a run of ten children could take ten times its share.
//
// The bwrap runtime creates one per run before bwrap starts, joins it from the child that
// becomes bwrap (before execve: nothing of the run is ever outside it), binds it read-only
// into the sandbox for the probe to read, counts its OOM kills after the run, and removes it
// on every path. Works with what the host has: cgroup v1 (one directory per hierarchy:
// memory, pids, cpu), cgroup v2 (one directory, the controllers enabled down a delegated
// subtree), or a hybrid of the two. Modelled on nsjail's cgroup.cc / cgroup2.cc: free
// functions over plain data, every write checked and its errno named.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/cgroup.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

// One step of making a cgroup, as data: a directory to create, or a value to write.
struct CgroupStep {
  enum class Kind { kMkdir, kWrite };
  Kind kind = Kind::kMkdir;
  std::string path;
  std::string value;
  bool operator==(const CgroupStep&) const = default;
};

// What a run's cgroup bounds.
struct RunCgroupLimits {
  std::uint64_t memory_bytes = 0;  // memory_limit_mb + max_extracted_mb: the run's cost
  std::uint64_t pids = 0;          // wire::kRunPidsMax
  std::uint64_t cpu_quota_us = 0;  // one CPU: a quota equal to the period
  std::uint64_t cpu_period_us = 100'000;
  bool operator==(const RunCgroupLimits&) const = default;
};

// The cost of RFC 0022 §4.2 as a memory bound, the shared pids bound, one CPU.
RunCgroupLimits run_cgroup_limits(const core::Limits& l);

// One hierarchy a run's cgroup is made in, and the directory run cgroups go under.
struct CgroupHierarchy {
  base::cgroup::Version version = base::cgroup::Version::kV1;
  std::string mount_point;               // /sys/fs/cgroup/memory, /sys/fs/cgroup
  std::vector<std::string> controllers;  // which of memory, pids, cpu it carries for us
  std::string parent;                    // absolute: <mount><own cgroup>/batlehub-sandbox
  std::string own;                       // the worker's own cgroup path in this hierarchy
  bool operator==(const CgroupHierarchy&) const = default;
};

// Where this worker makes its runs' cgroups: memory and pids required, cpu when present.
struct CgroupSite {
  std::vector<CgroupHierarchy> hierarchies;
  bool operator==(const CgroupSite&) const = default;
};

// Finds the site from the worker's own /proc/self/mountinfo and /proc/self/cgroup texts:
// for each of memory, pids and cpu, the hierarchy carrying it and the worker's cgroup in
// it. `parent` is the [worker.sandbox.bwrap] cgroup_parent: "" puts run cgroups under
// "<the worker's own cgroup>/batlehub-sandbox", else under that path (relative to each
// hierarchy's root). `read` reads a v2 cgroup.controllers file (which controllers the
// worker's cgroup may hand down). The error says which controller is missing.
Expected<CgroupSite, std::string> find_cgroup_site(
    std::string_view mountinfo, std::string_view self_cgroup, const std::string& parent,
    const std::function<std::string(const std::string&)>& read = [](const std::string& p) {
      return base::read_small_file(p);
    });

// What makes the site usable, once per worker: each parent directory; on v2 the
// controllers enabled for the parent's children — and, when the parent is under the
// worker's own cgroup, the worker first moved into a leaf beside it (cgroup v2 lets no
// cgroup that hands controllers down hold a process). Pure, like plan_run_cgroup.
std::vector<CgroupStep> plan_site_setup(const CgroupSite& site);
// Carries plan_site_setup out: "" or the step that failed, with its errno.
std::string set_up_cgroup_site(const CgroupSite& site);
// Removes the site's v1 parent directories when they hold no run (a worker leaves no empty
// cgroup behind when it stops). A concurrent worker that shares them makes them again.
void release_cgroup_site(const CgroupSite& site);


// Everything that makes `<parent>/<name>` in each hierarchy with `limits`, in order. On
// v2, the parent's ancestors below the mount and the parent itself enable the controllers
// for their children first (cgroup.subtree_control), which the delegation must allow.
// Pure: tested as data, then carried out by RunCgroup::create.
std::vector<CgroupStep> plan_run_cgroup(const CgroupSite& site, const std::string& name, const RunCgroupLimits& limits);

// Where each of the run's cgroup directories is seen inside the sandbox, for bwrap's
// --ro-bind: /sys/fs/cgroup/<controllers> on v1, /sys/fs/cgroup (or /sys/fs/cgroup/unified
// beside v1 hierarchies) on v2.
std::vector<std::pair<std::string, std::string>> cgroup_binds(const CgroupSite& site, const std::string& name);

// A run's cgroup, made and owned: removed (its processes killed first) when destroyed.
class RunCgroup {
 public:
  // The name is unique per worker process: run-<pid>-<sequence>.
  static Expected<RunCgroup, std::string> create(const CgroupSite& site, const RunCgroupLimits& limits);
  RunCgroup(RunCgroup&& o) noexcept;
  RunCgroup& operator=(RunCgroup&&) = delete;
  RunCgroup(const RunCgroup&) = delete;
  ~RunCgroup();

  const std::string& name() const { return name_; }
  // Each hierarchy's file that moves a writer into the run's cgroup (v1 tasks, v2
  // cgroup.procs), open for writing: the single-threaded child that becomes the sandbox
  // writes "0" to each before execve (base::ChildWalls::join_cgroups).
  const std::vector<int>& procs_fds() const { return procs_fds_; }
  std::vector<std::pair<std::string, std::string>> binds() const { return cgroup_binds(site_, name_); }
  // How many processes of the run the kernel's OOM killer ended (0 with no memory cgroup).
  std::uint64_t oom_kills() const;
  std::uint64_t memory_limit_bytes() const { return limits_.memory_bytes; }

 private:
  RunCgroup(CgroupSite site, std::string name, RunCgroupLimits limits) : site_(std::move(site)), name_(std::move(name)), limits_(limits) {}
  void remove();

  CgroupSite site_;
  std::string name_;
  RunCgroupLimits limits_;
  std::vector<int> procs_fds_;
};

// Removes run cgroups under the site's parents that no run of this process owns: those of
// a worker that is gone (its pid no longer runs a process), and any older than
// `older_than`; their processes are killed first. Returns how many were removed.
std::size_t sweep_run_cgroups(const CgroupSite& site, std::chrono::seconds older_than);

// Kills every process listed in a cgroup directory's cgroup.procs (SIGKILL), then removes
// the directory, retrying while the kernel finishes reaping. "" or why not.
std::string kill_and_remove_cgroup(const std::string& dir);

}  // namespace batlehub::adapters
