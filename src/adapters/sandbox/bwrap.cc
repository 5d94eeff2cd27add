#include "adapters/sandbox/bwrap.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "adapters/sandbox/probe_support.h"
#include "adapters/sandbox/registry.h"
#include "adapters/sandbox/run_dir.h"
#include "adapters/sandbox/run_frame.h"
#include "base/command_path.h"
#include "base/fd.h"
#include "base/spawn.h"
#include "config/text.h"
#include "wire/caps.h"
#include "wire/sandbox_layout.h"

namespace batlehub::adapters {

using core::SandboxError;
using Kind = core::SandboxError::Kind;

std::vector<std::string> bwrap_argv(const BwrapArgvInput& in) {
  // --as-pid-1: the agent is the namespace's init, with no bwrap init above it. When the
  // agent ends, the kernel ends every other process of the namespace before bwrap outside
  // sees it end, so nothing is left to the caller; with bwrap's own init, that init outlives
  // bwrap and is re-parented to the worker's reaper on every run (30 of 30, bench notes).
  std::vector<std::string> a = {in.binary,    "--unshare-user", "--unshare-pid",
                                "--as-pid-1", "--unshare-ipc",  "--unshare-uts"};
  if (!in.network) a.emplace_back("--unshare-net");
  if (in.in_run_cgroup || !in.cgroup_binds.empty()) a.emplace_back("--unshare-cgroup");
  for (const char* s :
       {"--die-with-parent", "--new-session", "--uid", wire::kSandboxIdText, "--gid", wire::kSandboxIdText})
    a.emplace_back(s);
  // bwrap's /dev is a tmpfs the sandbox's uid may write to (a scanner made files in it);
  // read-only, its device nodes still open for writing, and nothing else there takes a file.
  for (const std::string& s :
       {std::string("--ro-bind"), in.room, std::string("/"), std::string("--proc"), std::string("/proc"),
        std::string("--dev"), std::string("/dev"), std::string("--remount-ro"), std::string("/dev")}) {
    a.push_back(s);
  }
  if (!in.cgroup_binds.empty()) {
    a.insert(a.end(), {"--tmpfs", "/sys"});
    for (const auto& [host, inside] : in.cgroup_binds) a.insert(a.end(), {"--ro-bind", host, inside});
    a.insert(a.end(), {"--remount-ro", "/sys"});
  }
  for (const std::string& s : {std::string("--size"),       std::to_string(in.tmp_bytes),
                               std::string("--tmpfs"),      std::string(wire::kTmpDir),
                               std::string("--bind"),       in.work_dir,
                               std::string(wire::kWorkDir), std::string("--chdir"),
                               std::string(wire::kWorkDir), std::string("--clearenv"),
                               std::string("--setenv"),     std::string("HOME"),
                               std::string(wire::kWorkDir), std::string("--setenv"),
                               std::string("PATH"),         std::string(wire::kSandboxPath),
                               std::string("--"),           std::string(wire::kAgentCommand),
                               std::string("--in"),         std::string("file:///work/manifest.json"),
                               std::string("--out"),        std::string("file:///work/out.tar")}) {
    a.push_back(s);
  }
  return a;
}

namespace {

// bwrap itself runs from the worker's PATH (the one place the worker's environment is read
// here: the `binary` key is a bare name by default).
std::string resolve_binary(const std::string& binary) {
  const char* path = std::getenv("PATH");
  auto r = base::resolve_command(binary, path ? path : std::string(wire::kSandboxPath));
  return r.value_or(binary);
}

bool is_dir(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

const Expected<CgroupSite, std::string>& BwrapRuntime::cgroup_site() {
  std::call_once(site_once_, [this] {
    auto site = find_cgroup_site(base::read_small_file("/proc/self/mountinfo", 1024 * 1024),
                                 base::read_small_file("/proc/self/cgroup"), options_.cgroup_parent);
    if (site) {
      if (std::string e = set_up_cgroup_site(*site); !e.empty()) site = Unexpected(e);
    }
    site_ = std::move(site);
  });
  return *site_;
}

BwrapRuntime::~BwrapRuntime() {
  if (site_ && *site_) release_cgroup_site(**site_);
}

Expected<std::optional<RunCgroup>, SandboxError> BwrapRuntime::run_cgroup(const core::Limits& limits,
                                                                          const std::string& room) {
  const auto& site = cgroup_site();
  if (!site) {
    if (options_.accept_per_process_limits) return std::optional<RunCgroup>();
    return Unexpected(SandboxError{Kind::kConfig, "the bwrap runtime cannot bound a run as a whole: " + site.error() +
                                                      "; give the worker a cgroup it may create children in "
                                                      "(docs/operations/bwrap.md#cgroups), or accept per-process "
                                                      "limits with [worker.sandbox] accept_per_process_limits = true"});
  }
  if (!is_dir(room + "/sys")) {
    return Unexpected(SandboxError{Kind::kConfig, "the room at " + room +
                                                      " has no /sys mount point for the run's cgroup (rebuild it "
                                                      "with scripts/build-room.py)"});
  }
  auto rc = RunCgroup::create(*site, run_cgroup_limits(limits));
  if (!rc) return Unexpected(SandboxError{Kind::kIo, rc.error()});
  return std::optional<RunCgroup>(std::move(rc).value());
}

Expected<core::Swept, SandboxError> BwrapRuntime::sweep(std::chrono::seconds older_than) {
  core::Swept swept;
  swept.add(core::OrphanKind::kRunDir, sweep_run_dirs(options_.scratch_dir, older_than));
  // Without a cgroup site runs have no cgroup to leave.
  if (const auto& site = cgroup_site()) swept.add(core::OrphanKind::kCgroup, sweep_run_cgroups(*site, older_than));
  return swept;
}

Expected<Launched, SandboxError> BwrapRuntime::start(const std::string& room, const std::string& work, bool network,
                                                     const core::Limits& limits, std::chrono::milliseconds deadline,
                                                     const RunCgroup* cgroup, bool show_cgroup) {
  // /tmp is sized like the extraction budget: together they are what a run may write.
  BwrapArgvInput in{resolve_binary(options_.binary),
                    room,
                    work,
                    network,
                    limits.max_extracted_mb * 1024 * 1024,
                    cgroup != nullptr,
                    {}};
  if (cgroup && show_cgroup) in.cgroup_binds = cgroup->binds();
  std::vector<std::string> argv = bwrap_argv(in);
  if (edit_argv_for_tests_) edit_argv_for_tests_(argv);
  base::SpawnSpec s;
  s.program = argv[0];
  s.argv = argv;
  // bwrap gets nothing of the worker's environment either (--clearenv would drop it anyway).
  s.env = {"PATH=" + std::string(wire::kSandboxPath)};
  s.cwd_fd = AT_FDCWD;
  s.timeout = deadline;
  if (cgroup) s.walls.join_cgroups = cgroup->procs_fds();
  // A worker running as root starts bwrap as the sandbox user instead: root outside the
  // namespace is what a sandbox escape would keep, and the kernel exempts host root from
  // RLIMIT_NPROC. The run dir becomes that user's, the one place it may write.
  if (::geteuid() == 0) {
    s.walls.identity = std::pair<uid_t, gid_t>{wire::kSandboxId, wire::kSandboxId};
    if (::chown(work.c_str(), wire::kSandboxId, wire::kSandboxId) != 0) {
      return Unexpected(SandboxError{Kind::kIo, "chown " + work + ": " + std::strerror(errno)});
    }
  }
  s.stdout_cap = 64 * 1024;  // the agent prints nothing; whatever bwrap prints is bounded
  // bwrap contains its tree (--unshare-pid, --die-with-parent; the run's cgroup is killed
  // and removed after it besides): no keeper process is needed to hunt for orphans.
  s.supervisor = base::Supervisor::kThisThread;
  return launch("bwrap", s);
}

Expected<core::RunOutput, SandboxError> BwrapRuntime::run(const core::RunSpec& spec) {
  if (auto refused = refuse_run(spec)) return Unexpected(std::move(*refused));
  std::string room = room_path(spec.label.scanner);
  if (spec.label.scanner.empty() || !is_dir(room)) {
    return Unexpected(SandboxError{Kind::kConfig, "no room for scanner '" + spec.label.scanner + "' at " + room +
                                                      " (build it with scripts/build-room.py)"});
  }
  auto dir = TempDir::create_owned(options_.scratch_dir, "run", spec.label.scanner);
  if (!dir) return Unexpected(SandboxError{Kind::kIo, dir.error()});
  core::trace_sandbox(spec.trace, dir->path());
  auto m = write_bundle(spec, RunDirView{dir->path(), wire::kWorkDir});
  if (!m) return Unexpected(m.error());
  auto cgroup = run_cgroup(spec.limits, room);
  if (!cgroup) return Unexpected(cgroup.error());
  const RunCgroup* rc = *cgroup ? &**cgroup : nullptr;
  const auto deadline = run_deadline(spec, options_.start_timeout);
  auto started = start(room, dir->path(), spec.network, spec.limits, deadline, rc, /*show_cgroup=*/false);
  if (!started) return Unexpected(started.error());
  core::trace_ended(spec.trace);
  // A run the OOM killer touched is reported as that, not as a crash of unknown cause —
  // and whatever the scanner said afterwards is no answer: a scan whose worker process was
  // killed half-way may well exit 0 on what it did not read (fail closed).
  if (std::uint64_t ooms = rc ? rc->oom_kills() : 0; ooms > 0) {
    return Unexpected(SandboxError{
        Kind::kOutOfMemory, "the kernel's OOM killer ended " + std::to_string(ooms) + " process(es) of the " +
                                spec.label.scanner + " run: it reached its cgroup's memory bound of " +
                                std::to_string(rc->memory_limit_bytes() / wire::kMiB) +
                                " MiB (memory_limit_mb + max_extracted_mb)"});
  }
  if (started->timed_out) {
    return Unexpected(SandboxError{Kind::kRunTimeout, "the bwrap sandbox of " + spec.label.scanner + " ran past " +
                                                          std::to_string(deadline.count()) + " ms and was killed"});
  }
  auto out = collect(dir->path(), spec.argv[0]);
  if (!out && out.error().reason == SandboxError::Reason::kNoResult) {
    return Unexpected(SandboxError{
        Kind::kCrashed,
        "the sandbox never started — " + started->how + " and no result came back: \"" + started->stderr_tail + "\"",
        SandboxError::Reason::kNoResult});
  }
  return out;
}

Expected<core::ProbeReport, SandboxError> BwrapRuntime::probe(const core::ProbeTarget& target) {
  ProbeInProgress in_progress("bwrap", target);
  core::ProbeReport& rep = in_progress.report();
  auto done = [&]() -> Expected<core::ProbeReport, SandboxError> { return in_progress.finish(); };
  std::string room = room_path(target.room);
  if (!is_dir(room)) {
    rep.no_result_reason = "no room at " + room + " (build it with scripts/build-room.py)";
    return done();
  }
  auto dir = TempDir::create_owned(options_.scratch_dir, "probe", target.room);
  if (!dir) return Unexpected(SandboxError{Kind::kIo, dir.error()});
  CanaryListener listener;
  const wire::Manifest m = probe_manifest(target, canaries_for(listener.port(), options_.probe_canaries));
  if (auto ok = write_manifest(m, dir->path()); !ok) return Unexpected(ok.error());
  // The probe runs in a cgroup like any run, so that it proves what runs get. Without one
  // it still runs: the agent then says from inside that nothing bounds the run as a whole,
  // and the report adds why the runtime made none.
  std::optional<RunCgroup> cgroup;
  std::string no_cgroup;
  if (const auto& site = cgroup_site(); !site) {
    no_cgroup = "the runtime could make no cgroup for the run: " + site.error();
  } else if (auto rc = run_cgroup(target.limits, room); !rc) {
    no_cgroup = rc.error().message;
  } else if (*rc) {
    cgroup.emplace(std::move(**rc));
  }
  auto started = start(room, dir->path(), false, target.limits, std::chrono::seconds(60), cgroup ? &*cgroup : nullptr,
                       /*show_cgroup=*/true);
  if (!started) return Unexpected(started.error());
  fill_probe_report(rep, read_result(dir->path()), started->how, started->stderr_tail);
  // The whole-run bounds are the cgroup's: where the runtime could make none, its reason
  // joins the agent's evidence, and an operator who accepted per-process limits gets a warning.
  for (auto& a : rep.agent.assertions) {
    bool whole_run = a.check == wire::Check::kMemoryBounded || a.check == wire::Check::kPidsBounded;
    if (!whole_run || a.verdict != wire::AssertionVerdict::kFail) continue;
    if (!no_cgroup.empty()) a.evidence += " — " + no_cgroup;
    if (options_.accept_per_process_limits) {
      a.verdict = wire::AssertionVerdict::kWarn;
      a.evidence += " (accepted: [worker.sandbox] accept_per_process_limits = true)";
    }
  }
  return done();
}

std::string userns_settings_of_this_host() {
  // Whether an unprivileged process may make a user namespace, as these settings say it on
  // this host: Ubuntu's AppArmor switch (1 forbids), Debian's older patch (0 forbids), the
  // kernel's own count (0 forbids). A file this kernel does not have says nothing.
  struct Setting {
    const char* file;  // under /proc/sys
    long forbids;
  };
  static constexpr Setting kSettings[] = {{"kernel/apparmor_restrict_unprivileged_userns", 1},
                                          {"kernel/unprivileged_userns_clone", 0},
                                          {"user/max_user_namespaces", 0}};
  std::string allowed;
  for (const Setting& s : kSettings) {
    const std::string path = std::string("/proc/sys/") + s.file;
    base::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) continue;
    char buf[32] = {};
    const ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
    if (n <= 0) continue;
    char* end = nullptr;
    const long value = std::strtol(buf, &end, 10);
    if (end == buf) continue;
    std::string name = s.file;
    std::replace(name.begin(), name.end(), '/', '.');
    const std::string said = name + "=" + std::to_string(value);
    if (value == s.forbids) return said + " on this host: it forbids the user namespace bwrap makes.";
    allowed += (allowed.empty() ? "" : ", ") + said;
  }
  if (allowed.empty()) return "";
  return "This host allows unprivileged user namespaces (" + allowed + "), so look at bwrap's own words above.";
}

// One hint per way the probe can fail, as docs/operations/bwrap.md's table of first lines
// gives them: an operator who sees "no_shell" is told about the room, not about namespaces.
std::string BwrapRuntime::hint(std::optional<wire::Check> failed) const {
  using wire::Check;
  auto see = [](std::string what) { return what + " See docs/operations/bwrap.md"; };
  if (!failed) {
    // The sandbox never started: first what this host's own settings say (RFC §1's third
    // line), then every setting that could be the cause.
    const std::string here = userns_settings_of_this_host();
    return see((here.empty() ? "" : here + " ") +
               "bwrap needs unprivileged user namespaces: `sysctl user.max_user_namespaces` must be > 0, "
               "kernel.unprivileged_userns_clone=1 on Debian-derived kernels, "
               "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04 (or an AppArmor profile for "
               "bwrap); [worker.sandbox.bwrap] binary must be bubblewrap, and each room must exist and hold "
               "this release's agent (scripts/build-room.py).");
  }
  switch (*failed) {
    case Check::kWireVersion:
      return see(
          "the room's agent is of another release: rebuild the room with this release's agent "
          "(scripts/build-room.py).");
    case Check::kNoShell:
      return see(
          "the room holds a shell: rebuild it from its definition (scripts/build-room.py); never copy "
          "a distribution's /bin or /usr/bin into a room.");
    case Check::kCommandsExist:
      return see(
          "the scanner's command is missing from its room, or not executable there: add it to the "
          "room's definition and rebuild the room (scripts/build-room.py).");
    case Check::kSeccompFilter:
    case Check::kNoNewPrivs:
    case Check::kCanarySyscall:
    case Check::kClone3Enosys:
      return see(
          "the agent installs this wall itself: the kernel must filter with seccomp "
          "(CONFIG_SECCOMP_FILTER), and the room must hold this release's agent, not a build without "
          "its walls (rebuild the room with scripts/build-room.py).");
    case Check::kAgentUnreachable:
      return see(
          "the scanner could open the agent's memory or environment: the room must hold this release's "
          "agent, which makes itself undumpable (rebuild the room with scripts/build-room.py), and bwrap "
          "must not be given a capability (no --cap-add in a wrapper).");
    case Check::kLandlock:
      return see(
          "the kernel offers Landlock and the agent's ruleset is not on the scanner: the room must hold "
          "this release's agent (rebuild it with scripts/build-room.py), and nothing around the worker "
          "may refuse landlock_create_ruleset/landlock_restrict_self (a seccomp profile of the worker's). "
          "A kernel without Landlock is only a warning unless [worker.sandbox] require_landlock = true: "
          "then boot it with landlock in lsm=.");
    case Check::kRlimits:
      return see(
          "the agent could not set a resource limit at all: allow the worker setrlimit/prlimit64 "
          "(a seccomp profile or an LSM around the worker refuses it). A host hard limit below the "
          "run's is only a warning.");
    case Check::kMemoryBounded:
    case Check::kPidsBounded:
      return see(
          "to bound each run as a whole the worker needs a cgroup it may create children in, with the "
          "memory and pids controllers (cgroup v1 hierarchies, or a delegated cgroup v2 subtree: "
          "systemd Delegate=yes, or a container with its own cgroup namespace); or accept per-process "
          "limits only with [worker.sandbox] accept_per_process_limits = true.");
    case Check::kNoCredentials:
      return see(
          "a credential reached the sandbox: a service-account token inside the room (rebuild it from "
          "its definition), or a variable the agent never passes, so [worker.sandbox.bwrap] binary is "
          "a wrapper that adds it.");
    case Check::kNoNetwork:
    case Check::kReadOnlyRoot:
    case Check::kOneWritableDir:
    case Check::kEmptyEnvironment:
    case Check::kUnprivileged:
    case Check::kPidNamespace:
      break;
  }
  return see(
      "bwrap's own argv sets this wall and nothing in the configuration removes it: "
      "[worker.sandbox.bwrap] binary must be bubblewrap itself, not a wrapper that changes its "
      "arguments or its environment.");
}

ScratchCandidate scratch_candidate(const std::string& path) {
  ScratchCandidate c{path};
  struct statfs sfs {};
  struct stat st {};
  if (::statfs(path.c_str(), &sfs) != 0 || ::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return c;
  c.tmpfs = sfs.f_type == TMPFS_MAGIC;
  c.open_to_all = (st.st_mode & 07777) == 01777;
  c.free_mb = static_cast<std::uint64_t>(sfs.f_bavail) * static_cast<std::uint64_t>(sfs.f_bsize) / (1024 * 1024);
  return c;
}

std::string bwrap_scratch_dir(const core::Env& env, const ScratchCandidate& shm, std::uint64_t slots,
                              std::uint64_t max_extracted_mb) {
  // TMPDIR, when set, wins. A container's /dev/shm is often 64 MiB: a tmpfs too small for the
  // runs at once would turn a large package into a write failure, so it is taken only with
  // room for all of them.
  const std::string tmpdir = env("TMPDIR").value_or("");
  if (!tmpdir.empty()) return tmpdir;
  if (shm.tmpfs && shm.open_to_all && shm.free_mb >= std::max<std::uint64_t>(slots, 1) * max_extracted_mb) {
    return shm.path;
  }
  return "/tmp";
}

namespace {

// A path below each hierarchy's root: absolute, no "." or ".." segment, no control
// character — the runtime joins it to /sys/fs/cgroup/<hierarchy> and creates cgroups there.
bool valid_cgroup_parent(const std::string& p) {
  bool ok = p.front() == '/' && p.size() < 1024;
  std::size_t start = 1;
  while (ok && start <= p.size()) {
    std::size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    std::string_view seg(p.data() + start, end - start);
    if (seg == "." || seg == ".." || (seg.empty() && end != p.size())) ok = false;
    start = end + 1;
  }
  for (char c : p) ok = ok && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  return ok;
}

}  // namespace

RuntimeRegistration bwrap_registration() {
  RuntimeRegistration r;
  r.schema.name = std::string(BwrapTable::kName);
  r.schema.read = [](config::TableReader& t, config::RuntimeTables& into) {
    BwrapTable b;
    if (auto v = t.str("binary")) b.binary = *v;
    if (auto v = t.str("cgroup_parent")) b.cgroup_parent = *v;
    into.set(std::move(b));
  };
  r.schema.check = [](const config::SandboxConfig& s, config::TableCheck& check) {
    const BwrapTable& b = s.tables.get<BwrapTable>();
    if (!b.cgroup_parent.empty() && !valid_cgroup_parent(b.cgroup_parent)) {
      check.refuse("worker.sandbox.bwrap.cgroup_parent",
                   "cgroup_parent = " + config::quoted(b.cgroup_parent) +
                       " must be an absolute path below each cgroup hierarchy's root, like "
                       "\"/batlehub.slice/sandbox\", with no '.' or '..' segment");
    }
    check.not_empty("worker.sandbox.bwrap.binary", b.binary);
  };
  r.build = [](const RuntimeContext& ctx) -> Expected<std::unique_ptr<core::SandboxRuntime>, std::string> {
    const config::SandboxConfig& s = ctx.config.worker.sandbox;
    const BwrapTable& b = s.tables.get<BwrapTable>();
    BwrapOptions o;
    o.binary = b.binary;
    o.rooms_dir = s.rooms_dir;
    o.scratch_dir = bwrap_scratch_dir(ctx.env, scratch_candidate("/dev/shm"), ctx.slots,
                                      static_cast<std::uint64_t>(s.max_extracted_mb));
    o.start_timeout = std::chrono::seconds(s.start_timeout_secs);
    o.probe_canaries = s.probe_canaries;
    o.cgroup_parent = b.cgroup_parent;
    o.accept_per_process_limits = s.accept_per_process_limits;
    return std::unique_ptr<core::SandboxRuntime>(std::make_unique<BwrapRuntime>(o));
  };
  r.hint =
      "bwrap needs bubblewrap, unprivileged user namespaces and a room per scanner under rooms_dir "
      "(docs/operations/bwrap.md)";
  return r;
}

}  // namespace batlehub::adapters
