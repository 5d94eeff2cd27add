// The `kubernetes` runtime's pod, as a pure function (RFC 0022 §5.3): one pod per run,
// field by field from the RFC, and what the restricted Pod Security Standard asks of every
// pod; and, the other way, what a pod object the API server returns says of how it ended
// (pod_state). Pure functions, tested as data (pod_manifest_test.cc, kube_api_test.cc) and
// fuzzed (fuzz_pod_state); the API server's own validation and admission of the pod are
// tested where the runtime creates it (kubernetes_runtime_test.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace batlehub::adapters {

// The label that says which NetworkPolicy selects a pod.
inline constexpr const char* kPodNetworkLabel = "io.batlehub/network";
inline constexpr const char* kPodWorkerLabel = "io.batlehub/worker";
inline constexpr const char* kPodJobLabel = "io.batlehub/job";

struct PodManifestInput {
  std::string namespace_;  // where the pod is created
  std::string scanner;     // names the pod (generateName) and labels it
  std::string worker;      // "<pid>@<host>", made a label value
  std::string job;
  bool network = false;                   // false: io.batlehub/network=storage; true: egress
  std::int64_t active_deadline_secs = 0;  // start_timeout + the scanner's timeout
  std::string service_account = "batlehub-sandbox";
  std::string runtime_class;  // "" = none
  std::map<std::string, std::string> node_selector;
  std::vector<std::string> image_pull_secrets;
  std::string image;
  std::string in_url;   // the manifest's presigned GET
  std::string out_url;  // out.tar's presigned POST form (wire/post_form.h)
  std::uint64_t memory_mb = 2048;
  std::uint64_t work_mb = 512;  // /work's memory emptyDir: max_extracted_mb
};

nlohmann::json pod_manifest(const PodManifestInput& in);

// A label value from any string: at most 63 characters of [A-Za-z0-9._-], beginning and
// ending with a letter or a digit ("" stays ""). Characters outside are replaced by '_'.
std::string label_value(std::string_view s);

// generateName's prefix from a scanner's name: "batlehub-sbx-<name>-", lowercase DNS-1123,
// short enough for the API server's random suffix.
std::string pod_name_prefix(std::string_view scanner);

// Where a pod stands, from its object as the API returns it: ended (Succeeded, Failed), or
// never going to start (a container waiting on an image that is not there, a config error),
// or still on its way (kRunning, which includes Pending). A pure function, tested as data.
struct PodState {
  enum class Where { kRunning, kEnded, kCannotStart };
  Where where = Where::kRunning;
  std::string phase;
  std::string reason;  // the pod's (DeadlineExceeded), else the container's (OOMKilled, ErrImageNeverPull…)
  std::string detail;  // the pod's or the container's message, its exit code
  // The sandbox's container has started (running or terminated): the pod is past its
  // image pull, its scheduling and its init containers.
  bool started = false;
  // While not started, what it waits on: the container's waiting reason
  // (ContainerCreating, PodInitializing), else the pod's phase and condition.
  std::string waiting;
};
PodState pod_state(const nlohmann::json& pod);

// A string field of a pod object (or of one of its parts), "" when absent or not a string;
// a member object, or null. What the API returns is read with these and never throws.
std::string pod_field(const nlohmann::json& j, const char* key);
const nlohmann::json& pod_object(const nlohmann::json& j, const char* key);

}  // namespace batlehub::adapters
