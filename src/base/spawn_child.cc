// The scanner's child, from its clone to its execve, and what every supervisor does around
// it (spawn_child.h).
#include "base/spawn_child.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sanitizer/asan_interface.h>
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

namespace batlehub::base::spawn_detail {

namespace {

constexpr std::size_t kStderrKeep = 32 * 1024;
constexpr std::size_t kStderrMax = 64 * 1024;

// --- async-signal-safe helpers (used between fork and execve / _exit) ----------------

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

}  // namespace

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

namespace {

[[noreturn]] void scanner_child(const ChildPlan& c) {
  // Every signal is blocked on entry (see start_scanner): the handlers inherited from the
  // worker must not run in a child that shares the keeper's memory, so they are all reset
  // before anything is unblocked. execve keeps ignored signals ignored; a scanner starts
  // from the defaults.
  struct sigaction dfl {};
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

}  // namespace

long ms_until(const timespec& deadline) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (deadline.tv_sec - now.tv_sec) * 1000 + (deadline.tv_nsec - now.tv_nsec) / 1'000'000;
}

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

void record_status(int st, int& exited, int& code) {
  if (WIFEXITED(st)) {
    exited = 1;
    code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    exited = 0;
    code = WTERMSIG(st);
  }
}

// Orphans of the scanner's tree are re-parented here by the subreaper: they are this
// process's children.
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

bool readable(const pollfd* pfd, int i) {
  return i >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

bool make_pipe(int fds[2]) {
  return ::pipe2(fds, O_CLOEXEC) == 0;
}

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
    case WallStage::kSetup:
      return "setting up the child's descriptors and directory";
    case WallStage::kIdentity:
      return "setresuid";
    case WallStage::kRlimit:
      return "setrlimit";
    case WallStage::kNoNewPrivs:
      return "prctl(PR_SET_NO_NEW_PRIVS)";
    case WallStage::kSeccomp:
      return "prctl(PR_SET_SECCOMP)";
    case WallStage::kExec:
      return "execve";
    case WallStage::kCgroup:
      return "joining the run's cgroup (write to cgroup.procs)";
    case WallStage::kLandlock:
      return "landlock_restrict_self";
    case WallStage::kNone:
      break;
  }
  return "?";
}

bool make_pipe(Fd& r, Fd& w) {
  int fds[2];
  if (!make_pipe(fds)) return false;
  r.reset(fds[0]);
  w.reset(fds[1]);
  return true;
}

}  // namespace batlehub::base::spawn_detail

namespace batlehub::base {

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

}  // namespace batlehub::base
