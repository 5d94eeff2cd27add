// base/fd.h: writing to a peer that is gone. A sink answers connections a package may close
// before the answer comes; that must cost the write, never the process (the detonation's
// observer was killed by SIGPIPE once in 335 scans of held-out-10).
#include "base/fd.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

namespace batlehub::base {
namespace {

// In a child, so that the default SIGPIPE disposition is the one tested and a death is seen.
int status_of_writing_to_a_closed_peer(bool (*write_fn)(int, std::string_view)) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGPIPE, SIG_DFL);
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) ::_exit(3);
    ::close(sv[1]);
    const bool ok = write_fn(sv[0], "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
    ::_exit(!ok && errno == EPIPE ? 0 : 4);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(Fd, send_all_to_a_socket_whose_peer_is_gone_is_epipe_and_the_process_lives) {
  const int status = status_of_writing_to_a_closed_peer(&send_all);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// What send_all is for: write_all to the same socket ends the process.
TEST(Fd, write_all_to_a_socket_whose_peer_is_gone_is_a_sigpipe) {
  const int status = status_of_writing_to_a_closed_peer(&write_all);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGPIPE);
}

}  // namespace
}  // namespace batlehub::base
