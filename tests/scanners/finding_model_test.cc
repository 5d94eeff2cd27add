// The severity model (src/adapters/scanners/finding_model.h) as data: where a hit sits, what
// that does to its severity, and one row for every GuardDog source-code rule.
#include "adapters/scanners/finding_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace batlehub::adapters::finding_model {
namespace {

using core::Severity;
namespace fs = std::filesystem;

TEST(FindingModel, tests_docs_and_examples_are_not_installed) {
  for (const char* loc : {"package/test/x.test.js:12", "name-1.0/tests/test_api.py", "name-1.0/docs/conf.py:3",
                          "package/examples/demo.js", "package/__tests__/a.js", "name-1.0/Tests/helpers.py",
                          "name-1.0/pkg/benchmarks/run.py", "package/lib/parser.spec.ts", "name-1.0/conftest.py",
                          "name-1.0/pkg/test_util.py", "name-1.0/pkg/util_test.py", "package/fixtures/evil.js"}) {
    EXPECT_EQ(place_of(loc), Place::kNotInstalled) << loc;
  }
}

TEST(FindingModel, setup_py_at_the_sdist_root_and_pth_files_run_at_install) {
  EXPECT_EQ(place_of("name-1.0/setup.py:21"), Place::kInstallTime);
  EXPECT_EQ(place_of("setup.py"), Place::kInstallTime);
  EXPECT_EQ(place_of("name-1.0/name_init.pth"), Place::kInstallTime);
  EXPECT_EQ(place_of("pkg/_virtualenv.pth:1"), Place::kInstallTime);
}

TEST(FindingModel, the_rest_is_the_packages_runtime_code) {
  for (const char* loc :
       {"name-1.0/pkg/core.py:5", "package/index.js", "name-1.0/lib/setup.py", "package/lib/contest.js",
        "name-1.0/pkg/testing_utils.py", "package/dist/attest.js", "", "name-1.0/pkg/core.py:notaline"}) {
    EXPECT_EQ(place_of(loc), Place::kRuntime) << loc;
  }
}

TEST(FindingModel, a_packages_top_init_and_top_modules_run_at_import) {
  for (const char* loc :
       {"pkg/__init__.py:3", "name-1.0/pkg/__init__.py", "name-1.0/src/pkg/__init__.py:9", "mod.py"}) {
    EXPECT_TRUE(runs_at_import(loc)) << loc;
  }
  // A subpackage, a module inside a package (it runs when someone imports it), setup.py, a
  // module at an sdist's top (its build's: setupbase.py, hatch_build.py), JavaScript: none
  // runs merely because the package was imported.
  for (const char* loc : {"pkg/sub/__init__.py", "name-1.0/pkg/sub/__init__.py", "pkg/core.py", "name-1.0/pkg/core.py",
                          "name-1.0/setup.py", "package/index.js", "", "name-1.0/src/pkg/sub/__init__.py",
                          "ipython-9.18.1/setupbase.py", "pymongo-4.20.1/hatch_build.py:7", "name-1.0/mod.py:1"}) {
    EXPECT_FALSE(runs_at_import(loc)) << loc;
  }
}

TEST(FindingModel, each_guarddog_rule_says_what_its_hit_does) {
  // A client's connection is not a fetch or a send: the exact row wins over the prefix.
  EXPECT_EQ(behaviour_of("capability-network-outbound"), kConnect);
  EXPECT_EQ(behaviour_of("capability-network-download"), kNetwork);
  EXPECT_EQ(behaviour_of("threat-network-exfil-messenger"), kNetwork);
  EXPECT_EQ(behaviour_of("threat-process-download-exec"), kConnect | kExecute);
  EXPECT_EQ(behaviour_of("capability-process-spawn"), kExecute);
  EXPECT_EQ(behaviour_of("threat-runtime-obfuscation-base64exec"), kExecute | kConceal);
  EXPECT_EQ(behaviour_of("threat-runtime-obfuscation-unicode"), kConceal);
  EXPECT_EQ(behaviour_of("threat-filesystem-read"), kCollect);
  EXPECT_EQ(behaviour_of("threat-filesystem-autostart"), kPersist);
  // Deleting files and install hooks are judged elsewhere (their rows, INSTALL_HOOK).
  EXPECT_EQ(behaviour_of("capability-filesystem-delete"), kNoBehaviour);
  EXPECT_EQ(behaviour_of("capability-process-hooks"), kNoBehaviour);
  EXPECT_EQ(behaviour_of("not-a-rule"), kNoBehaviour);
  EXPECT_EQ(behaviour_names(kNetwork | kCollect | kPersist), "network, collect, persist");
  EXPECT_EQ(behaviour_names(kConnect | kExecute), "connect, execute");
  EXPECT_EQ(behaviour_names(kNoBehaviour), "");
  // Every source-code rule in the severity table says something, but the two above.
  EXPECT_EQ(file_of("name-1.0/setup.py:21"), "name-1.0/setup.py");
  EXPECT_EQ(file_of("name-1.0/pkg/core.py:notaline"), "name-1.0/pkg/core.py:notaline");
}

TEST(FindingModel, the_rows_lowered_for_matching_ordinary_libraries_are_unspecific) {
  for (const char* r : {"threat-filesystem-read", "threat-network-exfiltration", "threat-process-download-exec",
                        "threat-runtime-obfuscation-base64exec", "threat-runtime-obfuscation-steganography",
                        "threat-filesystem-autostart", "threat-network-exfil-sysinfo", "threat-network-exfil-messenger",
                        "threat-process-cryptomining"}) {
    EXPECT_TRUE(unspecific(r)) << r;
    EXPECT_EQ(guarddog_base(r), Severity::kMedium) << r;
  }
  for (const char* r : {"threat-network-outbound-shady-links", "threat-runtime-obfuscation-chr"}) {
    EXPECT_FALSE(unspecific(r)) << r;
  }
}

TEST(FindingModel, the_rules_guarddog_rates_unspecific_are_its_high_rules_of_low_or_medium_specificity) {
  // docs/verdicts.md's GuardDog column: high/low or high/medium.
  for (const char* r : {"threat-filesystem-read", "threat-network-exfiltration", "threat-process-download-exec",
                        "threat-process-injection-dll", "threat-process-memory", "threat-runtime-keylogging",
                        "threat-runtime-obfuscation-base64exec", "threat-runtime-obfuscation-steganography"}) {
    EXPECT_TRUE(unspecific_to_guarddog(r)) << r;
  }
  // Lowered by the corpus, not by GuardDog: they still rise in setup.py.
  for (const char* r : {"threat-network-exfil-messenger", "threat-filesystem-autostart", "threat-process-cryptomining",
                        "threat-runtime-obfuscation-chr"}) {
    EXPECT_FALSE(unspecific_to_guarddog(r)) << r;
  }
}

TEST(FindingModel, vendored_copies_and_minified_bundles_are_someone_elses_code) {
  for (const char* loc :
       {"pip/_vendor/distlib/util.py:1876", "package/node_modules/x/index.js", "name-1.0/third_party/a.c",
        "package/dist/bundle.min.js:34185", "package/lib/app.bundle.js", "name-1.0/vendor/lib/setup.py"}) {
    EXPECT_EQ(place_of(loc), Place::kBundled) << loc;
  }
  // A package's own dist/ is its own code; a .pth in a vendored dir still runs at install.
  EXPECT_EQ(place_of("package/dist/index.js"), Place::kRuntime);
  EXPECT_EQ(place_of("name-1.0/vendor/x.pth"), Place::kInstallTime);
  EXPECT_EQ(at(Severity::kCritical, Place::kBundled), Severity::kHigh);
  EXPECT_EQ(at(Severity::kHigh, Place::kBundled), Severity::kMedium);
  EXPECT_EQ(at(Severity::kMedium, Place::kBundled), Severity::kLow);
  EXPECT_EQ(at(Severity::kLow, Place::kBundled), Severity::kLow);
}

TEST(FindingModel, a_place_moves_a_severity_at_most_one_step) {
  EXPECT_EQ(at(Severity::kCritical, Place::kNotInstalled), Severity::kLow);
  EXPECT_EQ(at(Severity::kHigh, Place::kNotInstalled), Severity::kLow);
  EXPECT_EQ(at(Severity::kUnknown, Place::kNotInstalled), Severity::kUnknown);
  EXPECT_EQ(at(Severity::kLow, Place::kInstallTime), Severity::kLow);
  EXPECT_EQ(at(Severity::kMedium, Place::kInstallTime), Severity::kHigh);
  EXPECT_EQ(at(Severity::kHigh, Place::kInstallTime), Severity::kCritical);
  EXPECT_EQ(at(Severity::kCritical, Place::kInstallTime), Severity::kCritical);
  for (Severity s : {Severity::kUnknown, Severity::kLow, Severity::kMedium, Severity::kHigh, Severity::kCritical}) {
    EXPECT_EQ(at(s, Place::kRuntime), s);
  }
}

TEST(FindingModel, capabilities_are_low_and_the_rows_the_corpus_decided_hold) {
  EXPECT_EQ(guarddog_base("capability-network-outbound"), Severity::kLow);
  EXPECT_EQ(guarddog_base("threat-runtime-obfuscation-unicode"), Severity::kLow);
  EXPECT_EQ(guarddog_base("threat-filesystem-read"), Severity::kMedium);
  EXPECT_EQ(guarddog_base("threat-network-exfiltration"), Severity::kMedium);
  EXPECT_EQ(guarddog_base("threat-runtime-obfuscation-base64exec"), Severity::kMedium);
  // Each decided one benign package alone on the tuning half and no malicious one: medium,
  // and high in setup.py by place, where every malicious reverse shell of the corpus was.
  EXPECT_EQ(guarddog_base("threat-network-reverse-shell"), Severity::kMedium);
  EXPECT_EQ(at(*guarddog_base("threat-network-reverse-shell"), Place::kInstallTime), Severity::kHigh);
  EXPECT_EQ(guarddog_base("threat-npm-dependency-confusion"), Severity::kMedium);
  // typer writes its completion into ~/.bashrc on request: medium in a package's code, high in setup.py.
  EXPECT_EQ(guarddog_base("threat-filesystem-autostart"), Severity::kMedium);
  EXPECT_EQ(guarddog_base("threat-setup-network-in-install"), Severity::kHigh);
  EXPECT_EQ(guarddog_base("typosquatting"), std::nullopt);
  EXPECT_EQ(guarddog_base("Threat-Network-Reverse-Shell"), std::nullopt);  // the adapter lowers it first
}

// Each rule the installed GuardDog ships has its row, so an upgrade that adds one fails here
// rather than falling back to the name-based mapping unseen.
TEST(FindingModel, every_rule_of_the_installed_guarddog_has_a_row) {
  const fs::path rules = "/opt/batlehub/guarddog/lib/python3.11/site-packages/guarddog/analyzer/sourcecode";
  if (!fs::is_directory(rules)) {
    GTEST_SKIP() << "GuardDog is not installed at " << rules << " (scripts/install-scanners.sh installs it)";
  }
  int rows = 0;
  for (const auto& e : fs::directory_iterator(rules)) {
    std::string stem = e.path().stem().string();
    if (!stem.starts_with("threat-") && !stem.starts_with("capability-")) continue;
    EXPECT_TRUE(guarddog_base(stem).has_value()) << stem << " has no row in finding_model.cc";
    ++rows;
  }
  EXPECT_EQ(rows, 54);
}

}  // namespace
}  // namespace batlehub::adapters::finding_model
