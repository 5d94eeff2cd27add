// `batlehub probe` run as a process: a passing room, a room with a shell, a config error,
// and a host that refuses user namespaces — where the first line must name "a result at
// all" with bwrap's own words, and the exit code must not be 0.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "agent/version.h"
#include "base/kernel_identity.h"
#include "engines.h"
#include "harness.h"
#include "rooms.h"
#include "storage_table.h"

namespace batlehub::testing {

using batlehub::testing::storage_table;
namespace {

struct Ran {
  int status = -1;
  std::vector<std::string> out;
  std::string err;
};

Ran probe(const fs::path& config, std::vector<std::string> env = {}) {
  Scratch s;
  fs::path out = s.root() / "stdout";
  std::string err;
  // stdout goes to a file; run_process captures stderr.
  std::string cmd = std::string(BATLEHUB_BIN) + " probe --config " + config.string() + " > " + out.string();
  env.push_back("PATH=/usr/bin:/bin");
  int rc = run_process({"/bin/sh", "-c", cmd}, s.root(), env, &err);
  return Ran{rc, lines(Scratch::read(out)), err};
}

class ProbeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    fs::create_directories(rooms_);
    ASSERT_TRUE(build_room(rooms_, "hostile"));
  }
  fs::path config(const std::string& room, const std::string& extra = "") {
    fs::path p = s_.root() / ("config-" + room + ".toml");
    // Canaries on this machine only: a loopback port nothing listens on.
    Scratch::write(p, "[worker.sandbox]\nrooms_dir = \"" + rooms_.string() +
                          "\"\nprobe_canaries = [\"127.0.0.1:9\"]\n" + extra + "\n[scanners." + room +
                          "]\ntype = \"postmortem\"\ncommand = \"hostile\"\n" + storage_table(extra));
    return p;
  }
  Scratch s_;
  fs::path rooms_;
};

TEST_F(ProbeCli, passes_for_a_proper_room_and_prints_every_assertion) {
  Ran r = probe(config("hostile"));
  EXPECT_EQ(r.status, 0) << r.err;
  ASSERT_GE(r.out.size(), 17u);
  EXPECT_EQ(r.out[0], "room hostile (runtime bwrap, " + r.out[0].substr(29));
  for (std::size_t i = 1; i <= 16; ++i) EXPECT_EQ(r.out[i].substr(0, 8), "  pass  ") << r.out[i];
  // RFC §1: where the runtime makes its runs, then what this probe opens.
  EXPECT_NE(r.err.find("INFO sandbox: probing runtime \"bwrap\" (rooms in " + rooms_.string() + ", runs under "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; room " + rooms_.string() + "/hostile)\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("INFO sandbox: probe passed in"), std::string::npos) << r.err;
  // RFC §1: the line ends with the agent's version, as the agent inside reported it.
  EXPECT_NE(r.err.find(" command(s) hashed, agent " + std::string(agent::kAgentVersion) + "\n"), std::string::npos)
      << r.err;
  // bwrap's walls are namespaces: the scanner ran on this host's kernel, and both say so.
  const std::string kernel = "the scanner ran on the worker's own kernel, " + base::kernel_identity();
  EXPECT_NE(std::find(r.out.begin(), r.out.end(), "  kernel " + kernel), r.out.end()) << r.out.back();
  EXPECT_NE(r.err.find("INFO sandbox: room hostile: " + kernel), std::string::npos) << r.err;
}

// The network scanners run in the worker and need no room: a file with nothing else leaves
// `batlehub probe` nothing to prove, and it says so, not "user namespaces".
TEST_F(ProbeCli, a_config_of_network_scanners_only_fails_naming_what_to_configure) {
  fs::path p = s_.root() / "network-only.toml";
  fs::create_directories(s_.root() / "no-rooms");
  Scratch::write(p, "[worker.sandbox]\nrooms_dir = \"" + (s_.root() / "no-rooms").string() +
                        "\"\n[scanners.socket]\ntype = \"socket\"\napi_key = \"k\"\n"
                        "api_url = \"http://127.0.0.1:9/socket\"\n" +
                        storage_table());
  Ran r = probe(p);
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_GE(r.out.size(), 2u) << r.err;
  EXPECT_EQ(r.out[0].rfind("no room to probe: no sandboxed scanner is configured", 0), 0u) << r.out[0];
  EXPECT_EQ(r.out[1].rfind("configure a sandboxed scanner ([scanners.NAME] of type guarddog, postmortem", 0), 0u)
      << r.out[1];
  EXPECT_NE(r.out[1].find("osv, mlab, sigstore and socket run in the worker and need no room"), std::string::npos)
      << r.out[1];
}

TEST_F(ProbeCli, a_room_with_a_shell_fails_with_the_assertion_then_the_hint) {
  fs::copy(rooms_ / "hostile", rooms_ / "shelly", fs::copy_options::recursive);
  fs::create_directories(rooms_ / "shelly/bin");
  fs::copy_file(std::string(BATLEHUB_HELPERS_DIR) + "/hostile", rooms_ / "shelly/bin/bash");
  Ran r = probe(config("shelly"));
  EXPECT_EQ(r.status, 1);
  ASSERT_GE(r.out.size(), 2u);
  EXPECT_EQ(r.out[0], "no_shell: found /bin/bash");
  // The hint is about the room, not about namespaces.
  EXPECT_EQ(r.out[1].rfind("the room holds a shell: rebuild it from its definition", 0), 0u) << r.out[1];
  EXPECT_NE(r.err.find("ERROR sandbox: probe failed for runtime \"bwrap\" in room shelly: no_shell: found /bin/bash"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ERROR sandbox: refusing to start — a worker without its sandbox scans nothing"),
            std::string::npos);
}

TEST_F(ProbeCli, a_configuration_error_names_the_file_line_and_key) {
  fs::path p = config("hostile", "runtime = \"firecracker\"");
  Ran r = probe(p);
  EXPECT_EQ(r.status, 2);
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out[0].rfind(p.string() + ":4: worker.sandbox.runtime:", 0), 0u) << r.out[0];
}

// Runs `batlehub probe` where user namespaces are refused: user.max_user_namespaces = 0.
//
// The machine-wide knob (`sysctl -w user.max_user_namespaces=0`) needs CAP_SYS_RESOURCE,
// which root lacks here ("sysctl: permission denied on key"). The knob is per user
// namespace, though: a child namespace whose own limit is 0 refuses every user namespace
// below it, which from bwrap's side is exactly a host that refuses them. The child maps
// uids 0-65535 one to one, so the worker inside is still root and still drops to 65532.
Ran probe_where_user_namespaces_are_refused(const fs::path& config) {
  Scratch s;
  fs::path out = s.root() / "stdout", err = s.root() / "stderr";
  int go[2], ready[2];
  if (::pipe(go) != 0 || ::pipe(ready) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(go[1]);
    ::close(ready[0]);
    if (::unshare(CLONE_NEWUSER) != 0) ::_exit(120);
    char c = 1;
    if (::write(ready[1], &c, 1) != 1 || ::read(go[0], &c, 1) != 1) ::_exit(121);
    if (::setresgid(0, 0, 0) != 0 || ::setresuid(0, 0, 0) != 0) ::_exit(122);
    {
      std::ofstream f("/proc/sys/user/max_user_namespaces");
      f << "0";
      if (!f.flush()) ::_exit(123);
    }
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::string bin = BATLEHUB_BIN, cfg = config.string();
    char* argv[] = {bin.data(), const_cast<char*>("probe"), const_cast<char*>("--config"), cfg.data(), nullptr};
    char* envp[] = {const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
    ::execve(argv[0], argv, envp);
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(ready[1]);
  char c;
  if (::read(ready[0], &c, 1) == 1) {
    std::string proc = "/proc/" + std::to_string(pid);
    std::ofstream(proc + "/uid_map") << "0 0 65536\n";
    std::ofstream(proc + "/setgroups") << "allow";
    std::ofstream(proc + "/gid_map") << "0 0 65536\n";
    ssize_t ignored = ::write(go[1], &c, 1);
    (void)ignored;
  }
  ::close(go[1]);
  ::close(ready[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return Ran{WIFEXITED(st) ? WEXITSTATUS(st) : -1, lines(Scratch::read(out)), Scratch::read(err)};
}

TEST_F(ProbeCli, a_host_that_refuses_user_namespaces_fails_on_a_result_at_all) {
  if (::geteuid() != 0) GTEST_SKIP() << "mapping a user namespace's uids one to one needs root";
  fs::path p = config("hostile");
  Ran r = probe_where_user_namespaces_are_refused(p);
  ASSERT_LT(r.status, 120) << "the refusing namespace could not be set up (status " << r.status << ")";
  EXPECT_EQ(r.status, 1);
  ASSERT_GE(r.out.size(), 2u) << r.err;
  std::cout << "  batlehub probe said: " << r.out[0] << "\n";
  EXPECT_EQ(r.out[0].rfind("a result at all: bwrap exited 1 and no result came back: \"bwrap: ", 0), 0u) << r.out[0];
  // RFC §1's third line: what this host's own settings say, read where the worker runs.
  EXPECT_EQ(r.out[1].rfind("user.max_user_namespaces=0 on this host: it forbids the user namespace bwrap makes. "
                           "bwrap needs unprivileged user namespaces",
                           0),
            0u)
      << r.out[1];
  EXPECT_NE(r.err.find("ERROR sandbox: probe failed for runtime \"bwrap\" in room hostile: a result at all"),
            std::string::npos)
      << r.err;
  // Outside that namespace nothing changed: the same probe passes.
  EXPECT_EQ(probe(p).status, 0);
}

// Runs `batlehub probe` where the worker can see no cgroup: in a mount namespace of its own
// whose /sys/fs/cgroup is an empty tmpfs — a host (or a container) that mounts none for
// it. The machine's own cgroups are not touched.
Ran probe_where_no_cgroup_is_mounted(const fs::path& config) {
  Scratch s;
  fs::path out = s.root() / "stdout";
  std::string inner = "mount -t tmpfs -o ro,size=4k none /sys/fs/cgroup && exec " + std::string(BATLEHUB_BIN) +
                      " probe --config " + config.string();
  std::string cmd = "unshare --mount --propagation private /bin/sh -c '" + inner + "' > " + out.string();
  std::string err;
  int rc = run_process({"/bin/sh", "-c", cmd}, s.root(), {"PATH=/usr/bin:/bin"}, &err);
  return Ran{rc, lines(Scratch::read(out)), err};
}

TEST_F(ProbeCli, a_worker_that_can_make_no_cgroup_fails_on_memory_bounded) {
  if (::geteuid() != 0) GTEST_SKIP() << "a mount namespace of the test's own needs root";
  Ran r = probe_where_no_cgroup_is_mounted(config("hostile"));
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_GE(r.out.size(), 2u) << r.err;
  std::cout << "  batlehub probe said: " << r.out[0] << "\n";
  EXPECT_EQ(r.out[0].rfind("memory_bounded: no memory cgroup is visible from inside", 0), 0u) << r.out[0];
  // The worker's mountinfo still lists the hidden hierarchies: what it says is that they are
  // not reachable.
  EXPECT_NE(r.out[0].find("the run is bounded per process only — the runtime could make no cgroup for the run: "
                          "/sys/fs/cgroup/"),
            std::string::npos)
      << r.out[0];
  EXPECT_NE(r.out[0].find("is in /proc/self/mountinfo but is no cgroup filesystem from here (another mount hides it)"),
            std::string::npos)
      << r.out[0];
  EXPECT_NE(r.out[1].find("to bound each run as a whole the worker needs a cgroup"), std::string::npos) << r.out[1];
  bool pids_failed = false;
  for (const auto& l : r.out) pids_failed = pids_failed || l.rfind("  FAIL  pids_bounded ", 0) == 0;
  EXPECT_TRUE(pids_failed) << "pids_bounded is reported too";
}

TEST_F(ProbeCli, an_operator_who_accepts_per_process_limits_gets_a_warning_and_a_pass) {
  if (::geteuid() != 0) GTEST_SKIP() << "a mount namespace of the test's own needs root";
  Ran r = probe_where_no_cgroup_is_mounted(config("hostile", "accept_per_process_limits = true"));
  EXPECT_EQ(r.status, 0) << r.err;
  bool warned = false;
  for (const auto& l : r.out) warned = warned || l.rfind("  warn  memory_bounded ", 0) == 0;
  EXPECT_TRUE(warned) << r.err;
  EXPECT_NE(r.err.find("(accepted: [worker.sandbox] accept_per_process_limits = true)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("memory and processes bounded per process only"), std::string::npos) << r.err;
  // Where cgroups are seen, the same probe proves the bounds.
  Ran normal = probe(config("hostile"));
  EXPECT_EQ(normal.status, 0) << normal.err;
  EXPECT_NE(normal.err.find("memory and processes bounded as a whole"), std::string::npos) << normal.err;
}

// --- the oci runtime, on podman ------------------------------------------------------------

// The hostile room imported into podman under `tags`, removed with the test.
class ProbeCliOci {
 public:
  ProbeCliOci(const fs::path& room, std::vector<std::string> tags) : tags_(std::move(tags)) {
    for (const auto& t : tags_) failed_ += import_room_image(kPodman, room, t);
  }
  ~ProbeCliOci() {
    for (const auto& t : tags_) remove_image(kPodman, t);
  }
  const std::string& failed() const { return failed_; }

 private:
  std::vector<std::string> tags_;
  std::string failed_;
};

std::vector<std::string> room_lines(const Ran& r) {
  std::vector<std::string> out;
  for (const auto& l : r.out) {
    if (l.starts_with("room ")) out.push_back(l.substr(0, l.find(" (")));
  }
  return out;
}

TEST_F(ProbeCli, on_oci_each_distinct_image_is_probed_once_for_all_the_scanners_it_holds) {
  if (auto why = engine_unavailable(kPodman); !why.empty()) GTEST_SKIP() << why;
  const std::string shared = test_image_tag("hostile"), own = test_image_tag("hostile-own");
  ProbeCliOci images(rooms_ / "hostile", {shared, own});
  ASSERT_EQ(images.failed(), "");
  fs::path cfg = s_.root() / "oci.toml";
  std::string scanners;
  for (const char* name : {"first", "second", "third"}) {
    scanners += std::string("\n[scanners.") + name + "]\ntype = \"postmortem\"\ncommand = \"hostile\"\n";
    if (std::string(name) == "third") scanners += "image = \"" + own + "\"\n";
  }
  Scratch::write(cfg,
                 "[worker.sandbox]\nruntime = \"oci\"\nmax_extracted_mb = 256\nprobe_canaries = [\"127.0.0.1:9\"]\n"
                 "[worker.sandbox.oci]\nengine = \"podman\"\nimage = \"" +
                     shared + "\"\n" + scanners + storage_table());
  Ran r = probe(cfg);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(room_lines(r), (std::vector<std::string>{"room first+second", "room third"}));
  EXPECT_NE(r.err.find("INFO sandbox: probing runtime \"oci\" (podman, network none, bundles bound from "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; image " + shared + ", for first+second)\n"), std::string::npos) << r.err;
  // The bare command, found by the agent on the image's PATH, hashed once per image.
  EXPECT_EQ(std::count_if(r.out.begin(), r.out.end(),
                          [](const std::string& l) {
                            return l.starts_with("  sha256 ") && l.find("  /usr/bin/hostile (") != std::string::npos;
                          }),
            2);
}

TEST_F(ProbeCli, on_oci_with_no_image_configured_the_workers_own_image_is_probed) {
  if (auto why = engine_unavailable(kPodman); !why.empty()) GTEST_SKIP() << why;
  const std::string own = test_image_tag("hostile-worker");
  ProbeCliOci images(rooms_ / "hostile", {own});
  ASSERT_EQ(images.failed(), "");
  fs::path cfg = s_.root() / "oci.toml";
  Scratch::write(cfg,
                 "[worker.sandbox]\nruntime = \"oci\"\nmax_extracted_mb = 256\nprobe_canaries = [\"127.0.0.1:9\"]\n"
                 "[worker.sandbox.oci]\nengine = \"podman\"\n"
                 "[scanners.hostile]\ntype = \"postmortem\"\ncommand = \"hostile\"\n" +
                     storage_table());
  // Without BATLEHUB_IMAGE there is nothing to run from: refused before any container.
  Ran none = probe(cfg);
  EXPECT_NE(none.status, 0);
  ASSERT_FALSE(none.out.empty());
  EXPECT_NE(none.out[0].find("has no image to run from under runtime 'oci'"), std::string::npos) << none.out[0];
  // With it (RFC 0022 §4.2: the image the worker was started from), that image is proven.
  Ran r = probe(cfg, {"BATLEHUB_IMAGE=" + own});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(room_lines(r), std::vector<std::string>{"room hostile"});
  EXPECT_NE(r.err.find("; image " + own + ", for hostile)"), std::string::npos) << r.err;
}

// RFC 0022 §4.2 falls back to the worker's own image, and §10 has the probe refuse a room
// that holds batlehub: an image that carries the worker next to the agent is refused, so
// the fallback serves only an image made like a room (every scanner, the agent, no
// batlehub). The refusal wins: fail closed.
TEST_F(ProbeCli, on_oci_an_image_that_holds_batlehub_itself_fails_no_shell) {
  if (auto why = engine_unavailable(kPodman); !why.empty()) GTEST_SKIP() << why;
  fs::copy(rooms_ / "hostile", rooms_ / "worker-like", fs::copy_options::recursive);
  fs::copy_file(BATLEHUB_BIN, rooms_ / "worker-like/usr/local/bin/batlehub");
  // scripts/build-image.py refuses such a room; an operator's own Containerfile would not.
  const std::string own = test_image_tag("worker-like");
  const std::string import = "tar -C " + (rooms_ / "worker-like").string() +
                             " -c . | podman import --change 'USER 65532:65532' - " + own + " >/dev/null";
  ASSERT_EQ(std::system(import.c_str()), 0) << import;
  struct Remove {
    std::string tag;
    ~Remove() { remove_image(kPodman, tag); }
  } remove{own};
  fs::path cfg = s_.root() / "oci.toml";
  Scratch::write(cfg,
                 "[worker.sandbox]\nruntime = \"oci\"\nmax_extracted_mb = 256\nprobe_canaries = [\"127.0.0.1:9\"]\n"
                 "[worker.sandbox.oci]\nengine = \"podman\"\n"
                 "[scanners.hostile]\ntype = \"postmortem\"\ncommand = \"hostile\"\n" +
                     storage_table());
  Ran r = probe(cfg, {"BATLEHUB_IMAGE=" + own});
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out[0], "no_shell: found /usr/local/bin/batlehub");
}

}  // namespace
}  // namespace batlehub::testing
