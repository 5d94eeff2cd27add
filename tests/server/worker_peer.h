// A `batlehub worker` as an operator runs it, for the tests: the real binary in its own
// process, its stdout and stderr in files, signalled with real signals, scraped over real
// HTTP on loopback, and its queue read back from the database itself.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "scratch.h"

namespace batlehub::testing {

using namespace std::chrono_literals;

inline std::string slurp(const fs::path& p) {
  return read_what_is_there(p);
}

// Polls `f` every 50 ms until it holds or `limit` passes.
template <class F>
bool eventually(F f, std::chrono::milliseconds limit = 60s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (f()) return true;
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(50ms);
  }
}

struct Ran {
  int status = -1;
  std::string out;
  std::string err;
};

// Starts `argv` with stdout and stderr going to files, an environment of exactly `env`.
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::vector<std::string>& env, fs::path out, fs::path err)
      : out_(std::move(out)), err_(std::move(err)) {
    pid_ = ::fork();
    if (pid_ == 0) {
      int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      std::vector<char*> a, v;
      for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
      a.push_back(nullptr);
      for (const auto& s : env) v.push_back(const_cast<char*>(s.c_str()));
      v.push_back(nullptr);
      ::execve(a[0], a.data(), v.data());
      ::_exit(127);
    }
  }
  ~Process() {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }
  bool logged(const std::string& s) const { return err().find(s) != std::string::npos; }
  bool wait_for_log(const std::string& s, std::chrono::milliseconds limit = 60s) const {
    return eventually([&] { return logged(s) || exited(); }, limit) && logged(s);
  }
  void signal(int sig) { ::kill(pid_, sig); }
  // Whether it has exited (reaped here), without waiting.
  bool exited() const {
    if (status_) return true;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return status_.has_value();
  }
  // The exit status, or nullopt when it is still running after `limit`.
  std::optional<int> wait_exit(std::chrono::milliseconds limit = 60s) {
    eventually([&] { return exited(); }, limit);
    return status_;
  }

 private:
  pid_t pid_ = -1;
  fs::path out_, err_;
  mutable std::optional<int> status_;
};

// One HTTP/1.0 GET on 127.0.0.1:port; the whole response, status line and all.
inline std::string http_get(std::uint16_t port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[8192];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

// The value of one series in a Prometheus text scrape ("name{labels}" exactly as printed).
inline std::optional<double> series(const std::string& scrape, const std::string& name_and_labels) {
  std::size_t at = 0;
  while ((at = scrape.find(name_and_labels + " ", at)) != std::string::npos) {
    if (at == 0 || scrape[at - 1] == '\n') return std::stod(scrape.substr(at + name_and_labels.size() + 1));
    at += name_and_labels.size();
  }
  return std::nullopt;
}

// The port a worker said it listens on ("… listening for /livez and /metrics on 127.0.0.1:PORT").
inline std::uint16_t listening_port(const Process& w) {
  std::smatch m;
  std::string err = w.err();
  static const std::regex re("/livez and /metrics on 127\\.0\\.0\\.1:([0-9]+)");
  if (!std::regex_search(err, m, re)) return 0;
  return static_cast<std::uint16_t>(std::stoi(m[1]));
}

}  // namespace batlehub::testing
