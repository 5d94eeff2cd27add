// bwrap_argv as data: upstream's test with the two assertions RFC 0022 changes (the root
// is the scanner's room, the command is the agent) and every other flag asserted still.
#include <gtest/gtest.h>

#include <algorithm>

#include "adapters/sandbox/bwrap.h"

namespace batlehub::adapters {
namespace {

BwrapArgvInput input(bool network) {
  return BwrapArgvInput{"bwrap", "/opt/sandbox/postmortem", "/tmp/batlehub-job-1", network};
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<std::string> after(const std::vector<std::string>& v, const std::string& flag, std::size_t n) {
  auto it = std::find(v.begin(), v.end(), flag);
  if (it == v.end() || static_cast<std::size_t>(v.end() - it) <= n) return {};
  return {it + 1, it + 1 + static_cast<std::ptrdiff_t>(n)};
}

TEST(BwrapArgv, the_bwrap_argv_is_the_sandbox_the_rfc_describes) {
  auto argv = bwrap_argv(input(false));
  EXPECT_EQ(argv[0], "bwrap");
  for (const char* f : {"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
                        "--die-with-parent", "--new-session", "--clearenv"}) {
    EXPECT_TRUE(has(argv, f)) << f;
  }
  // Added here: the agent is the pid namespace's init, so that its end ends the namespace
  // before bwrap's (no bwrap init is left to the worker's reaper).
  EXPECT_TRUE(has(argv, "--as-pid-1"));
  // Changed by RFC 0022: the root is the scanner's own room, not the host's /.
  EXPECT_EQ(after(argv, "--ro-bind", 2), (std::vector<std::string>{"/opt/sandbox/postmortem", "/"}));
  // The work dir is the one writable bind, at /work, and the working directory.
  EXPECT_EQ(after(argv, "--bind", 2), (std::vector<std::string>{"/tmp/batlehub-job-1", "/work"}));
  EXPECT_EQ(after(argv, "--chdir", 1), (std::vector<std::string>{"/work"}));
  EXPECT_EQ(after(argv, "--proc", 1), (std::vector<std::string>{"/proc"}));
  EXPECT_EQ(after(argv, "--dev", 1), (std::vector<std::string>{"/dev"}));
  // Added here: bwrap's /dev tmpfs is the sandbox's to write unless remounted read-only.
  EXPECT_EQ(after(argv, "--remount-ro", 1), (std::vector<std::string>{"/dev"}));
  // Added here: a private, size-bounded /tmp (the room is read-only; Go writes to /tmp).
  EXPECT_EQ(after(argv, "--size", 3), (std::vector<std::string>{"67108864", "--tmpfs", "/tmp"}));
  // Changed by RFC 0022: the command after -- is the agent, passed directly, no shell.
  auto dash = std::find(argv.begin(), argv.end(), "--");
  ASSERT_NE(dash, argv.end());
  std::vector<std::string> cmd(dash + 1, argv.end());
  EXPECT_EQ(cmd, (std::vector<std::string>{"batlehub-sandbox", "--in", "file:///work/manifest.json", "--out",
                                           "file:///work/out.tar"}));
  for (const auto& a : argv) EXPECT_EQ(a.find("sh -c"), std::string::npos) << a;
  // The environment is exactly HOME and PATH.
  std::vector<std::string> setenv;
  for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
    if (argv[i] == "--setenv") setenv.push_back(argv[i + 1] + "=" + argv[i + 2]);
  }
  EXPECT_EQ(setenv, (std::vector<std::string>{"HOME=/work", "PATH=/usr/local/bin:/usr/bin:/bin"}));
  // Added here: uid and gid 65532 inside, as on the image runtimes.
  EXPECT_EQ(after(argv, "--uid", 1), (std::vector<std::string>{"65532"}));
  EXPECT_EQ(after(argv, "--gid", 1), (std::vector<std::string>{"65532"}));
}

TEST(BwrapArgv, a_scanner_that_needs_the_network_keeps_the_namespace) {
  auto argv = bwrap_argv(input(true));
  EXPECT_FALSE(has(argv, "--unshare-net"));
  EXPECT_TRUE(has(argv, "--unshare-pid"));
  EXPECT_TRUE(has(argv, "--unshare-user"));
}

TEST(BwrapArgv, outside_a_run_cgroup_no_cgroup_namespace_and_no_sys) {
  auto argv = bwrap_argv(input(false));
  EXPECT_FALSE(has(argv, "--unshare-cgroup"));
  EXPECT_FALSE(has(argv, "/sys"));
}

TEST(BwrapArgv, a_run_in_its_cgroup_gets_a_cgroup_namespace_but_no_sys) {
  auto in = input(false);
  in.in_run_cgroup = true;
  auto argv = bwrap_argv(in);
  EXPECT_TRUE(has(argv, "--unshare-cgroup"));
  EXPECT_FALSE(has(argv, "/sys")) << "a run has nothing to read in its cgroup; the mounts cost ~1 ms";
}

TEST(BwrapArgv, the_probe_sees_its_cgroup_read_only_under_a_read_only_sys) {
  auto in = input(false);
  in.in_run_cgroup = true;
  in.cgroup_binds = {{"/sys/fs/cgroup/memory/w/run-1-1", "/sys/fs/cgroup/memory"},
                     {"/sys/fs/cgroup/pids/w/run-1-1", "/sys/fs/cgroup/pids"}};
  auto argv = bwrap_argv(in);
  EXPECT_TRUE(has(argv, "--unshare-cgroup"));
  EXPECT_EQ(after(argv, "--tmpfs", 1), (std::vector<std::string>{"/sys"}));
  std::vector<std::vector<std::string>> ro;
  for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
    if (argv[i] == "--ro-bind") ro.push_back({argv[i + 1], argv[i + 2]});
  }
  EXPECT_EQ(ro, (std::vector<std::vector<std::string>>{{"/opt/sandbox/postmortem", "/"},
                                                       {"/sys/fs/cgroup/memory/w/run-1-1", "/sys/fs/cgroup/memory"},
                                                       {"/sys/fs/cgroup/pids/w/run-1-1", "/sys/fs/cgroup/pids"}}));
  // The binds come after the tmpfs that holds them, and /sys is read-only once they are in.
  auto pos = [&](const std::string& s) { return std::find(argv.begin(), argv.end(), s) - argv.begin(); };
  EXPECT_LT(pos("/sys"), pos("/sys/fs/cgroup/memory/w/run-1-1"));
  std::vector<std::string> remounted;
  std::size_t sys_remount = 0;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] != "--remount-ro") continue;
    remounted.push_back(argv[i + 1]);
    if (argv[i + 1] == "/sys") sys_remount = i;
  }
  EXPECT_EQ(remounted, (std::vector<std::string>{"/dev", "/sys"}));
  EXPECT_GT(static_cast<std::ptrdiff_t>(sys_remount), pos("/sys/fs/cgroup/pids/w/run-1-1"));
}

TEST(BwrapArgv, the_binary_comes_from_the_configuration) {
  auto in = input(false);
  in.binary = "/usr/local/bin/bwrap-0.9";
  EXPECT_EQ(bwrap_argv(in)[0], "/usr/local/bin/bwrap-0.9");
}

}  // namespace
}  // namespace batlehub::adapters
