// The scanner port: scan_with's plan → run → parse, and what a scanner failure becomes
// (upstream-today.md §5.3).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/scanner.h"

namespace batlehub::core {
namespace {

// Answers each run from a script, in order, and records what it was asked.
class ScriptedRuntime final : public SandboxRuntime {
 public:
  explicit ScriptedRuntime(std::vector<RunOutcome> script) : script_(std::move(script)) {}
  std::string_view name() const override { return "scripted"; }
  Expected<RunOutput, SandboxError> run(const RunSpec& spec) override {
    asked.push_back(spec);
    if (next_ >= script_.size()) return Unexpected(SandboxError{SandboxError::Kind::kIo, "script exhausted"});
    return script_[next_++];
  }
  Expected<ProbeReport, SandboxError> probe(const ProbeTarget&) override {
    return Unexpected(SandboxError{SandboxError::Kind::kConfig, "no probe"});
  }
  Expected<Swept, SandboxError> sweep(std::chrono::seconds) override { return Swept{}; }
  std::string hint(std::optional<wire::Check> /*failed*/) const override { return ""; }

  std::vector<RunSpec> asked;

 private:
  std::vector<RunOutcome> script_;
  std::size_t next_ = 0;
};

// Plans one run per argv it was given; parse() turns each stdout into a finding and
// reports what it saw.
class FakeScanner final : public Scanner {
 public:
  FakeScanner(std::vector<std::vector<std::string>> argvs, std::optional<ScannerError> plan_error = std::nullopt)
      : argvs_(std::move(argvs)), plan_error_(std::move(plan_error)) {}
  const std::string& name() const override { return name_; }
  bool supports(PackageKind k) const override { return k == PackageKind::kNpm; }
  Expected<std::vector<RunSpec>, ScannerError> plan(const ScanInput& in) const override {
    if (plan_error_) return Unexpected(*plan_error_);
    std::vector<RunSpec> runs;
    for (const auto& argv : argvs_) {
      RunSpec s;
      s.argv = argv;
      s.label.scanner = name_;
      s.network = runs.size() == 1;
      s.bundle.entries.push_back(BundleEntry::inline_file(*wire::RelPath::parse("coord"), in.package.coordinate()));
      runs.push_back(std::move(s));
    }
    return runs;
  }
  Expected<std::vector<Finding>, ScannerError> parse(const ScanInput&, const std::vector<RunOutcome>& results) const override {
    seen = results;
    std::vector<Finding> out;
    for (const RunOutcome& r : results) {
      if (!r) return Unexpected(to_scanner_error(r.error()));
      Finding f;
      f.scanner = name_;
      f.summary = r->stdout_bytes;
      out.push_back(std::move(f));
    }
    return out;
  }
  mutable std::vector<RunOutcome> seen;

 private:
  std::string name_ = "fake";
  std::vector<std::vector<std::string>> argvs_;
  std::optional<ScannerError> plan_error_;
};

RunOutput answered(int status, std::string out) {
  RunOutput o;
  o.status = status;
  o.stdout_bytes = std::move(out);
  return o;
}

ScanInput input() { return ScanInput{Package{PackageKind::kNpm, "left-pad", "1.3.0", "npm-sec"}, nullptr, std::nullopt}; }

TEST(ScanWith, runs_every_planned_run_in_order_and_parses_their_results_in_the_same_order) {
  ScriptedRuntime rt({answered(0, "first"), answered(1, "second")});
  FakeScanner s({{"fake", "scan"}, {"fake", "timeline"}});
  auto r = scan_with(s, rt, input());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(rt.asked.size(), 2u);
  EXPECT_EQ(rt.asked[0].argv, (std::vector<std::string>{"fake", "scan"}));
  EXPECT_EQ(rt.asked[1].argv, (std::vector<std::string>{"fake", "timeline"}));
  EXPECT_FALSE(rt.asked[0].network);
  EXPECT_TRUE(rt.asked[1].network);
  EXPECT_EQ(rt.asked[0].bundle.entries.at(0).bytes, "npm-sec:left-pad@1.3.0");
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].summary, "first");
  EXPECT_EQ((*r)[1].summary, "second");
  ASSERT_EQ(s.seen.size(), 2u);
  EXPECT_EQ(s.seen[1]->status, 1);
}

TEST(ScanWith, a_sandbox_error_reaches_parse_which_decides) {
  ScriptedRuntime rt({answered(0, "ok"), Unexpected(SandboxError{SandboxError::Kind::kRunTimeout, "killed"})});
  FakeScanner s({{"fake", "a"}, {"fake", "b"}});
  auto r = scan_with(s, rt, input());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ScannerError::Kind::kTimeout);
  EXPECT_EQ(r.error().message, "killed");
  ASSERT_EQ(s.seen.size(), 2u);  // both runs were made; the error did not stop the loop
  EXPECT_TRUE(s.seen[0]);
  EXPECT_FALSE(s.seen[1]);
}

TEST(ScanWith, a_plan_that_fails_runs_nothing) {
  ScriptedRuntime rt({answered(0, "never")});
  FakeScanner s({{"fake"}}, ScannerError{ScannerError::Kind::kUnsupported, "no layout"});
  auto r = scan_with(s, rt, input());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ScannerError::Kind::kUnsupported);
  EXPECT_TRUE(rt.asked.empty());
  EXPECT_TRUE(s.seen.empty());
}

TEST(ScanWith, an_empty_plan_runs_nothing_and_parses_nothing) {
  ScriptedRuntime rt({});
  FakeScanner s({});
  auto r = scan_with(s, rt, input());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
  EXPECT_TRUE(rt.asked.empty());
}

TEST(ScannerError, describe_is_upstreams_display_text) {
  using K = ScannerError::Kind;
  EXPECT_EQ(describe({K::kTimeout, ""}), "scanner timed out");
  EXPECT_EQ(describe({K::kUpstream, "dns"}), "scanner could not reach its upstream: dns");
  EXPECT_EQ(describe({K::kOutput, "not JSON"}), "scanner output could not be read: not JSON");
  EXPECT_EQ(describe({K::kCrashed, "postmortem exited 3: boom"}), "scanner crashed: postmortem exited 3: boom");
  EXPECT_EQ(describe({K::kUnsupported, "no layout"}), "scanner input unavailable: no layout");
  EXPECT_EQ(describe({K::kOther, "io: disk full"}), "io: disk full");
}

TEST(ScannerError, the_sandbox_errors_map_as_rfc_0022_section_6_1_says) {
  using SK = SandboxError::Kind;
  using K = ScannerError::Kind;
  EXPECT_EQ(to_scanner_error({SK::kStartTimeout, "m"}).kind, K::kTimeout);
  EXPECT_EQ(to_scanner_error({SK::kRunTimeout, "m"}).kind, K::kTimeout);
  EXPECT_EQ(to_scanner_error({SK::kCrashed, "m"}).kind, K::kCrashed);
  EXPECT_EQ(to_scanner_error({SK::kResultInvalid, "m"}).kind, K::kOutput);
  EXPECT_EQ(to_scanner_error({SK::kBundleRefused, "m"}).kind, K::kOutput);
  EXPECT_EQ(to_scanner_error({SK::kUnsupported, "m"}).kind, K::kUnsupported);
  EXPECT_EQ(to_scanner_error({SK::kConfig, "m"}).kind, K::kOther);
  EXPECT_EQ(to_scanner_error({SK::kIo, "m"}).kind, K::kOther);
  EXPECT_EQ(to_scanner_error({SK::kCrashed, "the agent wrote no result"}).message, "the agent wrote no result");
}

// Transient: the sandbox's machinery failed under the run (the worker retries the job); a
// failure the agent reported, or any other kind of run, is the scanner's.
TEST(ScannerError, a_sandbox_that_vanished_or_a_storage_transport_that_failed_is_transient_and_nothing_else) {
  using SK = SandboxError::Kind;
  using R = SandboxError::Reason;
  using K = ScannerError::Kind;
  const ScannerError gone = to_scanner_error({SK::kCrashed, "the container never answered", R::kNoResult});
  EXPECT_TRUE(gone.transient);
  EXPECT_EQ(gone.kind, K::kCrashed);
  const ScannerError unreachable = to_scanner_error({SK::kIo, "uploading x.tgz: Couldn't connect", R::kTransport});
  EXPECT_TRUE(unreachable.transient);
  EXPECT_EQ(unreachable.kind, K::kOther);
  EXPECT_EQ(unreachable.message, "uploading x.tgz: Couldn't connect");
  // The OOM killer taking the agent is the package's doing (its scanner's memory), not an outage.
  EXPECT_FALSE(to_scanner_error({SK::kOutOfMemory, "m", R::kNoResult}).transient);
  EXPECT_FALSE(to_scanner_error({SK::kCrashed, "postmortem exited 3"}).transient);
  EXPECT_FALSE(to_scanner_error({SK::kIo, "writing the run dir: No space left on device"}).transient);
  EXPECT_FALSE(to_scanner_error({SK::kRunTimeout, "m"}).transient);
  EXPECT_FALSE(to_scanner_error({SK::kResultInvalid, "m", R::kOtherWireVersion}).transient);
}

TEST(ScannerErrorFinding, unsupported_is_scanner_unsupported_everything_else_scanner_error) {
  using K = ScannerError::Kind;
  Finding u = scanner_error_finding("postmortem", {K::kUnsupported, "postmortem has no project layout for nuget"});
  EXPECT_EQ(u.scanner, "postmortem");
  EXPECT_EQ(u.kind, FindingKind::kScannerError);
  EXPECT_EQ(u.code, ReasonCode::kScannerUnsupported);
  EXPECT_EQ(u.severity, Severity::kHigh);
  EXPECT_EQ(u.summary, "scanner input unavailable: postmortem has no project layout for nuget");
  EXPECT_FALSE(u.reference);
  EXPECT_TRUE(u.raw.empty());

  for (K k : {K::kTimeout, K::kCrashed, K::kOutput, K::kUpstream, K::kOther}) {
    ScannerError e{k, "why"};
    Finding f = scanner_error_finding("guarddog", e);
    EXPECT_EQ(f.scanner, "guarddog");
    EXPECT_EQ(f.kind, FindingKind::kScannerError);
    EXPECT_EQ(f.code, ReasonCode::kScannerError) << to_string(k);
    EXPECT_EQ(f.severity, Severity::kHigh);
    EXPECT_EQ(f.summary, describe(e));
  }
  EXPECT_EQ(scanner_error_finding("trivy", {K::kTimeout, ""}).summary, "scanner timed out");
}

}  // namespace
}  // namespace batlehub::core
