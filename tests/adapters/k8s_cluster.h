// The tests' Kubernetes cluster (the ctest fixture "k8s": scripts/k8s-peer.sh, on loopback),
// as the kubernetes runtime's tests use it: why it cannot be used here, a sandbox namespace
// made by the Helm chart with a worker's credentials bound to the chart's Role
// (tests/scripts/k8s_sandbox_namespace.py), sandbox images imported into the cluster's
// containerd, and the runtime's options over the tests' S3 server.
//
// Inside every pod of this cluster 127.0.0.1:<the S3 fixture's port> is the S3 server and
// nothing else is reachable (scripts/k8s-peer.sh, "The storage network").
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "adapters/sandbox/kubernetes.h"
#include "adapters/sandbox/oci.h"
#include "adapters/storage/bundle.h"
#include "adapters/storage/router.h"
#include "adapters/storage/s3_backend.h"
#include "rooms.h"
#include "storage/s3_peer.h"

namespace batlehub::testing {

// `cmd`'s stdout, or nullopt when it failed.
inline std::optional<std::string> command_out(const std::string& cmd) {
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

inline std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Why the cluster cannot be used here, or "" when it can. Only a missing binary (or a build
// whose agent is not static) skips: a cluster that should be there and is not fails.
inline std::string k8s_unavailable() {
  if (!BATLEHUB_AGENT_STATIC) {
    return "this build links the agent dynamically (sanitizers cannot link statically), and a sandbox image FROM "
           "scratch needs the static agent; the kubernetes runtime tests run in the release build";
  }
  if (auto why = s3_peer_unavailable(); !why.empty()) return why;
  auto missing = command_out(std::string(BATLEHUB_TEST_K8S_PEER) + " missing --relay " + BATLEHUB_TEST_K8S_RELAY);
  if (!missing) {
    auto m =
        command_out(std::string(BATLEHUB_TEST_K8S_PEER) + " missing --relay " + BATLEHUB_TEST_K8S_RELAY + " || true");
    return "the test cluster lacks: " + trimmed(m.value_or("(k8s-peer.sh missing said nothing)")) +
           " (scripts/install-kubernetes.sh and scripts/install-deps.sh install it)";
  }
  return "";
}

inline std::string s3_endpoint() {
  return env_or("BATLEHUB_TEST_S3_ENDPOINT", "http://127.0.0.1:" + std::to_string(BATLEHUB_TEST_S3_PORT));
}

// A sandbox namespace as the chart makes it, and a worker kubeconfig for it; gone with it.
class SandboxNamespace {
 public:
  explicit SandboxNamespace(const std::string& tag) {
    name_ = "bh-" + tag + "-" + std::to_string(::getpid());
    kubeconfig_ = "/tmp/" + name_ + ".kubeconfig";
    auto out =
        command_out("python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/tests/scripts/k8s_sandbox_namespace.py up " +
                    BATLEHUB_SOURCE_DIR + "/deploy/helm/batlehub " + BATLEHUB_TEST_K8S_HELM + " " +
                    BATLEHUB_TEST_K8S_KUBECTL + " " + BATLEHUB_TEST_K8S_KUBECONFIG + " " + name_ + " " +
                    std::to_string(BATLEHUB_TEST_S3_PORT) + " " + kubeconfig_);
    if (out) sandbox_ = trimmed(*out);
  }
  ~SandboxNamespace() {
    std::system(("python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/tests/scripts/k8s_sandbox_namespace.py down " +
                 BATLEHUB_TEST_K8S_KUBECTL + " " + BATLEHUB_TEST_K8S_KUBECONFIG + " " + name_ + " >/dev/null 2>&1")
                    .c_str());
    ::unlink(kubeconfig_.c_str());
  }
  SandboxNamespace(const SandboxNamespace&) = delete;
  SandboxNamespace& operator=(const SandboxNamespace&) = delete;

  bool ok() const { return !sandbox_.empty(); }
  const std::string& release() const { return name_; }     // the worker's; no Pod Security label
  const std::string& sandbox() const { return sandbox_; }  // restricted, the Role, the quota
  const std::string& worker_kubeconfig() const { return kubeconfig_; }

  // `kubectl <args>` as the cluster's admin.
  static std::optional<std::string> admin(const std::string& args) {
    return command_out(std::string(BATLEHUB_TEST_K8S_KUBECTL) + " --kubeconfig " + BATLEHUB_TEST_K8S_KUBECONFIG + " " +
                       args);
  }

 private:
  std::string name_;
  std::string sandbox_;
  std::string kubeconfig_;
};

// The room at room_dir imported into the cluster's containerd as `tag`: "" or what failed.
inline std::string import_into_cluster(const fs::path& room_dir, const std::string& tag) {
  const std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-image.py --room " +
                          room_dir.string() + " --engine containerd --containerd-address " +
                          BATLEHUB_TEST_K8S_CONTAINERD_SOCK + " --tag " + tag + " >/dev/null";
  return std::system(cmd.c_str()) == 0 ? "" : cmd;
}

inline void remove_from_cluster(const std::string& tag) {
  std::system(("python3 " + std::string(BATLEHUB_SOURCE_DIR) +
               "/scripts/build-image.py --remove --engine containerd --containerd-address " +
               BATLEHUB_TEST_K8S_CONTAINERD_SOCK + " --tag " + tag + " >/dev/null 2>&1")
                  .c_str());
}

// The tests' S3 server as the bundle backend.
inline std::shared_ptr<core::StorageBackend> test_s3() {
  auto s3 = adapters::S3Backend::create(test_s3_config(s3_endpoint(), "bundles"), test_s3_env());
  if (!s3) return nullptr;
  return std::shared_ptr<core::StorageBackend>(std::move(*s3));
}

// The runtime's options: the worker's credentials (`kubeconfig`), the sandbox namespace,
// every run in `image`, bundles under `prefix` on `s3`, canaries of the tests' own.
inline adapters::KubernetesOptions test_k8s_options(const std::string& kubeconfig, const std::string& image,
                                                    const std::shared_ptr<core::StorageBackend>& s3,
                                                    const std::string& prefix,
                                                    const std::string& worker = adapters::oci_worker_label()) {
  adapters::KubernetesOptions o;
  auto creds = adapters::load_kubeconfig(kubeconfig);
  if (creds) o.api = std::make_shared<adapters::KubeApi>(std::move(*creds));
  o.default_image = image;
  o.start_timeout = std::chrono::seconds(90);
  o.probe_canaries = {};
  auto router =
      std::make_shared<adapters::StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{s3}, "bundles");
  o.bundles = std::make_shared<adapters::BundleStore>(
      s3, router, adapters::BundleOptions{prefix, std::chrono::seconds(60), worker});
  return o;
}

}  // namespace batlehub::testing
