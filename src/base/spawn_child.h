// What the three supervisors of spawn_and_wait (spawn.h) share: the scanner's child from its
// clone to its execve, one round of killing a run's tree, reading its pipes, the clock.
// Internal to base/: spawn_child.cc holds these; spawn_keeper.cc is the keeper
// (Supervisor::kKeeper), spawn_in_process.cc the two that supervise from the calling
// process (kThisProcess) or thread (kThisThread); spawn.cc chooses.
#pragma once

#include <poll.h>
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/fd.h"
#include "base/spawn.h"

namespace batlehub::base::spawn_detail {

// Everything the child needs, built before the clone: after it the child only reads it.
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

// Writes a fixed-size report; async-signal-safe (base::write_all is write(2) and errno).
template <class T>
void write_struct(int fd, const T& v) {
  write_all(fd, std::string_view(reinterpret_cast<const char*>(&v), sizeof v));
}

// Starts the child of `c` on a stack mapped for it, with clone(CLONE_VM | CLONE_VFORK): it
// has exec'd or exited when this returns. The pid, or -1 with errno.
pid_t start_scanner_on_own_stack(const ChildPlan& c);

// A wait status as the keeper reports it: `exited` 1 and the exit status, or 0 and the signal.
void record_status(int st, int& exited, int& code);

// The children of `self` (at most `max`), from /proc/<pid>/task/<pid>/children, else from every
// process's stat; -1 when /proc cannot say. Async-signal-safe.
int list_children(pid_t self, pid_t* out, int max);

// One round of killing what is left of a run: the scanner's group, then every child of this
// process and their groups. False when /proc cannot list the children.
bool kill_round(pid_t scanner);

// CLOCK_MONOTONIC: milliseconds left until `deadline` (negative once past), and the
// deadline `ms` from now.
long ms_until(const timespec& deadline);
timespec deadline_after(long long ms);

// Whether entry `i` of a poll set (-1: not in it this round) has something to read, or
// its writer is gone.
bool readable(const pollfd* pfd, int i);

// A close-on-exec pipe.
bool make_pipe(int fds[2]);
bool make_pipe(Fd& r, Fd& w);

// Appends `k` bytes the scanner wrote to stdout, up to the cap: true when these went over it.
bool take_stdout(const SpawnSpec& spec, SpawnResult& res, const char* buf, std::size_t k);
// Appends `k` bytes of stderr, keeping only its tail.
void take_stderr(SpawnResult& res, const char* buf, std::size_t k);

// argv or envp for execve: pointers into `v`, which must outlive them, and a nullptr.
std::vector<char*> c_array(const std::vector<std::string>& v);

// The system call behind a wall the child could not put up, for the start error.
const char* stage_name(WallStage s);

// The supervisors, one per Supervisor.
SpawnResult supervise_by_keeper(const SpawnSpec& spec);
SpawnResult supervise_in_process(const SpawnSpec& spec);
SpawnResult supervise_from_thread(const SpawnSpec& spec);

}  // namespace batlehub::base::spawn_detail
