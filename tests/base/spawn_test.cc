// The spawner on its own: no shell, exactly HOME and PATH, the rlimits, no leaked
// descriptor, stdout capped, stderr kept, and the whole tree killed.
#include "base/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <thread>

#include "agent/environment.h"
#include "agent/limits.h"
#include "agent/seccomp_policy.h"
#include "harness.h"
#include "wire/sandbox_layout.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;
using base::RlimitSetting;
using base::SeccompProgram;

// Every test of Spawn runs three times, once per base::Supervisor: with the keeper process,
// as the `none` runtime runs a scanner; supervised by the calling process itself, as in the
// agent binary; and by the calling thread, as the bwrap runtime runs bwrap. What only a
// subreaper guarantees (a daemonised grandchild killed) is SpawnTree's, for the first two;
// under kThisThread it is bwrap's to guarantee, proven by Escape/bwrap.
class SpawnBase : public ::testing::Test {
 protected:
  base::SpawnResult run(std::vector<std::string> args, std::chrono::milliseconds timeout = std::chrono::seconds(20),
                  std::vector<RlimitSetting> limits = {}) {
    dir_fd_ = ::open(scratch_.work().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    base::SpawnSpec s;
    s.program = hostile();
    s.argv = {"hostile"};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.env = agent::scanner_environment(scratch_.work().string(), wire::kSandboxPath);
    s.cwd_fd = dir_fd_;
    s.walls.rlimits = std::move(limits);
    s.walls.seccomp = &*prog_;
    s.timeout = timeout;
    s.stdout_cap = wire::kStdoutCapBytes;
    s.supervisor = supervisor_;
    base::SpawnResult r = base::spawn_and_wait(s);
    ::close(dir_fd_);
    return r;
  }

  static bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

  Scratch scratch_;
  int dir_fd_ = -1;
  base::Supervisor supervisor_ = base::Supervisor::kKeeper;
  Expected<SeccompProgram, std::string> prog_ = compile(deny_list());
};

std::string supervisor_name(const ::testing::TestParamInfo<base::Supervisor>& i) {
  switch (i.param) {
    case base::Supervisor::kKeeper:
      return "keeper";
    case base::Supervisor::kThisProcess:
      return "in_process";
    case base::Supervisor::kThisThread:
      return "this_thread";
  }
  return "?";
}

class Spawn : public SpawnBase, public ::testing::WithParamInterface<base::Supervisor> {
 protected:
  void SetUp() override { supervisor_ = GetParam(); }
};
INSTANTIATE_TEST_SUITE_P(Supervisor, Spawn,
                         ::testing::Values(base::Supervisor::kKeeper, base::Supervisor::kThisProcess,
                                           base::Supervisor::kThisThread),
                         supervisor_name);

// The supervisors that are subreapers: they hunt down what the scanner left.
using SpawnTree = Spawn;
INSTANTIATE_TEST_SUITE_P(Supervisor, SpawnTree,
                         ::testing::Values(base::Supervisor::kKeeper, base::Supervisor::kThisProcess), supervisor_name);

// The calling thread only.
using SpawnThisThread = SpawnBase;

// The keeper only: a multi-threaded caller is what it is for.
using SpawnKeeper = SpawnBase;

TEST_P(Spawn, the_exit_code_and_stdout_come_back_as_they_are) {
  base::SpawnResult r = run({"exit", "1", "{\"ok\":true}"});
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.stdout_bytes, "{\"ok\":true}");
  EXPECT_FALSE(r.timed_out);
}

TEST_P(Spawn, the_scanner_sees_exactly_home_and_path) {
  ::setenv("BATLEHUB_SPAWN_TEST_SECRET", "leaked", 1);
  base::SpawnResult r = run({"env"});
  ::unsetenv("BATLEHUB_SPAWN_TEST_SECRET");
  ASSERT_TRUE(r.started);
  std::vector<std::string> want = {"HOME=" + scratch_.work().string(), "PATH=/usr/local/bin:/usr/bin:/bin"};
  EXPECT_EQ(lines(r.stdout_bytes), want);
}

TEST_P(Spawn, the_rlimits_are_the_ones_asked_for) {
  base::SpawnResult r = run({"limits"}, std::chrono::seconds(20), rlimits_for({256, 7}, 0));
  ASSERT_TRUE(r.started);
  auto l = lines(r.stdout_bytes);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "RLIMIT_DATA 268435456 268435456");
  EXPECT_EQ(l[1], "RLIMIT_CPU 7 7");
  EXPECT_EQ(l[2], "RLIMIT_CORE 0 0");
}

TEST_P(Spawn, no_descriptor_of_ours_leaks_into_the_scanner) {
  int stray = ::open("/etc/hostname", O_RDONLY);  // not CLOEXEC, on purpose
  base::SpawnResult r = run({"fds"});
  ::close(stray);
  ASSERT_TRUE(r.started);
  std::vector<std::string> want = {"0", "1", "2"};
  EXPECT_EQ(lines(r.stdout_bytes), want);
}

TEST_P(Spawn, stdin_is_empty) {
  base::SpawnResult r = run({"stdin"});
  EXPECT_EQ(r.stdout_bytes, "stdin 0\n");
}

TEST_P(Spawn, a_scanner_that_hangs_is_killed_at_its_deadline) {
  base::SpawnResult r = run({"hang"}, std::chrono::milliseconds(300));
  ASSERT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_FALSE(r.exit_code);
  EXPECT_TRUE(r.tree_killed);
}

TEST_P(SpawnTree, a_daemonised_grandchild_dies_with_the_scanner_at_the_deadline) {
  base::SpawnResult r = run({"daemon"}, std::chrono::milliseconds(1500));
  ASSERT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  std::string pid_text = Scratch::read(scratch_.work() / "daemon.pid");
  ASSERT_FALSE(pid_text.empty()) << "the daemon never started";
  pid_t daemon = std::stoi(pid_text);
  EXPECT_FALSE(alive(daemon)) << "daemon " << daemon << " survived the run";
}

TEST_P(SpawnTree, a_daemon_left_behind_by_a_scanner_that_exited_is_killed_too) {
  base::SpawnResult r = run({"daemon-exit"});
  ASSERT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  pid_t daemon = std::stoi(Scratch::read(scratch_.work() / "daemon.pid"));
  EXPECT_FALSE(alive(daemon)) << "daemon " << daemon << " survived the run";
}

TEST_P(Spawn, stdout_over_the_cap_is_reported_and_stopped) {
  base::SpawnResult r = run({"flood", "40000000"});
  ASSERT_TRUE(r.started);
  EXPECT_TRUE(r.stdout_over_cap);
  EXPECT_EQ(r.stdout_bytes.size(), wire::kStdoutCapBytes);
}

TEST_P(Spawn, stdout_of_exactly_the_cap_is_an_answer) {
  base::SpawnResult r = run({"flood", std::to_string(wire::kStdoutCapBytes)});
  EXPECT_FALSE(r.stdout_over_cap);
  EXPECT_EQ(r.stdout_bytes.size(), wire::kStdoutCapBytes);
  EXPECT_EQ(r.exit_code, 0);
}

TEST_P(Spawn, the_stderr_tail_is_kept) {
  base::SpawnResult r = run({"stderr", "200000", "5"});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_LE(r.stderr_raw.size(), 64u * 1024);
  EXPECT_TRUE(r.stderr_raw.ends_with("END"));
}

TEST_P(Spawn, a_missing_program_is_reported_as_not_started) {
  base::SpawnSpec s;
  s.program = "/nonexistent/postmortem";
  s.argv = {"postmortem"};
  s.cwd_fd = AT_FDCWD;
  s.timeout = std::chrono::seconds(5);
  s.stdout_cap = 1024;
  s.supervisor = supervisor_;
  base::SpawnResult r = base::spawn_and_wait(s);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("execve failed"), std::string::npos) << r.start_error;
}

TEST_P(SpawnTree, the_caller_is_left_with_no_child_and_its_signal_mask) {
  sigset_t before, after;
  ASSERT_EQ(::sigprocmask(SIG_SETMASK, nullptr, &before), 0);
  base::SpawnResult r = run({"daemon-exit"});
  ASSERT_TRUE(r.started) << r.start_error;
  ASSERT_EQ(::sigprocmask(SIG_SETMASK, nullptr, &after), 0);
  for (int sig = 1; sig < NSIG; ++sig)
    EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << "signal " << sig;
  // Every process of the run was reaped: no child, not even a zombie, is left to the caller.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_P(Spawn, a_wall_that_cannot_be_put_up_is_reported_as_not_started) {
  base::SpawnSpec s;
  s.program = hostile();
  s.argv = {"hostile", "exit", "0"};
  s.cwd_fd = AT_FDCWD;
  s.timeout = std::chrono::seconds(5);
  s.stdout_cap = 1024;
  s.walls.rlimits = {{RLIMIT_NOFILE, RLIM_INFINITY}};  // above the hard limit: EPERM as root too
  s.supervisor = supervisor_;
  base::SpawnResult r = base::spawn_and_wait(s);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("setrlimit failed"), std::string::npos) << r.start_error;
}

TEST_F(SpawnThisThread, another_threads_child_is_neither_reaped_nor_killed_and_the_caller_keeps_its_mask) {
  supervisor_ = base::Supervisor::kThisThread;
  // A child of the caller's own, as another worker thread's bwrap would be.
  pid_t other = ::fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    ::pause();
    ::_exit(0);
  }
  sigset_t before, after;
  ASSERT_EQ(::sigprocmask(SIG_SETMASK, nullptr, &before), 0);
  base::SpawnResult r = run({"exit", "3", "ok"});
  base::SpawnResult timed = run({"hang"}, std::chrono::milliseconds(300));
  ASSERT_EQ(::sigprocmask(SIG_SETMASK, nullptr, &after), 0);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.stdout_bytes, "ok");
  EXPECT_TRUE(timed.timed_out);
  EXPECT_EQ(timed.signal, SIGKILL);
  for (int sig = 1; sig < NSIG; ++sig)
    EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << "signal " << sig;
  // The other child is alive and still ours to reap; no child of the runs is left.
  EXPECT_EQ(::waitpid(other, nullptr, WNOHANG), 0) << "the other thread's child was reaped";
  EXPECT_TRUE(alive(other));
  ::kill(other, SIGKILL);
  int st = 0;
  ASSERT_EQ(::waitpid(other, &st, 0), other);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(SpawnThisThread, runs_from_many_threads_at_once_each_get_their_own_answer) {
  // The worker's slots: several threads, each with a bwrap of its own.
  supervisor_ = base::Supervisor::kThisThread;
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        base::SpawnSpec s;
        s.program = hostile();
        s.argv = {"hostile", "exit", std::to_string(t), "t" + std::to_string(t)};
        s.cwd_fd = AT_FDCWD;
        s.timeout = std::chrono::seconds(20);
        s.stdout_cap = 1024;
        s.supervisor = base::Supervisor::kThisThread;
        base::SpawnResult r = base::spawn_and_wait(s);
        if (r.started && r.exit_code == t && r.stdout_bytes == "t" + std::to_string(t)) ++right;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(right.load(), 40);
}

TEST_F(SpawnKeeper, it_is_safe_to_call_from_a_multithreaded_process) {
  // The `none` runtime calls the agent inside a worker with threads; while other threads
  // allocate, spawning must neither deadlock nor fail.
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int i = 0; i < 4; ++i) {
    busy.emplace_back([&] {
      while (!stop) {
        std::vector<std::string> v(100, std::string(100, 'x'));
      }
    });
  }
  for (int i = 0; i < 20; ++i) {
    base::SpawnResult r = run({"exit", "0", "ok"});
    ASSERT_TRUE(r.started);
    ASSERT_EQ(r.stdout_bytes, "ok");
  }
  stop = true;
  for (auto& t : busy) t.join();
}

}  // namespace
}  // namespace batlehub::agent
