#include "base/spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sanitizer/asan_interface.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/fd.h"

namespace batlehub::base {

namespace {

constexpr std::size_t kStderrKeep = 32 * 1024;
constexpr std::size_t kStderrMax = 64 * 1024;
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

// --- async-signal-safe helpers (used between fork and execve / _exit) ----------------

// Writes a fixed-size report; async-signal-safe (base::write_all is write(2) and errno).
template <class T>
void write_struct(int fd, const T& v) {
  write_all(fd, std::string_view(reinterpret_cast<const char*>(&v), sizeof v));
}

char* put_uint(char* p, unsigned long v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  while (n > 0) *p++ = tmp[--n];
  return p;
}

// A record of getdents64 (struct linux_dirent64, which glibc does not declare).
struct Dirent64 {
  unsigned long long ino;
  long long next;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// Calls `each(n)` for every entry of the directory `path` whose name is a decimal number
// below 2^31 (a pid in /proc, a descriptor in /proc/self/fd). False when the directory
// cannot be opened or read through. Raw syscalls and a buffer on the stack only: its
// callers run between fork and execve or exit.
template <typename Each>
bool for_each_number_in(const char* path, Each each) {
  int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  alignas(8) char ents[4096];
  bool read_through = true;
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir, ents, sizeof ents);
    if (n < 0) read_through = false;
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const Dirent64*>(ents + off);
      off += d->reclen;
      long v = 0;
      const char* c = d->name;
      for (; *c >= '0' && *c <= '9' && v < (1L << 31) / 10; ++c) v = v * 10 + (*c - '0');
      if (*c == '\0' && c != d->name) each(v);
    }
  }
  ::close(dir);
  return read_through;
}

// Every descriptor from 3 up marked close-on-exec, where close_range cannot (before Linux
// 5.11, or gVisor, which answers CLOSE_RANGE_CLOEXEC with EINVAL): the open ones, as
// /proc/self/fd lists them — a fcntl on each of 65,536 numbers costs seconds under gVisor,
// whose every syscall is a trap — else every number below 65,536.
void mark_cloexec_from_3() {
  auto mark = [](long fd) {
    if (fd >= 3) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  };
  if (for_each_number_in("/proc/self/fd", mark)) return;
  for (int fd = 3; fd < 65536; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// The parent pid in /proc/<pid>/stat ("pid (comm) state ppid …": the field after the last
// ')', since comm may hold anything), or -1.
long parent_of(const char* stat_path) {
  int fd = ::open(stat_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* close_paren = std::strrchr(buf, ')');
  if (close_paren == nullptr || close_paren[1] != ' ' || close_paren[2] == '\0' || close_paren[3] != ' ') return -1;
  long ppid = 0;
  for (const char* c = close_paren + 4; *c >= '0' && *c <= '9'; ++c) ppid = ppid * 10 + (*c - '0');
  return ppid;
}

// The children of `self` from every /proc/<pid>/stat, for a kernel without
// /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN is optional, and gVisor's procfs has
// none). The keeper calls it between fork and exit.
int list_children_by_scan(pid_t self, pid_t* out, int max) {
  int count = 0;
  const bool read_through = for_each_number_in("/proc", [&](long pid) {
    if (count >= max) return;
    char path[64] = "/proc/";
    std::memcpy(put_uint(path + 6, static_cast<unsigned long>(pid)), "/stat", 6);
    if (parent_of(path) == self) out[count++] = static_cast<pid_t>(pid);
  });
  return read_through ? count : -1;
}

// The keeper's children, from /proc/<pid>/task/<pid>/children, else from every process's
// stat. -1 when /proc cannot say.
int list_children(pid_t self, pid_t* out, int max) {
  char path[64] = "/proc/";
  char* p = put_uint(path + 6, static_cast<unsigned long>(self));
  std::memcpy(p, "/task/", 6);
  p = put_uint(p + 6, static_cast<unsigned long>(self));
  std::memcpy(p, "/children", 10);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return list_children_by_scan(self, out, max);
  if (fd < 0) return -1;
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n < 0) return -1;
  int count = 0;
  long cur = -1;
  for (ssize_t i = 0; i <= n && count < max; ++i) {
    char c = i < n ? buf[i] : ' ';
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
    } else if (cur >= 0) {
      out[count++] = static_cast<pid_t>(cur);
      cur = -1;
    }
  }
  return count;
}

long ms_until(const timespec& deadline) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (deadline.tv_sec - now.tv_sec) * 1000 + (deadline.tv_nsec - now.tv_nsec) / 1'000'000;
}

struct ChildPlan {
  const char* program;
  char* const* argv;
  char* const* envp;
  int cwd_fd;
  int stdin_fd, stdout_fd, stderr_fd;
  int exec_err_fd;
  const ChildWalls* walls;
  const sock_fprog* prog;
};

[[noreturn]] void scanner_child(const ChildPlan& c) {
  // Every signal is blocked on entry (see start_scanner): the handlers inherited from the
  // worker must not run in a child that shares the keeper's memory, so they are all reset
  // before anything is unblocked. execve keeps ignored signals ignored; a scanner starts
  // from the defaults.
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  }
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int fds[3] = {c.stdin_fd, c.stdout_fd, c.stderr_fd};
  for (int& fd : fds) {
    if (fd < 3) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  }
  WallFailure f{};
  for (int i = 0; i < 3; ++i) {
    if (::dup2(fds[i], i) < 0) f = {WallStage::kSetup, errno};
  }
  if (f.stage == WallStage::kNone && c.cwd_fd != AT_FDCWD && ::fchdir(c.cwd_fd) != 0) f = {WallStage::kSetup, errno};
  // Nothing of the agent's leaks into the scanner: every descriptor above stderr closes
  // at execve (the exec-error pipe among them, which is how its EOF means "started").
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) mark_cloexec_from_3();
  if (f.stage == WallStage::kNone) f = apply_walls(*c.walls, c.prog);
  if (f.stage == WallStage::kNone) {
    ::execve(c.program, c.argv, c.envp);
    f = {WallStage::kExec, errno};
  }
  write_struct(c.exec_err_fd, f);
  ::_exit(127);
}

int scanner_entry(void* plan) {
  scanner_child(*static_cast<const ChildPlan*>(plan));
}

// How much stack the scanner's child has until its execve: scanner_child's frames and the
// libc wrappers it calls, a few KiB; the rest is margin.
constexpr std::size_t kChildStackBytes = 64 * 1024;

// Starts the scanner's child with clone(CLONE_VM | CLONE_VFORK) on `stack` rather than with
// a fork. A fork copies the page tables of the keeper, itself a copy of the worker: 0.3 ms
// for bench_runtimes' small process, 11 ms for one with 100 MiB of heap touched (measured,
// fork+exec against vfork+exec of the same static program). Here nothing is copied: the
// keeper is suspended until the child has exec'd or exited, so the child may run on its
// memory, and it only installs its walls and execs. Every signal is blocked across the
// clone, so that no handler inherited from the worker runs in the child before
// scanner_child has reset them all. The pid, or -1 with errno.
pid_t start_scanner(const ChildPlan& c, char* stack) {
  sigset_t all, saved;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &saved);
  pid_t pid =
      ::clone(scanner_entry, stack + kChildStackBytes, CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<ChildPlan*>(&c));
  int err = errno;
  ::sigprocmask(SIG_SETMASK, &saved, nullptr);
  errno = err;
  return pid;
}

// start_scanner on a stack mapped for it rather than taken from the caller's, which may be
// a small worker thread's; unmapped on return, since CLONE_VFORK means the child has exec'd
// or exited by then. The pid, or -1 with errno.
pid_t start_scanner_on_own_stack(const ChildPlan& c) {
  void* stack =
      ::mmap(nullptr, kChildStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return -1;
  // Under AddressSanitizer, fresh pages may inherit the shadow of an earlier child's stack at
  // the same address (its frames never returned: it exec'd), and that poison would fail the
  // child's first frame; the mapping is new, so its shadow is cleared. Nothing without ASan.
  ASAN_UNPOISON_MEMORY_REGION(stack, kChildStackBytes);
  const pid_t pid = start_scanner(c, static_cast<char*>(stack));
  const int err = errno;
  ::munmap(stack, kChildStackBytes);
  errno = err;
  return pid;
}

// A wait status as the keeper reports it: `exited` 1 and the exit status, or 0 and the signal.
void record_status(int st, int& exited, int& code) {
  if (WIFEXITED(st)) {
    exited = 1;
    code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    exited = 0;
    code = WTERMSIG(st);
  }
}

// One round of killing what is left of a run: the scanner's group, then every child of this
// process (orphans of the scanner's tree, re-parented here by the subreaper) and their
// groups. False when /proc cannot list the children.
bool kill_round(pid_t scanner) {
  ::kill(-scanner, SIGKILL);
  pid_t kids[512];
  int n = list_children(::getpid(), kids, 512);
  for (int i = 0; i < n; ++i) {
    ::kill(kids[i], SIGKILL);
    ::kill(-kids[i], SIGKILL);
  }
  return n >= 0;
}

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

// Whether entry `i` of a poll set (-1: not in it this round) has something to read, or
// its writer is gone.
bool readable(const pollfd* pfd, int i) {
  return i >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

bool make_pipe(int fds[2]) { return ::pipe2(fds, O_CLOEXEC) == 0; }

// Appends `k` bytes the scanner wrote to stdout, up to the cap: true when these went over it.
bool take_stdout(const SpawnSpec& spec, SpawnResult& res, const char* buf, std::size_t k) {
  if (res.stdout_over_cap) return false;
  std::size_t room = spec.stdout_cap - res.stdout_bytes.size();
  if (k <= room) {
    res.stdout_bytes.append(buf, k);
    return false;
  }
  res.stdout_bytes.append(buf, room);
  res.stdout_over_cap = true;
  return true;
}

// Appends `k` bytes of stderr, keeping only its tail.
void take_stderr(SpawnResult& res, const char* buf, std::size_t k) {
  std::string& se = res.stderr_raw;
  se.append(buf, k);
  if (se.size() > kStderrMax) se.erase(0, se.size() - kStderrKeep);
}

std::vector<char*> c_array(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

const char* stage_name(WallStage s) {
  switch (s) {
    case WallStage::kSetup: return "setting up the child's descriptors and directory";
    case WallStage::kIdentity: return "setresuid";
    case WallStage::kRlimit: return "setrlimit";
    case WallStage::kNoNewPrivs: return "prctl(PR_SET_NO_NEW_PRIVS)";
    case WallStage::kSeccomp: return "prctl(PR_SET_SECCOMP)";
    case WallStage::kExec: return "execve";
    case WallStage::kCgroup: return "joining the run's cgroup (write to cgroup.procs)";
    case WallStage::kLandlock:
      return "landlock_restrict_self";
    case WallStage::kNone: break;
  }
  return "?";
}

}  // namespace

WallFailure apply_walls(const ChildWalls& walls, const sock_fprog* prog) {
  for (int fd : walls.join_cgroups) {
    if (::write(fd, "0", 1) != 1) return {WallStage::kCgroup, errno};
  }
  if (walls.identity) {
    auto [uid, gid] = *walls.identity;
    // The raw system calls, not libc's wrappers, which would try to change every thread's
    // ids: the caller is a child with one thread that may share its parent's memory
    // (start_scanner), where libc's idea of the process's threads is its parent's.
    if (::syscall(SYS_setgroups, 0, nullptr) != 0 || ::syscall(SYS_setresgid, gid, gid, gid) != 0 ||
        ::syscall(SYS_setresuid, uid, uid, uid) != 0) {
      return {WallStage::kIdentity, errno};
    }
  }
  for (const RlimitSetting& r : walls.rlimits) {
    rlimit lim{r.value, r.value};
    if (::setrlimit(r.resource, &lim) != 0) return {WallStage::kRlimit, errno};
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return {WallStage::kNoNewPrivs, errno};
  if (walls.landlock_ruleset >= 0 && ::syscall(SYS_landlock_restrict_self, walls.landlock_ruleset, 0) != 0) {
    return {WallStage::kLandlock, errno};
  }
  if (prog != nullptr && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) != 0) return {WallStage::kSeccomp, errno};
  return {};
}

namespace {

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

timespec deadline_after(long long ms) {
  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += ms / 1000;
  deadline.tv_nsec += (ms % 1000) * 1'000'000;
  if (deadline.tv_nsec >= 1'000'000'000) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1'000'000'000;
  }
  return deadline;
}

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
  ChildPlan plan{spec.program.c_str(), s.argv.data(),  s.envp.data(),   spec.cwd_fd,
                 s.in_r.get(),         s.out_w.get(),  s.err_w.get(),   s.exec_w.get(),
                 &spec.walls,          spec.walls.seccomp ? &s.fprog : nullptr};
  s.timeout_ms = static_cast<long>(spec.timeout.count());
  timespec deadline = deadline_after(spec.timeout.count());
  int close_after_fork[] = {s.in_r.get(),  s.out_w.get(), s.err_w.get(), s.exec_w.get(), s.in_w.get(),
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
    if (out_open) { idx_out = n; pfd[n++] = {s.out_r.get(), POLLIN, 0}; }
    if (err_open) { idx_err = n; pfd[n++] = {s.err_r.get(), POLLIN, 0}; }
    if (status_open) { idx_status = n; pfd[n++] = {s.status_r.get(), POLLIN, 0}; }
    if (!exec_done) { idx_exec = n; pfd[n++] = {s.exec_r.get(), POLLIN, 0}; }
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

bool make_pipe(Fd& r, Fd& w) {
  int fds[2];
  if (!make_pipe(fds)) return false;
  r.reset(fds[0]);
  w.reset(fds[1]);
  return true;
}

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
  // Appends the pipes still open to `pfd`; returns how many entries it now has.
  int add_to(pollfd* pfd, int n) {
    idx_out_ = idx_err_ = idx_exec_ = -1;
    if (out_open_) {
      idx_out_ = n;
      pfd[n++] = {out_r_.get(), POLLIN, 0};
    }
    if (err_open_) {
      idx_err_ = n;
      pfd[n++] = {err_r_.get(), POLLIN, 0};
    }
    if (!exec_done_) {
      idx_exec_ = n;
      pfd[n++] = {exec_r_.get(), POLLIN, 0};
    }
    return n;
  }
  // Reads what poll found ready in the entries add_to made; true when stdout went over its
  // cap with these bytes.
  bool read_ready(const pollfd* pfd, const SpawnSpec& spec, SpawnResult& res) {
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
  int idx_out_ = -1, idx_err_ = -1, idx_exec_ = -1;
  WallFailure wall_{};
  char buf_[65536];
};

// Supervisor::kThisProcess: the keeper's loop and the parent's drain in one poll,
// in the calling process, over the scanner's pipes and a signalfd that says a child ended.
// The same phases as keeper() and drain(): wait for the scanner's end, the deadline or
// stdout over its cap; then kill the scanner's group and every child this process has,
// round after round, until it has none; then read what is left in the pipes.
SpawnResult supervise_in_process(const SpawnSpec& spec) {
  SpawnResult res;
  const auto t0 = std::chrono::steady_clock::now();
  auto fail = [&res](const char* what) {
    res.start_error = std::string(what) + ": " + std::strerror(errno);
    return res;
  };
  auto pipes = std::make_unique<ChildPipes>();
  if (!pipes->open(spec)) return fail("pipe2");
  const timespec deadline = deadline_after(spec.timeout.count());

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
    pollfd pfd[4];
    int n = pipes->add_to(pfd, 0);
    const int idx_sig = tree_gone ? -1 : n;
    if (!tree_gone) pfd[n++] = {sig.get(), POLLIN, 0};
    int r = ::poll(pfd, static_cast<nfds_t>(n), static_cast<int>(wait_ms));
    if (r < 0) {
      if (errno == EINTR) continue;
      // Nothing can be read any more; what remains is to kill the tree, which needs no poll.
      pipes->abandon();
      if (!killing) start_killing();
      timespec nap{0, 10'000'000};
      ::nanosleep(&nap, nullptr);
      continue;
    }
    if (pipes->read_ready(pfd, spec, res) && !killing) start_killing();  // the keeper's SIGTERM from its parent
    if (readable(pfd, idx_sig)) {
      signalfd_siginfo info;
      while (::read(sig.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      }
      if (!killing) {
        reap();
        if (scanner_done) start_killing();
      }
    }
  }

  pipes->finish(res, t0, exited, code);
  return res;
}

// Supervisor::kThisThread: the child is this thread's own (clone with CLONE_VM |
// CLONE_VFORK, as the keeper starts a scanner), watched through a pidfd beside its pipes.
// Its tree is its own business: bwrap ends every process of its sandbox when it ends. What
// is done here is what the keeper does for its scanner's group: at the deadline, or with
// stdout over its cap, the child and its group are killed; once it is reaped, the pipes are
// drained (for at most 200 ms: only a process the child's walls failed to end could still
// hold them, and then `tree_killed` says so).
SpawnResult supervise_from_thread(const SpawnSpec& spec) {
  SpawnResult res;
  const auto t0 = std::chrono::steady_clock::now();
  auto fail = [&res](const char* what) {
    res.start_error = std::string(what) + ": " + std::strerror(errno);
    return res;
  };
  auto pipes = std::make_unique<ChildPipes>();
  if (!pipes->open(spec)) return fail("pipe2");
  const timespec deadline = deadline_after(spec.timeout.count());
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
    pollfd pfd[4];
    int n = pipes->add_to(pfd, 0);
    const int idx_pid = reaped ? -1 : n;
    if (!reaped) pfd[n++] = {pidfd.get(), POLLIN, 0};
    int r = ::poll(pfd, static_cast<nfds_t>(n), static_cast<int>(wait_ms));
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
    if (pipes->read_ready(pfd, spec, res)) kill_child();
    if (readable(pfd, idx_pid)) {
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

  pipes->finish(res, t0, exited, code);
  return res;
}

}  // namespace

SpawnResult spawn_and_wait(const SpawnSpec& spec) {
  if (spec.supervisor == Supervisor::kThisProcess) return supervise_in_process(spec);
  if (spec.supervisor == Supervisor::kThisThread) return supervise_from_thread(spec);
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

}  // namespace batlehub::base
