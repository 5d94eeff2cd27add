#include "agent/seccomp_policy.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/fd.h"

namespace batlehub::agent {

namespace {

constexpr std::uint64_t kIntMask = 0xffffffffULL;  // an int argument: the kernel reads 32 bits

constexpr SyscallRule deny(std::string_view name, int nr, std::string_view why) {
  return SyscallRule{name, nr, Deny::kEperm, std::nullopt, why};
}
constexpr SyscallRule deny_if(std::string_view name, int nr, ArgMatch m, std::string_view why) {
  return SyscallRule{name, nr, Deny::kEperm, m, why};
}

// CLONE_NEWTIME shares its bit with CSIGNAL in clone(2)'s flags, so clone gets the seven
// others and unshare all eight.
constexpr std::array<std::uint64_t, 7> kCloneNew = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                                    CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET};

constexpr auto kRules = std::to_array<SyscallRule>({
    deny("ptrace", 101, "reads and writes other processes"),
    deny("process_vm_readv", 310, "reads another process's memory"),
    deny("process_vm_writev", 311, "writes another process's memory"),
    deny("kcmp", 312, "compares kernel objects of other processes"),
    deny("pidfd_getfd", 438, "steals a file descriptor from another process"),
    deny("mount", 165, "changes the filesystem view"),
    deny("umount2", 166, "changes the filesystem view"),
    deny("pivot_root", 155, "changes the root"),
    deny("fsopen", 430, "new mount API"),
    deny("fsconfig", 431, "new mount API"),
    deny("fsmount", 432, "new mount API"),
    deny("fspick", 433, "new mount API"),
    deny("move_mount", 429, "new mount API"),
    deny("open_tree", 428, "new mount API"),
    deny("mount_setattr", 442, "new mount API"),
    deny("open_tree_attr", 467, "new mount API (Linux 6.15, unknown to libseccomp 2.5.4)"),
    deny("setns", 308, "enters another namespace"),
    deny("keyctl", 250, "the kernel keyring is shared with the host"),
    deny("add_key", 248, "the kernel keyring is shared with the host"),
    deny("request_key", 249, "the kernel keyring is shared with the host"),
    deny("bpf", 321, "loads programs into the kernel"),
    deny("perf_event_open", 298, "a large kernel surface and a side channel"),
    deny("userfaultfd", 323, "a classic primitive for kernel race exploits"),
    deny("io_uring_setup", 425, "a large kernel surface that bypasses syscall filtering"),
    deny("io_uring_enter", 426, "a large kernel surface that bypasses syscall filtering"),
    deny("io_uring_register", 427, "a large kernel surface that bypasses syscall filtering"),
    deny("kexec_load", 246, "replaces the kernel"),
    deny("kexec_file_load", 320, "replaces the kernel"),
    deny("reboot", 169, "reboots the host"),
    deny("init_module", 175, "loads kernel code"),
    deny("finit_module", 313, "loads kernel code"),
    deny("delete_module", 176, "unloads kernel code"),
    deny("open_by_handle_at", 304, "opens files by handle, around the mount tree (the shocker escape)"),
    deny("ioperm", 173, "raw I/O port access"),
    deny("iopl", 172, "raw I/O port access"),
    deny("personality", 135, "turns off ASLR and changes the ABI"),
    deny("acct", 163, "process accounting is host-wide"),
    deny("quotactl", 179, "host-wide disk quotas"),
    deny("quotactl_fd", 443, "host-wide disk quotas"),
    deny("swapon", 167, "host-wide swap"),
    deny("swapoff", 168, "host-wide swap"),
    deny_if("mknod", 133, {1, S_IFMT, S_IFCHR}, "character devices (fifos stay allowed)"),
    deny_if("mknod", 133, {1, S_IFMT, S_IFBLK}, "block devices (fifos stay allowed)"),
    deny_if("mknodat", 259, {2, S_IFMT, S_IFCHR}, "character devices (fifos stay allowed)"),
    deny_if("mknodat", 259, {2, S_IFMT, S_IFBLK}, "block devices (fifos stay allowed)"),
    deny_if("socket", 41, {0, kIntMask, AF_ALG}, "the kernel crypto API, a frequent exploit target"),
    deny_if("socket", 41, {0, kIntMask, AF_VSOCK}, "a channel to the hypervisor"),
    SyscallRule{"clone3", 435, Deny::kEnosys, std::nullopt,
                "its flags live in memory a filter cannot read; ENOSYS makes glibc fall back to clone"},
});

// Namespaces: one rule per CLONE_NEW* flag, because a rule matches (arg & mask) == value
// and "any of these bits" is their union. unshare(CLONE_FS) and a plain clone stay allowed.
std::vector<SyscallRule> expand() {
  std::vector<SyscallRule> out(kRules.begin(), kRules.end());
  for (std::uint64_t f : kCloneNew) out.push_back(deny_if("unshare", 272, {0, f, f}, "creates a namespace"));
  out.push_back(deny_if("unshare", 272, {0, CLONE_NEWTIME, CLONE_NEWTIME}, "creates a time namespace"));
  for (std::uint64_t f : kCloneNew) out.push_back(deny_if("clone", 56, {0, f, f}, "creates a namespace"));
  return out;
}

}  // namespace

std::span<const SyscallRule> deny_list() {
  static const std::vector<SyscallRule> rules = expand();
  return rules;
}

namespace {
static_assert(kRealErrnos.eperm == EPERM && kRealErrnos.enosys == ENOSYS);

std::uint32_t action_of(Deny d, DenyErrnos e) {
  return SCMP_ACT_ERRNO(static_cast<std::uint32_t>(d == Deny::kEperm ? e.eperm : e.enosys));
}

struct CtxDeleter {
  void operator()(void* c) const { seccomp_release(c); }
};
}  // namespace

Expected<SeccompProgram, std::string> compile(std::span<const SyscallRule> rules, DenyErrnos errnos) {
  std::unique_ptr<void, CtxDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return Unexpected(std::string("seccomp_init failed"));
  // libseccomp's filter checks the architecture first; a call of any other ABI gets this.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, action_of(kForeignArchAction, errnos)); rc != 0) {
    return Unexpected("seccomp_attr_set(ACT_BADARCH): " + std::string(std::strerror(-rc)));
  }
  // The agent sets no_new_privs itself, in the child, and never loads through libseccomp.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);
  for (const SyscallRule& r : rules) {
    std::string name(r.name);
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) {
#if defined(__x86_64__)
      nr = r.x86_64_nr;
#else
      return Unexpected("libseccomp does not know syscall '" + name + "' and no number is recorded for this arch");
#endif
    }
    int rc;
    if (r.when) {
      scmp_arg_cmp cmp = SCMP_CMP(r.when->arg, SCMP_CMP_MASKED_EQ, r.when->mask, r.when->value);
      rc = seccomp_rule_add_exact_array(ctx.get(), action_of(r.action, errnos), nr, 1, &cmp);
    } else {
      rc = seccomp_rule_add_exact_array(ctx.get(), action_of(r.action, errnos), nr, 0, nullptr);
    }
    if (rc != 0) return Unexpected("seccomp rule for '" + name + "': " + std::strerror(-rc));
  }
  // libseccomp 2.5 exports only to a file descriptor; a memfd keeps it in memory.
  base::Fd mem(::memfd_create("batlehub-seccomp", MFD_CLOEXEC));
  if (!mem.valid()) return Unexpected(std::string("memfd_create: ") + std::strerror(errno));
  if (int rc = seccomp_export_bpf(ctx.get(), mem.get()); rc != 0) {
    return Unexpected("seccomp_export_bpf: " + std::string(std::strerror(-rc)));
  }
  off_t size = ::lseek(mem.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0 || size > 64 * 1024) {
    return Unexpected(std::string("seccomp_export_bpf wrote a program of unexpected size"));
  }
  SeccompProgram prog;
  prog.code.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(mem.get(), prog.code.data(), static_cast<std::size_t>(size), 0) != size) {
    return Unexpected(std::string("reading back the seccomp program: ") + std::strerror(errno));
  }
  return prog;
}

}  // namespace batlehub::agent
