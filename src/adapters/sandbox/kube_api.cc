#include "adapters/sandbox/kube_api.h"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <cstring>
#include <filesystem>

#include "adapters/http/http_client.h"
#include "base/file.h"
#include "base/percent_encode.h"

namespace batlehub::adapters {

namespace {

namespace fs = std::filesystem;

// A credential file (a token, a certificate, a kubeconfig) is small; anything larger is
// not one.
constexpr std::uint64_t kMaxCredentialBytes = 1024 * 1024;
constexpr std::size_t kMaxWatchLine = 1024 * 1024;

Expected<std::string, std::string> read_credential(const std::string& path, const std::string& what) {
  auto f = base::read_regular_file(path, kMaxCredentialBytes);
  if (!f) {
    const auto& e = f.error();
    if (e.kind == base::FileError::Kind::kTooLarge) {
      return Unexpected(what + " " + path + " is larger than " + std::to_string(kMaxCredentialBytes) + " bytes");
    }
    if (e.kind == base::FileError::Kind::kNotRegular) return Unexpected(what + " " + path + " is not a regular file");
    return Unexpected(what + " " + path + ": " + std::strerror(e.err));
  }
  return std::move(f->bytes);
}

// Base64 without line breaks, as kubeconfig's *-data fields hold it. OpenSSL decodes; it
// counts the padding as bytes, which are taken off here.
Expected<std::string, std::string> base64_decode(const std::string& in, const std::string& what) {
  std::string s;
  for (char c : in) {
    if (c != '\n' && c != '\r' && c != ' ') s += c;
  }
  if (s.size() % 4 != 0) return Unexpected(what + " is not base64 (its length is not a multiple of 4)");
  std::string out(s.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  if (n < 0) return Unexpected(what + " is not base64");
  std::size_t len = static_cast<std::size_t>(n);
  if (!s.empty() && s.back() == '=') --len;
  if (s.size() > 1 && s[s.size() - 2] == '=') --len;
  out.resize(len);
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// A named entry of a kubeconfig list (clusters, users, contexts): its inner map.
YAML::Node named(const YAML::Node& list, const std::string& name) {
  if (!list || !list.IsSequence()) return YAML::Node();
  for (const auto& item : list) {
    if (item.IsMap() && item["name"] && item["name"].as<std::string>() == name) return item;
  }
  return YAML::Node();
}

std::string str(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  return v && v.IsScalar() ? v.as<std::string>() : "";
}

// One credential of a kubeconfig entry: `<key>-data` inline, or `<key>` as a path.
Expected<std::string, std::string> pem_of(const YAML::Node& n, const std::string& key, const fs::path& dir,
                                          const std::string& where) {
  if (auto data = str(n, (key + "-data").c_str()); !data.empty())
    return base64_decode(data, where + " " + key + "-data");
  auto path = str(n, key.c_str());
  if (path.empty()) return std::string();
  fs::path p(path);
  if (p.is_relative()) p = dir / p;
  return read_credential(p.string(), where + " " + key);
}

}  // namespace

std::string kube_escape(std::string_view s) {
  return base::percent_encode(s, /*keep_slash=*/false);
}

Expected<KubeCredentials, std::string> load_kubeconfig(const std::string& path, const std::string& context) {
  auto text = read_credential(path, "the kubeconfig");
  if (!text) return Unexpected(text.error());
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return Unexpected("the kubeconfig " + path + " is not YAML: " + e.what());
  }
  try {
    if (!root.IsMap()) return Unexpected("the kubeconfig " + path + " is not a mapping");
    const fs::path dir = fs::path(path).parent_path();
    const std::string ctx_name = context.empty() ? str(root, "current-context") : context;
    if (ctx_name.empty()) return Unexpected("the kubeconfig " + path + " names no current-context");
    const YAML::Node ctx = named(root["contexts"], ctx_name)["context"];
    if (!ctx) return Unexpected("the kubeconfig " + path + " has no context '" + ctx_name + "'");
    KubeCredentials c;
    c.source = "kubeconfig " + path + " (context " + ctx_name + ")";
    c.namespace_ = str(ctx, "namespace");
    const std::string cluster_name = str(ctx, "cluster");
    const YAML::Node cluster = named(root["clusters"], cluster_name)["cluster"];
    if (!cluster) return Unexpected(c.source + ": no cluster '" + cluster_name + "'");
    c.server = str(cluster, "server");
    while (c.server.ends_with('/')) c.server.pop_back();
    if (!c.server.starts_with("https://")) {
      return Unexpected(c.source + ": the server must be https:// (it is \"" + c.server + "\")");
    }
    if (str(cluster, "insecure-skip-tls-verify") == "true") {
      return Unexpected(c.source + ": insecure-skip-tls-verify is refused: the API server's certificate is checked");
    }
    auto ca = pem_of(cluster, "certificate-authority", dir, c.source);
    if (!ca) return Unexpected(ca.error());
    c.ca_pem = std::move(*ca);
    const std::string user_name = str(ctx, "user");
    const YAML::Node user = named(root["users"], user_name)["user"];
    if (!user) return Unexpected(c.source + ": no user '" + user_name + "'");
    if (user["exec"] || user["auth-provider"]) {
      return Unexpected(c.source + ": user '" + user_name +
                        "' authenticates through a helper program (exec/auth-provider), which the worker does not "
                        "run; give it a token, a tokenFile or a client certificate");
    }
    c.token = str(user, "token");
    if (auto f = str(user, "tokenFile"); !f.empty()) {
      fs::path p(f);
      c.token_file = (p.is_relative() ? dir / p : p).string();
    }
    auto cert = pem_of(user, "client-certificate", dir, c.source);
    if (!cert) return Unexpected(cert.error());
    auto key = pem_of(user, "client-key", dir, c.source);
    if (!key) return Unexpected(key.error());
    c.client_cert_pem = std::move(*cert);
    c.client_key_pem = std::move(*key);
    if (c.token.empty() && c.token_file.empty() && c.client_cert_pem.empty()) {
      return Unexpected(c.source + ": user '" + user_name + "' has no token, tokenFile or client certificate");
    }
    if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
      return Unexpected(c.source + ": user '" + user_name +
                        "' has a client certificate without its key, or a key "
                        "without its certificate");
    }
    return c;
  } catch (const YAML::Exception& e) {
    return Unexpected("the kubeconfig " + path + ": " + e.what());
  }
}

Expected<KubeCredentials, std::string> in_cluster_credentials(const config::Env& env, const std::string& sa_dir) {
  const auto host = env("KUBERNETES_SERVICE_HOST");
  const auto port = env("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty()) {
    return Unexpected(std::string(
        "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset (a worker outside the "
        "cluster names a kubeconfig in [worker.sandbox.kubernetes] kubeconfig)"));
  }
  KubeCredentials c;
  c.source = "the in-cluster service account (" + sa_dir + ")";
  const bool v6 = host->find(':') != std::string::npos;
  c.server = "https://" + (v6 ? "[" + *host + "]" : *host) + ":" + *port;
  c.token_file = sa_dir + "/token";
  if (auto t = read_credential(c.token_file, "the service account token"); !t) {
    return Unexpected(t.error() + " (is automountServiceAccountToken off for the worker's own pod?)");
  }
  auto ca = read_credential(sa_dir + "/ca.crt", "the cluster's CA");
  if (!ca) return Unexpected(ca.error());
  c.ca_pem = std::move(*ca);
  auto ns = read_credential(sa_dir + "/namespace", "the service account's namespace");
  if (!ns) return Unexpected(ns.error());
  c.namespace_ = trim(std::move(*ns));
  return c;
}

std::string KubeResponse::message() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  return body.substr(0, 200);
}

KubeApi::KubeApi(KubeCredentials c, std::chrono::seconds timeout) : c_(std::move(c)), timeout_(timeout) {}

Expected<std::string, std::string> KubeApi::bearer() const {
  if (!c_.token_file.empty()) {
    auto t = read_credential(c_.token_file, "the token file");
    if (!t) return Unexpected(t.error());
    return trim(std::move(*t));
  }
  return c_.token;
}

namespace {

// A request to the API server with `c`'s credentials; the caller sets what differs.
http::Request api_request(const KubeCredentials& c, const std::string& token, std::string_view method,
                          const std::string& path) {
  http::Request r;
  r.method = std::string(method);
  r.url = c.server + path;
  r.headers.emplace_back("Accept", "application/json");
  if (!token.empty()) r.headers.emplace_back("Authorization", "Bearer " + token);
  r.connect_timeout = std::chrono::seconds(10);
  return r;
}

// The API server is who the credentials' CA says; the worker is its client certificate,
// when it has one (the PEMs stay in memory).
http::Client api_client(const KubeCredentials& c) {
  return http::Client(
      http::Tls{.ca_pem = c.ca_pem, .client_cert_pem = c.client_cert_pem, .client_key_pem = c.client_key_pem});
}

}  // namespace

Expected<KubeResponse, std::string> KubeApi::call(std::string_view method, const std::string& path,
                                                  const std::string& body, std::size_t max_body) const {
  auto token = bearer();
  if (!token) return Unexpected(token.error());
  http::Request r = api_request(c_, *token, method, path);
  if (!body.empty()) {
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = body;
  }
  r.max_body = max_body;
  r.timeout = timeout_;
  auto got = api_client(c_).send(r);
  if (!got) {
    if (got.error().kind == http::ErrorKind::kTooLarge) {
      return Unexpected(http::describe(r) + ": the answer is larger than the " + std::to_string(max_body) +
                        " bytes read");
    }
    return Unexpected(got.error().message);
  }
  return KubeResponse{got->status, std::move(got->body)};
}

Expected<KubeApi::WatchEnd, std::string> KubeApi::watch(
    const std::string& path, std::chrono::steady_clock::time_point until,
    const std::function<bool(const std::string&, const nlohmann::json&)>& on_event, std::string* lost) const {
  auto token = bearer();
  if (!token) return Unexpected(token.error());
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
  if (left.count() <= 0) return WatchEnd::kDeadline;
  std::string bad_event, refused;
  auto on_line = [&](std::string_view line) {
    if (line.empty()) return true;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && !j.contains("type") && j.value("kind", "") == "Status") {
      // A watch the server refused (403, 404…) answers one Status, not an event.
      refused = KubeResponse{0, std::string(line)}.message();
      return false;
    }
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string() || !j.contains("object") ||
        !j["object"].is_object()) {
      bad_event = std::string(line.substr(0, 200));
      return false;
    }
    return on_event(j["type"].get<std::string>(), j["object"]);
  };
  // The stream, split into lines here: complete ones go to on_line, the rest waits for
  // more, and a line that grows past kMaxWatchLine ends the watch.
  std::string pending;
  bool line_too_long = false;
  http::Request r = api_request(c_, *token, "GET", path);
  r.timeout = left;
  r.on_chunk = [&](std::string_view chunk) {
    pending.append(chunk);
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (!on_line(std::string_view(pending).substr(start, nl - start))) return false;
    }
    pending.erase(0, start);
    if (pending.size() > kMaxWatchLine) {
      line_too_long = true;
      return false;
    }
    return true;
  };
  auto got = api_client(c_).send(r);
  const std::string what = "watch " + c_.server + path.substr(0, path.find('?'));
  const long status = got ? got->status : 0;
  if (!refused.empty()) return Unexpected(what + ": " + std::to_string(status) + " " + refused);
  if (!bad_event.empty()) return Unexpected(what + ": not a watch event: " + bad_event);
  if (line_too_long) return Unexpected(what + ": an event longer than " + std::to_string(kMaxWatchLine) + " bytes");
  if (got && got->stopped) return WatchEnd::kStopped;
  if (!got && got.error().kind == http::ErrorKind::kTimeout) return WatchEnd::kDeadline;
  if (!got) {
    if (lost != nullptr) *lost = what + ": " + got.error().detail;
    return WatchEnd::kLost;
  }
  if (status != 200) {
    KubeResponse k{status, pending};
    return Unexpected(what + ": " + std::to_string(status) + " " + k.message());
  }
  return WatchEnd::kServerClosed;
}

}  // namespace batlehub::adapters
