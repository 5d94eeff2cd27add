// What the worker makes of the agent's assertions (core::ProbeReport): the first failure,
// a warning that is no failure, and an assertion the agent never made.
#include <gtest/gtest.h>

#include "core/sandbox.h"

namespace batlehub::core {
namespace {

using wire::Check;
using wire::AssertionVerdict;

ProbeReport every_check_passing() {
  ProbeReport r;
  r.result_at_all = true;
  for (Check c : wire::every_check()) r.agent.assertions.push_back({c, AssertionVerdict::kPass, "ok"});
  return r;
}

TEST(ProbeReport, every_check_passing_passes_and_a_warning_is_no_failure) {
  ProbeReport r = every_check_passing();
  EXPECT_EQ(r.agent.assertions.size(), 17u);
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
  r.agent.assertions.erase(r.agent.assertions.end() - 2, r.agent.assertions.end());  // an older agent's report
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.failure()->what, ProbeReport::Failure::What::kAssertionMissing);
  EXPECT_EQ(r.failure()->check, Check::kMemoryBounded);
  EXPECT_EQ(r.first_failure(),
            "memory_bounded: the agent did not report it (an agent of an older release? rebuild the room with this "
            "release's agent)");
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
