// `batlehub scan --format sarif` as the official SARIF validator judges it: SARIF Multitool
// 5.7.0 (`Sarif.Multitool validate`, scripts/install-peers.sh), run on what the real command
// printed for the demo's samples — evil-pad, in which the real GuardDog and YARA find things,
// and tiny-benign, in which they find nothing — behind bwrap in rooms built from
// rooms/<scanner>.toml; on a refusal; and on render_sarif's output for the findings no live
// scan here produces (a scanner's failure, a finding with no file, hostile paths). The
// validator's own SARIF log is read back: no error and no warning, whatever it prints.
//
// Skips, naming what is missing, when the validator, GuardDog or YARA is not installed
// (`make test` installs all three) or bwrap cannot run; once they are, a finding fails.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>

#include "harness.h"
#include "rooms.h"
#include "scratch.h"
#include "server/commands/report.h"
#include "server/commands/scanner_versions.h"

namespace batlehub::testing {
namespace {

using nlohmann::json;

const std::string kSource = BATLEHUB_SOURCE_DIR;
const std::string kValidator = BATLEHUB_SARIF_MULTITOOL;
const std::string kGuardDog = "/opt/batlehub/guarddog/bin/guarddog";
const std::string kYara = "/usr/bin/yara";

bool executable(const std::string& p) {
  return ::access(p.c_str(), X_OK) == 0;
}

// What the validator said about one file: "<rule> <level>: <message>" for every result at
// level error or warning (SARIF's default level when a result states none), and its own
// failures (an invocation that did not succeed, an error notification).
struct Verdict {
  std::vector<std::string> complaints;
  std::string raw;  // the validator's log, for the failure message
};

std::string run_validator(const fs::path& sarif, const fs::path& out) {
  // In a network namespace of its own: it looks a host name up (a DNS query to the
  // machine's resolver) though validating needs nothing from the network. Invariant
  // globalization: it needs no ICU then.
  fs::path err = out.string() + ".err";
  std::string cmd = "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 bwrap --bind / / --dev /dev --proc /proc --unshare-net " +
                    kValidator + " validate '" + sarif.string() + "' -o '" + out.string() +
                    "' --log ForceOverwrite >'" + err.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  return rc == 0 ? "" : "the validator exited " + std::to_string(rc) + ": " + Scratch::read(err);
}

Verdict validate(const fs::path& sarif) {
  Verdict v;
  fs::path out = sarif.string() + ".validation.sarif";
  if (std::string e = run_validator(sarif, out); !e.empty()) {
    v.complaints.push_back(e);
    return v;
  }
  v.raw = Scratch::read(out);
  json log = json::parse(v.raw, nullptr, false);
  if (log.is_discarded() || !log.contains("runs") || log["runs"].size() != 1) {
    v.complaints.push_back("the validator's log is not a SARIF log of one run");
    return v;
  }
  const json& run = log["runs"][0];
  for (const json& inv : run.value("invocations", json::array())) {
    if (!inv.value("executionSuccessful", false)) v.complaints.push_back("the validator's invocation did not succeed");
    for (const char* key : {"toolExecutionNotifications", "toolConfigurationNotifications"}) {
      for (const json& n : inv.value(key, json::array())) {
        if (n.value("level", "warning") == "error") v.complaints.push_back(std::string(key) + ": " + n.dump());
      }
    }
  }
  for (const json& r : run.value("results", json::array())) {
    std::string level = r.value("level", "warning");
    if (level == "note" || level == "none") continue;
    std::string text = r.contains("message") ? r["message"].value("text", "") : "";
    if (text.empty() && r["message"].contains("arguments")) text = r["message"]["arguments"].dump();
    v.complaints.push_back(r.value("ruleId", "?") + " " + level + ": " + text);
  }
  return v;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += "  " + s + "\n";
  return out;
}

struct Ran {
  int status = -1;
  std::string out;
  std::string err;
};

class SarifValidator : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (missing().empty()) s_ = new Scratch();
  }
  // The rooms, the samples and the configuration the scans need, made once, by the first
  // test that scans (the others need none).
  static void prepare_scans() {
    if (prepared_) return;
    prepared_ = true;
    fs::path rooms = s_->root() / "rooms";
    fs::create_directories(rooms);
    for (const char* scanner : {"guarddog", "yara"}) {
      std::string cmd = "python3 " + kSource + "/scripts/build-room.py --definition " + kSource + "/rooms/" + scanner +
                        ".toml --agent " + BATLEHUB_AGENT_BIN + " --out " + (rooms / scanner).string() +
                        " >/dev/null 2>" + (s_->root() / "room.err").string();
      if (std::system(cmd.c_str()) != 0) {
        setup_error_ =
            new std::string("build-room.py " + std::string(scanner) + ": " + Scratch::read(s_->root() / "room.err"));
        return;
      }
    }
    std::string cmd =
        "python3 " + kSource + "/examples/make-samples.py " + (s_->root() / "samples").string() + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) {
      setup_error_ = new std::string("examples/make-samples.py failed");
      return;
    }
    Scratch::write(s_->root() / "config.toml",
                   "[worker]\njob_timeout_secs = 300\n[worker.sandbox]\nruntime = \"bwrap\"\nrooms_dir = \"" +
                       rooms.string() +
                       "\"\nmemory_limit_mb = 2048\ncpu_seconds = 300\nprobe_canaries = [\"127.0.0.1:9\"]\n" +
                       "[scanners.guarddog]\ntype = \"guarddog\"\ncommand = \"guarddog\"\n" +
                       "[scanners.yara]\ntype = \"yara\"\ncommand = \"yara\"\nrules = \"" + kSource +
                       "/rooms/rules/batlehub-default.yar\"\n" + "[storage]\ntype = \"filesystem\"\npath = \"" +
                       (s_->root() / "cache").string() + "\"\n");
  }
  static void TearDownTestSuite() {
    delete s_;
    s_ = nullptr;
    delete setup_error_;
    setup_error_ = nullptr;
    prepared_ = false;
  }
  // What is not installed, or "".
  static std::string missing() {
    if (auto why = bwrap_unavailable(); !why.empty()) return why;
    if (!executable(kValidator)) {
      return "the SARIF validator is not installed at " + kValidator +
             " (scripts/install-peers.sh installs it: make peers)";
    }
    if (!executable(kGuardDog)) return "GuardDog is not installed at " + kGuardDog + " (scripts/install-scanners.sh)";
    if (!executable(kYara)) return "yara is not installed at " + kYara + " (scripts/install-deps.sh)";
    return "";
  }
  void SetUp() override {
    if (auto why = missing(); !why.empty()) GTEST_SKIP() << why;
  }

  static Ran scan(const std::vector<std::string>& archives) {
    prepare_scans();
    if (setup_error_) return Ran{-1, "", *setup_error_};
    fs::path out = s_->root() / "stdout";
    std::string cmd =
        std::string(BATLEHUB_BIN) + " scan --config " + (s_->root() / "config.toml").string() + " --format sarif";
    for (const auto& a : archives) cmd += " '" + a + "'";
    cmd += " > " + out.string();
    std::string err;
    int rc = run_process({"/bin/sh", "-c", cmd}, s_->root(), {"PATH=/usr/bin:/bin"}, &err);
    return Ran{rc, Scratch::read(out), err};
  }
  static std::string sample(const char* name) { return (s_->root() / "samples" / name).string(); }
  static fs::path save(const std::string& name, const std::string& sarif) {
    fs::path p = s_->root() / name;
    Scratch::write(p, sarif);
    return p;
  }

  static Scratch* s_;
  static std::string* setup_error_;
  static bool prepared_;
};
Scratch* SarifValidator::s_ = nullptr;
std::string* SarifValidator::setup_error_ = nullptr;
bool SarifValidator::prepared_ = false;

const json* run_of(const json& log, const std::string& driver) {
  for (const json& run : log["runs"]) {
    if (run["tool"]["driver"]["name"] == driver) return &run;
  }
  return nullptr;
}

// The check itself: the shape batlehub printed before (the archive's host path as each
// result's uri, no tool version, no region) is what the validator complains of, and the
// check sees each complaint.
TEST_F(SarifValidator, the_check_sees_the_validators_errors_and_warnings) {
  json result = {
      {"ruleId", "r"},
      {"level", "error"},
      {"message", {{"text", "m"}}},
      {"locations", json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", "/tmp/x-1.0.0.tgz"}}}}}}})}};
  json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::array({{{"tool",
                              {{"driver",
                                {{"name", "guarddog"},
                                 {"informationUri", "https://github.com/DataDog/guarddog"},
                                 {"rules", json::array({{{"id", "r"}, {"shortDescription", {{"text", "d"}}}}})}}}}},
                             {"results", json::array({result})}}})}};
  Verdict v = validate(save("before.sarif", log.dump()));
  std::string all = joined(v.complaints);
  EXPECT_NE(all.find("SARIF1004 error"), std::string::npos) << all;
  EXPECT_NE(all.find("SARIF2005 warning"), std::string::npos) << all;
  EXPECT_NE(all.find("SARIF2017 warning"), std::string::npos) << all;
}

TEST_F(SarifValidator, a_malicious_samples_findings_validate_with_no_error_and_no_warning) {
  Ran r = scan({sample("evil-pad-1.3.1.tgz")});
  ASSERT_TRUE(r.status == 10 || r.status == 20 || r.status == 30) << r.status << "\n" << r.err;
  json log = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(log.is_discarded()) << r.out;

  // What a reader of the log checks: which scanners looked, at which version, and where.
  const json* guarddog = run_of(log, "guarddog");
  const json* yara = run_of(log, "yara");
  ASSERT_TRUE(guarddog && yara) << r.out;
  EXPECT_EQ((*guarddog)["tool"]["driver"]["version"], "3.2.0") << r.err;
  EXPECT_TRUE(std::regex_match((*yara)["tool"]["driver"].value("version", ""), std::regex(R"(4\.\d+\.\d+)")))
      << (*yara)["tool"]["driver"].dump() << "\n"
      << r.err;
  EXPECT_EQ((*guarddog)["originalUriBaseIds"]["local:evil-pad@1.3.1"]["uri"],
            "file://" + sample("evil-pad-1.3.1.tgz") + "/");
  bool located = false;
  for (const json& res : (*guarddog)["results"]) {
    if (!res.contains("locations")) continue;
    const json& pl = res["locations"][0]["physicalLocation"];
    EXPECT_EQ(pl["artifactLocation"]["uriBaseId"], "local:evil-pad@1.3.1");
    if (pl["artifactLocation"]["uri"] == "package/index.js" && pl["region"]["startLine"].get<int>() > 0) located = true;
  }
  EXPECT_TRUE(located) << "no GuardDog finding located at package/index.js and a line\n" << guarddog->dump(2);
  EXPECT_FALSE((*yara)["results"].empty()) << yara->dump(2);

  Verdict v = validate(save("evil-pad.sarif", r.out));
  EXPECT_TRUE(v.complaints.empty()) << "the validator's errors and warnings:\n"
                                    << joined(v.complaints) << "on:\n"
                                    << r.out;
}

TEST_F(SarifValidator, a_clean_samples_runs_say_which_scanners_looked_and_validate_with_no_error_and_no_warning) {
  Ran r = scan({sample("tiny-benign-1.0.0.tgz")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  json log = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(log.is_discarded()) << r.out;
  ASSERT_EQ(log["runs"].size(), 2u) << r.out;
  for (const char* name : {"guarddog", "yara"}) {
    const json* run = run_of(log, name);
    ASSERT_TRUE(run) << name << " has no run\n" << r.out;
    EXPECT_TRUE((*run)["results"].empty()) << name;
    EXPECT_TRUE((*run)["tool"]["driver"].contains("version")) << name << "\n" << r.err;
    ASSERT_EQ((*run)["invocations"].size(), 1u) << name;
    EXPECT_EQ((*run)["invocations"][0]["executionSuccessful"], true) << name;
  }
  Verdict v = validate(save("tiny-benign.sarif", r.out));
  EXPECT_TRUE(v.complaints.empty()) << "the validator's errors and warnings:\n"
                                    << joined(v.complaints) << "on:\n"
                                    << r.out;
}

TEST_F(SarifValidator, a_refusal_validates_with_no_error_and_no_warning) {
  Ran r = scan({(s_->root() / "no-such-archive-1.0.0.tgz").string()});
  ASSERT_EQ(r.status, 4) << r.out << r.err;
  Verdict v = validate(save("refusal.sarif", r.out));
  EXPECT_TRUE(v.complaints.empty()) << "the validator's errors and warnings:\n"
                                    << joined(v.complaints) << "on:\n"
                                    << r.out;
}

// The findings no live scan here produces, as render_sarif renders them: a scanner that
// failed, a yara match of a whole file, a finding with no file, and paths a hostile package
// could name (a space, a '#', a colon, non-ASCII, a climb out of the archive).
TEST_F(SarifValidator, failures_and_findings_without_a_line_or_a_file_validate_with_no_error_and_no_warning) {
  server::ScanReport a;
  a.verdict.package = core::Coordinate{"local", "odd name", "1.0.0"};
  a.kind = core::PackageKind::kNpm;
  a.verdict.state = core::VerdictState::kQuarantined;
  a.artifact_path = (s_->root() / "odd dir" / "odd #1.tgz").string();
  a.ran = {{"guarddog", std::nullopt}, {"yara", std::nullopt}, {"trivy", "trivy exited 1: DB error"}};
  auto finding = [](const char* scanner, const char* ref, const std::string& raw) {
    core::Finding f;
    f.scanner = scanner;
    f.reference = ref;
    f.summary = std::string(ref) + " matched";
    f.severity = core::Severity::kHigh;
    f.raw = raw;
    return f;
  };
  a.verdict.findings = {
      finding("guarddog", "capability-process-spawn", R"({"location":"package/a b#1:é.js:12","message":"m"})"),
      finding("guarddog", "typosquat", R"({"message":"close to lodash"})"),
      finding("guarddog", "climb", R"({"location":"../../etc/passwd:1"})"),
      finding("yara", "batlehub_eval", R"({"rule":"batlehub_eval","path":"scan/tree/package/index.js"})"),
      finding("trivy", "SCANNER_ERROR", "{}"),
      finding("trivy", "CVE-2020-8203", R"({"VulnerabilityID":"CVE-2020-8203","Target":"package/package-lock.json"})"),
      // batlehub-signals: a fact's file and line; a combination's first fact; a file that climbs out.
      finding("signals", "signals-shell-miner",
              R"({"fact":"shell","what":"miner","file":"package/lib/run.js","line":7,"detail":"xmrig"})"),
      finding(
          "signals", "signals-collected-and-sent-at-install-or-import",
          R"({"facts":[{"fact":"collect","what":"host","file":"package/post.js","line":3,"detail":"os.hostname("}]})"),
      finding("signals", "signals-shell-miner", R"({"fact":"shell","file":"../x.js","line":1,"detail":"x"})"),
  };
  server::ScanReport b = a;  // the same archive twice: a second base id
  std::string sarif = server::render_sarif({a, b}, {{"guarddog", "guarddog", "3.2.0"},
                                                    {"yara", "yara", "4.2.3"},
                                                    {"trivy", "trivy", "0.74.0"},
                                                    {"signals", "signals", "1"}});
  json log = json::parse(sarif);
  ASSERT_EQ(log["runs"].size(), 4u);
  const json& trivy = *run_of(log, "trivy");
  EXPECT_EQ(trivy["invocations"][0]["executionSuccessful"], false);
  EXPECT_EQ(trivy["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"], "trivy exited 1: DB error");
  EXPECT_EQ(trivy["originalUriBaseIds"].size(), 2u) << trivy.dump(2);
  EXPECT_EQ(trivy["results"][0]["analysisTarget"]["uri"], "") << "a finding with no Target is the archive's";
  EXPECT_EQ(trivy["results"][1]["analysisTarget"]["uri"], "package/package-lock.json") << trivy.dump(2);
  const json& gd = (*run_of(log, "guarddog"))["results"];
  EXPECT_EQ(gd[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "package/a%20b%231%3A%C3%A9.js");
  EXPECT_EQ(gd[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 12);
  EXPECT_FALSE(gd[1].contains("locations"));
  EXPECT_FALSE(gd[2].contains("locations"));
  EXPECT_EQ(gd[2]["analysisTarget"]["uri"], "");
  const json& y = (*run_of(log, "yara"))["results"][0];
  EXPECT_EQ(y["analysisTarget"]["uri"], "package/index.js");
  const json& sg = (*run_of(log, "signals"))["results"];
  EXPECT_EQ(sg[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "package/lib/run.js");
  EXPECT_EQ(sg[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 7);
  EXPECT_EQ(sg[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "package/post.js");
  EXPECT_EQ(sg[1]["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_FALSE(sg[2].contains("locations")) << "a path that climbs out of the archive is not a location";

  Verdict v = validate(save("synthetic.sarif", sarif));
  EXPECT_TRUE(v.complaints.empty()) << "the validator's errors and warnings:\n"
                                    << joined(v.complaints) << "on:\n"
                                    << sarif;
}

// What each scanner prints for `--version`, and what is not a version.
TEST(ScannerVersion, the_first_version_token_of_what_the_scanner_printed) {
  EXPECT_EQ(server::version_in("3.2.0\n"), "3.2.0");                                              // GuardDog
  EXPECT_EQ(server::version_in("Version: 0.74.0\nVulnerability DB:\n  Version: 2\n"), "0.74.0");  // Trivy
  EXPECT_EQ(server::version_in("4.2.3\n"), "4.2.3");                                              // YARA
  EXPECT_EQ(server::version_in("tool v1.2.3-rc.1 (built 2026-12-03)"), "1.2.3-rc.1");
  EXPECT_EQ(server::version_in("port 443, /api/v1/names?per_page=1000"), std::nullopt);
  EXPECT_EQ(server::version_in("x1.2 1.2x"), std::nullopt);
  EXPECT_EQ(server::version_in(""), std::nullopt);
  config::ScannerConfig trivy;
  trivy.name = "trivy-mirror";
  trivy.type = config::ScannerType::kTrivy;
  core::RunSpec spec = server::version_request(trivy, core::Limits{});
  EXPECT_EQ(spec.argv, (std::vector<std::string>{"trivy", "--version"}));
  EXPECT_EQ(spec.label.scanner, "trivy-mirror");
  EXPECT_FALSE(spec.network);
  EXPECT_TRUE(spec.bundle.entries.empty());
}

}  // namespace
}  // namespace batlehub::testing
