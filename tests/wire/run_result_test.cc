#include "wire/run_result.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "wire/caps.h"

namespace batlehub::wire {
namespace {

using nlohmann::json;

RunResult sample() {
  RunResult r;
  r.wire = kWireVersion;
  r.agent_version = "0.1.0";
  r.ran = true;
  r.exit_code = 1;
  r.stdout_bytes = 42;
  r.stderr_tail = "warning: something \xE2\x9C\x93";
  r.extract = {10, 3, 4096, 2, 1};
  r.timings = {5, 6, 7};
  return r;
}

TEST(RunResult, RoundTrips) {
  RunResult r = sample();
  auto back = parse_result(serialize(r));
  ASSERT_TRUE(back) << back.error().describe("result");
  EXPECT_EQ(*back, r);
}

TEST(RunResult, RoundTripsAFailureAndAProbe) {
  RunResult r = sample();
  r.ran = false;
  r.exit_code.reset();
  r.failure = Failure{FailureKind::kBomb, "archive decompression ratio exceeds 100:1"};
  r.probe = AgentProbeReport{{{Check::kReadOnlyRoot, AssertionVerdict::kPass, "EROFS"},
                              {Check::kNoShell, AssertionVerdict::kFail, "found /bin/sh"}},
                             {{"/usr/bin/guarddog", std::string(64, 'a'), 1234}},
                             "Linux 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016 x86_64"};
  auto back = parse_result(serialize(r));
  ASSERT_TRUE(back) << back.error().describe("result");
  EXPECT_EQ(*back, r);
}

TEST(RunResult, AProbeSaysItsKernelAndOneWithoutItOrWithTooLongAKernelIsRefused) {
  RunResult r = sample();
  r.exit_code.reset();
  r.probe = AgentProbeReport{{}, {}, "Linux 6.1.0 #1 SMP x86_64"};
  json j = json::parse(serialize(r));
  EXPECT_EQ(j["probe"]["kernel"], "Linux 6.1.0 #1 SMP x86_64");
  // Wire 3 always writes it: a probe without one is from another release, and refused.
  j["probe"].erase("kernel");
  auto missing = parse_result(j.dump());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().where.find("/probe"), std::string::npos) << missing.error().where;
  // uname's four fields fit in 263 bytes; more is not a kernel's answer.
  j["probe"]["kernel"] = std::string(264, 'k');
  auto over = parse_result(j.dump());
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().where.find("/probe/kernel"), std::string::npos) << over.error().where;
}

TEST(RunResult, RoundTripsASignal) {
  RunResult r = sample();
  r.exit_code.reset();
  r.signal = 9;
  r.timed_out = true;
  auto back = parse_result(serialize(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->signal, 9);
  EXPECT_TRUE(back->timed_out);
}

TEST(RunResult, OomKillsRoundTripAndAnOlderAgentsResultWithoutThemReadsAsNone) {
  RunResult r = sample();
  r.exit_code.reset();
  r.signal = 9;
  r.oom_kills = 2;
  auto back = parse_result(serialize(r));
  ASSERT_TRUE(back) << back.error().describe("result");
  EXPECT_EQ(back->oom_kills, 2u);
  auto doc = nlohmann::json::parse(serialize(sample()));
  doc.erase("oom_kills");
  auto older = parse_result(doc.dump());
  ASSERT_TRUE(older) << older.error().describe("result");
  EXPECT_EQ(older->oom_kills, 0u);
  doc["oom_kills"] = -1;
  EXPECT_FALSE(parse_result(doc.dump()));
}

TEST(RunResult, LoweredRlimitsRoundTripAndAreAbsentWhenNoneWas) {
  RunResult r = sample();
  r.rlimits_lowered = {{"RLIMIT_NPROC", 1024, 500}, {"RLIMIT_CPU", 300, 60}};
  auto back = parse_result(serialize(r));
  ASSERT_TRUE(back) << back.error().describe("result");
  EXPECT_EQ(*back, r);
  // Nothing lowered: no key at all, so a reader from before it reads the result unchanged.
  auto doc = nlohmann::json::parse(serialize(sample()));
  EXPECT_FALSE(doc.contains("rlimits_lowered"));
  doc["rlimits_lowered"] = nullptr;
  ASSERT_TRUE(parse_result(doc.dump()));
  EXPECT_TRUE(parse_result(doc.dump())->rlimits_lowered.empty());
}

TEST(RunResult, ALoweredRlimitIsAKnownLimitBelowWhatWasAsked) {
  auto with = [](const nlohmann::json& l) {
    auto doc = nlohmann::json::parse(serialize(sample()));
    doc["rlimits_lowered"] = nlohmann::json::array({l});
    return parse_result(doc.dump());
  };
  EXPECT_TRUE(with({{"resource", "RLIMIT_NPROC"}, {"asked", 1024}, {"applied", 500}}));
  auto unknown = with({{"resource", "RLIMIT_STACK"}, {"asked", 1024}, {"applied", 500}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().describe("result"),
            "result /rlimits_lowered/0/resource: 'RLIMIT_STACK' is not a limit this wire version knows");
  auto raised = with({{"resource", "RLIMIT_CPU"}, {"asked", 300}, {"applied", 300}});
  ASSERT_FALSE(raised);
  EXPECT_EQ(raised.error().describe("result"),
            "result /rlimits_lowered/0/applied: must be below what was asked (a limit is only ever lowered)");
  EXPECT_FALSE(with({{"resource", "RLIMIT_CPU"}, {"asked", 300}, {"applied", 60}, {"why", "x"}}));
}

TEST(RunResult, InvalidUtf8InTheStderrTailIsReplacedNotFatal) {
  RunResult r = sample();
  r.stderr_tail = "bad \xff\xfe bytes";
  auto back = parse_result(serialize(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stderr_tail, "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

TEST(RunResult, RefusesAnotherWireVersion) {
  // Wire 2's worker refuses the result of an agent of wire 1 (docs/wire-format.md, Versions),
  // and of any later one.
  for (int other : {1, kWireVersion + 1}) {
    json j = json::parse(serialize(sample()));
    j["wire"] = other;
    auto r = parse_result(j.dump());
    ASSERT_FALSE(r) << other;
    EXPECT_EQ(r.error().where, "/wire");
    EXPECT_TRUE(r.error().other_version);
  }
}

TEST(RunResult, AWireVersionThatWrapsIsNotOurs) {
  json j = json::parse(serialize(sample()));
  j["wire"] = 4294967298LL;  // 2^32 + 2: an int cast would make it 2, ours
  auto r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/wire");
}

TEST(RunResult, RefusesADocumentOverItsCap) {
  json j = json::parse(serialize(sample()));
  j["stderr_tail"] = std::string(kResultMaxBytes, 'a');
  auto r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("more than the"), std::string::npos);
}

TEST(RunResult, RefusesAStderrTailOverItsCap) {
  json j = json::parse(serialize(sample()));
  j["stderr_tail"] = std::string(kStderrTailChars * 4 + 1, 'a');
  auto r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/stderr_tail");
}

TEST(RunResult, RefusesStdoutBytesOverTheCap) {
  json j = json::parse(serialize(sample()));
  j["stdout_bytes"] = kStdoutCapBytes + 1;
  auto r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/stdout_bytes");
}

TEST(RunResult, RefusesUnknownEnumsAndContradictions) {
  json j = json::parse(serialize(sample()));
  j["failure"] = {{"kind", "cosmic_ray"}, {"message", "x"}};
  auto r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/failure/kind");

  j = json::parse(serialize(sample()));
  j["signal"] = 9;
  r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/signal");

  j = json::parse(serialize(sample()));
  j["exit_code"] = 300;
  r = parse_result(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/exit_code");
}

TEST(RunResult, EveryEnumNameRoundTrips) {
  for (int c = 0; c <= static_cast<int>(Check::kRlimits); ++c) {
    auto check = static_cast<Check>(c);
    EXPECT_EQ(check_from_string(to_string(check)), check);
  }
}

}  // namespace
}  // namespace batlehub::wire
