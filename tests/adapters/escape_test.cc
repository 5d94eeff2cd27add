// Escape attempts, run as the scanner under each sandbox runtime — bwrap, and oci on podman
// and on docker (issue 12: the escape tests on each engine): each one fails or is stopped,
// asserted from what the program reports and from the host afterwards.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <set>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/oci.h"
#include "engines.h"
#include "wire/caps.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

// A runtime the escapes run under: bwrap, or oci on one engine.
struct Runtime {
  const char* name;
  std::optional<TestEngine> engine;  // none: bwrap
};

// What gtest prints for a parameter in its messages: the runtime's name, not its bytes.
void PrintTo(const Runtime& r, std::ostream* os) { *os << r.name; }

class Escape : public ::testing::TestWithParam<Runtime> {
 protected:
  static void TearDownTestSuite() {
    for (const auto& [key, image] : images_) remove_image(image.first, image.second);
    images_.clear();
    rooms_scratch_.reset();
  }

  void SetUp() override {
    const auto engine = GetParam().engine;
    if (auto why = engine ? engine_unavailable(*engine) : bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    if (!rooms_scratch_) {
      auto made = std::make_unique<Scratch>();
      ASSERT_TRUE(build_room(made->root() / "rooms", kRoom));
      // The same room with a test-only agent that leaves walls out (agent/walls.h): what the
      // checks below must fail against, to show that they test the wall.
      for (const char* wall : {"landlock", "undumpable_landlock"}) {
        ASSERT_TRUE(build_room(made->root() / "rooms", without(wall), "", weakened_agent_bin(wall)));
      }
      rooms_scratch_ = std::move(made);
    }
    rooms_ = rooms_scratch_->root() / "rooms";
    if (engine) {
      for (const std::string& room : {std::string(kRoom), without("landlock"), without("undumpable_landlock")}) {
        const std::string key = engine->name + std::string("/") + room;
        if (images_.contains(key)) continue;
        const std::string tag = test_image_tag(room);
        auto failed = import_room_image(*engine, rooms_ / room, tag);
        if (!failed.empty()) remove_image(*engine, tag);
        ASSERT_EQ(failed, "") << "failed: " << failed;
        images_[key] = {*engine, tag};
      }
    }
  }

  static constexpr const char* kRoom = "hostile";
  static std::string without(const std::string& wall) { return std::string(kRoom) + "-without-" + wall; }

  bool under_bwrap() const { return !GetParam().engine; }

  // The runtime, its sandboxes made from `room` (the room, or its image on an engine).
  std::unique_ptr<core::SandboxRuntime> runtime(const std::string& room = kRoom) {
    if (const auto engine = GetParam().engine) {
      return std::make_unique<OciRuntime>(
          test_oci_options(*engine, images_.at(engine->name + std::string("/") + room).second, s_.work()));
    }
    BwrapOptions o;
    o.rooms_dir = rooms_.string();
    o.scratch_dir = s_.work().string();
    return std::make_unique<BwrapRuntime>(o);
  }

  Expected<core::RunOutput, core::SandboxError> run(std::vector<std::string> args,
                                                    std::chrono::milliseconds timeout = std::chrono::seconds(20),
                                                    core::Limits limits = {}, const std::string& room = kRoom) {
    core::RunSpec spec;
    spec.label.scanner = room;
    spec.argv = {"hostile"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.timeout = timeout;
    spec.limits = limits;
    return runtime(room)->run(spec);
  }

  // A word only this test's processes carry on their command line: other tests (run in
  // parallel by ctest) start hostile in the same modes.
  std::string token() const { return s_.root().filename().string(); }

  // Processes on the host still running the hostile program in the given mode, started by
  // this test (their last argument is token()), each as "pid (state, ppid, cgroup)" so that
  // a failure says where the survivor lives. A survivor is one still there after `grace`: a
  // daemon that escaped lives forever, so the bound weakens nothing, and it keeps a slow
  // teardown on a loaded host from reading as an escape. (CI once failed the daemon test on
  // docker under the full suite's load, with only the count printed; now the failure names
  // the process, its state, parent and cgroup.)
  std::vector<std::string> survivors(const std::string& mode,
                                     std::chrono::milliseconds grace = std::chrono::seconds(10)) const {
    const std::string nul(1, '\0');
    const std::string wanted = "hostile" + nul + mode + nul + token() + nul;
    const auto until = std::chrono::steady_clock::now() + grace;
    for (;;) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator("/proc")) {
        std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream f(e.path() / "cmdline");
        std::string cmd((std::istreambuf_iterator<char>(f)), {});
        if (cmd != wanted) continue;
        std::string state, ppid;
        std::ifstream st(e.path() / "status");
        for (std::string line; std::getline(st, line);) {
          if (line.starts_with("State:")) state = line.substr(6);
          if (line.starts_with("PPid:")) ppid = line.substr(5);
        }
        std::ifstream cg(e.path() / "cgroup");
        std::string cgroup((std::istreambuf_iterator<char>(cg)), {});
        found.push_back(name + " (state" + state + ", ppid" + ppid + ", cgroup " + cgroup + ")");
      }
      if (found.empty() || std::chrono::steady_clock::now() >= until) return found;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // What a failed survivors() check prints: the processes, then the test kills them so that a
  // failure leaves nothing running on the machine.
  static std::string listed_and_killed(const std::vector<std::string>& procs) {
    std::string out;
    for (const auto& p : procs) {
      out += "\n  " + p;
      ::kill(std::stoi(p.substr(0, p.find(' '))), SIGKILL);
    }
    return out;
  }

  // The hostile room, and its image on each engine, are made once for the whole suite (the
  // tests only read them), by the first test of a runtime that runs.
  static inline std::unique_ptr<Scratch> rooms_scratch_;
  static inline std::map<std::string, std::pair<TestEngine, std::string>> images_;  // by "engine/room": the tag
  Scratch s_;
  fs::path rooms_;
};

TEST_P(Escape, cannot_connect_to_a_listener_on_the_hosts_loopback) {
  int l = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l, 4), 0);
  socklen_t len = sizeof a;
  ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  auto out = run({"connect", "127.0.0.1", std::to_string(port)});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 1);
  // Landlock's network rights (ABI 4, this kernel has 7) refuse every TCP connect first.
  EXPECT_EQ(out->stdout_bytes, "connect EACCES\n");
  // Without them, the sandbox's own loopback refuses: the host's was not reached either way.
  auto bare = run({"connect", "127.0.0.1", std::to_string(port)}, std::chrono::seconds(20), {}, without("landlock"));
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare->stdout_bytes, "connect ECONNREFUSED\n") << "the sandbox's own loopback refuses";
  // And from the host: nothing ever connected.
  int flags = ::fcntl(l, F_GETFL);
  ::fcntl(l, F_SETFL, flags | O_NONBLOCK);
  EXPECT_LT(::accept(l, nullptr, nullptr), 0);
  EXPECT_EQ(errno, EAGAIN);
  ::close(l);
}

TEST_P(Escape, cannot_read_a_host_file_outside_its_room) {
  Scratch::write(s_.root() / "secret", "the worker's secret");
  auto out = run({"cat", (s_.root() / "secret").string()});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 2);
  EXPECT_EQ(out->stdout_bytes, "");
  EXPECT_NE(out->stderr_tail.find("No such file or directory"), std::string::npos);
  auto passwd = run({"cat", "/etc/passwd"});
  ASSERT_TRUE(passwd);
  // Under podman too: its own /etc/passwd line is turned off (--passwd=false).
  EXPECT_EQ(passwd->status, 2) << passwd->stdout_bytes;
}

// The host's names, its address and its resolver: what an engine would copy into a
// container's /etc (podman's /etc/hosts, docker's /etc/resolv.conf) tells a hostile package
// where it runs. None of it may be there.
TEST_P(Escape, cannot_learn_the_hosts_names_or_its_resolver) {
  std::vector<std::string> secrets;
  for (const char* f : {"/etc/hosts", "/etc/resolv.conf"}) {
    std::istringstream in(Scratch::read(f));
    for (std::string word; in >> word;) {
      // What is the host's own: not the loopback names every /etc/hosts has, nor comments
      // and keywords.
      static const std::set<std::string> common{"localhost", "ip6-localhost", "ip6-loopback", "127.0.0.1", "::1",
                                                "nameserver", "search", "options", "domain", "#"};
      if (word.size() > 2 && !word.starts_with('#') && !word.starts_with("ff0") && !word.starts_with("fe00") &&
          !word.starts_with("ip6-") && !common.contains(word)) {
        secrets.push_back(word);
      }
    }
  }
  std::string hostname = Scratch::read("/proc/sys/kernel/hostname");
  while (!hostname.empty() && hostname.back() == '\n') hostname.pop_back();
  if (!hostname.empty()) secrets.push_back(hostname);
  for (const char* f : {"/etc/hosts", "/etc/resolv.conf", "/etc/hostname"}) {
    auto out = run({"cat", f});
    ASSERT_TRUE(out) << out.error().message;
    for (const auto& word : secrets) {
      EXPECT_EQ(out->stdout_bytes.find(word), std::string::npos) << f << " names the host's " << word << ":\n"
                                                                  << out->stdout_bytes;
    }
  }
}

TEST_P(Escape, cannot_write_to_the_root) {
  auto out = run({"write", "/pwned"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "write EROFS\n");
  // bwrap binds the room itself as /. oci runs an image imported from it, whose container
  // layer (where a write would land without --read-only) goes with the container: there the
  // EROFS is the evidence, and the room is still untouched.
  EXPECT_FALSE(fs::exists(rooms_ / "hostile" / "pwned"));
  auto bin = run({"write", "/usr/bin/hostile"});
  ASSERT_TRUE(bin);
  EXPECT_EQ(bin->stdout_bytes, "write EROFS\n");
}

// The agent is the process that writes the result and the scanner's parent, under the same
// uid: undumpable, its memory, environment and descriptors are the kernel's to refuse
// (EACCES), the seccomp filter refuses ptrace and process_vm_* (EPERM), and Landlock's
// signal scope (ABI 6) refuses signals to it (EPERM).
TEST_P(Escape, cannot_reach_into_the_agent) {
  auto out = run({"agent"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "mem EACCES\nenviron EACCES\nfd EACCES\nattach EPERM\nvm_writev EPERM\nkill EPERM\n");
  // An agent that stays dumpable and puts no Landlock ruleset on its scanner: the scanner
  // writes into its code, reads its environment and signals it (ptrace and process_vm_*
  // stay refused by the filter, a wall of their own).
  auto weak = run({"agent"}, std::chrono::seconds(20), {}, without("undumpable_landlock"));
  ASSERT_TRUE(weak) << weak.error().message;
  EXPECT_EQ(weak->stdout_bytes.rfind("mem wrote 0x", 0), 0u) << weak->stdout_bytes;
  EXPECT_NE(weak->stdout_bytes.find("\nenviron read "), std::string::npos) << weak->stdout_bytes;
  EXPECT_NE(weak->stdout_bytes.find("\nkill delivered\n"), std::string::npos) << weak->stdout_bytes;
  // Undumpable alone (no Landlock) still keeps the memory and the environment out of reach.
  auto undumpable = run({"agent"}, std::chrono::seconds(20), {}, without("landlock"));
  ASSERT_TRUE(undumpable) << undumpable.error().message;
  EXPECT_EQ(undumpable->stdout_bytes.rfind("mem EACCES\nenviron EACCES\nfd EACCES\n", 0), 0u)
      << undumpable->stdout_bytes;
}

// Every mount the scanner sees, and each directory at the top of one: only /work and /tmp
// take a write. Without Landlock, whatever the runtime left writable shows.
TEST_P(Escape, cannot_write_outside_work_and_tmp) {
  auto out = run({"mounts"});
  ASSERT_TRUE(out) << out.error().message;
  RecordProperty("mounts", out->stdout_bytes);
  EXPECT_EQ(written_by_hostile_mounts(out->stdout_bytes), (std::set<std::string>{"/tmp", "/work"}))
      << out->stdout_bytes;
  // The room's root: read-only; and not even listed under Landlock (the room's own entries
  // are granted, "/" itself is not), so its directories are not tried one by one.
  EXPECT_EQ(out->stdout_bytes.rfind("/ EROFS\n", 0), 0u) << out->stdout_bytes;
  auto bare = run({"mounts"}, std::chrono::seconds(20), {}, without("landlock"));
  ASSERT_TRUE(bare) << bare.error().message;
  RecordProperty("mounts_without_landlock", bare->stdout_bytes);
  const std::set<std::string> bare_written = written_by_hostile_mounts(bare->stdout_bytes);
  EXPECT_NE(bare->stdout_bytes.find("\n/usr EROFS\n"), std::string::npos) << bare->stdout_bytes;
  EXPECT_TRUE(bare_written.contains("/work") && bare_written.contains("/tmp")) << bare->stdout_bytes;
  // Without Landlock the runtime's own mounts are what is left: no directory but /work and
  // /tmp (bwrap's /dev read-only, no podman /run or /var/tmp, no /dev/shm), and on oci the
  // one file the agent writes in the read-only bundle, which RLIMIT_FSIZE bounds. (An
  // engine's /dev/mqueue holds message queues, bounded by RLIMIT_MSGQUEUE, not files.)
  std::set<std::string> expected{"/tmp", "/work"};
  if (!under_bwrap()) expected.insert("/bundle/out.tar");
  std::set<std::string> storage = bare_written;
  storage.erase("/dev/mqueue");
  EXPECT_EQ(storage, expected) << bare->stdout_bytes;
  if (!under_bwrap()) {
    EXPECT_NE(bare->stdout_bytes.find("\n/bundle EROFS\n"), std::string::npos) << bare->stdout_bytes;
  }
}

// The bundle on oci is the host's disk: read-only to the container but for out.tar, which
// Landlock keeps from the scanner; without Landlock, RLIMIT_FSIZE holds that one file to the
// extraction budget. On every runtime no file the scanner writes grows past it.
TEST_P(Escape, cannot_fill_the_bundle_or_grow_a_file_past_the_extraction_budget) {
  core::Limits l;
  l.max_extracted_mb = 16;
  if (!under_bwrap()) {
    auto out = run({"fill", "/bundle/out.tar", "64"}, std::chrono::seconds(20), l);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->stdout_bytes, "fill open EACCES\n");
    auto other = run({"fill", "/bundle/more", "64"}, std::chrono::seconds(20), l);
    ASSERT_TRUE(other) << other.error().message;
    EXPECT_EQ(other->stdout_bytes, "fill open EROFS\n");
    auto read = run({"cat", "/bundle/manifest.json"}, std::chrono::seconds(20), l);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->stdout_bytes, "") << "the bundle is not the scanner's room";
    EXPECT_NE(read->stderr_tail.find("Permission denied"), std::string::npos) << read->stderr_tail;
    // Without Landlock the scanner writes out.tar, and stops at RLIMIT_FSIZE; the agent then
    // writes its result over whatever is there.
    auto bare = run({"fill", "/bundle/out.tar", "64"}, std::chrono::seconds(20), l, without("landlock"));
    ASSERT_TRUE(bare) << bare.error().message;
    EXPECT_EQ(bare->stdout_bytes, "fill stopped at 16 MiB: EFBIG\n");
  } else {
    // bwrap's /work is the run dir, charged to the run's cgroup rather than sized: RLIMIT_FSIZE
    // is what stops one file.
    auto out = run({"fill", "/work/big", "64"}, std::chrono::seconds(20), l);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->stdout_bytes, "fill stopped at 16 MiB: EFBIG\n");
  }
}

TEST_P(Escape, cannot_ptrace_mount_or_unshare) {
  auto out = run({"syscalls"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 3);
  EXPECT_EQ(out->stdout_bytes, "ptrace -1 EPERM\nunshare -1 EPERM\nmount -1 EPERM\nkeyctl -1 EPERM\nclone3 -1 ENOSYS\n");
}

TEST_P(Escape, cannot_read_a_variable_from_the_workers_environment) {
  ::setenv("BATLEHUB_ESCAPE_TEST_SECRET", "hunter2", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "hunter3", 1);
  auto out = run({"env"});
  ::unsetenv("BATLEHUB_ESCAPE_TEST_SECRET");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "HOME=/work\nPATH=/usr/local/bin:/usr/bin:/bin\n");
}

TEST_P(Escape, a_fork_bomb_is_stopped) {
  // The run's cgroup stops it at pids.max, for the whole run — bwrap's run cgroup, the
  // engine's --pids-limit under oci, both kRunPidsMax — (RLIMIT_NPROC, per uid in the
  // sandbox's user namespace, is the backstop at 1,024), and the agent kills the children
  // it left.
  auto out = run({"forkbomb", token()}, std::chrono::seconds(20));
  ASSERT_TRUE(out) << out.error().message;
  // The sandbox's own processes count too: the agent, and under bwrap, bwrap itself (an
  // engine's conmon or shim stays outside the container's cgroup).
  ASSERT_EQ(out->stdout_bytes.rfind("fork failed after ", 0), 0u) << out->stdout_bytes;
  long forked = std::stol(out->stdout_bytes.substr(18));
  RecordProperty("forked", static_cast<int>(forked));
  EXPECT_LT(forked, static_cast<long>(wire::kRunPidsMax));
  EXPECT_GT(forked, static_cast<long>(wire::kRunPidsMax) - 16);
  EXPECT_TRUE(out->stdout_bytes.ends_with(": EAGAIN\n")) << out->stdout_bytes;
  const auto left = survivors("forkbomb");
  EXPECT_TRUE(left.empty()) << "fork-bomb processes outlived the run:" << listed_and_killed(left);
}

TEST_P(Escape, cannot_allocate_past_the_memory_limit) {
  core::Limits l;
  l.memory_limit_mb = 64;
  auto out = run({"alloc", "256"}, std::chrono::seconds(20), l);
  if (under_bwrap()) {
    // bwrap's run cgroup holds memory_limit_mb + max_extracted_mb (its /work counts), so the
    // agent's RLIMIT_DATA of memory_limit_mb is reached first: the allocation fails.
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->status, 1);
    EXPECT_EQ(out->stdout_bytes.rfind("alloc failed at ", 0), 0u) << out->stdout_bytes;
  } else if (!out) {
    // oci's --memory is memory_limit_mb for the whole container — the agent, the scanner and
    // the tmpfs /work and /tmp — the same bound as RLIMIT_DATA, which counts the scanner's
    // own mappings alone. Which is reached first depends on how much the agent holds: with
    // a keeper process and OpenSSL in it the container cgroup's OOM killer ended the scanner
    // with SIGKILL just before RLIMIT_DATA failed its malloc (the kernel logs "Memory cgroup
    // out of memory: Killed process … (hostile)"). The agent, pid 1, survives and counts
    // the kill in its cgroup: the run is out of memory, not a crash of unknown cause.
    EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kOutOfMemory) << out.error().message;
    EXPECT_EQ(out.error().message,
              "the kernel's OOM killer ended 1 process(es) of the hostile run: it reached its sandbox's memory bound");
  } else {
    // … and with the agent its own keeper on mbedTLS (4 MB, one process less) RLIMIT_DATA
    // fails the malloc first, as under bwrap. Either way nothing got past 64 MiB.
    EXPECT_EQ(out->status, 1);
    ASSERT_EQ(out->stdout_bytes.rfind("alloc failed at ", 0), 0u) << out->stdout_bytes;
    EXPECT_LE(std::stol(out->stdout_bytes.substr(16)), 64) << out->stdout_bytes;
  }
  auto fits = run({"alloc", "16"}, std::chrono::seconds(20), l);
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->stdout_bytes, "allocated\n");
}

// Children each under RLIMIT_DATA, together far over the sandbox's memory: the bound of the
// whole sandbox (bwrap's run cgroup, the container's --memory) stops them, and the run says
// it was out of memory rather than a crash of unknown cause.
TEST_P(Escape, cannot_allocate_past_the_memory_limit_in_many_processes) {
  core::Limits l;
  l.memory_limit_mb = 64;
  l.max_extracted_mb = 16;
  auto out = run({"forkalloc", "8", "40"}, std::chrono::seconds(30), l);
  ASSERT_FALSE(out) << "the run answered: " << out->stdout_bytes;
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kOutOfMemory) << out.error().message;
  EXPECT_NE(out.error().message.find("the kernel's OOM killer ended "), std::string::npos) << out.error().message;
}

TEST_P(Escape, cannot_spin_past_cpu_seconds) {
  core::Limits l;
  l.cpu_seconds = 1;
  auto out = run({"spin"}, std::chrono::seconds(30), l);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kCrashed) << out.error().message;
  EXPECT_NE(out.error().message.find("killed by signal"), std::string::npos) << out.error().message;
  EXPECT_LT(out.error().message.find("signal 9"), std::string::npos);
}

TEST_P(Escape, cannot_leave_a_daemonised_child_behind) {
  auto out = run({"daemon-exit", token()});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "left a daemon\n");
  const auto after_exit = survivors("daemon-exit");
  EXPECT_TRUE(after_exit.empty()) << "the daemon outlived the run:" << listed_and_killed(after_exit);
  auto timed = run({"daemon", token()}, std::chrono::seconds(1));
  ASSERT_FALSE(timed) << "the run of a hanging program answered: " << timed->stdout_bytes;
  const auto after_timeout = survivors("daemon");
  EXPECT_TRUE(after_timeout.empty()) << "the daemon outlived the timeout:"
                                     << listed_and_killed(after_timeout);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, Escape,
                         ::testing::Values(Runtime{"bwrap", std::nullopt}, Runtime{"podman", kPodman},
                                           Runtime{"docker", kDocker}, Runtime{"docker_remap", kDockerRemap}),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace batlehub::adapters
