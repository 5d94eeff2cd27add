#include "behavior/notify_filter.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/fd.h"

namespace batlehub::behavior {

namespace {

using When = WatchRule::When;

constexpr std::uint64_t kInt = 0xffffffffULL;
// socket(2)'s type carries SOCK_NONBLOCK and SOCK_CLOEXEC above the type itself.
constexpr std::uint64_t kTypeMask = 0xf;

constexpr auto kRules = std::to_array<WatchRule>({
    {"execve", 59, Watched::kExec, std::nullopt, std::nullopt},
    {"execveat", 322, Watched::kExec, std::nullopt, std::nullopt},
    {"open", 2, Watched::kOpen, std::nullopt, std::nullopt},
    {"creat", 85, Watched::kOpen, std::nullopt, std::nullopt},
    {"openat", 257, Watched::kOpen, std::nullopt, std::nullopt},
    {"openat2", 437, Watched::kOpen, std::nullopt, std::nullopt},
    {"socket", 41, Watched::kSocket, When{0, kInt, AF_INET}, When{1, kTypeMask, SOCK_STREAM}},
    {"socket", 41, Watched::kSocket, When{0, kInt, AF_INET6}, When{1, kTypeMask, SOCK_STREAM}},
    {"connect", 42, Watched::kConnect, std::nullopt, std::nullopt},
    {"sendto", 44, Watched::kSendTo, When{4, ~0ULL, 0, true}, std::nullopt},
    {"setsockopt", 54, Watched::kSetSockOpt, When{1, kInt, IPPROTO_TCP}, std::nullopt},
});

struct CtxDeleter {
  void operator()(void* c) const { seccomp_release(c); }
};

scmp_arg_cmp to_cmp(const When& w) {
  if (w.not_equal) return SCMP_CMP(w.arg, SCMP_CMP_NE, w.value);
  return SCMP_CMP(w.arg, SCMP_CMP_MASKED_EQ, w.mask, w.value);
}

}  // namespace

std::span<const WatchRule> watch_list() {
  return kRules;
}

// libseccomp builds the program (as the agent's deny list does, agent/seccomp_policy.cc);
// only its export to memory is written here, since libseccomp 2.5 exports to a descriptor.
Expected<base::SeccompProgram, std::string> compile_watch_filter() {
  std::unique_ptr<void, CtxDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return Unexpected(std::string("seccomp_init failed"));
  // Another ABI's calls are the agent's filter's to refuse (kForeignArchAction).
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);
  for (const WatchRule& r : kRules) {
    int nr = seccomp_syscall_resolve_name(std::string(r.name).c_str());
    if (nr == __NR_SCMP_ERROR) nr = r.x86_64_nr;
    std::array<scmp_arg_cmp, 2> cmps{};
    unsigned n = 0;
    if (r.when) cmps[n++] = to_cmp(*r.when);
    if (r.and_when) cmps[n++] = to_cmp(*r.and_when);
    if (int rc = seccomp_rule_add_exact_array(ctx.get(), SCMP_ACT_NOTIFY, nr, n, cmps.data()); rc != 0) {
      return Unexpected("watch rule for '" + std::string(r.name) + "': " + std::strerror(-rc));
    }
  }
  base::Fd mem(::memfd_create("batlehub-watch", MFD_CLOEXEC));
  if (!mem.valid()) return Unexpected(std::string("memfd_create: ") + std::strerror(errno));
  if (int rc = seccomp_export_bpf(ctx.get(), mem.get()); rc != 0) {
    return Unexpected("seccomp_export_bpf: " + std::string(std::strerror(-rc)));
  }
  const off_t size = ::lseek(mem.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0 || size > 64 * 1024) {
    return Unexpected(std::string("seccomp_export_bpf wrote a program of unexpected size"));
  }
  base::SeccompProgram prog;
  prog.code.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(mem.get(), prog.code.data(), static_cast<std::size_t>(size), 0) != size) {
    return Unexpected(std::string("reading back the watch program: ") + std::strerror(errno));
  }
  return prog;
}

int install_with_listener(const base::SeccompProgram& program) {
  sock_fprog fprog = program.fprog();
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
  // Once a notification is received, only a fatal signal interrupts the target's wait: a
  // handled signal would otherwise restart the call as a second notification.
  long fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fprog);
  if (fd < 0 && errno == EINVAL) {
    fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
  }
  return static_cast<int>(fd);
}

}  // namespace batlehub::behavior
