// hostile: a test scanner that reports what it can see and do from inside the walls.
//
//   hostile env                 print the environment, one NAME=value a line
//   hostile hostname            print the host name (the UTS namespace's: a pod's is its name)
//   hostile limits              print RLIMIT_DATA, RLIMIT_CPU, RLIMIT_CORE (soft hard)
//   hostile nproc               print RLIMIT_NPROC (soft hard)
//   hostile fds                 print the open file descriptors
//   hostile syscalls            try ptrace, unshare(CLONE_NEWUSER), mount, keyctl, clone3;
//                               print "name ret errno" and describe them on stderr; exit 3
//   hostile threads N           start N threads that each count, join them; print "threads ok"
//   hostile int80               i386 getpid through int 0x80; print what it returned
//   hostile x32                 getpid through the x32 syscall bit; print what it returned
//   hostile flood BYTES         write BYTES bytes of 'x' to stdout
//   hostile stderr BYTES CODE   write BYTES bytes to stderr, then exit CODE
//   hostile hang                sleep forever
//   hostile sleep SECS          sleep SECS seconds, then print "slept SECS"
//   hostile daemon              fork a daemon (double fork + setsid) that writes its pid to
//                               ./daemon.pid and sleeps forever; then hang
//   hostile daemon-exit         the same daemon, then exit 0 at once
//   hostile exit CODE TEXT      print TEXT to stdout, exit CODE
//   hostile cat PATH            copy PATH to stdout
//   hostile connect HOST PORT   try a TCP connection; print "connected" or the errno
//   hostile policed HOST PORT S try HOST:PORT (a port with no listener) every 100 ms until the
//                               refusal comes by ICMP (a firewall's REJECT) rather than as a
//                               reset; "policed after N tries", exit 0; or "not policed
//                               within S s", exit 1 — a pod's init container that waits for
//                               its NetworkPolicy to be in place
//   hostile http HOST PORT PATH send GET PATH (HTTP/1.0); print the response's status line,
//                               or the errno, or "no response"
//   hostile write PATH          try to create PATH; print "written" or the errno
//   hostile agent               reach into the agent, its parent: one line each for its memory
//                               (open /proc/<agent>/mem O_RDWR; when it opens, read one byte
//                               of the agent's code and write it back), its environment, its
//                               descriptors, PTRACE_ATTACH, process_vm_writev and kill(agent, 0):
//                               "what ERRNO", or what went through
//   hostile fill PATH MIB       append MIB MiB to PATH (created if need be), SIGXFSZ ignored;
//                               "fill open ERRNO", "fill stopped at N MiB: ERRNO" or
//                               "fill wrote MIB MiB"
//   hostile mounts              try to write to every mount it sees but /proc's and /sys's,
//                               and to each directory at the top of one: "PATH written" or
//                               "PATH ERRNO", one a line
//   hostile forkbomb            fork until refused; say how far it got; exit, leaving them all
//   hostile alloc MIB           allocate and touch MIB MiB; "allocated" or where it stopped
//   hostile forkalloc N MIB     fork N children that each allocate and touch MIB MiB and
//                               stay; once all have, print "all N children hold MIB MiB" and
//                               exit 0 — what a run bounded per process only lets through;
//                               a child killed first: say so and exit 3
//   hostile spin                burn CPU forever
//   hostile --in URL --out URL  pose as an agent of wire version 1 (file:// only)
//   (as garbage-scanner)        print something that is not JSON, exit 0
//   (as hanging-scanner)        hang
//   hostile stdin               read stdin to EOF; print how many bytes came
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

void report(const char* name, long ret, int err) {
  std::printf("%s %ld %s\n", name, ret, ret == -1 ? strerrorname_np(err) : "OK");
  std::fprintf(stderr, "%s: %s\n", name, ret == -1 ? std::strerror(err) : "succeeded");
}

int syscalls() {
  errno = 0;
  long r = ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
  report("ptrace", r, errno);
  errno = 0;
  r = unshare(CLONE_NEWUSER);
  report("unshare", r, errno);
  errno = 0;
  r = mount("none", "/tmp", "tmpfs", 0, nullptr);
  report("mount", r, errno);
  errno = 0;
  r = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0);
  report("keyctl", r, errno);
  errno = 0;
  clone_args args{};
  args.exit_signal = SIGCHLD;
  r = syscall(SYS_clone3, &args, sizeof args);
  if (r == 0) _exit(0);
  report("clone3", r, errno);
  return 3;
}

long raw_int80_getpid() {
  long ret;
  // i386 getpid is 20. Under an x86_64-only filter this ABI must be refused.
  asm volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
  return ret;
}

// A two-entry ustar, enough to stand in for an agent of another wire version.
std::string tar_entry(const std::string& name, const std::string& data) {
  char h[512] = {};
  std::memcpy(h, name.data(), name.size());
  std::snprintf(h + 100, 8, "%07o", 0644);
  std::snprintf(h + 108, 8, "%07o", 0);
  std::snprintf(h + 116, 8, "%07o", 0);
  std::snprintf(h + 124, 12, "%011zo", data.size());
  std::snprintf(h + 136, 12, "%011o", 0);
  h[156] = '0';
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  std::string out(h, 512);
  out += data;
  out.append((512 - data.size() % 512) % 512, '\0');
  return out;
}

const char* err_name(int e) {
  return strerrorname_np(e) ? strerrorname_np(e) : "E?";
}

// The agent's first executable mapping, from /proc/<pid>/maps; 0x401000 (a static
// executable's text) when the maps cannot be read.
unsigned long agent_code(pid_t agent) {
  const std::string maps = "/proc/" + std::to_string(agent) + "/maps";
  FILE* f = std::fopen(maps.c_str(), "r");
  if (!f) return 0x401000;
  char line[512];
  unsigned long at = 0x401000;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x') {
      at = lo;
      break;
    }
  }
  std::fclose(f);
  return at;
}

int reach_into_the_agent() {
  const pid_t agent = getppid();
  const std::string proc = "/proc/" + std::to_string(agent);
  const unsigned long code = agent_code(agent);
  int fd = open((proc + "/mem").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    std::printf("mem %s\n", err_name(errno));
  } else {
    unsigned char b = 0;
    if (pread(fd, &b, 1, static_cast<off_t>(code)) != 1) {
      std::printf("mem pread %s\n", err_name(errno));
    } else if (pwrite(fd, &b, 1, static_cast<off_t>(code)) != 1) {
      std::printf("mem pwrite %s\n", err_name(errno));
    } else {
      std::printf("mem wrote 0x%lx\n", code);
    }
    close(fd);
  }
  fd = open((proc + "/environ").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::printf("environ %s\n", err_name(errno));
  } else {
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof buf);
    std::printf("environ read %zd bytes\n", n);
    close(fd);
  }
  fd = open((proc + "/fd/0").c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    std::printf("fd %s\n", err_name(errno));
  } else {
    std::puts("fd opened");
    close(fd);
  }
  errno = 0;
  long r = ptrace(PTRACE_ATTACH, agent, nullptr, nullptr);
  if (r == 0) {
    waitpid(agent, nullptr, __WALL);
    ptrace(PTRACE_DETACH, agent, nullptr, nullptr);
    std::puts("attach attached");
  } else {
    std::printf("attach %s\n", err_name(errno));
  }
  unsigned char byte = 0;
  iovec local{&byte, 1};
  iovec remote{reinterpret_cast<void*>(code), 1};
  errno = 0;
  if (syscall(SYS_process_vm_readv, agent, &local, 1, &remote, 1, 0) == 1 &&
      syscall(SYS_process_vm_writev, agent, &local, 1, &remote, 1, 0) == 1) {
    std::printf("vm_writev wrote 0x%lx\n", code);
  } else {
    std::printf("vm_writev %s\n", err_name(errno));
  }
  std::printf("kill %s\n", kill(agent, 0) == 0 ? "delivered" : err_name(errno));
  return 0;
}

int fill(const char* path, long mib) {
  signal(SIGXFSZ, SIG_IGN);  // past RLIMIT_FSIZE: EFBIG rather than death
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::printf("fill open %s\n", err_name(errno));
    return 1;
  }
  std::vector<char> block(1 << 20, 'x');
  for (long i = 0; i < mib; ++i) {
    std::size_t done = 0;
    while (done < block.size()) {
      const ssize_t n = write(fd, block.data() + done, block.size() - done);
      if (n <= 0) {
        std::printf("fill stopped at %ld MiB: %s\n", i, err_name(n < 0 ? errno : ENOSPC));
        close(fd);
        return 1;
      }
      done += static_cast<std::size_t>(n);
    }
  }
  close(fd);
  std::printf("fill wrote %ld MiB\n", mib);
  return 0;
}

// One attempt: a directory gets a new file (removed again), a file is opened for appending.
void try_write(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) return;
  int fd;
  std::string made;
  if (S_ISDIR(st.st_mode)) {
    made = (path == "/" ? "" : path) + "/.hostile-mounts";
    fd = open(made.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  } else {
    fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
  }
  if (fd < 0) {
    std::printf("%s %s\n", path.c_str(), err_name(errno));
    return;
  }
  close(fd);
  if (!made.empty()) unlink(made.c_str());
  std::printf("%s written\n", path.c_str());
}

int write_every_mount() {
  FILE* f = std::fopen("/proc/self/mounts", "r");
  if (!f) {
    std::printf("/proc/self/mounts %s\n", err_name(errno));
    return 1;
  }
  char dev[4096], point[4096], type[256], opts[4096];
  std::vector<std::string> seen;
  while (std::fscanf(f, "%4095s %4095s %255s %4095s %*d %*d", dev, point, type, opts) == 4) {
    const std::string t = type;
    if (t == "proc" || t == "sysfs" || t == "cgroup" || t == "cgroup2" || t == "devpts") continue;
    const std::string p = point;
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    try_write(p);
    DIR* d = opendir(p.c_str());
    if (!d) continue;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || e->d_type != DT_DIR) continue;
      const std::string sub = (p == "/" ? "" : p) + "/" + name;
      if (std::find(seen.begin(), seen.end(), sub) != seen.end()) continue;
      seen.push_back(sub);
      try_write(sub);
    }
    closedir(d);
  }
  std::fclose(f);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  // Installed under these names, it is a scanner that misbehaves whatever its arguments.
  std::string invoked_as = argv[0];
  invoked_as = invoked_as.substr(invoked_as.rfind('/') == std::string::npos ? 0 : invoked_as.rfind('/') + 1);
  if (invoked_as == "garbage-scanner") {
    std::fputs("this is not JSON {{{\n", stdout);
    return 0;
  }
  if (invoked_as == "hanging-scanner") {
    for (;;) pause();
  }
  // Installed as /usr/local/bin/batlehub-sandbox, this answers every run in wire version 1:
  // a room built before wire 2, never rebuilt.
  if (argc == 5 && std::string(argv[1]) == "--in" && std::string(argv[3]) == "--out") {
    std::string out = argv[4];
    if (out.rfind("file://", 0) != 0) return 3;
    std::string tar = tar_entry("result.json", "{\"wire\": 1, \"agent_version\": \"9.0.0\"}") + tar_entry("stdout", "") +
                      std::string(1024, '\0');
    FILE* f = std::fopen(out.substr(7).c_str(), "wb");
    if (!f) return 3;
    std::fwrite(tar.data(), 1, tar.size(), f);
    std::fclose(f);
    return 0;
  }
  if (mode == "env") {
    for (char** e = environ; *e; ++e) std::printf("%s\n", *e);
    return 0;
  }
  if (mode == "hostname") {  // the UTS namespace's name: a pod's is the pod's own name
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return 1;
    std::printf("%s\n", name);
    return 0;
  }
  if (mode == "limits") {
    for (auto [name, res] : {std::pair{"RLIMIT_DATA", RLIMIT_DATA}, {"RLIMIT_CPU", RLIMIT_CPU}, {"RLIMIT_CORE", RLIMIT_CORE}}) {
      rlimit l{};
      getrlimit(res, &l);
      std::printf("%s %llu %llu\n", name, static_cast<unsigned long long>(l.rlim_cur),
                  static_cast<unsigned long long>(l.rlim_max));
    }
    return 0;
  }
  if (mode == "nproc") {
    rlimit l{};
    getrlimit(RLIMIT_NPROC, &l);
    std::printf("RLIMIT_NPROC %llu %llu\n", static_cast<unsigned long long>(l.rlim_cur),
                static_cast<unsigned long long>(l.rlim_max));
    return 0;
  }
  if (mode == "fds") {
    DIR* d = opendir("/proc/self/fd");
    if (!d) return 1;
    int self = dirfd(d);
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      if (std::atoi(e->d_name) == self) continue;
      std::printf("%s\n", e->d_name);
    }
    closedir(d);
    return 0;
  }
  if (mode == "syscalls") return syscalls();
  if (mode == "threads") {
    int n = argc > 2 ? std::atoi(argv[2]) : 4;
    std::atomic<long> sum{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < n; ++i) {
      ts.emplace_back([&sum] {
        for (int k = 0; k < 100000; ++k) sum.fetch_add(1, std::memory_order_relaxed);
      });
    }
    for (auto& t : ts) t.join();
    std::printf("threads ok %ld\n", sum.load());
    return 0;
  }
  if (mode == "int80") {
    long r = raw_int80_getpid();
    std::printf("int80 %ld pid %d\n", r, getpid());
    return 0;
  }
  if (mode == "x32") {
    errno = 0;
    long r = syscall(0x40000000L | SYS_getpid);
    std::printf("x32 %ld errno %d pid %d\n", r, errno, getpid());
    return 0;
  }
  if (mode == "flood") {
    long long n = argc > 2 ? std::atoll(argv[2]) : 0;
    std::vector<char> buf(65536, 'x');
    while (n > 0) {
      ssize_t w = write(1, buf.data(), static_cast<size_t>(std::min<long long>(n, 65536)));
      if (w <= 0) return 1;
      n -= w;
    }
    return 0;
  }
  if (mode == "stderr") {
    long long n = argc > 2 ? std::atoll(argv[2]) : 0;
    for (long long i = 0; i < n; ++i) std::fputc('a' + static_cast<int>(i % 26), stderr);
    std::fputs("END", stderr);
    return argc > 3 ? std::atoi(argv[3]) : 1;
  }
  if (mode == "hang") {
    for (;;) pause();
  }
  if (mode == "sleep" && argc > 2) {
    ::sleep(static_cast<unsigned>(std::atoi(argv[2])));
    std::printf("slept %s\n", argv[2]);
    return 0;
  }
  if (mode == "daemon") {
    pid_t p = fork();
    if (p == 0) {
      setsid();
      if (fork() == 0) {
        FILE* f = std::fopen("daemon.pid.tmp", "w");
        if (f) {
          std::fprintf(f, "%d\n", getpid());
          std::fclose(f);
          rename("daemon.pid.tmp", "daemon.pid");
        }
        for (;;) pause();
      }
      _exit(0);
    }
    for (;;) pause();
  }
  if (mode == "daemon-exit") {
    // Leaves a daemon behind and exits 0 as soon as it is running.
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        FILE* f = std::fopen("daemon.pid.tmp", "w");
        if (f) {
          std::fprintf(f, "%d\n", getpid());
          std::fclose(f);
          rename("daemon.pid.tmp", "daemon.pid");
        }
        for (;;) pause();
      }
      _exit(0);
    }
    while (access("daemon.pid", F_OK) != 0) usleep(1000);
    std::puts("left a daemon");
    return 0;
  }
  if (mode == "exit") {
    if (argc > 3) std::fputs(argv[3], stdout);
    return argc > 2 ? std::atoi(argv[2]) : 0;
  }
  if (mode == "cat") {
    int fd = open(argv[2], O_RDONLY);
    if (fd < 0) {
      std::fprintf(stderr, "cannot open %s: %s\n", argv[2], std::strerror(errno));
      return 2;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) fwrite(buf, 1, static_cast<size_t>(n), stdout);
    return 0;
  }
  if (mode == "stdin") {
    char buf[4096];
    long total = 0;
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) total += n;
    std::printf("stdin %ld\n", total);
    return 0;
  }
  if (mode == "connect") {
    // connect HOST PORT: "connected", or the errno.
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::atoi(argv[3])));
    inet_pton(AF_INET, argv[2], &a.sin_addr);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      std::puts("connected");
      return 0;
    }
    std::printf("connect %s\n", strerrorname_np(errno));
    return 1;
  }
  if (mode == "policed") {
    if (argc != 5) {
      std::fputs("usage: hostile policed HOST PORT SECONDS\n", stderr);
      return 2;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::atoi(argv[3])));
    inet_pton(AF_INET, argv[2], &a.sin_addr);
    const int tries = std::atoi(argv[4]) * 10;
    for (int i = 1; i <= tries; ++i) {
      int s = socket(AF_INET, SOCK_STREAM, 0);
      const int on = 1;
      setsockopt(s, IPPROTO_IP, IP_RECVERR, &on, sizeof on);
      bool icmp = false;
      if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno == ECONNREFUSED) {
        alignas(cmsghdr) char control[256];
        char data[1];
        iovec iov{data, sizeof data};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        if (recvmsg(s, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
          for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
            sock_extended_err ee{};
            if (c->cmsg_level != IPPROTO_IP || c->cmsg_type != IP_RECVERR) continue;
            std::memcpy(&ee, CMSG_DATA(c), sizeof ee);
            icmp = icmp || ee.ee_origin == SO_EE_ORIGIN_ICMP;
          }
        }
      }
      close(s);
      if (icmp) {
        std::printf("policed after %d tries\n", i);
        return 0;
      }
      usleep(100'000);
    }
    std::printf("not policed within %s s\n", argv[4]);
    return 1;
  }
  if (mode == "http") {
    // http HOST PORT PATH: whether something that speaks HTTP answers there (a relay's
    // listener alone accepts the connection, then closes it).
    if (argc != 5) {
      std::fputs("usage: hostile http HOST PORT PATH\n", stderr);
      return 2;
    }
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::atoi(argv[3])));
    inet_pton(AF_INET, argv[2], &a.sin_addr);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      std::printf("connect %s\n", strerrorname_np(errno));
      return 1;
    }
    const std::string req = std::string("GET ") + argv[4] + " HTTP/1.0\r\nHost: " + argv[2] + ":" + argv[3] + "\r\n\r\n";
    if (write(s, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
      std::printf("write %s\n", strerrorname_np(errno));
      return 1;
    }
    std::string got;
    char buf[512];
    ssize_t n;
    while (got.find("\r\n") == std::string::npos && (n = read(s, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    const auto eol = got.find("\r\n");
    if (eol == std::string::npos) {
      std::puts("no response");
      return 1;
    }
    std::printf("%s\n", got.substr(0, eol).c_str());
    return 0;
  }
  if (mode == "write") {
    // write PATH: try to create PATH; "written", or the errno.
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      std::puts("written");
      return 0;
    }
    std::printf("write %s\n", strerrorname_np(errno));
    return 1;
  }
  if (mode == "agent") return reach_into_the_agent();
  if (mode == "fill") {
    if (argc != 4) {
      std::fputs("usage: hostile fill PATH MIB\n", stderr);
      return 2;
    }
    return fill(argv[2], std::atol(argv[3]));
  }
  if (mode == "mounts") return write_every_mount();
  if (mode == "forkbomb") {
    // Forks until it cannot, then reports how far it got and waits to be killed.
    long n = 0;
    for (;;) {
      pid_t p = fork();
      if (p < 0) {
        std::printf("fork failed after %ld: %s\n", n, strerrorname_np(errno));
        return 0;  // its children stay behind, paused, for the agent to kill
      }
      if (p == 0) {
        for (;;) pause();
      }
      ++n;
    }
  }
  if (mode == "alloc") {
    // alloc MIB: allocate and touch MIB mebibytes; "allocated", or where it stopped.
    long mib = std::atol(argv[2]);
    for (long i = 0; i < mib; ++i) {
      char* p = static_cast<char*>(std::malloc(1 << 20));
      if (!p) {
        std::printf("alloc failed at %ld MiB\n", i);
        return 1;
      }
      std::memset(p, 1, 1 << 20);
    }
    std::puts("allocated");
    return 0;
  }
  if (mode == "forkalloc") {
    long n = std::atol(argv[2]);
    long mib = std::atol(argv[3]);
    int ready[2];
    if (pipe(ready) != 0) return 1;
    for (long c = 0; c < n; ++c) {
      pid_t p = fork();
      if (p < 0) {
        std::printf("fork failed after %ld: %s\n", c, strerrorname_np(errno));
        return 1;
      }
      if (p == 0) {
        for (long i = 0; i < mib; ++i) {
          char* m = static_cast<char*>(std::malloc(1 << 20));
          if (!m) _exit(1);
          std::memset(m, 1, 1 << 20);
        }
        ssize_t w = write(ready[1], "x", 1);
        (void)w;
        for (;;) pause();
      }
    }
    close(ready[1]);
    long held = 0;
    while (held < n) {
      pollfd pf{ready[0], POLLIN, 0};
      if (poll(&pf, 1, 100) == 1) {
        char b;
        if (read(ready[0], &b, 1) == 1) ++held;
      }
      int st = 0;
      if (waitpid(-1, &st, WNOHANG) > 0 && WIFSIGNALED(st)) {
        std::printf("a child was killed by signal %d after %ld of %ld got their memory\n", WTERMSIG(st), held, n);
        return 3;
      }
    }
    std::printf("all %ld children hold %ld MiB\n", n, mib);
    std::fflush(stdout);
    return 0;  // the children stay, holding it, for the agent to kill
  }
  if (mode == "spin") {
    volatile unsigned long x = 0;
    for (;;) x = x + 1;
  }
  std::fprintf(stderr, "hostile: unknown mode '%s'\n", mode.c_str());
  return 64;
}
