// A scripted HTTP(S) API on loopback, for tests of whatever speaks to an API through the
// worker's HTTP client (adapters/http/http_client.h): the client itself, and the network
// scanners (OSV, Socket, Rekor, mlab…). The peer is tests/helpers/api_peer.py (its top says
// everything it does); this is its C++ face. Header-only; the test target defines
// BATLEHUB_SOURCE_DIR (the source root) and links nlohmann_json.
//
//   batlehub::testing::ApiPeer peer;                          // HTTPS, tests/fixtures/tls
//   peer.script({{"POST", "/v1/querybatch",
//                 {{.status = 429, .headers = {{"Retry-After", "1"}}},
//                  {.status = 200, .headers = {{"Content-Type", "application/json"}}, .body = R"({"results":[]})"}}}});
//   http::Client client(http::Tls{.ca_file = ApiPeer::ca_file()});
//   auto r = client.send({.method = "POST", .url = peer.url("/v1/querybatch"), .body = "{}"}, policy);
//   peer.seen();  // every request, in order: method, path, query, headers, body
//
// Each route's replies are served in turn, the last one repeating; script() starts every
// route's count over. A request no route matches gets 404 {"code":5,"message":"no route in
// the test's script"}. Reply::repeat sends the body that many times (chunked with
// `chunked`), `delay_ms` waits before answering, `truncate` declares twice the body and
// closes after it, `hangup` closes without answering.
//
// The peer runs as /usr/bin/python3, killed with this object (and with the test process:
// PR_SET_PDEATHSIG), in a scratch directory under $TMPDIR (or /tmp) that goes with it. It
// listens on 127.0.0.1 only, on a port the kernel chose.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifndef BATLEHUB_SOURCE_DIR
#error "api_peer.h needs BATLEHUB_SOURCE_DIR (the source root) defined by the test target"
#endif

namespace batlehub::testing {

struct Reply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // bytes: sent as they are
  std::uint64_t repeat = 1;
  bool chunked = false;
  int delay_ms = 0;
  bool truncate = false;
  bool hangup = false;
};

struct Route {
  std::string method;  // "GET", "POST"…, or "*"
  std::string path;    // exact, without the query; a trailing '*' matches by prefix
  std::vector<Reply> replies;
};

// One request the peer received.
struct Seen {
  std::string method, path, query;             // query raw, "" when none
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class ApiPeer {
 public:
  explicit ApiPeer(bool tls = true) : tls_(tls) {
    const char* tmp = ::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/batlehub-api-peer.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("api peer: mkdtemp " + templ + " failed");
    dir_ = templ;
    script({});
    const std::string port_file = (dir_ / "port").string();
    const std::string src = BATLEHUB_SOURCE_DIR;
    std::vector<std::string> argv = {"/usr/bin/python3",
                                     src + "/tests/helpers/api_peer.py",
                                     "--port-file",
                                     port_file,
                                     "--bind",
                                     "127.0.0.1",
                                     "--routes",
                                     routes_file(),
                                     "--log",
                                     log_file()};
    if (tls_) {
      argv.insert(argv.end(),
                  {"--cert", src + "/tests/fixtures/tls/server.pem", "--key", src + "/tests/fixtures/tls/server.key"});
    }
    std::vector<char*> c;
    for (auto& s : argv) c.push_back(s.data());
    c.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("api peer: fork failed");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the test died before prctl took hold
      ::execv(c[0], c.data());
      ::_exit(127);
    }
    for (int i = 0; i < 1000; ++i) {
      if (std::filesystem::exists(port_file)) {
        std::ifstream in(port_file);
        in >> port_;
        if (port_ > 0) return;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        cleanup();
        throw std::runtime_error("api peer: " + argv[1] + " exited before listening (status " + std::to_string(status) +
                                 ")");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cleanup();
    throw std::runtime_error("api peer: no port after 10 s");
  }

  ApiPeer(const ApiPeer&) = delete;
  ApiPeer& operator=(const ApiPeer&) = delete;
  ~ApiPeer() { cleanup(); }

  // The API's answers from now on: written whole (a temporary file renamed over the last
  // script), every route's count of replies started over.
  void script(const std::vector<Route>& routes) {
    nlohmann::json rs = nlohmann::json::array();
    for (const auto& route : routes) {
      nlohmann::json replies = nlohmann::json::array();
      for (const auto& r : route.replies) {
        nlohmann::json headers = nlohmann::json::array();
        for (const auto& [name, value] : r.headers) headers.push_back({name, value});
        replies.push_back({{"status", r.status},
                           {"headers", headers},
                           {"body_b64", base64(r.body)},
                           {"repeat", r.repeat},
                           {"chunked", r.chunked},
                           {"delay_ms", r.delay_ms},
                           {"truncate", r.truncate},
                           {"hangup", r.hangup}});
      }
      rs.push_back({{"method", route.method}, {"path", route.path}, {"replies", replies}});
    }
    const nlohmann::json doc = {{"generation", ++generation_}, {"routes", rs}};
    const std::string tmp = routes_file() + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << doc.dump();
      if (!out.flush()) throw std::runtime_error("api peer: writing " + tmp + " failed");
    }
    std::filesystem::rename(tmp, routes_file());
  }

  // Every request received since the start (or forget()), in order.
  std::vector<Seen> seen() const {
    std::vector<Seen> out;
    std::ifstream in(log_file());
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const auto j = nlohmann::json::parse(line);
      Seen s;
      s.method = j.at("method").get<std::string>();
      s.path = j.at("path").get<std::string>();
      s.query = j.at("query").get<std::string>();
      for (const auto& [name, value] : j.at("headers").items()) s.headers[name] = value.get<std::string>();
      s.body = unbase64(j.at("body").get<std::string>());
      out.push_back(std::move(s));
    }
    return out;
  }

  void forget() { std::ofstream(log_file(), std::ios::trunc); }

  // "https://127.0.0.1:<port><path>" ("http://" without TLS).
  std::string url(const std::string& path = "") const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
  }
  // The CA that signed the peer's certificate, and one that did not.
  static std::string ca_file() { return std::string(BATLEHUB_SOURCE_DIR) + "/tests/fixtures/tls/ca.pem"; }
  static std::string wrong_ca_file() { return std::string(BATLEHUB_SOURCE_DIR) + "/tests/fixtures/tls/other-ca.pem"; }
  int port() const { return port_; }
  std::string routes_file() const { return (dir_ / "routes.json").string(); }
  std::string log_file() const { return (dir_ / "requests.jsonl").string(); }

 private:
  void cleanup() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  static std::string base64(const std::string& in) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
      const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                         static_cast<unsigned char>(in[i + 2]);
      out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
    }
    if (i + 1 == in.size()) {
      const unsigned v = static_cast<unsigned char>(in[i]) << 16;
      out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
    } else if (i + 2 == in.size()) {
      const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
      out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
    }
    return out;
  }

  static std::string unbase64(const std::string& in) {
    auto value = [](char c) -> int {
      if (c >= 'A' && c <= 'Z') return c - 'A';
      if (c >= 'a' && c <= 'z') return c - 'a' + 26;
      if (c >= '0' && c <= '9') return c - '0' + 52;
      if (c == '+') return 62;
      if (c == '/') return 63;
      return -1;
    };
    std::string out;
    unsigned acc = 0;
    int bits = 0;
    for (char c : in) {
      const int v = value(c);
      if (v < 0) continue;  // '=' and line breaks
      acc = (acc << 6) | static_cast<unsigned>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += static_cast<char>((acc >> bits) & 0xff);
      }
    }
    return out;
  }

  bool tls_ = true;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  int generation_ = 0;
};

}  // namespace batlehub::testing
