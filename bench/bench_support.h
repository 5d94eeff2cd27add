// What the benchmarks (bench_extract, bench_runtimes, bench_oci, bench_storage,
// bench_kubernetes) share: how they read their command line and fail, how they time a child
// process, their statistics, and what they print about the machine. One header of inline
// functions, so that the programs' figures are computed alike and their command lines answer
// alike.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sandbox.h"

namespace batlehub::bench {

using Clock = std::chrono::steady_clock;

// How a failure is reported: under the program's name, after undoing what the bench set up
// (its run directory, and for bench_oci its images and mounts), so that a failed run
// leaves nothing behind on a shared machine.
struct OnFailure {
  std::string program = "bench";
  std::function<void()> cleanup;
};
inline OnFailure& on_failure() {
  static OnFailure f;
  return f;
}

[[noreturn]] inline void die(const std::string& msg) {
  std::fprintf(stderr, "%s: FAILED: %s\n", on_failure().program.c_str(), msg.c_str());
  // Taken out first: a cleanup that fails and dies must not run itself again.
  if (auto cleanup = std::exchange(on_failure().cleanup, nullptr)) cleanup();
  std::exit(1);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

inline double tv_ms(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) * 1e3 + static_cast<double>(tv.tv_usec) / 1e3;
}

// CPU time of this process and its reaped children: around an in-process run it counts
// the bench's own work, the keeper and everything the keeper reaped (bwrap, the agent...).
inline double cpu_ms_now() {
  rusage self{}, kids{};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &kids);
  return tv_ms(self.ru_utime) + tv_ms(self.ru_stime) + tv_ms(kids.ru_utime) + tv_ms(kids.ru_stime);
}

struct Sample {
  double wall_ms = 0;
  double cpu_ms = 0;
};

struct ProcResult {
  Sample s;
  int status = 0;
};

// The environment of a process the benches start when they are not told otherwise.
inline std::vector<std::string> default_env() {
  return {"PATH=/usr/local/bin:/usr/bin:/bin"};
}

// fork, execve, wait4; wall clock from just before fork to just after wait4. stdout goes to
// `out_path` (/dev/null when measuring), stderr to `err_path`. With `as_id` the child
// becomes that uid/gid before execve, as the bwrap runtime's spawner does as root.
inline ProcResult run_process(const std::vector<std::string>& argv, const std::string& out_path,
                              const std::string& err_path, std::optional<unsigned> as_id = std::nullopt,
                              const std::vector<std::string>& env = default_env()) {
  // Built before the fork: the child of a process that may have threads only execs.
  std::vector<char*> av;
  for (const auto& s : argv) av.push_back(const_cast<char*>(s.c_str()));
  av.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& s : env) envp.push_back(const_cast<char*>(s.c_str()));
  envp.push_back(nullptr);
  int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || err < 0 || null < 0)
    die("cannot open " + out_path + ", " + err_path + " or /dev/null: " + std::strerror(errno));

  ProcResult res;
  double c0 = cpu_ms_now();
  auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) die(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(null, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (as_id) {
      gid_t id = *as_id;
      if (::setgroups(0, nullptr) != 0 || ::setresgid(id, id, id) != 0 || ::setresuid(id, id, id) != 0) ::_exit(125);
    }
    ::execve(av[0], av.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) die(std::string("waitpid: ") + std::strerror(errno));
  }
  auto t1 = Clock::now();
  // Untimed: reap what the command left to us when we are a subreaper (bwrap's pid 1,
  // which can outlive bwrap by a moment), so that its CPU time is counted too. Without
  // children left, this returns at once (ECHILD).
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  res.s.cpu_ms = cpu_ms_now() - c0;
  ::close(out);
  ::close(err);
  ::close(null);
  res.s.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  res.status = status;
  return res;
}

inline double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p of the samples at or below it.
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One table row: wall clock median, p90 and min, and the median CPU time.
struct Stats {
  double med = 0, p90 = 0, min = 0, cpu = 0;
};
inline Stats stats(const std::vector<Sample>& v) {
  std::vector<double> w, c;
  for (const auto& s : v) {
    w.push_back(s.wall_ms);
    c.push_back(s.cpu_ms);
  }
  return Stats{median(w), percentile(w, 0.9), *std::min_element(w.begin(), w.end()), median(c)};
}

inline std::string os_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("PRETTY_NAME=")) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "unknown OS";
}

inline std::optional<std::string> find_on_path(const std::string& name) {
  const char* p = std::getenv("PATH");
  std::string path = p ? p : "/usr/local/bin:/usr/bin:/bin";
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string c = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(c.c_str(), X_OK) == 0) return c;
  }
  return std::nullopt;
}

// The 1, 5 and 15 minute load averages.
inline std::string load_now() {
  std::string l = read_file("/proc/loadavg");
  return l.substr(0, l.find(' ', l.find(' ', l.find(' ') + 1) + 1));
}

// The share of the last 10 and 60 s in which some runnable task waited for a CPU (PSI):
// unlike the load average, it also sees what other containers on the machine are doing.
inline std::string cpu_pressure() {
  std::string l = read_file("/proc/pressure/cpu");
  auto field = [&](const std::string& k) {
    auto at = l.find(k + "=");
    return at == std::string::npos ? std::string("?")
                                   : l.substr(at + k.size() + 1, l.find(' ', at) - at - k.size() - 1);
  };
  if (l.empty()) return "unknown";
  return field("avg10") + "%/" + field("avg60") + "% (10 s/60 s)";
}

// The table's first line: the machine, and whether the bench's directory is memory.
inline std::string machine_line(const std::string& dir, bool tmpfs) {
  utsname u{};
  ::uname(&u);
  char buf[512];
  std::snprintf(buf, sizeof buf, "  machine  %ld cores, %s, Linux %s; %s is %s\n", ::sysconf(_SC_NPROCESSORS_ONLN),
                os_name().c_str(), u.release, dir.c_str(), tmpfs ? "tmpfs" : "NOT tmpfs");
  return buf;
}

// Whether `dir` is tmpfs: elsewhere disk I/O is in the figures, which the bench warns of.
inline bool on_tmpfs(const std::string& dir, const char* program) {
  struct statfs sfs {};
  if (::statfs(dir.c_str(), &sfs) != 0) die("cannot statfs " + dir + ": " + std::strerror(errno));
  bool tmpfs = sfs.f_type == TMPFS_MAGIC;
  if (!tmpfs)
    std::fprintf(stderr, "%s: warning: %s is not tmpfs; disk I/O will be in the figures\n", program, dir.c_str());
  return tmpfs;
}

inline std::uint64_t tree_bytes(const std::string& root) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root, ec)) {
    if (e.is_regular_file(ec) && !e.is_symlink(ec)) n += e.file_size(ec);
  }
  return n;
}

// A loopback port nothing listens on now, for a server of the bench's own (bench_storage's
// and bench_kubernetes' S3 server).
inline int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    die(std::string("bind 127.0.0.1:0: ") + std::strerror(errno));
  ::close(fd);
  return ntohs(a.sin_port);
}

// Removes `<prefix><pid>` directories under `root` left by runs that were killed (their pid
// is gone): a bench's run directory holds a room of several MiB, on tmpfs.
inline void remove_stale_runs(const std::string& root, const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    std::string n = e.path().filename().string();
    if (!n.starts_with(prefix)) continue;
    if (!std::filesystem::exists("/proc/" + n.substr(prefix.size()))) std::filesystem::remove_all(e.path(), ec);
  }
}

// The scanner the runtime benches run: the static test scanner `hostile`, which
// `hostile exit 0 ok` makes print "ok" and exit 0.
constexpr const char* kScanner = "hostile";  // the room's name and the run's label
constexpr const char* kInRoom = "/usr/bin/hostile";
constexpr const char* kExpect = "ok";

// scripts/build-room.py: the room `room` of the agent and hostile (as kInRoom), its output
// in logs/build-room.{out,err}; the seconds it took.
inline double build_room(const std::string& python, const std::string& script, const std::string& agent,
                         const std::string& hostile, const std::string& room, const std::string& logs,
                         const std::vector<std::string>& env = default_env()) {
  auto t = Clock::now();
  ProcResult p = run_process(
      {python, script, "--name", kScanner, "--agent", agent, "--binary", hostile + ":" + kInRoom, "--out", room},
      logs + "/build-room.out", logs + "/build-room.err", std::nullopt, env);
  double s = std::chrono::duration<double>(Clock::now() - t).count();
  if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
    die("build-room.py ended with " + describe_status(p.status) + ": " + read_file(logs + "/build-room.err"));
  }
  return s;
}

// The bench's own environment, for the scripts: python3 may be a shim that needs it, and
// build-image.py runs the engine's CLI.
inline std::vector<std::string> own_env() {
  std::vector<std::string> env;
  for (char** v = environ; *v; ++v) env.emplace_back(*v);
  return env;
}

// `s` without its trailing newlines and spaces.
inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// An engine's CLI as OciRuntime resolves it: `given`, a name on PATH or a path, made
// absolute; the bench stops when it is not executable. `name` is the engine's ("podman").
inline std::string engine_binary(const std::string& given, const std::string& name) {
  auto found = given.find('/') == std::string::npos ? find_on_path(given) : std::optional<std::string>(given);
  if (!found || ::access(found->c_str(), X_OK) != 0) {
    die(given + " is not on PATH or not executable (scripts/install-deps.sh installs both engines), or pass --" + name);
  }
  return std::filesystem::absolute(*found).string();
}

// scripts/build-image.py: the room imported as `tag` into the engine `name` (docker through
// docker_host, "" for podman), its output in logs/build-image.{out,err}; the seconds it took.
inline double build_image(const std::string& python, const std::string& script, const std::string& room,
                          const std::string& name, const std::string& docker_host, const std::string& tag,
                          const std::string& logs, const std::vector<std::string>& env) {
  std::vector<std::string> cmd = {python, script, "--room", room, "--engine", name, "--tag", tag};
  if (!docker_host.empty()) cmd.insert(cmd.end(), {"--docker-host", docker_host});
  auto t = Clock::now();
  ProcResult p = run_process(cmd, logs + "/build-image.out", logs + "/build-image.err", std::nullopt, env);
  double s = std::chrono::duration<double>(Clock::now() - t).count();
  if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
    die("build-image.py --engine " + name + " ended with " + describe_status(p.status) + ": " +
        read_file(logs + "/build-image.err"));
  }
  return s;
}

// The engine's version, as its CLI reports it (docker's: the daemon's).
inline std::string engine_version(bool docker, const std::string& binary, const std::vector<std::string>& env,
                                  const std::string& logs) {
  const char* fmt = docker ? "{{.Server.Version}}" : "{{.Client.Version}}";
  run_process({binary, "version", "--format", fmt}, logs + "/version.out", "/dev/null", std::nullopt, env);
  return trim(read_file(logs + "/version.out"));
}

// A runtime's run must have gone as a run of `hostile exit 0 <expect>` goes; anything else
// is a bug, and the bench stops.
inline void expect_run_ok(const std::string& who, const Expected<core::RunOutput, core::SandboxError>& r,
                          const std::string& expect) {
  if (!r) die(who + ": " + std::string(core::to_string(r.error().kind)) + ": " + r.error().message);
  if (r->report.failure) die(who + ": the agent reported a failure: " + r->report.failure->message);
  if (r->status != 0) {
    die(who + ": the scanner ended with status " + std::to_string(r->status) + "; its stderr: \"" + r->stderr_tail +
        "\"");
  }
  if (r->stdout_bytes != expect) die(who + ": stdout was \"" + r->stdout_bytes + "\", not \"" + expect + "\"");
}

// One run on a runtime: its wall clock and CPU time, and the agent's own timings_ms.
struct RunSample {
  Sample s;
  wire::Timings t;
};

// One timed run of `spec` on `rt`, checked as expect_run_ok() checks it (untimed). CPU time
// is this process's and its children's: the runtime's keeper, the engine, the agent.
inline RunSample timed_run(const std::string& who, core::SandboxRuntime& rt, const core::RunSpec& spec,
                           const std::string& expect) {
  double c0 = cpu_ms_now();
  auto t0 = Clock::now();
  auto r = rt.run(spec);
  auto t1 = Clock::now();
  double c1 = cpu_ms_now();
  expect_run_ok(who, r, expect);
  return RunSample{{std::chrono::duration<double, std::milli>(t1 - t0).count(), c1 - c0}, r->report.timings};
}

inline std::vector<Sample> samples(const std::vector<RunSample>& v) {
  std::vector<Sample> out;
  for (const auto& r : v) out.push_back(r.s);
  return out;
}

// The median over the runs of one of the agent's timings_ms (`&wire::Timings::run_ms`...).
inline double median_timing(const std::vector<RunSample>& v, std::uint64_t wire::Timings::*field) {
  std::vector<double> out;
  for (const auto& r : v) out.push_back(static_cast<double>(r.t.*field));
  return median(out);
}

// Every bench's main(): names the program for its messages, runs it, ends its table with
// the time it all took, and fails loud (exit 1) on what throws: a filesystem error, or for
// bench_extract a result.json without a field it reads.
inline int bench_main(const char* program, void (*bench)(int, char**), int argc, char** argv) {
  auto t_start = Clock::now();
  on_failure().program = program;
  try {
    bench(argc, argv);
  } catch (const std::exception& e) {
    die(e.what());
  }
  std::printf("\n  (%.0f s in all)\n", std::chrono::duration<double>(Clock::now() - t_start).count());
  return 0;
}

// What the build compiled into each bench (bench/CMakeLists.txt): the defaults of --agent
// and --hostile, and the source tree whose scripts/ the benches run; "" where not given.
#ifdef BATLEHUB_AGENT_BIN
constexpr const char* kAgentBin = BATLEHUB_AGENT_BIN;
#else
constexpr const char* kAgentBin = "";
#endif
#ifdef BATLEHUB_HOSTILE_BIN
constexpr const char* kHostileBin = BATLEHUB_HOSTILE_BIN;
#else
constexpr const char* kHostileBin = "";
#endif
#ifdef BATLEHUB_SOURCE_DIR
constexpr const char* kSourceDir = BATLEHUB_SOURCE_DIR;
#else
constexpr const char* kSourceDir = "";
#endif

// scripts/<name> in the source tree, or "" when the build did not say where that is (the
// bench then refuses to start).
inline std::string source_script(const char* name) {
  return *kSourceDir ? std::string(kSourceDir) + "/scripts/" + name : std::string();
}

// --dir's default: memory (/dev/shm), so that no disk I/O is in the figures, unless the
// machine says otherwise.
inline std::string default_bench_dir() {
  const char* env_dir = std::getenv("BATLEHUB_BENCH_DIR");
  return env_dir && *env_dir ? env_dir : "/dev/shm";
}

// A bench's command line, read flag by flag. Whatever it refuses goes out the same way in
// every bench: "<program>: <why>", then the program's usage text, and exit 2 (a usage
// error, apart from a failed run's 1).
class Args {
 public:
  Args(int argc, char** argv, const char* usage) : argc_(argc), argv_(argv), usage_(usage) {}

  // Steps to the next flag; false past the last.
  bool next() {
    if (++i_ >= argc_) return false;
    flag_ = argv_[i_];
    return true;
  }
  const std::string& flag() const { return flag_; }

  // The word after the flag.
  std::string value() {
    if (i_ + 1 >= argc_) fail("missing a value after " + flag_);
    return argv_[++i_];
  }
  // The word after the flag as a whole number in [lo, hi]; the default bound keeps a count
  // of runs to what a bench can finish.
  std::uint64_t number(std::uint64_t lo, std::uint64_t hi = 100000) {
    std::string v = value();
    char* end = nullptr;
    unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < lo || n > hi) fail("bad number after " + flag_ + ": " + v);
    return n;
  }
  // When the flag is one of `flags`, its value goes into the string paired with it.
  bool value_into(std::initializer_list<std::pair<std::string_view, std::string*>> flags) {
    for (const auto& [f, into] : flags) {
      if (flag_ != f) continue;
      *into = value();
      return true;
    }
    return false;
  }
  // Past every flag the bench knows: --help, or a refusal.
  [[noreturn]] void unknown() const { fail(flag_ == "--help" || flag_ == "-h" ? "help" : "unknown argument " + flag_); }
  [[noreturn]] void fail(const std::string& why) const {
    std::fprintf(stderr, "%s: %s\n%s", on_failure().program.c_str(), why.c_str(), usage_);
    std::exit(2);
  }

 private:
  int argc_;
  char** argv_;
  const char* usage_;
  int i_ = 0;
  std::string flag_;
};

// Each path made absolute (the bench hands it to processes that start elsewhere), and
// refused unless it is executable.
inline void require_executables(std::initializer_list<std::string*> paths) {
  for (auto* p : paths) {
    *p = std::filesystem::absolute(*p).string();
    if (::access(p->c_str(), X_OK) != 0) die(*p + " is not executable");
  }
}

}  // namespace batlehub::bench
