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
  // Changed by RFC 0022: the root is the scanner's own room, not the host's /.
  EXPECT_EQ(after(argv, "--ro-bind", 2), (std::vector<std::string>{"/opt/sandbox/postmortem", "/"}));
  // The work dir is the one writable bind, at /work, and the working directory.
  EXPECT_EQ(after(argv, "--bind", 2), (std::vector<std::string>{"/tmp/batlehub-job-1", "/work"}));
  EXPECT_EQ(after(argv, "--chdir", 1), (std::vector<std::string>{"/work"}));
  EXPECT_EQ(after(argv, "--proc", 1), (std::vector<std::string>{"/proc"}));
  EXPECT_EQ(after(argv, "--dev", 1), (std::vector<std::string>{"/dev"}));
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

TEST(BwrapArgv, the_binary_comes_from_the_configuration) {
  auto in = input(false);
  in.binary = "/usr/local/bin/bwrap-0.9";
  EXPECT_EQ(bwrap_argv(in)[0], "/usr/local/bin/bwrap-0.9");
}

}  // namespace
}  // namespace batlehub::adapters
