// The kernel a process runs on, as it says itself: what the probe reports from inside a
// sandbox and what the worker compares it with, to tell a gVisor (or Kata) sandbox from one
// on the host's kernel.
#pragma once

#include <sys/utsname.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace batlehub::base {

// "<sysname> <release> <version> <machine>", uname(2)'s own fields, or "unknown (uname:
// <errno>)" when the call fails (a seccomp profile that denies it).
inline std::string kernel_identity() {
  struct utsname u {};
  if (::uname(&u) != 0) return std::string("unknown (uname: ") + std::strerror(errno) + ")";
  return std::string(u.sysname) + " " + u.release + " " + u.version + " " + u.machine;
}

}  // namespace batlehub::base
