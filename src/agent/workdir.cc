#include "agent/workdir.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace batlehub::agent {

namespace {
PathError sys_error(int err, std::string what) {
  return PathError{err, std::move(what) + ": " + std::strerror(err)};
}

std::string join(const std::vector<std::string>& c, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n && i < c.size(); ++i) {
    if (i) out += '/';
    out += c[i];
  }
  return out;
}
}  // namespace

Expected<std::vector<std::string>, std::string> normalise_entry_path(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c == '\\') c = '/';
  }
  if (s.find('\0') != std::string::npos) return Unexpected(std::string("contains NUL"));
  if (!s.empty() && s.front() == '/') return Unexpected(std::string("is absolute"));
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find('/', start);
    if (end == std::string::npos) end = s.size();
    std::string comp = s.substr(start, end - start);
    if (comp == "..") return Unexpected(std::string("climbs out with '..'"));
    if (comp.size() > 255) return Unexpected(std::string("has a component over 255 bytes"));
    if (!comp.empty() && comp != ".") out.push_back(std::move(comp));
    start = end + 1;
  }
  if (out.size() > 256) return Unexpected(std::string("is nested deeper than 256 directories"));
  return out;
}

Expected<WorkDir, PathError> WorkDir::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Unexpected(sys_error(errno, "cannot open work dir " + path));
  return WorkDir(base::Fd(fd));
}

Expected<base::Fd, PathError> WorkDir::mkdirs(const std::vector<std::string>& components) {
  // Start from the longest cached prefix.
  std::size_t start = 0;
  int base = root_.get();
  if (cached_parent_.valid() && cached_parent_path_.size() <= components.size() &&
      std::equal(cached_parent_path_.begin(), cached_parent_path_.end(), components.begin())) {
    start = cached_parent_path_.size();
    base = cached_parent_.get();
  }
  base::Fd cur(::fcntl(base, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return Unexpected(sys_error(errno, "dup"));
  for (std::size_t i = start; i < components.size(); ++i) {
    const std::string& c = components[i];
    if (::mkdirat(cur.get(), c.c_str(), 0755) != 0 && errno != EEXIST) {
      return Unexpected(sys_error(errno, "cannot create directory '" + join(components, i + 1) + "'"));
    }
    int next = ::openat(cur.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      int e = errno;
      // ELOOP: a symlink; ENOTDIR: a file. Either way nothing is followed or replaced.
      return Unexpected(sys_error(e, "'" + join(components, i + 1) + "' is not a directory we may enter"));
    }
    cur.reset(next);
  }
  cached_parent_path_ = components;
  cached_parent_.reset(::fcntl(cur.get(), F_DUPFD_CLOEXEC, 0));
  return cur;
}

Expected<base::Fd, PathError> WorkDir::create_file(const std::vector<std::string>& components, bool exclusive) {
  if (components.empty()) return Unexpected(PathError{0, "an empty path names no file"});
  std::vector<std::string> parent(components.begin(), components.end() - 1);
  auto dir = mkdirs(parent);
  if (!dir) return Unexpected(std::move(dir).error());
  int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
  int fd = ::openat(dir->get(), components.back().c_str(), flags, 0644);
  if (fd < 0) {
    int e = errno;
    return Unexpected(sys_error(e, "cannot create '" + join(components, components.size()) + "'"));
  }
  base::Fd out(fd);
  struct stat st{};
  if (::fstat(fd, &st) != 0) return Unexpected(sys_error(errno, "fstat"));
  if (!S_ISREG(st.st_mode)) return Unexpected(PathError{0, "'" + join(components, components.size()) + "' is not a regular file"});
  // A file that was already there keeps its old mode under O_TRUNC; exec and set-id bits
  // go regardless.
  if ((st.st_mode & 07777) != 0644 && ::fchmod(fd, 0644) != 0) return Unexpected(sys_error(errno, "fchmod"));
  return out;
}

bool WorkDir::exists(const std::vector<std::string>& components) {
  if (components.empty()) return true;
  std::vector<std::string> parent(components.begin(), components.end() - 1);
  // Look without creating: walk read-only.
  base::Fd cur(::fcntl(root_.get(), F_DUPFD_CLOEXEC, 0));
  for (const auto& c : parent) {
    int next = ::openat(cur.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return errno != ENOENT;
    cur.reset(next);
  }
  struct stat st{};
  return ::fstatat(cur.get(), components.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

}  // namespace batlehub::agent
