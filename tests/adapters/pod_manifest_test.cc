// pod_manifest as data: every field of RFC 0022 §5.3's pod, and what the restricted Pod
// Security Standard checks on a pod (the API server's own admission of it comes with the
// kubernetes runtime, which creates it on a real cluster).
#include "adapters/sandbox/pod_manifest.h"

#include <set>

#include "adapters/sandbox/kubernetes.h"

#include <gtest/gtest.h>

namespace batlehub::adapters {
namespace {

using nlohmann::json;

PodManifestInput input() {
  PodManifestInput in;
  in.namespace_ = "batlehub-sandbox";
  in.scanner = "guarddog";
  in.worker = "4242@worker-a";
  in.job = "0f8e3c1a-6a1b-4c55-9b7e-1d2f3a4b5c6d";
  in.active_deadline_secs = 720;
  in.image = "registry.local/batlehub-sandbox-guarddog@sha256:aaaa";
  in.in_url = "https://s3.local/b/sandbox/j/guarddog/1/r/manifest.json?X-Amz-Signature=aa";
  in.out_url = "https://s3.local/b/sandbox/j/guarddog/1/r/out.tar?X-Amz-Signature=bb";
  in.memory_mb = 2048;
  in.work_mb = 512;
  return in;
}

TEST(PodManifest, every_field_of_the_rfcs_pod_is_there) {
  const json p = pod_manifest(input());
  EXPECT_EQ(p["apiVersion"], "v1");
  EXPECT_EQ(p["kind"], "Pod");
  EXPECT_EQ(p["metadata"]["generateName"], "batlehub-sbx-guarddog-");
  EXPECT_EQ(p["metadata"]["namespace"], "batlehub-sandbox");
  EXPECT_EQ(p["metadata"]["labels"], (json{{"app.kubernetes.io/name", "batlehub"},
                                           {"app.kubernetes.io/component", "sandbox"},
                                           {"io.batlehub/worker", "4242_worker-a"},
                                           {"io.batlehub/job", "0f8e3c1a-6a1b-4c55-9b7e-1d2f3a4b5c6d"},
                                           {"io.batlehub/network", "storage"}}));
  const json& spec = p["spec"];
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_EQ(spec["activeDeadlineSeconds"], 720);
  EXPECT_EQ(spec["serviceAccountName"], "batlehub-sandbox");
  EXPECT_EQ(spec["automountServiceAccountToken"], false);
  EXPECT_EQ(spec["enableServiceLinks"], false);
  EXPECT_FALSE(spec.contains("runtimeClassName"));
  EXPECT_FALSE(spec.contains("nodeSelector"));
  ASSERT_EQ(spec["containers"].size(), 1u);
  const json& c = spec["containers"][0];
  EXPECT_EQ(c["image"], "registry.local/batlehub-sandbox-guarddog@sha256:aaaa");
  EXPECT_EQ(c["command"], (json{"batlehub-sandbox", "--in", input().in_url, "--out", input().out_url}));
  EXPECT_FALSE(c.contains("args"));
  EXPECT_EQ(c["stdin"], false);
  EXPECT_EQ(c["tty"], false);
  // The agent's stderr line where it wrote no result: the reason in the pod's status.
  EXPECT_EQ(c["terminationMessagePolicy"], "FallbackToLogsOnError");
  EXPECT_EQ(c["env"], (json{{{"name", "HOME"}, {"value", "/work"}},
                            {{"name", "PATH"}, {"value", "/usr/local/bin:/usr/bin:/bin"}}}));
  EXPECT_EQ(c["workingDir"], "/work");
  EXPECT_EQ(c["resources"]["limits"], (json{{"memory", "2048Mi"}, {"cpu", "1"}}));
  EXPECT_EQ(c["resources"]["requests"], (json{{"memory", "2048Mi"}, {"cpu", "250m"}}));
  EXPECT_EQ(c["volumeMounts"],
            (json{{{"name", "work"}, {"mountPath", "/work"}}, {{"name", "tmp"}, {"mountPath", "/tmp"}}}));
  EXPECT_EQ(spec["volumes"], (json{{{"name", "work"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "512Mi"}}}},
                                   {{"name", "tmp"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "512Mi"}}}}}));
}

// The restricted profile's checks, one by one (kubernetes.io/docs/concepts/security/pod-security-standards).
TEST(PodManifest, meets_the_restricted_pod_security_standard) {
  const json p = pod_manifest(input());
  const json& spec = p["spec"];
  const json& c = spec["containers"][0];
  EXPECT_EQ(spec["hostNetwork"], false);
  EXPECT_EQ(spec["hostPID"], false);
  EXPECT_EQ(spec["hostIPC"], false);
  EXPECT_EQ(c["securityContext"]["privileged"], false);
  EXPECT_EQ(c["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(c["securityContext"]["capabilities"], (json{{"drop", {"ALL"}}}));
  EXPECT_FALSE(c["securityContext"]["capabilities"].contains("add"));
  EXPECT_EQ(c["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(spec["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(spec["securityContext"]["runAsUser"], 65532);
  EXPECT_EQ(spec["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
  EXPECT_EQ(c["securityContext"]["readOnlyRootFilesystem"], true);
  for (const json& v : spec["volumes"]) EXPECT_FALSE(v.contains("hostPath")) << v.dump();
  EXPECT_FALSE(c.contains("ports"));
}

TEST(PodManifest, a_network_run_is_selected_by_the_egress_policy_and_the_options_appear_when_set) {
  PodManifestInput in = input();
  in.network = true;
  in.runtime_class = "gvisor";
  in.node_selector = {{"batlehub.io/sandbox", "true"}};
  in.image_pull_secrets = {"registry-cred"};
  const json p = pod_manifest(in);
  EXPECT_EQ(p["metadata"]["labels"]["io.batlehub/network"], "egress");
  EXPECT_EQ(p["spec"]["runtimeClassName"], "gvisor");
  EXPECT_EQ(p["spec"]["nodeSelector"], (json{{"batlehub.io/sandbox", "true"}}));
  EXPECT_EQ(p["spec"]["imagePullSecrets"], (json{{{"name", "registry-cred"}}}));
}

TEST(PodManifest, names_and_label_values_are_what_the_api_server_accepts) {
  EXPECT_EQ(pod_name_prefix("GuardDog_v2"), "batlehub-sbx-guarddog-v2-");
  const std::string long_prefix = pod_name_prefix(std::string(100, 'a'));
  EXPECT_LE(long_prefix.size() + 5, 63u) << long_prefix;
  EXPECT_EQ(label_value("4242@worker-a.example"), "4242_worker-a.example");
  EXPECT_EQ(label_value("-x-"), "x");
  EXPECT_EQ(label_value(std::string(80, 'b')).size(), 63u);
  EXPECT_EQ(label_value(""), "");
}

// The probe's second line on kubernetes is about what failed: a hint for every check, each
// leading to the operations page, naming the namespace where it is fixed there.
TEST(KubernetesHint, each_failed_check_gets_the_hint_for_it) {
  KubernetesOptions o;
  o.namespace_ = "scans";
  KubernetesRuntime k8s(o);
  std::set<std::string> distinct;
  for (auto c : wire::every_check()) {
    const std::string h = k8s.hint(c);
    EXPECT_TRUE(h.ends_with("See docs/operations/kubernetes.md")) << wire::to_string(c) << ": " << h;
    distinct.insert(h);
  }
  EXPECT_GE(distinct.size(), 10u);
  EXPECT_EQ(k8s.hint(std::nullopt).rfind("kubernetes needs the worker's credentials", 0), 0u);
  EXPECT_NE(k8s.hint(std::nullopt).find("namespace 'scans'"), std::string::npos);
  EXPECT_NE(k8s.hint(wire::Check::kPidsBounded).find("podPidsLimit"), std::string::npos);
  EXPECT_NE(k8s.hint(wire::Check::kNoNetwork).find("NetworkPolicies in namespace 'scans'"), std::string::npos);
  EXPECT_NE(k8s.hint(wire::Check::kUnprivileged).find("mutating admission webhook"), std::string::npos);
  EXPECT_NE(k8s.hint(wire::Check::kNoCredentials).find("'batlehub-sandbox'"), std::string::npos);
  EXPECT_EQ(k8s.hint(wire::Check::kNoShell).rfind("the image holds a shell", 0), 0u);
  // The keys a hint names are the loader's: `image`, never an `images` that does not exist.
  const std::string missing = k8s.hint(wire::Check::kCommandsExist);
  EXPECT_NE(missing.find("[scanners.<name>] image (or [worker.sandbox.kubernetes] image,"), std::string::npos)
      << missing;
  EXPECT_EQ(missing.find("images"), std::string::npos) << missing;
}

}  // namespace
}  // namespace batlehub::adapters
