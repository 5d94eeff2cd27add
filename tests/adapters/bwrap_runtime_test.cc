// The bwrap runtime for real: a run gives what `none` gives, the probe passes in a proper
// room, and each wall broken on purpose fails the probe naming the right assertion.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <set>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/none.h"
#include "agent/seccomp_policy.h"
#include "base/file.h"
#include "bwrap_runtime_peer.h"
#include "rooms.h"
#include "server/service/scan_service.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

// A listener on this machine's loopback, up for the whole test: what a configured canary
// stands for. Reachable from the host, never from a sandbox with its own network.
class LoopbackListener {
 public:
  LoopbackListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 4) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    address_ = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  }
  ~LoopbackListener() {
    if (fd_ >= 0) ::close(fd_);
  }
  const std::string& address() const { return address_; }

 private:
  int fd_ = -1;
  std::string address_;
};

// What `body` returns, run in a child process: for a test that changes something about the
// process that cannot be changed back (a hard rlimit lowered, a seccomp filter installed).
std::string in_a_child(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const std::string out = body();
    ssize_t ignored = ::write(fds[1], out.data(), out.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return got;
}

class BwrapRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    fs::create_directories(rooms_);
    ASSERT_TRUE(build_room(rooms_, "hostile"));
  }

  BwrapOptions options() {
    BwrapOptions o;
    o.rooms_dir = rooms_.string();
    o.scratch_dir = s_.work().string();
    o.probe_canaries = {canary_.address()};
    return o;
  }

  core::ProbeTarget target(const std::string& room = "hostile") {
    return core::ProbeTarget{room, std::nullopt, {"/usr/bin/hostile"}, core::Limits{}};
  }

  static std::string failure_of(const core::ProbeReport& r) { return r.first_failure().value_or("(passed)"); }

  Scratch s_;
  fs::path rooms_;
  LoopbackListener canary_;
};

TEST_F(BwrapRuntimeTest, a_run_over_a_fixture_archive_gives_the_same_output_as_none) {
  core::RunSpec spec = fixture_run_spec();
  BwrapRuntime bwrap(options());
  auto b = bwrap.run(spec);
  ASSERT_TRUE(b) << b.error().message;
  spec.argv[0] = std::string(BATLEHUB_HELPERS_DIR) + "/hostile";  // none has no room: the same program on the host
  auto n = std::move(NoneRuntime::create({}, [](std::string_view) { return std::optional<std::string>("1"); })).value()->run(spec);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(b->status, 0);
  EXPECT_EQ(b->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(b->status, n->status);
  EXPECT_EQ(b->stdout_bytes, n->stdout_bytes);
  EXPECT_EQ(b->stderr_tail, n->stderr_tail);
  EXPECT_EQ(b->report.extract, n->report.extract);
  EXPECT_EQ(b->report.extract.refused_by_type, 1u);
}

TEST_F(BwrapRuntimeTest, the_probe_passes_for_a_room_on_this_machine) {
  BwrapRuntime bwrap(options());
  auto r = bwrap.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << failure_of(*r);
  EXPECT_TRUE(r->result_at_all);
  EXPECT_EQ(r->agent.assertions.size(), wire::every_check().size());
  ASSERT_EQ(r->agent.commands.size(), 1u);
  EXPECT_EQ(r->agent.commands[0].size, fs::file_size(std::string(BATLEHUB_HELPERS_DIR) + "/hostile"));
}

TEST_F(BwrapRuntimeTest, a_room_with_a_shell_in_it_fails_on_no_shell) {
  fs::path bad = rooms_ / "shelly";
  fs::copy(rooms_ / "hostile", bad, fs::copy_options::recursive);
  fs::create_directories(bad / "bin");
  fs::copy_file(std::string(BATLEHUB_HELPERS_DIR) + "/hostile", bad / "bin/sh", fs::copy_options::overwrite_existing);
  BwrapRuntime bwrap(options());
  auto r = bwrap.probe(target("shelly"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r).rfind("no_shell: found /bin/sh", 0), 0u) << failure_of(*r);
}

// The probe's second line is about what failed: every check has a hint that leads to the
// operations page, and the ones an operator fixes in different places say different things.
TEST_F(BwrapRuntimeTest, each_failed_check_gets_the_hint_for_it) {
  BwrapRuntime bwrap(options());
  std::set<std::string> distinct;
  for (auto c : wire::every_check()) {
    const std::string h = bwrap.hint(c);
    EXPECT_TRUE(h.ends_with("See docs/operations/bwrap.md")) << wire::to_string(c) << ": " << h;
    EXPECT_EQ(h.find("user namespaces"), std::string::npos) << wire::to_string(c) << ": " << h;
    distinct.insert(h);
  }
  // The sandbox never started: this host's own settings first, then every cause.
  const std::string never = bwrap.hint(std::nullopt);
  EXPECT_EQ(never.rfind(userns_settings_of_this_host(), 0), 0u) << never;
  EXPECT_NE(never.find("bwrap needs unprivileged user namespaces"), std::string::npos) << never;
  EXPECT_EQ(bwrap.hint(wire::Check::kNoShell).rfind("the room holds a shell", 0), 0u);
  EXPECT_NE(bwrap.hint(wire::Check::kCommandsExist).find("add it to the room's definition"), std::string::npos);
  EXPECT_NE(bwrap.hint(wire::Check::kSeccompFilter).find("CONFIG_SECCOMP_FILTER"), std::string::npos);
  EXPECT_NE(bwrap.hint(wire::Check::kRlimits).find("setrlimit/prlimit64"), std::string::npos);
  EXPECT_NE(bwrap.hint(wire::Check::kPidsBounded).find("accept_per_process_limits"), std::string::npos);
  EXPECT_NE(bwrap.hint(wire::Check::kNoCredentials).find("service-account token inside the room"), std::string::npos);
  EXPECT_GE(distinct.size(), 7u);
}

// The hint reads the host's settings where they are: /proc/sys. Ubuntu's AppArmor switch is
// not on this kernel, so a child in a mount namespace of its own puts a tmpfs over
// /proc/sys/kernel holding it set to 1, and asks the hint there.
TEST(UsernsSettings, a_host_whose_apparmor_forbids_user_namespaces_is_named_first) {
  if (::geteuid() != 0) GTEST_SKIP() << "a mount namespace of the test's own needs root";
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(out[0]);
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", "/proc/sys/kernel", "tmpfs", 0, "size=64k") != 0) {
      ::_exit(120);
    }
    {
      std::ofstream f("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
      f << "1\n";
    }
    const std::string said = userns_settings_of_this_host() + "\n" + BwrapRuntime(BwrapOptions{}).hint(std::nullopt);
    ssize_t ignored = ::write(out[1], said.data(), said.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(out[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the namespace could not be set up (status " << st << ")";
  EXPECT_EQ(said.rfind("kernel.apparmor_restrict_unprivileged_userns=1 on this host: it forbids the user namespace "
                       "bwrap makes.\nkernel.apparmor_restrict_unprivileged_userns=1 on this host",
                       0),
            0u)
      << said;
  // And here, outside it, this host allows them: the values are said, not a cause.
  EXPECT_EQ(userns_settings_of_this_host().rfind("This host allows unprivileged user namespaces (", 0), 0u)
      << userns_settings_of_this_host();
}

TEST_F(BwrapRuntimeTest, the_configured_canaries_are_tried_after_the_workers_own_listener) {
  ASSERT_FALSE(canary_.address().empty());
  BwrapRuntime bwrap(options());
  auto r = bwrap.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->passed()) << failure_of(*r);
  std::string evidence;
  for (const auto& a : r->agent.assertions) {
    if (a.check == wire::Check::kNoNetwork) evidence = a.evidence;
  }
  // The worker's own listener first (loopback, then the host's address when it has one),
  // the configured canary last; each refused by the sandbox's own loopback or unreachable.
  EXPECT_EQ(evidence.rfind("127.0.0.1:", 0), 0u) << evidence;
  EXPECT_NE(evidence.find(canary_.address() + ": ECONNREFUSED (the sandbox's own loopback)"), std::string::npos)
      << evidence;
  EXPECT_EQ(evidence.substr(evidence.rfind("; ") + 2).rfind(canary_.address(), 0), 0u) << evidence;
}

TEST_F(BwrapRuntimeTest, a_run_that_keeps_the_network_fails_on_no_network) {
  BwrapRuntime bwrap(options());
  BwrapRuntimePeer::keep_network(bwrap);
  auto r = bwrap.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  // The sandbox reached listeners on this machine that it must not reach: the worker's own
  // and the configured one.
  EXPECT_EQ(failure_of(*r).rfind("no_network: ", 0), 0u) << failure_of(*r);
  EXPECT_NE(failure_of(*r).find(canary_.address() + ": connected"), std::string::npos) << failure_of(*r);
}

TEST_F(BwrapRuntimeTest, an_environment_variable_leaked_into_the_sandbox_fails_on_empty_environment) {
  BwrapRuntime bwrap(options());
  BwrapRuntimePeer::leak_env(bwrap, "AWS_SECRET_ACCESS_KEY", "hunter2");
  auto r = bwrap.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r), "empty_environment: unexpected variables: AWS_SECRET_ACCESS_KEY");
}

TEST_F(BwrapRuntimeTest, a_run_whose_work_dir_is_not_writable_fails_on_one_writable_dir) {
  BwrapRuntime bwrap(options());
  BwrapRuntimePeer::work_in_the_root(bwrap);
  auto r = bwrap.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r).rfind("one_writable_dir: / is on / (ro,", 0), 0u) << failure_of(*r);
  EXPECT_NE(failure_of(*r).find("not writable: EROFS"), std::string::npos) << failure_of(*r);
}

TEST_F(BwrapRuntimeTest, a_run_as_root_inside_fails_on_unprivileged) {
  BwrapRuntime bwrap(options());
  BwrapRuntimePeer::root_inside(bwrap);
  auto r = bwrap.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r).rfind("unprivileged: euid 0, CapEff 0000", 0), 0u) << failure_of(*r);
  EXPECT_EQ(failure_of(*r).find("CapEff 0000000000000000"), std::string::npos) << failure_of(*r);
}

TEST_F(BwrapRuntimeTest, a_room_without_a_command_the_scanner_needs_fails_on_commands_exist) {
  BwrapRuntime bwrap(options());
  auto t = target();
  t.commands.push_back("/usr/bin/postmortem");
  auto r = bwrap.probe(t);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r), "commands_exist: missing or not executable: /usr/bin/postmortem");
}

// The agent's own walls, each left out by a test-only agent in the room (agent/walls.h).
struct AgentWall {
  const char* wall;
  const char* evidence;  // how the probe's first failure begins
};

TEST_F(BwrapRuntimeTest, a_room_whose_agent_leaves_out_one_of_its_walls_fails_on_that_wall) {
  for (const AgentWall& w : {AgentWall{"seccomp_filter", "seccomp_filter: Seccomp: 0, Seccomp_filters: 0"},
                             AgentWall{"canary_syscall", "canary_syscall: personality(0xffffffff) returned "},
                             AgentWall{"clone3_enosys", "clone3_enosys: clone3 returned -1 "},
                             AgentWall{"rlimits", "rlimits: RLIMIT_DATA=unlimited (wanted "},
                             AgentWall{"undumpable", "agent_unreachable: the agent (pid 1) is dumpable; "},
                             AgentWall{"landlock", "landlock: the kernel offers Landlock ABI "}}) {
    SCOPED_TRACE(w.wall);
    const std::string room = std::string("without-") + w.wall;
    ASSERT_TRUE(build_room(rooms_, room, "", weakened_agent_bin(w.wall)));
    BwrapRuntime bwrap(options());
    auto r = bwrap.probe(target(room));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(failure_of(*r).rfind(w.evidence, 0), 0u) << failure_of(*r);
  }
}

TEST_F(BwrapRuntimeTest, a_host_whose_hard_nproc_is_below_1024_runs_under_it_and_the_probe_warns) {
  // A worker whose hard RLIMIT_NPROC is 500 (bwrap, and the agent in it, inherit it and may
  // not raise it): in a child process, since this one may not raise it back afterwards. The
  // child reports one line per fact; the assertions are made here.
  const std::string got = in_a_child([&] {
    std::string out;
    rlimit low{500, 500};
    if (::setrlimit(RLIMIT_NPROC, &low) != 0) {
      out = "setrlimit failed\n";
    } else {
      BwrapRuntime bwrap(options());
      auto p = bwrap.probe(target());
      out += "probe: " + (p ? failure_of(*p) : "error " + p.error().message) + "\n";
      for (const auto& a : p ? p->agent.assertions : std::vector<wire::Assertion>{}) {
        if (a.check == wire::Check::kRlimits)
          out += "rlimits: " + std::string(wire::to_string(a.verdict)) + " " + a.evidence + "\n";
      }
      core::RunSpec spec;
      spec.label.scanner = "hostile";
      spec.argv = {"hostile", "nproc"};
      spec.timeout = std::chrono::seconds(20);
      auto run = bwrap.run(spec);
      out += "run: " + (run ? run->stdout_bytes : "error " + run.error().message + "\n");
      for (const auto& l : run ? run->report.rlimits_lowered : std::vector<wire::LoweredRlimit>{}) {
        out += "lowered: " + l.resource + " " + std::to_string(l.asked) + " " + std::to_string(l.applied) + "\n";
      }
    }
    return out;
  });
  // The probe passes, rlimits a warning naming the lowered limit; the run runs under it and
  // its result says so.
  EXPECT_NE(got.find("probe: (passed)\n"), std::string::npos) << got;
  EXPECT_NE(got.find("rlimits: warn "), std::string::npos) << got;
  EXPECT_NE(got.find("RLIMIT_NPROC=500 (lowered from 1024: the host's hard limit)"), std::string::npos) << got;
  EXPECT_NE(got.find("run: RLIMIT_NPROC 500 500\n"), std::string::npos) << got;
  EXPECT_NE(got.find("lowered: RLIMIT_NPROC 1024 500\n"), std::string::npos) << got;
}

// A kernel without Landlock, as this one looks from a process whose filter answers the
// landlock_* calls with ENOSYS (what a kernel built without it answers), inherited by bwrap,
// the agent and the scanner: the probe warns and names what is lost, the run still runs, and
// [worker.sandbox] require_landlock makes the warning a refusal. In a child, since a filter
// cannot be taken off again.
TEST_F(BwrapRuntimeTest, on_a_kernel_without_landlock_the_probe_warns_and_require_landlock_refuses) {
  const std::vector<agent::SyscallRule> no_landlock = {
      {"landlock_create_ruleset", 444, agent::Deny::kEnosys, std::nullopt, "a kernel without Landlock"},
      {"landlock_add_rule", 445, agent::Deny::kEnosys, std::nullopt, "a kernel without Landlock"},
      {"landlock_restrict_self", 446, agent::Deny::kEnosys, std::nullopt, "a kernel without Landlock"}};
  auto prog = agent::compile(no_landlock);
  ASSERT_TRUE(prog) << prog.error();
  const std::string got = in_a_child([&] {
    std::string out;
    const sock_fprog f = prog->fprog();
    const base::WallFailure w = base::apply_walls(base::ChildWalls{.seccomp = &*prog}, &f);
    if (w.stage != base::WallStage::kNone) {
      out = "filter failed\n";
    } else {
      BwrapRuntime bwrap(options());
      auto p = bwrap.probe(target());
      out += "probe: " + (p ? failure_of(*p) : "error " + p.error().message) + "\n";
      for (const auto& a : p ? p->agent.assertions : std::vector<wire::Assertion>{}) {
        if (a.check == wire::Check::kLandlock || a.check == wire::Check::kAgentUnreachable)
          out += std::string(wire::to_string(a.check)) + ": " + std::string(wire::to_string(a.verdict)) + " " +
                 a.evidence + "\n";
      }
      core::RunSpec spec;
      spec.label.scanner = "hostile";
      spec.argv = {"hostile", "connect", "127.0.0.1", "9"};
      spec.timeout = std::chrono::seconds(20);
      auto run = bwrap.run(spec);
      out += "run: " + (run ? run->stdout_bytes : "error " + run.error().message + "\n");
      auto t = target();
      t.require_landlock = true;
      server::WallsProof proof = server::prove_walls(bwrap, {t}, rooms_.string());
      out += "required: " + proof.failure + "\n";
    }
    return out;
  });
  EXPECT_NE(got.find("probe: (passed)\n"), std::string::npos) << got;
  EXPECT_NE(got.find("landlock: warn the kernel has no Landlock (the version query: ENOSYS"), std::string::npos) << got;
  // Undumpable, the agent is still out of the scanner's reach; its signals are not refused.
  EXPECT_NE(got.find("agent_unreachable: pass the agent (pid 1) is undumpable; /proc/1/mem O_RDWR: EACCES"),
            std::string::npos)
      << got;
  // No Landlock network rights: the sandbox's own loopback answers.
  EXPECT_NE(got.find("run: connect ECONNREFUSED\n"), std::string::npos) << got;
  EXPECT_NE(got.find("required: landlock: the kernel has no Landlock"), std::string::npos) << got;
  EXPECT_NE(got.find("(refused: [worker.sandbox] require_landlock = true)"), std::string::npos) << got;
}

TEST_F(BwrapRuntimeTest, an_agent_of_another_wire_version_fails_on_wire_version) {
  ASSERT_TRUE(build_room(rooms_, "old", "", std::string(BATLEHUB_HELPERS_DIR) + "/hostile"));
  BwrapRuntime bwrap(options());
  auto r = bwrap.probe(target("old"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r).rfind("wire_version: ", 0), 0u) << failure_of(*r);
  EXPECT_NE(failure_of(*r).find("the agent answered in 1"), std::string::npos) << failure_of(*r);
}

TEST_F(BwrapRuntimeTest, a_missing_room_is_named) {
  BwrapRuntime bwrap(options());
  auto r = bwrap.probe(target("nowhere"));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->result_at_all);
  EXPECT_EQ(failure_of(*r).rfind("a result at all: no room at ", 0), 0u) << failure_of(*r);
}

TEST_F(BwrapRuntimeTest, a_bwrap_that_starts_nothing_is_reported_as_the_rfc_does) {
  auto o = options();
  o.binary = std::string(BATLEHUB_SOURCE_DIR) + "/tests/adapters/fake-bwrap-denied.sh";
  BwrapRuntime bwrap(o);
  core::RunSpec spec;
  spec.label.scanner = "hostile";
  spec.argv = {"hostile", "exit", "0"};
  auto out = bwrap.run(spec);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kCrashed);
  EXPECT_EQ(out.error().message,
            "the sandbox never started — bwrap exited 1 and no result came back: \"bwrap: setting up uid map: Permission denied\"");
  auto p = bwrap.probe(target());
  ASSERT_TRUE(p);
  EXPECT_EQ(failure_of(*p),
            "a result at all: bwrap exited 1 and no result came back: \"bwrap: setting up uid map: Permission denied\"");
}

// The worker waits for bwrap alone (base::Supervisor::kThisThread): every other process of
// a run must be gone by then, or it is left to whoever reaps the worker's orphans — the
// worker itself when it is a container's pid 1. As a subreaper, this test sees each one.
TEST_F(BwrapRuntimeTest, a_run_leaves_no_process_behind_to_the_callers_reaper) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  BwrapRuntime bwrap(options());
  auto children = [] {
    std::string all;
    for (const auto& t : fs::directory_iterator("/proc/self/task")) {
      all += base::read_small_file(t.path().string() + "/children");
    }
    return all;
  };
  const std::vector<std::vector<std::string>> runs = {
      {"hostile", "exit", "0", "ok"}, {"hostile", "daemon-exit", "x"}, {"hostile", "hang"}};
  for (const auto& argv : runs) {
    for (int i = 0; i < 5; ++i) {
      core::RunSpec spec;
      spec.label.scanner = "hostile";
      spec.argv = argv;
      spec.timeout = std::chrono::milliseconds(300);
      auto out = bwrap.run(spec);
      if (argv[1] != "hang") {
        ASSERT_TRUE(out) << out.error().message;
      }
      EXPECT_EQ(children(), "") << argv[1] << ": a process of the run was left to this subreaper";
      EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << argv[1];
    }
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST_F(BwrapRuntimeTest, a_scanner_killed_by_a_signal_is_crashed_and_a_timeout_is_a_timeout) {
  BwrapRuntime bwrap(options());
  core::RunSpec spec;
  spec.label.scanner = "hostile";
  spec.argv = {"hostile", "hang"};
  spec.timeout = std::chrono::milliseconds(500);
  auto out = bwrap.run(spec);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kRunTimeout) << out.error().message;
  EXPECT_EQ(core::to_scanner_error(out.error()).kind, core::ScannerError::Kind::kTimeout);
}

}  // namespace
}  // namespace batlehub::adapters
