#include "adapters/sandbox/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <set>

#include "base/fd.h"
#include "base/owner.h"
#include "wire/caps.h"

namespace batlehub::adapters {

namespace cg = base::cgroup;
using cg::Version;

namespace {

constexpr const char* kParentName = "batlehub-sandbox";
// cgroup v2's "no internal processes": a cgroup that hands controllers to its children may
// hold no process itself, so the worker moves into a leaf of its own cgroup first.
constexpr const char* kWorkerLeaf = "batlehub-worker";
constexpr const char* kRunPrefix = "run-";
constexpr const char* kControllers[] = {"memory", "pids", "cpu"};

// The names of the runs this process has in flight: the sweep leaves them alone.
std::mutex g_live_mu;
std::set<std::string>& live_runs() {
  static std::set<std::string> s;
  return s;
}
std::atomic<std::uint64_t> g_sequence{0};

std::string join(const std::string& a, const std::string& b) {
  if (b.empty() || b == "/") return a;
  if (!a.empty() && a.back() == '/') return b.front() == '/' ? a + b.substr(1) : a + b;
  return b.front() == '/' ? a + b : a + "/" + b;
}

bool has(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string errno_text(int e) {
  return std::string(std::strerror(e)) + " (errno " + std::to_string(e) + ")";
}

std::string write_file(const std::string& path, const std::string& value) {
  base::Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return "open " + path + ": " + errno_text(errno);
  ssize_t w = ::write(fd.get(), value.data(), value.size());
  if (w != static_cast<ssize_t>(value.size())) return "write '" + value + "' to " + path + ": " + errno_text(errno);
  return "";
}

// "" or the step that failed, with its errno (also left in *err).
std::string carry_out(const std::vector<CgroupStep>& steps, int* err = nullptr) {
  for (const CgroupStep& s : steps) {
    if (s.kind == CgroupStep::Kind::kMkdir) {
      if (::mkdir(s.path.c_str(), 0755) != 0 && errno != EEXIST) {
        int e = errno;
        if (err) *err = e;
        return "mkdir " + s.path + ": " + errno_text(e);
      }
    } else {
      errno = 0;
      if (auto e = write_file(s.path, s.value); !e.empty()) {
        if (err) *err = errno;
        return e;
      }
    }
  }
  return "";
}

std::vector<pid_t> procs_of(const std::string& dir) {
  std::vector<pid_t> out;
  std::string text = base::read_small_file(dir + "/cgroup.procs", 1024 * 1024);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    int pid = 0;
    if (std::from_chars(text.data() + start, text.data() + end, pid).ec == std::errc() && pid > 0) out.push_back(pid);
    start = end + 1;
  }
  return out;
}

// run-<pid>-<sequence>: the pid of the worker that made it.
std::optional<pid_t> owner_of(std::string_view name) {
  if (!name.starts_with(kRunPrefix)) return std::nullopt;
  name.remove_prefix(std::strlen(kRunPrefix));
  int pid = 0;
  auto r = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (r.ec != std::errc() || r.ptr == name.data() + name.size() || *r.ptr != '-' || pid <= 0) return std::nullopt;
  return pid;
}

}  // namespace

RunCgroupLimits run_cgroup_limits(const core::Limits& l) {
  RunCgroupLimits r;
  r.memory_bytes = l.cost_mb() * wire::kMiB;
  r.pids = wire::kRunPidsMax;
  r.cpu_quota_us = r.cpu_period_us;
  return r;
}

Expected<CgroupSite, std::string> find_cgroup_site(std::string_view mountinfo, std::string_view self_cgroup,
                                                   const std::string& parent,
                                                   const std::function<std::string(const std::string&)>& read) {
  auto memberships = cg::parse_proc_cgroup(self_cgroup);
  auto mounts = cg::parse_mountinfo(mountinfo);
  CgroupSite site;
  auto add = [&](Version v, const std::string& mount_point, const std::string& own, const char* controller) {
    for (auto& h : site.hierarchies) {
      if (h.version == v && h.mount_point == mount_point) {
        h.controllers.emplace_back(controller);
        return;
      }
    }
    std::string base = parent.empty() ? join(join(mount_point, own), kParentName) : join(mount_point, parent);
    site.hierarchies.push_back(CgroupHierarchy{v, mount_point, {controller}, base, own});
  };
  std::string missing;
  for (const char* controller : kControllers) {
    bool found = false;
    for (const auto& mb : memberships) {
      if (found || mb.hierarchy == 0 || !has(mb.controllers, controller)) continue;
      for (auto it = mounts.rbegin(); it != mounts.rend() && !found; ++it) {
        // Only a mount of the hierarchy's whole tree: a bind of some subtree cannot reach ours.
        if (it->version == Version::kV1 && has(it->controllers, controller) && it->root == "/") {
          add(Version::kV1, it->mount_point, mb.path, controller);
          found = true;
        }
      }
    }
    for (const auto& mb : memberships) {
      if (found || mb.hierarchy != 0) continue;
      for (auto it = mounts.rbegin(); it != mounts.rend() && !found; ++it) {
        if (it->version != Version::kV2 || it->root != "/") continue;
        std::string available = read(join(join(it->mount_point, mb.path), "cgroup.controllers"));
        std::string word;
        for (std::size_t i = 0; i <= available.size(); ++i) {
          char c = i < available.size() ? available[i] : ' ';
          if (c == ' ' || c == '\n') {
            if (word == controller) found = true;
            word.clear();
          } else {
            word += c;
          }
        }
        if (found) add(Version::kV2, it->mount_point, mb.path, controller);
      }
    }
    if (!found && std::string_view(controller) != "cpu")
      missing += missing.empty() ? controller : std::string(", ") + controller;
  }
  if (!missing.empty()) {
    return Unexpected("no cgroup hierarchy with the " + missing +
                      " controller is mounted where this worker can see it (/proc/self/mountinfo shows " +
                      std::to_string(mounts.size()) + " cgroup mounts)");
  }
  return site;
}

std::vector<CgroupStep> plan_site_setup(const CgroupSite& site) {
  std::vector<CgroupStep> steps;
  for (const auto& h : site.hierarchies) {
    if (h.version == Version::kV2) {
      std::string enable;
      for (const auto& c : h.controllers) enable += (enable.empty() ? "+" : " +") + c;
      std::string own = join(h.mount_point, h.own);
      if (h.parent == join(own, kParentName)) {
        // The worker's own cgroup hands the controllers down, so the worker leaves it for a leaf.
        std::string leaf = join(own, kWorkerLeaf);
        steps.push_back({CgroupStep::Kind::kMkdir, leaf, ""});
        steps.push_back({CgroupStep::Kind::kWrite, join(leaf, "cgroup.procs"), "0"});
        steps.push_back({CgroupStep::Kind::kWrite, join(own, "cgroup.subtree_control"), enable});
      }
      steps.push_back({CgroupStep::Kind::kMkdir, h.parent, ""});
      steps.push_back({CgroupStep::Kind::kWrite, join(h.parent, "cgroup.subtree_control"), enable});
    } else {
      steps.push_back({CgroupStep::Kind::kMkdir, h.parent, ""});
    }
  }
  return steps;
}

std::vector<CgroupStep> plan_run_cgroup(const CgroupSite& site, const std::string& name, const RunCgroupLimits& l) {
  std::vector<CgroupStep> steps;
  for (const auto& h : site.hierarchies) {
    std::string dir = join(h.parent, name);
    steps.push_back({CgroupStep::Kind::kMkdir, dir, ""});
    bool v2 = h.version == Version::kV2;
    for (const auto& c : h.controllers) {
      if (c == "memory") {
        steps.push_back({CgroupStep::Kind::kWrite, join(dir, v2 ? "memory.max" : "memory.limit_in_bytes"),
                         std::to_string(l.memory_bytes)});
        // No swap beyond the bound either: v2 says it with memory.swap.max; on v1 the
        // combined limit exists only with swap accounting on, and is written when it does.
        if (v2) steps.push_back({CgroupStep::Kind::kWrite, join(dir, "memory.swap.max"), "0"});
      } else if (c == "pids") {
        steps.push_back({CgroupStep::Kind::kWrite, join(dir, "pids.max"), std::to_string(l.pids)});
      } else if (c == "cpu") {
        if (v2) {
          steps.push_back({CgroupStep::Kind::kWrite, join(dir, "cpu.max"),
                           std::to_string(l.cpu_quota_us) + " " + std::to_string(l.cpu_period_us)});
        } else {
          steps.push_back({CgroupStep::Kind::kWrite, join(dir, "cpu.cfs_period_us"), std::to_string(l.cpu_period_us)});
          steps.push_back({CgroupStep::Kind::kWrite, join(dir, "cpu.cfs_quota_us"), std::to_string(l.cpu_quota_us)});
        }
      }
    }
  }
  return steps;
}

std::vector<std::pair<std::string, std::string>> cgroup_binds(const CgroupSite& site, const std::string& name) {
  bool any_v1 = std::any_of(site.hierarchies.begin(), site.hierarchies.end(),
                            [](const CgroupHierarchy& h) { return h.version == Version::kV1; });
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& h : site.hierarchies) {
    std::string inside;
    if (h.version == Version::kV2) {
      inside = any_v1 ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup";
    } else {
      std::string names;
      for (const auto& c : h.controllers) names += (names.empty() ? "" : ",") + c;
      inside = "/sys/fs/cgroup/" + names;
    }
    out.emplace_back(join(h.parent, name), inside);
  }
  return out;
}

Expected<RunCgroup, std::string> RunCgroup::create(const CgroupSite& site, const RunCgroupLimits& limits) {
  std::string name = kRunPrefix + std::to_string(::getpid()) + "-" + std::to_string(++g_sequence);
  {
    std::lock_guard lock(g_live_mu);
    live_runs().insert(name);
  }
  RunCgroup rc(site, name, limits);
  auto steps = plan_run_cgroup(site, name, limits);
  int err = 0;
  std::string e = carry_out(steps, &err);
  // Another worker that shares the parent removes it when it stops and finds it empty
  // (release_cgroup_site): make it again and try once more.
  for (int again = 0; again < 3 && !e.empty() && err == ENOENT; ++again) {
    if (std::string s = carry_out(plan_site_setup(site)); !s.empty()) break;
    e = carry_out(steps, &err);
  }
  if (!e.empty()) return Unexpected("cannot make the run's cgroup: " + e);
  for (const auto& h : site.hierarchies) {
    std::string dir = join(h.parent, name);
    if (h.version == Version::kV1 && has(h.controllers, "memory")) {
      struct stat st {};
      if (::stat((dir + "/memory.memsw.limit_in_bytes").c_str(), &st) == 0) {
        if (auto w = write_file(dir + "/memory.memsw.limit_in_bytes", std::to_string(limits.memory_bytes));
            !w.empty()) {
          return Unexpected("cannot make the run's cgroup: " + w);
        }
      }
    }
    // On v1 the child joins through `tasks`, which moves only the writing thread: the child
    // has one (it is not yet bwrap), so the whole process moves, and all it forks is born
    // inside. Through cgroup.procs the kernel takes the global threadgroup lock for writing,
    // which waits for an RCU grace period whenever no migration happened in the last one:
    // 5-9 ms per run with runs 50 ms apart on a busy 2-core VM, against 0.08 ms through
    // `tasks` (measured: a forked child writing "0" to the three hierarchies). v2 has no
    // such file for a domain cgroup: cgroup.procs there.
    const std::string join_file = dir + (h.version == Version::kV1 ? "/tasks" : "/cgroup.procs");
    int fd = ::open(join_file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Unexpected("cannot open " + join_file + ": " + errno_text(errno));
    rc.procs_fds_.push_back(fd);
  }
  return rc;
}

RunCgroup::RunCgroup(RunCgroup&& o) noexcept
    : site_(std::move(o.site_)), name_(std::move(o.name_)), limits_(o.limits_), procs_fds_(std::move(o.procs_fds_)) {
  o.name_.clear();
  o.procs_fds_.clear();
}

RunCgroup::~RunCgroup() {
  remove();
}

void RunCgroup::remove() {
  for (int fd : procs_fds_) ::close(fd);
  procs_fds_.clear();
  if (name_.empty()) return;
  for (const auto& h : site_.hierarchies) kill_and_remove_cgroup(join(h.parent, name_));
  std::lock_guard lock(g_live_mu);
  live_runs().erase(name_);
}

std::uint64_t RunCgroup::oom_kills() const {
  for (const auto& h : site_.hierarchies) {
    if (has(h.controllers, "memory")) return cg::oom_kills(join(h.parent, name_), h.version);
  }
  return 0;
}

std::string kill_and_remove_cgroup(const std::string& dir) {
  // The sandbox's processes die with bwrap (--die-with-parent, the pid namespace's init);
  // what the kernel has not reaped yet keeps the directory busy for a moment.
  // The wait starts at 50 µs and doubles to 5 ms: usually the reaping is a matter of
  // microseconds, and a run should not pay a whole nap for it (bench_runtimes).
  long wait_ns = 50'000;
  long waited_ns = 0;
  while (waited_ns < 2'000'000'000L) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return "";
    if (errno != EBUSY) return "rmdir " + dir + ": " + errno_text(errno);
    for (pid_t p : procs_of(dir)) ::kill(p, SIGKILL);
    timespec ts{0, wait_ns};
    ::nanosleep(&ts, nullptr);
    waited_ns += wait_ns;
    wait_ns = std::min(wait_ns * 2, 5'000'000L);
  }
  return "rmdir " + dir + ": still busy after 2 s";
}

std::size_t sweep_run_cgroups(const CgroupSite& site, std::chrono::seconds older_than) {
  std::size_t removed = 0;
  std::set<std::string> seen;
  for (const auto& h : site.hierarchies) {
    DIR* d = ::opendir(h.parent.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      if (e->d_type == DT_DIR && std::string_view(e->d_name).starts_with(kRunPrefix)) names.emplace_back(e->d_name);
    }
    ::closedir(d);
    for (const auto& name : names) {
      auto owner = owner_of(name);
      if (!owner) continue;
      {
        std::lock_guard lock(g_live_mu);
        if (live_runs().count(name) != 0) continue;
      }
      std::string dir = join(h.parent, name);
      struct stat st {};
      if (::stat(dir.c_str(), &st) != 0) continue;
      const bool ours_and_idle = *owner == ::getpid();
      // Another process's run is its own while that process lives, however long it runs;
      // a dead owner's, or a reused pid's, is an orphan at once; `older_than` is for an owner
      // /proc cannot place (base/owner.h).
      if (!ours_and_idle) {
        const base::Owner o = base::owner_of_leftover(*owner, st.st_mtim);
        const bool old = ::time(nullptr) - st.st_mtime > static_cast<time_t>(older_than.count());
        if (o == base::Owner::kLive || (o == base::Owner::kUnplaceable && !old)) continue;
      }
      if (kill_and_remove_cgroup(dir).empty() && seen.insert(name).second) ++removed;
    }
  }
  return removed;
}

void release_cgroup_site(const CgroupSite& site) {
  // Only an empty parent goes (rmdir refuses one that holds a run); a v2 parent stays, as
  // the worker moved itself out of the cgroup that hands its controllers down.
  for (const auto& h : site.hierarchies) {
    if (h.version == Version::kV1) ::rmdir(h.parent.c_str());
  }
}

std::string set_up_cgroup_site(const CgroupSite& site) {
  // mountinfo lists a mount that another one hides; only a cgroup filesystem where the
  // mount point is is one the worker can make cgroups in.
  for (const auto& h : site.hierarchies) {
    struct statfs fs {};
    if (::statfs(h.mount_point.c_str(), &fs) != 0 && errno != ENOENT) {
      return "statfs " + h.mount_point + ": " + errno_text(errno);
    }
    if (fs.f_type != CGROUP_SUPER_MAGIC && fs.f_type != CGROUP2_SUPER_MAGIC) {
      return h.mount_point +
             " is in /proc/self/mountinfo but is no cgroup filesystem from here (another mount hides it)";
    }
  }
  return carry_out(plan_site_setup(site));
}

}  // namespace batlehub::adapters
