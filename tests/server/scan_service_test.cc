// The scan service and the sandbox pool as data, over a stand-in runtime: what prove_walls
// reports when a wall fails (the line, the hint, the check's name for the metric), that the
// pool never lets more runs in than it has permits, and how a package's scanners become
// one verdict. The real runtime under all of it is exercised by worker_cli_test.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/root/log.h"
#include "server/service/sandbox_pool.h"
#include "server/service/scan_service.h"
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
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds) override { return core::Swept{}; }
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

TEST(KernelText, tells_the_workers_own_kernel_from_one_of_the_sandboxs_own_and_names_gvisor) {
  const std::string host = "Linux 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 x86_64";
  EXPECT_EQ(kernel_text(host, host), "the scanner ran on the worker's own kernel, " + host);
  // gVisor's Sentry answers these fixed fields on any host (seen under Debian's runsc).
  const std::string gvisor = "Linux 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016 x86_64";
  EXPECT_EQ(kernel_text(gvisor, host),
            "the scanner ran on a kernel of its own, " + gvisor + " (the worker's: " + host + "): gVisor's");
  // Another node's kernel, or Kata's: its own, but not named as gVisor.
  const std::string other = "Linux 6.12.9 #1 SMP x86_64";
  EXPECT_EQ(kernel_text(other, host),
            "the scanner ran on a kernel of its own, " + other + " (the worker's: " + host + ")");
  EXPECT_EQ(kernel_text("", host), "kernel not reported (an agent of an older release?)");
}

// A worker's first two spans can end at once: each thread asks for the "span" logger, and
// spdlog throws (std::terminate: a worker aborted with 134 in a fresh-clone run) when the
// same new name is registered twice.
// Stand-ins for the two sides of the wall: a sandboxed scanner that inventories the
// package (as Trivy's --list-all-pkgs does) and network scanners (as osv, socket and mlab).
class Inventorying final : public core::Scanner {
 public:
  const std::string& name() const override { return name_; }
  bool supports(core::PackageKind) const override { return true; }
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput&) const override {
    return std::vector<core::RunSpec>(1);
  }
  Expected<std::vector<core::Finding>, core::ScannerError> parse(const core::ScanInput&,
                                                                 const std::vector<core::RunOutcome>&) const override {
    return std::vector<core::Finding>{};
  }
  bool inventories() const override { return true; }
  std::vector<std::string> components(const std::vector<core::RunOutcome>&) const override {
    return {"pkg:npm/lodash@4.17.15", "pkg:npm/left-pad@1.3.0", "pkg:npm/lodash@4.17.15"};
  }
  std::string name_ = "trivy";
};

class Asking final : public core::NetworkScanner {
 public:
  Asking(std::string name, bool reads_sbom, std::optional<core::ScannerError> outage = std::nullopt)
      : name_(std::move(name)), reads_sbom_(reads_sbom), outage_(std::move(outage)) {}
  const std::string& name() const override { return name_; }
  bool supports(core::PackageKind) const override { return true; }
  bool reads_sbom() const override { return reads_sbom_; }
  Expected<core::Lookup, core::ScannerError> scan(const core::ScanInput& in,
                                                  std::chrono::steady_clock::time_point) const override {
    sbom_seen = in.sbom;
    core::Lookup out;
    core::Finding f;
    f.scanner = name_;
    f.kind = core::FindingKind::kVulnerability;
    f.code = core::ReasonCode::kVulnerability;
    f.severity = core::Severity::kLow;
    f.reference = "CVE-2020-8203";
    f.summary = "asked";
    f.raw = "{}";
    out.findings.push_back(f);
    if (outage_) out.tolerated.push_back(*outage_);
    return out;
  }
  std::string name_;
  bool reads_sbom_;
  std::optional<core::ScannerError> outage_;
  mutable std::optional<std::string> sbom_seen;
};

class Enriching final : public core::FindingEnricher {
 public:
  explicit Enriching(bool fail) : fail_(fail) {}
  const std::string& name() const override { return name_; }
  Expected<Ok, core::ScannerError> enrich(std::vector<core::Finding>& findings,
                                          std::chrono::steady_clock::time_point) const override {
    if (fail_) return Unexpected(core::ScannerError{core::ScannerError::Kind::kUpstream, "mlab: HTTP 503"});
    for (auto& f : findings) f.severity = core::Severity::kCritical;
    return Ok{};
  }
  std::string name_ = "mlab";
  bool fail_;
};

// osv waits for the scanner that inventories the package and asks about what it found; a
// network scanner that reads no SBOM does not wait; a tolerated outage is reported, not a
// finding; the enricher runs last, over everything.
TEST(ScanPackage, osv_asks_about_trivys_inventory_and_the_enricher_sees_every_finding) {
  CountingRuntime rt;
  Inventorying trivy;
  Asking osv("osv", true, core::ScannerError{core::ScannerError::Kind::kUpstream, "osv: HTTP 503"});
  Asking socket("socket", false);
  Enriching mlab(false);
  core::ScanInput in{core::Package{core::PackageKind::kNpm, "evil-pad", "1.3.1", "npmjs"}, nullptr, std::nullopt};
  std::vector<ScannerRun> told;
  PackageScan scan = scan_package(ScannerSet{{&trivy}, {&osv, &socket}, {&mlab}}, rt, in, core::SecurityPolicy{},
                                  [&](const ScannerRun& r) { told.push_back(r); });
  ASSERT_TRUE(osv.sbom_seen);
  auto purls = nlohmann::json::parse(*osv.sbom_seen)["components"];
  ASSERT_EQ(purls.size(), 2u) << *osv.sbom_seen;
  EXPECT_EQ(purls[0]["purl"], "pkg:npm/lodash@4.17.15");
  EXPECT_EQ(purls[1]["purl"], "pkg:npm/left-pad@1.3.0");
  EXPECT_FALSE(socket.sbom_seen) << "socket reads no SBOM: it started with the others";
  ASSERT_EQ(scan.runs.size(), 4u);
  EXPECT_EQ(scan.runs[1].scanner, "osv");
  ASSERT_EQ(scan.runs[1].tolerated.size(), 1u);
  EXPECT_EQ(scan.runs[1].tolerated[0].message, "osv: HTTP 503");
  EXPECT_FALSE(scan.runs[1].error);
  EXPECT_EQ(told.size(), 4u) << "the caller hears of each, the enricher included";
  EXPECT_EQ(scan.verdict.scanners_done, (std::vector<std::string>{"mlab", "osv", "socket", "trivy"}));
  ASSERT_EQ(scan.verdict.findings.size(), 2u);
  for (const auto& f : scan.verdict.findings) EXPECT_EQ(f.severity, core::Severity::kCritical) << f.scanner;
}

TEST(ScanPackage, an_enrichers_failure_leaves_the_findings_as_they_were_and_is_no_finding) {
  CountingRuntime rt;
  Asking osv("osv", true);
  Enriching mlab(true);
  core::ScanInput in{core::Package{core::PackageKind::kNpm, "evil-pad", "1.3.1", "npmjs"}, nullptr, std::nullopt};
  PackageScan scan = scan_package(ScannerSet{{}, {&osv}, {&mlab}}, rt, in, core::SecurityPolicy{});
  EXPECT_FALSE(osv.sbom_seen) << "no scanner inventories the package: no SBOM to wait for";
  ASSERT_EQ(scan.verdict.findings.size(), 1u);
  EXPECT_EQ(scan.verdict.findings[0].severity, core::Severity::kLow);
  EXPECT_EQ(scan.verdict.scanners_done, std::vector<std::string>{"osv"});
  ASSERT_EQ(scan.runs.size(), 2u);
  ASSERT_TRUE(scan.runs[1].error);
  EXPECT_EQ(scan.runs[1].error->message, "mlab: HTTP 503");
}

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
