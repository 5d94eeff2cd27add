// The scan service and the sandbox pool as data, over a stand-in runtime: what prove_walls
// reports when a wall fails (the line, the hint, the check's name for the metric), that the
// pool never lets more runs in than it has permits, and how a package's scanners become
// one verdict. The real runtime under all of it is exercised by worker_cli_test.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "server/log.h"
#include "server/sandbox_pool.h"
#include "server/scan_service.h"
#include "wire/run_result.h"

namespace batlehub::server {
namespace {

using namespace std::chrono_literals;

// Counts how many runs are inside run() at once; each run takes 20 ms.
class CountingRuntime final : public core::SandboxRuntime {
 public:
  std::string_view name() const override { return "counting"; }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec&) override {
    int now = ++inside_;
    int seen = most_.load();
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(20ms);
    --inside_;
    return core::RunOutput{0, "", "", {}};
  }
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& t) override {
    ++probes_;
    core::ProbeReport r;
    r.runtime = "counting";
    r.room = t.room;
    r.result_at_all = true;
    for (wire::Check c : wire::every_check()) {
      r.agent.assertions.push_back({c, c == failing_ ? wire::AssertionVerdict::kFail : wire::AssertionVerdict::kPass,
                                    c == failing_ ? "found /bin/sh" : "ok"});
    }
    return r;
  }
  Expected<std::size_t, core::SandboxError> sweep(std::chrono::seconds) override { return std::size_t{0}; }
  std::string hint(std::optional<wire::Check> /*failed*/) const override { return "the counting runtime's hint"; }

  std::atomic<int> inside_{0}, most_{0}, probes_{0};
  std::optional<wire::Check> failing_;
};

TEST(SandboxPool, never_lets_more_runs_in_than_it_has_permits_and_reports_each_run) {
  CountingRuntime inner;
  std::atomic<int> observed{0}, peak_permits{0}, permits{0};
  SandboxPool pool(
      inner, 3,
      [&](const RunRecord& r) {
        EXPECT_TRUE(r.result.has_value());
        ++observed;
      },
      [&](int d) {
        int now = permits += d;
        int seen = peak_permits.load();
        while (now > seen && !peak_permits.compare_exchange_weak(seen, now)) {
        }
      });
  {
    std::vector<std::jthread> t;
    for (int i = 0; i < 12; ++i) t.emplace_back([&] { (void)pool.run(core::RunSpec{}); });
  }
  EXPECT_EQ(inner.most_.load(), 3);
  EXPECT_EQ(peak_permits.load(), 3);
  EXPECT_EQ(permits.load(), 0);
  EXPECT_EQ(observed.load(), 12);
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST(SandboxPool, a_pool_of_zero_is_a_pool_of_one) {
  CountingRuntime inner;
  SandboxPool pool(inner, 0);
  EXPECT_EQ(pool.size(), 1u);
}

TEST(ProveWalls, stops_at_the_first_room_whose_wall_fails_and_names_the_check) {
  CountingRuntime rt;
  rt.failing_ = wire::Check::kNoShell;
  std::vector<core::ProbeTarget> targets{{"yara", std::nullopt, {}, {}}, {"trivy", std::nullopt, {}, {}}};
  int reports = 0;
  WallsProof p = prove_walls(rt, targets, "/opt/sandbox", [&](const core::ProbeReport&) { ++reports; });
  EXPECT_FALSE(p.proven);
  EXPECT_EQ(p.failure, "no_shell: found /bin/sh");
  EXPECT_EQ(p.hint, "the counting runtime's hint");
  EXPECT_EQ(p.room, "yara");
  EXPECT_EQ(p.assertion, "no_shell");
  EXPECT_EQ(rt.probes_.load(), 1);
  EXPECT_EQ(reports, 1);
}

TEST(ProveWalls, passes_when_every_room_holds) {
  CountingRuntime rt;
  std::vector<core::ProbeTarget> targets{{"yara", std::nullopt, {}, {}}, {"trivy", std::nullopt, {}, {}}};
  WallsProof p = prove_walls(rt, targets, "/opt/sandbox");
  EXPECT_TRUE(p.proven) << p.failure;
  EXPECT_EQ(rt.probes_.load(), 2);
}

// A worker's first two spans can end at once: each thread asks for the "span" logger, and
// spdlog throws (std::terminate: a worker aborted with 134 in a fresh-clone run) when the
// same new name is registered twice.
TEST(Logger, threads_asking_at_once_for_one_new_logger_all_get_it) {
  for (int round = 0; round < 100; ++round) {
    const std::string name = "race-" + std::to_string(round);
    std::vector<std::shared_ptr<spdlog::logger>> got(8);
    {
      std::vector<std::jthread> t;
      for (std::size_t i = 0; i < got.size(); ++i) t.emplace_back([&, i] { got[i] = logger(name); });
    }
    for (const auto& l : got) EXPECT_EQ(l, got.front());
  }
}

}  // namespace
}  // namespace batlehub::server
