#include "adapters/sandbox/oci.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "adapters/sandbox/image_choice.h"
#include "adapters/sandbox/launcher.h"
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
namespace fs = std::filesystem;

namespace {

// docker warns on every run that --dns 127.0.0.1 (ours: a run resolves nothing) "may fail in
// containers". Quoted as the engine's last words it would read as the reason a run failed.
std::string without_dns_warning(const std::string& tail) {
  std::string out;
  std::size_t at = 0;
  while (at < tail.size()) {
    std::size_t end = tail.find('\n', at);
    if (end == std::string::npos) end = tail.size();
    const std::string_view line(tail.data() + at, end - at);
    if (!line.starts_with("WARNING: Localhost DNS setting")) {
      if (!out.empty()) out += '\n';
      out += line;
    }
    at = end + 1;
  }
  return out;
}

constexpr const char* kOutTar = "out.tar";

bool podman(const OciArgvInput& in) {
  return in.engine == OciEngineKind::kPodman;
}

std::string engine_name(OciEngineKind e) {
  return e == OciEngineKind::kPodman ? "podman" : "docker";
}

std::int64_t now_epoch() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool oci_runs_gvisor(const std::vector<std::string>& extra_args) {
  auto is_runsc = [](std::string_view v) {
    const auto slash = v.rfind('/');
    return (slash == std::string_view::npos ? v : v.substr(slash + 1)) == "runsc";
  };
  for (std::size_t i = 0; i < extra_args.size(); ++i) {
    std::string_view x = extra_args[i];
    if (x.starts_with("--runtime=") && is_runsc(x.substr(std::string_view("--runtime=").size()))) return true;
    if (x == "--runtime" && i + 1 < extra_args.size() && is_runsc(extra_args[i + 1])) return true;
  }
  return false;
}

std::string oci_container_name(const core::RunLabel& label, const std::string& unique) {
  std::string raw =
      "batlehub-sbx-" + label.job + "-" + label.scanner + "-" + std::to_string(label.attempt) + "-" + unique;
  for (char& c : raw) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  return raw.substr(0, 200);
}

std::vector<std::string> oci_argv(const OciArgvInput& in) {
  const std::string mb = "m";
  std::vector<std::string> a{in.binary, "run", "--rm", "--name", in.name};
  a.insert(a.end(), {"--label", std::string(kOciWorkerLabel) + "=" + in.worker});
  a.insert(a.end(), {"--label", std::string(kOciJobLabel) + "=" + in.job});
  a.insert(a.end(), {"--label", std::string(kOciDeadlineLabel) + "=" + std::to_string(in.deadline_epoch)});
  // The image is only ever the one already here: a run never reaches a registry.
  a.insert(a.end(), {"--pull", "never"});
  // No network unless the run needs it — or unless the operator's extra_args name one
  // themselves: both engines refuse two, and a flag the operator wrote is not silently
  // dropped. The probe's no_network assertion then says what that network lets through.
  const bool operator_network = std::any_of(in.extra_args.begin(), in.extra_args.end(), [](const std::string& x) {
    return x == "--network" || x == "--net" || x.starts_with("--network=") || x.starts_with("--net=");
  });
  const bool storage = !in.storage_network.empty();
  if (!in.network && !operator_network) a.insert(a.end(), {"--network", storage ? in.storage_network : "none"});
  const bool gvisor = oci_runs_gvisor(in.extra_args);
  // runsc networks a sandbox by taking over the interfaces of the namespace it is handed,
  // and podman hands it none for --network none ("cannot run with network enabled in root
  // network namespace", runsc 20221219): runsc's own --network=none is then the same wall,
  // gVisor's netstack with nothing but loopback. docker hands it a namespace of its own.
  if (gvisor && podman(in) && !in.network && !operator_network && !storage) {
    a.emplace_back("--runtime-flag=network=none");
  }
  // What the engines would write into the container of the host's own: podman copies the
  // host's /etc/hosts (its names, its address as host.containers.internal) and writes an
  // /etc/passwd line; docker copies the host's resolver and search domains into
  // /etc/resolv.conf even with no network. None is the scanner's business.
  if (podman(in)) {
    a.insert(a.end(), {"--no-hosts", "--passwd=false"});
  } else if (!in.network && !operator_network && !storage) {
    // (A storage network's resolver is the operator's, like the network: docker refuses
    // --dns beside a `container:` network, and the probe proves what the network reaches.)
    a.insert(a.end(), {"--dns", "127.0.0.1", "--dns-search", "."});
  }
  // /work (the agent's extraction) and /tmp (Go's temporary files) are memory, sized like
  // the extraction budget; uid 65532 must own them. podman's `U` does that (and refuses
  // uid=); docker takes uid=/gid= and would add noexec without being told, as we do anyway.
  const std::string tmpfs_opts =
      "rw,nosuid,nodev,noexec,size=" + std::to_string(in.work_mb) + mb +
      (podman(in) ? ",U" : ",uid=" + std::string(wire::kSandboxIdText) + ",gid=" + wire::kSandboxIdText);
  a.insert(a.end(), {"--read-only", "--tmpfs", std::string(wire::kWorkDir) + ":" + tmpfs_opts, "--tmpfs",
                     std::string(wire::kTmpDir) + ":" + tmpfs_opts});
  // Nothing else writable: podman's --read-only adds tmpfs mounts on /run and /var/tmp, and
  // both engines a 1777 /dev/shm (the private IPC namespace's), which a scanner could fill
  // on a kernel without Landlock (`hostile mounts` wrote to all three under podman).
  if (podman(in)) a.emplace_back("--read-only-tmpfs=false");
  a.insert(a.end(), {"--ipc", "none"});
  // The per-run directory: the manifest and the artifact in, read-only; and the one file the
  // agent writes there, out.tar (made by OciBundleDir, writable by any uid), bound writable
  // over it. A scanner on a kernel without Landlock can then write that one file, up to its
  // RLIMIT_FSIZE, and nothing else of the host's disk (a writable bundle took 2,560 MiB of
  // it, past --memory and /work's size). podman takes nosuid,nodev on -v; docker refuses them
  // there, so the runtime has made the directory a nosuid,nodev mount before the run
  // (OciBundleDir), which both binds inherit.
  if (!in.bundle_dir.empty()) {
    const std::string flags = podman(in) ? ",nosuid,nodev" : "";
    a.insert(a.end(), {"-v", in.bundle_dir + ":" + wire::kBundleDir + ":ro" + flags});
    a.insert(a.end(), {"-v", in.bundle_dir + "/" + kOutTar + ":" + wire::kBundleDir + "/" + kOutTar + ":rw" + flags});
  }
  a.insert(a.end(), {"--cap-drop", "ALL", "--security-opt", "no-new-privileges"});
  if (podman(in)) {
    // A user namespace of the container's own: uid 65532 inside is an unused host uid, not
    // the host's 65532 (docker's equivalent is the daemon's userns-remap, docs/operations/oci.md).
    // Joining another container's network means joining its user namespace too: the kernel
    // lets a container mount its /sys only in a network namespace its own user namespace
    // owns (runc: "mounting sysfs … operation not permitted" otherwise).
    //
    // Not under gVisor: runsc (20221219) cannot start its gofer in a user namespace podman
    // made ("gofer: fork/exec /proc/self/exe: operation not permitted"), and runsc puts its
    // sandbox — the Sentry, which alone executes the scanner's syscalls, and the gofer —
    // into namespaces of its own, the Sentry into an empty user namespace. uid 65532 is
    // then a user of gVisor's kernel, never one of the host's; the probe's `kernel` says
    // which kernel answered.
    const bool joins_a_container = storage && in.storage_network.starts_with("container:") && !in.network;
    if (joins_a_container) {
      a.insert(a.end(), {"--userns", in.storage_network});
    } else if (!gvisor) {
      a.insert(a.end(), {"--userns", "auto:size=65536"});
    }
    // podman writes RLIMIT_NOFILE=1048576 into the spec, which a host without
    // CAP_SYS_RESOURCE cannot grant; these are the agent's own bounds for the scanner anyway.
    a.insert(a.end(), {"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"});
  }
  a.insert(a.end(),
           {"--memory", std::to_string(in.memory_mb) + mb, "--pids-limit", std::to_string(in.pids), "--cpus", in.cpus});
  // podman adds its containers.conf `env` (TERM=xterm by default) to every container;
  // docker adds nothing but HOSTNAME. The environment is then exactly what follows.
  if (podman(in)) a.insert(a.end(), {"--env-host=false", "--unsetenv-all"});
  a.insert(a.end(), {"-e", "HOME=" + std::string(wire::kWorkDir), "-e", "PATH=" + std::string(wire::kSandboxPath), "-w",
                     wire::kWorkDir, "--user", std::string(wire::kSandboxIdText) + ":" + wire::kSandboxIdText});
  a.insert(a.end(), in.extra_args.begin(), in.extra_args.end());
  a.push_back(in.image);
  if (!in.in_url.empty()) {
    a.insert(a.end(), {wire::kAgentCommand, "--in", in.in_url, "--out", in.out_url});
  } else {
    a.insert(a.end(), {wire::kAgentCommand, "--in", "file://" + std::string(wire::kBundleDir) + "/manifest.json",
                       "--out", "file://" + std::string(wire::kBundleDir) + "/" + kOutTar});
  }
  return a;
}

OciRuntime::OciRuntime(OciOptions o) : options_(std::move(o)) {
  const char* path = std::getenv("PATH");
  binary_ =
      base::resolve_command(options_.binary, path ? path : std::string(wire::kSandboxPath)).value_or(options_.binary);
  worker_ = this_worker_label();
  if (options_.engine_env.empty()) options_.engine_env = {"PATH=" + std::string(wire::kSandboxPath)};
}

OciRuntime::Engine OciRuntime::engine(const std::vector<std::string>& args, std::chrono::seconds timeout) const {
  base::SpawnSpec s;
  s.program = binary_;
  s.argv = {binary_};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.env = options_.engine_env;
  s.cwd_fd = AT_FDCWD;
  s.timeout = timeout;
  s.stdout_cap = 4 * 1024 * 1024;
  base::SpawnResult r = base::spawn_and_wait(s);
  Engine e;
  if (!r.started) {
    e.err = "could not start " + binary_ + ": " + r.start_error;
    return e;
  }
  e.exit_code = r.exit_code;
  e.out = std::move(r.stdout_bytes);
  e.err = stderr_tail_of(r.stderr_raw);
  return e;
}

void OciRuntime::remove(const std::string& container) const {
  // kill first: `rm -f` alone waits out the engine's stop timeout on some versions.
  engine({"kill", container}, std::chrono::seconds(30));
  engine({"rm", "-f", container}, std::chrono::seconds(60));
}

Expected<OciBundleDir, SandboxError> OciBundleDir::make(const std::string& run_dir, OciEngineKind engine) {
  // Open to every uid (0777, chmod'ed past the umask): see the header.
  OciBundleDir b(run_dir + "/bundle");
  if (::mkdir(b.path_.c_str(), 0777) != 0 || ::chmod(b.path_.c_str(), 0777) != 0) {
    return Unexpected(SandboxError{Kind::kIo, "creating " + b.path_ + ": " + std::strerror(errno)});
  }
  // The result file, empty until the agent writes it in place: the only thing in the bundle
  // the container may write (oci_argv).
  const std::string out = b.path_ + "/" + kOutTar;
  base::Fd made(::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (!made.valid() || ::fchmod(made.get(), 0666) != 0) {
    return Unexpected(SandboxError{Kind::kIo, "creating " + out + ": " + std::strerror(errno)});
  }
  if (engine == OciEngineKind::kPodman) return b;
  // docker: no nosuid/nodev in -v. The directory becomes a mount of its own with those
  // flags, and a bind mount's flags go with it into the container.
  if (::mount(b.path_.c_str(), b.path_.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return Unexpected(SandboxError{
        Kind::kIo, "bind " + b.path_ + " onto itself (to mount it nosuid,nodev for docker): " + std::strerror(errno) +
                       " — the docker engine needs a worker running as root"});
  }
  b.mounted_ = true;
  if (::mount(nullptr, b.path_.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV, nullptr) != 0) {
    return Unexpected(SandboxError{Kind::kIo, "remount " + b.path_ + " nosuid,nodev: " + std::strerror(errno)});
  }
  return b;
}

OciBundleDir::~OciBundleDir() {
  if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
}

namespace {
// The containers this process has in flight, by name, whichever OciRuntime started them (a
// reload's new generation sweeps beside the old one's runs): what the sweep must leave of
// the containers that carry this worker's own label. Anything else of ours is an orphan —
// a client killed before it could remove its container, or a previous life of a worker
// that is pid 1 in a container and so comes back with the same label (architecture.md,
// departure 21).
struct InFlight {
  std::mutex mu;
  std::set<std::string, std::less<>> names;
};
InFlight& in_flight() {
  static InFlight f;
  return f;
}
class InFlightRun {
 public:
  explicit InFlightRun(std::string name) : name_(std::move(name)) {
    std::lock_guard lock(in_flight().mu);
    in_flight().names.insert(name_);
  }
  ~InFlightRun() {
    std::lock_guard lock(in_flight().mu);
    in_flight().names.erase(name_);
  }
  InFlightRun(const InFlightRun&) = delete;
  InFlightRun& operator=(const InFlightRun&) = delete;

 private:
  std::string name_;
};
}  // namespace

Expected<Launched, SandboxError> OciRuntime::contain(const core::RunLabel& label, const std::string& dir,
                                                     const std::string& image, bool network, const core::Limits& limits,
                                                     std::chrono::milliseconds deadline, const StagedRun* staged,
                                                     core::RunTrace* trace) {
  static std::atomic<unsigned> serial{0};
  OciArgvInput in;
  in.engine = options_.engine;
  in.binary = binary_;
  in.name = oci_container_name(label, std::to_string(::getpid()) + "-" + std::to_string(serial++));
  core::trace_sandbox(trace, in.name, image);
  in.worker = worker_;
  in.job = label.job;
  in.deadline_epoch = now_epoch() + std::chrono::duration_cast<std::chrono::seconds>(deadline).count() + 1;
  in.bundle_dir = dir;
  if (staged != nullptr) {
    in.in_url = staged->manifest_url;
    in.out_url = staged->out_url;
    in.storage_network = options_.storage_network;
  }
  in.network = network;
  in.memory_mb = limits.memory_limit_mb;
  in.work_mb = limits.max_extracted_mb;
  in.extra_args = options_.extra_args;
  in.image = image;
  std::vector<std::string> argv = oci_argv(in);
  argv[0] = binary_;
  if (edit_argv_for_tests_) edit_argv_for_tests_(argv);
  base::SpawnSpec s;
  s.program = argv[0];
  s.argv = argv;
  s.env = options_.engine_env;
  s.cwd_fd = AT_FDCWD;
  s.timeout = deadline;
  s.stdout_cap = 64 * 1024;  // the agent prints nothing; what the engine prints is bounded

  const InFlightRun flight(in.name);
  auto ran = launch(engine_name(options_.engine), s);
  core::trace_ended(trace);
  if (ran) ran->stderr_tail = without_dns_warning(ran->stderr_tail);
  // A client that exited has had --rm remove its container. One killed at the deadline has
  // not: a signal to `run` does not stop the container (the agent is its pid 1, and the
  // client only forwards it), so the engine itself kills and removes it.
  if (!ran || ran->timed_out || !ran->exit_code) remove(in.name);
  return ran;
}

Expected<core::RunOutput, SandboxError> OciRuntime::run(const core::RunSpec& spec) {
  if (auto refused = refuse_run(spec)) return Unexpected(std::move(*refused));
  auto image =
      choose_image(options_.images, options_.default_image, spec.label.scanner, spec.image, "[worker.sandbox.oci]");
  if (!image) return Unexpected(image.error());
  if (options_.bundles) return run_through_storage(spec, *image);
  auto dir = TempDir::create_owned(options_.scratch_dir, "run", spec.label.scanner);
  if (!dir) return Unexpected(SandboxError{Kind::kIo, dir.error()});
  auto bundle = OciBundleDir::make(dir->path(), options_.engine);
  if (!bundle) return Unexpected(bundle.error());
  auto m = write_bundle(spec, RunDirView{bundle->path(), wire::kBundleDir});
  if (!m) return Unexpected(m.error());
  const auto deadline = run_deadline(spec, options_.start_timeout);
  auto ran = contain(spec.label, bundle->path(), *image, spec.network, spec.limits, deadline, nullptr, spec.trace);
  return outcome(spec, ran, deadline, [&] { return collect(bundle->path(), spec.argv[0]); });
}

// What a contained run came to, the same on both transports: a container past its deadline
// is a timeout; otherwise its result, read by `collect`, and a container that wrote none is
// a crash named with what the engine said.
Expected<core::RunOutput, SandboxError> OciRuntime::outcome(
    const core::RunSpec& spec, const Expected<Launched, SandboxError>& ran, std::chrono::milliseconds deadline,
    const std::function<Expected<core::RunOutput, SandboxError>()>& collect_result) const {
  if (!ran) return Unexpected(ran.error());
  if (ran->timed_out) {
    return Unexpected(SandboxError{Kind::kRunTimeout, "the " + engine_name(options_.engine) + " container of " +
                                                          spec.label.scanner + " ran past " +
                                                          std::to_string(deadline.count()) + " ms and was removed"});
  }
  auto out = collect_result();
  if (!out && out.error().reason == SandboxError::Reason::kNoResult) {
    // 137 from the engine is its container's pid 1 killed by SIGKILL: the agent itself went,
    // which under --memory is the cgroup's OOM killer (the agent's children it reports).
    return Unexpected(SandboxError{
        Kind::kCrashed,
        "the container never answered — " + ran->how + " and no result came back: \"" + ran->stderr_tail + "\"",
        SandboxError::Reason::kNoResult});
  }
  return out;
}

// The storage transport (RFC 0022 §5.2): the bundle staged on the leaf backend, the agent
// given its two presigned URLs and nothing else, out.tar read back through the worker's own
// credentials after a HEAD, and the run's keys deleted however it ended.
Expected<core::RunOutput, SandboxError> OciRuntime::run_through_storage(const core::RunSpec& spec,
                                                                        const std::string& image) {
  const auto deadline = run_deadline(spec, options_.start_timeout);
  auto staged = options_.bundles->stage(spec, std::chrono::ceil<std::chrono::seconds>(deadline));
  if (!staged) return Unexpected(staged.error());
  FinishOnExit finish(*options_.bundles, *staged);
  auto ran = contain(spec.label, "", image, spec.network, spec.limits, deadline, &*staged, spec.trace);
  return outcome(spec, ran, deadline, [&]() -> Expected<core::RunOutput, SandboxError> {
    auto tar = options_.bundles->read_result(*staged);
    if (!tar) return Unexpected(tar.error());
    return collect_tar(*tar, spec.argv[0]);
  });
}

Expected<core::ProbeReport, SandboxError> OciRuntime::probe(const core::ProbeTarget& target) {
  ProbeInProgress in_progress("oci", target);
  core::ProbeReport& rep = in_progress.report();
  auto done = [&]() -> Expected<core::ProbeReport, SandboxError> { return in_progress.finish(); };
  auto image = choose_image(options_.images, options_.default_image, target.room, target.image, "[worker.sandbox.oci]");
  if (!image) {
    rep.no_result_reason = image.error().message;
    return done();
  }
  CanaryListener listener;
  const wire::Manifest m = probe_manifest(target, canaries_for(listener.port(), options_.probe_canaries));
  const core::RunLabel label{"probe", target.room, 1};
  if (options_.bundles) {
    // The bundle's own fetch proves the one destination the storage network allows; the
    // canaries, that it allows nothing else.
    const auto deadline = std::chrono::milliseconds(m.timeout_ms) + options_.start_timeout;
    auto staged = options_.bundles->stage_manifest(m, label, std::chrono::ceil<std::chrono::seconds>(deadline));
    if (!staged) return Unexpected(staged.error());
    FinishOnExit finish(*options_.bundles, *staged);
    auto ran = contain(label, "", *image, false, target.limits, deadline, &*staged);
    if (!ran) return Unexpected(ran.error());
    auto tar = options_.bundles->read_result(*staged);
    fill_probe_report(rep,
                      tar ? read_result_tar(*tar) : Expected<wire::RunResult, SandboxError>(Unexpected(tar.error())),
                      ran->how, ran->stderr_tail);
    return done();
  }
  auto dir = TempDir::create_owned(options_.scratch_dir, "probe", target.room);
  if (!dir) return Unexpected(SandboxError{Kind::kIo, dir.error()});
  auto bundle = OciBundleDir::make(dir->path(), options_.engine);
  if (!bundle) return Unexpected(bundle.error());
  if (auto ok = write_manifest(m, bundle->path()); !ok) return Unexpected(ok.error());
  const auto deadline = std::chrono::milliseconds(m.timeout_ms) + options_.start_timeout;
  auto ran = contain(label, bundle->path(), *image, false, target.limits, deadline);
  if (!ran) return Unexpected(ran.error());
  fill_probe_report(rep, read_result(bundle->path()), ran->how, ran->stderr_tail);
  return done();
}

namespace {
// What docker and podman say when `rm` finds the container removed, or being removed, by
// the engine itself.
bool gone_already(std::string_view err) {
  std::string lower(err);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("no such container") != std::string::npos || lower.find("already in progress") != std::string::npos;
}
}  // namespace

Expected<core::Swept, SandboxError> OciRuntime::sweep(std::chrono::seconds older_than) {
  // podman's .Labels is a map; docker's is a string, read with its .Label function.
  auto label = [&](const char* key) {
    return options_.engine == OciEngineKind::kPodman ? "{{index .Labels \"" + std::string(key) + "\"}}"
                                                     : "{{.Label \"" + std::string(key) + "\"}}";
  };
  const std::string fmt = "{{.Names}}\t" + label(kOciWorkerLabel) + "\t" + label(kOciDeadlineLabel);
  Engine ps = engine({"ps", "-a", "--filter", std::string("label=") + kOciWorkerLabel, "--format", fmt},
                     std::chrono::seconds(60));
  if (!ps.exit_code || *ps.exit_code != 0) {
    return Unexpected(SandboxError{Kind::kIo, binary_ + " ps failed: " + ps.err});
  }
  const std::string here = "@" + worker_hostname();
  const std::int64_t now = now_epoch();
  const std::int64_t grace = std::max(older_than, options_.orphan_after).count();
  core::Swept swept;
  swept.looked_for(core::OrphanKind::kContainer);
  std::istringstream lines(ps.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string name, worker, deadline;
    std::getline(f, name, '\t');
    std::getline(f, worker, '\t');
    std::getline(f, deadline, '\t');
    if (name.empty()) continue;
    bool dead_worker = false;
    if (worker == worker_) {
      // Ours: in flight here, or left by a run whose client died before removing it.
      std::lock_guard lock(in_flight().mu);
      if (in_flight().names.contains(name)) continue;
      dead_worker = true;
    } else if (worker.ends_with(here)) {
      // A worker on this host: gone when its pid no longer runs.
      const std::string pid = worker.substr(0, worker.size() - here.size());
      dead_worker = !pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos &&
                    ::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH;
    }
    std::int64_t due = 0;
    try {
      due = deadline.empty() ? 0 : std::stoll(deadline);
    } catch (...) {
      due = 0;  // a label we did not write: judged by its worker alone
    }
    bool overdue = due > 0 && now > due + grace;
    if (!dead_worker && !overdue) continue;
    // kill first, as remove() does: `podman rm -f` gives a running container its 10 s stop
    // timeout, which the agent (pid 1, SIGTERM ignored) always uses up.
    engine({"kill", name}, std::chrono::seconds(30));
    Engine rm = engine({"rm", "-f", name}, std::chrono::seconds(60));
    // Runs are `run --rm`: the kill above makes the engine remove the container itself, and
    // an `rm` that lands while it does so is told "already in progress" (docker) or "no such
    // container". Either way the orphan is gone by our doing, and counts as swept.
    if ((rm.exit_code && *rm.exit_code == 0) || gone_already(rm.err)) {
      // "Already in progress": docker lists the container ("Removal In Progress") until its own
      // removal ends, which under load outlasted the sweep (CI here, 2026-12-07: a listing right
      // after a sweep that counted it still showed it). A container counted as swept is one
      // the engine no longer shows, so the sweep waits for that, 30 s at most.
      if (!(rm.exit_code && *rm.exit_code == 0)) {
        for (int i = 0; i < 300; ++i) {
          Engine shown = engine({"inspect", "--format", "{{.Id}}", name}, std::chrono::seconds(10));
          if (!shown.exit_code || *shown.exit_code != 0) break;
          ::usleep(100 * 1000);
        }
      }
      swept.add(core::OrphanKind::kContainer, 1);
    }
  }
  swept.add(core::OrphanKind::kRunDir, sweep_run_dirs(options_.scratch_dir, older_than));
  const auto bundle_age = std::max(older_than, options_.orphan_after);
  if (auto b = sweep_bundles(options_.bundles.get(), bundle_age, swept); !b) return Unexpected(b.error());
  return swept;
}

std::string OciRuntime::where() const {
  // The engine, and its CLI only when the operator named one of its own.
  const std::string engine = engine_name(options_.engine);
  std::string s = options_.binary == engine ? engine : engine + " (" + options_.binary + ")";
  if (options_.bundles)
    return s + ", network " + options_.storage_network + ", bundles on " + options_.bundles->location();
  return s + ", network none, bundles bound from " + options_.scratch_dir;
}

void OciRuntime::close_job(const std::string& job) {
  if (options_.bundles) options_.bundles->close_job(job);
}

// One hint per way the probe can fail, as bwrap's: what the operator changes differs — the
// engine's host setup, the image, or the worker's [worker.sandbox.oci] extra_args.
std::string OciRuntime::hint(std::optional<wire::Check> failed) const {
  using wire::Check;
  const bool podman = options_.engine == OciEngineKind::kPodman;
  auto see = [](std::string what) { return what + " See docs/operations/oci.md"; };
  if (!failed) {
    return see(podman ? "oci/podman needs podman with runc on hosts with hybrid cgroups (crun refuses them), "
                        "`containers:2147483647:2147483648` in /etc/subuid and /etc/subgid for --userns auto, "
                        "default_ulimits in containers.conf where the host's hard limits are lower than podman's, and "
                        "each scanner's image present locally (scripts/build-images.sh; runs never pull)."
                      : "oci/docker needs a running dockerd the CLI reaches (DOCKER_HOST), a worker running as "
                        "root (the per-run directory is mounted nosuid,nodev before the bind), and each scanner's "
                        "image present locally (scripts/build-images.sh; runs never pull).");
  }
  // What gVisor 20221219 (Debian 12's runsc) cannot show from inside: no tuning of the
  // engine or the image makes these pass, so the hint says so rather than send the operator
  // after flags (docs/operations/oci.md#gvisor).
  if (oci_runs_gvisor(options_.extra_args) &&
      (*failed == Check::kOneWritableDir || *failed == Check::kAgentUnreachable || *failed == Check::kMemoryBounded ||
       *failed == Check::kPidsBounded)) {
    return "the containers run under gVisor (extra_args name runsc), whose kernel does not show this wall from "
           "inside: Debian 12's runsc 20221219 drops nodev on /work, lets the scanner read the agent's "
           "/proc/1/environ and shows no cgroup in the sandbox. The worker will not start on walls it cannot "
           "prove: use runc (remove --runtime from extra_args), or a runsc that passes the probe. See "
           "docs/operations/oci.md#gvisor";
  }
  switch (*failed) {
    case Check::kWireVersion:
      return see(
          "the image's agent is of another release: rebuild the image with this release's agent "
          "(scripts/build-image.py, or make images).");
    case Check::kNoShell:
    case Check::kCommandsExist:
      return see(image_hint(*failed, "[worker.sandbox.oci]"));
    case Check::kSeccompFilter:
    case Check::kNoNewPrivs:
    case Check::kCanarySyscall:
    case Check::kClone3Enosys:
      return see(
          "the agent installs this wall itself, under the engine's own profile: the kernel must filter with "
          "seccomp, extra_args must not pass --security-opt seccomp=unconfined or a profile that refuses "
          "seccomp(2) and prctl(2), and the image must hold this release's agent (scripts/build-image.py).");
    case Check::kRlimits:
      return see(std::string("the engine or the kernel refused the agent a resource limit: ") +
                 (podman ? "set default_ulimits in containers.conf (nofile and nproc, both) to what the host allows."
                         : "set default-ulimits in daemon.json to what the host allows.") +
                 " A host hard limit below the run's is only a warning.");
    case Check::kAgentUnreachable:
      return see(
          "the scanner could open the agent's memory or environment: the image must hold this release's "
          "agent, which makes itself undumpable (rebuild it with `make images`), and extra_args must add no "
          "capability (--cap-add SYS_PTRACE, --privileged).");
    case Check::kLandlock:
      return see(std::string("the kernel offers Landlock and the agent's ruleset is not on the scanner: the image "
                             "must hold this release's agent (`make images`), and the engine's seccomp profile must "
                             "allow landlock_create_ruleset and landlock_restrict_self (") +
                 (podman ? "containers-common's" : "docker's") +
                 " default does; check --security-opt seccomp= in extra_args). A kernel without Landlock is only a "
                 "warning unless [worker.sandbox] require_landlock = true: then boot it with landlock in lsm=.");
    case Check::kMemoryBounded:
    case Check::kPidsBounded:
      return see(podman ? "podman must bound the container with the memory and pids controllers: root on cgroup v1 "
                          "or hybrid, or cgroup v2 (rootless: with the controllers delegated to the user); never "
                          "--cgroups disabled in extra_args or containers.conf, which drops --memory and "
                          "--pids-limit."
                        : "dockerd must bound the container with the memory and pids controllers: a cgroup driver "
                          "that has them (cgroup v1, or v2 with them enabled), and no extra_args that override "
                          "--memory or --pids-limit.");
    case Check::kNoNetwork:
      return see(
          "the container reached a canary: remove a --network from [worker.sandbox.oci] extra_args (the "
          "runtime writes --network none itself unless a scanner needs the network), or, on the storage "
          "transport, give it a network that reaches the storage endpoint and nothing else.");
    case Check::kNoCredentials:
    case Check::kEmptyEnvironment:
      return see(std::string("a variable reached the container that the runtime never passes: remove -e/--env/"
                             "--env-file from [worker.sandbox.oci] extra_args") +
                 (podman ? ", and env from containers.conf if --unsetenv-all is overridden" : "") +
                 "; a service-account token inside the image means rebuilding it from its definition.");
    case Check::kUnprivileged:
      return see(podman ? "the scanner runs as root of the host: keep --userns auto (the `containers` range in "
                          "/etc/subuid and /etc/subgid) and --user 65532 (no --userns host or --user in extra_args)."
                        : "the scanner runs as a privileged user: keep --user 65532 and no --privileged or --cap-add "
                          "in extra_args; set \"userns-remap\" in daemon.json for a user namespace.");
    case Check::kReadOnlyRoot:
    case Check::kOneWritableDir:
      return see(podman ? "the image's root must stay read-only with /work and /tmp the writable mounts and the "
                          "bundle read-only: no -v, --mount, --tmpfs or --read-only=false in extra_args."
                        : "the image's root must stay read-only with /work and /tmp the writable mounts and the "
                          "bundle read-only, bound nosuid,nodev (which needs a worker running as root): no -v, "
                          "--mount, --tmpfs or --read-only=false in extra_args.");
    case Check::kPidNamespace:
      break;
  }
  return see(
      "the engine's own flags set this wall and nothing in the configuration should remove it: no --pid host "
      "or other namespace flag in [worker.sandbox.oci] extra_args.");
}

RuntimeRegistration oci_registration() {
  RuntimeRegistration r = image_runtime_registration<OciTable>();
  r.schema.read = [](config::TableReader& t, config::RuntimeTables& into) {
    OciTable o;
    if (auto v = t.one_of("engine", {"podman", "docker"})) {
      o.engine = *v == "docker" ? OciEngineKind::kDocker : OciEngineKind::kPodman;
    }
    // The CLI defaults to the engine's own name, so `engine = "docker"` alone runs docker.
    o.binary = engine_name(o.engine);
    if (auto v = t.str("binary")) o.binary = *v;
    if (auto v = t.str("image")) o.image = *v;
    if (auto v = t.one_of("transport", {"mount", "storage"})) {
      o.transport = *v == "storage" ? OciTransport::kStorage : OciTransport::kMount;
    }
    if (auto v = t.str("storage_network")) o.storage_network = *v;
    if (auto v = t.strings("extra_args")) o.extra_args = *v;
    into.set(std::move(o));
  };
  r.schema.check = [](const config::SandboxConfig& s, config::TableCheck& check) {
    check.not_empty("worker.sandbox.oci.binary", s.tables.get<OciTable>().binary);
  };
  // The storage transport: the network its runs join instead of none (docs/operations/oci.md).
  r.schema.check_in_use = [](const config::SandboxConfig& s, config::TableCheck& check) {
    const OciTable& o = s.tables.get<OciTable>();
    if (o.transport != OciTransport::kStorage) return;
    const std::string& net = o.storage_network;
    if (net.empty()) {
      check.refuse("worker.sandbox.oci.storage_network",
                   "transport = \"storage\" needs storage_network: the engine network a run joins, whose only "
                   "destination is the storage endpoint (docs/operations/oci.md#the-storage-transport)");
    }
    if (net == "none" || net == "host" || net.starts_with("ns:/proc/1/") || net == "ns:/proc/self/ns/net") {
      check.refuse("worker.sandbox.oci.storage_network",
                   "storage_network = " + config::quoted(net) +
                       (net == "none" ? " leaves the container no way to fetch its bundle"
                                      : " is the host's own network: no wall at all") +
                       "; name a network whose only destination is the storage endpoint");
    }
  };
  r.schema.storage_transport = [](const config::SandboxConfig& s) -> std::optional<std::string> {
    if (s.tables.get<OciTable>().transport != OciTransport::kStorage) return std::nullopt;
    return "the oci runtime with transport = \"storage\"";
  };
  r.schema.also_reads = {{"kubernetes", "orphan_after_secs"}};
  r.build = [](const RuntimeContext& ctx) -> Expected<std::unique_ptr<core::SandboxRuntime>, std::string> {
    const config::SandboxConfig& s = ctx.config.worker.sandbox;
    const OciTable& t = s.tables.get<OciTable>();
    OciOptions o;
    if (t.transport == OciTransport::kStorage) {
      auto bundles = ctx.bundles();
      if (!bundles) return Unexpected(bundles.error());
      o.bundles = std::move(*bundles);
      o.storage_network = t.storage_network;
    }
    o.engine = t.engine;
    o.binary = t.binary;
    o.images = ctx.images;
    o.default_image = ctx.default_image;
    o.extra_args = t.extra_args;
    o.scratch_dir = ctx.scratch_dir;
    o.start_timeout = std::chrono::seconds(s.start_timeout_secs);
    o.probe_canaries = s.probe_canaries;
    if (auto age = config::shared_integer(s, "kubernetes", "orphan_after_secs")) {
      o.orphan_after = std::chrono::seconds(*age);
    }
    // The engine CLI's environment: how to reach the engine, nothing of the worker's secrets.
    o.engine_env = {"PATH=" + ctx.env("PATH").value_or(std::string(wire::kSandboxPath))};
    for (const char* k :
         {"DOCKER_HOST", "DOCKER_CONFIG", "CONTAINERS_CONF", "CONTAINER_HOST", "XDG_RUNTIME_DIR", "HOME"}) {
      if (auto v = ctx.env(k); v && !v->empty()) o.engine_env.push_back(std::string(k) + "=" + *v);
    }
    return std::unique_ptr<core::SandboxRuntime>(std::make_unique<OciRuntime>(o));
  };
  r.hint =
      "oci needs podman or docker on the worker's PATH (rootless podman, or a docker daemon the worker may "
      "use) and each scanner's image in its store (docs/operations/oci.md)";
  return r;
}

}  // namespace batlehub::adapters
