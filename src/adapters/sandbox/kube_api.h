// The Kubernetes API, as much of it as the `kubernetes` runtime uses: JSON over HTTPS to the
// API server, with the worker's credentials — in-cluster (the service account's token and
// CA, RFC 0022 §5.3) or a kubeconfig.
//
// Why no client library: Debian ships no C++ Kubernetes client, and the official C client
// (kubernetes-client/c) is generated code on its own HTTP and websocket stacks. The runtime
// needs five verbs on one resource (pods: create, get, list, watch, delete), which are
// plain requests; the worker's HTTP client (adapters/http/http_client.h) and nlohmann-json
// do them, and yaml-cpp reads the kubeconfig.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "config/config.h"

namespace batlehub::adapters {

// Where the API server is and who the worker is to it.
struct KubeCredentials {
  std::string server;      // https://host:port, no trailing slash
  std::string ca_pem;      // the certificate authorities the server's certificate must chain to; "" = system roots
  std::string token;       // a bearer token, or
  std::string token_file;  // one read again on every request (a projected token is rotated under us)
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string namespace_;  // the context's, or the service account's own
  std::string source;      // said in errors: "kubeconfig /path (context x)", "in-cluster service account"
};

// The kubeconfig's current context (or `context`): its cluster's server and CA, its user's
// token, token file or client certificate, and its namespace. Inline data (…-data) and
// file paths (relative to the kubeconfig's directory) are both read. An exec or
// auth-provider user is refused by name: the worker runs no helper program.
Expected<KubeCredentials, std::string> load_kubeconfig(const std::string& path, const std::string& context = "");

// The in-cluster credentials: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT from the
// environment, and the token, ca.crt and namespace the kubelet mounts in `sa_dir`.
inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
Expected<KubeCredentials, std::string> in_cluster_credentials(const config::Env& env,
                                                              const std::string& sa_dir = kServiceAccountDir);

struct KubeResponse {
  long status = 0;
  std::string body;
  // The API's own words for a failure (a Status object's message), else the body's start.
  std::string message() const;
};

class KubeApi {
 public:
  explicit KubeApi(KubeCredentials c, std::chrono::seconds timeout = std::chrono::seconds(30));

  // One request: `path` from the server's root ("/api/v1/…", query included), `body` JSON.
  // An answer of any status is a value; only a request that got no answer is an error. A
  // body above `max_body` bytes is refused, never held.
  Expected<KubeResponse, std::string> call(std::string_view method, const std::string& path,
                                           const std::string& body = "", std::size_t max_body = 8 * 1024 * 1024) const;

  // A watch (`path` with watch=true): every event to `on_event` (its type and object) until
  // it returns false, the server ends the stream, or `until` passes. An event line above
  // 1 MiB ends the watch with an error, as does a refusal (a status other than 200).
  // kLost: no answer, or the stream broke before the server ended it (the API server
  // restarting, a reset): nothing was refused, and the caller may watch again; `lost`, when
  // given, says how.
  enum class WatchEnd { kStopped, kServerClosed, kDeadline, kLost };
  Expected<WatchEnd, std::string> watch(const std::string& path, std::chrono::steady_clock::time_point until,
                                        const std::function<bool(const std::string&, const nlohmann::json&)>& on_event,
                                        std::string* lost = nullptr) const;

  const KubeCredentials& credentials() const { return c_; }

 private:
  Expected<std::string, std::string> bearer() const;
  KubeCredentials c_;
  std::chrono::seconds timeout_;
};

// A path segment or query value, percent-encoded.
std::string kube_escape(std::string_view s);

}  // namespace batlehub::adapters
