// netns-relay NETNS LISTEN_PORT TARGET_PORT [LISTEN_ADDRESS]
//
// The tests' storage network on one host (docs/operations/oci.md, "The storage
// transport"): a listening socket on 127.0.0.1:LISTEN_PORT inside the network namespace
// NETNS (a holder container's /proc/<pid>/ns/net, which has only a loopback), every
// connection to it relayed to 127.0.0.1:TARGET_PORT in this process's own namespace — the
// S3 peer. A container that joins the holder's network (`--network container:<holder>`)
// then reaches the S3 peer at the very host:port the worker signs, and nothing else.
//
// With LISTEN_ADDRESS (an IPv4 address of this machine, bound with IP_FREEBIND) it listens
// there instead of on the namespace's loopback: the local cluster's storage door on its pod
// network's gateway (scripts/k8s-peer.sh, NETNS /proc/self/ns/net).
//
// Prints "ready" once listening; relays until killed. Needs CAP_SYS_ADMIN (setns).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

int die(const char* what) {
  std::fprintf(stderr, "netns-relay: %s: %s\n", what, std::strerror(errno));
  return 1;
}

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

sockaddr_in at(const char* address, int port) {
  sockaddr_in a = loopback(port);
  if (address != nullptr && ::inet_pton(AF_INET, address, &a.sin_addr) != 1) a.sin_family = AF_UNSPEC;
  return a;
}

void relay(int a, int b) {
  pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  char buf[1 << 16];
  for (;;) {
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bool done = false;
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(p[i].fd, buf, sizeof buf);
      if (n <= 0) {
        done = true;
        break;
      }
      const int to = p[1 - i].fd;
      for (ssize_t off = 0; off < n;) {
        const ssize_t w = ::write(to, buf + off, static_cast<std::size_t>(n - off));
        if (w <= 0) {
          done = true;
          break;
        }
        off += w;
      }
    }
    if (done) break;
  }
  ::close(a);
  ::close(b);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: netns-relay NETNS LISTEN_PORT TARGET_PORT [LISTEN_ADDRESS]\n");
    return 2;
  }
  const int listen_port = std::atoi(argv[2]);
  const int target_port = std::atoi(argv[3]);
  const int own = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const int theirs = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  if (own < 0 || theirs < 0) return die("opening the namespaces");
  // The listening socket belongs to the namespace it was made in, whatever this process
  // joins afterwards; so it is made there, and everything else here.
  if (::setns(theirs, CLONE_NEWNET) != 0) return die("setns into the holder");
  const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(lfd, SOL_IP, IP_FREEBIND, &one, sizeof one);
  sockaddr_in l = at(argc == 5 ? argv[4] : nullptr, listen_port);
  if (l.sin_family != AF_INET) {
    std::fprintf(stderr, "netns-relay: '%s' is not an IPv4 address\n", argv[4]);
    return 2;
  }
  if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&l), sizeof l) != 0 || ::listen(lfd, 64) != 0) {
    return die("listening");
  }
  if (::setns(own, CLONE_NEWNET) != 0) return die("setns back");
  std::puts("ready");
  std::fflush(stdout);
  for (;;) {
    const int c = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR) continue;
      return die("accept");
    }
    // The target is dialled from the connection's own thread: a slow one never holds up
    // the next accept (a full backlog here is a SYN dropped at the door, which a client
    // sees only as its connect timing out).
    std::thread([c, target_port] {
      const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in t = loopback(target_port);
      if (s < 0 || ::connect(s, reinterpret_cast<sockaddr*>(&t), sizeof t) != 0) {
        std::fprintf(stderr, "netns-relay: connecting to 127.0.0.1:%d: %s\n", target_port, std::strerror(errno));
        ::close(c);
        if (s >= 0) ::close(s);
        return;
      }
      relay(c, s);
    }).detach();
  }
}
