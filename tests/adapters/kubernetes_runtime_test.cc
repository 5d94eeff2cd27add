// The kubernetes runtime on a real cluster (the ctest fixture "k8s": etcd, the API server,
// the controller manager, the scheduler, containerd and a kubelet on loopback), in a sandbox
// namespace the Helm chart made, with the credentials of the chart's worker ServiceAccount:
// pods really run the agent, bundles and results go through the tests' S3 server, and Pod
// Security, the quota and the Role are the API server's own.
//
// NetworkPolicy is enforced (kube-router, scripts/k8s-peer.sh): the pods' network has a
// gateway on the host, and only the chart's policies keep a sandbox pod from a listener there
// (k8s.network_policy; here, the probe passing through them and failing without them). The
// storage endpoint is the cluster's storage door on that gateway, <gateway>:<S3 port>, relayed
// to the tests' S3 server: every bundle and result crosses the pod network, let through by the
// chart's storageEgress rule alone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "adapters/sandbox/kubernetes.h"
#include "adapters/sandbox/run_frame.h"
#include "base/kernel_identity.h"
#include "config/config.h"
#include "k8s_cluster.h"
#include "server/root/builders.h"

namespace batlehub::adapters {

class KubernetesRuntimePeer {
 public:
  static void edit_pod(KubernetesRuntime& r, std::function<void(nlohmann::json&)> edit) {
    r.edit_pod_for_tests_ = std::move(edit);
  }
};

namespace {

using namespace batlehub::testing;
using Kind = core::SandboxError::Kind;

class KubernetesRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = k8s_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ns_ = std::make_unique<SandboxNamespace>("rt");
    ASSERT_TRUE(ns_->ok()) << "the chart's sandbox namespace could not be made (k8s_sandbox_namespace.py up)";
    fs::create_directories(s_.root() / "rooms");
    ASSERT_TRUE(build_room(s_.root() / "rooms", "hostile"));
    image_ = "localhost/batlehub-test-hostile:" + std::to_string(::getpid());
    ASSERT_EQ(import_into_cluster(s_.root() / "rooms" / "hostile", image_), "");
    s3_ = test_s3();
    ASSERT_NE(s3_, nullptr);
    prefix_ = "k8s-" + std::to_string(::getpid()) + "/";
  }
  void TearDown() override {
    if (!image_.empty()) remove_from_cluster(image_);
    ns_.reset();
  }

  KubernetesOptions options(const std::string& worker = this_worker_label()) {
    return test_k8s_options(ns_->worker_kubeconfig(), image_, s3_, prefix_, worker);
  }

  std::vector<std::string> keys() {
    std::vector<std::string> out;
    auto l = s3_->list(prefix_);
    EXPECT_TRUE(l) << l.error().message;
    if (l) {
      for (const auto& o : *l) out.push_back(o.key);
    }
    return out;
  }

  // The names of the pods labelled with `worker` in the sandbox namespace, or "(failed)".
  std::string pods_of(const std::string& worker) {
    return SandboxNamespace::admin("get pods -n " + ns_->sandbox() + " -l " + kPodWorkerLabel + "=" +
                                   label_value(worker) + " -o name")
        .value_or("(failed)");
  }

  core::ProbeTarget target() {
    return core::ProbeTarget{"hostile", std::nullopt, {"/usr/bin/hostile"}, core::Limits{}};
  }

  static const wire::Assertion* assertion(const core::ProbeReport& r, wire::Check c) {
    for (const auto& a : r.agent.assertions) {
      if (a.check == c) return &a;
    }
    return nullptr;
  }

  Scratch s_;
  std::unique_ptr<SandboxNamespace> ns_;
  std::string image_;
  std::shared_ptr<core::StorageBackend> s3_;
  std::string prefix_;
};

TEST_F(KubernetesRuntimeTest, a_run_in_a_pod_gives_what_the_agent_gives_everywhere_and_leaves_no_pod_and_no_key) {
  KubernetesRuntime k(options());
  auto o = k.run(fixture_run_spec());
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->status, 0) << o->stderr_tail;
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(o->report.extract.refused_by_type, 1u);  // the symlink out of the package
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

TEST_F(KubernetesRuntimeTest, the_scanner_sees_only_home_path_and_what_the_kubelet_adds) {
  KubernetesRuntime k(options());
  core::RunSpec spec = fixture_run_spec();
  spec.argv = {"hostile", "env"};
  auto o = k.run(spec);
  ASSERT_TRUE(o) << o.error().message;
  // No presigned URL, no worker variable, no service link: HOME, PATH, the pod's HOSTNAME and
  // the API service's address, which the kubelet sets whatever enableServiceLinks says.
  std::istringstream lines(o->stdout_bytes);
  for (std::string line; std::getline(lines, line);) {
    const std::string key = line.substr(0, line.find('='));
    EXPECT_TRUE(key == "HOME" || key == "PATH" || key == "HOSTNAME" || key.starts_with("KUBERNETES_SERVICE_") ||
                key.starts_with("KUBERNETES_PORT"))
        << line;
  }
  EXPECT_EQ(o->stdout_bytes.find("X-Amz"), std::string::npos);
}

TEST_F(KubernetesRuntimeTest, a_runs_trace_names_the_pod_the_scanner_ran_in_and_its_image) {
  KubernetesRuntime k(options());
  core::RunSpec spec = fixture_run_spec();
  spec.argv = {"hostile", "hostname"};
  core::RunTrace trace;
  spec.trace = &trace;
  auto o = k.run(spec);
  ASSERT_TRUE(o) << o.error().message;
  // From inside, the pod's host name is the pod's name: the one the span names (RFC 0022 §6.6).
  EXPECT_EQ(o->stdout_bytes, trace.sandbox + "\n");
  EXPECT_TRUE(trace.sandbox.starts_with("batlehub-sbx-hostile-")) << trace.sandbox;
  EXPECT_EQ(trace.image, image_);
  EXPECT_TRUE(trace.ended.has_value());
}

TEST_F(KubernetesRuntimeTest, the_probe_passes_in_a_pod_and_proves_the_work_dir_without_nosuid_and_nodev) {
  KubernetesRuntime k(options());
  auto r = k.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
  EXPECT_EQ(r->runtime, "kubernetes");
  const auto* work = assertion(*r, wire::Check::kOneWritableDir);
  ASSERT_NE(work, nullptr);
  // The kubelet's emptyDir has neither flag; what they guard against is proven instead.
  EXPECT_NE(work->evidence.find("no nosuid: NoNewPrivs: 1"), std::string::npos) << work->evidence;
  EXPECT_NE(work->evidence.find("mknod of a character device refused: EPERM"), std::string::npos) << work->evidence;
  const auto* env = assertion(*r, wire::Check::kEmptyEnvironment);
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->verdict, wire::AssertionVerdict::kPass) << env->evidence;
  // No runtime class: runc, on the node's own kernel (beside KubernetesGvisor's 4.4.0).
  EXPECT_EQ(r->agent.kernel, base::kernel_identity());
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

TEST_F(KubernetesRuntimeTest, the_probe_fails_no_network_when_the_storage_endpoint_itself_is_named_a_canary) {
  KubernetesOptions o = options();
  // Reachable by design (the bundle comes from there): proof that a canary that answers fails.
  o.probe_canaries = {storage_door_address() + ":" + std::to_string(BATLEHUB_TEST_S3_PORT)};
  auto r = KubernetesRuntime(o).probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->passed());
  EXPECT_NE(r->first_failure().value_or("").find("no_network"), std::string::npos) << r->first_failure().value_or("");
}

// The pods' network has a gateway on the host (scripts/k8s-peer.sh): only the chart's
// NetworkPolicies, enforced by kube-router, keep a sandbox pod from a listener there (the
// worker's, in a real cluster; k8s.network_policy shows both ways with exec'd connections).
// Here the probe itself, with a canary on the gateway's address.
//
// Through the policies it passes: kube-router refuses the SYN with ICMP port unreachable,
// which the probe tells from a reset (the canary's host answering) and counts as the wall
// holding; the listener sees nothing. kube-router programs a pod only once the kubelet has
// published its address, after its first container started (docs/operations/kubernetes.md,
// "NetworkPolicy, enforced"), so the probe's pod is given what a CNI that programs policy
// before the pod runs (Calico's, Cilium's) gives: an init container that waits until its own
// connections to a port without a listener are refused by ICMP rather than reset.
TEST_F(KubernetesRuntimeTest, the_probe_passes_no_network_through_the_charts_policies_on_a_canary_at_the_gateway) {
  const std::string gw = pod_gateway();
  ASSERT_FALSE(gw.empty()) << "no gateway in the cluster's CNI configuration";
  GatewayListener listener(gw);
  ASSERT_GT(listener.port(), 0) << "could not listen on " << gw;
  GatewayListener closed(gw, false);
  ASSERT_GT(closed.port(), 0) << "could not bind on " << gw;
  KubernetesOptions o = options();
  const std::string canary = gw + ":" + std::to_string(listener.port());
  o.probe_canaries = {canary};
  KubernetesRuntime k(o);
  KubernetesRuntimePeer::edit_pod(k, [&](nlohmann::json& pod) {
    nlohmann::json wait = pod["spec"]["containers"][0];
    wait["name"] = "policed";
    wait.erase("args");
    wait.erase("volumeMounts");
    wait["command"] = {"/usr/bin/hostile", "policed", gw, std::to_string(closed.port()), "60"};
    pod["spec"]["initContainers"] = nlohmann::json::array({wait});
  });
  auto r = k.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  const auto* net = assertion(*r, wire::Check::kNoNetwork);
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->verdict, wire::AssertionVerdict::kPass) << net->evidence;
  EXPECT_NE(net->evidence.find(canary + ": ECONNREFUSED by ICMP type 3 code 3 from " + gw + " (a firewall's rejection"),
            std::string::npos)
      << net->evidence;
  EXPECT_EQ(listener.accepted(), 0);
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
}

// With the policies deleted (and gone from kube-router's rules) it fails no_network, the
// canary connected.
TEST_F(KubernetesRuntimeTest, the_probe_fails_no_network_once_the_charts_policies_are_removed) {
  const std::string gw = pod_gateway();
  ASSERT_FALSE(gw.empty()) << "no gateway in the cluster's CNI configuration";
  GatewayListener listener(gw);
  ASSERT_GT(listener.port(), 0) << "could not listen on " << gw;
  ASSERT_TRUE(SandboxNamespace::admin("delete networkpolicy --all -n " + ns_->sandbox()));
  const std::string rule = "policy name: bh-batlehub-sandbox-storage namespace " + ns_->sandbox();
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    auto rules = command_out("iptables -S");
    gone = rules && rules->find(rule) == std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(gone) << "kube-router kept the rules of the deleted policies (" << rule << ")";
  KubernetesOptions o = options();
  const std::string canary = gw + ":" + std::to_string(listener.port());
  o.probe_canaries = {canary};
  auto r = KubernetesRuntime(o).probe(target());
  ASSERT_TRUE(r) << r.error().message;
  const auto* net = assertion(*r, wire::Check::kNoNetwork);
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->verdict, wire::AssertionVerdict::kFail) << net->evidence;
  EXPECT_NE(net->evidence.find(canary + ": connected"), std::string::npos) << net->evidence;
  EXPECT_EQ(r->first_failure().value_or("").rfind("no_network: ", 0), 0u) << r->first_failure().value_or("(passed)");
}

TEST_F(KubernetesRuntimeTest, a_pod_that_may_gain_privileges_fails_one_writable_dir) {
  // The release namespace enforces no Pod Security, so the weakened pod is admitted there
  // (as the cluster's admin: the worker's Role is in the sandbox namespace only); the probe
  // must then catch it.
  auto creds = load_kubeconfig(BATLEHUB_TEST_K8S_KUBECONFIG);
  ASSERT_TRUE(creds) << creds.error();
  KubernetesOptions o = options();
  o.api = std::make_shared<KubeApi>(std::move(*creds));
  o.namespace_ = ns_->release();
  o.service_account = "default";  // the chart's sandbox ServiceAccount is in the sandbox namespace
  for (int i = 0; i < 100 && !SandboxNamespace::admin("get serviceaccount default -n " + ns_->release()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the controller manager makes it
  }
  KubernetesRuntime k(o);
  KubernetesRuntimePeer::edit_pod(k, [](nlohmann::json& pod) {
    for (auto& c : pod["spec"]["containers"]) c["securityContext"]["allowPrivilegeEscalation"] = true;
  });
  auto r = k.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->passed());
  const auto* work = assertion(*r, wire::Check::kOneWritableDir);
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->verdict, wire::AssertionVerdict::kFail) << work->evidence;
  EXPECT_NE(work->evidence.find("NoNewPrivs: 0 (a setuid file here would raise privileges)"), std::string::npos)
      << work->evidence;
}

TEST_F(KubernetesRuntimeTest, a_pod_running_as_root_fails_unprivileged) {
  // As a_pod_that_may_gain_privileges_fails_one_writable_dir: the release namespace admits
  // the weakened pod, and the probe must catch it. (Written beside the oci and bwrap tests
  // of the same wall; run by the lead, on the project's one cluster.)
  auto creds = load_kubeconfig(BATLEHUB_TEST_K8S_KUBECONFIG);
  ASSERT_TRUE(creds) << creds.error();
  KubernetesOptions o = options();
  o.api = std::make_shared<KubeApi>(std::move(*creds));
  o.namespace_ = ns_->release();
  o.service_account = "default";
  for (int i = 0; i < 100 && !SandboxNamespace::admin("get serviceaccount default -n " + ns_->release()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  KubernetesRuntime k(o);
  KubernetesRuntimePeer::edit_pod(k, [](nlohmann::json& pod) {
    pod["spec"]["securityContext"]["runAsNonRoot"] = false;
    pod["spec"]["securityContext"]["runAsUser"] = 0;
    for (auto& c : pod["spec"]["containers"]) {
      c["securityContext"]["runAsNonRoot"] = false;
      c["securityContext"]["runAsUser"] = 0;
    }
  });
  auto r = k.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->passed());
  // (The assertion itself, not the first failure: the release namespace has none of the chart's
  // NetworkPolicies, and what a pod there may reach is not this test's point.)
  const auto* u = assertion(*r, wire::Check::kUnprivileged);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, wire::AssertionVerdict::kFail) << u->evidence;
  EXPECT_EQ(u->evidence.rfind("euid 0, CapEff ", 0), 0u) << u->evidence;
}

TEST_F(KubernetesRuntimeTest, pod_security_refuses_a_weakened_pod_and_the_run_says_so_and_leaves_no_key) {
  KubernetesRuntime k(options());
  KubernetesRuntimePeer::edit_pod(k, [](nlohmann::json& pod) {
    for (auto& c : pod["spec"]["containers"]) c["securityContext"]["capabilities"]["drop"] = nlohmann::json::array();
  });
  auto o = k.run(fixture_run_spec());
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().kind, Kind::kConfig);
  EXPECT_NE(o.error().message.find("403"), std::string::npos) << o.error().message;
  EXPECT_NE(o.error().message.find("PodSecurity \"restricted"), std::string::npos) << o.error().message;
  EXPECT_NE(o.error().message.find("capabilities"), std::string::npos) << o.error().message;
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

// A runtime class the cluster does not know: the API server refuses the pod, and the
// refusal names the class (RuntimeClass admission), which the probe's error carries.
TEST_F(KubernetesRuntimeTest, a_runtime_class_the_cluster_does_not_have_is_refused_naming_it) {
  KubernetesOptions o = options();
  o.runtime_class = "nosuch";
  auto r = KubernetesRuntime(o).probe(target());
  ASSERT_FALSE(r) << "a probe in a pod of an unknown runtime class: " << r->first_failure().value_or("(passed)");
  EXPECT_EQ(r.error().kind, Kind::kConfig) << r.error().message;
  EXPECT_NE(r.error().message.find("403"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("RuntimeClass \"nosuch\" not found"), std::string::npos) << r.error().message;
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

// A RuntimeClass whose handler no node runs: the API server admits the pod, the kubelet
// cannot make its sandbox ("failed to get sandbox runtime: no runtime for \"nosuch\" is
// configured", an event the worker's Role may not read), and the pod stays Pending. The probe
// must fail — no result, by its deadline — and its hint must name the runtime class.
TEST_F(KubernetesRuntimeTest, a_runtime_class_whose_handler_the_node_does_not_run_fails_the_probe) {
  const std::string rc = "bh-nosuch-" + std::to_string(::getpid());
  const fs::path yaml = s_.root() / "runtimeclass.yaml";
  std::ofstream(yaml) << "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: " << rc
                      << "}\nhandler: nosuch\n";
  ASSERT_TRUE(SandboxNamespace::admin("apply -f " + yaml.string()));
  struct Gone {
    std::string rc;
    ~Gone() { SandboxNamespace::admin("delete runtimeclass " + rc + " --wait=false"); }
  } gone{rc};
  KubernetesOptions o = options();
  o.runtime_class = rc;
  o.start_timeout = std::chrono::seconds(5);
  KubernetesRuntime k(o);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = k.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->passed());
  EXPECT_FALSE(r->result_at_all);
  // The kubelet never gets the sandbox's container past ContainerCreating: a start timeout
  // at start_timeout, not the probe's whole deadline.
  EXPECT_NE(r->no_result_reason.find(" did not start its container within 5 s (start_timeout_secs; it was "
                                     "ContainerCreating"),
            std::string::npos)
      << r->no_result_reason;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
  // The hint under "a result at all" names the class and what a node needs for it first.
  const std::string hint = k.hint(std::nullopt);
  EXPECT_EQ(hint.rfind("pods of runtime class '" + rc +
                           "' need a node whose container runtime runs that class's "
                           "handler",
                       0),
            0u)
      << hint;
  // Without a runtime class the hint says nothing of one.
  EXPECT_EQ(KubernetesRuntime(options()).hint(std::nullopt).find("runtime class"), std::string::npos);
}

// gVisor: the cluster's RuntimeClass `gvisor` (gVisor's containerd shim and Debian's runsc,
// scripts/k8s-peer.sh). The pod really runs under gVisor: the API server has it with
// runtimeClassName gvisor, containerd runs its container with gVisor's shim
// (io.containerd.runsc.v1), and the agent inside reports gVisor's kernel, 4.4.0 — beside the
// node's own in the runc pod of the_probe_passes_in_a_pod_….
class KubernetesGvisor : public KubernetesRuntimeTest {
 protected:
  void SetUp() override {
    if (auto why = gvisor_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(SandboxNamespace::admin("get runtimeclass gvisor"))
        << "the cluster has what gVisor needs but no RuntimeClass gvisor (scripts/k8s-peer.sh start)";
    KubernetesRuntimeTest::SetUp();
  }
  KubernetesOptions gvisor_options() {
    KubernetesOptions o = options();
    o.runtime_class = "gvisor";
    return o;
  }
};

TEST_F(KubernetesGvisor,
       the_probe_in_a_gvisor_pod_says_gvisors_kernel_and_fails_closed_only_where_gvisor_2022_cannot_show) {
  KubernetesRuntime k(gvisor_options());
  PodObserver seen(ns_->sandbox());
  auto r = k.probe(target());
  seen.stop();
  ASSERT_TRUE(r) << r.error().message;
  std::string verdicts;
  for (const auto& a : r->agent.assertions) {
    const char* v = a.verdict == wire::AssertionVerdict::kPass   ? "pass"
                    : a.verdict == wire::AssertionVerdict::kWarn ? "warn"
                                                                 : "FAIL";
    verdicts += std::string(v) + "  " + std::string(wire::to_string(a.check)) + "  " + a.evidence + "\n";
  }
  RecordProperty("assertions", verdicts);
  EXPECT_EQ(r->agent.kernel.rfind("Linux 4.4.0 ", 0), 0u) << r->agent.kernel;
  RecordProperty("kernel", r->agent.kernel);
  const auto pods = seen.pods();
  ASSERT_FALSE(pods.empty()) << "the probe's pod was never seen";
  for (const auto& p : pods) EXPECT_NE(p.find(" gvisor "), std::string::npos) << p;
  EXPECT_TRUE(seen.containers().contains(image_ + " io.containerd.runsc.v1"))
      << "containerd did not run " << image_
      << " with gVisor's shim; it ran: " << ::testing::PrintToString(seen.containers());
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
  // Every other wall holds under gVisor; the probe fails closed only on what it cannot prove
  // from inside gVisor 2022 (k8s_cluster.h, gvisor_probe_gaps; docs/operations/oci.md#gvisor
  // says why each), so a worker configured so refuses to start rather than scan on them.
  const ProbeFailures f = probe_failures(*r);
  EXPECT_TRUE(f.only_gvisor_gaps) << verdicts;
  RecordProperty("failed", f.lines);
}

TEST_F(KubernetesGvisor, a_run_in_a_gvisor_pod_gives_what_the_agent_gives_everywhere) {
  KubernetesRuntime k(gvisor_options());
  auto o = k.run(fixture_run_spec());
  ASSERT_TRUE(o) << o.error().message;
  // The agent found and killed the scanner's tree without /proc/<pid>/task/<tid>/children.
  EXPECT_FALSE(o->report.failure) << o->report.failure->message;
  EXPECT_EQ(o->status, 0) << o->stderr_tail;
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(o->report.extract.refused_by_type, 1u);
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

// The escape suite's checks of the agent's own walls (tests/adapters/escape_test.cc), in a pod
// made from the runtime's own spec: the scanner cannot reach into the agent, write anywhere
// but /work and /tmp (the kubelet's /dev/termination-log is a file on the node's disk), or
// connect TCP — the storage network reaches the S3 server, and only Landlock stops the
// scanner there. Each is shown failing against an image whose test-only agent leaves the
// walls out (agent/walls.h).
class KubernetesEscape : public KubernetesRuntimeTest {
 protected:
  void SetUp() override {
    KubernetesRuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* wall : {"landlock", "undumpable_landlock"}) {
      const std::string room = std::string("hostile-without-") + wall;
      ASSERT_TRUE(build_room(s_.root() / "rooms", room, "", weakened_agent_bin(wall)));
      const std::string image = "localhost/batlehub-test-" + room + ":" + std::to_string(::getpid());
      ASSERT_EQ(import_into_cluster(s_.root() / "rooms" / room, image), "");
      weak_[wall] = image;
    }
  }
  void TearDown() override {
    for (const auto& [wall, image] : weak_) remove_from_cluster(image);
    KubernetesRuntimeTest::TearDown();
  }

  // `hostile ARGS` in a pod of the real image, or of the image without `wall`.
  Expected<core::RunOutput, core::SandboxError> run(std::vector<std::string> args, const std::string& wall = "",
                                                    core::Limits limits = {}) {
    auto o = test_k8s_options(ns_->worker_kubeconfig(), wall.empty() ? image_ : weak_.at(wall), s3_, prefix_);
    KubernetesRuntime k(o);
    core::RunSpec spec = fixture_run_spec();
    spec.argv = {"hostile"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.limits = limits;
    return k.run(spec);
  }

  std::map<std::string, std::string> weak_;  // by wall: the image
};

TEST_F(KubernetesEscape, cannot_reach_into_the_agent) {
  auto out = run({"agent"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "mem EACCES\nenviron EACCES\nfd EACCES\nattach EPERM\nvm_writev EPERM\nkill EPERM\n");
  auto weak = run({"agent"}, "undumpable_landlock");
  ASSERT_TRUE(weak) << weak.error().message;
  EXPECT_EQ(weak->stdout_bytes.rfind("mem wrote 0x", 0), 0u) << weak->stdout_bytes;
  // The agent's environment: the kubelet's KUBERNETES_* variables, readable without the walls.
  EXPECT_NE(weak->stdout_bytes.find("\nenviron read "), std::string::npos) << weak->stdout_bytes;
}

TEST_F(KubernetesEscape, cannot_write_outside_work_and_tmp_nor_grow_the_termination_log) {
  auto out = run({"mounts"});
  ASSERT_TRUE(out) << out.error().message;
  RecordProperty("mounts", out->stdout_bytes);
  EXPECT_EQ(written_by_hostile_mounts(out->stdout_bytes), (std::set<std::string>{"/tmp", "/work"}))
      << out->stdout_bytes;
  EXPECT_NE(out->stdout_bytes.find("\n/dev/termination-log EACCES\n"), std::string::npos) << out->stdout_bytes;
  core::Limits l;
  l.max_extracted_mb = 16;
  auto fill = run({"fill", "/dev/termination-log", "64"}, "", l);
  ASSERT_TRUE(fill) << fill.error().message;
  EXPECT_EQ(fill->stdout_bytes, "fill open EACCES\n");
  // Without Landlock the kubelet's file is writable, and RLIMIT_FSIZE stops it at the
  // extraction budget.
  auto bare = run({"mounts"}, "landlock");
  ASSERT_TRUE(bare) << bare.error().message;
  RecordProperty("mounts_without_landlock", bare->stdout_bytes);
  std::set<std::string> bare_written = written_by_hostile_mounts(bare->stdout_bytes);
  EXPECT_TRUE(bare_written.contains("/dev/termination-log")) << bare->stdout_bytes;
  // Besides that file (bounded below) and message queues (RLIMIT_MSGQUEUE), the pod's own
  // mounts leave one more directory writable: the pod sandbox's /dev/shm, a tmpfs charged to
  // the pod's memory, which no pod field removes. Only Landlock closes it; on a node without
  // it the probe fails one_writable_dir naming it (below).
  bare_written.erase("/dev/termination-log");
  bare_written.erase("/dev/mqueue");
  EXPECT_EQ(bare_written, (std::set<std::string>{"/dev/shm", "/tmp", "/work"})) << bare->stdout_bytes;
  auto bare_fill = run({"fill", "/dev/termination-log", "64"}, "landlock", l);
  ASSERT_TRUE(bare_fill) << bare_fill.error().message;
  EXPECT_EQ(bare_fill->stdout_bytes, "fill stopped at 16 MiB: EFBIG\n");
}

TEST_F(KubernetesEscape, cannot_connect_tcp_even_where_the_storage_network_reaches) {
  const std::string port = std::to_string(BATLEHUB_TEST_S3_PORT);
  const std::string door = storage_door_address();
  auto out = run({"connect", door, port});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "connect EACCES\n");
  auto bare = run({"connect", door, port}, "landlock");
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare->stdout_bytes, "connected\n") << "the storage network reaches the S3 server";
}

TEST_F(KubernetesEscape, an_image_whose_agent_leaves_out_its_walls_fails_the_probe_on_them) {
  auto o = test_k8s_options(ns_->worker_kubeconfig(), weak_.at("undumpable_landlock"), s3_, prefix_);
  KubernetesRuntime k(o);
  auto r = k.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  const std::string failure = r->first_failure().value_or("(passed)");
  EXPECT_EQ(failure.rfind("landlock: the kernel offers Landlock ABI ", 0), 0u) << failure;
  const wire::Assertion* a = assertion(*r, wire::Check::kAgentUnreachable);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->verdict, wire::AssertionVerdict::kFail) << a->evidence;
  EXPECT_NE(a->evidence.find("is dumpable"), std::string::npos) << a->evidence;
  // Without Landlock, what the pod leaves writable is named: the sandbox's /dev/shm fails,
  // the kubelet's termination log is a file RLIMIT_FSIZE bounds.
  const wire::Assertion* w = assertion(*r, wire::Check::kOneWritableDir);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->verdict, wire::AssertionVerdict::kFail) << w->evidence;
  EXPECT_NE(w->evidence.find("writable directories: /dev/shm"), std::string::npos) << w->evidence;
  EXPECT_NE(w->evidence.find("/dev/termination-log"), std::string::npos) << w->evidence;
}

TEST_F(KubernetesRuntimeTest, the_quota_refuses_a_pod_over_it) {
  // The chart's quota: 1 replica × 2 slots × (2048 + 512) MiB of limits.memory.
  auto quota = SandboxNamespace::admin("get resourcequota -n " + ns_->sandbox() +
                                       " -o jsonpath='{.items[0].spec.hard.limits\\.memory}'");
  ASSERT_TRUE(quota);
  EXPECT_EQ(*quota, "5Gi");  // the chart's 5120Mi, as the API server spells it
  KubernetesRuntime k(options());
  core::RunSpec spec = fixture_run_spec();
  spec.limits.memory_limit_mb = 6144;
  auto o = k.run(spec);
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().kind, Kind::kConfig);
  EXPECT_NE(o.error().message.find("exceeded quota"), std::string::npos) << o.error().message;
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

TEST_F(KubernetesRuntimeTest, a_pod_whose_image_is_not_there_fails_before_its_deadline_naming_why) {
  KubernetesOptions o = options();
  o.default_image = "localhost/batlehub-test-absent:" + std::to_string(::getpid());
  KubernetesRuntime k(o);
  core::RunSpec spec = fixture_run_spec();
  spec.timeout = std::chrono::seconds(600);
  auto r = k.run(spec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kCrashed);
  EXPECT_NE(r.error().message.find("could not start its container: Err"), std::string::npos) << r.error().message;
  EXPECT_EQ(pods_of(k.worker_label()), "");
}

// The agent could write no result (its POST form's signature spoiled, so S3 refuses it and no retry
// helps): its one stderr line becomes the container's termination message, and the run's
// error carries it, read from the pod's status alone (the Role has no pods/log).
TEST_F(KubernetesRuntimeTest, a_result_the_storage_refuses_is_a_crash_naming_the_refusal) {
  KubernetesRuntime k(options());
  KubernetesRuntimePeer::edit_pod(k, [](nlohmann::json& pod) {
    std::string out = pod["spec"]["containers"][0]["command"][4];
    const auto at = out.find("x-amz-signature=");
    ASSERT_NE(at, std::string::npos) << out;
    char& c = out[at + std::string("x-amz-signature=").size()];
    c = c == '0' ? '1' : '0';
    pod["spec"]["containers"][0]["command"][4] = out;
  });
  auto r = k.run(fixture_run_spec());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kCrashed) << r.error().message;
  EXPECT_NE(r.error().message.find("(Error, exit code 3: batlehub-sandbox: no result written: POST " +
                                   storage_door_address() + ":"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(": POST answered 403"), std::string::npos) << r.error().message;
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

TEST_F(KubernetesRuntimeTest, a_pod_that_never_answers_is_a_timeout_at_its_deadline_and_is_gone) {
  KubernetesOptions o = options();
  o.start_timeout = std::chrono::seconds(3);
  KubernetesRuntime k(o);
  // Not the agent: a program that never fetches its bundle and never writes a result.
  KubernetesRuntimePeer::edit_pod(k, [](nlohmann::json& pod) {
    pod["spec"]["containers"][0]["command"] = {"hostile", "hang"};
  });
  core::RunSpec spec = fixture_run_spec();
  spec.timeout = std::chrono::seconds(2);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = k.run(spec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kRunTimeout) << r.error().message;
  EXPECT_NE(r.error().message.find("ran past 5000 ms and was deleted"), std::string::npos) << r.error().message;
  // Bounded by the deadline, not by the watch's own timeout or the pod's end.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

// RFC 0022 §4.2: start_timeout bounds getting the agent to its bundle, apart from the
// scanner's own timeout. A pod whose container never starts (here an init container that
// never ends; in life an image still pulling, a pod nobody schedules) is a start timeout at
// start_timeout, naming what it waited on, not a run timeout at the whole deadline.
TEST_F(KubernetesRuntimeTest, a_pod_whose_container_never_starts_is_a_start_timeout_naming_what_it_waited_on) {
  KubernetesOptions o = options();
  o.start_timeout = std::chrono::seconds(4);
  KubernetesRuntime k(o);
  KubernetesRuntimePeer::edit_pod(k, [](nlohmann::json& pod) {
    nlohmann::json wait = pod["spec"]["containers"][0];
    wait["name"] = "never-done";
    wait.erase("volumeMounts");
    wait["command"] = {"/usr/bin/hostile", "hang"};
    pod["spec"]["initContainers"] = nlohmann::json::array({wait});
  });
  core::RunSpec spec = fixture_run_spec();
  spec.timeout = std::chrono::seconds(600);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = k.run(spec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Kind::kStartTimeout) << r.error().message;
  EXPECT_NE(
      r.error().message.find(" did not start its container within 4 s (start_timeout_secs; it was PodInitializing"),
      std::string::npos)
      << r.error().message;
  EXPECT_EQ(core::outcome_label(r), "start_timeout");
  // Bounded by start_timeout, not by the 600 s the scanner was given.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

TEST_F(KubernetesRuntimeTest, a_killed_worker_leaves_a_pod_and_keys_that_the_next_sweep_removes) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    KubernetesRuntime k(options());
    core::RunSpec spec = fixture_run_spec();
    spec.argv = {"hostile", "hang"};
    spec.timeout = std::chrono::seconds(600);
    (void)k.run(spec);
    ::_exit(0);
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string worker = std::to_string(child) + "@" + host;
  std::string pods;
  for (int i = 0; i < 300 && pods.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    pods = pods_of(worker);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_NE(pods, "") << "the worker's pod never appeared";
  ASSERT_FALSE(keys().empty()) << "the run's bundle keys should still be there";

  KubernetesRuntime next(options());
  auto swept = next.sweep(std::chrono::seconds(0));
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_EQ(swept->of(core::OrphanKind::kPod), 1u) << swept->describe();
  // The run's staged keys are one bundle; the job's uploaded artifact, when there is one, another.
  EXPECT_GE(swept->of(core::OrphanKind::kBundle), 1u) << swept->describe();
  EXPECT_LE(swept->of(core::OrphanKind::kBundle), 2u) << swept->describe();
  std::string left = pods_of(worker);
  for (int i = 0; i < 150 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    left = pods_of(worker);
  }
  EXPECT_EQ(left, "");
  // A pod the sweep deletes is not dead yet: its agent, whose manifest the sweep took away,
  // may still write a failure as out.tar in the second it has left (seen). Such a key is a
  // dead worker's, and the next idle sweep removes it whatever its age.
  auto again = next.sweep(std::chrono::seconds(0));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->of(core::OrphanKind::kPod), 0u) << again->describe();
  EXPECT_LE(again->of(core::OrphanKind::kBundle), 1u) << again->describe();
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

// Issue 32's fault: the cluster's API server, then its kubelet, restarted (scripts/k8s-peer.sh
// restart: stopped as a service manager stops them, started again on the same flags) while a
// pod's scanner runs. A suite of its own, run alone (tests/adapters/CMakeLists.txt: RUN_SERIAL):
// the cluster is every k8s test's.
class KubernetesOutage : public KubernetesRuntimeTest {
 protected:
  static int restart(const std::string& component, int down_secs = 0) {
    return std::system((std::string(BATLEHUB_SOURCE_DIR) + "/scripts/k8s-peer.sh restart " + BATLEHUB_TEST_K8S_DIR +
                        " " + component + (down_secs > 0 ? " --down-for " + std::to_string(down_secs) : "") +
                        " >/dev/null")
                           .c_str());
  }
  // A process of this cluster's pods (their cgroups are under its root, batlehub-k8s) runs
  // `hostile sleep`.
  static bool scanner_sleeping() { return hostile_sleeping_in_cgroup("batlehub-k8s"); }
  // Up to 90 s: a pod is scheduled, its image started, its bundle fetched.
  static bool wait_for_the_scanner() {
    for (int i = 0; i < 900; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (scanner_sleeping()) return true;
    }
    return false;
  }
};

TEST_F(KubernetesOutage, the_api_server_and_the_kubelet_restarted_mid_pod) {
  KubernetesRuntime k(options());
  core::RunSpec spec = fixture_run_spec();
  spec.argv = {"hostile", "sleep", "20"};
  spec.timeout = std::chrono::seconds(120);
  auto pending = std::async(std::launch::async, [&] { return k.run(spec); });
  ASSERT_TRUE(wait_for_the_scanner()) << "the scanner never started";
  ASSERT_EQ(restart("kube-apiserver"), 0) << "k8s-peer.sh restart kube-apiserver";
  ASSERT_EQ(restart("kubelet"), 0) << "k8s-peer.sh restart kubelet";
  auto r = pending.get();
  std::cout << (r ? "the run passed: " + r->stdout_bytes : "the run failed: " + r.error().message) << "\n";
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->stdout_bytes, "slept 20\n");
  EXPECT_EQ(pods_of(k.worker_label()), "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

// The API server away past the run's deadline: the run is the sandbox's failure (transient:
// the worker gives the job another attempt), not the scanner's timeout, and says which outage;
// what the run could not delete while the server was away is the sweep's once it is back.
TEST_F(KubernetesOutage, an_api_server_away_past_the_runs_deadline_is_the_sandboxs_failure_and_its_pod_the_sweeps) {
  KubernetesOptions o = options();
  o.start_timeout = std::chrono::seconds(10);
  KubernetesRuntime k(o);
  core::RunSpec spec = fixture_run_spec();
  spec.argv = {"hostile", "sleep", "60"};
  spec.timeout = std::chrono::seconds(5);  // the deadline: 15 s after the pod was created
  auto pending = std::async(std::launch::async, [&] { return k.run(spec); });
  ASSERT_TRUE(wait_for_the_scanner()) << "the scanner never started";
  auto outage = std::async(std::launch::async, [] { return restart("kube-apiserver", 25); });
  auto r = pending.get();
  ASSERT_EQ(outage.get(), 0) << "k8s-peer.sh restart kube-apiserver --down-for 25";
  ASSERT_FALSE(r) << "a run the API server never saw end cannot pass";
  std::cout << "the run failed: " << r.error().message << "\n";
  EXPECT_EQ(r.error().reason, core::SandboxError::Reason::kTransport) << r.error().message;
  EXPECT_TRUE(core::to_scanner_error(r.error()).transient);
  EXPECT_NE(r.error().message.find("the API server did not answer until the run's deadline"), std::string::npos)
      << r.error().message;

  auto swept = k.sweep(std::chrono::seconds(0));
  ASSERT_TRUE(swept) << swept.error().message;
  // The run's delete could not reach the server: the pod is still there, ended by its
  // activeDeadlineSeconds or not, until the sweep deletes it.
  EXPECT_EQ(swept->of(core::OrphanKind::kPod), 1u) << swept->describe();
  std::string left = pods_of(k.worker_label());
  for (int i = 0; i < 150 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    left = pods_of(k.worker_label());
  }
  EXPECT_EQ(left, "");
  EXPECT_EQ(keys(), std::vector<std::string>{});
}

TEST_F(KubernetesRuntimeTest, a_sweep_while_this_worker_runs_leaves_its_pod_alone) {
  KubernetesRuntime k(options());
  core::RunSpec spec = fixture_run_spec();
  spec.argv = {"hostile", "hang"};
  spec.timeout = std::chrono::seconds(8);  // the agent ends the scanner then, and writes its result
  Expected<core::RunOutput, core::SandboxError> ran = Unexpected(core::SandboxError{});
  std::thread run([&] { ran = k.run(spec); });
  std::string pods;
  for (int i = 0; i < 300 && pods.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    pods = pods_of(k.worker_label());
  }
  // The idle pass of another pool slot: the same runtime, the same worker label.
  auto swept = k.sweep(std::chrono::seconds(0));
  run.join();
  ASSERT_NE(pods, "") << "the run's pod never appeared";
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_EQ(swept->total(), 0u) << swept->describe();
  // What it looked for is said, at 0: the metric's series exist before anything is left.
  EXPECT_TRUE(swept->removed.contains(core::OrphanKind::kPod));
  EXPECT_TRUE(swept->removed.contains(core::OrphanKind::kBundle));
  // Its pod lived to write a result: the agent's own timeout, not the pod's deletion.
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().kind, Kind::kRunTimeout);
  EXPECT_NE(ran.error().message.find("hostile ran past its timeout"), std::string::npos) << ran.error().message;
}

TEST_F(KubernetesRuntimeTest, the_workers_role_may_run_pods_and_nothing_else) {
  auto creds = load_kubeconfig(ns_->worker_kubeconfig());
  ASSERT_TRUE(creds) << creds.error();
  KubeApi api(*creds);
  const std::string pods = "/api/v1/namespaces/" + ns_->sandbox() + "/pods";
  auto status = [&](std::string_view method, const std::string& path) {
    auto r = api.call(method, path, method == "POST" ? "{}" : "");
    return r ? r->status : -1;
  };
  EXPECT_EQ(status("GET", pods), 200);
  EXPECT_EQ(status("GET", pods + "/any/log"), 403);
  EXPECT_EQ(status("POST", pods + "/any/exec?command=true&stdout=true"), 403);
  EXPECT_EQ(status("POST", pods + "/any/attach?stdout=true"), 403);
  EXPECT_EQ(status("GET", "/api/v1/namespaces/" + ns_->sandbox() + "/secrets"), 403);
  EXPECT_EQ(status("GET", "/api/v1/namespaces/" + ns_->release() + "/pods"), 403);
  EXPECT_EQ(status("GET", "/api/v1/namespaces/" + ns_->sandbox() + "/serviceaccounts"), 403);
}

TEST_F(KubernetesRuntimeTest, in_cluster_credentials_reach_the_api_server_as_the_service_account) {
  // The directory the kubelet would mount, made from the worker's token and the cluster's CA.
  auto creds = load_kubeconfig(ns_->worker_kubeconfig());
  ASSERT_TRUE(creds) << creds.error();
  const fs::path sa = s_.root() / "serviceaccount";
  fs::create_directories(sa);
  std::ofstream(sa / "token") << creds->token << "\n";
  std::ofstream(sa / "ca.crt") << creds->ca_pem;
  std::ofstream(sa / "namespace") << ns_->sandbox() << "\n";
  auto in = in_cluster_credentials(
      config::env_of({{"KUBERNETES_SERVICE_HOST", "127.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}), sa.string());
  ASSERT_TRUE(in) << in.error();
  EXPECT_EQ(in->namespace_, ns_->sandbox());
  auto r = KubeApi(*in).call("GET", "/api/v1/namespaces/" + in->namespace_ + "/pods");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->status, 200) << r->message();
  // A CA that did not sign the server's certificate is refused, never skipped.
  KubeCredentials wrong = *in;
  wrong.ca_pem.clear();  // the system's roots, which never signed the test cluster's certificate
  auto refused = KubeApi(wrong).call("GET", "/api/v1/namespaces/" + in->namespace_ + "/pods");
  EXPECT_FALSE(refused);
}

TEST_F(KubernetesRuntimeTest, the_operators_config_builds_a_runtime_whose_probe_passes) {
  const fs::path toml = s_.root() / "config.toml";
  std::ofstream(toml) << "[storage]\ntype = \"s3\"\nendpoint_url = \"" << pod_storage_endpoint() << "\"\nbucket = \""
                      << BATLEHUB_TEST_S3_BUCKET << "\"\nregion = \"us-east-1\"\nforce_path_style = true"
                      << "\n[worker.sandbox]\nruntime = \"kubernetes\"\nprobe_canaries = []\nbundle_prefix = \""
                      << prefix_ << "\"\nstart_timeout_secs = 90\n[worker.sandbox.kubernetes]\nkubeconfig = \""
                      << ns_->worker_kubeconfig() << "\"\nimage = \"" << image_ << "\"\n";
  auto env = config::env_of(
      {{"AWS_ACCESS_KEY_ID", BATLEHUB_TEST_S3_ACCESS_KEY}, {"AWS_SECRET_ACCESS_KEY", BATLEHUB_TEST_S3_SECRET_KEY}});
  auto loaded = config::load_file(toml.string(), env);
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto runtime = server::build_sandbox_runtime(loaded->config, env);
  ASSERT_TRUE(runtime) << runtime.error();
  EXPECT_EQ((*runtime)->name(), "kubernetes");
  // RFC 0022 §1's probing line names this: the namespace (the kubeconfig's), the bundles' place.
  EXPECT_EQ((*runtime)->where(), "namespace " + ns_->sandbox() + ", bundles on s3://" +
                                     std::string(BATLEHUB_TEST_S3_BUCKET) + "/" + prefix_);
  auto r = (*runtime)->probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
}

}  // namespace
}  // namespace batlehub::adapters
