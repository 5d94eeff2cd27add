#include "behavior/observer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>

#include "base/fd.h"
#include "base/file.h"
#include "base/spawn_child.h"
#include "behavior/decoys.h"
#include "behavior/dns.h"
#include "behavior/notify_filter.h"
#include "behavior/sink.h"
#include "behavior/tls_sink.h"

namespace batlehub::behavior {

namespace {

using base::Fd;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kPathMax = 4096;
constexpr std::size_t kStoredMax = 1024;  // characters of one path or argument kept
constexpr std::size_t kArgvMax = 64;
constexpr std::size_t kOutputTail = 4096;
constexpr std::size_t kDnsPendingMax = 64 * 1024;
constexpr std::size_t kHeadMax = 2048;
constexpr std::size_t kCanaryOverlap = 128;
// A connection the package has sent nothing down for this long, with nothing for the sink to
// answer, is ended: a reverse shell waiting for commands, a client waiting for a greeting,
// would otherwise hold the phase to its timeout.
constexpr auto kStreamIdle = std::chrono::seconds(2);  // bytes kept from one read to the next for the canary search
constexpr std::string_view kHttpAnswer =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

std::string errno_text(int e) {
  return std::string(std::strerror(e)) + " (errno " + std::to_string(e) + ")";
}

std::string clip(std::string s) {
  if (s.size() > kStoredMax) s.resize(kStoredMax);
  return s;
}

std::string read_link(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

bool under(std::string_view path, std::string_view root) {
  if (root.empty()) return false;
  if (path.size() < root.size() || path.substr(0, root.size()) != root) return false;
  return path.size() == root.size() || path[root.size()] == '/' || root.back() == '/';
}

// "/a/./b/../c" as "/a/c", without touching the filesystem.
std::string normalize(std::string_view p) {
  std::vector<std::string_view> parts;
  while (!p.empty()) {
    std::size_t slash = p.find('/');
    std::string_view c = p.substr(0, slash);
    p = slash == std::string_view::npos ? std::string_view{} : p.substr(slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(c);
  }
  std::string out;
  for (auto c : parts) out += "/" + std::string(c);
  return out.empty() ? "/" : out;
}

// The path as the filesystem resolves it now: symlinks followed, for an existing file, or
// its directory resolved, for one about to be created. A package can change a link after
// this: the trace records, the walls enforce (notify_filter.h).
std::string resolve(const std::string& absolute) {
  char buf[PATH_MAX];
  if (::realpath(absolute.c_str(), buf) != nullptr) return buf;
  const std::string norm = normalize(absolute);
  const std::size_t slash = norm.rfind('/');
  if (slash != std::string::npos && slash > 0 && ::realpath(norm.substr(0, slash).c_str(), buf) != nullptr) {
    return std::string(buf) + norm.substr(slash);
  }
  return norm;
}

std::string escape_head(std::string_view bytes) {
  return std::string(bytes.substr(0, kHeadMax));
}

struct Stream {
  Fd ours;
  Clock::time_point last{};  // the connect, or the last bytes the package sent
  bool identity = false;
  int id = 0;
  std::string phase;
  int pid = 0;
  bool connected = false;
  std::string family;
  std::string address;
  std::uint16_t port = 0;
  std::string host;
  std::string received;  // the first kStreamKeepBytes
  std::string tail;      // the last kCanaryOverlap bytes, for a canary split across reads
  std::uint64_t total = 0;
  bool answered = false;
  bool canary = false;
  bool dns = false;
  std::string dns_pending;
  // A stream that began with a TLS handshake: the sink's server for it (tls_sink.h), the name
  // it asked for, and, once it is read in the clear, `received` and the searches hold the
  // plaintext. A handshake the client refused leaves the name and the reason.
  std::unique_ptr<TlsSession> tls;
  bool tls_seen = false;
  std::string sni;
  std::string tls_error;
};

// A process's memory, read through /proc/<pid>/mem: process_vm_readv is in the agent's deny
// list, and containerd's default profile allows it only with CAP_SYS_PTRACE.
class TargetMemory {
 public:
  explicit TargetMemory(int pid)
      : fd_(::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC)) {}
  bool valid() const { return fd_.valid(); }

  std::optional<std::string> bytes(std::uint64_t addr, std::size_t n) const {
    if (!fd_.valid() || addr == 0) return std::nullopt;
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd_.get(), out.data() + got, n - got, static_cast<off_t>(addr + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    if (got == 0 && n != 0) return std::nullopt;
    out.resize(got);
    return out;
  }

  // A NUL-terminated string, read a page-bounded piece at a time so that a string that ends
  // just before an unmapped page is still read whole.
  std::optional<std::string> cstring(std::uint64_t addr, std::size_t max) const {
    if (!fd_.valid() || addr == 0) return std::nullopt;
    std::string out;
    while (out.size() < max) {
      const std::uint64_t at = addr + out.size();
      const std::size_t to_page = 4096 - static_cast<std::size_t>(at % 4096);
      auto piece = bytes(at, std::min(to_page, max - out.size()));
      if (!piece || piece->empty()) return out.empty() ? std::nullopt : std::optional<std::string>(out);
      const std::size_t nul = piece->find('\0');
      if (nul != std::string::npos) return out + piece->substr(0, nul);
      out += *piece;
    }
    return out;
  }

 private:
  Fd fd_;
};

struct SockAddr {
  std::string family;
  std::string address;
  std::uint16_t port = 0;
  std::optional<std::uint32_t> v4;  // the IPv4 address, also of an IPv4-mapped IPv6 one
};

std::optional<SockAddr> parse_sockaddr(std::string_view b) {
  if (b.size() < 2) return std::nullopt;
  sa_family_t family;
  std::memcpy(&family, b.data(), sizeof family);
  SockAddr s;
  char text[INET6_ADDRSTRLEN] = {};
  if (family == AF_INET && b.size() >= sizeof(sockaddr_in)) {
    sockaddr_in in{};
    std::memcpy(&in, b.data(), sizeof in);
    s.family = "inet";
    s.port = ntohs(in.sin_port);
    s.v4 = ntohl(in.sin_addr.s_addr);
    ::inet_ntop(AF_INET, &in.sin_addr, text, sizeof text);
    s.address = text;
    return s;
  }
  if (family == AF_INET6 && b.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, b.data(), sizeof in6);
    s.family = "inet6";
    s.port = ntohs(in6.sin6_port);
    ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
    s.address = text;
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
      std::uint32_t v4;
      std::memcpy(&v4, in6.sin6_addr.s6_addr + 12, 4);
      s.v4 = ntohl(v4);
    }
    return s;
  }
  if (family == AF_UNIX) {
    s.family = "unix";
    std::string_view path = b.substr(2);
    if (!path.empty() && path[0] == '\0') {
      s.address = "@" + std::string(path.substr(1, path.find('\0', 1) - 1));
    } else {
      s.address = std::string(path.substr(0, path.find('\0')));
    }
    return s;
  }
  return std::nullopt;
}

}  // namespace

struct Observer::Impl {
  ObserverOptions opt;
  base::SeccompProgram prog;
  Trace* trace = nullptr;
  seccomp_notif_sizes sizes{};
  std::map<ino_t, Stream> streams;  // by the inode of the package's end
  int streams_opened = 0;
  std::map<std::string, std::uint32_t> address_of;
  std::map<std::uint32_t, std::string> name_of;
  std::map<std::string, std::uint64_t> dropped;  // limit reached: what, how many times
  std::vector<std::string> identity;
  std::unique_ptr<TlsAuthority> tls;  // the sink's TLS server's authority, for this run
  std::set<std::string> created;      // files a process of the run created (resolved), for an exec's `written`
  std::size_t trace_bytes = 0;        // what the recorded events' strings add up to (kMaxTraceBytes)

  // The phase being run.
  std::string phase;
  int root = 0;
  PhaseSpec const* spec = nullptr;
  bool root_exec_seen = false;
  int listener = -1;

  void add(Event e) {
    if (trace->events.size() >= kMaxEvents) {
      ++dropped["events"];
      return;
    }
    std::size_t size = 64 + e.path.size() + e.resolved.size() + e.host.size() + e.request_line.size() + e.head.size();
    for (const std::string& a : e.argv) size += a.size() + 4;
    if (trace_bytes + size > kMaxTraceBytes) {
      ++dropped["trace bytes"];
      return;
    }
    trace_bytes += size;
    e.phase = phase;
    e.view = spec != nullptr ? spec->view : std::string();
    trace->events.push_back(std::move(e));
  }

  bool id_valid(std::uint64_t id) const { return ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0; }

  // The kernel's sizes of a notification and of its answer (SECCOMP_GET_NOTIF_SIZES), each
  // buffer allocated once for the run: every exec, open and connect of a package is one.
  std::vector<char> notif_buf;
  std::vector<char> resp_buf;

  void respond(std::uint64_t id, std::int64_t val, int error, bool cont) {
    std::fill(resp_buf.begin(), resp_buf.end(), 0);
    auto* resp = reinterpret_cast<seccomp_notif_resp*>(resp_buf.data());
    resp->id = id;
    resp->val = val;
    resp->error = error;
    resp->flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
    // ENOENT: the target is gone (killed, or its call interrupted); nothing to answer.
    (void)::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
  }
  void allow(std::uint64_t id) { respond(id, 0, 0, true); }

  std::optional<ino_t> socket_inode(int pid, std::uint64_t fd) const {
    if (fd > INT_MAX) return std::nullopt;
    const std::string link = read_link("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd));
    if (link.rfind("socket:[", 0) != 0 || link.back() != ']') return std::nullopt;
    return static_cast<ino_t>(std::strtoull(link.c_str() + 8, nullptr, 10));
  }

  std::string absolute(int pid, std::int64_t dirfd, const std::string& path) const {
    if (!path.empty() && path[0] == '/') return path;
    const std::string base = static_cast<int>(dirfd) == AT_FDCWD
                                 ? read_link("/proc/" + std::to_string(pid) + "/cwd")
                                 : read_link("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(dirfd));
    return base + "/" + path;
  }

  bool may_write(const std::string& resolved) const {
    for (const std::string& r : opt.write_roots) {
      if (under(resolved, r)) return true;
    }
    return false;
  }

  void on_exec(const seccomp_notif& n) {
    const bool at = n.data.nr == SYS_execveat;
    const std::uint64_t path_arg = n.data.args[at ? 1 : 0];
    const std::uint64_t argv_arg = n.data.args[at ? 2 : 1];
    Event e;
    e.kind = EventKind::kExec;
    e.pid = static_cast<int>(n.pid);
    TargetMemory mem(static_cast<int>(n.pid));
    if (auto p = mem.cstring(path_arg, kPathMax)) e.path = *p;
    if (auto table = mem.bytes(argv_arg, 8 * kArgvMax)) {
      for (std::size_t i = 0; i + 8 <= table->size(); i += 8) {
        std::uint64_t ptr;
        std::memcpy(&ptr, table->data() + i, 8);
        if (ptr == 0) break;
        auto arg = mem.cstring(ptr, kStoredMax);
        if (!arg) break;
        e.argv.push_back(*arg);
      }
    }
    if (!id_valid(n.id)) return;
    // The phase's own process is undumpable until its execve completes (it was forked from
    // this one): its first exec is the spec's.
    if (!root_exec_seen && static_cast<int>(n.pid) == root) {
      root_exec_seen = true;
      e.what = "phase";  // the phase's own program (pip, the hook's sh -c, the import): not the package's doing
      if (e.path.empty()) {
        e.path = spec->program;
        e.argv = spec->argv;
      }
    }
    if (!e.path.empty())
      e.resolved = resolve(absolute(e.pid, at ? static_cast<std::int64_t>(n.data.args[0]) : AT_FDCWD, e.path));
    // A program this run created (a download, a dropped binary), in this phase or an earlier one.
    e.written = !e.resolved.empty() && created.contains(e.resolved);
    // What the program reads as its input: a connection (a reverse shell's) or a terminal the
    // package made (pty.spawn), as against a pipe or /dev/null (a build script feeding a shell).
    const std::string in = read_link("/proc/" + std::to_string(e.pid) + "/fd/0");
    if (in.rfind("socket:[", 0) == 0) {
      e.stdin_kind = "socket";
    } else if (in.rfind("/dev/pts/", 0) == 0 || in == "/dev/tty" || in == "/dev/ptmx") {
      e.stdin_kind = "terminal";
    }
    e.path = clip(e.path);
    add(std::move(e));
    allow(n.id);
  }

  void on_open(const seccomp_notif& n) {
    std::int64_t dirfd = AT_FDCWD;
    std::uint64_t path_arg = 0;
    std::uint64_t flags = 0;
    TargetMemory mem(static_cast<int>(n.pid));
    switch (n.data.nr) {
      case SYS_open:
        path_arg = n.data.args[0];
        flags = n.data.args[1];
        break;
      case SYS_creat:
        path_arg = n.data.args[0];
        flags = O_WRONLY | O_CREAT | O_TRUNC;
        break;
      case SYS_openat:
        dirfd = static_cast<std::int64_t>(n.data.args[0]);
        path_arg = n.data.args[1];
        flags = n.data.args[2];
        break;
      default: {  // openat2: the flags are in its struct open_how
        dirfd = static_cast<std::int64_t>(n.data.args[0]);
        path_arg = n.data.args[1];
        auto how = mem.bytes(n.data.args[2], sizeof(std::uint64_t));
        if (how && how->size() == sizeof(std::uint64_t)) std::memcpy(&flags, how->data(), sizeof flags);
      }
    }
    auto path = mem.cstring(path_arg, kPathMax);
    if (!path || !id_valid(n.id)) {
      allow(n.id);
      return;
    }
    const int pid = static_cast<int>(n.pid);
    const std::string resolved = resolve(absolute(pid, static_cast<int>(dirfd), *path));
    const bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) != 0;
    if ((flags & O_CREAT) != 0) {
      if (created.size() < kMaxCreated) {
        created.insert(resolved);
      } else {
        ++dropped["created"];
      }
    }
    if (const Decoy* d = decoy_at(opt.home, resolved)) {
      Event e;
      e.kind = EventKind::kDecoyOpen;
      e.pid = pid;
      e.path = clip(*path);
      e.resolved = clip(resolved);
      e.decoy = std::string(d->kind);
      e.write = writes;
      add(std::move(e));
    } else if (writes && !may_write(resolved)) {
      Event e;
      e.kind = EventKind::kWrite;
      e.pid = pid;
      e.path = clip(*path);
      e.resolved = clip(resolved);
      add(std::move(e));
    }
    allow(n.id);
  }

  // socket(AF_INET*, SOCK_STREAM): one end of a Unix stream pair, placed in the target as the
  // call's result (SECCOMP_ADDFD_FLAG_SEND), the other end kept as the sink's.
  void on_socket(const seccomp_notif& n) {
    if (streams.size() >= kMaxStreams) {
      ++dropped["streams"];
      respond(n.id, 0, -EMFILE, false);
      return;
    }
    const std::uint64_t type = n.data.args[1];
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      respond(n.id, 0, -ENFILE, false);
      return;
    }
    Fd ours(sv[0]);
    Fd theirs(sv[1]);
    (void)::fcntl(ours.get(), F_SETFL, O_NONBLOCK);
    if ((type & SOCK_NONBLOCK) != 0) (void)::fcntl(theirs.get(), F_SETFL, O_NONBLOCK);
    struct stat st {};
    if (::fstat(theirs.get(), &st) != 0) {
      respond(n.id, 0, -ENFILE, false);
      return;
    }
    seccomp_notif_addfd add{};
    add.id = n.id;
    add.flags = SECCOMP_ADDFD_FLAG_SEND;
    add.srcfd = static_cast<__u32>(theirs.get());
    add.newfd_flags = (type & SOCK_CLOEXEC) != 0 ? O_CLOEXEC : 0;
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0) return;  // the target is gone
    Stream s;
    s.ours = std::move(ours);
    s.id = ++streams_opened;
    s.phase = phase;
    s.pid = static_cast<int>(n.pid);
    streams[st.st_ino] = std::move(s);
  }

  std::string name_for(const SockAddr& a) const {
    if (!a.v4) return {};
    auto it = name_of.find(*a.v4);
    return it == name_of.end() ? std::string() : it->second;
  }

  void on_connect(const seccomp_notif& n) {
    const int pid = static_cast<int>(n.pid);
    const auto ino = socket_inode(pid, n.data.args[0]);
    TargetMemory mem(pid);
    auto raw = mem.bytes(n.data.args[1], std::min<std::uint64_t>(n.data.args[2], sizeof(sockaddr_storage)));
    if (!id_valid(n.id)) return;
    auto it = ino ? streams.find(*ino) : streams.end();
    std::optional<SockAddr> a = raw ? parse_sockaddr(*raw) : std::nullopt;
    if (it == streams.end()) {
      // Not a sink stream (a datagram socket, a Unix socket): recorded, then the kernel's.
      // nscd's socket is glibc asking its cache before every lookup.
      if (a && !(a->family == "unix" && a->address == "/var/run/nscd/socket")) {
        Event e;
        e.kind = EventKind::kConnect;
        e.pid = pid;
        e.family = a->family;
        e.address = clip(a->address);
        e.port = a->port;
        e.host = name_for(*a);
        add(std::move(e));
      }
      allow(n.id);
      return;
    }
    Stream& s = it->second;
    if (s.connected) {
      respond(n.id, 0, -EISCONN, false);
      return;
    }
    if (!a || (a->family != "inet" && a->family != "inet6")) {
      respond(n.id, 0, -EAFNOSUPPORT, false);
      return;
    }
    s.connected = true;
    s.last = Clock::now();
    s.family = a->family;
    s.address = a->address;
    s.port = a->port;
    s.host = name_for(*a);
    s.dns = a->port == 53;
    if (!s.dns) {
      Event e;
      e.kind = EventKind::kConnect;
      e.pid = pid;
      e.family = s.family;
      e.address = s.address;
      e.port = s.port;
      e.host = s.host;
      e.stream = s.id;
      add(std::move(e));
    }
    respond(n.id, 0, 0, false);
  }

  void on_sendto(const seccomp_notif& n) {
    const int pid = static_cast<int>(n.pid);
    TargetMemory mem(pid);
    auto raw = mem.bytes(n.data.args[4], std::min<std::uint64_t>(n.data.args[5], sizeof(sockaddr_storage)));
    auto payload = mem.bytes(n.data.args[1], std::min<std::uint64_t>(n.data.args[2], 4096));
    if (!id_valid(n.id)) return;
    std::optional<SockAddr> a = raw ? parse_sockaddr(*raw) : std::nullopt;
    if (a && (a->family == "inet" || a->family == "inet6")) {
      Event e;
      e.pid = pid;
      const std::string bytes = payload.value_or("");
      e.canary = carries_canary(bytes, opt.canary);
      e.identity = carries_identity(bytes, identity);
      auto q = a->port == 53 ? parse_query(bytes) : Expected<DnsQuery, std::string>(Unexpected(std::string()));
      if (q) {
        e.kind = EventKind::kDnsQuery;
        e.host = clip(q->name);
        e.qtype = std::string(qtype_name(q->qtype));
        e.address = a->address;
        e.canary = e.canary || carries_canary(q->name, opt.canary);
        e.identity = name_carries_identity(q->name, identity);
      } else {
        e.kind = EventKind::kDatagram;
        e.family = a->family;
        e.address = a->address;
        e.port = a->port;
        e.head = escape_head(bytes);
      }
      add(std::move(e));
    }
    allow(n.id);
  }

  void on_setsockopt(const seccomp_notif& n) {
    const auto ino = socket_inode(static_cast<int>(n.pid), n.data.args[0]);
    if (ino && streams.count(*ino) != 0 && id_valid(n.id)) {
      respond(n.id, 0, 0, false);  // TCP_NODELAY and the like: nothing to do on the sink's stream
      return;
    }
    allow(n.id);
  }

  void handle_notification() {
    std::fill(notif_buf.begin(), notif_buf.end(), 0);  // RECV refuses a notification not zeroed
    auto* n = reinterpret_cast<seccomp_notif*>(notif_buf.data());
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) return;  // ENOENT: it died meanwhile
    if (n->data.arch != AUDIT_ARCH_X86_64) {
      allow(n->id);
      return;
    }
    switch (n->data.nr) {
      case SYS_execve:
      case SYS_execveat:
        return on_exec(*n);
      case SYS_open:
      case SYS_creat:
      case SYS_openat:
      case SYS_openat2:
        return on_open(*n);
      case SYS_socket:
        return on_socket(*n);
      case SYS_connect:
        return on_connect(*n);
      case SYS_sendto:
        return on_sendto(*n);
      case SYS_setsockopt:
        return on_setsockopt(*n);
      default:
        return allow(n->id);
    }
  }

  std::array<std::uint8_t, 4> address_for(const std::string& name) {
    auto it = address_of.find(name);
    std::uint32_t v4;
    if (it != address_of.end()) {
      v4 = it->second;
    } else if (address_of.size() >= kMaxNames) {
      ++dropped["names"];
      v4 = (127U << 24) | (77U << 16) | 0xffffU;
    } else {
      v4 = (127U << 24) | (77U << 16) | static_cast<std::uint32_t>(address_of.size() + 1);
      address_of[name] = v4;
      name_of[v4] = name;
    }
    return {static_cast<std::uint8_t>(v4 >> 24), static_cast<std::uint8_t>(v4 >> 16),
            static_cast<std::uint8_t>(v4 >> 8), static_cast<std::uint8_t>(v4)};
  }

  // DNS over TCP (RFC 1035 §4.2.2): two bytes of length, then the message.
  void serve_dns(Stream& s) {
    while (s.dns_pending.size() >= 2) {
      const std::size_t len =
          (static_cast<unsigned char>(s.dns_pending[0]) << 8) | static_cast<unsigned char>(s.dns_pending[1]);
      if (s.dns_pending.size() < 2 + len) return;
      const std::string msg = s.dns_pending.substr(2, len);
      s.dns_pending.erase(0, 2 + len);
      auto q = parse_query(msg);
      if (!q) continue;
      Event e;
      e.kind = EventKind::kDnsQuery;
      e.pid = s.pid;
      e.host = clip(q->name);
      e.qtype = std::string(qtype_name(q->qtype));
      e.canary = carries_canary(q->name, opt.canary);
      e.identity = name_carries_identity(q->name, identity);
      add(std::move(e));
      const std::string ans = answer(msg, *q, address_for(q->name));
      const char prefix[2] = {static_cast<char>(ans.size() >> 8), static_cast<char>(ans.size() & 0xff)};
      (void)base::send_all(s.ours.get(), std::string_view(prefix, 2));
      (void)base::send_all(s.ours.get(), ans);
    }
  }

  // Bytes the package sent down `s`, in the clear: kept, searched for the canary and for
  // identity, served as DNS or answered as HTTP once a request is whole.
  void take(Stream& s, std::string_view got) {
    s.total += got.size();
    if (s.received.size() < kStreamKeepBytes) {
      s.received.append(got.substr(0, kStreamKeepBytes - s.received.size()));
    }
    const std::string window = s.tail + std::string(got);
    s.canary = s.canary || carries_canary(window, opt.canary);
    s.identity = s.identity || carries_identity(window, identity);
    s.tail = window.substr(window.size() > kCanaryOverlap ? window.size() - kCanaryOverlap : 0);
    if (!s.answered && !s.dns && http_request_end(s.received)) {
      s.answered = true;
      if (s.tls) {
        s.tls->answer_and_close(kHttpAnswer);
      } else {
        (void)base::send_all(s.ours.get(), kHttpAnswer);
      }
      ::shutdown(s.ours.get(), SHUT_WR);
    }
  }

  // A stream whose first record is a whole TLS ClientHello: from here on it is the sink's TLS
  // server's, for the name it asked for (else the address it connected to), and what it
  // carries is read in the clear. False when no server could be made for it: the stream ends,
  // as a handshake that cannot go on.
  bool start_tls(Stream& s) {
    s.tls_seen = true;
    s.sni = summarize(s.received).host;
    if (!tls) return false;
    auto session = TlsSession::create(*tls, s.ours.get(), s.sni.empty() ? s.address : s.sni);
    if (!session) {
      s.tls_error = session.error();
      return false;
    }
    s.tls = std::move(*session);
    const std::string hello = std::move(s.received);
    s.received.clear();
    s.tail.clear();
    s.total = 0;
    s.canary = false;
    s.identity = false;
    return feed_tls(s, hello);
  }

  bool feed_tls(Stream& s, std::string_view raw) {
    const std::string plain = s.tls->feed(raw);
    if (!plain.empty()) take(s, plain);
    switch (s.tls->state()) {
      case TlsSession::State::kFailed:
        s.tls_error = s.tls->error();
        return false;
      case TlsSession::State::kClosed:
        return false;
      default:
        return true;
    }
  }

  // What the package sent so far down `s`; false once the stream is over.
  bool serve(Stream& s) {
    char buf[16384];
    for (;;) {
      ssize_t r = ::read(s.ours.get(), buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      if (r <= 0) return false;
      const std::string_view got(buf, static_cast<std::size_t>(r));
      s.last = Clock::now();
      if (s.tls) {
        if (!feed_tls(s, got)) return false;
        continue;
      }
      if (s.dns) {
        take(s, got);
        if (s.dns_pending.size() + got.size() > kDnsPendingMax) return false;
        s.dns_pending.append(got);
        serve_dns(s);
        continue;
      }
      take(s, got);
      // A stream that opens with a TLS handshake record: once its ClientHello is whole, the
      // sink's TLS server takes it over.
      if (!s.tls_seen && s.received.size() >= 5 && static_cast<unsigned char>(s.received[0]) == 22) {
        const std::size_t record =
            5 + ((static_cast<unsigned char>(s.received[3]) << 8) | static_cast<unsigned char>(s.received[4]));
        if (s.received.size() >= record) {
          if (!start_tls(s)) return false;
        } else if (s.received.size() >= kStreamKeepBytes) {
          return false;
        }
      }
    }
  }

  void finish_streams() {
    for (auto& [ino, s] : streams) {
      if (s.ours.valid()) serve(s);
      if (!s.connected || s.dns) continue;
      // `received` is what the stream carried in the clear — for TLS, what the sink's server
      // read — except a TLS stream no server could take, which holds its raw hello. HTTP
      // inside TLS is "https"; anything else stays "tls", with the name it asked for.
      const bool in_clear = !s.tls_seen || s.tls != nullptr;
      const StreamSummary sum = in_clear ? summarize(s.received) : StreamSummary{};
      const bool https = s.tls_seen && sum.protocol == StreamProtocol::kHttp;
      Event e;
      e.kind = EventKind::kStream;
      e.pid = s.pid;
      e.family = s.family;
      e.address = s.address;
      e.port = s.port;
      e.stream = s.id;
      e.protocol = s.tls_seen ? (https ? "https" : "tls") : std::string(to_string(sum.protocol));
      const std::string& named = https && !sum.host.empty() ? sum.host : (s.tls_seen ? s.sni : sum.host);
      e.host = clip(named.empty() ? s.host : named);
      e.request_line = clip(sum.request_line);
      e.head = escape_head(sum.protocol == StreamProtocol::kHttp ? sum.body_head : (in_clear ? s.received : ""));
      if (!s.tls_error.empty()) e.what = clip("tls: " + s.tls_error);
      e.bytes = s.total;
      e.canary = s.canary;
      e.identity = s.identity;
      const std::string saved = phase;
      phase = s.phase;
      add(std::move(e));
      phase = saved;
    }
    streams.clear();
  }
};

std::vector<std::string> identity_tokens(const std::string& home) {
  std::vector<std::string> out = {home};
  utsname u{};
  if (::uname(&u) == 0) {
    std::string host = u.nodename;
    for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (host.size() >= 2 && host != "localhost") out.push_back(host);
  }
  // The user's name as os.userInfo() and getpass read it: the room's passwd line for this uid
  // (a static binary has no NSS to ask).
  const std::string passwd = base::read_small_file("/etc/passwd", 256 * 1024);
  const std::string uid = ":" + std::to_string(::getuid()) + ":";
  std::size_t at = 0;
  while (at < passwd.size()) {
    std::size_t nl = passwd.find('\n', at);
    if (nl == std::string::npos) nl = passwd.size();
    const std::string line = passwd.substr(at, nl - at);
    at = nl + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || colon < 2) continue;
    const std::size_t second = line.find(':', colon + 1);
    if (second == std::string::npos || line.compare(second, uid.size(), uid) != 0) continue;
    // Names that are words in any text would make every request "identity".
    const std::string name = line.substr(0, colon);
    if (name != "root" && name != "nobody") out.push_back(name);
    break;
  }
  return out;
}

// A token counts only where it stands as a word of its own (a DNS label, a JSON value, a
// path's component): a host named "vm" is in "vm.x.test", not in "vmlinuz".
bool carries_identity(std::string_view bytes, const std::vector<std::string>& tokens) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  for (const std::string& t : tokens) {
    if (t.size() < 2) continue;
    for (auto it = bytes.begin(); (it = std::search(it, bytes.end(), t.begin(), t.end(), same)) != bytes.end(); ++it) {
      const bool open = it == bytes.begin() || !word_char(*(it - 1)) || !word_char(t.front());
      const auto end = it + static_cast<std::ptrdiff_t>(t.size());
      const bool close = end == bytes.end() || !word_char(*end) || !word_char(t.back());
      if (open && close) return true;
    }
  }
  return false;
}

bool name_carries_identity(std::string_view name, const std::vector<std::string>& tokens) {
  if (!carries_identity(name, tokens)) return false;
  std::size_t other = 0;
  while (!name.empty()) {
    const std::size_t dot = name.find('.');
    const std::string_view label = name.substr(0, dot);
    name = dot == std::string_view::npos ? std::string_view{} : name.substr(dot + 1);
    if (!carries_identity(label, tokens)) ++other;
  }
  return other >= 2;
}

Expected<std::unique_ptr<Observer>, std::string> Observer::create(ObserverOptions options) {
  std::unique_ptr<Observer> o(new Observer());
  o->impl_ = std::make_unique<Impl>();
  Impl& im = *o->impl_;
  im.trace = &o->trace_;
  char buf[PATH_MAX];
  if (::realpath(options.home.c_str(), buf) == nullptr) {
    return Unexpected("the decoy home '" + options.home + "': " + errno_text(errno));
  }
  options.home = buf;
  for (std::string& r : options.write_roots) {
    if (::realpath(r.c_str(), buf) != nullptr) r = buf;
  }
  for (const char* r : {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/shm",
                        "/dev/pts", "/dev/ptmx", "/proc"}) {
    options.write_roots.emplace_back(r);
  }
  im.identity = identity_tokens(options.home);
  auto tls = TlsAuthority::create();
  if (!tls) return Unexpected("the sink's TLS authority: " + tls.error());
  im.tls = std::move(*tls);
  im.opt = std::move(options);
  auto prog = compile_watch_filter();
  if (!prog) return Unexpected("compiling the watch filter: " + prog.error());
  im.prog = std::move(*prog);
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &im.sizes) != 0) {
    return Unexpected("seccomp(SECCOMP_GET_NOTIF_SIZES): " + errno_text(errno));
  }
  im.notif_buf.assign(std::max<std::size_t>(im.sizes.seccomp_notif, sizeof(seccomp_notif)), 0);
  im.resp_buf.assign(std::max<std::size_t>(im.sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)), 0);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return Unexpected("prctl(PR_SET_CHILD_SUBREAPER): " + errno_text(errno));
  if (::prctl(PR_SET_DUMPABLE, 0) != 0) return Unexpected("prctl(PR_SET_DUMPABLE, 0): " + errno_text(errno));
  return o;
}

Observer::~Observer() = default;

const std::string& Observer::tls_ca_pem() const {
  return impl_->tls->ca_pem();
}

namespace {

std::vector<char*> c_array(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

bool send_fd(int sock, int fd) {
  char byte = 'L';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return ::sendmsg(sock, &msg, MSG_NOSIGNAL) == 1;
}

// The listener, or -1 when the child sent none (it says why as "E<errno>").
int receive_fd(int sock, std::string& why) {
  char data[64] = {};
  iovec iov{data, sizeof data};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    why = "the phase's process ended before it sent its listener";
    return -1;
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      return fd;
    }
  }
  why = std::string(data, static_cast<std::size_t>(n));
  return -1;
}

[[noreturn]] void child(const PhaseSpec& spec, const base::SeccompProgram& prog, int sock, int out) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  auto fail = [&](const char* what) {
    const std::string why = std::string(what) + ": " + errno_text(errno);
    (void)::send(sock, why.data(), why.size(), MSG_NOSIGNAL);
    ::_exit(127);
  };
  Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null.valid() || ::dup2(null.get(), 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(out, 2) < 0) fail("stdio");
  if (::chdir(spec.cwd.c_str()) != 0) fail(("chdir " + spec.cwd).c_str());
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)");
  // Nothing of the observer's reaches the phase: the socket closes at execve.
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  if (!installs_watch_filter()) {
    (void)::send(sock, "unwatched", 9, MSG_NOSIGNAL);
    auto argv = c_array(spec.argv);
    auto env = c_array(spec.env);
    ::execve(spec.program.c_str(), argv.data(), env.data());
    ::_exit(127);
  }
  const int listener = install_with_listener(prog);
  if (listener < 0) fail("seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER)");
  if (!send_fd(sock, listener)) ::_exit(127);
  ::close(listener);
  auto argv = c_array(spec.argv);
  auto env = c_array(spec.env);
  ::execve(spec.program.c_str(), argv.data(), env.data());
  const std::string why = "execve " + spec.program + ": " + errno_text(errno);
  (void)::send(sock, why.data(), why.size(), MSG_NOSIGNAL);
  ::_exit(127);
}

}  // namespace

PhaseRecord Observer::run(const PhaseSpec& spec) {
  Impl& im = *impl_;
  PhaseRecord rec;
  rec.phase = spec.phase;
  rec.view = spec.view;
  rec.argv = spec.argv;
  im.phase = spec.phase;
  im.spec = &spec;
  // `spec` is the caller's, often a temporary: nothing may point at it once the phase is over.
  struct Forget {
    Impl& im;
    ~Forget() { im.spec = nullptr; }
  } forget{im};
  im.root_exec_seen = false;
  const auto t0 = Clock::now();

  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    rec.error = "socketpair: " + errno_text(errno);
    return rec;
  }
  Fd sock(sv[0]);
  Fd child_sock(sv[1]);
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    rec.error = "pipe2: " + errno_text(errno);
    return rec;
  }
  Fd out_r(pipefd[0]);
  Fd out_w(pipefd[1]);
  const pid_t pid = ::fork();
  if (pid < 0) {
    rec.error = "fork: " + errno_text(errno);
    return rec;
  }
  if (pid == 0) child(spec, im.prog, child_sock.get(), out_w.get());
  im.root = pid;
  child_sock.reset();
  out_w.reset();
  (void)::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);

  std::string why;
  Fd listener(receive_fd(sock.get(), why));
  im.listener = listener.get();
  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  const bool blind = !listener.valid() && why == "unwatched" && !installs_watch_filter();
  if (!listener.valid() && !blind) {
    rec.error = why;
    ::kill(pid, SIGKILL);
    int st;
    ::waitpid(pid, &st, 0);
    return rec;
  }

  const auto deadline = t0 + spec.timeout;
  bool root_done = false;
  bool sock_open = true;
  bool listener_open = true;
  std::string output;
  std::optional<Clock::time_point> drain_until;
  for (;;) {
    const auto now = Clock::now();
    const auto until = drain_until ? *drain_until : deadline;
    if (now >= until) break;
    auto wake = until;
    for (auto& [ino, s] : im.streams) {
      if (!s.ours.valid() || !s.connected) continue;
      if (now - s.last >= kStreamIdle) {
        s.ours.reset();  // the package reads the end of the stream
      } else {
        wake = std::min(wake, s.last + kStreamIdle);
      }
    }
    std::vector<pollfd> pfd;
    pfd.push_back({listener_open && !blind ? listener.get() : -1, POLLIN, 0});
    pfd.push_back({root_done ? -1 : pidfd.get(), POLLIN, 0});
    pfd.push_back({out_r.valid() ? out_r.get() : -1, POLLIN, 0});
    pfd.push_back({sock_open ? sock.get() : -1, POLLIN, 0});
    std::vector<ino_t> order;
    for (auto& [ino, s] : im.streams) {
      if (!s.ours.valid()) continue;
      pfd.push_back({s.ours.get(), POLLIN, 0});
      order.push_back(ino);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count() + 1;
    int r = ::poll(pfd.data(), pfd.size(), static_cast<int>(std::min<long long>(wait, 1000)));
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    if ((pfd[0].revents & POLLIN) != 0) {
      im.handle_notification();
    } else if ((pfd[0].revents & (POLLHUP | POLLERR)) != 0) {
      listener_open = false;  // no process of the phase is left under the filter
    }
    if ((pfd[3].revents & (POLLIN | POLLHUP)) != 0) {
      char msg[512];
      ssize_t n = ::recv(sock.get(), msg, sizeof msg, MSG_DONTWAIT);
      if (n > 0) rec.error = std::string(msg, static_cast<std::size_t>(n));
      if (n == 0 || (n < 0 && errno != EAGAIN)) sock_open = false;
    }
    if ((pfd[2].revents & (POLLIN | POLLHUP)) != 0) {
      char buf[8192];
      ssize_t n = ::read(out_r.get(), buf, sizeof buf);
      if (n > 0) {
        output.append(buf, static_cast<std::size_t>(n));
        if (output.size() > 2 * kOutputTail) output.erase(0, output.size() - kOutputTail);
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        out_r.reset();
      }
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      if ((pfd[4 + i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Stream& s = im.streams[order[i]];
      if (!im.serve(s)) s.ours.reset();
    }
    if (!root_done && (pfd[1].revents & POLLIN) != 0) {
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        root_done = true;
        if (WIFEXITED(st)) rec.exit_code = WEXITSTATUS(st);
        if (WIFSIGNALED(st)) rec.signal = WTERMSIG(st);
        // What it left running is killed now; the notifications and bytes already on their
        // way are read for a moment more.
        pid_t left[512];
        const int n = base::spawn_detail::list_children(::getpid(), left, 512);
        if (n > 0) {
          Event e;
          e.kind = EventKind::kLeftRunning;
          e.count = static_cast<std::uint64_t>(n);
          im.add(std::move(e));
        }
        base::spawn_detail::kill_round(pid);
        drain_until = Clock::now() + std::chrono::milliseconds(200);
      }
    }
    if (root_done && (!listener_open || blind) && !out_r.valid()) break;
  }
  if (!root_done) rec.timed_out = true;
  // Everything the phase started is killed and reaped before the next phase.
  for (int round = 0; round < 100; ++round) {
    base::spawn_detail::kill_round(pid);
    int st = 0;
    pid_t w;
    while ((w = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (w == pid && !root_done) {
        root_done = true;
        if (WIFSIGNALED(st)) rec.signal = WTERMSIG(st);
      }
    }
    pid_t left[8];
    if (base::spawn_detail::list_children(::getpid(), left, 8) <= 0) break;
    ::usleep(10000);
  }
  im.listener = listener.get();
  im.finish_streams();
  im.listener = -1;
  for (const auto& [what, count] : im.dropped) {
    Event e;
    e.kind = EventKind::kLimit;
    e.phase = spec.phase;
    e.what = what;
    e.count = count;
    trace_.events.push_back(std::move(e));  // past kMaxEvents: a limit is always said
  }
  im.dropped.clear();
  rec.started = rec.error.empty();
  rec.output_tail = output.size() > kOutputTail ? output.substr(output.size() - kOutputTail) : output;
  rec.ms = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
  trace_.phases.push_back(rec);
  return rec;
}

}  // namespace batlehub::behavior
