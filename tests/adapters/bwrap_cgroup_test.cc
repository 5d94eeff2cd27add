// A bwrap run bounded as a whole, for real: its children together cannot take more than
// the run's cost (and the host sees it), the OOM killer's work is named, the probe reads the
// bounds from inside, and no cgroup outlives its run — after a thousand runs, after a
// timeout, or after the worker itself is killed with -9 (the sweep).
#include <dirent.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <filesystem>

#include <atomic>
#include <fstream>
#include <map>
#include <thread>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/cgroup.h"
#include "rooms.h"
#include "wire/caps.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

std::uint64_t mem_available_kib() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  std::uint64_t v = 0;
  std::string unit;
  while (f >> key >> v >> unit) {
    if (key == "MemAvailable:") return v;
  }
  return 0;
}

class BwrapCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    // A parent of this test process's own: a concurrent test's orphans (worker_cli_test
    // kills a worker with -9) are never this test's to sweep or to count.
    parent_ = "/batlehub-bwrap-cgroup-test-" + std::to_string(::getpid());
    site_ = find_cgroup_site(base::read_small_file("/proc/self/mountinfo", 1024 * 1024),
                             base::read_small_file("/proc/self/cgroup"), parent_);
    if (!site_) GTEST_SKIP() << "this machine gives the tests no cgroup to make runs in: " << site_.error();
    rooms_ = s_.root() / "rooms";
    fs::create_directories(rooms_);
    ASSERT_TRUE(build_room(rooms_, "hostile"));
  }

  BwrapOptions options() {
    BwrapOptions o;
    o.rooms_dir = rooms_.string();
    o.scratch_dir = s_.work().string();
    o.start_timeout = std::chrono::seconds(30);
    o.probe_canaries = {};  // the worker's own listener only: this machine
    o.cgroup_parent = parent_;
    return o;
  }

  void TearDown() override {
    if (site_) release_cgroup_site(*site_);
  }

  core::RunSpec spec(std::vector<std::string> argv, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    core::RunSpec s;
    s.label.scanner = "hostile";
    s.argv = std::move(argv);
    s.timeout = timeout;
    return s;
  }

  // The run cgroups a worker of this pid has under the site's parents, in every hierarchy.
  std::vector<std::string> run_cgroups_of(pid_t pid) {
    std::vector<std::string> out;
    const std::string prefix = "run-" + std::to_string(pid) + "-";
    for (const auto& h : site_->hierarchies) {
      DIR* d = ::opendir(h.parent.c_str());
      if (!d) continue;
      while (dirent* e = ::readdir(d)) {
        if (std::string_view(e->d_name).starts_with(prefix)) out.push_back(h.parent + "/" + e->d_name);
      }
      ::closedir(d);
    }
    return out;
  }

  Scratch s_;
  fs::path rooms_;
  std::string parent_;
  Expected<CgroupSite, std::string> site_ = Unexpected(std::string("not looked for"));
};

TEST_F(BwrapCgroupTest, children_that_together_exceed_the_memory_bound_are_stopped_and_the_run_says_why) {
  // 20 children of 50 MiB each: every one under RLIMIT_DATA (64 MiB), 1,000 MiB together —
  // what per-process limits let through. The run's cgroup holds 64 + 16 = 80 MiB.
  auto s = spec({"hostile", "forkalloc", "20", "50"});
  s.limits.memory_limit_mb = 64;
  s.limits.max_extracted_mb = 16;
  BwrapRuntime bwrap(options());
  std::uint64_t before = mem_available_kib();
  std::atomic<std::uint64_t> lowest{before};
  std::atomic<bool> done{false};
  std::thread sampler([&] {
    while (!done) {
      std::uint64_t now = mem_available_kib();
      if (now < lowest) lowest = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  auto out = bwrap.run(s);
  done = true;
  sampler.join();
  ASSERT_FALSE(out) << "the run answered: " << out->stdout_bytes;
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kOutOfMemory) << out.error().message;
  EXPECT_NE(out.error().message.find("the kernel's OOM killer ended "), std::string::npos) << out.error().message;
  EXPECT_NE(out.error().message.find("of the hostile run: it reached its cgroup's memory bound of 80 MiB"),
            std::string::npos)
      << out.error().message;
  EXPECT_EQ(core::to_scanner_error(out.error()).kind, core::ScannerError::Kind::kCrashed);
  // The host never gave the run what its children asked for together. (A margin for the
  // other test ctest runs beside this one: unbounded, the fall would be about 1,000 MiB.)
  std::uint64_t fell_mib = before > lowest ? (before - lowest) / 1024 : 0;
  std::cout << "  MemAvailable fell by at most " << fell_mib << " MiB during the run (bound: 80 MiB)\n";
  EXPECT_LT(fell_mib, 500u);
  EXPECT_TRUE(run_cgroups_of(::getpid()).empty());
}

TEST_F(BwrapCgroupTest, children_within_the_bound_answer) {
  auto s = spec({"hostile", "forkalloc", "4", "10"});
  s.limits.memory_limit_mb = 64;
  s.limits.max_extracted_mb = 16;
  auto out = BwrapRuntime(options()).run(s);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "all 4 children hold 10 MiB\n");
}

TEST_F(BwrapCgroupTest, the_probe_reads_the_runs_bounds_from_inside) {
  BwrapRuntime bwrap(options());
  auto r = bwrap.probe(core::ProbeTarget{"hostile", std::nullopt, {"/usr/bin/hostile"}, core::Limits{}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
  std::map<wire::Check, std::string> ev;
  for (const auto& a : r->agent.assertions) ev[a.check] = a.evidence;
  // 2,048 + 512 MiB: the run's cost, read by the agent in its own cgroup namespace.
  EXPECT_NE(ev[wire::Check::kMemoryBounded].find("memory.limit_in_bytes = 2684354560 bytes"), std::string::npos)
      << ev[wire::Check::kMemoryBounded];
  EXPECT_EQ(ev[wire::Check::kMemoryBounded].rfind("cgroup v1 /: /sys/fs/cgroup/memory/", 0), 0u)
      << ev[wire::Check::kMemoryBounded];
  EXPECT_NE(ev[wire::Check::kPidsBounded].find("pids.max = 256 tasks"), std::string::npos)
      << ev[wire::Check::kPidsBounded];
}

// A run is in its cgroup as the probe is (the memory tests above prove the bound), but sees
// neither the host's cgroup paths nor any cgroup file: only the probe has /sys mounted.
TEST_F(BwrapCgroupTest, a_run_sees_its_cgroup_namespace_and_no_sys) {
  BwrapRuntime bwrap(options());
  auto self = bwrap.run(spec({"hostile", "cat", "/proc/self/cgroup"}));
  ASSERT_TRUE(self) << self.error().message;
  ASSERT_EQ(self->status, 0) << self->stderr_tail;
  bool memory_seen = false;
  for (std::string_view rest = self->stdout_bytes; !rest.empty();) {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.find(":memory:") != std::string_view::npos) {
      memory_seen = true;
      EXPECT_EQ(line.substr(line.rfind(':') + 1), "/") << "the run's own cgroup is its namespace's root: " << line;
    }
    EXPECT_EQ(line.find(parent_), std::string_view::npos) << "a host cgroup path reached the sandbox: " << line;
  }
  EXPECT_TRUE(memory_seen) << self->stdout_bytes;
  auto sys = bwrap.run(spec({"hostile", "cat", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}));
  ASSERT_TRUE(sys) << sys.error().message;
  EXPECT_EQ(sys->status, 2);
  EXPECT_NE(sys->stderr_tail.find("No such file or directory"), std::string::npos) << sys->stderr_tail;
}

TEST_F(BwrapCgroupTest, no_cgroup_is_left_after_a_thousand_runs_or_after_a_timeout) {
  BwrapRuntime bwrap(options());
  int answered = 0;
  for (int i = 0; i < 1000; ++i) {
    auto out = bwrap.run(spec({"hostile", "exit", "0"}));
    if (out && out->status == 0) ++answered;
  }
  EXPECT_EQ(answered, 1000);
  EXPECT_EQ(run_cgroups_of(::getpid()), std::vector<std::string>{});
  for (const char* mode : {"hang", "daemon"}) {
    auto out = bwrap.run(spec({"hostile", mode}, std::chrono::milliseconds(300)));
    ASSERT_FALSE(out) << mode;
    EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kRunTimeout) << mode << ": " << out.error().message;
    EXPECT_EQ(run_cgroups_of(::getpid()), std::vector<std::string>{}) << mode;
  }
}

// Another worker's run is its own while that worker lives, however much longer than the
// sweeper's age it runs (a detonation takes minutes; a worker with job_timeout_secs 10 sweeps
// at 20 s): found in a bench where a test's worker killed a detonation another process ran.
TEST_F(BwrapCgroupTest, the_sweep_leaves_a_live_worker_s_run_however_old) {
  pid_t worker = ::fork();
  if (worker == 0) {
    BwrapRuntime bwrap(options());
    (void)bwrap.run(spec({"hostile", "hang"}, std::chrono::seconds(60)));
    ::_exit(0);
  }
  ASSERT_GT(worker, 0);
  std::vector<std::string> running;
  for (int i = 0; i < 500; ++i) {
    running = run_cgroups_of(worker);
    if (!running.empty() && !base::read_small_file(running.front() + "/cgroup.procs").empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(running.empty()) << "the worker made no run cgroup";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // older than the sweep's age below
  BwrapRuntime other(options());
  auto swept = other.sweep(std::chrono::seconds(0));
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_EQ(swept->total(), 0u) << swept->describe();
  EXPECT_EQ(run_cgroups_of(worker), running);
  EXPECT_FALSE(base::read_small_file(running.front() + "/cgroup.procs").empty()) << "its sandbox was killed";
  ::kill(worker, SIGKILL);
  int st = 0;
  ::waitpid(worker, &st, 0);
  auto after = other.sweep(std::chrono::hours(1));
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->of(core::OrphanKind::kCgroup), 1u) << "a dead owner's run is an orphan at once";
}

TEST_F(BwrapCgroupTest, the_sweep_removes_what_a_worker_killed_with_minus_nine_left) {
  pid_t worker = ::fork();
  if (worker == 0) {
    BwrapRuntime bwrap(options());
    (void)bwrap.run(spec({"hostile", "hang"}, std::chrono::seconds(60)));
    ::_exit(0);
  }
  ASSERT_GT(worker, 0);
  // Wait for its run's cgroup to hold the sandbox, then kill the worker as an OOM killer or
  // an operator would.
  std::vector<std::string> left;
  for (int i = 0; i < 500; ++i) {
    left = run_cgroups_of(worker);
    if (!left.empty() && !base::read_small_file(left.front() + "/cgroup.procs").empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(left.empty()) << "the worker made no run cgroup";
  ::kill(worker, SIGKILL);
  int st = 0;
  ::waitpid(worker, &st, 0);
  ASSERT_EQ(run_cgroups_of(worker), left) << "nothing removed them: the sweep has something to do";
  bool dir_left = false;
  for (const auto& e : std::filesystem::directory_iterator(s_.work())) {
    dir_left |= e.path().filename().string().starts_with("batlehub-run-" + std::to_string(worker) + "-");
  }
  ASSERT_TRUE(dir_left) << "the killed worker left its run dir";
  BwrapRuntime next(options());
  auto swept = next.sweep(std::chrono::hours(1));
  ASSERT_TRUE(swept) << swept.error().message;
  // One run's cgroup (in every hierarchy) and its run dir, each under its metric's kind.
  EXPECT_EQ(swept->of(core::OrphanKind::kCgroup), 1u) << swept->describe();
  EXPECT_EQ(swept->of(core::OrphanKind::kRunDir), 1u) << swept->describe();
  EXPECT_EQ(swept->total(), 2u) << swept->describe();
  EXPECT_EQ(run_cgroups_of(worker), std::vector<std::string>{});
  const std::string run_dir = "batlehub-run-" + std::to_string(worker) + "-";
  for (const auto& e : std::filesystem::directory_iterator(s_.work())) {
    EXPECT_FALSE(e.path().filename().string().starts_with(run_dir)) << e.path() << " was left";
  }
}

}  // namespace
}  // namespace batlehub::adapters
