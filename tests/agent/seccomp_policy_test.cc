// The seccomp filter, rule by rule (in the manner of Chromium's bpf_dsl tests).
//
// For each rule of deny_list(), a child process installs the filter and makes that call
// with harmless arguments. Two filters are tried: the real one (the errno must be EPERM,
// or ENOSYS for clone3), and the same rules compiled with distinctive errnos (EDOM for
// EPERM, ENOTUNIQ for ENOSYS) — no kernel path returns those for these calls, so seeing
// them proves the *filter* decided, not the kernel's own permission checks.
#include "agent/seccomp_policy.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <thread>

#include "agent/scanner_filter.h"
#include "base/spawn.h"

namespace batlehub::agent {
namespace {

constexpr DenyErrnos kMarked{EDOM, ENOTUNIQ};

struct Call {
  long ret = 0;
  int err = 0;
};

using Invoke = std::function<Call(const SyscallRule&)>;

Call sys(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  errno = 0;
  long r = ::syscall(nr, a, b, c, d, e, f);
  return {r, r == -1 ? errno : 0};
}

long p(const void* ptr) { return reinterpret_cast<long>(ptr); }

constexpr long kNoSuchPid = 0x3ffffff0;
const char* kNoSuchPath = "/nonexistent-batlehub/x";

// One harmless call per syscall name; conditional rules take their argument from the rule.
const std::map<std::string_view, Invoke>& invocations() {
  static const std::map<std::string_view, Invoke> m = {
      {"ptrace", [](auto&) { return sys(SYS_ptrace, 3 /* PEEKUSER */, kNoSuchPid, 0, 0); }},
      {"process_vm_readv", [](auto&) { return sys(SYS_process_vm_readv, kNoSuchPid, 0, 0, 0, 0, 0); }},
      {"process_vm_writev", [](auto&) { return sys(SYS_process_vm_writev, kNoSuchPid, 0, 0, 0, 0, 0); }},
      {"kcmp", [](auto&) { return sys(SYS_kcmp, kNoSuchPid, kNoSuchPid, 0, 0, 0); }},
      {"pidfd_getfd", [](auto&) { return sys(438, -1, 0, 0); }},
      {"mount", [](auto&) { return sys(SYS_mount, 0, 0, 0, 0, 0); }},
      {"umount2", [](auto&) { return sys(SYS_umount2, p(kNoSuchPath), 0); }},
      {"pivot_root", [](auto&) { return sys(SYS_pivot_root, 0, 0); }},
      {"fsopen", [](auto&) { return sys(430, 0, 0); }},
      {"fsconfig", [](auto&) { return sys(431, -1, 0, 0, 0, 0); }},
      {"fsmount", [](auto&) { return sys(432, -1, 0, 0); }},
      {"fspick", [](auto&) { return sys(433, -1, 0, 0); }},
      {"move_mount", [](auto&) { return sys(429, -1, 0, -1, 0, 0); }},
      {"open_tree", [](auto&) { return sys(428, -1, 0, 0); }},
      {"mount_setattr", [](auto&) { return sys(442, -1, 0, 0, 0, 0); }},
      {"open_tree_attr", [](auto&) { return sys(467, -1, 0, 0, 0, 0); }},
      {"setns", [](auto&) { return sys(SYS_setns, -1, 0); }},
      {"keyctl", [](auto&) { return sys(SYS_keyctl, 0x7fffffff, 0, 0, 0, 0); }},
      {"add_key", [](auto&) { return sys(SYS_add_key, 0, 0, 0, 0, 0); }},
      {"request_key", [](auto&) { return sys(SYS_request_key, 0, 0, 0, 0); }},
      {"bpf", [](auto&) { return sys(SYS_bpf, 0x7fff, 0, 0); }},
      {"perf_event_open", [](auto&) { return sys(SYS_perf_event_open, 0, 0, -1, -1, 0); }},
      {"userfaultfd", [](auto&) { return sys(SYS_userfaultfd, ~0L); }},
      {"io_uring_setup", [](auto&) { return sys(425, 0, 0); }},
      {"io_uring_enter", [](auto&) { return sys(426, -1, 0, 0, 0, 0, 0); }},
      {"io_uring_register", [](auto&) { return sys(427, -1, 0, 0, 0); }},
      {"kexec_load", [](auto&) { return sys(SYS_kexec_load, 0, 0, 0, 0xdead0000L); }},
      {"kexec_file_load", [](auto&) { return sys(320, -1, -1, 0, 0, 0xdead0000L); }},
      {"reboot", [](auto&) { return sys(SYS_reboot, 0, 0, 0, 0); }},
      {"init_module", [](auto&) { return sys(SYS_init_module, 0, 0, 0); }},
      {"finit_module", [](auto&) { return sys(SYS_finit_module, -1, 0, 0); }},
      {"delete_module", [](auto&) { return sys(SYS_delete_module, 0, 0); }},
      {"open_by_handle_at", [](auto&) { return sys(SYS_open_by_handle_at, -1, 0, 0); }},
      {"ioperm", [](auto&) { return sys(SYS_ioperm, 0x10000, 1, 0); }},
      {"iopl", [](auto&) { return sys(SYS_iopl, 99); }},
      {"personality", [](auto&) { return sys(SYS_personality, 0xffffffffL); }},
      {"acct", [](auto&) { return sys(SYS_acct, p(kNoSuchPath)); }},
      {"quotactl", [](auto&) { return sys(SYS_quotactl, 0, 0, 0, 0); }},
      {"quotactl_fd", [](auto&) { return sys(443, -1, 0, 0, 0); }},
      {"swapon", [](auto&) { return sys(SYS_swapon, 0, 0); }},
      {"swapoff", [](auto&) { return sys(SYS_swapoff, 0); }},
      {"mknod", [](auto& r) { return sys(SYS_mknod, p(kNoSuchPath), static_cast<long>(r.when->value | 0600), 0); }},
      {"mknodat",
       [](auto& r) { return sys(SYS_mknodat, AT_FDCWD, p(kNoSuchPath), static_cast<long>(r.when->value | 0600), 0); }},
      {"socket",
       [](auto& r) {
         Call c = sys(SYS_socket, static_cast<long>(r.when->value), SOCK_SEQPACKET, 0);
         if (c.ret >= 0) ::close(static_cast<int>(c.ret));
         return c;
       }},
      {"clone3", [](auto&) { return sys(SYS_clone3, 0, 0); }},
      {"unshare", [](auto& r) { return sys(SYS_unshare, static_cast<long>(r.when->value)); }},
      {"clone",
       [](auto& r) {
         Call c = sys(SYS_clone, static_cast<long>(r.when->value) | SIGCHLD, 0, 0, 0, 0);
         if (c.ret == 0) ::_exit(0);
         if (c.ret > 0) ::waitpid(static_cast<pid_t>(c.ret), nullptr, 0);
         return c;
       }},
  };
  return m;
}

// Runs `f` in a child that installed `prog` (or nothing), and returns what it saw.
Call in_child(const SeccompProgram* prog, const std::function<Call()>& f) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Call c{-2, 0};
    sock_fprog fp{};
    if (prog) fp = prog->fprog();
    base::WallFailure w = base::apply_walls(base::ChildWalls{}, prog ? &fp : nullptr);
    if (w.stage == base::WallStage::kNone) c = f();
    ssize_t n = ::write(fds[1], &c, sizeof c);
    ::_exit(n == sizeof c ? 0 : 1);
  }
  ::close(fds[1]);
  Call c{-3, 0};
  EXPECT_EQ(::read(fds[0], &c, sizeof c), static_cast<ssize_t>(sizeof c));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return c;
}

std::string rule_id(const SyscallRule& r) {
  std::string id(r.name);
  if (r.when) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "_arg%u_0x%llx", r.when->arg, static_cast<unsigned long long>(r.when->value));
    id += buf;
  }
  return id;
}

class EachRule : public ::testing::TestWithParam<std::size_t> {
 protected:
  const SyscallRule& rule() const { return deny_list()[GetParam()]; }
  Call call_under(const SeccompProgram* prog) const {
    auto it = invocations().find(rule().name);
    EXPECT_NE(it, invocations().end());
    const SyscallRule& r = rule();
    return in_child(prog, [&] { return it->second(r); });
  }
};

// The program the agent ships (compiled at build time, scanner_filter.h), rule by rule.
TEST_P(EachRule, the_real_filter_answers_with_the_rules_errno) {
  static const SeccompProgram prog = built_scanner_filter();
  Call c = call_under(&prog);
  int want = rule().action == Deny::kEperm ? EPERM : ENOSYS;
  EXPECT_EQ(c.ret, -1) << rule_id(rule());
  EXPECT_EQ(c.err, want) << rule_id(rule()) << " got " << strerrorname_np(c.err);
}

TEST_P(EachRule, the_denial_comes_from_the_filter_not_the_kernel) {
  static const auto marked = compile(deny_list(), kMarked);
  ASSERT_TRUE(marked) << marked.error();
  Call c = call_under(&*marked);
  int want = rule().action == Deny::kEperm ? kMarked.eperm : kMarked.enosys;
  EXPECT_EQ(c.ret, -1) << rule_id(rule());
  EXPECT_EQ(c.err, want) << rule_id(rule()) << " got " << (c.err ? strerrorname_np(c.err) : "success");
  // And without any filter the same call does not produce that errno.
  Call bare = call_under(nullptr);
  EXPECT_FALSE(bare.ret == -1 && bare.err == want) << rule_id(rule());
}

INSTANTIATE_TEST_SUITE_P(DenyList, EachRule, ::testing::Range<std::size_t>(0, deny_list().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& rule_index) { return rule_id(deny_list()[rule_index.param]); });

TEST(SeccompPolicy, the_filter_compiled_at_build_time_is_the_policy_compiled_now) {
  auto now = compile(deny_list());
  ASSERT_TRUE(now) << now.error();
  const SeccompProgram built = built_scanner_filter();
  ASSERT_EQ(built.code.size(), now->code.size());
  for (std::size_t i = 0; i < built.code.size(); ++i) {
    const sock_filter &b = built.code[i], &n = now->code[i];
    EXPECT_TRUE(b.code == n.code && b.jt == n.jt && b.jf == n.jf && b.k == n.k) << "instruction " << i;
  }
}

TEST(SeccompPolicy, every_rule_has_an_invocation_and_a_reason) {
  for (const SyscallRule& r : deny_list()) {
    EXPECT_TRUE(invocations().contains(r.name)) << r.name;
    EXPECT_FALSE(r.why.empty()) << r.name;
  }
}

TEST(SeccompPolicy, the_list_names_every_entry_the_rfc_and_the_architecture_require) {
  std::set<std::string_view> names;
  for (const SyscallRule& r : deny_list()) names.insert(r.name);
  for (const char* n : {"ptrace", "mount", "umount2", "pivot_root", "keyctl", "add_key", "request_key", "bpf",
                        "io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "clone",
                        "process_vm_readv", "process_vm_writev", "perf_event_open", "userfaultfd", "kexec_load",
                        "kexec_file_load", "reboot", "init_module", "finit_module", "delete_module",
                        "open_by_handle_at", "mknod", "ioperm", "iopl", "personality", "acct", "quotactl", "swapon",
                        "swapoff", "clone3", "fsopen", "fsmount", "fsconfig", "fspick", "move_mount", "open_tree",
                        "mount_setattr", "kcmp", "pidfd_getfd", "socket"}) {
    EXPECT_TRUE(names.contains(n)) << n;
  }
}

const SeccompProgram& real() {
  static const auto prog = compile(deny_list());
  return *prog;
}

TEST(SeccompPolicy, ordinary_work_still_runs_under_the_filter) {
  Call c = in_child(&real(), [] {
    // threads (clone without CLONE_NEW*, after clone3 answered ENOSYS), fork, a unix
    // socket, unshare of a non-namespace flag, and a fifo.
    std::thread t([] {});
    t.join();
    pid_t kid = ::fork();
    if (kid == 0) ::_exit(7);
    int st = 0;
    if (::waitpid(kid, &st, 0) != kid || WEXITSTATUS(st) != 7) return Call{-1, 1001};
    int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0) return Call{-1, errno};
    ::close(s);
    if (::unshare(CLONE_FS) != 0) return Call{-1, errno};
    char dir[] = "/tmp/batlehub-fifo-XXXXXX";
    if (!::mkdtemp(dir)) return Call{-1, errno};
    std::string fifo = std::string(dir) + "/f";
    int r = ::mknod(fifo.c_str(), S_IFIFO | 0600, 0);
    int e = errno;
    ::unlink(fifo.c_str());
    ::rmdir(dir);
    if (r != 0) return Call{-1, e};
    return Call{0, 0};
  });
  EXPECT_EQ(c.ret, 0) << strerrorname_np(c.err) << " (" << c.err << ")";
}

long int80_getpid() {
  long ret;
  asm volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
  return ret;
}

TEST(SeccompPolicy, a_call_through_the_i386_abi_is_refused) {
  Call bare = in_child(nullptr, [] { return Call{int80_getpid(), 0}; });
  EXPECT_GT(bare.ret, 0) << "without the filter, int 0x80 getpid answers a pid";
  Call c = in_child(&real(), [] { return Call{int80_getpid(), 0}; });
  EXPECT_EQ(c.ret, -EPERM);
  static const auto marked = compile(deny_list(), kMarked);
  Call m = in_child(&*marked, [] { return Call{int80_getpid(), 0}; });
  EXPECT_EQ(m.ret, -kMarked.eperm) << "the architecture check is the filter's";
}

TEST(SeccompPolicy, a_call_through_the_x32_abi_is_refused) {
  static const auto marked = compile(deny_list(), kMarked);
  Call m = in_child(&*marked, [] { return sys(0x40000000L | SYS_getpid); });
  EXPECT_EQ(m.ret, -1);
  EXPECT_EQ(m.err, kMarked.eperm);
}

}  // namespace
}  // namespace batlehub::agent
