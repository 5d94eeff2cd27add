// The tests' stand-in for STS and the container credentials endpoint
// (tests/scripts/aws-credentials-peer.py) as a process of the test's own: started on a free
// loopback port, its port read from its first stdout line, ended with the test. Its stdin is
// a pipe the test holds, so that it ends too when the test dies (--exit-on-stdin-eof).
//
// Its includer defines BATLEHUB_SOURCE_DIR and links CURL::libcurl.
#pragma once

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace batlehub::testing {

class AwsCredentialsPeer {
 public:
  // `args`: the script's own (--access-key … --secret-key … and what it checks).
  explicit AwsCredentialsPeer(const std::vector<std::string>& args) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
      error_ = "pipe failed";
      return;
    }
    std::vector<std::string> argv{"/usr/bin/python3",
                                  std::string(BATLEHUB_SOURCE_DIR) + "/tests/scripts/aws-credentials-peer.py",
                                  "--exit-on-stdin-eof"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      std::vector<char*> a;
      for (auto& s : argv) a.push_back(s.data());
      a.push_back(nullptr);
      ::execv(a[0], a.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    // Its first line is its port; ten seconds is ample for python3 to start.
    std::string line;
    pollfd p{out[0], POLLIN, 0};
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < end) {
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[64];
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    try {
      port_ = std::stoi(line);
    } catch (...) {
      error_ = "aws-credentials-peer.py did not print its port (it printed '" + line + "')";
    }
  }
  ~AwsCredentialsPeer() {
    if (stdin_ >= 0) ::close(stdin_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  AwsCredentialsPeer(const AwsCredentialsPeer&) = delete;
  AwsCredentialsPeer& operator=(const AwsCredentialsPeer&) = delete;

  int port() const { return port_; }
  // Why it did not start; "" when it did.
  const std::string& error() const { return error_; }
  std::string url(const std::string& path = "/") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

  // GET /stats: what it was asked, as JSON text.
  std::string stats() const {
    std::string body;
    CURL* e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url("/stats").c_str());
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(
        e, CURLOPT_WRITEFUNCTION, +[](char* d, std::size_t s, std::size_t n, void* u) {
          static_cast<std::string*>(u)->append(d, s * n);
          return s * n;
        });
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
    curl_easy_perform(e);
    curl_easy_cleanup(e);
    return body;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
  std::string error_;
};

}  // namespace batlehub::testing
