#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace batlehub::base {

Expected<Fd, FileError> open_regular(const std::string& path, std::uint64_t* size, OpenOptions o) {
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (o.follow_links ? 0 : O_NOFOLLOW);
  Fd fd(::open(path.c_str(), flags));
  if (!fd.valid()) return Unexpected(FileError{FileError::Kind::kOpen, errno, 0});
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return Unexpected(FileError{FileError::Kind::kStat, errno, 0});
  if (!S_ISREG(st.st_mode)) return Unexpected(FileError{FileError::Kind::kNotRegular, 0, 0});
  // Reads block as usual from here: O_NONBLOCK was for the open of a FIFO only.
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  if (size) *size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

Expected<FileBytes, FileError> read_regular_file(const std::string& path, std::uint64_t max, OpenOptions o) {
  FileBytes out;
  auto fd = open_regular(path, &out.size_at_open, o);
  if (!fd) return Unexpected(fd.error());
  if (out.size_at_open > max) return Unexpected(FileError{FileError::Kind::kTooLarge, 0, out.size_at_open});
  out.bytes.resize(static_cast<std::size_t>(out.size_at_open) + 1);
  std::size_t got = 0;
  for (;;) {
    if (got == out.bytes.size()) {
      if (got > max) break;
      out.bytes.resize(std::min<std::uint64_t>(max + 1, got * 2 + 4096));
    }
    ssize_t n = ::read(fd->get(), out.bytes.data() + got, out.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unexpected(FileError{FileError::Kind::kRead, errno, 0});
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max) return Unexpected(FileError{FileError::Kind::kTooLarge, 0, got, true});
  out.bytes.resize(got);
  return out;
}

std::string read_small_file(const std::string& path, std::size_t max) {
  auto file = read_regular_file(path, max);
  return file ? std::move(file->bytes) : std::string();
}

}  // namespace batlehub::base
