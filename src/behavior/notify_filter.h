// The detonation's seccomp filter: the system calls whose arguments the observer reads
// (seccomp user notification, SECCOMP_RET_USER_NOTIF), as reviewable data. It is stacked on
// the agent's deny filter, whose ERRNO outranks a notification (seccomp(2): the highest
// action of all filters wins), so nothing the agent denies is ever notified or emulated here.
//
// Notification records; it does not enforce (seccomp_unotify(2) NOTES: the target may
// rewrite an argument after it was read). The walls are the agent's and the runtime's; what
// the observer emulates (socket, connect, setsockopt on a sink stream) it performs itself, so
// the kernel never acts on an argument the observer did not see.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/expected.h"
#include "base/spawn.h"

namespace batlehub::behavior {

enum class Watched {
  kExec,        // execve, execveat: the program and its argv
  kOpen,        // open, openat, openat2, creat: decoy reads and writes outside the install tree
  kSocket,      // socket(AF_INET/AF_INET6, SOCK_STREAM): handed a stream to the sink instead
  kConnect,     // connect: every address a process reaches for
  kSendTo,      // sendto with an address: a datagram's destination and first bytes (DNS)
  kSetSockOpt,  // setsockopt at IPPROTO_TCP: answered for the sink's streams, which are not TCP
};

struct WatchRule {
  std::string_view name;
  int x86_64_nr;
  Watched what;
  // The rule applies when (argument[arg] & mask) == value, for each condition.
  struct When {
    unsigned arg;
    std::uint64_t mask;
    std::uint64_t value;
    bool not_equal = false;  // (argument[arg] & mask) != value
  };
  std::optional<When> when;
  std::optional<When> and_when;
};

std::span<const WatchRule> watch_list();

// The rules compiled (libseccomp, exported as BPF), for the child to load with
// install_with_listener.
Expected<base::SeccompProgram, std::string> compile_watch_filter();

// Loads `program` on the calling thread with SECCOMP_FILTER_FLAG_NEW_LISTENER (and
// WAIT_KILLABLE_RECV where the kernel has it): the listener's descriptor, or -1 with errno.
// Needs no_new_privs. Called in the child between fork and execve.
int install_with_listener(const base::SeccompProgram& program);

}  // namespace batlehub::behavior
