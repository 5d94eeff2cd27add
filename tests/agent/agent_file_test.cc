// The agent binary end to end over file:// URLs: what it fetches, extracts and runs, and
// what the scanner can and cannot do under its walls, asserted from result.json and from
// what the scanner printed about itself.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include "archive_builder.h"
#include "harness.h"
#include "wire/base64.h"
#include "wire/sandbox_layout.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;
using wire::EntryKind;
using wire::FailureKind;

wire::Entry inline_entry(const std::string& path, std::string bytes) {
  wire::Entry e;
  e.kind = EntryKind::kInline;
  e.path = *wire::RelPath::parse(path);
  e.bytes = std::move(bytes);
  return e;
}

wire::Entry url_entry(EntryKind kind, const std::string& path, const fs::path& file, bool strip = false) {
  wire::Entry e;
  e.kind = kind;
  e.path = *wire::RelPath::parse(path);
  e.url = "file://" + file.string();
  e.size = fs::file_size(file);
  e.strip_wrapper = strip;
  return e;
}

class Agent : public ::testing::Test {
 protected:
  Outcome run(const wire::Manifest& m) { return run_agent_binary(s_, m); }
  Scratch s_;
};

TEST_F(Agent, places_every_entry_and_runs_the_scanner_over_them) {
  fs::path bundle = s_.work() / "in";
  Scratch::write(bundle / "artifact.tgz", make_tgz({dir("package/"), file("package/index.js", "module.exports = 1;\n", 0755),
                                                    file("package/package.json", "{}")}));
  Scratch::write(bundle / "sbom.json", "{\"bomFormat\":\"CycloneDX\"}");
  auto m = scan_manifest({hostile(), "cat", "node_modules/left-pad/index.js"});
  m.entries = {url_entry(EntryKind::kArchive, "node_modules/left-pad", bundle / "artifact.tgz", true),
               inline_entry("package-lock.json", "{\"lockfileVersion\":3}"),
               url_entry(EntryKind::kFile, "sbom.cdx.json", bundle / "sbom.json")};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.exit_status, 0);
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_TRUE(o.result.ran);
  EXPECT_EQ(o.result.exit_code, 0);
  EXPECT_EQ(o.stdout_bytes, "module.exports = 1;\n");
  EXPECT_EQ(o.result.extract.files, 2u);
  EXPECT_EQ(o.result.extract.directories, 1u);
  EXPECT_EQ(Scratch::read(s_.work() / "package-lock.json"), "{\"lockfileVersion\":3}");
  EXPECT_EQ(Scratch::read(s_.work() / "sbom.cdx.json"), "{\"bomFormat\":\"CycloneDX\"}");
  struct stat st{};
  ASSERT_EQ(::stat((s_.work() / "node_modules/left-pad/index.js").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u) << "exec bits are dropped";
  EXPECT_TRUE(s_.strays().empty());
}

TEST_F(Agent, a_scanner_that_exits_1_is_an_answer) {
  Outcome o = run(scan_manifest({hostile(), "exit", "1", "{\"ok\":true}"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.exit_status, 0) << "a result was written, so the agent exits 0";
  EXPECT_EQ(o.result.exit_code, 1);
  EXPECT_EQ(o.stdout_bytes, "{\"ok\":true}");
  EXPECT_EQ(o.result.stdout_bytes, o.stdout_bytes.size());
}

TEST_F(Agent, denied_syscalls_answer_eperm_and_the_scanner_reports_it) {
  Outcome o = run(scan_manifest({hostile(), "syscalls"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.result.exit_code, 3);
  auto l = lines(o.stdout_bytes);
  std::vector<std::string> want = {"ptrace -1 EPERM", "unshare -1 EPERM", "mount -1 EPERM", "keyctl -1 EPERM",
                                   "clone3 -1 ENOSYS"};
  EXPECT_EQ(l, want);
  EXPECT_NE(o.result.stderr_tail.find("ptrace: Operation not permitted"), std::string::npos) << o.result.stderr_tail;
  EXPECT_NE(o.result.stderr_tail.find("clone3: Function not implemented"), std::string::npos);
}

TEST_F(Agent, a_program_that_starts_threads_runs_normally_under_the_filter) {
  Outcome o = run(scan_manifest({hostile(), "threads", "8"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.result.exit_code, 0) << o.result.stderr_tail;
  EXPECT_EQ(o.stdout_bytes, "threads ok 800000\n");
}

TEST_F(Agent, an_i386_int80_call_is_refused) {
  Outcome o = run(scan_manifest({hostile(), "int80"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.stdout_bytes.substr(0, 9), "int80 -1 ") << o.stdout_bytes;
}

TEST_F(Agent, the_scanner_sees_exactly_home_and_path_whatever_the_agent_got) {
  Outcome o = run(scan_manifest({hostile(), "env"}));
  ASSERT_TRUE(o.have_result) << o.error;
  std::vector<std::string> want = {"HOME=" + s_.work().string(), "PATH=/usr/local/bin:/usr/bin:/bin"};
  EXPECT_EQ(lines(o.stdout_bytes), want);
}

TEST_F(Agent, the_scanner_runs_under_the_manifests_limits) {
  auto m = scan_manifest({hostile(), "limits"});
  m.limits = {300, 9};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  std::vector<std::string> want = {"RLIMIT_DATA 314572800 314572800", "RLIMIT_CPU 9 9", "RLIMIT_CORE 0 0"};
  EXPECT_EQ(lines(o.stdout_bytes), want);
}

TEST_F(Agent, forty_megabytes_on_stdout_is_reported_over_the_cap) {
  Outcome o = run(scan_manifest({hostile(), "flood", "40000000"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_TRUE(o.result.stdout_over_cap);
  EXPECT_EQ(o.result.stdout_bytes, wire::kStdoutCapBytes);
  EXPECT_EQ(o.stdout_bytes.size(), wire::kStdoutCapBytes);
}

TEST_F(Agent, a_scanner_that_hangs_past_its_timeout_is_killed_with_its_whole_tree) {
  Outcome o = run(scan_manifest({hostile(), "daemon"}, 1500));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_TRUE(o.result.timed_out);
  EXPECT_EQ(o.result.signal, SIGKILL);
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  pid_t daemon = std::stoi(Scratch::read(s_.work() / "daemon.pid"));
  EXPECT_NE(::kill(daemon, 0), 0) << "the daemonised grandchild " << daemon << " survived";
}

TEST_F(Agent, the_stderr_tail_is_the_last_2000_characters) {
  Outcome o = run(scan_manifest({hostile(), "stderr", "10000", "2"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.result.exit_code, 2);
  EXPECT_EQ(o.result.stderr_tail.size(), 2000u);
  EXPECT_TRUE(o.result.stderr_tail.ends_with("END"));
}

TEST_F(Agent, a_missing_command_is_reported_in_the_result) {
  Outcome o = run(scan_manifest({"postmortem-that-is-not-installed", "scan"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.exit_status, 0);
  EXPECT_FALSE(o.result.ran);
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kCommandNotFound);
}

TEST_F(Agent, a_manifest_of_another_wire_version_is_answered_not_run) {
  Scratch::write(s_.work() / "manifest.json", "{\"wire\": 99, \"argv\": [\"x\"]}");
  int rc = run_process({BATLEHUB_AGENT_BIN, "--in", "file://" + (s_.work() / "manifest.json").string(), "--out",
                        "file://" + (s_.work() / "out.tar").string()},
                       s_.work(), {});
  Outcome o = read_outcome(s_.work() / "out.tar", rc);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.exit_status, 0);
  EXPECT_EQ(o.result.wire, wire::kWireVersion);
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kWireVersion);
  EXPECT_NE(o.result.failure->message.find("speaks wire version 3, the manifest speaks 99"), std::string::npos);
}

// Wire 3 (docs/wire-format.md, Versions): a worker of the release before, sending wire 2,
// gets the same answer — nothing run, a result in this agent's version saying so.
TEST_F(Agent, a_wire_2_manifest_from_an_older_worker_is_answered_not_run) {
  auto m = scan_manifest({hostile(), "exit", "0"});
  std::string text = wire::serialize(m);
  auto at = text.find("\"wire\": 3");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 9, "\"wire\": 2");
  Scratch::write(s_.work() / "manifest.json", text);
  int rc = run_process({BATLEHUB_AGENT_BIN, "--in", "file://" + (s_.work() / "manifest.json").string(), "--out",
                        "file://" + (s_.work() / "out.tar").string()},
                       s_.work(), {});
  Outcome o = read_outcome(s_.work() / "out.tar", rc);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.ran);
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kWireVersion);
  EXPECT_EQ(o.result.failure->message, "manifest /wire: this agent speaks wire version 3, the manifest speaks 2");
}

// Wire 2's `descend`: a gem's data.tar.gz extracted in place before the scanner runs, under
// the gem's budget.
TEST_F(Agent, a_gems_data_tar_gz_named_by_descend_is_extracted_in_place_before_the_scanner_runs) {
  fs::path gem = s_.work() / "in" / "evil-0.1.0.gem";
  Scratch::write(gem, make_tar({file("metadata.gz", "meta"),
                                file("data.tar.gz", make_tgz({dir("lib/"), file("lib/evil.rb", "puts 1\n")})),
                                file("checksums.yaml.gz", "sums")}));
  auto m = scan_manifest({hostile(), "cat", "vendor/bundle/gems/evil-0.1.0/lib/evil.rb"});
  auto e = url_entry(EntryKind::kArchive, "vendor/bundle/gems/evil-0.1.0", gem, true);
  e.descend = *wire::RelPath::parse("data.tar.gz");
  m.entries = {e};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_EQ(o.result.exit_code, 0);
  EXPECT_EQ(o.stdout_bytes, "puts 1\n");
  EXPECT_EQ(o.result.extract.files, 4u);
  EXPECT_EQ(o.result.extract.directories, 1u);
  EXPECT_EQ(o.result.extract.nested_archives, 0u);
  EXPECT_FALSE(fs::exists(s_.work() / "vendor/bundle/gems/evil-0.1.0/data.tar.gz"));
  EXPECT_TRUE(s_.strays().empty());

  // A bomb inside it: refused as a bomb, the scanner never started.
  fs::path bomb = s_.work() / "in" / "bomb-0.1.0.gem";
  Scratch::write(bomb, make_tar({file("metadata.gz", "meta"),
                                 file("data.tar.gz", make_tgz({file("lib/z.rb", std::string(8 << 20, '\0'))}))}));
  auto b = url_entry(EntryKind::kArchive, "g", bomb, true);
  b.descend = *wire::RelPath::parse("data.tar.gz");
  m.entries = {b};
  Outcome ob = run(m);
  ASSERT_TRUE(ob.have_result) << ob.error;
  EXPECT_FALSE(ob.result.ran);
  ASSERT_TRUE(ob.result.failure);
  EXPECT_EQ(ob.result.failure->kind, FailureKind::kBomb);
  EXPECT_EQ(ob.result.failure->message, "entry 'g': in 'data.tar.gz': archive decompression ratio exceeds 100:1");
}

TEST_F(Agent, an_invalid_manifest_says_where) {
  Scratch::write(s_.work() / "manifest.json", "{\"wire\": 3, \"argv\": [\"x\"], \"network\": \"yes\"}");
  int rc = run_process({BATLEHUB_AGENT_BIN, "--in", "file://" + (s_.work() / "manifest.json").string(), "--out",
                        "file://" + (s_.work() / "out.tar").string()},
                       s_.work(), {});
  Outcome o = read_outcome(s_.work() / "out.tar", rc);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kManifestInvalid);
  EXPECT_EQ(o.result.failure->message, "manifest /network: expected true or false");
}

TEST_F(Agent, an_input_of_another_size_than_declared_is_refused) {
  fs::path f = s_.work() / "in" / "artifact.tgz";
  Scratch::write(f, make_tgz({file("a", "1")}));
  auto m = scan_manifest({hostile(), "exit", "0"});
  auto e = url_entry(EntryKind::kArchive, "tree", f);
  e.size -= 1;
  m.entries = {e};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.ran);
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kInputSize);
}

TEST_F(Agent, a_bomb_is_refused_before_the_scanner_runs) {
  fs::path f = s_.work() / "in" / "bomb.tgz";
  Scratch::write(f, make_tgz({file("zeros", std::string(8 * 1024 * 1024, '\0'))}));
  auto m = scan_manifest({hostile(), "exit", "0"});
  m.entries = {url_entry(EntryKind::kArchive, "tree", f)};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.ran);
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kBomb);
  EXPECT_EQ(o.result.failure->message, "entry 'tree': archive decompression ratio exceeds 100:1");
}

TEST_F(Agent, two_entries_at_one_path_are_refused) {
  auto m = scan_manifest({hostile(), "exit", "0"});
  m.entries = {inline_entry("a", "1"), inline_entry("a", "2")};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.failure);
  EXPECT_EQ(o.result.failure->kind, FailureKind::kWrite);
}

TEST_F(Agent, a_symlink_planted_at_the_result_is_replaced_not_followed) {
  fs::path victim = s_.root() / "victim";
  Scratch::write(victim, "precious");
  fs::create_symlink(victim, s_.work() / "out.tar");
  Outcome o = run(scan_manifest({hostile(), "exit", "0"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(Scratch::read(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(s_.work() / "out.tar"));
  fs::remove(victim);
}

TEST_F(Agent, argv_is_exactly_in_url_out_url) {
  std::string in = "file://" + (s_.work() / "manifest.json").string();
  std::string out = "file://" + (s_.work() / "out.tar").string();
  for (std::vector<std::string> argv : std::vector<std::vector<std::string>>{
           {BATLEHUB_AGENT_BIN},
           {BATLEHUB_AGENT_BIN, "--in", in},
           {BATLEHUB_AGENT_BIN, "--out", out, "--in", in},
           {BATLEHUB_AGENT_BIN, "--in=" + in, "--out=" + out},
           {BATLEHUB_AGENT_BIN, "--in", in, "--out", out, "--verbose"},
       }) {
    std::string err;
    EXPECT_EQ(run_process(argv, s_.work(), {}, &err), static_cast<int>(AgentExit::kUsage)) << argv.size();
    EXPECT_EQ(err, "usage: batlehub-sandbox --in URL --out URL\n");
    EXPECT_FALSE(fs::exists(s_.work() / "out.tar"));
  }
}

TEST_F(Agent, no_result_means_a_nonzero_exit) {
  Scratch::write(s_.work() / "manifest.json", wire::serialize(scan_manifest({hostile(), "exit", "0"})));
  int rc = run_process({BATLEHUB_AGENT_BIN, "--in", "file://" + (s_.work() / "manifest.json").string(), "--out",
                        "file:///nonexistent-dir/out.tar"},
                       s_.work(), {});
  EXPECT_EQ(rc, static_cast<int>(AgentExit::kNoResult));
}

TEST_F(Agent, the_library_entry_gives_the_binarys_answer) {
  auto m = scan_manifest({hostile(), "syscalls"});
  Outcome bin = run(m);
  Scratch other;
  Outcome lib = run_agent_library(other, m);
  ASSERT_TRUE(bin.have_result && lib.have_result) << bin.error << lib.error;
  EXPECT_EQ(lib.result.exit_code, bin.result.exit_code);
  EXPECT_EQ(lib.stdout_bytes, bin.stdout_bytes);
  EXPECT_EQ(lib.result.stderr_tail, bin.result.stderr_tail);
}

TEST_F(Agent, a_probe_manifest_checks_instead_of_running) {
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.timeout_ms = 10'000;
  m.limits = {512, 30};
  m.probe = wire::ProbeSpec{{"127.0.0.1:9"}, {hostile()}};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.ran);
  ASSERT_TRUE(o.result.probe);
  auto verdict = [&](wire::Check c) {
    for (const auto& a : o.result.probe->assertions) {
      if (a.check == c) return a;
    }
    return wire::Assertion{c, wire::AssertionVerdict::kWarn, "(missing)"};
  };
  // On the bare host, outside any walls: the agent's own walls hold, the room's do not.
  EXPECT_EQ(verdict(wire::Check::kSeccompFilter).verdict, wire::AssertionVerdict::kPass) << verdict(wire::Check::kSeccompFilter).evidence;
  EXPECT_EQ(verdict(wire::Check::kNoNewPrivs).verdict, wire::AssertionVerdict::kPass);
  EXPECT_EQ(verdict(wire::Check::kCanarySyscall).verdict, wire::AssertionVerdict::kPass) << verdict(wire::Check::kCanarySyscall).evidence;
  EXPECT_EQ(verdict(wire::Check::kClone3Enosys).verdict, wire::AssertionVerdict::kPass);
  EXPECT_EQ(verdict(wire::Check::kRlimits).verdict, wire::AssertionVerdict::kPass) << verdict(wire::Check::kRlimits).evidence;
  EXPECT_EQ(verdict(wire::Check::kCommandsExist).verdict, wire::AssertionVerdict::kPass);
  EXPECT_EQ(verdict(wire::Check::kWireVersion).verdict, wire::AssertionVerdict::kPass);
  EXPECT_EQ(verdict(wire::Check::kNoShell).verdict, wire::AssertionVerdict::kFail) << "the host has /bin/sh";
  EXPECT_EQ(verdict(wire::Check::kReadOnlyRoot).verdict, wire::AssertionVerdict::kFail) << "the host root is writable";
  EXPECT_EQ(verdict(wire::Check::kEmptyEnvironment).verdict, wire::AssertionVerdict::kFail);
  EXPECT_NE(verdict(wire::Check::kEmptyEnvironment).evidence.find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  EXPECT_EQ(verdict(wire::Check::kEmptyEnvironment).evidence.find("leaked"), std::string::npos) << "values are never reported";
  EXPECT_EQ(verdict(wire::Check::kNoCredentials).verdict, wire::AssertionVerdict::kFail);
  EXPECT_EQ(verdict(wire::Check::kPidNamespace).verdict, wire::AssertionVerdict::kFail);
  ASSERT_EQ(o.result.probe->commands.size(), 1u);
  EXPECT_EQ(o.result.probe->commands[0].sha256.size(), 64u);
  EXPECT_EQ(o.result.probe->commands[0].size, fs::file_size(hostile()));
}

TEST_F(Agent, a_probe_finds_a_bare_command_on_the_sandbox_path_and_names_a_missing_one_as_given) {
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.timeout_ms = 10'000;
  m.limits = {512, 30};
  m.probe = wire::ProbeSpec{{"127.0.0.1:9"}, {"env", "batlehub-no-such-command"}};
  Outcome o = run(m);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.probe);
  for (const auto& a : o.result.probe->assertions) {
    if (a.check != wire::Check::kCommandsExist) continue;
    EXPECT_EQ(a.verdict, wire::AssertionVerdict::kFail);
    EXPECT_EQ(a.evidence, "missing or not executable: batlehub-no-such-command");
  }
  ASSERT_EQ(o.result.probe->commands.size(), 1u);
  EXPECT_EQ(o.result.probe->commands[0].path, "/usr/bin/env") << "looked up on " << wire::kSandboxPath;
}

}  // namespace
}  // namespace batlehub::agent
