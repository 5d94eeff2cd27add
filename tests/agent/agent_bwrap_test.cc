// The static agent under real bwrap, in a room that holds nothing but itself, a static
// test scanner and the mount points bwrap needs: no libc, no loader, no shell.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "base/kernel_identity.h"
#include "harness.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;

bool have_bwrap() { return ::access("/usr/bin/bwrap", X_OK) == 0; }

class AgentInBwrap : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!BATLEHUB_AGENT_STATIC) {
      GTEST_SKIP() << "this build links the agent dynamically (sanitizers cannot link statically); "
                      "the empty-room test runs in the release build";
    }
    if (!have_bwrap()) GTEST_SKIP() << "bwrap is not installed (scripts/install-deps.sh installs bubblewrap)";
    room_ = s_.root() / "room";
    for (const char* d : {"proc", "dev", "work", "tmp", "usr/bin", "usr/local/bin"}) fs::create_directories(room_ / d);
    fs::copy_file(BATLEHUB_AGENT_BIN, room_ / "usr/local/bin/batlehub-sandbox");
    fs::copy_file(hostile(), room_ / "usr/bin/hostile");
  }

  // Upstream's bwrap flags, with the room as the root and the agent as the command.
  Outcome run(const wire::Manifest& m, std::vector<std::string> extra = {}) {
    Scratch::write(s_.work() / "manifest.json", wire::serialize(m));
    std::vector<std::string> argv = {"/usr/bin/bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc",
                                     "--unshare-uts", "--unshare-net", "--die-with-parent", "--new-session"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const std::string room = room_.string(), work = s_.work().string();
    for (const char* a : {"--ro-bind", room.c_str(), "/", "--proc", "/proc", "--dev", "/dev", "--bind", work.c_str(), "/work", "--chdir", "/work", "--clearenv", "--setenv", "HOME", "/work",
                          "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--", "/usr/local/bin/batlehub-sandbox",
                          "--in", "file:///work/manifest.json", "--out", "file:///work/out.tar"}) {
      argv.emplace_back(a);
    }
    std::string err;
    int rc = run_process(argv, s_.work(), {"PATH=/usr/bin:/bin", "AWS_SECRET_ACCESS_KEY=leaked"}, &err);
    Outcome o = read_outcome(s_.work() / "out.tar", rc);
    if (!o.have_result) o.error += " (bwrap exit " + std::to_string(rc) + ": " + err + ")";
    return o;
  }

  Scratch s_;
  fs::path room_;
};

TEST_F(AgentInBwrap, runs_a_scan_in_a_room_holding_only_itself_and_the_scanner) {
  Outcome o = run(scan_manifest({"hostile", "env"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.exit_status, 0);
  EXPECT_EQ(o.result.exit_code, 0) << o.result.stderr_tail;
  std::vector<std::string> want = {"HOME=/work", "PATH=/usr/local/bin:/usr/bin:/bin"};
  EXPECT_EQ(lines(o.stdout_bytes), want);
}

TEST_F(AgentInBwrap, the_filter_holds_inside_bwrap_too) {
  Outcome o = run(scan_manifest({"hostile", "syscalls"}));
  ASSERT_TRUE(o.have_result) << o.error;
  std::vector<std::string> want = {"ptrace -1 EPERM", "unshare -1 EPERM", "mount -1 EPERM", "keyctl -1 EPERM",
                                   "clone3 -1 ENOSYS"};
  EXPECT_EQ(lines(o.stdout_bytes), want);
}

TEST_F(AgentInBwrap, nothing_of_the_host_is_in_the_room) {
  Outcome o = run(scan_manifest({"hostile", "cat", "/etc/passwd"}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_EQ(o.result.exit_code, 2);
  EXPECT_NE(o.result.stderr_tail.find("No such file or directory"), std::string::npos);
}

TEST_F(AgentInBwrap, the_probe_passes_from_inside_a_proper_room) {
  // A listener on the host's loopback: reachable from the host, never from the room.
  int l = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l, 1), 0);
  socklen_t len = sizeof a;
  ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
  std::string canary = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));

  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.timeout_ms = 10'000;
  m.limits = {512, 30};
  m.probe = wire::ProbeSpec{{canary}, {"/usr/bin/hostile"}};
  Outcome o = run(m, {"--uid", "65532", "--gid", "65532"});
  ::close(l);
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.probe);
  for (const auto& as : o.result.probe->assertions) {
    if (as.check == wire::Check::kMemoryBounded || as.check == wire::Check::kPidsBounded) {
      // A bare bwrap puts the run in no cgroup of its own: the agent sees none from inside
      // and says the run is bounded per process only (the runtime's cgroup is tested in
      // tests/adapters).
      EXPECT_EQ(as.verdict, wire::AssertionVerdict::kFail) << as.evidence;
      EXPECT_NE(as.evidence.find("cgroup is visible from inside"), std::string::npos) << as.evidence;
      EXPECT_NE(as.evidence.find("bounded per process only"), std::string::npos) << as.evidence;
      continue;
    }
    EXPECT_EQ(as.verdict, wire::AssertionVerdict::kPass) << wire::to_string(as.check) << ": " << as.evidence;
  }
  ASSERT_EQ(o.result.probe->commands.size(), 1u);
  EXPECT_EQ(o.result.probe->commands[0].path, "/usr/bin/hostile");
  // bwrap's walls are namespaces on the host's kernel: the agent inside says the same uname.
  EXPECT_EQ(o.result.probe->kernel, batlehub::base::kernel_identity());
}

TEST_F(AgentInBwrap, a_room_with_a_shell_fails_the_probe_on_that_assertion) {
  fs::copy_file(hostile(), room_ / "usr/bin/sh");
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.timeout_ms = 10'000;
  m.probe = wire::ProbeSpec{{}, {}};
  Outcome o = run(m, {"--uid", "65532", "--gid", "65532"});
  ASSERT_TRUE(o.have_result) << o.error;
  ASSERT_TRUE(o.result.probe);
  for (const auto& as : o.result.probe->assertions) {
    if (as.check == wire::Check::kNoShell) {
      EXPECT_EQ(as.verdict, wire::AssertionVerdict::kFail);
      EXPECT_NE(as.evidence.find("/usr/bin/sh"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace batlehub::agent
