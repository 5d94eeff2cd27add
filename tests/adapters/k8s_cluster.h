// The tests' Kubernetes cluster (the ctest fixture "k8s": scripts/k8s-peer.sh, on loopback),
// as the kubernetes runtime's tests use it: why it cannot be used here, a sandbox namespace
// made by the Helm chart with a worker's credentials bound to the chart's Role
// (tests/scripts/k8s_sandbox_namespace.py), sandbox images imported into the cluster's
// containerd, and the runtime's options over the tests' S3 server.
//
// Inside every pod of this cluster 127.0.0.1:<the S3 fixture's port> is the S3 server and
// nothing else is reachable (scripts/k8s-peer.sh, "The storage network").
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "adapters/sandbox/kubernetes.h"
#include "adapters/sandbox/run_frame.h"
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

// Why the cluster's RuntimeClass `gvisor` (handler `runsc`: gVisor's containerd shim and
// Debian's runsc, scripts/k8s-peer.sh) cannot be used here, or "" when it can. Only a missing
// piece skips; a cluster that has them and no RuntimeClass fails the test that needs it.
inline std::string gvisor_unavailable() {
  if (auto why = k8s_unavailable(); !why.empty()) return why;
  const std::string cmd = std::string(BATLEHUB_TEST_K8S_PEER) + " missing --gvisor";
  if (command_out(cmd)) return "";
  return "the test cluster has no RuntimeClass gvisor; missing: " +
         trimmed(command_out(cmd + " || true").value_or("(k8s-peer.sh missing --gvisor said nothing)"));
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

// The walls the probe cannot prove from inside a gVisor pod of this cluster (Debian's runsc
// 0.0~20221219.0 on the RuntimeClass gvisor), each seen failing there:
//   one_writable_dir   gVisor has no Landlock (landlock_create_ruleset: ENOSYS, a warning), and
//                      without it the pod sandbox's /dev/shm is writable to the scanner (as on
//                      a runc node without Landlock: docs/operations/kubernetes.md)
//   agent_unreachable  gVisor's /proc lets the scanner open the undumpable agent's
//                      /proc/1/environ, and without Landlock's signal scoping kill(1, 0) is
//                      delivered (/proc/1/mem stays EACCES)
//   memory_bounded,    gVisor shows the sandbox no cgroup at all (/proc/self/cgroup names none,
//   pids_bounded       no cgroup mount), so the bounds the node puts on the pod's cgroups, which
//                      hold the sandbox's host processes, cannot be read from inside
// What the probe would need to pass there is the probe's (src/agent/probe.cc) and the pod
// spec's (src/adapters/sandbox/pod_manifest.cc) to change, not this cluster's.
inline const std::set<std::string>& gvisor_probe_gaps() {
  static const std::set<std::string> gaps = {"one_writable_dir", "agent_unreachable", "memory_bounded", "pids_bounded"};
  return gaps;
}

// Each failed assertion of a probe report, "<check>: <evidence>" a line, and whether any is
// outside gvisor_probe_gaps().
struct ProbeFailures {
  std::string lines;
  bool only_gvisor_gaps = true;
};
inline ProbeFailures probe_failures(const core::ProbeReport& r) {
  ProbeFailures f;
  if (!r.result_at_all) {
    f.lines = "no result: " + r.no_result_reason + "\n";
    f.only_gvisor_gaps = false;
  }
  for (const auto& a : r.agent.assertions) {
    if (a.verdict != wire::AssertionVerdict::kFail) continue;
    const std::string check(wire::to_string(a.check));
    f.lines += check + ": " + a.evidence + "\n";
    if (!gvisor_probe_gaps().contains(check)) f.only_gvisor_gaps = false;
  }
  return f;
}

// While it lives, what the cluster shows of the pods of a namespace from outside, polled every
// 100 ms: each pod's "<name> <runtimeClassName> <phase>" as the API server has it, and the
// runtime containerd runs each of its containers with ("<image> <runtime>", from `ctr
// containers ls`: io.containerd.runsc.v1 is gVisor's shim, io.containerd.runc.v2 runc's).
class PodObserver {
 public:
  explicit PodObserver(std::string ns) : ns_(std::move(ns)), thread_([this] { loop(); }) {}
  ~PodObserver() { stop(); }
  PodObserver(const PodObserver&) = delete;
  PodObserver& operator=(const PodObserver&) = delete;

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::set<std::string> pods() {
    std::lock_guard l(mu_);
    return pods_;
  }
  std::set<std::string> containers() {
    std::lock_guard l(mu_);
    return containers_;
  }

 private:
  void loop() {
    while (!stop_) {
      auto p = SandboxNamespace::admin(
          "get pods -n " + ns_ +
          " -o jsonpath='{range .items[*]}{.metadata.name} {.spec.runtimeClassName} {.status.phase}{\"\\n\"}{end}'");
      auto c = command_out(std::string("ctr -a ") + BATLEHUB_TEST_K8S_CONTAINERD_SOCK +
                           " -n k8s.io containers ls | awk 'NR > 1 { print $2, $3 }'");
      {
        std::lock_guard l(mu_);
        for (const auto* out : {&p, &c}) {
          if (!*out) continue;
          std::istringstream lines(**out);
          for (std::string line; std::getline(lines, line);) {
            if (!line.empty()) (out == &p ? pods_ : containers_).insert(line);
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  std::string ns_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::set<std::string> pods_;
  std::set<std::string> containers_;
  std::thread thread_;
};

// The pod network's gateway on the host, as the cluster's CNI configuration names it (never
// written down here), or "".
inline std::string pod_gateway() {
  std::ifstream f(std::string(BATLEHUB_TEST_K8S_DIR) + "/cni/conf/10-batlehub-storage.conflist");
  auto c = nlohmann::json::parse(f, nullptr, false);
  try {
    return c.at("plugins").at(0).at("ipam").at("ranges").at(0).at(0).at("gateway").get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return "";
  }
}

// A TCP listener on `address` (IP_FREEBIND, should the address not be there yet), an ephemeral
// port, accepting, counting and closing every connection until it goes;
// or, not `listening`, the port only held, so that a connection there is reset.
class GatewayListener {
 public:
  explicit GatewayListener(const std::string& address, bool listening = true) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_IP, IP_FREEBIND, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    if (fd_ < 0 || ::inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1 ||
        ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || (listening && ::listen(fd_, 16) != 0)) {
      return;
    }
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    if (!listening) return;
    thread_ = std::thread([this] {
      for (;;) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;  // shut down
        ++accepted_;
        ::close(c);
      }
    });
  }
  ~GatewayListener() {
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  GatewayListener(const GatewayListener&) = delete;
  GatewayListener& operator=(const GatewayListener&) = delete;
  int port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// The room at room_dir as the cluster's image `tag`: pushed to the tests' registry and pulled
// from there by digest by the cluster's containerd (scripts/build-image.py --registry), then
// named `tag`. "" or what failed.
inline std::string import_into_cluster(const fs::path& room_dir, const std::string& tag,
                                       const std::string& definition = "") {
  if (::access(BATLEHUB_TEST_REGISTRY_BIN, X_OK) != 0)
    return std::string("no registry at ") + BATLEHUB_TEST_REGISTRY_BIN + " (scripts/install-registry.sh builds it)";
  const std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-image.py --room " +
                          room_dir.string() + " --engine containerd --containerd-address " +
                          BATLEHUB_TEST_K8S_CONTAINERD_SOCK + " --tag " + tag + " --registry " +
                          BATLEHUB_TEST_REGISTRY + (definition.empty() ? "" : " --definition " + definition) +
                          " >/dev/null";
  return std::system(cmd.c_str()) == 0 ? "" : cmd;
}

inline void remove_from_cluster(const std::string& tag) {
  std::system(("python3 " + std::string(BATLEHUB_SOURCE_DIR) +
               "/scripts/build-image.py --remove --engine containerd --containerd-address " +
               BATLEHUB_TEST_K8S_CONTAINERD_SOCK + " --tag " + tag + " >/dev/null 2>&1")
                  .c_str());
}

// Where pods reach the tests' S3 server, at the S3 server's port: the cluster's storage door on
// the pod network's gateway (scripts/k8s-peer.sh writes its address to DIR/storage-door); ""
// when the cluster wrote none.
inline std::string storage_door_address() {
  std::ifstream f(std::string(BATLEHUB_TEST_K8S_DIR) + "/storage-door");
  std::string address;
  if (!std::getline(f, address)) return "";
  return address;
}

// What the tests sign for: http://<the storage door>:<S3 port>, or "".
inline std::string pod_storage_endpoint() {
  const std::string address = storage_door_address();
  return address.empty() ? "" : "http://" + address + ":" + std::to_string(BATLEHUB_TEST_S3_PORT);
}

// The bundles' S3 backend, on the storage door: the pods' URLs and the worker's own requests go
// over the pod network, through the chart's storageEgress rule.
inline std::shared_ptr<core::StorageBackend> test_s3() {
  const std::string endpoint = pod_storage_endpoint();
  if (endpoint.empty()) return nullptr;
  auto s3 = adapters::S3Backend::create(test_s3_config(endpoint, "bundles"), test_s3_env());
  if (!s3) return nullptr;
  return std::shared_ptr<core::StorageBackend>(std::move(*s3));
}

// The runtime's options: the worker's credentials (`kubeconfig`), the sandbox namespace,
// every run in `image`, bundles under `prefix` on `s3`, canaries of the tests' own.
inline adapters::KubernetesOptions test_k8s_options(const std::string& kubeconfig, const std::string& image,
                                                    const std::shared_ptr<core::StorageBackend>& s3,
                                                    const std::string& prefix,
                                                    const std::string& worker = adapters::this_worker_label()) {
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
