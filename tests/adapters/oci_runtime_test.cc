// The oci runtime for real, on podman and on docker: an image built from a room
// (scripts/build-image.py, the same tree bwrap binds), a run that gives what `none` and
// bwrap give, the probe passing and failing no_network when extra_args put the container on
// the host's network, every other assertion made to fail once (OciRuntimePeer's argv edits,
// images holding a test-only agent that leaves one of its own walls out), a timeout that
// leaves no container, and a worker killed with -9 whose container the next runtime's sweep
// removes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/none.h"
#include "adapters/sandbox/oci.h"
#include "base/kernel_identity.h"
#include "engines.h"
#include "oci_runtime_peer.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

class OciRuntimeTest : public ::testing::TestWithParam<TestEngine> {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    auto failed = import_hostile_image(GetParam(), rooms_, image_);
    ASSERT_EQ(failed, "") << "failed: " << failed;
  }
  void TearDown() override {
    if (!image_.empty()) remove_image(GetParam(), image_);
  }

  OciOptions options() { return test_oci_options(GetParam(), image_, s_.work()); }

  core::ProbeTarget target() {
    return core::ProbeTarget{"hostile", std::nullopt, {"/usr/bin/hostile"}, core::Limits{}};
  }

  // The names of the containers labelled with this worker label, running or not.
  std::string containers_of(const std::string& worker) { return batlehub::testing::containers_of(GetParam(), worker); }

  // The options of a runtime whose runs get no start allowance, and a run of `hostile hang`.
  OciOptions no_start_allowance() {
    auto o = options();
    o.start_timeout = std::chrono::seconds(0);
    return o;
  }
  static core::RunSpec hang(std::chrono::seconds timeout) {
    core::RunSpec spec;
    spec.label.scanner = "hostile";
    spec.argv = {"hostile", "hang"};
    spec.timeout = timeout;
    return spec;
  }

  // A run of `hostile hang` with no start allowance: a timeout, and its container gone.
  void expect_a_hang_times_out_and_leaves_no_container(std::chrono::seconds timeout) {
    OciRuntime oci(no_start_allowance());
    auto out = oci.run(hang(timeout));
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kRunTimeout) << out.error().message;
    EXPECT_EQ(containers_of(oci.worker_label()), "");
  }

  static std::string failure_of(const core::ProbeReport& r) { return r.first_failure().value_or("(passed)"); }
  static std::string evidence_of(const core::ProbeReport& r, wire::Check c) {
    for (const auto& a : r.agent.assertions) {
      if (a.check == c) return std::string(wire::to_string(a.verdict)) + " " + a.evidence;
    }
    return "(not made)";
  }

  Scratch s_;
  fs::path rooms_;
  std::string image_;
};

TEST_P(OciRuntimeTest, a_run_over_a_fixture_archive_gives_the_same_output_as_none_and_bwrap) {
  core::RunSpec spec = fixture_run_spec();
  OciRuntime oci(options());
  core::RunTrace trace;
  spec.trace = &trace;
  auto o = oci.run(spec);
  spec.trace = nullptr;
  ASSERT_TRUE(o) << o.error().message;
  // The span's names: the container (the name the sweep and `ps` see), the image.
  EXPECT_TRUE(trace.sandbox.starts_with("batlehub-sbx-" + spec.label.job + "-")) << trace.sandbox;
  EXPECT_EQ(trace.image, image_);
  EXPECT_TRUE(trace.ended.has_value());
  EXPECT_EQ(o->status, 0);
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(o->report.extract.refused_by_type, 1u);
  if (bwrap_unavailable().empty()) {
    BwrapOptions bo;
    bo.rooms_dir = rooms_.string();
    bo.scratch_dir = s_.work().string();
    core::RunTrace bwrap_trace;
    spec.trace = &bwrap_trace;
    auto b = BwrapRuntime(bo).run(spec);
    spec.trace = nullptr;
    ASSERT_TRUE(b) << b.error().message;
    // Under bwrap the run is its directory, gone by now; there is no image.
    EXPECT_TRUE(bwrap_trace.sandbox.starts_with(s_.work().string() + "/batlehub-run-")) << bwrap_trace.sandbox;
    EXPECT_FALSE(fs::exists(bwrap_trace.sandbox));
    EXPECT_EQ(bwrap_trace.image, "");
    EXPECT_TRUE(bwrap_trace.ended.has_value());
    EXPECT_EQ(o->status, b->status);
    EXPECT_EQ(o->stdout_bytes, b->stdout_bytes);
    EXPECT_EQ(o->stderr_tail, b->stderr_tail);
    EXPECT_EQ(o->report.extract, b->report.extract);
  }
  spec.argv[0] = std::string(BATLEHUB_HELPERS_DIR) + "/hostile";  // none has no image: the same program on the host
  auto n = std::move(NoneRuntime::create({}, [](std::string_view) { return std::optional<std::string>("1"); }))
               .value()
               ->run(spec);
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
  // docker refuses the host's network to a daemon that remaps user namespaces ("cannot
  // share the host's network namespace when user namespaces are enabled") unless the run
  // takes the host's user namespace as well.
  if (GetParam() == kPodman || GetParam().remapped) o.extra_args.insert(o.extra_args.end(), {"--userns", "host"});
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

TEST_P(OciRuntimeTest, a_work_dir_that_is_not_the_one_safe_writable_dir_fails_one_writable_dir) {
  OciRuntime oci(options());
  // docker: /work mounted suid, and no no_new_privs. podman's containers inherit no_new_privs
  // from the podman process the worker starts, so there the agent starts in / instead.
  const bool podman = GetParam() == kPodman;
  if (podman) {
    OciRuntimePeer::work_in_the_root(oci);
  } else {
    OciRuntimePeer::setuid_work_dir(oci);
  }
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  const std::string where = podman ? "one_writable_dir: / is on / (ro," : "one_writable_dir: /work is on /work (";
  const std::string why =
      podman ? "not writable: EROFS" : "no nosuid: NoNewPrivs: 0 (a setuid file here would raise privileges)";
  EXPECT_EQ(failure_of(*r).rfind(where, 0), 0u)
      << failure_of(*r) << "; one_writable_dir: " << evidence_of(*r, wire::Check::kOneWritableDir);
  EXPECT_NE(failure_of(*r).find(why), std::string::npos) << failure_of(*r);
}

TEST_P(OciRuntimeTest, a_container_running_as_root_fails_unprivileged) {
  OciRuntime oci(options());
  OciRuntimePeer::root_inside(oci);
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r).rfind("unprivileged: euid 0, CapEff ", 0), 0u) << failure_of(*r);
}

TEST_P(OciRuntimeTest, an_image_without_a_command_the_scanner_needs_fails_commands_exist) {
  OciRuntime oci(options());
  auto t = target();
  t.commands.push_back("/usr/bin/postmortem");
  auto r = oci.probe(t);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(failure_of(*r), "commands_exist: missing or not executable: /usr/bin/postmortem");
}

TEST_P(OciRuntimeTest, an_image_whose_agent_leaves_out_one_of_its_walls_fails_on_that_wall) {
  struct AgentWall {
    const char* wall;
    const char* evidence;         // how the probe's first failure begins
    bool without_engine_seccomp;  // the engine's profile is a second layer of this wall
  };
  for (const AgentWall& w : {
           // The engine's own filter is there (Seccomp: 2); the agent's is not on top of it.
           AgentWall{"seccomp_filter", "seccomp_filter: Seccomp: 2, Seccomp_filters: 1", false},
           AgentWall{"canary_syscall", "canary_syscall: personality(0xffffffff) returned ", true},
           AgentWall{"clone3_enosys", "clone3_enosys: clone3 returned -1 ", true},
           AgentWall{"rlimits", "rlimits: RLIMIT_DATA=", false},
           AgentWall{"undumpable", "agent_unreachable: the agent (pid 1) is dumpable; ", false},
           AgentWall{"landlock", "landlock: the kernel offers Landlock ABI ", false},
       }) {
    SCOPED_TRACE(w.wall);
    const std::string room = std::string("without-") + w.wall;
    ASSERT_TRUE(build_room(rooms_, room, "", weakened_agent_bin(w.wall)));
    const std::string image = test_image_tag(room);
    ASSERT_EQ(import_room_image(GetParam(), rooms_ / room, image), "");
    auto o = test_oci_options(GetParam(), image, s_.work());
    OciRuntime oci(o);
    if (w.without_engine_seccomp) OciRuntimePeer::no_engine_seccomp(oci);
    auto r = oci.probe(target());
    remove_image(GetParam(), image);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(failure_of(*r).rfind(w.evidence, 0), 0u) << failure_of(*r);
    if (std::string(w.wall) == "seccomp_filter") {
      EXPECT_NE(failure_of(*r).find("no filter of the agent's own"), std::string::npos) << failure_of(*r);
    }
    if (std::string(w.wall) == "rlimits") {
      EXPECT_NE(failure_of(*r).find("(wanted "), std::string::npos) << failure_of(*r);
    }
  }
}

TEST_P(OciRuntimeTest, a_run_past_its_deadline_is_a_timeout_and_leaves_no_container) {
  expect_a_hang_times_out_and_leaves_no_container(std::chrono::seconds(3));
}

TEST_P(OciRuntimeTest, a_worker_killed_mid_run_leaves_a_container_that_the_next_sweep_removes) {
  // The worker: a child process running one long run.
  const HangingWorker w = fork_worker_with_a_hanging_run(GetParam(), [&](const core::RunSpec& spec) {
    OciRuntime oci(options());
    (void)oci.run(spec);
  });
  ASSERT_GE(w.pid, 0);
  const pid_t child = w.pid;
  const std::string& worker = w.label;
  const std::string& seen = w.containers;
  ASSERT_NE(seen, "") << "the child's container never appeared";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  // kill -9 of the client's parent stops nothing: the container is still there.
  EXPECT_EQ(containers_of(worker), seen);
  OciRuntime next(options());
  auto removed = next.sweep(std::chrono::seconds(3600));
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(removed->of(core::OrphanKind::kContainer), 1u) << removed->describe();
  EXPECT_EQ(removed->of(core::OrphanKind::kRunDir), 1u) << removed->describe();
  EXPECT_EQ(containers_of(worker), "");
  // And what the dead worker left on this host: its run directory (under docker, with the
  // nosuid,nodev bind of its /bundle still mounted), gone too.
  std::string left;
  for (const auto& e : fs::directory_iterator(s_.work())) {
    if (e.path().filename().string().find("-" + std::to_string(child) + "-") != std::string::npos)
      left += e.path().string() + " ";
  }
  EXPECT_EQ(left, "");
  EXPECT_EQ(Scratch::read("/proc/self/mountinfo").find(" " + s_.work().string() + "/"), std::string::npos)
      << "a mount under the scratch directory outlived the sweep";
}

// A container with this worker's own label that no run of this process has in flight — a
// client killed before it removed it, or a previous life of a worker that is pid 1 in its
// container — is the sweep's at once; the one a run has in flight stays (architecture.md,
// departure 21, as kubernetes does with its pods).
TEST_P(OciRuntimeTest, the_sweep_removes_this_workers_own_container_that_no_run_has_in_flight) {
  OciRuntime oci(no_start_allowance());
  std::thread running([&] { (void)oci.run(hang(std::chrono::seconds(30))); });
  std::string in_flight;
  for (int i = 0; i < 300 && in_flight.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    in_flight = containers_of(oci.worker_label());
  }
  const std::string left = "batlehub-left-" + std::to_string(::getpid());
  const auto created =
      engine_out(GetParam(), "create --name " + left + " --label io.batlehub.worker=" + oci.worker_label() + " " +
                                 image_ + " /usr/bin/hostile hang");
  std::optional<Expected<core::Swept, core::SandboxError>> swept;
  if (!in_flight.empty()) swept = oci.sweep(std::chrono::seconds(3600));
  const std::string after = containers_of(oci.worker_label());
  if (!in_flight.empty()) engine_out(GetParam(), "kill " + in_flight);  // the run ends now, not at its deadline
  running.join();
  ASSERT_NE(in_flight, "") << "the run's container never appeared";
  ASSERT_TRUE(created) << "creating " << left << " failed";
  ASSERT_TRUE(*swept) << swept->error().message;
  // At least `left`: a sweep is engine-wide, and under ctest -j2 another test's container past
  // its deadline (a_run_past_its_deadline_…, which holds no sweep lock) can be swept with it
  // (seen here, 2026-12-07: 2 containers). Which ones went is what `after` says.
  EXPECT_GE((*swept)->of(core::OrphanKind::kContainer), 1u) << (*swept)->describe();
  EXPECT_EQ(after, in_flight) << "the sweep must remove " << left << " and leave the run in flight";
  EXPECT_EQ(containers_of(oci.worker_label()), "");
}

INSTANTIATE_TEST_SUITE_P(Engines, OciRuntimeTest, ::testing::Values(kPodman, kDocker, kDockerRemap),
                         [](const auto& i) { return std::string(i.param.name); });

// The RFC's strongest wall on the oci runtime: the same image under gVisor (runsc), set the
// way an operator sets it ([worker.sandbox.oci] extra_args = ["--runtime=…runsc"]). Runs give
// what bwrap gives and a deadline leaves no container. The probe runs, its `kernel` is
// gVisor's where the same engine under runc says the host's — and it fails closed on what
// Debian 12's runsc (0.0~20221219) cannot show from inside (docs/operations/oci.md#gvisor),
// so a worker configured so refuses to start rather than run on walls it cannot prove.
class OciGvisorTest : public OciRuntimeTest {};

TEST_P(OciGvisorTest, the_probe_says_gvisors_kernel_and_fails_closed_on_what_this_runsc_cannot_show) {
  OciRuntime oci(options());
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->result_at_all) << r->no_result_reason;
  EXPECT_EQ(r->agent.kernel.rfind(kGvisorKernel, 0), 0u) << r->agent.kernel;
  EXPECT_NE(r->agent.kernel, base::kernel_identity());
  std::set<std::string> failed;
  for (const auto& a : r->agent.assertions) {
    if (a.verdict == wire::AssertionVerdict::kFail) failed.insert(std::string(wire::to_string(a.check)));
  }
  // Every other wall is proven from inside, as under runc: no network, read-only root (its
  // EACCES on a mount that says ro), no_new_privs (from prctl: gVisor's /proc/self/status has
  // no NoNewPrivs line), the agent's seccomp filter, the rlimits, uid 65532 without caps.
  EXPECT_EQ(failed, (std::set<std::string>{"one_writable_dir", "agent_unreachable", "memory_bounded", "pids_bounded"}))
      << failure_of(*r);
  // gVisor 20221219 ignores nodev on /work's tmpfs, lets the scanner read the undumpable
  // agent's /proc/1/environ, and shows no cgroup inside the sandbox (the host's cgroup
  // bounds the sandbox as a whole, out of the agent's sight).
  EXPECT_NE(evidence_of(*r, wire::Check::kOneWritableDir).find("mknod of a character device succeeded"),
            std::string::npos)
      << evidence_of(*r, wire::Check::kOneWritableDir);
  EXPECT_NE(evidence_of(*r, wire::Check::kAgentUnreachable).find("/proc/1/environ: opened"), std::string::npos)
      << evidence_of(*r, wire::Check::kAgentUnreachable);
  EXPECT_EQ(evidence_of(*r, wire::Check::kMemoryBounded).rfind("fail no memory cgroup is visible from inside", 0), 0u)
      << evidence_of(*r, wire::Check::kMemoryBounded);
  EXPECT_EQ(evidence_of(*r, wire::Check::kNoNewPrivs), "pass NoNewPrivs: 1 (prctl)");
  EXPECT_EQ(evidence_of(*r, wire::Check::kLandlock).rfind("warn the kernel has no Landlock", 0), 0u)
      << evidence_of(*r, wire::Check::kLandlock);
  EXPECT_EQ(containers_of(oci.worker_label()), "");
  // The hint under the first failure says it is gVisor's, not a flag to change.
  ASSERT_TRUE(r->failure());
  const std::string hint = oci.hint(r->failure()->check);
  EXPECT_EQ(hint.rfind("the containers run under gVisor (extra_args name runsc)", 0), 0u) << hint;

  auto runc = options();
  runc.extra_args.clear();
  auto h = OciRuntime(runc).probe(target());
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_TRUE(h->passed()) << failure_of(*h);
  EXPECT_EQ(h->agent.kernel, base::kernel_identity());
}

TEST_P(OciGvisorTest, a_run_over_a_fixture_archive_gives_what_bwrap_gives) {
  if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why << " (the run is compared with bwrap's)";
  core::RunSpec spec = fixture_run_spec();
  OciRuntime oci(options());
  auto o = oci.run(spec);
  ASSERT_TRUE(o) << o.error().message;
  BwrapOptions bo;
  bo.rooms_dir = rooms_.string();
  bo.scratch_dir = s_.work().string();
  auto b = BwrapRuntime(bo).run(spec);
  ASSERT_TRUE(b) << b.error().message;
  // The agent found and killed what was left of the scanner's tree: gVisor's procfs has no
  // /proc/<pid>/task/<tid>/children, so it looked through every /proc/<pid>/stat.
  EXPECT_FALSE(o->report.failure) << o->report.failure->message;
  EXPECT_EQ(o->status, 0);
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(o->status, b->status);
  EXPECT_EQ(o->stdout_bytes, b->stdout_bytes);
  EXPECT_EQ(o->stderr_tail, b->stderr_tail);
  EXPECT_EQ(o->report.extract, b->report.extract);
  EXPECT_EQ(containers_of(oci.worker_label()), "");
}

TEST_P(OciGvisorTest, a_run_past_its_deadline_is_a_timeout_and_leaves_no_container) {
  expect_a_hang_times_out_and_leaves_no_container(std::chrono::seconds(5));  // gVisor's start is slower
}

INSTANTIATE_TEST_SUITE_P(Engines, OciGvisorTest, ::testing::Values(kPodmanGvisor, kDockerGvisor),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace batlehub::adapters
