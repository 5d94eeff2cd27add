// oci_argv as data, for podman and for docker: every flag of RFC 0022 §5.3, and the two
// places the engines differ (docker has no `U` and refuses nosuid,nodev in -v).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "adapters/sandbox/oci.h"

namespace batlehub::adapters {
namespace {

OciArgvInput input(OciEngineKind engine, bool network = false) {
  OciArgvInput in;
  in.engine = engine;
  in.binary = engine == OciEngineKind::kPodman ? "podman" : "docker";
  in.name = "batlehub-sbx-job7-guarddog-1-42-0";
  in.worker = "4242@worker-a";
  in.job = "job7";
  in.deadline_epoch = 1'900'000'000;
  in.bundle_dir = "/tmp/batlehub-run-4242-guarddog-ab12";
  in.network = network;
  in.memory_mb = 2048;
  in.work_mb = 512;
  in.image = "batlehub-sandbox-guarddog:0.1.0";
  return in;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Every value the flag is given (a flag may repeat: --label, --tmpfs, -e).
std::vector<std::string> values(const std::vector<std::string>& v, const std::string& flag) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (v[i] == flag) out.push_back(v[i + 1]);
  }
  return out;
}

using Strings = std::vector<std::string>;

class OciArgv : public ::testing::TestWithParam<OciEngineKind> {};

TEST_P(OciArgv, every_flag_of_the_rfc_is_there) {
  const bool podman = GetParam() == OciEngineKind::kPodman;
  auto a = oci_argv(input(GetParam()));
  EXPECT_EQ(Strings(a.begin(), a.begin() + 3), (Strings{podman ? "podman" : "docker", "run", "--rm"}));
  EXPECT_EQ(values(a, "--name"), Strings{"batlehub-sbx-job7-guarddog-1-42-0"});
  EXPECT_EQ(values(a, "--label"),
            (Strings{"io.batlehub.worker=4242@worker-a", "io.batlehub.job=job7", "io.batlehub.deadline=1900000000"}));
  EXPECT_EQ(values(a, "--pull"), Strings{"never"});  // a run never reaches a registry
  EXPECT_EQ(values(a, "--network"), Strings{"none"});
  // Nothing of the host's names or resolver written into the container.
  EXPECT_EQ(has(a, "--no-hosts"), podman);
  EXPECT_EQ(has(a, "--passwd=false"), podman);
  EXPECT_EQ(values(a, "--dns"), podman ? Strings{} : Strings{"127.0.0.1"});
  EXPECT_EQ(values(a, "--dns-search"), podman ? Strings{} : Strings{"."});
  EXPECT_TRUE(has(a, "--read-only"));
  // Added here: nothing writable beside /work and /tmp — no /dev/shm (a private IPC namespace
  // without it), and no podman tmpfs on /run and /var/tmp.
  EXPECT_EQ(values(a, "--ipc"), Strings{"none"});
  EXPECT_EQ(has(a, "--read-only-tmpfs=false"), podman);
  const std::string t =
      podman ? "rw,nosuid,nodev,noexec,size=512m,U" : "rw,nosuid,nodev,noexec,size=512m,uid=65532,gid=65532";
  EXPECT_EQ(values(a, "--tmpfs"), (Strings{"/work:" + t, "/tmp:" + t}));
  // The bundle read-only, and out.tar, the one file the agent writes there, bound writable
  // over it (a writable bundle is the host's disk, past --memory and /work's size).
  const std::string flags = podman ? ",nosuid,nodev" : "";
  EXPECT_EQ(values(a, "-v"), (Strings{"/tmp/batlehub-run-4242-guarddog-ab12:/bundle:ro" + flags,
                                      "/tmp/batlehub-run-4242-guarddog-ab12/out.tar:/bundle/out.tar:rw" + flags}));
  EXPECT_EQ(values(a, "--cap-drop"), Strings{"ALL"});
  EXPECT_EQ(values(a, "--security-opt"), Strings{"no-new-privileges"});
  EXPECT_EQ(values(a, "--memory"), Strings{"2048m"});
  EXPECT_EQ(values(a, "--pids-limit"), Strings{"256"});
  EXPECT_EQ(values(a, "--cpus"), Strings{"1"});
  EXPECT_EQ(values(a, "-e"), (Strings{"HOME=/work", "PATH=/usr/local/bin:/usr/bin:/bin"}));
  EXPECT_EQ(values(a, "-w"), Strings{"/work"});
  EXPECT_EQ(values(a, "--user"), Strings{"65532:65532"});
  if (podman) {
    EXPECT_EQ(values(a, "--userns"), Strings{"auto:size=65536"});
    EXPECT_TRUE(has(a, "--env-host=false"));
    EXPECT_TRUE(has(a, "--unsetenv-all"));  // containers.conf's TERM=xterm and the like
    EXPECT_EQ(values(a, "--ulimit"), (Strings{"nofile=1024:1024", "nproc=4096:4096"}));
  } else {
    // docker has no per-run user namespace but the daemon's (docs/operations/oci.md), and
    // passes no host environment without being asked.
    EXPECT_TRUE(values(a, "--userns").empty());
    EXPECT_FALSE(has(a, "--env-host=false"));
    EXPECT_FALSE(has(a, "--unsetenv-all"));
  }
  // The image, then the agent's argv, last: no shell, no -i, no -t.
  EXPECT_EQ(Strings(a.end() - 6, a.end()),
            (Strings{"batlehub-sandbox-guarddog:0.1.0", "batlehub-sandbox", "--in", "file:///bundle/manifest.json",
                     "--out", "file:///bundle/out.tar"}));
  for (const char* never :
       {"-i", "--interactive", "-t", "--tty", "--privileged", "sh", "/bin/sh", "-c", "--env-host", "--env-host=true"}) {
    EXPECT_FALSE(has(a, never)) << never;
  }
}

TEST_P(OciArgv, a_run_that_needs_the_network_gets_the_engines_default_and_extra_args_go_before_the_image) {
  auto in = input(GetParam(), /*network=*/true);
  in.extra_args = {"--runtime=runsc", "--cgroup-parent", "/batlehub"};
  auto a = oci_argv(in);
  EXPECT_TRUE(values(a, "--network").empty());
  EXPECT_TRUE(values(a, "--dns").empty()) << "a run on the network resolves names as the engine's network does";
  auto image = std::find(a.begin(), a.end(), "batlehub-sandbox-guarddog:0.1.0");
  ASSERT_NE(image, a.end());
  EXPECT_EQ(Strings(image - 3, image), (Strings{"--runtime=runsc", "--cgroup-parent", "/batlehub"}));
  // The walls an operator's flags cannot remove by accident are all before them.
  EXPECT_LT(std::find(a.begin(), a.end(), "--cap-drop"), image - 3);
}

TEST_P(OciArgv, a_network_named_in_extra_args_replaces_none_rather_than_conflicting_with_it) {
  // Both engines refuse two --network flags; the operator's wins, and the probe judges it.
  for (Strings extra : {Strings{"--network", "host"}, Strings{"--network=host"}, Strings{"--net", "slirp4netns"}}) {
    auto in = input(GetParam());
    in.extra_args = extra;
    auto a = oci_argv(in);
    EXPECT_EQ(values(a, "--network"), extra[0] == "--network" ? Strings{"host"} : Strings{}) << extra[0];
    EXPECT_TRUE(has(a, extra[0])) << extra[0];
  }
  auto in = input(GetParam());
  in.extra_args = {"--label", "network=none-of-your-business"};  // not a network flag
  EXPECT_EQ(values(oci_argv(in), "--network"), Strings{"none"});
}

TEST_P(OciArgv, the_storage_transport_gives_the_agent_two_urls_and_joins_the_storage_network) {
  const bool podman = GetParam() == OciEngineKind::kPodman;
  OciArgvInput in = input(GetParam());
  in.bundle_dir.clear();
  in.in_url = "http://127.0.0.1:9000/b/sandbox/job7/guarddog/1/r/manifest.json?X-Amz-Signature=aa";
  in.out_url = "http://127.0.0.1:9000/b/sandbox/job7/guarddog/1/r/out.tar?X-Amz-Signature=bb";
  in.storage_network = "container:batlehub-storage";
  auto a = oci_argv(in);
  EXPECT_EQ(values(a, "--network"), Strings{"container:batlehub-storage"});
  EXPECT_EQ(values(a, "-v"), Strings{}) << "no host directory reaches the container";
  // podman: the holder's user namespace with its network (the kernel's rule for /sys);
  // docker: the daemon's, as always. docker refuses --dns beside a container's network.
  EXPECT_EQ(values(a, "--userns"), podman ? Strings{"container:batlehub-storage"} : Strings{});
  EXPECT_EQ(values(a, "--dns"), Strings{});
  EXPECT_EQ(Strings(a.end() - 5, a.end()), (Strings{"batlehub-sandbox", "--in", in.in_url, "--out", in.out_url}));
  // Every other wall is the same as the mount transport's.
  EXPECT_TRUE(has(a, "--read-only"));
  EXPECT_EQ(values(a, "--cap-drop"), Strings{"ALL"});
  EXPECT_EQ(values(a, "--user"), Strings{"65532:65532"});

  // A run that needs the network gets the engine's, not the storage network, nor its userns.
  in.network = true;
  auto n = oci_argv(in);
  EXPECT_EQ(values(n, "--network"), Strings{});
  EXPECT_EQ(values(n, "--userns"), podman ? Strings{"auto:size=65536"} : Strings{});
}

TEST_P(OciArgv, under_gvisor_podman_gives_runsc_its_own_no_network_and_no_user_namespace_of_its_own) {
  const bool podman = GetParam() == OciEngineKind::kPodman;
  EXPECT_TRUE(oci_runs_gvisor({"--runtime=runsc"}));
  EXPECT_TRUE(oci_runs_gvisor({"--runtime=/usr/bin/runsc"}));
  EXPECT_TRUE(oci_runs_gvisor({"--cgroup-parent", "/b", "--runtime", "/usr/local/bin/runsc"}));
  EXPECT_FALSE(oci_runs_gvisor({"--runtime=runc"}));
  EXPECT_FALSE(oci_runs_gvisor({"--runtime=/opt/runsc/crun"}));
  EXPECT_FALSE(oci_runs_gvisor({"--label", "runsc"}));
  EXPECT_FALSE(oci_runs_gvisor({"--runtime"}));

  auto in = input(GetParam());
  in.extra_args = {"--runtime=/usr/bin/runsc"};
  auto a = oci_argv(in);
  EXPECT_EQ(values(a, "--network"), Strings{"none"});
  // podman hands runsc no namespace to network for --network none; docker does.
  EXPECT_EQ(has(a, "--runtime-flag=network=none"), podman);
  // runsc's sandbox is its own user namespace; podman's `auto` would stop its gofer.
  EXPECT_EQ(values(a, "--userns"), Strings{});
  // Every other wall stays.
  EXPECT_TRUE(has(a, "--read-only"));
  EXPECT_EQ(values(a, "--cap-drop"), Strings{"ALL"});
  EXPECT_EQ(values(a, "--user"), Strings{"65532:65532"});
  EXPECT_EQ(values(a, "--security-opt"), Strings{"no-new-privileges"});

  // A run on the network, or on the storage network, is networked by runsc itself.
  in.network = true;
  EXPECT_FALSE(has(oci_argv(in), "--runtime-flag=network=none"));
  in.network = false;
  in.bundle_dir.clear();
  in.in_url = "http://127.0.0.1:9000/b/m?X-Amz-Signature=aa";
  in.out_url = "http://127.0.0.1:9000/b/o?X-Amz-Signature=bb";
  in.storage_network = "container:batlehub-storage";
  EXPECT_FALSE(has(oci_argv(in), "--runtime-flag=network=none"));
  // Under runc, nothing changes.
  auto runc = input(GetParam());
  EXPECT_FALSE(has(oci_argv(runc), "--runtime-flag=network=none"));
  EXPECT_EQ(values(oci_argv(runc), "--userns"), podman ? Strings{"auto:size=65536"} : Strings{});
}

INSTANTIATE_TEST_SUITE_P(Engines, OciArgv, ::testing::Values(OciEngineKind::kPodman, OciEngineKind::kDocker),
                         [](const auto& i) { return i.param == OciEngineKind::kPodman ? "podman" : "docker"; });

TEST(OciContainerName, the_rfc_name_made_safe_for_every_engine) {
  EXPECT_EQ(oci_container_name(core::RunLabel{"job7", "guarddog", 2}, "4242-0"), "batlehub-sbx-job7-guarddog-2-4242-0");
  EXPECT_EQ(oci_container_name(core::RunLabel{"npm:@s/x@1.0", "yara strict", 1}, "1-1"),
            "batlehub-sbx-npm__s_x_1.0-yara_strict-1-1-1");
  EXPECT_LE(oci_container_name(core::RunLabel{std::string(500, 'j'), "s", 1}, "u").size(), 200u);
}

// The probe's second line on oci is about what failed, per engine: a hint for every check,
// each leading to the operations page, and the ones fixed in different places distinct.
TEST(OciHint, each_failed_check_gets_the_hint_for_it_on_each_engine) {
  for (OciEngineKind engine : {OciEngineKind::kPodman, OciEngineKind::kDocker}) {
    OciOptions o;
    o.engine = engine;
    OciRuntime oci(o);
    std::set<std::string> distinct;
    for (auto c : wire::every_check()) {
      const std::string h = oci.hint(c);
      EXPECT_TRUE(h.ends_with("See docs/operations/oci.md")) << wire::to_string(c) << ": " << h;
      distinct.insert(h);
    }
    EXPECT_GE(distinct.size(), 9u);
    EXPECT_EQ(oci.hint(wire::Check::kNoShell).rfind("the image holds a shell", 0), 0u);
    EXPECT_NE(oci.hint(wire::Check::kNoNetwork).find("--network"), std::string::npos);
    EXPECT_NE(oci.hint(wire::Check::kNoCredentials).find("-e/--env"), std::string::npos);
    EXPECT_NE(oci.hint(wire::Check::kCommandsExist).find("rebuild the image"), std::string::npos);
    EXPECT_NE(oci.hint(wire::Check::kCommandsExist).find("(or [worker.sandbox.oci] image,"), std::string::npos);
  }
  OciOptions p;
  p.engine = OciEngineKind::kPodman;
  OciOptions d;
  d.engine = OciEngineKind::kDocker;
  EXPECT_EQ(OciRuntime(p).hint(std::nullopt).rfind("oci/podman needs", 0), 0u);
  EXPECT_EQ(OciRuntime(d).hint(std::nullopt).rfind("oci/docker needs a running dockerd", 0), 0u);
  EXPECT_NE(OciRuntime(p).hint(wire::Check::kRlimits).find("containers.conf"), std::string::npos);
  EXPECT_NE(OciRuntime(d).hint(wire::Check::kRlimits).find("daemon.json"), std::string::npos);
  EXPECT_NE(OciRuntime(p).hint(wire::Check::kMemoryBounded).find("--cgroups disabled"), std::string::npos);
  EXPECT_NE(OciRuntime(p).hint(wire::Check::kUnprivileged).find("--userns auto"), std::string::npos);
  EXPECT_NE(OciRuntime(d).hint(wire::Check::kUnprivileged).find("userns-remap"), std::string::npos);
}

}  // namespace
}  // namespace batlehub::adapters
