// What the worker makes of the agent's assertions (core::ProbeReport): the first failure,
// a warning that is no failure, and an assertion the agent never made.
#include <gtest/gtest.h>

#include "core/sandbox.h"

namespace batlehub::core {
namespace {

using wire::AssertionVerdict;
using wire::Check;

ProbeReport every_check_passing() {
  ProbeReport r;
  r.result_at_all = true;
  for (Check c : wire::every_check()) r.agent.assertions.push_back({c, AssertionVerdict::kPass, "ok"});
  return r;
}

TEST(ProbeReport, every_check_passing_passes_and_a_warning_is_no_failure) {
  ProbeReport r = every_check_passing();
  EXPECT_EQ(r.agent.assertions.size(), 19u);
  EXPECT_TRUE(r.passed());
  for (auto& a : r.agent.assertions) {
    if (a.check == Check::kMemoryBounded) a.verdict = AssertionVerdict::kWarn;
  }
  EXPECT_TRUE(r.passed());
}

TEST(ProbeReport, the_first_failed_assertion_is_named_with_its_evidence) {
  ProbeReport r = every_check_passing();
  r.agent.assertions[3] = {Check::kEmptyEnvironment, AssertionVerdict::kFail, "unexpected variables: X"};
  r.agent.assertions[16] = {Check::kPidsBounded, AssertionVerdict::kFail, "pids.max is unlimited"};
  EXPECT_EQ(r.first_failure(), "empty_environment: unexpected variables: X");
  ASSERT_TRUE(r.failure());
  EXPECT_EQ(r.failure()->what, ProbeReport::Failure::What::kAssertionFailed);
  EXPECT_EQ(r.failure()->check, Check::kEmptyEnvironment) << "which assertion, as data";
}

TEST(ProbeReport, an_assertion_the_agent_did_not_make_fails_the_probe) {
  ProbeReport r = every_check_passing();
  // An agent of the release before agent_unreachable and landlock.
  r.agent.assertions.erase(r.agent.assertions.end() - 2, r.agent.assertions.end());
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.failure()->what, ProbeReport::Failure::What::kAssertionMissing);
  EXPECT_EQ(r.failure()->check, Check::kAgentUnreachable);
  EXPECT_EQ(r.first_failure(),
            "agent_unreachable: the agent did not report it (an agent of an older release? rebuild the room with this "
            "release's agent)");
  // And one from before memory_bounded and pids_bounded.
  r.agent.assertions.erase(r.agent.assertions.end() - 2, r.agent.assertions.end());
  EXPECT_EQ(r.failure()->check, Check::kMemoryBounded);
}

// [worker.sandbox] require_landlock: the agent's warning that the kernel has no Landlock
// becomes the probe's failure; without it, the warning stays a warning. No other warning
// changes.
TEST(ProbeReport, require_landlock_turns_the_no_landlock_warning_into_a_failure) {
  ProbeReport r = every_check_passing();
  for (auto& a : r.agent.assertions) {
    if (a.check == Check::kLandlock) a = {Check::kLandlock, AssertionVerdict::kWarn, "the kernel has no Landlock"};
    if (a.check == Check::kRlimits) a = {Check::kRlimits, AssertionVerdict::kWarn, "RLIMIT_NPROC=500 (lowered)"};
  }
  ProbeTarget t;
  hold_to_target(r, t);
  EXPECT_TRUE(r.passed());
  t.require_landlock = true;
  hold_to_target(r, t);
  EXPECT_EQ(r.first_failure(),
            "landlock: the kernel has no Landlock (refused: [worker.sandbox] require_landlock = true)");
  for (const auto& a : r.agent.assertions) {
    if (a.check == Check::kRlimits) {
      EXPECT_EQ(a.verdict, AssertionVerdict::kWarn);
    }
  }
}

// The detonation's room holds /bin/sh and nothing else forbidden: for a behavior scanner's
// target that one finding passes, any other (bash, busybox, batlehub beside it) still fails,
// and every other room's /bin/sh fails as it always did.
TEST(ProbeReport, only_the_detonation_room_may_hold_its_one_shell) {
  auto with_shell = [](const std::string& found) {
    ProbeReport r = every_check_passing();
    for (auto& a : r.agent.assertions) {
      if (a.check == Check::kNoShell) a = {Check::kNoShell, AssertionVerdict::kFail, "found " + found};
    }
    return r;
  };
  ProbeTarget other;
  ProbeReport r = with_shell("/bin/sh");
  hold_to_target(r, other);
  EXPECT_EQ(r.first_failure(), "no_shell: found /bin/sh");
  ProbeTarget detonation;
  detonation.shell_expected = true;
  r = with_shell("/bin/sh");
  hold_to_target(r, detonation);
  EXPECT_TRUE(r.passed()) << r.first_failure().value_or("");
  for (const char* more :
       {"/bin/sh, /usr/bin/bash", "/usr/bin/busybox", "/bin/bash", "/bin/sh, /usr/local/bin/batlehub"}) {
    ProbeReport m = with_shell(more);
    hold_to_target(m, detonation);
    EXPECT_EQ(m.first_failure(), std::string("no_shell: found ") + more);
  }
}

TEST(ProbeReport, no_result_is_named_first_and_a_skipped_probe_passes) {
  ProbeReport r;
  r.no_result_reason = "bwrap exited 1";
  EXPECT_EQ(r.first_failure(), "a result at all: bwrap exited 1");
  EXPECT_EQ(r.failure()->what, ProbeReport::Failure::What::kNoResult);
  EXPECT_FALSE(r.failure()->check);
  r.skipped = true;
  EXPECT_TRUE(r.passed());
}

}  // namespace
}  // namespace batlehub::core
