#include "agent/transport.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>
#include <thread>

#include "agent/http.h"
#include "base/file.h"

namespace batlehub::agent {

namespace {

Unexpected<FetchError> fetch_error(std::string m) { return Unexpected(FetchError{wire::FailureKind::kFetch, std::move(m)}); }
Unexpected<FetchError> size_error(std::string m) { return Unexpected(FetchError{wire::FailureKind::kInputSize, std::move(m)}); }

// The words of a failed open or read, as the agent has always reported them.
Unexpected<FetchError> file_fetch_error(const std::string& path, const base::FileError& e) {
  switch (e.kind) {
    case base::FileError::Kind::kOpen: return fetch_error("cannot open " + path + ": " + std::strerror(e.err));
    case base::FileError::Kind::kStat: return fetch_error("cannot stat " + path + ": " + std::strerror(e.err));
    case base::FileError::Kind::kNotRegular: return fetch_error(path + " is not a regular file");
    case base::FileError::Kind::kTooLarge: return size_error(path + " is " + std::to_string(e.size) + " bytes, too large");
    case base::FileError::Kind::kRead: break;
  }
  return fetch_error("reading " + path + ": " + std::strerror(e.err));
}

// The pauses between attempts at one presigned call. A storage hop crosses a network the
// sandbox does not own: a NetworkPolicy rewritten under it (kube-router refuses while it
// rebuilds), an S3 server's SlowDown, a relay restarting. Four attempts over about 4 s: a
// presigned URL may be used any number of times until it expires, and a PUT of the same
// bytes to the same key is the same object, so a repeat is harmless.
constexpr std::chrono::milliseconds kPauses[] = {std::chrono::milliseconds(250), std::chrono::milliseconds(1000),
                                                 std::chrono::milliseconds(3000)};

// `attempt` until it succeeds, fails for good, or has been tried after every pause; the
// last failure says how many attempts it took.
template <class Attempt>
auto with_retries(const Attempt& attempt) -> decltype(attempt()) {
  for (std::size_t i = 0;; ++i) {
    auto r = attempt();
    if (r || !r.error().transient) return r;
    if (i == std::size(kPauses)) {
      HttpError last = std::move(r).error();
      last.message += " (" + std::to_string(i + 1) + " attempts)";
      return Unexpected(std::move(last));
    }
    std::this_thread::sleep_for(kPauses[i]);
  }
}

}  // namespace

Expected<std::string, FetchError> fetch_document(const Url& url, std::size_t max) {
  std::string out;
  if (url.scheme == Url::Scheme::kFile) {
    auto file = base::read_regular_file(url.path, max);
    if (!file) {
      if (file.error().kind == base::FileError::Kind::kTooLarge) {
        return file.error().grew ? size_error(url.path + " grew while it was read")
                                 : size_error(url.path + " is " + std::to_string(file.error().size) +
                                              " bytes, more than the " + std::to_string(max) + " allowed");
      }
      return file_fetch_error(url.path, file.error());
    }
    if (file->bytes.size() < file->size_at_open) return fetch_error("reading " + url.path + ": short read");
    if (file->bytes.size() > file->size_at_open) return size_error(url.path + " grew while it was read");
    return std::move(file->bytes);
  }
  auto r = with_retries([&] {
    out.clear();
    return http_get(url, max, [&](const char* p, std::size_t n) {
      out.append(p, n);
      return true;
    });
  });
  if (!r) {
    if (r.error().too_long) return size_error("GET " + url.authority + ": " + r.error().message);
    return fetch_error("GET " + url.authority + ": " + r.error().message);
  }
  return out;
}

Expected<base::Fd, FetchError> fetch_input(const Url& url, std::uint64_t declared) {
  if (url.scheme == Url::Scheme::kFile) {
    std::uint64_t size = 0;
    auto fd = base::open_regular(url.path, &size);
    if (!fd) return file_fetch_error(url.path, fd.error());
    if (size != declared) {
      return size_error(url.path + " is " + std::to_string(size) + " bytes, the manifest declares " +
                        std::to_string(declared));
    }
    return std::move(fd).value();
  }
  base::Fd mem(::memfd_create("batlehub-input", MFD_CLOEXEC));
  if (!mem.valid()) return fetch_error(std::string("memfd_create: ") + std::strerror(errno));
  auto r = with_retries([&]() -> Expected<std::uint64_t, HttpError> {
    if (::ftruncate(mem.get(), 0) != 0 || ::lseek(mem.get(), 0, SEEK_SET) != 0) {
      return Unexpected(HttpError{std::string("emptying the memory file: ") + std::strerror(errno)});
    }
    return http_get(url, declared, [&](const char* p, std::size_t n) { return base::write_all(mem.get(), {p, n}); });
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
    const char* verb = url.post_form ? "POST" : "PUT";
    auto r = with_retries([&] { return url.post_form ? http_post_form(url, bytes) : http_put(url, bytes); });
    if (!r) return Unexpected(std::string(verb) + " " + url.authority + ": " + r.error().message);
    return Ok{};
  }
  // A result file the runtime made for the agent is written in place: oci binds one file,
  // out.tar, writable over a read-only bundle, so that nothing else there is writable to a
  // scanner (and the directory is not, to rename into). The scanner's whole tree is gone by
  // now, so whatever it wrote there is truncated away.
  base::Fd made(::open(url.path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (made.valid()) {
    struct stat st {};
    if (::fstat(made.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      return Unexpected(url.path + " is there and is not a regular file");
    }
    if (::ftruncate(made.get(), 0) != 0 || !base::write_all(made.get(), bytes)) {
      return Unexpected("writing " + url.path + " in place: " + std::strerror(errno));
    }
    return Ok{};
  }
  std::string tmp = url.path + ".partial-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  base::Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) return Unexpected("cannot create " + tmp + ": " + std::strerror(errno));
  if (!base::write_all(fd.get(), bytes)) {
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
