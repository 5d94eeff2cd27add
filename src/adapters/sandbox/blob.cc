#include "adapters/sandbox/blob.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fd.h"
#include "base/file.h"

namespace batlehub::adapters {

namespace {

class FileBlob final : public core::Blob {
 public:
  FileBlob(int fd, std::uint64_t size, std::string path, std::optional<std::string> sha256)
      : fd_(fd), size_(size), path_(std::move(path)), sha256_(std::move(sha256)) {}
  ~FileBlob() override { ::close(fd_); }
  std::uint64_t size() const override { return size_; }
  std::string describe() const override { return path_; }
  std::optional<std::string> sha256() const override { return sha256_; }
  Expected<Ok, std::string> copy_to(int out) const override {
    char buf[1 << 16];
    off_t off = 0;
    while (static_cast<std::uint64_t>(off) < size_) {
      ssize_t n = ::pread(fd_, buf, sizeof buf, off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Unexpected("reading " + path_ + ": " + (n < 0 ? std::strerror(errno) : "it shrank"));
      // The destination is the caller's to name: a full disk is where the copy went, not this file.
      if (!base::write_all(out, std::string_view(buf, static_cast<std::size_t>(n)))) {
        return Unexpected(std::string(std::strerror(errno)) + " (copying " + path_ + ")");
      }
      off += n;
    }
    return Ok{};
  }

 private:
  int fd_;
  std::uint64_t size_;
  std::string path_;
  std::optional<std::string> sha256_;
};

class MemoryBlob final : public core::Blob {
 public:
  MemoryBlob(std::string bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}
  std::uint64_t size() const override { return bytes_.size(); }
  std::string describe() const override { return name_; }
  Expected<Ok, std::string> copy_to(int out) const override {
    if (!base::write_all(out, bytes_))
      return Unexpected(std::string(std::strerror(errno)) + " (copying " + name_ + ")");
    return Ok{};
  }

 private:
  std::string bytes_;
  std::string name_;
};

}  // namespace

Expected<std::shared_ptr<const core::Blob>, std::string> file_blob(const std::string& path,
                                                                   std::optional<std::string> sha256) {
  std::uint64_t size = 0;
  auto fd = base::open_regular(path, &size);
  if (!fd) {
    if (fd.error().kind == base::FileError::Kind::kOpen) return Unexpected("cannot open " + path + ": " + std::strerror(fd.error().err));
    return Unexpected(path + " is not a regular file");
  }
  return std::shared_ptr<const core::Blob>(std::make_shared<FileBlob>(fd->release(), size, path, std::move(sha256)));
}

std::shared_ptr<const core::Blob> memory_blob(std::string bytes, std::string name) {
  return std::make_shared<MemoryBlob>(std::move(bytes), std::move(name));
}

}  // namespace batlehub::adapters
