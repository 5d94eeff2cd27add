// A run's cgroup as data — where it goes on v1, v2 and hybrid hosts, every directory and
// every value written, what the sandbox sees — and then made for real on this machine.
#include "adapters/sandbox/cgroup.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "scratch.h"
#include "wire/caps.h"

namespace batlehub::adapters {
namespace {

using base::cgroup::Version;
using Step = CgroupStep;
using K = CgroupStep::Kind;

constexpr std::string_view kHybridCgroup = "8:pids:/\n4:memory:/process_api/41829d61\n1:cpu:/\n0::/\n";
constexpr std::string_view kHybridMountinfo =
    "26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "29 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "33 25 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "35 25 0:32 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
constexpr std::string_view kV2Cgroup = "0::/system.slice/batlehub.service\n";
constexpr std::string_view kV2Mountinfo = "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";

std::string no_v2(const std::string&) { return ""; }
std::string v2_all(const std::string& p) {
  EXPECT_EQ(p, "/sys/fs/cgroup/system.slice/batlehub.service/cgroup.controllers");
  return "cpuset cpu io memory hugetlb pids rdma misc\n";
}

TEST(CgroupSite, a_hybrid_host_runs_each_controller_in_its_v1_hierarchy_under_the_workers_own_cgroup) {
  auto site = find_cgroup_site(kHybridMountinfo, kHybridCgroup, "", no_v2);
  ASSERT_TRUE(site) << site.error();
  ASSERT_EQ(site->hierarchies.size(), 3u);
  EXPECT_EQ(site->hierarchies[0],
            (CgroupHierarchy{Version::kV1, "/sys/fs/cgroup/memory", {"memory"},
                             "/sys/fs/cgroup/memory/process_api/41829d61/batlehub-sandbox", "/process_api/41829d61"}));
  EXPECT_EQ(site->hierarchies[1],
            (CgroupHierarchy{Version::kV1, "/sys/fs/cgroup/pids", {"pids"}, "/sys/fs/cgroup/pids/batlehub-sandbox", "/"}));
  EXPECT_EQ(site->hierarchies[2].parent, "/sys/fs/cgroup/cpu/batlehub-sandbox");
  // A configured parent is a path from each hierarchy's root.
  auto conf = find_cgroup_site(kHybridMountinfo, kHybridCgroup, "/batlehub.slice/runs", no_v2);
  ASSERT_TRUE(conf);
  EXPECT_EQ(conf->hierarchies[0].parent, "/sys/fs/cgroup/memory/batlehub.slice/runs");
}

TEST(CgroupSite, a_v2_host_runs_every_controller_in_one_directory) {
  auto site = find_cgroup_site(kV2Mountinfo, kV2Cgroup, "", v2_all);
  ASSERT_TRUE(site) << site.error();
  ASSERT_EQ(site->hierarchies.size(), 1u);
  EXPECT_EQ(site->hierarchies[0],
            (CgroupHierarchy{Version::kV2, "/sys/fs/cgroup", {"memory", "pids", "cpu"},
                             "/sys/fs/cgroup/system.slice/batlehub.service/batlehub-sandbox",
                             "/system.slice/batlehub.service"}));
}

TEST(CgroupSite, a_host_without_memory_or_pids_for_the_worker_says_which) {
  auto none = find_cgroup_site("", "0::/\n", "", no_v2);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(),
            "no cgroup hierarchy with the memory, pids controller is mounted where this worker can see it "
            "(/proc/self/mountinfo shows 0 cgroup mounts)");
  // v2 mounted, but the worker's cgroup is handed no memory controller (not delegated).
  auto partial = find_cgroup_site(kV2Mountinfo, kV2Cgroup, "", [](const std::string&) { return "cpu pids\n"; });
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.error().find("with the memory controller"), std::string::npos) << partial.error();
  // No cpu controller is no refusal: memory and pids are what bound a run.
  auto no_cpu = find_cgroup_site(kV2Mountinfo, kV2Cgroup, "", [](const std::string&) { return "memory pids\n"; });
  ASSERT_TRUE(no_cpu);
  EXPECT_EQ(no_cpu->hierarchies[0].controllers, (std::vector<std::string>{"memory", "pids"}));
}

RunCgroupLimits limits() {
  core::Limits l;
  l.memory_limit_mb = 64;
  l.max_extracted_mb = 16;
  return run_cgroup_limits(l);
}

TEST(CgroupPlan, the_limits_are_the_runs_cost_the_wires_pids_bound_and_one_cpu) {
  RunCgroupLimits l = limits();
  EXPECT_EQ(l.memory_bytes, 80u * 1024 * 1024);
  EXPECT_EQ(l.pids, wire::kRunPidsMax);
  EXPECT_EQ(l.cpu_quota_us, l.cpu_period_us);
}

TEST(CgroupPlan, v1_one_directory_per_hierarchy_with_its_own_files) {
  auto site = find_cgroup_site(kHybridMountinfo, kHybridCgroup, "", no_v2);
  ASSERT_TRUE(site);
  const std::string m = "/sys/fs/cgroup/memory/process_api/41829d61/batlehub-sandbox";
  EXPECT_EQ(plan_site_setup(*site), (std::vector<Step>{{K::kMkdir, m, ""},
                                                        {K::kMkdir, "/sys/fs/cgroup/pids/batlehub-sandbox", ""},
                                                        {K::kMkdir, "/sys/fs/cgroup/cpu/batlehub-sandbox", ""}}));
  EXPECT_EQ(plan_run_cgroup(*site, "run-7-1", limits()),
            (std::vector<Step>{
                {K::kMkdir, m + "/run-7-1", ""},
                {K::kWrite, m + "/run-7-1/memory.limit_in_bytes", "83886080"},
                {K::kMkdir, "/sys/fs/cgroup/pids/batlehub-sandbox/run-7-1", ""},
                {K::kWrite, "/sys/fs/cgroup/pids/batlehub-sandbox/run-7-1/pids.max", "256"},
                {K::kMkdir, "/sys/fs/cgroup/cpu/batlehub-sandbox/run-7-1", ""},
                {K::kWrite, "/sys/fs/cgroup/cpu/batlehub-sandbox/run-7-1/cpu.cfs_period_us", "100000"},
                {K::kWrite, "/sys/fs/cgroup/cpu/batlehub-sandbox/run-7-1/cpu.cfs_quota_us", "100000"},
            }));
  EXPECT_EQ(cgroup_binds(*site, "run-7-1"),
            (std::vector<std::pair<std::string, std::string>>{
                {m + "/run-7-1", "/sys/fs/cgroup/memory"},
                {"/sys/fs/cgroup/pids/batlehub-sandbox/run-7-1", "/sys/fs/cgroup/pids"},
                {"/sys/fs/cgroup/cpu/batlehub-sandbox/run-7-1", "/sys/fs/cgroup/cpu"}}));
}

TEST(CgroupPlan, v2_the_worker_leaves_for_a_leaf_and_the_controllers_are_handed_down) {
  auto site = find_cgroup_site(kV2Mountinfo, kV2Cgroup, "", v2_all);
  ASSERT_TRUE(site);
  const std::string own = "/sys/fs/cgroup/system.slice/batlehub.service";
  EXPECT_EQ(plan_site_setup(*site),
            (std::vector<Step>{{K::kMkdir, own + "/batlehub-worker", ""},
                               {K::kWrite, own + "/batlehub-worker/cgroup.procs", "0"},
                               {K::kWrite, own + "/cgroup.subtree_control", "+memory +pids +cpu"},
                               {K::kMkdir, own + "/batlehub-sandbox", ""},
                               {K::kWrite, own + "/batlehub-sandbox/cgroup.subtree_control", "+memory +pids +cpu"}}));
  const std::string run = own + "/batlehub-sandbox/run-7-1";
  EXPECT_EQ(plan_run_cgroup(*site, "run-7-1", limits()),
            (std::vector<Step>{{K::kMkdir, run, ""},
                               {K::kWrite, run + "/memory.max", "83886080"},
                               {K::kWrite, run + "/memory.swap.max", "0"},
                               {K::kWrite, run + "/pids.max", "256"},
                               {K::kWrite, run + "/cpu.max", "100000 100000"}}));
  EXPECT_EQ(cgroup_binds(*site, "run-7-1"),
            (std::vector<std::pair<std::string, std::string>>{{run, "/sys/fs/cgroup"}}));
  // A delegated parent of the operator's: the worker stays where it is.
  auto delegated = find_cgroup_site(kV2Mountinfo, kV2Cgroup, "/system.slice/batlehub-runs.slice", v2_all);
  ASSERT_TRUE(delegated);
  EXPECT_EQ(plan_site_setup(*delegated),
            (std::vector<Step>{{K::kMkdir, "/sys/fs/cgroup/system.slice/batlehub-runs.slice", ""},
                               {K::kWrite, "/sys/fs/cgroup/system.slice/batlehub-runs.slice/cgroup.subtree_control",
                                "+memory +pids +cpu"}}));
}

// --- for real, on this machine's cgroups --------------------------------------------------

// A parent of this test process's own (a configured cgroup_parent), so that no concurrent
// test's runs share it and its removal can be asserted.
std::string this_machine_unusable(Expected<CgroupSite, std::string>& site) {
  site = find_cgroup_site(base::read_small_file("/proc/self/mountinfo", 1024 * 1024),
                          base::read_small_file("/proc/self/cgroup"),
                          "/batlehub-cgroup-test-" + std::to_string(::getpid()));
  if (!site) return "this machine gives the tests no cgroup: " + site.error();
  if (std::string e = set_up_cgroup_site(*site); !e.empty()) return "cannot set up the cgroup site: " + e;
  return "";
}

TEST(RunCgroupOnThisMachine, is_made_with_its_limits_and_gone_when_dropped) {
  Expected<CgroupSite, std::string> site = Unexpected(std::string());
  if (auto why = this_machine_unusable(site); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::string> dirs;
  {
    auto rc = RunCgroup::create(*site, limits());
    ASSERT_TRUE(rc) << rc.error();
    EXPECT_EQ(rc->name().rfind("run-" + std::to_string(::getpid()) + "-", 0), 0u) << rc->name();
    EXPECT_EQ(rc->procs_fds().size(), site->hierarchies.size());
    for (const auto& [host, inside] : rc->binds()) {
      dirs.push_back(host);
      if (inside == "/sys/fs/cgroup/memory") {
        EXPECT_EQ(base::read_small_file(host + "/memory.limit_in_bytes"), "83886080\n");
      } else if (inside == "/sys/fs/cgroup/pids") {
        EXPECT_EQ(base::read_small_file(host + "/pids.max"), "256\n");
      }
    }
    EXPECT_EQ(rc->oom_kills(), 0u);
  }
  ASSERT_FALSE(dirs.empty());
  for (const auto& d : dirs) {
    struct stat st{};
    EXPECT_NE(::stat(d.c_str(), &st), 0) << d << " outlived its RunCgroup";
  }
  release_cgroup_site(*site);  // what a BwrapRuntime does when it goes
  for (const auto& h : site->hierarchies) {
    struct stat st{};
    EXPECT_NE(::stat(h.parent.c_str(), &st), 0) << h.parent << " was left behind, empty";
  }
}

// What the bwrap runtime's child does before it execs bwrap (base::ChildWalls::join_cgroups):
// it writes "0" to each of procs_fds(); the whole process is then in the run's cgroup of
// every hierarchy, and so is what it forks afterwards.
TEST(RunCgroupOnThisMachine, a_child_that_writes_0_to_each_join_file_is_in_it_whole_with_what_it_forks) {
  Expected<CgroupSite, std::string> site = Unexpected(std::string());
  if (auto why = this_machine_unusable(site); !why.empty()) GTEST_SKIP() << why;
  auto rc = RunCgroup::create(*site, limits());
  ASSERT_TRUE(rc) << rc.error();
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (int fd : rc->procs_fds()) {
      if (::write(fd, "0", 1) != 1) ::_exit(1);
    }
    pid_t grandchild = ::fork();
    char c;
    if (grandchild == 0) ::_exit(::read(go[0], &c, 1) == 1 ? 0 : 1);
    bool released = ::read(go[0], &c, 1) == 1;
    int st = 0;
    ::waitpid(grandchild, &st, 0);
    ::_exit(released && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 2);
  }
  ::close(go[0]);
  std::vector<std::string> dirs;
  for (const auto& [host, inside] : rc->binds()) dirs.push_back(host);
  ASSERT_FALSE(dirs.empty());
  // Both processes, in the cgroup.procs of every hierarchy: the child listed by its pid, the
  // grandchild as the one other process there.
  std::vector<std::string> procs;
  for (int i = 0; i < 250; ++i) {
    procs.clear();
    for (const auto& d : dirs) procs.push_back(base::read_small_file(d + "/cgroup.procs"));
    bool all = true;
    for (const auto& p : procs) all &= std::count(p.begin(), p.end(), '\n') == 2;
    if (all) break;
    ::usleep(20'000);
  }
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    EXPECT_EQ(std::count(procs[i].begin(), procs[i].end(), '\n'), 2) << dirs[i] << ": " << procs[i];
    EXPECT_NE(procs[i].find(std::to_string(child) + "\n"), std::string::npos) << dirs[i] << ": " << procs[i];
  }
  ASSERT_EQ(::write(go[1], "gg", 2), 2);
  ::close(go[1]);
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

}  // namespace
}  // namespace batlehub::adapters
