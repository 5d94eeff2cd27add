// The real scanners' tests run in a network namespace of their own, with only a loopback,
// and a resolv.conf naming 127.0.0.1.
//
// Under `none` a scanner runs on the host's network, and real scanners reach for it on
// their own: GuardDog's metadata rules look up (whois) the e-mail domains a package names,
// and it refreshes its typosquatting lists. A test must never let those leave this machine
// (their SYNs, and the DNS queries before them), not even as lookups that "should" fail.
// Here they ask 127.0.0.1, are refused at once, and go no further; a sandboxed run that
// keeps the network (trivy's) keeps this namespace's loopback and nothing else.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "real_scanners.h"

namespace batlehub::testing {

std::string own_network_error;

namespace {

std::string fail(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string enter_own_network() {
  if (::unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) return fail("unshare(CLONE_NEWNET | CLONE_NEWNS)");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return fail("making / private");
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (s < 0 || ::ioctl(s, SIOCGIFFLAGS, &ifr) != 0) return fail("reading lo's flags");
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  if (::ioctl(s, SIOCSIFFLAGS, &ifr) != 0) return fail("bringing lo up");
  ::close(s);
  char path[] = "/tmp/batlehub-resolv-XXXXXX";
  int fd = ::mkstemp(path);
  const char text[] = "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n";
  if (fd < 0 || ::write(fd, text, sizeof text - 1) != static_cast<ssize_t>(sizeof text - 1)) return fail("writing resolv.conf");
  ::fchmod(fd, 0644);
  ::close(fd);
  int r = ::mount(path, "/etc/resolv.conf", nullptr, MS_BIND, nullptr);
  int e = errno;
  ::unlink(path);  // the bind holds the inode
  errno = e;
  if (r != 0) return fail("binding a loopback resolv.conf over /etc/resolv.conf");
  return "";
}

}  // namespace
}  // namespace batlehub::testing

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::string(argv[i]) == "--gtest_list_tests";
  if (!listing) {
    batlehub::testing::own_network_error = batlehub::testing::enter_own_network();
    if (!batlehub::testing::own_network_error.empty()) {
      std::cerr << "real_scanners_test: no network namespace of its own ("
                << batlehub::testing::own_network_error
                << "): the tests that run a real scanner on the host's network skip\n";
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
