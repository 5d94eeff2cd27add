// Supervisor::kKeeper (spawn.h): a forked keeper, a child subreaper, starts the scanner,
// waits for its end, its deadline or its parent's "stop", kills what is left of its tree,
// and reports once on a pipe; the caller drains the scanner's pipes meanwhile.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/spawn_child.h"

namespace batlehub::base::spawn_detail {

namespace {

// How long past the deadline the parent waits for the keeper before killing it itself.
constexpr long kKeeperGraceMs = 5000;

// What the keeper reports on its status pipe, once, at the end.
struct KeeperReport {
  int fork_errno = 0;  // the keeper could not fork the scanner
  int exited = 0;      // 1: `code` is an exit status; 0: `code` is a signal
  int code = 0;
  int timed_out = 0;
  int tree_killed = 1;
};

[[noreturn]] void keeper(const ChildPlan& c, pid_t parent, int status_fd, const timespec& deadline,
                         const int* close_after_fork, int n_close) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The scanner runs as the keeper's uid: undumpable, the keeper's /proc/<pid>/mem, environ
  // and fds and ptrace_attach need CAP_SYS_PTRACE, which the scanner never has. The scanner's
  // own exec makes it dumpable again; that is its business.
  ::prctl(PR_SET_DUMPABLE, 0);
  KeeperReport report{};
  pid_t scanner = start_scanner_on_own_stack(c);
  if (scanner < 0) {
    report.fork_errno = errno;
    write_struct(status_fd, report);
    ::_exit(0);
  }
  ::setpgid(scanner, scanner);
  for (int i = 0; i < n_close; ++i) ::close(close_after_fork[i]);

  bool scanner_done = false;
  auto record = [&](int st) {
    scanner_done = true;
    record_status(st, report.exited, report.code);
  };

  sigset_t wake;
  sigemptyset(&wake);
  sigaddset(&wake, SIGCHLD);
  sigaddset(&wake, SIGTERM);  // the parent's "stop now" (stdout over its cap)
  while (!scanner_done) {
    long ms = ms_until(deadline);
    if (ms <= 0) {
      report.timed_out = 1;
      break;
    }
    timespec ts{ms / 1000, (ms % 1000) * 1'000'000};
    int sig = ::sigtimedwait(&wake, nullptr, &ts);
    if (sig == SIGTERM) break;
    int st = 0;
    pid_t p;
    while ((p = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (p == scanner) record(st);
    }
  }

  // Kill what is left, round after round, until waitpid says there are none.
  timespec give_up{};
  clock_gettime(CLOCK_MONOTONIC, &give_up);
  give_up.tv_sec += 20;  // a tree we cannot see or cannot kill in 20 s is reported as such
  for (;;) {
    if (!kill_round(scanner)) report.tree_killed = 0;
    int st = 0;
    pid_t p;
    while ((p = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (p == scanner && !scanner_done) record(st);
    }
    if (p < 0 && errno == ECHILD) break;
    if (ms_until(give_up) <= 0) {
      report.tree_killed = 0;
      break;
    }
    // Wait for the next child to die (SIGCHLD is blocked, so it waits here), or 10 ms for
    // one re-parented to us that is not dead yet.
    timespec nap{0, 10'000'000};
    ::sigtimedwait(&wake, nullptr, &nap);
  }
  write_struct(status_fd, report);
  ::_exit(0);
}

// One supervised run, as the parent holds it: the pipes' ends, what the children were
// built from (argv, envp and the filter must live until the fork), the keeper, and what
// draining learned.
struct Supervision {
  Fd in_r, in_w, out_r, out_w, err_r, err_w, exec_r, exec_w, status_r, status_w;
  std::vector<char*> argv, envp;
  sock_fprog fprog{};
  pid_t keeper_pid = -1;
  std::chrono::steady_clock::time_point t0;
  long timeout_ms = 0;
  KeeperReport report{};
  bool have_report = false;
  WallFailure wall{};
  bool keeper_killed = false;
};

// 1. Prepare: the five pipes, the child's plan, the deadline, and the keeper forked (it
// forks the scanner). "" or why nothing started.
std::string prepare(const SpawnSpec& spec, Supervision& s) {
  int in[2], out[2], err[2], execerr[2], status[2];
  if (!make_pipe(in) || !make_pipe(out) || !make_pipe(err) || !make_pipe(execerr) || !make_pipe(status)) {
    return std::string("pipe2: ") + std::strerror(errno);
  }
  s.in_r.reset(in[0]);
  s.in_w.reset(in[1]);
  s.out_r.reset(out[0]);
  s.out_w.reset(out[1]);
  s.err_r.reset(err[0]);
  s.err_w.reset(err[1]);
  s.exec_r.reset(execerr[0]);
  s.exec_w.reset(execerr[1]);
  s.status_r.reset(status[0]);
  s.status_w.reset(status[1]);

  // Everything the children need is built here; after fork they only read it.
  s.argv = c_array(spec.argv);
  s.envp = c_array(spec.env);
  if (spec.walls.seccomp != nullptr) s.fprog = spec.walls.seccomp->fprog();
  ChildPlan plan{
      spec.program.c_str(), s.argv.data(), s.envp.data(),  spec.cwd_fd, s.in_r.get(),
      s.out_w.get(),        s.err_w.get(), s.exec_w.get(), &spec.walls, spec.walls.seccomp ? &s.fprog : nullptr};
  s.timeout_ms = static_cast<long>(spec.timeout.count());
  timespec deadline = deadline_after(spec.timeout.count());
  int close_after_fork[] = {s.in_r.get(),  s.out_w.get(), s.err_w.get(),  s.exec_w.get(),  s.in_w.get(),
                            s.out_r.get(), s.err_r.get(), s.exec_r.get(), s.status_r.get()};

  // SIGCHLD and SIGTERM are blocked across the fork so that the keeper, which waits for
  // them with sigtimedwait, cannot lose one that arrives before it is ready.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  sigaddset(&block, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  pid_t parent = ::getpid();
  s.keeper_pid = ::fork();
  if (s.keeper_pid == 0) keeper(plan, parent, s.status_w.get(), deadline, close_after_fork, 9);
  int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (s.keeper_pid < 0) return std::string("fork: ") + std::strerror(fork_errno);
  s.in_r.reset();
  s.in_w.reset();  // the scanner's stdin is an empty pipe: it reads EOF
  s.out_w.reset();
  s.err_w.reset();
  s.exec_w.reset();
  s.status_w.reset();
  return "";
}

// 2. Drain: stdout (capped: over the cap the keeper is told to stop the tree), the tail of
// stderr, the exec-error pipe (whose EOF means "started") and the keeper's report, until
// every pipe has closed — or, should the keeper hang, until the deadline plus its grace,
// when the keeper itself is killed.
void drain(const SpawnSpec& spec, Supervision& s, SpawnResult& res) {
  bool exec_done = false;
  bool out_open = true, err_open = true, status_open = true;
  char buf[65536];
  long hard_deadline_ms = s.timeout_ms + kKeeperGraceMs;

  while (out_open || err_open || status_open || !exec_done) {
    pollfd pfd[4];
    int n = 0;
    int idx_out = -1, idx_err = -1, idx_status = -1, idx_exec = -1;
    if (out_open) {
      idx_out = n;
      pfd[n++] = {s.out_r.get(), POLLIN, 0};
    }
    if (err_open) {
      idx_err = n;
      pfd[n++] = {s.err_r.get(), POLLIN, 0};
    }
    if (status_open) {
      idx_status = n;
      pfd[n++] = {s.status_r.get(), POLLIN, 0};
    }
    if (!exec_done) {
      idx_exec = n;
      pfd[n++] = {s.exec_r.get(), POLLIN, 0};
    }
    long elapsed = static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - s.t0).count());
    long wait_ms = hard_deadline_ms - elapsed;
    if (!status_open) wait_ms = std::min(wait_ms, 200L);  // the keeper is done: drain, don't wait
    if (wait_ms <= 0) {
      if (status_open && !s.keeper_killed) {
        // The keeper did not report in time: it is stuck, and so is whatever it guards.
        ::kill(s.keeper_pid, SIGKILL);
        s.keeper_killed = true;
        hard_deadline_ms += 1000;
        continue;
      }
      break;
    }
    int r = ::poll(pfd, static_cast<nfds_t>(n), static_cast<int>(wait_ms));
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r == 0) continue;
    if (readable(pfd, idx_out)) {
      ssize_t k = ::read(s.out_r.get(), buf, sizeof buf);
      if (k <= 0) {
        if (k == 0 || errno != EINTR) out_open = false;
      } else if (take_stdout(spec, res, buf, static_cast<std::size_t>(k))) {
        ::kill(s.keeper_pid, SIGTERM);
      }
    }
    if (readable(pfd, idx_err)) {
      ssize_t k = ::read(s.err_r.get(), buf, sizeof buf);
      if (k <= 0) {
        if (k == 0 || errno != EINTR) err_open = false;
      } else {
        take_stderr(res, buf, static_cast<std::size_t>(k));
      }
    }
    if (readable(pfd, idx_exec)) {
      ssize_t k = ::read(s.exec_r.get(), &s.wall, sizeof s.wall);
      if (k == static_cast<ssize_t>(sizeof s.wall)) {
        exec_done = true;
      } else if (k == 0 || (k < 0 && errno != EINTR)) {
        exec_done = true;
        res.started = s.wall.stage == WallStage::kNone;
      }
    }
    if (readable(pfd, idx_status)) {
      ssize_t k = ::read(s.status_r.get(), &s.report, sizeof s.report);
      if (k == static_cast<ssize_t>(sizeof s.report)) s.have_report = true;
      if (k <= 0 || s.have_report) status_open = false;
    }
  }
}

// 3. Collect: reap the keeper and say how the run ended — a wall that could not be put up,
// a keeper that never reported, a scanner that could not be forked, or its exit or signal.
void collect(Supervision& s, SpawnResult& res) {
  int st = 0;
  while (::waitpid(s.keeper_pid, &st, 0) < 0 && errno == EINTR) {
  }
  res.run_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - s.t0).count());
  if (s.wall.stage != WallStage::kNone) {
    res.started = false;
    res.start_error = std::string(stage_name(s.wall.stage)) + " failed: " + std::strerror(s.wall.err);
    return;
  }
  if (!s.have_report) {
    res.start_error = s.keeper_killed ? "the keeper did not report within the grace period and was killed"
                                      : "the keeper exited without reporting";
    res.tree_killed = false;
    return;
  }
  if (s.report.fork_errno != 0) {
    res.started = false;
    res.start_error = std::string("fork: ") + std::strerror(s.report.fork_errno);
    return;
  }
  res.started = true;
  res.timed_out = s.report.timed_out != 0;
  res.tree_killed = s.report.tree_killed != 0;
  if (s.report.exited) {
    res.exit_code = s.report.code;
  } else {
    res.signal = s.report.code;
  }
}

}  // namespace

SpawnResult supervise_by_keeper(const SpawnSpec& spec) {
  SpawnResult res;
  Supervision s;
  s.t0 = std::chrono::steady_clock::now();
  if (std::string e = prepare(spec, s); !e.empty()) {
    res.start_error = std::move(e);
    return res;
  }
  drain(spec, s, res);
  collect(s, res);
  return res;
}

}  // namespace batlehub::base::spawn_detail
