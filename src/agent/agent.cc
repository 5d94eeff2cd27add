#include "agent/agent.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>

#include "agent/environment.h"
#include "agent/extract.h"
#include "agent/landlock.h"
#include "agent/limits.h"
#include "agent/out_tar.h"
#include "agent/probe.h"
#include "agent/scanner_filter.h"
#include "agent/seccomp_policy.h"
#include "agent/transport.h"
#include "agent/url.h"
#include "agent/version.h"
#include "agent/walls.h"
#include "agent/workdir.h"
#include "base/cgroup.h"
#include "base/command_path.h"
#include "base/spawn.h"
#include "base/utf8.h"
#include "wire/caps.h"

extern char** environ;

namespace batlehub::agent {

using wire::FailureKind;

namespace {

std::uint64_t ms_since(std::chrono::steady_clock::time_point t) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count());
}

wire::RunResult fresh_result() {
  wire::RunResult r;
  r.wire = wire::kWireVersion;
  r.agent_version = std::string(kAgentVersion);
  return r;
}

std::vector<std::string> split(const wire::RelPath& p) {
  std::vector<std::string> out;
  for (auto c : p.components()) out.emplace_back(c);
  return out;
}

bool copy_fd(int from, int to, std::uint64_t size) {
  off_t off = 0;
  while (static_cast<std::uint64_t>(off) < size) {
    ssize_t n = ::sendfile(to, from, &off, static_cast<std::size_t>(std::min<std::uint64_t>(size - off, 1 << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
  }
  return true;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

// Places every entry; the first failure stops the run.
std::optional<wire::Failure> place_entries(const wire::Manifest& m, WorkDir& work, wire::RunResult& r) {
  for (const wire::Entry& e : m.entries) {
    std::vector<std::string> dest = split(e.path);
    if (e.kind == wire::EntryKind::kInline) {
      auto t = std::chrono::steady_clock::now();
      auto f = work.create_file(dest, /*exclusive=*/true);
      if (!f) return wire::Failure{FailureKind::kWrite, f.error().message};
      if (!base::write_all(f->get(), e.bytes)) {
        return wire::Failure{FailureKind::kWrite, "writing '" + e.path.str() + "': " + std::strerror(errno)};
      }
      r.timings.extract_ms += ms_since(t);
      continue;
    }
    auto url = parse_url(e.url);
    if (!url) return wire::Failure{FailureKind::kManifestInvalid, "entry '" + e.path.str() + "': " + url.error()};
    auto t_fetch = std::chrono::steady_clock::now();
    auto in = fetch_input(*url, e.size);
    r.timings.fetch_ms += ms_since(t_fetch);
    if (!in) return wire::Failure{in.error().kind, "entry '" + e.path.str() + "': " + in.error().message};
    auto t_extract = std::chrono::steady_clock::now();
    if (e.kind == wire::EntryKind::kFile) {
      auto f = work.create_file(dest, /*exclusive=*/true);
      if (!f) return wire::Failure{FailureKind::kWrite, f.error().message};
      if (!copy_fd(in->get(), f->get(), e.size)) {
        return wire::Failure{FailureKind::kWrite, "writing '" + e.path.str() + "': " + std::strerror(errno)};
      }
    } else {
      ExtractTarget target{&work, dest, e.strip_wrapper, e.descend ? split(*e.descend) : std::vector<std::string>{}};
      auto rep = extract_fd(in->get(), e.size, target, m.extract_policy);
      if (!rep) return wire::Failure{rep.error().kind, "entry '" + e.path.str() + "': " + rep.error().message};
      r.extract += *rep;
    }
    r.timings.extract_ms += ms_since(t_extract);
  }
  return std::nullopt;
}

}  // namespace

AgentRun execute(const wire::Manifest& m, const AgentOptions& options) {
  AgentRun run;
  wire::RunResult& r = run.result;
  r = fresh_result();
  // The scanner runs as the agent's uid. Undumpable, the agent's /proc/<pid>/mem, environ,
  // fds, cwd and root, ptrace_attach and process_vm_writev all need CAP_SYS_PTRACE over it,
  // which nothing in the sandbox has: a scanner cannot rewrite the process that writes its
  // result. Only a process of its own (the binary): in a worker (the `none` runtime) the
  // keeper that supervises the scanner makes itself undumpable instead (base/spawn.cc).
  if (options.own_process && makes_itself_undumpable() && ::prctl(PR_SET_DUMPABLE, 0) != 0) {
    r.failure =
        wire::Failure{FailureKind::kInternal, std::string("prctl(PR_SET_DUMPABLE, 0): ") + std::strerror(errno)};
    return run;
  }
  // The filter this build compiled (scanner_filter.h), unless a test-only agent leaves a
  // rule out: that one compiles its own rules here.
  auto prog = weakened_wall() == WeakenedWall::kNone ? Expected<SeccompProgram, std::string>(built_scanner_filter())
                                                     : compile(scanner_rules());
  if (!prog) {
    r.failure = wire::Failure{FailureKind::kInternal, "building the seccomp filter: " + prog.error()};
    return run;
  }
  // Best-effort (RFC 0022 §4.2): a limit above what the host allows is lowered to it, and said.
  std::vector<RlimitSetting> limits =
      fit_to_host(rlimits_for(m.limits, m.extract_policy.max_extracted_bytes), r.rlimits_lowered);
  // Built whatever this build installs, so that the probe can tell a kernel without Landlock
  // from an agent that left its ruleset out. A kernel that has Landlock and refuses the
  // ruleset fails the run: no scanner runs under less than the probe proved.
  auto ruleset = landlock::build(options.work_dir,
                                 options.work_dir == kRoomWorkDir ? landlock::RootIs::kRoom : landlock::RootIs::kHost);
  if (!ruleset) {
    r.failure = wire::Failure{FailureKind::kInternal, ruleset.error()};
    return run;
  }

  if (m.probe) {
    ProbeContext ctx{options.work_dir, options.scanner_path, current_environment(), &*prog, limits, r.rlimits_lowered};
    ctx.landlock = &*ruleset;
    ctx.out_path = options.out_path;
    r.probe = run_probe(m, ctx);
    return run;
  }

  auto work = WorkDir::open(options.work_dir);
  if (!work) {
    r.failure = wire::Failure{FailureKind::kWrite, work.error().message};
    return run;
  }
  if (auto f = place_entries(m, *work, r)) {
    r.failure = std::move(*f);
    return run;
  }

  auto program = base::resolve_command(m.argv[0], options.scanner_path);
  if (!program) {
    r.failure = wire::Failure{FailureKind::kCommandNotFound,
                              "'" + m.argv[0] + "' is not an executable file on PATH " + options.scanner_path};
    return run;
  }
  base::SpawnSpec spec;
  spec.program = *program;
  spec.argv = m.argv;
  spec.env = scanner_environment(options.work_dir, options.scanner_path);
  spec.cwd_fd = work->fd();
  spec.walls = scanner_walls(limits, &*prog, ruleset->fd.get());
  spec.timeout = std::chrono::milliseconds(m.timeout_ms);
  spec.stdout_cap = wire::kStdoutCapBytes;
  spec.supervisor = options.own_process ? base::Supervisor::kThisProcess : base::Supervisor::kKeeper;
  // The OOM killer's count of the sandbox's memory cgroup, before and after: in a container
  // or a pod the scanner is killed by the cgroup of the whole sandbox, which the runtime
  // outside may not be able to read once the sandbox is gone.
  const auto memory = base::cgroup::locate_self("memory");
  const std::uint64_t oom_before = memory ? base::cgroup::oom_kills(memory->dir, memory->version) : 0;
  base::SpawnResult s = base::spawn_and_wait(spec);
  const std::uint64_t oom_after = memory ? base::cgroup::oom_kills(memory->dir, memory->version) : 0;
  r.oom_kills = oom_after > oom_before ? oom_after - oom_before : 0;

  r.timings.run_ms = s.run_ms;
  r.ran = s.started;
  r.exit_code = s.exit_code;
  r.signal = s.signal;
  r.timed_out = s.timed_out;
  r.stdout_over_cap = s.stdout_over_cap;
  r.stdout_bytes = s.stdout_bytes.size();
  r.stderr_tail = base::lossy_utf8_tail(s.stderr_raw, wire::kStderrTailChars);
  if (!s.started) {
    r.failure = wire::Failure{FailureKind::kSpawn, "starting '" + m.argv[0] + "': " + s.start_error};
  } else if (!s.tree_killed) {
    r.failure = wire::Failure{FailureKind::kInternal,
                              "a process of the scanner's tree could not be found or killed (is /proc mounted?)"};
  }
  run.stdout_bytes = std::move(s.stdout_bytes);
  return run;
}

namespace {

// Where no result can be written, result.json cannot carry the reason: the agent binary says
// it in one line on its stderr, which bwrap and oci read back as the sandbox's stderr and a
// pod's kubelet turns into the container's termination message (FallbackToLogsOnError).
// In-process (`none`) the caller has the exit code and the worker's log is not ours to write.
AgentExit no_result(const AgentOptions& options, const std::string& why) {
  if (options.own_process) {
    const std::string line = "batlehub-sandbox: no result written: " + why + "\n";
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
  }
  return AgentExit::kNoResult;
}

}  // namespace

AgentExit run(std::string_view in_url, std::string_view out_url, const AgentOptions& options) {
  try {
    auto out = parse_url(out_url);
    if (!out) return no_result(options, "--out: " + out.error());
    AgentOptions with_out = options;
    if (out->scheme == Url::Scheme::kFile) with_out.out_path = out->path;
    AgentRun result;
    result.result = fresh_result();
    wire::RunResult& r = result.result;

    auto in = parse_url(in_url);
    if (!in) {
      r.failure = wire::Failure{FailureKind::kManifestInvalid, "--in: " + in.error()};
    } else {
      auto t = std::chrono::steady_clock::now();
      auto doc = fetch_document(*in, wire::kManifestMaxBytes);
      std::uint64_t fetch_ms = ms_since(t);
      if (!doc) {
        r.failure = wire::Failure{doc.error().kind, "manifest: " + doc.error().message};
      } else if (auto m = wire::parse_manifest(*doc); !m) {
        r.failure = wire::Failure{m.error().other_version ? FailureKind::kWireVersion : FailureKind::kManifestInvalid,
                                  m.error().describe("manifest")};
      } else {
        result = execute(*m, with_out);
        result.result.timings.fetch_ms += fetch_ms;
      }
    }
    auto tar = build_out_tar(wire::serialize(result.result), result.stdout_bytes);
    if (!tar) return no_result(options, "out.tar: " + tar.error());
    if (auto put = put_result(*out, *tar); !put) return no_result(options, put.error());
    return AgentExit::kResultWritten;
  } catch (const std::exception& e) {
    // Out of memory, mostly.
    return no_result(options, e.what());
  }
}

namespace {
AgentExit run_in_cwd(std::string_view in_url, std::string_view out_url, bool own_process) {
  char buf[4096];
  if (::getcwd(buf, sizeof buf) == nullptr) return AgentExit::kNoResult;
  AgentOptions o;
  o.work_dir = buf;
  o.own_process = own_process;
  return run(in_url, out_url, o);
}
}  // namespace

AgentExit run(std::string_view in_url, std::string_view out_url) {
  return run_in_cwd(in_url, out_url, false);
}

AgentExit run_as_binary(std::string_view in_url, std::string_view out_url) {
  return run_in_cwd(in_url, out_url, true);
}

}  // namespace batlehub::agent
