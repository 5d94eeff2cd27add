// The `kubernetes` runtime's pod, as a pure function (RFC 0022 §5.3): one pod per run,
// field by field from the RFC, and what the restricted Pod Security Standard asks of every
// pod. Tested as data here; the runtime that creates it, and the API server's own
// validation and admission of it, come with the runtime (issue 14).
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
  std::string out_url;  // out.tar's presigned PUT
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

}  // namespace batlehub::adapters
