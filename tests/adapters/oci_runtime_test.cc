// The oci runtime for real, on podman and on docker: an image built from a room
// (scripts/build-image.py, the same tree bwrap binds), a run that gives what `none` and
// bwrap give, the probe passing and failing no_network when extra_args put the container on
// the host's network, a timeout that leaves no container, and a worker killed with -9 whose
// container the next runtime's sweep removes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/none.h"
#include "adapters/sandbox/oci.h"
#include "archive_builder.h"
#include "rooms.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

struct Engine {
  OciEngineKind kind;
  const char* name;
};

// The engine CLI's environment in these tests: the docker peer's socket (tests/oci_fixture.cmake).
std::vector<std::string> engine_env(OciEngineKind k) {
  std::vector<std::string> env{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  if (k == OciEngineKind::kDocker) {
    const char* h = std::getenv("BATLEHUB_TEST_DOCKER_HOST");
    if (h) env.push_back(std::string("DOCKER_HOST=") + h);
  }
  return env;
}

std::string env_prefix(OciEngineKind k) {
  std::string p;
  for (const auto& kv : engine_env(k)) p += kv + " ";
  return "env -i " + p;
}

// `<engine> <args>`'s stdout, or nullopt when it failed.
std::optional<std::string> engine_out(OciEngineKind k, const std::string& args) {
  std::string cmd = env_prefix(k) + (k == OciEngineKind::kPodman ? "podman " : "docker ") + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

// Why this engine cannot be tested here, or "" when it can.
std::string engine_unavailable(OciEngineKind k) {
  if (!BATLEHUB_AGENT_STATIC) {
    return "this build links the agent dynamically (sanitizers cannot link statically), and an image FROM scratch "
           "needs the static agent; the oci runtime tests run in the release build";
  }
  if (k == OciEngineKind::kDocker && !std::getenv("BATLEHUB_TEST_DOCKER_HOST")) {
    return "no docker peer: BATLEHUB_TEST_DOCKER_HOST is unset (tests/oci_fixture.cmake starts dockerd)";
  }
  if (!engine_out(k, "version")) {
    return std::string(k == OciEngineKind::kPodman ? "podman" : "docker") +
           " does not answer `version` (scripts/install-deps.sh installs and configures both engines)";
  }
  return "";
}

class OciRuntimeTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(GetParam().kind); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    fs::create_directories(rooms_);
    ASSERT_TRUE(build_room(rooms_, "hostile"));
    image_ = "localhost/batlehub-test-hostile:" + std::to_string(::getpid());
    std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-image.py --room " +
                      (rooms_ / "hostile").string() + " --engine " + GetParam().name + " --tag " + image_;
    if (const char* h = std::getenv("BATLEHUB_TEST_DOCKER_HOST"); h && GetParam().kind == OciEngineKind::kDocker) {
      cmd += std::string(" --docker-host ") + h;
    }
    ASSERT_EQ(std::system((cmd + " >/dev/null").c_str()), 0) << cmd;
  }
  void TearDown() override {
    if (!image_.empty()) engine_out(GetParam().kind, "rmi -f " + image_);
  }

  OciOptions options() {
    OciOptions o;
    o.engine = GetParam().kind;
    o.binary = GetParam().name;
    o.default_image = image_;
    o.scratch_dir = s_.work().string();
    o.start_timeout = std::chrono::seconds(60);
    o.engine_env = engine_env(GetParam().kind);
    return o;
  }

  core::ProbeTarget target() { return core::ProbeTarget{"hostile", std::nullopt, {"/usr/bin/hostile"}, core::Limits{}}; }

  // The names of the containers labelled with this worker label, running or not.
  std::string containers_of(const std::string& worker) {
    return engine_out(GetParam().kind, "ps -a --filter label=io.batlehub.worker=" + worker + " --format '{{.Names}}'")
        .value_or("(ps failed)");
  }

  static std::string failure_of(const core::ProbeReport& r) { return r.first_failure().value_or("(passed)"); }

  Scratch s_;
  fs::path rooms_;
  std::string image_;
};

TEST_P(OciRuntimeTest, a_run_over_a_fixture_archive_gives_the_same_output_as_none_and_bwrap) {
  std::string tgz = make_tgz({dir("package/"), file("package/index.js", "module.exports = 42;\n"),
                              file("package/lib/a.js", "a"), symlink("package/evil", "/etc/passwd")});
  core::RunSpec spec;
  spec.label.scanner = "hostile";
  spec.timeout = std::chrono::seconds(20);
  spec.bundle.entries = {core::BundleEntry::archive(*wire::RelPath::parse("node_modules/x"), memory_blob(tgz, "x.tgz"), true),
                         core::BundleEntry::inline_file(*wire::RelPath::parse("package-lock.json"), "{}")};
  spec.argv = {"hostile", "cat", "node_modules/x/index.js"};
  OciRuntime oci(options());
  auto o = oci.run(spec);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->status, 0);
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(o->report.extract.refused_by_type, 1u);
  if (bwrap_unavailable().empty()) {
    BwrapOptions bo;
    bo.rooms_dir = rooms_.string();
    bo.scratch_dir = s_.work().string();
    auto b = BwrapRuntime(bo).run(spec);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(o->status, b->status);
    EXPECT_EQ(o->stdout_bytes, b->stdout_bytes);
    EXPECT_EQ(o->stderr_tail, b->stderr_tail);
    EXPECT_EQ(o->report.extract, b->report.extract);
  }
  spec.argv[0] = std::string(BATLEHUB_HELPERS_DIR) + "/hostile";  // none has no image: the same program on the host
  auto n = std::move(NoneRuntime::create({}, [](std::string_view) { return std::optional<std::string>("1"); })).value()->run(spec);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(o->status, n->status);
  EXPECT_EQ(o->stdout_bytes, n->stdout_bytes);
  EXPECT_EQ(o->stderr_tail, n->stderr_tail);
  EXPECT_EQ(o->report.extract, n->report.extract);
  EXPECT_EQ(containers_of(oci.worker_label()), "");
}

TEST_P(OciRuntimeTest, the_probe_passes_in_an_image_built_from_a_room) {
  OciRuntime oci(options());
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->result_at_all) << r->no_result_reason;
  EXPECT_TRUE(r->passed()) << failure_of(*r);
  ASSERT_EQ(r->agent.commands.size(), 1u);
  EXPECT_EQ(r->agent.commands[0].size, fs::file_size(std::string(BATLEHUB_HELPERS_DIR) + "/hostile"));
  EXPECT_EQ(containers_of(oci.worker_label()), "");
}

TEST_P(OciRuntimeTest, extra_args_that_put_the_container_on_the_hosts_network_fail_no_network) {
  auto o = options();
  o.extra_args = {"--network", "host"};
  // podman cannot mount /sys for a container in a user namespace of its own on the host's
  // network namespace (runc: "mount sysfs … operation not permitted"), so an operator who
  // takes the host's network there must take the host's user namespace too (the last
  // --userns wins): two walls down, and the probe must say so.
  if (GetParam().kind == OciEngineKind::kPodman) o.extra_args.insert(o.extra_args.end(), {"--userns", "host"});
  OciRuntime oci(o);
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  // The worker's own listener on this machine's loopback answered the sandbox.
  EXPECT_EQ(failure_of(*r).rfind("no_network: ", 0), 0u) << failure_of(*r);
  EXPECT_NE(failure_of(*r).find(": connected"), std::string::npos) << failure_of(*r);
}

TEST_P(OciRuntimeTest, a_leaked_credential_fails_the_probe_and_the_engines_own_variables_do_not) {
  auto o = options();
  o.extra_args = {"-e", "AWS_SECRET_ACCESS_KEY=hunter2"};
  OciRuntime oci(o);
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  // Names only, never a value; HOSTNAME (and podman's container=) are not named.
  EXPECT_EQ(failure_of(*r), "empty_environment: unexpected variables: AWS_SECRET_ACCESS_KEY");
}

TEST_P(OciRuntimeTest, a_run_past_its_deadline_is_a_timeout_and_leaves_no_container) {
  auto o = options();
  o.start_timeout = std::chrono::seconds(0);
  OciRuntime oci(o);
  core::RunSpec spec;
  spec.label.scanner = "hostile";
  spec.argv = {"hostile", "hang"};
  spec.timeout = std::chrono::seconds(3);
  auto out = oci.run(spec);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kRunTimeout) << out.error().message;
  EXPECT_EQ(containers_of(oci.worker_label()), "");
}

TEST_P(OciRuntimeTest, a_worker_killed_mid_run_leaves_a_container_that_the_next_sweep_removes) {
  // The worker: a child process running one long run.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    OciRuntime oci(options());
    core::RunSpec spec;
    spec.label.scanner = "hostile";
    spec.argv = {"hostile", "hang"};
    spec.timeout = std::chrono::seconds(600);
    (void)oci.run(spec);
    ::_exit(0);
  }
  // Its worker label is "<its pid>@<this host>": wait for its container to run.
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string worker = std::to_string(child) + "@" + host;
  std::string seen;
  for (int i = 0; i < 300 && seen.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    seen = containers_of(worker);
  }
  ASSERT_NE(seen, "") << "the child's container never appeared";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  // kill -9 of the client's parent stops nothing: the container is still there.
  EXPECT_EQ(containers_of(worker), seen);
  OciRuntime next(options());
  auto removed = next.sweep(std::chrono::seconds(3600));
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_GE(*removed, 1u);
  EXPECT_EQ(containers_of(worker), "");
}

INSTANTIATE_TEST_SUITE_P(Engines, OciRuntimeTest,
                         ::testing::Values(Engine{OciEngineKind::kPodman, "podman"}, Engine{OciEngineKind::kDocker, "docker"}),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace batlehub::adapters
