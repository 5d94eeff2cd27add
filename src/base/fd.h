// A file descriptor that closes itself.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <utility>

namespace batlehub::base {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

namespace detail {
// Hands `data` to `put` (a write(2) or send(2) of some bytes) until it is all out, retrying on
// EINTR and short writes. False (errno set) on failure.
template <typename Put>
bool put_all(std::string_view data, Put put) {
  while (!data.empty()) {
    const ssize_t w = put(data.data(), data.size());
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(w));
  }
  return true;
}
}  // namespace detail

// Writes all of `data`, retrying on EINTR and short writes. False (errno set) on failure.
inline bool write_all(int fd, std::string_view data) {
  return detail::put_all(data, [fd](const char* p, std::size_t n) { return ::write(fd, p, n); });
}

// The same for a socket whose peer may be gone: send(2) with MSG_NOSIGNAL, so that a closed
// peer is EPIPE here rather than a SIGPIPE that ends the process (the detonation's sink
// answers connections a package may close before the answer; a process-wide SIG_IGN would be
// inherited by every program the sink's process starts).
inline bool send_all(int fd, std::string_view data) {
  return detail::put_all(data, [fd](const char* p, std::size_t n) { return ::send(fd, p, n, MSG_NOSIGNAL); });
}

}  // namespace batlehub::base
