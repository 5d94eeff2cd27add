// Running the agent for real, as its binary (or in-process), on a manifest in a scratch dir.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/out_tar.h"
#include "scratch.h"
#include "wire/caps.h"
#include "wire/manifest.h"
#include "wire/run_result.h"

namespace batlehub::testing {

inline std::string helpers_dir() { return BATLEHUB_HELPERS_DIR; }
inline std::string hostile() { return helpers_dir() + "/hostile"; }

inline wire::Manifest scan_manifest(std::vector<std::string> argv, std::uint64_t timeout_ms = 20'000) {
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.argv = std::move(argv);
  m.limits = {1024, 60};
  m.timeout_ms = timeout_ms;
  return m;
}

struct Outcome {
  int exit_status = -1;  // the agent's own exit code
  wire::RunResult result;
  std::string stdout_bytes;
  bool have_result = false;
  std::string error;
};

inline Outcome read_outcome(const fs::path& out_tar, int exit_status) {
  Outcome o;
  o.exit_status = exit_status;
  if (!fs::exists(out_tar)) {
    o.error = "no out.tar";
    return o;
  }
  auto tar = agent::read_out_tar(Scratch::read(out_tar));
  if (!tar) {
    o.error = tar.error();
    return o;
  }
  auto r = wire::parse_result(tar->result_json);
  if (!r) {
    o.error = r.error().describe("result");
    return o;
  }
  o.result = *r;
  o.stdout_bytes = tar->stdout_bytes;
  o.have_result = true;
  return o;
}

// Runs `argv` with cwd `dir` and an environment of exactly `env`; returns its exit status.
inline int run_process(const std::vector<std::string>& argv, const fs::path& dir, const std::vector<std::string>& env,
                       std::string* stderr_out = nullptr) {
  int errp[2];
  if (::pipe(errp) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(errp[1], 2);
    ::close(errp[0]);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    std::vector<char*> a, e;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    ::execve(a[0], a.data(), e.data());
    ::_exit(127);
  }
  ::close(errp[1]);
  std::string err;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(errp[0], buf, sizeof buf)) > 0) err.append(buf, static_cast<std::size_t>(n));
  ::close(errp[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (stderr_out) *stderr_out = err;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// The agent binary over file:// URLs in the scratch work dir, with a hostile environment
// (the agent must pass none of it on).
inline Outcome run_agent_binary(Scratch& s, const wire::Manifest& m, const std::string& agent = BATLEHUB_AGENT_BIN) {
  Scratch::write(s.work() / "manifest.json", wire::serialize(m));
  std::string in = "file://" + (s.work() / "manifest.json").string();
  std::string out = "file://" + (s.work() / "out.tar").string();
  int rc = run_process({agent, "--in", in, "--out", out}, s.work(),
                       {"PATH=/usr/bin:/bin", "AWS_SECRET_ACCESS_KEY=leaked", "DATABASE_URL=postgres://leaked",
                        "BATLEHUB_TOKEN=leaked"});
  return read_outcome(s.work() / "out.tar", rc);
}

// The agent's library entry, in this process: what the `none` runtime does.
inline Outcome run_agent_library(Scratch& s, const wire::Manifest& m) {
  Scratch::write(s.work() / "manifest.json", wire::serialize(m));
  agent::AgentOptions o;
  o.work_dir = s.work().string();
  auto rc = agent::run("file://" + (s.work() / "manifest.json").string(), "file://" + (s.work() / "out.tar").string(), o);
  return read_outcome(s.work() / "out.tar", static_cast<int>(rc));
}

inline std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace batlehub::testing
