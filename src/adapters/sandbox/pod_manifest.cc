#include "adapters/sandbox/pod_manifest.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "wire/sandbox_layout.h"

namespace batlehub::adapters {

namespace {

bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

std::string label_value(std::string_view s) {
  std::string out;
  for (char c : s) out += (alnum(c) || c == '-' || c == '.' || c == '_') ? c : '_';
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  while (!out.empty() && !alnum(out.front())) out.erase(out.begin());
  return out;
}

std::string pod_name_prefix(std::string_view scanner) {
  std::string name;
  for (char c : scanner) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name += (alnum(l) || l == '-') ? l : '-';
  }
  // 63 characters in all, of which the API server appends 5.
  constexpr std::size_t kMax = 63 - 5 - (sizeof "batlehub-sbx-" - 1) - 1;
  if (name.size() > kMax) name.resize(kMax);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return "batlehub-sbx-" + (name.empty() ? std::string("run") : name) + "-";
}

nlohmann::json pod_manifest(const PodManifestInput& in) {
  using nlohmann::json;
  const std::string mem = std::to_string(in.memory_mb) + "Mi";
  json labels = {
      {"app.kubernetes.io/name", "batlehub"},
      {"app.kubernetes.io/component", "sandbox"},
      {kPodWorkerLabel, label_value(in.worker)},
      {kPodJobLabel, label_value(in.job)},
      {kPodNetworkLabel, in.network ? "egress" : "storage"},
  };
  json container = {
      {"name", "sandbox"},
      {"image", in.image},
      {"imagePullPolicy", "IfNotPresent"},
      // The agent as the command, argv only: no shell, no stdin, no tty.
      {"command", {wire::kAgentCommand, "--in", in.in_url, "--out", in.out_url}},
      {"stdin", false},
      {"tty", false},
      // The agent's one stderr line, written only when it could write no result, becomes
      // the container's termination message: the reason reaches the worker through the
      // pod's status, which the Role may read, and never through pods/log, which it may not.
      {"terminationMessagePolicy", "FallbackToLogsOnError"},
      {"env",
       {{{"name", "HOME"}, {"value", wire::kWorkDir}}, {{"name", "PATH"}, {"value", std::string(wire::kSandboxPath)}}}},
      {"workingDir", wire::kWorkDir},
      {"resources", {{"limits", {{"memory", mem}, {"cpu", "1"}}}, {"requests", {{"memory", mem}, {"cpu", "250m"}}}}},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"privileged", false},
        {"runAsNonRoot", true},
        {"runAsUser", wire::kSandboxId},
        {"runAsGroup", wire::kSandboxId},
        {"capabilities", {{"drop", {"ALL"}}}},
        {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      // /tmp as well as /work, as the oci runtime has them: the root is read-only, and a
      // scanner's runtime (Go's, Python's) writes its temporary files there.
      {"volumeMounts",
       {{{"name", "work"}, {"mountPath", wire::kWorkDir}}, {{"name", "tmp"}, {"mountPath", wire::kTmpDir}}}},
  };
  json spec = {
      {"restartPolicy", "Never"},
      {"activeDeadlineSeconds", in.active_deadline_secs},
      {"serviceAccountName", in.service_account},
      {"automountServiceAccountToken", false},
      // No *_SERVICE_HOST variables telling the scanner the cluster's shape.
      {"enableServiceLinks", false},
      {"hostNetwork", false},
      {"hostPID", false},
      {"hostIPC", false},
      {"securityContext",
       {{"runAsNonRoot", true},
        {"runAsUser", wire::kSandboxId},
        {"runAsGroup", wire::kSandboxId},
        {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"containers", {container}},
      // Charged to the memory limit (RFC 0022 §4.2), which is why max_extracted_mb must be
      // below memory_limit_mb.
      {"volumes",
       {{{"name", "work"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", std::to_string(in.work_mb) + "Mi"}}}},
        {{"name", "tmp"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", std::to_string(in.work_mb) + "Mi"}}}}}},
  };
  if (!in.runtime_class.empty()) spec["runtimeClassName"] = in.runtime_class;
  if (!in.node_selector.empty()) spec["nodeSelector"] = in.node_selector;
  if (!in.image_pull_secrets.empty()) {
    json secrets = json::array();
    for (const auto& s : in.image_pull_secrets) secrets.push_back({{"name", s}});
    spec["imagePullSecrets"] = secrets;
  }
  return json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"generateName", pod_name_prefix(in.scanner)}, {"namespace", in.namespace_}, {"labels", labels}}},
      {"spec", spec}};
}

namespace {

using nlohmann::json;

// What the sandbox may have written: a container's termination message is the file
// /dev/termination-log inside it. Kept short and printable before it goes into an error.
std::string tame(std::string s) {
  if (s.size() > 256) s.resize(256);
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return s;
}

// A waiting container that will never run without someone changing something: an image
// that is not there (runs never pull it in this project's images, and a typo never appears),
// a config the kubelet refuses.
bool cannot_start(const std::string& reason) {
  static const char* const kReasons[] = {"ErrImageNeverPull",          "ErrImagePull",         "ImagePullBackOff",
                                         "InvalidImageName",           "CreateContainerError", "RunContainerError",
                                         "CreateContainerConfigError", "ImageInspectError"};
  return std::any_of(std::begin(kReasons), std::end(kReasons), [&](const char* r) { return reason == r; });
}

}  // namespace

std::string pod_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& pod_object(const json& j, const char* key) {
  static const json kNull;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kNull;
}

PodState pod_state(const json& pod) {
  PodState s;
  const json& status = pod_object(pod, "status");
  s.phase = pod_field(status, "phase");
  s.reason = pod_field(status, "reason");
  s.detail = pod_field(status, "message");
  auto statuses = status.find("containerStatuses");
  if (statuses != status.end() && statuses->is_array()) {
    for (const auto& cs : *statuses) {
      if (!cs.is_object()) continue;
      const json& state = pod_object(cs, "state");
      if (!pod_object(state, "running").is_null() || !pod_object(state, "terminated").is_null()) s.started = true;
      if (const json& t = pod_object(state, "terminated"); !t.is_null()) {
        if (s.reason.empty()) s.reason = pod_field(t, "reason");
        std::string code;
        if (auto c = t.find("exitCode"); c != t.end() && c->is_number_integer()) {
          code = "exit code " + std::to_string(c->get<std::int64_t>());
        }
        const std::string msg = tame(pod_field(t, "message"));
        if (s.detail.empty()) s.detail = code + (msg.empty() ? "" : (code.empty() ? "" : ": ") + msg);
      } else if (const json& w = pod_object(state, "waiting"); !w.is_null()) {
        const std::string reason = pod_field(w, "reason");
        s.waiting = tame(reason + (pod_field(w, "message").empty() ? "" : ": " + pod_field(w, "message")));
        if (cannot_start(reason)) {
          s.where = PodState::Where::kCannotStart;
          s.reason = reason;
          s.detail = pod_field(w, "message");
          return s;
        }
      }
    }
  }
  if (s.phase == "Succeeded" || s.phase == "Failed") s.where = PodState::Where::kEnded;
  if (s.waiting.empty() && !s.started) s.waiting = s.phase.empty() ? "not yet scheduled" : s.phase;
  return s;
}

}  // namespace batlehub::adapters
