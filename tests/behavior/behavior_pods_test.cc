// The detonation in pods on the tests' Kubernetes cluster (the ctest fixture "k8s"): the
// behavior image imported into the cluster's containerd from the very room bwrap binds, run
// by the kubernetes runtime in a sandbox namespace the Helm chart made, with its worker's
// credentials, under the pod's RuntimeDefault seccomp profile and the chart's
// NetworkPolicy. Issue 47's hostile packages must give there the findings, with their
// evidence, that they give under bwrap (hostile_packages.h), and the probe and the
// observer's self-test must pass in a pod.
#include <gtest/gtest.h>

#include "adapters/sandbox/kubernetes.h"
#include "hostile_packages.h"
#include "k8s_cluster.h"
#include "real_scanners.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

class BehaviorInPods : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = k8s_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ns_ = std::make_unique<SandboxNamespace>("det");
    ASSERT_TRUE(ns_->ok()) << "the chart's sandbox namespace could not be made (k8s_sandbox_namespace.py up)";
    rooms_ = s_.root() / "rooms";
    s3_ = test_s3();
    ASSERT_NE(s3_, nullptr);
    ASSERT_EQ(build_room_from(rooms_, "behavior", "behavior",
                              std::string("--binary ") + BATLEHUB_BEHAVIOR_BIN + ":/usr/local/bin/batlehub-behavior"),
              "");
    image_ = "localhost/batlehub-test-behavior:" + std::to_string(::getpid());
    ASSERT_EQ(import_into_cluster(rooms_ / "behavior", image_, kSource + "/rooms/behavior.toml"), "");
  }
  void TearDown() override {
    if (!image_.empty()) remove_from_cluster(image_);
    ns_.reset();
  }
  std::unique_ptr<KubernetesRuntime> pods() {
    return std::make_unique<KubernetesRuntime>(
        test_k8s_options(ns_->worker_kubeconfig(), image_, s3_, "det-" + std::to_string(::getpid()) + "/"));
  }

  Scratch s_;
  fs::path rooms_;
  std::unique_ptr<SandboxNamespace> ns_;
  std::shared_ptr<core::StorageBackend> s3_;
  std::string image_;
};

TEST_F(BehaviorInPods, the_issue_s_hostile_packages_give_their_findings_with_their_evidence) {
  auto rt = pods();
  expect_the_hostile_packages_found(*rt, "in a pod");
}

TEST_F(BehaviorInPods, the_probe_passes_in_a_pod_and_the_observer_sees_its_self_test) {
  auto rt = pods();
  expect_the_detonation_room_proven(*rt, image_);
}

}  // namespace
}  // namespace batlehub::adapters
