// Supervisor::kThisProcess and Supervisor::kThisThread (spawn.h): the child's pipes read in
// one poll with its end — a signalfd for SIGCHLD in a process of its own, a pidfd from a
// thread — by the caller itself, with no keeper between.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <utility>

#include "base/spawn_child.h"

namespace batlehub::base::spawn_detail {

namespace {

// The child's pipes as a supervisor in the calling process reads them (kThisProcess,
// kThisThread): stdin an empty pipe, stdout capped, the tail of stderr, and the exec-error
// pipe, whose EOF means "started"; with what the child is started from (argv, envp and the
// filter must live until it has exec'd).
class ChildPipes {
 public:
  // The pipes and the child's plan. False with errno when a pipe cannot be made.
  bool open(const SpawnSpec& spec) {
    if (!make_pipe(in_r_, in_w_) || !make_pipe(out_r_, out_w_) || !make_pipe(err_r_, err_w_) ||
        !make_pipe(exec_r_, exec_w_)) {
      return false;
    }
    argv_ = c_array(spec.argv);
    envp_ = c_array(spec.env);
    if (spec.walls.seccomp != nullptr) fprog_ = spec.walls.seccomp->fprog();
    plan_ = ChildPlan{
        spec.program.c_str(), argv_.data(), envp_.data(),  spec.cwd_fd, in_r_.get(),
        out_w_.get(),         err_w_.get(), exec_w_.get(), &spec.walls, spec.walls.seccomp ? &fprog_ : nullptr};
    return true;
  }
  const ChildPlan& plan() const { return plan_; }
  // Once the child has started: only it holds the write ends now, and its stdin reads EOF.
  void close_child_ends() {
    in_r_.reset();
    in_w_.reset();
    out_w_.reset();
    err_w_.reset();
    exec_w_.reset();
  }
  bool drained() const { return !out_open_ && !err_open_ && exec_done_; }
  // Nothing more will be read (poll itself failed).
  void abandon() {
    out_open_ = err_open_ = false;
    exec_done_ = true;
  }
  // Polls the pipes still open and, unless `also` is -1, one more descriptor the supervisor
  // waits on (the keeper's signalfd, the thread child's pidfd), for up to wait_ms. poll's
  // answer; ready(also_index()) says whether that descriptor woke it.
  int poll(int also, std::int64_t wait_ms) {
    int n = 0;
    idx_out_ = idx_err_ = idx_exec_ = idx_also_ = -1;
    if (out_open_) {
      idx_out_ = n;
      pfd_[n++] = {out_r_.get(), POLLIN, 0};
    }
    if (err_open_) {
      idx_err_ = n;
      pfd_[n++] = {err_r_.get(), POLLIN, 0};
    }
    if (!exec_done_) {
      idx_exec_ = n;
      pfd_[n++] = {exec_r_.get(), POLLIN, 0};
    }
    if (also >= 0) {
      idx_also_ = n;
      pfd_[n++] = {also, POLLIN, 0};
    }
    return ::poll(pfd_, static_cast<nfds_t>(n), static_cast<int>(wait_ms));
  }
  bool also_ready() const { return readable(pfd_, idx_also_); }
  // Reads what the last poll found ready in the pipes; true when stdout went over its cap
  // with these bytes.
  bool read_ready(const SpawnSpec& spec, SpawnResult& res) {
    const pollfd* pfd = pfd_;
    bool over_cap = false;
    if (readable(pfd, idx_out_)) {
      ssize_t k = ::read(out_r_.get(), buf_, sizeof buf_);
      if (k <= 0) {
        if (k == 0 || errno != EINTR) out_open_ = false;
      } else {
        over_cap = take_stdout(spec, res, buf_, static_cast<std::size_t>(k));
      }
    }
    if (readable(pfd, idx_err_)) {
      ssize_t k = ::read(err_r_.get(), buf_, sizeof buf_);
      if (k <= 0) {
        if (k == 0 || errno != EINTR) err_open_ = false;
      } else {
        take_stderr(res, buf_, static_cast<std::size_t>(k));
      }
    }
    if (readable(pfd, idx_exec_)) {
      ssize_t k = ::read(exec_r_.get(), &wall_, sizeof wall_);
      if (k == static_cast<ssize_t>(sizeof wall_) || k == 0 || (k < 0 && errno != EINTR)) exec_done_ = true;
    }
    return over_cap;
  }
  // How the run ended, into `res`: a wall the child could not put up, or its exit status
  // (`exited` 1) or signal (0), as record_status gives them.
  void finish(SpawnResult& res, std::chrono::steady_clock::time_point t0, int exited, int code) const {
    res.run_ms = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
    if (wall_.stage != WallStage::kNone) {
      res.start_error = std::string(stage_name(wall_.stage)) + " failed: " + std::strerror(wall_.err);
      return;
    }
    res.started = true;
    if (exited) {
      res.exit_code = code;
    } else {
      res.signal = code;
    }
  }

 private:
  Fd in_r_, in_w_, out_r_, out_w_, err_r_, err_w_, exec_r_, exec_w_;
  std::vector<char*> argv_, envp_;
  sock_fprog fprog_{};
  ChildPlan plan_{};
  bool out_open_ = true, err_open_ = true, exec_done_ = false;
  int idx_out_ = -1, idx_err_ = -1, idx_exec_ = -1, idx_also_ = -1;
  pollfd pfd_[4] = {};  // the last poll's set: the three pipes and one descriptor of the supervisor's
  WallFailure wall_{};
  char buf_[65536];
};

// How both supervisors open: the result to fill, the clock started, the child's pipes and
// plan, and the scanner's deadline.
struct Opening {
  SpawnResult res;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::unique_ptr<ChildPipes> pipes = std::make_unique<ChildPipes>();
  timespec deadline{};

  // False with errno when a pipe cannot be made.
  bool open(const SpawnSpec& spec) {
    if (!pipes->open(spec)) return false;
    deadline = deadline_after(spec.timeout.count());
    return true;
  }
  // Nothing started: why, with errno's words.
  SpawnResult failed(const char* what) {
    res.start_error = std::string(what) + ": " + std::strerror(errno);
    return std::move(res);
  }
};

}  // namespace

// Supervisor::kThisProcess: the keeper's loop and the parent's drain in one poll,
// in the calling process, over the scanner's pipes and a signalfd that says a child ended.
// The same phases as keeper() and drain(): wait for the scanner's end, the deadline or
// stdout over its cap; then kill the scanner's group and every child this process has,
// round after round, until it has none; then read what is left in the pipes.
SpawnResult supervise_in_process(const SpawnSpec& spec) {
  Opening o;
  if (!o.open(spec)) return o.failed("pipe2");
  SpawnResult& res = o.res;
  ChildPipes* pipes = o.pipes.get();
  const timespec deadline = o.deadline;
  auto fail = [&o](const char* what) { return o.failed(what); };

  // A daemonised grandchild (double fork + setsid) is re-parented here, not to init.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return fail("prctl(PR_SET_CHILD_SUBREAPER)");
  // SIGCHLD is read from a signalfd, so it must stay blocked; the caller's mask comes back
  // on every way out.
  sigset_t chld, old_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (::sigprocmask(SIG_BLOCK, &chld, &old_mask) != 0) return fail("sigprocmask");
  struct RestoreMask {
    sigset_t mask;
    ~RestoreMask() { ::sigprocmask(SIG_SETMASK, &mask, nullptr); }
  } restore{old_mask};
  Fd sig(::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!sig.valid()) return fail("signalfd");
  const pid_t scanner = start_scanner_on_own_stack(pipes->plan());
  if (scanner < 0) return fail("fork");
  ::setpgid(scanner, scanner);
  pipes->close_child_ends();

  bool scanner_done = false, killing = false, tree_gone = false;
  int exited = 0, code = 0;  // as the keeper reports them: a signal 0 if never reaped
  timespec give_up{}, drain_until{};
  auto start_killing = [&] {
    killing = true;
    clock_gettime(CLOCK_MONOTONIC, &give_up);
    give_up.tv_sec += 20;  // a tree we cannot see or cannot kill in 20 s is reported as such
  };
  auto tree_ended = [&] {
    tree_gone = true;
    drain_until = deadline_after(200);  // every writer is dead: the pipes are at EOF, or nearly
  };
  // Reaps every child that has ended; true when this process has none left at all.
  auto reap = [&] {
    int st = 0;
    pid_t p;
    while ((p = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (p != scanner || scanner_done) continue;
      scanner_done = true;
      record_status(st, exited, code);
    }
    return p < 0 && errno == ECHILD;
  };
  while (!tree_gone || !pipes->drained()) {
    long wait_ms;
    if (!killing) {
      wait_ms = ms_until(deadline);
      if (wait_ms <= 0) {
        res.timed_out = true;
        start_killing();
        continue;
      }
    } else if (!tree_gone) {
      // One round of the keeper's second phase.
      if (!kill_round(scanner)) res.tree_killed = false;
      if (reap()) {
        tree_ended();
        continue;
      }
      if (ms_until(give_up) <= 0) {
        res.tree_killed = false;
        break;
      }
      wait_ms = 10;  // the next child's end wakes us; one re-parented here may not be dead yet
    } else {
      wait_ms = ms_until(drain_until);
      if (wait_ms <= 0) break;
    }
    int r = pipes->poll(tree_gone ? -1 : sig.get(), wait_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      // Nothing can be read any more; what remains is to kill the tree, which needs no poll.
      pipes->abandon();
      if (!killing) start_killing();
      timespec nap{0, 10'000'000};
      ::nanosleep(&nap, nullptr);
      continue;
    }
    if (pipes->read_ready(spec, res) && !killing) start_killing();  // the keeper's SIGTERM from its parent
    if (pipes->also_ready()) {
      signalfd_siginfo info;
      while (::read(sig.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      }
      if (!killing) {
        reap();
        if (scanner_done) start_killing();
      }
    }
  }

  pipes->finish(res, o.t0, exited, code);
  return std::move(o.res);  // not a copy: it may hold 32 MiB of stdout
}

// Supervisor::kThisThread: the child is this thread's own (clone with CLONE_VM |
// CLONE_VFORK, as the keeper starts a scanner), watched through a pidfd beside its pipes.
// Its tree is its own business: bwrap ends every process of its sandbox when it ends. What
// is done here is what the keeper does for its scanner's group: at the deadline, or with
// stdout over its cap, the child and its group are killed; once it is reaped, the pipes are
// drained (for at most 200 ms: only a process the child's walls failed to end could still
// hold them, and then `tree_killed` says so).
SpawnResult supervise_from_thread(const SpawnSpec& spec) {
  Opening o;
  if (!o.open(spec)) return o.failed("pipe2");
  SpawnResult& res = o.res;
  ChildPipes* pipes = o.pipes.get();
  const timespec deadline = o.deadline;
  auto fail = [&o](const char* what) { return o.failed(what); };
  const pid_t child = start_scanner_on_own_stack(pipes->plan());
  if (child < 0) return fail("fork");
  ::setpgid(child, child);
  // Not yet reaped, so the pid is still this child's: no other process can be named by it.
  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, child, 0)));
  if (!pidfd.valid()) {
    const int err = errno;
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL);
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    errno = err;
    return fail("pidfd_open");
  }
  pipes->close_child_ends();

  bool reaped = false, killed = false;
  int exited = 0, code = 0;
  timespec drain_until{}, give_up{};
  auto kill_child = [&] {
    if (killed) return;
    killed = true;
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL);
    give_up = deadline_after(20'000);  // a child SIGKILL cannot end in 20 s is reported as such
  };
  while (!reaped || !pipes->drained()) {
    long wait_ms;
    if (!reaped && killed) {
      wait_ms = ms_until(give_up);
      if (wait_ms <= 0) {
        res.tree_killed = false;
        break;
      }
    } else if (!reaped) {
      wait_ms = ms_until(deadline);
      if (wait_ms <= 0) {
        res.timed_out = true;
        kill_child();
        continue;
      }
    } else {
      wait_ms = ms_until(drain_until);
      if (wait_ms <= 0) {
        res.tree_killed = false;  // something the child left still holds its pipes
        break;
      }
    }
    int r = pipes->poll(reaped ? -1 : pidfd.get(), wait_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      // Nothing can be read any more: end the child, reap it, and say what is known.
      pipes->abandon();
      kill_child();
      int st = 0;
      while (::waitpid(child, &st, 0) < 0 && errno == EINTR) {
      }
      record_status(st, exited, code);
      reaped = true;
      continue;
    }
    if (pipes->read_ready(spec, res)) kill_child();
    if (pipes->also_ready()) {
      int st = 0;
      pid_t p;
      while ((p = ::waitpid(child, &st, WNOHANG)) < 0 && errno == EINTR) {
      }
      if (p == child) {
        record_status(st, exited, code);
        reaped = true;
        drain_until = deadline_after(200);
      }
    }
  }

  pipes->finish(res, o.t0, exited, code);
  return std::move(o.res);
}

}  // namespace batlehub::base::spawn_detail
