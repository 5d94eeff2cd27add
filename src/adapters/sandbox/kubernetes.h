// The `kubernetes` runtime: one pod per run, through the API server (RFC 0022 §5.3). Its
// walls: the restricted Pod Security Standard the sandbox namespace enforces (the pod asks
// for it field by field: pod_manifest.h), the NetworkPolicies the chart installs (selected
// by the pod's io.batlehub/network label; the runtime never touches one), the namespace's
// ResourceQuota, the container's memory and CPU limits with /work a memory emptyDir charged
// to them, and the agent's own rlimits and seccomp filter inside. The pod is given two
// presigned URLs and nothing else: the bundle always goes through storage (§5.2).
//
// The worker's Role needs pods create/get/list/watch/delete and nothing on a subresource:
// a pod is created, watched to Succeeded or Failed (bounded by the run's deadline, which
// activeDeadlineSeconds also sets on the pod), its out.tar read from storage, and the pod
// deleted with a zero grace period on every path. There is no attach, no exec, no log.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "adapters/sandbox/kube_api.h"
#include "adapters/sandbox/pod_manifest.h"
#include "adapters/storage/bundle.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

// [worker.sandbox.kubernetes], read and checked by kubernetes_registration
// (docs/configuration.md).
struct KubernetesTable {
  static constexpr std::string_view kName = "kubernetes";
  std::string namespace_;  // "" = the worker's own namespace; the TOML key is `namespace`
  std::string service_account = "batlehub-sandbox";
  std::string image;  // "" = BATLEHUB_IMAGE's, else none (config::image_for)
  std::string runtime_class;
  std::map<std::string, std::string> node_selector;
  std::vector<std::string> image_pull_secrets;
  std::int64_t orphan_after_secs = 900;
  // Ours: a worker outside the cluster names a kubeconfig (its current context, or
  // `context`); "" = the in-cluster service account's token and CA, as the RFC has it.
  std::string kubeconfig;
  std::string context;
  bool operator==(const KubernetesTable&) const = default;
};

struct RuntimeRegistration;
RuntimeRegistration kubernetes_registration();

struct KubernetesOptions {
  std::shared_ptr<const KubeApi> api;
  std::string namespace_;  // where pods are created ("" = the credentials' own namespace)
  std::string service_account = "batlehub-sandbox";
  std::string runtime_class;
  std::map<std::string, std::string> node_selector;
  std::vector<std::string> image_pull_secrets;
  // The image of each scanner, and of anything else (a probe of a room no scanner names).
  std::map<std::string, std::string> images;
  std::string default_image;
  std::chrono::seconds start_timeout{120};
  std::vector<std::string> probe_canaries;
  // A pod still there this long past its deadline is an orphan, whoever created it.
  std::chrono::seconds orphan_after{900};
  std::shared_ptr<BundleStore> bundles;  // required: a pod shares no filesystem with the worker
};

class KubernetesRuntime final : public core::SandboxRuntime {
 public:
  explicit KubernetesRuntime(KubernetesOptions o);

  std::string_view name() const override { return "kubernetes"; }
  std::string where() const override;
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override;
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override;
  // Deletes the pods (labelled io.batlehub/worker) of a worker gone — this worker's own
  // from before a restart, or a dead worker's of this host — and any whose deadline passed
  // more than `older_than` (or orphan_after) ago, then the bundle keys the same way.
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds older_than) override;
  void close_job(const std::string& job) override;
  std::string hint(std::optional<wire::Check> failed) const override;

  const std::string& worker_label() const { return worker_; }
  const std::string& namespace_name() const { return namespace_; }

 private:
  // What happened to a pod: its phase and the container's terminated or waiting state.
  struct PodEnd {
    std::string name;
    PodState state;
    bool timed_out = false;  // the deadline came first
    // start_timeout came first and the sandbox's container had not started: an image
    // still pulling, a pod nobody schedules, an init container that never ends.
    bool start_timed_out = false;
  };
  // Creates the pod for `staged` and watches it to its end or `deadline`; deletes it however
  // it ended (before returning).
  Expected<PodEnd, core::SandboxError> contain(const core::RunLabel& label, const std::string& image, bool network,
                                               const core::Limits& limits, std::chrono::milliseconds deadline,
                                               const StagedRun& staged, core::RunTrace* trace = nullptr);
  Expected<PodEnd, core::SandboxError> watch_to_end(const std::string& pod, std::string resource_version,
                                                    std::chrono::steady_clock::time_point start_until,
                                                    std::chrono::steady_clock::time_point until);
  void delete_pod(const std::string& pod) const;
  core::SandboxError start_timeout_error(const PodEnd& end, const std::string& scanner) const;
  std::string pods_path() const;

  friend class KubernetesRuntimePeer;
  std::function<void(nlohmann::json&)> edit_pod_for_tests_;

  KubernetesOptions options_;
  std::string namespace_;
  std::string worker_;
  mutable std::mutex mu_;
  std::set<std::string> in_flight_;  // pods this process created and has not deleted
  std::size_t creating_ = 0;         // pods being created, whose names are not known yet
};

}  // namespace batlehub::adapters
