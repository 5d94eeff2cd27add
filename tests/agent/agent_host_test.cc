// The agent on hosts that will not give it all its walls, the agent binary run for real:
// its rlimits (RFC 0022 §4.2: best-effort) under a lowered hard limit with no
// CAP_SYS_RESOURCE to raise it, and under a host that refuses to set one limit at all; and
// no_new_privs on a host that only pretends to set it; and no_network behind a firewall that
// rejects.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>

#include "harness.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;

// Takes CAP_SYS_RESOURCE away from this process for good (effective, permitted, inheritable
// and the bounding set): what an agent has on a host whose hard limits it may not raise.
bool drop_sys_resource() {
  if (::prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0) != 0 && errno != EINVAL) return false;
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[2]{};
  if (::syscall(SYS_capget, &h, d) != 0) return false;
  for (auto& x : d) {
    x.effective &= ~(1u << CAP_SYS_RESOURCE);
    x.permitted &= ~(1u << CAP_SYS_RESOURCE);
    x.inheritable &= ~(1u << CAP_SYS_RESOURCE);
  }
  return ::syscall(SYS_capset, &h, d) == 0;
}

// The agent binary on `m`, started from a child that first makes the host `host` says.
Outcome run_agent_on_host(Scratch& s, const wire::Manifest& m, const std::function<bool()>& host) {
  Scratch::write(s.work() / "manifest.json", wire::serialize(m));
  const std::string in = "file://" + (s.work() / "manifest.json").string();
  const std::string out = "file://" + (s.work() / "out.tar").string();
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(s.work().c_str()) != 0 || !host()) ::_exit(126);
    const char* argv[] = {BATLEHUB_AGENT_BIN, "--in", in.c_str(), "--out", out.c_str(), nullptr};
    const char* env[] = {"PATH=/usr/bin:/bin", nullptr};
    ::execve(argv[0], const_cast<char**>(argv), const_cast<char**>(env));
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return read_outcome(s.work() / "out.tar", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

// A host whose hard RLIMIT_NPROC is 500 and hard RLIMIT_CPU 20 s, and an agent that may not
// raise either: below the 1,024 processes every scanner gets and the manifest's 60 s.
bool low_hard_limits() {
  rlimit nproc{500, 500}, cpu{20, 20};
  return ::setrlimit(RLIMIT_NPROC, &nproc) == 0 && ::setrlimit(RLIMIT_CPU, &cpu) == 0 && drop_sys_resource();
}

wire::Assertion assertion(const Outcome& o, wire::Check c) {
  for (const auto& a : o.result.probe->assertions) {
    if (a.check == c) return a;
  }
  return wire::Assertion{c, wire::AssertionVerdict::kFail, "(missing)"};
}

wire::Manifest probe_manifest() {
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.timeout_ms = 10'000;
  m.limits = {512, 60};
  m.probe = wire::ProbeSpec{{}, {hostile()}};
  return m;
}

class AgentLimits : public ::testing::Test {
 protected:
  Scratch s_;
};

TEST_F(AgentLimits, a_run_on_a_host_with_lower_hard_limits_runs_under_them_and_says_so) {
  auto m = scan_manifest({hostile(), "limits"});
  m.limits = {300, 60};
  Outcome o = run_agent_on_host(s_, m, low_hard_limits);
  ASSERT_TRUE(o.have_result) << o.error << " (agent exit " << o.exit_status << ")";
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_EQ(o.result.exit_code, 0);
  std::vector<std::string> want = {"RLIMIT_DATA 314572800 314572800", "RLIMIT_CPU 20 20", "RLIMIT_CORE 0 0"};
  EXPECT_EQ(lines(o.stdout_bytes), want);
  std::vector<wire::LoweredRlimit> lowered = {{"RLIMIT_CPU", 60, 20}, {"RLIMIT_NPROC", 1024, 500}};
  EXPECT_EQ(o.result.rlimits_lowered, lowered);

  Scratch other;
  Outcome n = run_agent_on_host(other, scan_manifest({hostile(), "nproc"}), low_hard_limits);
  ASSERT_TRUE(n.have_result) << n.error;
  EXPECT_EQ(n.stdout_bytes, "RLIMIT_NPROC 500 500\n");
}

TEST_F(AgentLimits, a_run_on_a_host_with_higher_hard_limits_lowers_nothing) {
  Outcome o = run_agent_on_host(s_, scan_manifest({hostile(), "nproc"}), drop_sys_resource);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.stdout_bytes, "RLIMIT_NPROC 1024 1024\n");
  EXPECT_TRUE(o.result.rlimits_lowered.empty());
}

TEST_F(AgentLimits, the_probe_on_a_host_with_lower_hard_limits_warns_on_rlimits_and_proves_the_rest) {
  Outcome o = run_agent_on_host(s_, probe_manifest(), low_hard_limits);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.probe);
  auto r = assertion(o, wire::Check::kRlimits);
  EXPECT_EQ(r.verdict, wire::AssertionVerdict::kWarn) << r.evidence;
  EXPECT_EQ(r.evidence,
            "RLIMIT_DATA=536870912, RLIMIT_CPU=20 (lowered from 60: the host's hard limit), RLIMIT_CORE=0, "
            "RLIMIT_FSIZE=536870912, RLIMIT_NPROC=500 (lowered from 1024: the host's hard limit)");
  for (auto c : {wire::Check::kSeccompFilter, wire::Check::kNoNewPrivs, wire::Check::kCanarySyscall,
                 wire::Check::kClone3Enosys}) {
    EXPECT_EQ(assertion(o, c).verdict, wire::AssertionVerdict::kPass) << assertion(o, c).evidence;
  }
  EXPECT_EQ(o.result.rlimits_lowered.size(), 2u);
}

// A host that refuses to set RLIMIT_NPROC at all (a seccomp profile denying it here): the
// one limit that stops a fork bomb where no pids cgroup does, so it matters. Before, every
// walled assertion failed "installing the walls failed at stage 3" and seccomp_filter was
// named; now rlimits fails, naming the limit, and the walls after it are still proven.
bool refuses_nproc() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return false;
  bool ok =
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 2, SCMP_A1(SCMP_CMP_EQ, RLIMIT_NPROC),
                       SCMP_A2(SCMP_CMP_NE, 0)) == 0 &&
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setrlimit), 1, SCMP_A0(SCMP_CMP_EQ, RLIMIT_NPROC)) == 0 &&
      seccomp_load(ctx) == 0;
  seccomp_release(ctx);
  return ok;
}

TEST_F(AgentLimits, a_limit_the_host_will_not_set_at_all_fails_rlimits_naming_it) {
  Outcome o = run_agent_on_host(s_, probe_manifest(), refuses_nproc);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.probe);
  auto r = assertion(o, wire::Check::kRlimits);
  EXPECT_EQ(r.verdict, wire::AssertionVerdict::kFail);
  EXPECT_NE(r.evidence.find("RLIMIT_NPROC could not be set to 1024: EPERM"), std::string::npos) << r.evidence;
  for (auto c : {wire::Check::kSeccompFilter, wire::Check::kNoNewPrivs, wire::Check::kCanarySyscall,
                 wire::Check::kClone3Enosys}) {
    EXPECT_EQ(assertion(o, c).verdict, wire::AssertionVerdict::kPass) << assertion(o, c).evidence;
  }
  // The first of the agent's walled assertions to fail is rlimits, not seccomp_filter.
  std::string first;
  for (const auto& a : o.result.probe->assertions) {
    if (a.verdict == wire::AssertionVerdict::kFail && first.empty() &&
        (a.check == wire::Check::kSeccompFilter || a.check == wire::Check::kNoNewPrivs ||
         a.check == wire::Check::kCanarySyscall || a.check == wire::Check::kClone3Enosys ||
         a.check == wire::Check::kRlimits)) {
      first = std::string(wire::to_string(a.check));
    }
  }
  EXPECT_EQ(first, "rlimits");

  // A run on that host never starts its scanner without the limit.
  Scratch other;
  Outcome run = run_agent_on_host(other, scan_manifest({hostile(), "exit", "0", "x"}), refuses_nproc);
  ASSERT_TRUE(run.have_result) << run.error;
  EXPECT_FALSE(run.result.ran);
  ASSERT_TRUE(run.result.failure);
  EXPECT_EQ(run.result.failure->kind, wire::FailureKind::kSpawn);
  EXPECT_NE(run.result.failure->message.find("setrlimit failed"), std::string::npos) << run.result.failure->message;
}

// A host whose seccomp profile answers prctl(PR_SET_NO_NEW_PRIVS) with success and does
// nothing (this process is root: CAP_SYS_ADMIN lets it load a filter without no_new_privs,
// and lets the agent's walled child load its own). The scanner's child then runs under the
// agent's filter with NoNewPrivs: 0 — the one wall missing — which only reading it back shows:
// the bwrap runtime sets no_new_privs itself, and without it and CAP_SYS_ADMIN no filter loads.
bool fakes_no_new_privs() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return false;
  bool ok =
      seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) == 0 &&
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NO_NEW_PRIVS)) == 0 &&
      seccomp_load(ctx) == 0;
  seccomp_release(ctx);
  return ok;
}

TEST(AgentWalls, a_host_that_only_pretends_to_set_no_new_privs_fails_no_new_privs) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs CAP_SYS_ADMIN to load a filter without no_new_privs";
  Scratch s;
  Outcome o = run_agent_on_host(s, probe_manifest(), fakes_no_new_privs);
  ASSERT_TRUE(o.have_result) << o.error << " (agent exit " << o.exit_status << ")";
  ASSERT_TRUE(o.result.probe);
  auto nnp = assertion(o, wire::Check::kNoNewPrivs);
  EXPECT_EQ(nnp.verdict, wire::AssertionVerdict::kFail);
  EXPECT_EQ(nnp.evidence, "NoNewPrivs: 0");
  // The filter is there (one more than the host's), the rest of the walls hold.
  for (auto c :
       {wire::Check::kSeccompFilter, wire::Check::kCanarySyscall, wire::Check::kClone3Enosys, wire::Check::kRlimits}) {
    EXPECT_EQ(assertion(o, c).verdict, wire::AssertionVerdict::kPass) << assertion(o, c).evidence;
  }
  EXPECT_EQ(assertion(o, wire::Check::kSeccompFilter).evidence,
            "Seccomp: 2, Seccomp_filters: 2 (1 before the agent's)");
}

// A host behind a firewall that rejects: a network namespace of this test's own, addresses
// that are not loopback's on its loopback link (198.18.201.1 and fd42:201::1, never routed;
// this kernel has no dummy links), and REJECT rules in front of
// port 9 answering a SYN with ICMP port unreachable, as kube-router enforces a NetworkPolicy.
// Port 7 has no rule and no listener: the host's own stack answers with a reset.
bool behind_a_rejecting_firewall() {
  if (::unshare(CLONE_NEWNET) != 0) return false;
  return std::system(
             "ip link set lo up && ip addr add 198.18.201.1/32 dev lo && ip -6 addr add fd42:201::1/128 dev lo && "
             "iptables -A OUTPUT -p tcp --dport 9 -j REJECT --reject-with icmp-port-unreachable && "
             "ip6tables -A OUTPUT -p tcp --dport 9 -j REJECT --reject-with icmp6-port-unreachable") == 0;
}

wire::Manifest probe_with_canaries(std::vector<std::string> canaries) {
  wire::Manifest m = probe_manifest();
  m.probe->canaries = std::move(canaries);
  return m;
}

TEST(AgentNetwork, a_firewalls_icmp_rejection_is_no_answer_from_the_canary_and_a_reset_is_one) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs CAP_NET_ADMIN for a network namespace with a dummy link and iptables";
  Scratch rejected_only;
  Outcome o = run_agent_on_host(rejected_only, probe_with_canaries({"198.18.201.1:9", "[fd42:201::1]:9"}),
                                behind_a_rejecting_firewall);
  ASSERT_TRUE(o.have_result) << o.error << " (agent exit " << o.exit_status << ")";
  ASSERT_TRUE(o.result.probe);
  auto net = assertion(o, wire::Check::kNoNetwork);
  EXPECT_EQ(net.verdict, wire::AssertionVerdict::kPass) << net.evidence;
  EXPECT_NE(net.evidence.find("198.18.201.1:9: ECONNREFUSED by ICMP type 3 code 3 from 198.18.201.1 (a firewall's "
                              "rejection: the canary's host answers with a reset)"),
            std::string::npos)
      << net.evidence;
  EXPECT_NE(net.evidence.find("[fd42:201::1]:9: ECONNREFUSED by ICMP type 1 code 4 from fd42:201::1 (a firewall's"),
            std::string::npos)
      << net.evidence;

  Scratch with_a_reset;
  o = run_agent_on_host(with_a_reset, probe_with_canaries({"198.18.201.1:9", "198.18.201.1:7", "[fd42:201::1]:7"}),
                        behind_a_rejecting_firewall);
  ASSERT_TRUE(o.have_result) << o.error << " (agent exit " << o.exit_status << ")";
  net = assertion(o, wire::Check::kNoNetwork);
  EXPECT_EQ(net.verdict, wire::AssertionVerdict::kFail) << net.evidence;
  EXPECT_NE(net.evidence.find("198.18.201.1:7: ECONNREFUSED (a reset: the canary's host answered)"), std::string::npos)
      << net.evidence;
  EXPECT_NE(net.evidence.find("[fd42:201::1]:7: ECONNREFUSED (a reset: the canary's host answered)"), std::string::npos)
      << net.evidence;
}

}  // namespace
}  // namespace batlehub::agent
