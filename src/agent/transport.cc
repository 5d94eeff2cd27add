#include "agent/transport.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/http.h"

namespace batlehub::agent {

namespace {

Unexpected<FetchError> fetch_error(std::string m) { return Unexpected(FetchError{wire::FailureKind::kFetch, std::move(m)}); }
Unexpected<FetchError> size_error(std::string m) { return Unexpected(FetchError{wire::FailureKind::kInputSize, std::move(m)}); }

Expected<Fd, FetchError> open_regular(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return fetch_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return fetch_error("cannot stat " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fetch_error(path + " is not a regular file");
  return fd;
}

}  // namespace

Expected<std::string, FetchError> fetch_document(const Url& url, std::size_t max) {
  std::string out;
  if (url.scheme == Url::Scheme::kFile) {
    auto fd = open_regular(url.path);
    if (!fd) return Unexpected(std::move(fd).error());
    struct stat st{};
    ::fstat(fd->get(), &st);
    if (static_cast<std::uint64_t>(st.st_size) > max) {
      return size_error(url.path + " is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max) +
                        " allowed");
    }
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < out.size()) {
      ssize_t r = ::read(fd->get(), out.data() + got, out.size() - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return fetch_error("reading " + url.path + ": " + (r < 0 ? std::strerror(errno) : "short read"));
      got += static_cast<std::size_t>(r);
    }
    char extra;
    if (::read(fd->get(), &extra, 1) > 0) return size_error(url.path + " grew while it was read");
    return out;
  }
  auto r = http_get(url, max, [&](const char* p, std::size_t n) {
    out.append(p, n);
    return true;
  });
  if (!r) {
    if (r.error().too_long) return size_error("GET " + url.authority + ": " + r.error().message);
    return fetch_error("GET " + url.authority + ": " + r.error().message);
  }
  return out;
}

Expected<Fd, FetchError> fetch_input(const Url& url, std::uint64_t declared) {
  if (url.scheme == Url::Scheme::kFile) {
    auto fd = open_regular(url.path);
    if (!fd) return fd;
    struct stat st{};
    ::fstat(fd->get(), &st);
    if (static_cast<std::uint64_t>(st.st_size) != declared) {
      return size_error(url.path + " is " + std::to_string(st.st_size) + " bytes, the manifest declares " +
                        std::to_string(declared));
    }
    return fd;
  }
  Fd mem(::memfd_create("batlehub-input", MFD_CLOEXEC));
  if (!mem.valid()) return fetch_error(std::string("memfd_create: ") + std::strerror(errno));
  bool write_ok = true;
  auto r = http_get(url, declared, [&](const char* p, std::size_t n) {
    write_ok = write_all(mem.get(), std::string_view(p, n));
    return write_ok;
  });
  if (!r) {
    if (r.error().too_long) {
      return size_error("GET " + url.authority + ": " + r.error().message + " (the manifest declares " +
                        std::to_string(declared) + ")");
    }
    return fetch_error("GET " + url.authority + ": " + r.error().message);
  }
  if (*r != declared) {
    return size_error("GET " + url.authority + " returned " + std::to_string(*r) + " bytes, the manifest declares " +
                      std::to_string(declared));
  }
  if (::lseek(mem.get(), 0, SEEK_SET) != 0) return fetch_error(std::string("lseek: ") + std::strerror(errno));
  return mem;
}

Expected<Ok, std::string> put_result(const Url& url, std::string_view bytes) {
  if (url.scheme != Url::Scheme::kFile) {
    auto r = http_put(url, bytes);
    if (!r) return Unexpected("PUT " + url.authority + ": " + r.error().message);
    return Ok{};
  }
  std::string tmp = url.path + ".partial-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) return Unexpected("cannot create " + tmp + ": " + std::strerror(errno));
  if (!write_all(fd.get(), bytes)) {
    std::string e = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Unexpected("writing " + tmp + ": " + e);
  }
  fd.reset();
  if (::rename(tmp.c_str(), url.path.c_str()) != 0) {
    std::string e = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Unexpected("renaming the result into " + url.path + ": " + e);
  }
  return Ok{};
}

}  // namespace batlehub::agent
