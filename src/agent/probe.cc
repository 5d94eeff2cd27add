#include "agent/probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "base/cgroup.h"
#include "base/command_path.h"
#include "base/fd.h"
#include "base/spawn.h"
#include "wire/caps.h"

namespace batlehub::agent {

using wire::Assertion;
using wire::AssertionVerdict;
using wire::Check;

namespace {

constexpr int kCanaryWaitMs = 3000;

Assertion make(Check c, bool ok, std::string evidence) {
  return Assertion{c, ok ? AssertionVerdict::kPass : AssertionVerdict::kFail, std::move(evidence)};
}

std::string errno_name(int e) {
  switch (e) {
    case ENETUNREACH:
      return "ENETUNREACH";
    case EHOSTUNREACH:
      return "EHOSTUNREACH";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case ECONNREFUSED:
      return "ECONNREFUSED";
    case EROFS:
      return "EROFS";
    case ENOENT:
      return "ENOENT";
    case ENOSYS:
      return "ENOSYS";
    case EINVAL:
      return "EINVAL";
    case EAFNOSUPPORT:
      return "EAFNOSUPPORT";
    default:
      return "errno " + std::to_string(e);
  }
}

bool is_loopback(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr.s_addr) >> 24) == 127;
  }
  return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr);
}

// Whether the canary was reached, and how it answered.
//
// A refusal is a packet that came back, so for an address out there it fails (RFC 0022
// §4.3). A loopback canary is different, and the RFC's rule is wrong for it: in a network
// namespace of its own the sandbox has a loopback of its own, which refuses at once because
// nothing listens there. A loopback canary is always the worker's own listener (its /livez),
// known to be up: reaching it means connecting, and a refusal means some other loopback
// answered — the sandbox's. So for loopback only a connection fails.
std::string try_canary(const std::string& canary, bool& reached) {
  reached = false;
  sockaddr_storage ss{};
  socklen_t len = 0;
  std::string host, port;
  if (canary.starts_with('[')) {
    auto close = canary.find("]:");
    host = canary.substr(1, close - 1);
    port = canary.substr(close + 2);
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<uint16_t>(std::stoi(port)));
    inet_pton(AF_INET6, host.c_str(), &a->sin6_addr);
    len = sizeof *a;
  } else {
    auto colon = canary.rfind(':');
    host = canary.substr(0, colon);
    port = canary.substr(colon + 1);
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<uint16_t>(std::stoi(port)));
    inet_pton(AF_INET, host.c_str(), &a->sin_addr);
    len = sizeof *a;
  }
  base::Fd s(::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s.valid()) return canary + ": socket " + errno_name(errno);
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&ss), len) == 0) {
    reached = true;
    return canary + ": connected";
  }
  if (errno != EINPROGRESS) {
    int e = errno;
    reached = e == ECONNREFUSED && !is_loopback(ss);
    return canary + ": " + errno_name(e) + " at once" +
           (e == ECONNREFUSED && !reached ? " (the sandbox's own loopback)" : "");
  }
  pollfd p{s.get(), POLLOUT, 0};
  int r = ::poll(&p, 1, kCanaryWaitMs);
  if (r == 0) return canary + ": no answer within 3 s";
  int so = 0;
  socklen_t sl = sizeof so;
  ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &so, &sl);
  if (so == 0) {
    reached = true;
    return canary + ": connected";
  }
  reached = so == ECONNREFUSED && !is_loopback(ss);
  return canary + ": " + errno_name(so) + (so == ECONNREFUSED && !reached ? " (the sandbox's own loopback)" : "");
}

Assertion check_network(const wire::Manifest& m) {
  if (m.network) return make(Check::kNoNetwork, false, "the probe manifest asks for the network");
  if (!m.probe || m.probe->canaries.empty()) {
    return Assertion{Check::kNoNetwork, AssertionVerdict::kWarn, "no canary address was given; nothing was tried"};
  }
  bool ok = true;
  std::string ev;
  for (const auto& c : m.probe->canaries) {
    bool reached = false;
    std::string what = try_canary(c, reached);
    if (reached) ok = false;
    if (!ev.empty()) ev += "; ";
    ev += what;
  }
  return make(Check::kNoNetwork, ok, ev);
}

Assertion check_read_only_root() {
  std::string ev;
  for (const char* p : {"/usr/bin/.batlehub-probe", "/.batlehub-probe"}) {
    int fd = ::open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::close(fd);
      ::unlink(p);
      return make(Check::kReadOnlyRoot, false, std::string("created ") + p);
    }
    int e = errno;
    if (!ev.empty()) ev += "; ";
    ev += std::string(p) + ": " + errno_name(e);
    if (e == EROFS) return make(Check::kReadOnlyRoot, true, ev);
    if (e != ENOENT) return make(Check::kReadOnlyRoot, false, ev + " (not EROFS)");
  }
  return make(Check::kReadOnlyRoot, false, ev);
}

struct MountInfo {
  std::string point;
  std::string options;
};

std::vector<MountInfo> read_mounts() {
  std::vector<MountInfo> out;
  std::istringstream f(base::read_small_file("/proc/self/mounts", 4 * 1024 * 1024));
  std::string line;
  while (std::getline(f, line) && out.size() < 10000) {
    std::istringstream is(line);
    std::string dev, point, type, opts;
    is >> dev >> point >> type >> opts;
    out.push_back({point, opts});
  }
  return out;
}

bool has_option(const std::string& opts, std::string_view o) {
  std::size_t start = 0;
  while (start <= opts.size()) {
    std::size_t end = opts.find(',', start);
    if (end == std::string::npos) end = opts.size();
    if (std::string_view(opts).substr(start, end - start) == o) return true;
    start = end + 1;
  }
  return false;
}

std::string status_field(const std::string& status, std::string_view name);

Assertion check_work_dir(const std::string& work_dir) {
  auto mounts = read_mounts();
  if (mounts.empty()) return make(Check::kOneWritableDir, false, "/proc/self/mounts is unreadable");
  const MountInfo* best = nullptr;
  for (const auto& m : mounts) {
    bool covers =
        work_dir == m.point || m.point == "/" ||
        (work_dir.starts_with(m.point) && work_dir.size() > m.point.size() && work_dir[m.point.size()] == '/');
    if (covers && (best == nullptr || m.point.size() >= best->point.size())) best = &m;
  }
  if (best == nullptr) return make(Check::kOneWritableDir, false, "no mount covers " + work_dir);
  std::string probe_file = work_dir + "/.batlehub-probe";
  int fd = ::open(probe_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  int e = errno;
  bool writable = fd >= 0;
  if (writable) {
    ::close(fd);
    ::unlink(probe_file.c_str());
  }
  bool nosuid = has_option(best->options, "nosuid");
  bool nodev = has_option(best->options, "nodev");
  std::string ev = work_dir + " is on " + best->point + " (" + best->options + ")" +
                   (writable ? ", writable" : ", not writable: " + errno_name(e));
  // The kubelet mounts an emptyDir without nosuid and nodev, and no pod field adds them.
  // What those flags guard against is then proven instead, in this very sandbox:
  //  - nosuid: a setuid file in the work dir raises no one's privileges when no process
  //    here can gain any — no_new_privs is set on this process (the pod's
  //    allowPrivilegeEscalation: false; the walls set it again on the scanner, which the
  //    no_new_privs assertion proves), and it is inherited and cannot be unset;
  //  - nodev: a device node in the work dir opens a device only if one can be made there,
  //    and mknod is refused without CAP_MKNOD (the archive's own device entries are never
  //    extracted).
  if (writable && !nosuid) {
    const std::string status = base::read_small_file("/proc/self/status");
    const std::string nnp = status_field(status, "NoNewPrivs");
    nosuid = nnp == "1";
    ev += "; no nosuid: NoNewPrivs: " + (nnp.empty() ? std::string("unknown") : nnp) +
          (nosuid ? " (setuid bits are inert)" : " (a setuid file here would raise privileges)");
  }
  if (writable && !nodev) {
    const std::string node = work_dir + "/.batlehub-probe-dev";
    errno = 0;
    const int r = ::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3));
    const int mknod_errno = errno;
    if (r == 0) ::unlink(node.c_str());
    nodev = r != 0 && (mknod_errno == EPERM || mknod_errno == EACCES);
    ev += "; no nodev: mknod of a character device " +
          (r == 0 ? std::string("succeeded (a device node here would open a device)")
                  : "refused: " + errno_name(mknod_errno));
  }
  return make(Check::kOneWritableDir, writable && nosuid && nodev, ev);
}

std::string key_of(const std::string& kv) {
  return kv.substr(0, kv.find('='));
}

Assertion check_environment(const std::vector<std::string>& env) {
  std::string unexpected;
  for (const auto& kv : env) {
    std::string k = key_of(kv);
    if (k == "HOME" || k == "PATH") continue;
    // bwrap sets PWD after --chdir whatever --clearenv said; it names the work dir, no more.
    if (k == "PWD") continue;
    // Container engines set the container's hostname (its id: it names the sandbox, no
    // more), and podman says it is one (container=podman); docker and podman offer no flag
    // to keep either out.
    if (k == "HOSTNAME" || k == "container") continue;
    // The kubelet injects these for the API service whatever enableServiceLinks says.
    if (k.starts_with("KUBERNETES_SERVICE_") || k.starts_with("KUBERNETES_PORT")) continue;
    if (!unexpected.empty()) unexpected += ", ";
    unexpected += k;  // names only: a value may be a secret
  }
  if (unexpected.empty())
    return make(Check::kEmptyEnvironment, true, std::to_string(env.size()) + " variables, all expected");
  return make(Check::kEmptyEnvironment, false, "unexpected variables: " + unexpected);
}

std::string status_field(const std::string& status, std::string_view name) {
  std::size_t at = status.find(std::string(name) + ":");
  if (at == std::string::npos) return "";
  std::size_t start = at + name.size() + 1;
  std::size_t end = status.find('\n', start);
  std::string v = status.substr(start, end - start);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(0, 1);
  return v;
}

Assertion check_unprivileged() {
  uid_t euid = ::geteuid();
  std::string cap = status_field(base::read_small_file("/proc/self/status", 16384), "CapEff");
  bool no_caps = !cap.empty() && cap.find_first_not_of('0') == std::string::npos;
  return make(Check::kUnprivileged, euid != 0 && no_caps,
              "euid " + std::to_string(euid) + ", CapEff " + (cap.empty() ? "unreadable" : cap));
}

Assertion check_credentials(const std::vector<std::string>& env) {
  std::string found;
  struct stat st {};
  const char* token = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  if (::stat(token, &st) == 0) found = token;
  for (const auto& kv : env) {
    std::string k = key_of(kv);
    if (k == "DATABASE_URL" || k.starts_with("AWS_") || k.starts_with("BATLEHUB_")) {
      if (!found.empty()) found += ", ";
      found += k;
    }
  }
  return make(Check::kNoCredentials, found.empty(),
              found.empty() ? "no service-account token, no credential variable" : "found " + found);
}

Assertion check_no_shell(const std::string& scanner_path) {
  std::set<std::string> dirs;
  for (const auto& d : base::split_path(scanner_path)) dirs.insert(d);
  for (const char* d : {"/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin"}) dirs.insert(d);
  std::string found;
  for (const auto& d : dirs) {
    for (const char* n : kForbiddenInRoom) {
      std::string p = d + "/" + n;
      struct stat st {};
      if (::lstat(p.c_str(), &st) == 0) {
        if (!found.empty()) found += ", ";
        found += p;
      }
    }
  }
  return make(Check::kNoShell, found.empty(),
              found.empty()
                  ? "no sh, bash, dash, busybox or batlehub in " + std::to_string(dirs.size()) + " directories"
                  : "found " + found);
}

// What the child under the walls reports back (fixed layout: it may not allocate).
struct WalledReport {
  int wall_stage = 0;
  int wall_errno = 0;
  char seccomp[16] = {};
  char nnp[16] = {};
  char filters[16] = {};
  long canary_ret = 0;
  int canary_errno = 0;
  long clone3_ret = 0;
  int clone3_errno = 0;
  int n_limits = 0;
  struct {
    int resource;
    rlim_t cur;
    rlim_t max;
  } limits[8] = {};
};

void copy_field(const char* status, std::size_t n, const char* name, char* out, std::size_t out_n) {
  std::size_t name_len = std::strlen(name);
  for (std::size_t i = 0; i + name_len < n; ++i) {
    if ((i == 0 || status[i - 1] == '\n') && std::memcmp(status + i, name, name_len) == 0) {
      std::size_t j = i + name_len;
      while (j < n && (status[j] == ' ' || status[j] == '\t')) ++j;
      std::size_t k = 0;
      while (j < n && status[j] != '\n' && k + 1 < out_n) out[k++] = status[j++];
      out[k] = '\0';
      return;
    }
  }
}

WalledReport probe_under_walls(const ProbeContext& ctx) {
  WalledReport rep{};
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    rep.wall_stage = -1;
    rep.wall_errno = errno;
    return rep;
  }
  base::Fd r(fds[0]), w(fds[1]);
  sock_fprog prog{};
  if (ctx.seccomp) prog = ctx.seccomp->fprog();
  base::ChildWalls walls{.identity = std::nullopt, .rlimits = ctx.rlimits, .seccomp = ctx.seccomp};
  pid_t pid = ::fork();
  if (pid == 0) {
    WalledReport c{};
    base::WallFailure f = base::apply_walls(walls, ctx.seccomp ? &prog : nullptr);
    c.wall_stage = static_cast<int>(f.stage);
    c.wall_errno = f.err;
    if (f.stage == base::WallStage::kNone) {
      char status[8192];
      int sfd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
      ssize_t n = sfd >= 0 ? ::read(sfd, status, sizeof status) : -1;
      if (n > 0) {
        copy_field(status, static_cast<std::size_t>(n), "Seccomp:", c.seccomp, sizeof c.seccomp);
        copy_field(status, static_cast<std::size_t>(n), "NoNewPrivs:", c.nnp, sizeof c.nnp);
        copy_field(status, static_cast<std::size_t>(n), "Seccomp_filters:", c.filters, sizeof c.filters);
      }
      // personality(0xffffffff) only reads the persona: unfiltered it answers, filtered EPERM.
      errno = 0;
      c.canary_ret = ::syscall(SYS_personality, 0xffffffffUL);
      c.canary_errno = errno;
      // clone3 with a null argument: unfiltered EINVAL/EFAULT, filtered ENOSYS.
      errno = 0;
      c.clone3_ret = ::syscall(SYS_clone3, nullptr, 0);
      c.clone3_errno = errno;
      for (const auto& l : walls.rlimits) {
        if (c.n_limits >= 8) break;
        rlimit got{};
        ::getrlimit(l.resource, &got);
        c.limits[c.n_limits++] = {l.resource, got.rlim_cur, got.rlim_max};
      }
    }
    ssize_t ignored = ::write(w.get(), &c, sizeof c);
    (void)ignored;
    ::_exit(0);
  }
  w.reset();
  if (pid < 0) {
    rep.wall_stage = -1;
    rep.wall_errno = errno;
    return rep;
  }
  ssize_t n = ::read(r.get(), &rep, sizeof rep);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (n != static_cast<ssize_t>(sizeof rep)) {
    rep = WalledReport{};
    rep.wall_stage = -1;
  }
  return rep;
}

void add_walled_checks(const ProbeContext& ctx, std::vector<Assertion>& out) {
  WalledReport w = probe_under_walls(ctx);
  if (w.wall_stage != 0) {
    std::string why = w.wall_stage < 0 ? "the walled child could not report"
                                       : "installing the walls failed at stage " + std::to_string(w.wall_stage) + ": " +
                                             std::strerror(w.wall_errno);
    for (Check c :
         {Check::kSeccompFilter, Check::kNoNewPrivs, Check::kCanarySyscall, Check::kClone3Enosys, Check::kRlimits}) {
      out.push_back(make(c, false, why));
    }
    return;
  }
  out.push_back(make(Check::kSeccompFilter, std::string(w.seccomp) == "2",
                     std::string("Seccomp: ") + w.seccomp + ", Seccomp_filters: " + w.filters));
  out.push_back(make(Check::kNoNewPrivs, std::string(w.nnp) == "1", std::string("NoNewPrivs: ") + w.nnp));
  out.push_back(make(Check::kCanarySyscall, w.canary_ret == -1 && w.canary_errno == EPERM,
                     "personality(0xffffffff) returned " + std::to_string(w.canary_ret) +
                         (w.canary_ret == -1 ? " " + errno_name(w.canary_errno) : "")));
  out.push_back(make(Check::kClone3Enosys, w.clone3_ret == -1 && w.clone3_errno == ENOSYS,
                     "clone3 returned " + std::to_string(w.clone3_ret) +
                         (w.clone3_ret == -1 ? " " + errno_name(w.clone3_errno) : "")));
  bool ok = w.n_limits == static_cast<int>(ctx.rlimits.size());
  std::string ev;
  for (int i = 0; i < w.n_limits; ++i) {
    const auto& want = ctx.rlimits[static_cast<std::size_t>(i)];
    const auto& got = w.limits[i];
    bool match = got.cur == want.value && got.max == want.value;
    ok = ok && match;
    if (!ev.empty()) ev += ", ";
    ev += std::string(rlimit_name(got.resource)) + "=" + std::to_string(got.cur) +
          (match ? "" : " (wanted " + std::to_string(want.value) + ")");
  }
  out.push_back(make(Check::kRlimits, ok, ev.empty() ? "no limit set" : ev));
}

// The run's own cgroup and its limit for one controller, read from inside: the limit must
// exist (a run bounded only per process, by rlimits, fails) and be no looser than `most`
// (0: any finite bound). The evidence names the file that sets it.
// How many more processes this sandbox may start, measured: children forked (each blocked
// on a pipe, then gone) until fork refuses or `most` + 1 run. nullopt when all of them ran.
// For a bound the visible cgroup tree cannot show: a pod's pids.max is on the pod's cgroup
// (the kubelet's podPidsLimit), above the container's, which is all a container sees of
// cgroupfs. Only async-signal-safe calls in the children: the agent may have threads.
struct ForkMeasure {
  std::uint64_t started = 0;
  int err = 0;
};
std::optional<ForkMeasure> measure_fork_bound(std::uint64_t most) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ForkMeasure{0, errno};
  std::vector<pid_t> children;
  ForkMeasure m;
  bool refused = false;
  while (children.size() <= most) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[1]);
      char c;
      while (::read(fds[0], &c, 1) < 0 && errno == EINTR) {
      }
      ::_exit(0);
    }
    if (pid < 0) {
      m.err = errno;
      refused = true;
      break;
    }
    children.push_back(pid);
  }
  m.started = children.size();
  ::close(fds[1]);  // every child's read returns 0: they all leave
  ::close(fds[0]);
  for (pid_t c : children) ::waitpid(c, nullptr, 0);
  if (!refused) return std::nullopt;
  return m;
}

Assertion check_bounded(Check check, std::string_view controller, std::uint64_t most, std::string_view unit) {
  namespace cg = base::cgroup;
  auto memberships = cg::parse_proc_cgroup(base::read_small_file("/proc/self/cgroup"));
  auto mounts = cg::parse_mountinfo(base::read_small_file("/proc/self/mountinfo", 1024 * 1024));
  auto where = cg::locate(controller, memberships, mounts);  // not locate_self: the counts go in the evidence
  if (!where) {
    return make(check, false,
                "no " + std::string(controller) + " cgroup is visible from inside (/proc/self/cgroup names " +
                    std::to_string(memberships.size()) + " hierarchies, /proc/self/mountinfo shows " +
                    std::to_string(mounts.size()) + " cgroup mounts): the run is bounded per process only");
  }
  std::string_view file = cg::limit_file(controller, where->version);
  auto bound = cg::tightest(*where, file);
  std::string at = std::string(where->version == cg::Version::kV2 ? "cgroup v2 " : "cgroup v1 ") + where->path;
  if (!bound) {
    const std::string unlimited = at + ": " + std::string(file) + " is unlimited up to " + where->mount_point;
    if (check != Check::kPidsBounded || most == 0) return make(check, false, unlimited);
    // What cannot be read may still be measured (a pod's bound is above what it sees).
    rlimit nproc{};
    ::getrlimit(RLIMIT_NPROC, &nproc);
    const std::string rl = nproc.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(nproc.rlim_cur);
    auto measured = measure_fork_bound(most);
    if (!measured) {
      return make(check, false,
                  unlimited + ", and " + std::to_string(most + 1) + " more processes started without refusal");
    }
    return make(check, measured->err == EAGAIN,
                unlimited + ", but fork was refused (" + errno_name(measured->err) + ") after " +
                    std::to_string(measured->started) + " more processes, within the run's " + std::to_string(most) +
                    " " + std::string(unit) + ": a bound above the visible tree (RLIMIT_NPROC " + rl + ")");
  }
  std::string ev = at + ": " + bound->where + " = " + std::to_string(bound->value) + " " + std::string(unit);
  if (most != 0 && bound->value > most) {
    return make(check, false, ev + ", looser than the run's " + std::to_string(most) + " " + std::string(unit));
  }
  return make(check, true, ev);
}

}  // namespace

std::string sha256_file(const std::string& path, std::uint64_t* size) {
  base::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return "";
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return "";
  char buf[65536];
  std::uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "";
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    EVP_DigestUpdate(ctx.get(), buf, static_cast<std::size_t>(n));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  if (size) *size = total;
  return out;
}

wire::AgentProbeReport run_probe(const wire::Manifest& m, const ProbeContext& ctx) {
  wire::AgentProbeReport rep;
  auto& a = rep.assertions;
  a.push_back(check_network(m));
  a.push_back(check_read_only_root());
  a.push_back(check_work_dir(ctx.work_dir));
  a.push_back(check_environment(ctx.environment));
  a.push_back(check_unprivileged());
  a.push_back(check_credentials(ctx.environment));
  a.push_back(check_no_shell(ctx.scanner_path));

  std::string missing;
  std::size_t found = 0;
  if (m.probe) {
    for (const auto& named : m.probe->commands) {
      // A bare name is found where a run's argv[0] would be: on the scanner's PATH.
      const std::string c = base::resolve_command(named, ctx.scanner_path).value_or(named);
      struct stat st {};
      bool ok = c.starts_with('/') && ::stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
      if (!ok) {
        if (!missing.empty()) missing += ", ";
        missing += named;
        continue;
      }
      ++found;
      wire::CommandDigest d;
      d.path = c;
      d.sha256 = sha256_file(c, &d.size);
      rep.commands.push_back(std::move(d));
    }
  }
  a.push_back(make(Check::kCommandsExist, missing.empty(),
                   missing.empty() ? std::to_string(found) + " command(s) found and hashed"
                                   : "missing or not executable: " + missing));
  a.push_back(make(Check::kWireVersion, m.wire == wire::kWireVersion,
                   "manifest wire " + std::to_string(m.wire) + ", agent wire " + std::to_string(wire::kWireVersion)));
  pid_t pid = ::getpid(), ppid = ::getppid();
  a.push_back(make(Check::kPidNamespace, pid == 1 || ppid == 1,
                   "pid " + std::to_string(pid) + ", parent " + std::to_string(ppid)));
  add_walled_checks(ctx, a);
  // What one run may take as a whole (RFC 0022 §4.2's cost): its memory and what it may
  // write to memory-backed mounts (/tmp, and /work on the image runtimes).
  std::uint64_t cost =
      m.limits.memory_limit_mb == 0 ? 0 : m.limits.memory_limit_mb * wire::kMiB + m.extract_policy.max_extracted_bytes;
  a.push_back(check_bounded(Check::kMemoryBounded, "memory", cost, "bytes"));
  a.push_back(check_bounded(Check::kPidsBounded, "pids", wire::kRunPidsMax, "tasks"));
  return rep;
}

}  // namespace batlehub::agent
