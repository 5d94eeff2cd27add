#include "agent/probe.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <mbedtls/sha256.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "agent/walls.h"
#include "base/cgroup.h"
#include "base/command_path.h"
#include "base/fd.h"
#include "base/kernel_identity.h"
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

// An ICMP error that refused a connection, read from the socket's error queue
// (IP_RECVERR / IPV6_RECVERR): who sent it, and which it was.
struct IcmpRefusal {
  std::string from;  // the offender's address, "" when the kernel gave none
  int type = 0;
  int code = 0;
};

std::string address_text(const sockaddr* a) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (a->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, buf, sizeof buf);
  } else if (a->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

// Whether ICMP refused the connection on `fd`. The kernel queues such an error on a TCP
// socket in SYN_SENT only when IP_RECVERR was set before connect (tcp_v4_err and tcp_v6_err
// call ip_icmp_error / ipv6_icmp_error there); a reset queues nothing.
std::optional<IcmpRefusal> icmp_refusal(int fd) {
  alignas(cmsghdr) char control[512];
  char data[1];
  iovec iov{data, sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return std::nullopt;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    const bool v4 = c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR;
    const bool v6 = c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR;
    if (!v4 && !v6) continue;
    if (c->cmsg_len < CMSG_LEN(sizeof(sock_extended_err))) continue;
    sock_extended_err ee{};
    std::memcpy(&ee, CMSG_DATA(c), sizeof ee);
    if (ee.ee_origin != SO_EE_ORIGIN_ICMP && ee.ee_origin != SO_EE_ORIGIN_ICMP6) continue;
    IcmpRefusal r{"", ee.ee_type, ee.ee_code};
    // SO_EE_OFFENDER: the address the ICMP message came from, right after the struct
    // (AF_UNSPEC when the kernel does not know it).
    const std::size_t after = c->cmsg_len - CMSG_LEN(sizeof ee);
    if (after > 0) {
      sockaddr_storage off{};
      std::memcpy(&off, CMSG_DATA(c) + sizeof ee, std::min(after, sizeof off));
      r.from = address_text(reinterpret_cast<const sockaddr*>(&off));
    }
    return r;
  }
  return std::nullopt;
}

// Whether the canary was reached, and how it answered.
//
// A refusal is a packet that came back, so for an address out there it fails (RFC 0022
// §4.3). Two refusals are not the canary's host answering, and the RFC's rule is wrong for
// them:
// - A loopback canary is always the worker's own listener (its /livez), known to be up: in a
//   network namespace of its own the sandbox has a loopback of its own, which refuses at once
//   because nothing listens there. So for loopback only a connection fails.
// - A TCP connection refused by ICMP (port or administratively unreachable) is a firewall's
//   REJECT: a host answers a SYN on a closed port with a reset, never with ICMP. kube-router
//   enforces NetworkPolicy that way (REJECT --reject-with icmp-port-unreachable), as does any
//   iptables or nftables `reject` rule in front of the canary. The SYN was stopped, not
//   delivered, so the wall held.
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
  // Where the option is missing (gVisor's netstack has it for UDP only), an ICMP refusal
  // looks like a reset and is counted as one: the stricter reading.
  const int on = 1;
  const bool recverr = ss.ss_family == AF_INET ? ::setsockopt(s.get(), IPPROTO_IP, IP_RECVERR, &on, sizeof on) == 0
                                               : ::setsockopt(s.get(), IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof on) == 0;
  int e = 0;
  std::string when;
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&ss), len) == 0) {
    reached = true;
    return canary + ": connected";
  }
  if (errno != EINPROGRESS) {
    e = errno;
    when = " at once";
  } else {
    pollfd p{s.get(), POLLOUT, 0};
    if (::poll(&p, 1, kCanaryWaitMs) == 0) return canary + ": no answer within 3 s";
    socklen_t sl = sizeof e;
    ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &e, &sl);
    if (e == 0) {
      reached = true;
      return canary + ": connected";
    }
  }
  if (e != ECONNREFUSED) return canary + ": " + errno_name(e) + when;
  if (is_loopback(ss)) return canary + ": ECONNREFUSED" + when + " (the sandbox's own loopback)";
  if (recverr) {
    if (auto icmp = icmp_refusal(s.get())) {
      return canary + ": ECONNREFUSED" + when + " by ICMP type " + std::to_string(icmp->type) + " code " +
             std::to_string(icmp->code) + (icmp->from.empty() ? "" : " from " + icmp->from) +
             " (a firewall's rejection: the canary's host answers with a reset)";
    }
  }
  reached = true;
  return canary + ": ECONNREFUSED" + when + " (a reset: the canary's host answered)";
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

struct MountInfo {
  std::string point;
  std::string type;
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
    out.push_back({base::cgroup::unescape_mount_field(point), type, opts});
  }
  return out;
}

// The mount `path` is on: the longest mount point that is `path` or one of its parents.
const MountInfo* mount_of(const std::vector<MountInfo>& mounts, const std::string& path) {
  const MountInfo* best = nullptr;
  for (const auto& m : mounts) {
    const bool covers = path == m.point || m.point == "/" ||
                        (path.starts_with(m.point) && path.size() > m.point.size() && path[m.point.size()] == '/');
    if (covers && (best == nullptr || m.point.size() >= best->point.size())) best = &m;
  }
  return best;
}

// gVisor's /proc/self/status has no NoNewPrivs line; the flag itself still answers. The
// value as the evidence shows it ("1 (prctl)"), or nullptr when prctl does not answer.
const char* no_new_privs_from_prctl() {
  const int v = ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  return v == 1 ? "1 (prctl)" : v == 0 ? "0 (prctl)" : nullptr;
}

// Whether a NoNewPrivs value (the status line's, or no_new_privs_from_prctl's) says it is set.
bool no_new_privs_set(std::string_view v) {
  return v == "1" || v == "1 (prctl)";
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

Assertion check_read_only_root(const std::vector<MountInfo>& mounts) {
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
    // gVisor's kernel checks the directory's permission before the mount's flag, so uid
    // 65532 gets EACCES where Linux says EROFS: then its mount must say it is read-only.
    if (e == EACCES) {
      const std::string dir = std::string(p).substr(0, std::string(p).rfind('/'));
      const MountInfo* m = mount_of(mounts, dir.empty() ? "/" : dir);
      if (m != nullptr && has_option(m->options, "ro")) {
        return make(Check::kReadOnlyRoot, true, ev + ", on a read-only mount (ro in /proc/self/mounts)");
      }
    }
    if (e != ENOENT) return make(Check::kReadOnlyRoot, false, ev + " (not EROFS)");
  }
  return make(Check::kReadOnlyRoot, false, ev);
}

std::string status_field(const std::string& status, std::string_view name);

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

// What the walled child tries to write outside the work dirs, prepared by the parent (the
// child may not allocate): each mount the scanner can see, and the directories at the top of
// each writable one (a 1777 /dev/shm in an engine's /dev).
struct WriteTarget {
  std::string path;
  bool dir = false;
  std::string probe_file;  // dir: the file the child tries to create in it
};
constexpr std::size_t kMaxWriteTargets = 96;

// What the child under the walls reports back (fixed layout: it may not allocate).
struct WalledReport {
  // The stage of no_new_privs, Landlock and the seccomp filter that failed (the rlimits are
  // set one by one before them, each with its own errno), or -1 when the child could not report.
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
    int set_errno;  // setrlimit's errno when this limit could not be set, else 0
  } limits[8] = {};
  // The agent as the scanner would reach it: 0 when the open or the signal went through.
  int mem_errno = 0;       // open(/proc/<agent>/mem, O_RDWR)
  int environ_errno = 0;   // open(/proc/<agent>/environ)
  int kill_errno = 0;      // kill(<agent>, 0)
  int root_dir_errno = 0;  // open("/", O_DIRECTORY): a room's "/" itself is not the room's
  int tcp_tried = 0;
  int tcp_errno = 0;  // connect to the agent's loopback listener
  int n_writes = 0;
  int write_errno[kMaxWriteTargets] = {};  // per WriteTarget: 0 when it could be written
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

// A child under the walls a run's scanner gets (scanner_walls(): this build's), reporting
// what it reads of itself. Its rlimits are installed one at a time through apply_walls, as
// a run's child installs them, so that a limit the host refuses is named with its errno and
// the walls after it (no_new_privs, the filter) are still installed and proven.
WalledReport probe_under_walls(const ProbeContext& ctx, const std::vector<WriteTarget>& targets) {
  WalledReport rep{};
  const base::ChildWalls walls = scanner_walls(ctx.rlimits, ctx.seccomp, ctx.landlock->fd.get());
  const std::size_t n_expected = std::min<std::size_t>(ctx.rlimits.size(), 8);
  // Everything the child uses is built here: it may not allocate (the agent may be a thread
  // of the worker).
  std::vector<base::ChildWalls> one_each;
  for (std::size_t i = 0; i < walls.rlimits.size() && i < n_expected; ++i) {
    one_each.push_back(base::ChildWalls{.identity = std::nullopt, .rlimits = {walls.rlimits[i]}, .seccomp = nullptr});
  }
  base::ChildWalls rest = walls;
  rest.rlimits.clear();
  sock_fprog prog{};
  if (rest.seccomp) prog = rest.seccomp->fprog();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    rep.wall_stage = -1;
    rep.wall_errno = errno;
    return rep;
  }
  base::Fd r(fds[0]), w(fds[1]);
  // The agent's own files, as a scanner would name them, and a loopback listener of the
  // agent's for the child to connect to: without Landlock's network rights it gets in.
  const pid_t agent = ::getpid();
  const std::string agent_mem = "/proc/" + std::to_string(agent) + "/mem";
  const std::string agent_environ = "/proc/" + std::to_string(agent) + "/environ";
  sockaddr_in listen_at{};
  socklen_t listen_len = sizeof listen_at;
  base::Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  listen_at.sin_family = AF_INET;
  listen_at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!listener.valid() || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&listen_at), sizeof listen_at) != 0 ||
      ::listen(listener.get(), 1) != 0 ||
      ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&listen_at), &listen_len) != 0) {
    listener.reset();
  }
  const std::size_t n_targets = std::min(targets.size(), kMaxWriteTargets);
  pid_t pid = ::fork();
  if (pid == 0) {
    WalledReport c{};
    for (std::size_t i = 0; i < one_each.size(); ++i) {
      base::WallFailure f = base::apply_walls(one_each[i], nullptr);
      if (f.stage == base::WallStage::kRlimit) c.limits[i].set_errno = f.err;
    }
    base::WallFailure f = base::apply_walls(rest, rest.seccomp ? &prog : nullptr);
    c.wall_stage = static_cast<int>(f.stage);
    c.wall_errno = f.err;
    char status[8192];
    int sfd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t n = sfd >= 0 ? ::read(sfd, status, sizeof status) : -1;
    if (n > 0) {
      copy_field(status, static_cast<std::size_t>(n), "Seccomp:", c.seccomp, sizeof c.seccomp);
      copy_field(status, static_cast<std::size_t>(n), "NoNewPrivs:", c.nnp, sizeof c.nnp);
      copy_field(status, static_cast<std::size_t>(n), "Seccomp_filters:", c.filters, sizeof c.filters);
    }
    if (c.nnp[0] == '\0') {
      const char* v = no_new_privs_from_prctl();
      if (v != nullptr) std::memcpy(c.nnp, v, std::strlen(v) + 1);
    }
    if (f.stage == base::WallStage::kNone) {
      // personality(0xffffffff) only reads the persona: unfiltered it answers, filtered EPERM.
      errno = 0;
      c.canary_ret = ::syscall(SYS_personality, 0xffffffffUL);
      c.canary_errno = errno;
      // clone3 with a null argument: unfiltered EINVAL/EFAULT, filtered ENOSYS.
      errno = 0;
      c.clone3_ret = ::syscall(SYS_clone3, nullptr, 0);
      c.clone3_errno = errno;
      auto open_errno = [](const char* path, int flags) {
        const int fd = ::open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) return errno;
        ::close(fd);
        return 0;
      };
      c.mem_errno = open_errno(agent_mem.c_str(), O_RDWR);
      c.environ_errno = open_errno(agent_environ.c_str(), O_RDONLY);
      c.kill_errno = ::kill(agent, 0) == 0 ? 0 : errno;
      c.root_dir_errno = open_errno("/", O_RDONLY | O_DIRECTORY);
      if (listener.valid()) {
        c.tcp_tried = 1;
        const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        c.tcp_errno =
            s < 0 ? errno
                  : (::connect(s, reinterpret_cast<const sockaddr*>(&listen_at), sizeof listen_at) == 0 ? 0 : errno);
        if (s >= 0) ::close(s);
      }
      for (std::size_t i = 0; i < n_targets; ++i) {
        const WriteTarget& t = targets[i];
        if (t.dir) {
          const int fd = ::open(t.probe_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
          c.write_errno[i] = fd < 0 ? errno : 0;
          if (fd >= 0) {
            ::close(fd);
            ::unlink(t.probe_file.c_str());
          }
        } else {
          // O_APPEND and no O_TRUNC: what is there stays as it was.
          c.write_errno[i] = open_errno(t.path.c_str(), O_WRONLY | O_APPEND);
        }
      }
      c.n_writes = static_cast<int>(n_targets);
    }
    // What each limit the manifest asked for came to, whatever this build set.
    for (std::size_t i = 0; i < n_expected; ++i) {
      rlimit got{};
      ::getrlimit(ctx.rlimits[i].resource, &got);
      c.limits[i].resource = ctx.rlimits[i].resource;
      c.limits[i].cur = got.rlim_cur;
      c.limits[i].max = got.rlim_max;
    }
    c.n_limits = static_cast<int>(n_expected);
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

std::string limit_value(rlim_t v) {
  return v == RLIM_INFINITY ? std::string("unlimited") : std::to_string(v);
}

bool beneath(const std::string& path, const std::string& dir) {
  return path == dir || (path.starts_with(dir) && path.size() > dir.size() && (dir == "/" || path[dir.size()] == '/'));
}

// Mounts whose files are the kernel's interfaces rather than storage: nothing is filled by
// writing to them, and the runtimes' own walls (read-only /proc/sys, no /sys) answer for them.
// An engine's /dev/mqueue holds POSIX message queues, bounded per uid by RLIMIT_MSGQUEUE
// (800 KiB by default), not files.
bool kernel_interface(const std::string& type) {
  static const std::set<std::string> kTypes{"proc",       "sysfs",    "cgroup",  "cgroup2",     "devpts",
                                            "securityfs", "debugfs",  "tracefs", "bpf",         "pstore",
                                            "efivarfs",   "configfs", "fusectl", "binfmt_misc", "nsfs",
                                            "mqueue"};
  return kTypes.contains(type);
}

std::vector<WriteTarget> write_targets(const std::vector<MountInfo>& mounts, const std::string& work_dir) {
  std::vector<WriteTarget> out;
  std::set<std::string> seen;
  auto consider = [&](const std::string& path) {
    if (out.size() >= kMaxWriteTargets || beneath(path, work_dir) || beneath(path, "/tmp")) return false;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) return false;  // devices, links: not storage
    if (!seen.insert(path).second) return false;
    const bool dir = S_ISDIR(st.st_mode);
    out.push_back({path, dir, dir ? (path == "/" ? "" : path) + "/.batlehub-probe-w" : ""});
    return dir;
  };
  for (const auto& m : mounts) {
    if (kernel_interface(m.type)) continue;
    const bool dir = consider(m.point);
    if (!dir || has_option(m.options, "ro")) continue;
    // A writable mount's own directories: a 1777 /dev/shm on an engine's /dev tmpfs.
    DIR* d = ::opendir(m.point.c_str());
    if (d == nullptr) continue;
    int n = 0;
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || ++n > 16) continue;
      const std::string sub = (m.point == "/" ? "" : m.point) + "/" + name;
      struct stat st {};
      if (::lstat(sub.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) consider(sub);
    }
    ::closedir(d);
  }
  return out;
}

rlim_t walled_limit(const WalledReport& w, int resource) {
  for (int i = 0; i < w.n_limits; ++i) {
    if (w.limits[i].resource == resource) return w.limits[i].cur;
  }
  return RLIM_INFINITY;
}

// What the walled child could write outside the work dirs. A directory is storage without
// bound and fails; a file (an engine's /etc/hosts, a kubelet's /dev/termination-log, the
// agent's own result file) grows at most to RLIMIT_FSIZE, and is named but passes.
bool writable_elsewhere(const std::vector<WriteTarget>& targets, const WalledReport& w, const std::string& out_path,
                        std::string& ev) {
  bool ok = true;
  std::string dirs, files;
  const rlim_t fsize = walled_limit(w, RLIMIT_FSIZE);
  for (int i = 0; i < w.n_writes && static_cast<std::size_t>(i) < targets.size(); ++i) {
    if (w.write_errno[i] != 0) continue;
    const WriteTarget& t = targets[static_cast<std::size_t>(i)];
    std::string& list = t.dir ? dirs : files;
    if (!list.empty()) list += ", ";
    list += t.path + (t.path == out_path ? " (the agent's result)" : "");
    if (t.dir || fsize == RLIM_INFINITY) ok = false;
  }
  ev += "; " + std::to_string(w.n_writes) + " other mounts and their directories tried under the scanner's walls";
  if (dirs.empty() && files.empty()) {
    ev += ", none writable";
    return ok;
  }
  if (!dirs.empty()) ev += "; writable directories: " + dirs;
  if (!files.empty()) {
    ev += "; writable files: " + files +
          (fsize == RLIM_INFINITY ? " (without RLIMIT_FSIZE)"
                                  : " (each at most RLIMIT_FSIZE " + limit_value(fsize) + " bytes)");
  }
  return ok;
}

Assertion check_work_dir(const std::string& work_dir, const std::vector<MountInfo>& mounts,
                         const std::vector<WriteTarget>& targets, const WalledReport& w, const std::string& out_path) {
  if (mounts.empty()) return make(Check::kOneWritableDir, false, "/proc/self/mounts is unreadable");
  const MountInfo* best = mount_of(mounts, work_dir);
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
    std::string nnp = status_field(status, "NoNewPrivs");
    if (const char* v = nnp.empty() ? no_new_privs_from_prctl() : nullptr) nnp = v;
    nosuid = no_new_privs_set(nnp);
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
  bool elsewhere_ok = true;
  if (w.wall_stage == static_cast<int>(base::WallStage::kNone)) {
    elsewhere_ok = writable_elsewhere(targets, w, out_path, ev);
  } else {
    ev += "; other mounts not checked: the scanner's walls could not be installed";
    elsewhere_ok = false;
  }
  return make(Check::kOneWritableDir, writable && nosuid && nodev && elsewhere_ok, ev);
}

Assertion check_rlimits(const ProbeContext& ctx, const WalledReport& w) {
  bool ok = w.n_limits == static_cast<int>(std::min<std::size_t>(ctx.rlimits.size(), 8));
  bool lowered_any = false;
  std::string ev;
  for (int i = 0; i < w.n_limits; ++i) {
    const auto& want = ctx.rlimits[static_cast<std::size_t>(i)];
    const auto& got = w.limits[i];
    const std::string name = rlimit_name(want.resource);
    if (!ev.empty()) ev += ", ";
    if (got.set_errno != 0) {
      ok = false;
      ev += name + " could not be set to " + limit_value(want.value) + ": " + errno_name(got.set_errno) + " (it is " +
            limit_value(got.cur) + ")";
      continue;
    }
    bool match = got.cur == want.value && got.max == want.value;
    ok = ok && match;
    ev += name + "=" + limit_value(got.cur);
    if (!match) {
      ev += " (wanted " + limit_value(want.value) + ")";
      continue;
    }
    for (const auto& l : ctx.lowered) {
      if (l.resource == name) {
        lowered_any = true;
        ev += " (lowered from " + std::to_string(l.asked) + ": the host's hard limit)";
      }
    }
  }
  if (!ok) return make(Check::kRlimits, false, ev.empty() ? "no limit set" : ev);
  if (lowered_any) return Assertion{Check::kRlimits, AssertionVerdict::kWarn, ev};
  return make(Check::kRlimits, true, ev.empty() ? "no limit set" : ev);
}

// The number in a Seccomp_filters line, or -1 when there is none (a kernel before 5.9).
long filter_count(std::string_view v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string_view::npos) return -1;
  return std::stol(std::string(v));
}

// Whether the Landlock ruleset the agent built is on the walled child, and holding: a room's
// "/" itself is refused (only the room's own entries are granted), and with ABI 4 and 6 the
// agent's loopback listener and the agent itself are out of reach.
Assertion check_landlock(const ProbeContext& ctx, const WalledReport& w) {
  const landlock::Ruleset& rs = *ctx.landlock;
  if (rs.support.abi <= 0) {
    return Assertion{
        Check::kLandlock, AssertionVerdict::kWarn,
        "the kernel has no Landlock (the version query: " + errno_name(rs.support.err) +
            "; ENOSYS: not built, EOPNOTSUPP: off at boot, lsm= without landlock): " + landlock::what_is_lost()};
  }
  const std::string offered = "the kernel offers Landlock ABI " + std::to_string(rs.support.abi);
  if (!installs_landlock())
    return make(Check::kLandlock, false, offered + " and the agent put no ruleset on the scanner");
  if (w.wall_stage < 0) return make(Check::kLandlock, false, "the walled child could not report");
  const auto stage = static_cast<base::WallStage>(w.wall_stage);
  if (stage == base::WallStage::kLandlock) {
    return make(Check::kLandlock, false, offered + ", and landlock_restrict_self failed: " + errno_name(w.wall_errno));
  }
  if (stage != base::WallStage::kNone) return make(Check::kLandlock, false, "not checked: the walls before it failed");
  std::string proof;
  bool held = true;
  if (rs.root == landlock::RootIs::kRoom) {
    held = held && w.root_dir_errno == EACCES;
    proof += "open / " + (w.root_dir_errno == 0 ? std::string("succeeded") : errno_name(w.root_dir_errno));
  }
  if (rs.support.abi >= 4 && w.tcp_tried) {
    held = held && w.tcp_errno == EACCES;
    proof += std::string(proof.empty() ? "" : ", ") + "tcp connect to the agent's loopback listener " +
             (w.tcp_errno == 0 ? std::string("connected") : errno_name(w.tcp_errno));
  }
  if (rs.support.abi >= 6) {
    held = held && w.kill_errno == EPERM;
    proof += std::string(proof.empty() ? "" : ", ") + "kill(agent, 0) " +
             (w.kill_errno == 0 ? std::string("delivered") : errno_name(w.kill_errno));
  }
  return make(Check::kLandlock, held, rs.describe() + (proof.empty() ? "" : "; under it: " + proof));
}

// Whether the scanner can reach into the agent, the process that writes its result: the
// agent undumpable, and its memory and environment refused to the walled child.
Assertion check_agent_unreachable(const ProbeContext& ctx, const WalledReport& w) {
  const int dumpable = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  const std::string pid = std::to_string(::getpid());
  std::string ev = "the agent (pid " + pid + ") is " + (dumpable == 0 ? "undumpable" : "dumpable");
  if (w.wall_stage != static_cast<int>(base::WallStage::kNone)) {
    return make(Check::kAgentUnreachable, false, ev + "; not checked: the scanner's walls could not be installed");
  }
  auto said = [](int e) { return e == 0 ? std::string("opened") : errno_name(e); };
  ev += "; /proc/" + pid + "/mem O_RDWR: " + said(w.mem_errno) + ", /proc/" + pid +
        "/environ: " + said(w.environ_errno) + ", kill(" + pid +
        ", 0): " + (w.kill_errno == 0 ? std::string("delivered") : errno_name(w.kill_errno));
  bool ok = dumpable == 0 && w.mem_errno != 0 && w.environ_errno != 0;
  // Signals are Landlock's to refuse (ABI 6); without it a signal reaches the agent, which
  // then has no result to write — a failed run, never a forged one.
  const bool scoped = installs_landlock() && ctx.landlock->support.abi >= 6;
  if (scoped) ok = ok && w.kill_errno == EPERM;
  return make(Check::kAgentUnreachable, ok, ev);
}

void add_walled_checks(const ProbeContext& ctx, const WalledReport& w, long before, std::vector<Assertion>& out) {
  if (w.wall_stage < 0) {
    for (Check c : {Check::kSeccompFilter, Check::kNoNewPrivs, Check::kCanarySyscall, Check::kClone3Enosys,
                    Check::kRlimits, Check::kAgentUnreachable}) {
      out.push_back(make(c, false, "the walled child could not report"));
    }
    return;
  }
  const auto stage = static_cast<base::WallStage>(w.wall_stage);
  const std::string failed = stage == base::WallStage::kNone
                                 ? ""
                                 : std::string(stage == base::WallStage::kNoNewPrivs ? "prctl(PR_SET_NO_NEW_PRIVS)"
                                               : stage == base::WallStage::kSeccomp  ? "prctl(PR_SET_SECCOMP)"
                                               : stage == base::WallStage::kLandlock
                                                   ? "landlock_restrict_self"
                                                   : "installing the walls at stage " + std::to_string(w.wall_stage)) +
                                       " failed: " + errno_name(w.wall_errno);
  const std::string not_checked = "not checked: " + failed;
  std::vector<Assertion> block;
  {
    const long after = filter_count(w.filters);
    const bool added = before < 0 || after < 0 || after > before;
    std::string ev = std::string("Seccomp: ") + w.seccomp + ", Seccomp_filters: " + w.filters;
    if (before > 0) ev += " (" + std::to_string(before) + " before the agent's)";
    if (!added) ev += ": no filter of the agent's own";
    if (stage == base::WallStage::kSeccomp) ev = failed;
    if (stage == base::WallStage::kNoNewPrivs) ev = not_checked;
    block.push_back(
        make(Check::kSeccompFilter, std::string(w.seccomp) == "2" && added && stage == base::WallStage::kNone, ev));
  }
  block.push_back(make(Check::kNoNewPrivs, no_new_privs_set(w.nnp) && stage != base::WallStage::kNoNewPrivs,
                       stage == base::WallStage::kNoNewPrivs ? failed : std::string("NoNewPrivs: ") + w.nnp));
  if (stage == base::WallStage::kNone) {
    block.push_back(make(Check::kCanarySyscall, w.canary_ret == -1 && w.canary_errno == EPERM,
                         "personality(0xffffffff) returned " + std::to_string(w.canary_ret) +
                             (w.canary_ret == -1 ? " " + errno_name(w.canary_errno) : "")));
    block.push_back(make(Check::kClone3Enosys, w.clone3_ret == -1 && w.clone3_errno == ENOSYS,
                         "clone3 returned " + std::to_string(w.clone3_ret) +
                             (w.clone3_ret == -1 ? " " + errno_name(w.clone3_errno) : "")));
  } else {
    block.push_back(make(Check::kCanarySyscall, false, not_checked));
    block.push_back(make(Check::kClone3Enosys, false, not_checked));
  }
  block.push_back(check_rlimits(ctx, w));
  block.push_back(check_agent_unreachable(ctx, w));
  // The wall whose installation failed first, so that the probe's first failure names it and
  // not one that only went unchecked because of it.
  const Check culprit = stage == base::WallStage::kNoNewPrivs ? Check::kNoNewPrivs : Check::kSeccompFilter;
  if (stage != base::WallStage::kNone) {
    std::stable_partition(block.begin(), block.end(), [&](const Assertion& a) { return a.check == culprit; });
  }
  out.insert(out.end(), block.begin(), block.end());
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
  // mbedTLS's SHA-256, as the agent's TLS is (http.cc says why not OpenSSL).
  mbedtls_sha256_context ctx;
  mbedtls_sha256_init(&ctx);
  std::unique_ptr<mbedtls_sha256_context, decltype(&mbedtls_sha256_free)> guard(&ctx, mbedtls_sha256_free);
  if (mbedtls_sha256_starts_ret(&ctx, /*is224=*/0) != 0) return "";
  unsigned char buf[65536];
  std::uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "";
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (mbedtls_sha256_update_ret(&ctx, buf, static_cast<std::size_t>(n)) != 0) return "";
  }
  unsigned char md[32];
  if (mbedtls_sha256_finish_ret(&ctx, md) != 0) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : md) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  if (size) *size = total;
  return out;
}

wire::AgentProbeReport run_probe(const wire::Manifest& m, const ProbeContext& ctx) {
  wire::AgentProbeReport rep;
  rep.kernel = base::kernel_identity();
  auto& a = rep.assertions;
  // The filters this process already runs under (an engine's profile, a pod's RuntimeDefault):
  // the walled child must run under one more, the agent's own.
  const long filters_before =
      filter_count(status_field(base::read_small_file("/proc/self/status", 16384), "Seccomp_filters"));
  const std::vector<MountInfo> mounts = read_mounts();
  const std::vector<WriteTarget> targets = write_targets(mounts, ctx.work_dir);
  const WalledReport walled = probe_under_walls(ctx, targets);
  a.push_back(check_network(m));
  a.push_back(check_read_only_root(mounts));
  // Before one_writable_dir: where Landlock was left out, the first failure names it, not a
  // mount it would have closed.
  a.push_back(check_landlock(ctx, walled));
  a.push_back(check_work_dir(ctx.work_dir, mounts, targets, walled, ctx.out_path));
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
  add_walled_checks(ctx, walled, filters_before, a);
  // What one run may take as a whole (RFC 0022 §4.2's cost): its memory and what it may
  // write to memory-backed mounts (/tmp, and /work on the image runtimes).
  std::uint64_t cost =
      m.limits.memory_limit_mb == 0 ? 0 : m.limits.memory_limit_mb * wire::kMiB + m.extract_policy.max_extracted_bytes;
  a.push_back(check_bounded(Check::kMemoryBounded, "memory", cost, "bytes"));
  a.push_back(check_bounded(Check::kPidsBounded, "pids", wire::kRunPidsMax, "tasks"));
  return rep;
}

}  // namespace batlehub::agent
