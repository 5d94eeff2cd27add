#include "adapters/storage/local_backends.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "base/fd.h"
#include "base/file.h"

namespace batlehub::adapters {

namespace {

using core::ObjectInfo;
using core::StorageError;
using Kind = StorageError::Kind;

Unexpected<StorageError> error(Kind k, const std::string& backend, const std::string& what) {
  return Unexpected(StorageError{k, "storage backend '" + backend + "': " + what});
}

class FilesystemBackend final : public core::StorageBackend {
 public:
  FilesystemBackend(std::string name, std::string root) : name_(std::move(name)), root_(std::move(root)) {}

  const std::string& name() const override { return name_; }
  std::string_view type() const override { return "filesystem"; }
  std::string location(const std::string& key_prefix) const override { return root_ + "/" + key_prefix; }

  Expected<Ok, StorageError> put(const std::string& key, std::string_view bytes) override {
    return write(key, [&](int fd) -> Expected<Ok, std::string> {
      if (!base::write_all(fd, bytes)) return Unexpected(std::string(std::strerror(errno)));
      return Ok{};
    });
  }

  Expected<Ok, StorageError> put_blob(const std::string& key, const core::Blob& blob) override {
    return write(key, [&](int fd) { return blob.copy_to(fd); });
  }

  Expected<std::string, StorageError> get(const std::string& key, std::uint64_t max_bytes) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    auto f = base::read_regular_file(path_of(key), max_bytes, base::OpenOptions{.follow_links = false});
    if (!f) return Unexpected(file_error(key, f.error(), max_bytes));
    return std::move(f->bytes);
  }

  Expected<std::uint64_t, StorageError> get_to_fd(const std::string& key, int out, std::uint64_t max_bytes) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    // Not through a link: a key is a path under the root, never a way out of it.
    base::Fd in(::open(path_of(key).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
    if (!in.valid()) {
      if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return error(Kind::kNotFound, name_, "no object at " + key);
      return error(Kind::kIo, name_, "opening " + key + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(in.get(), &st) != 0) return error(Kind::kIo, name_, "stat " + key + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return error(Kind::kNotFound, name_, "no object at " + key + " (not a regular file)");
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
      return error(Kind::kTooLarge, name_, key + " is " + std::to_string(st.st_size) + " bytes, more than the " +
                                               std::to_string(max_bytes) + " read");
    }
    std::uint64_t copied = 0;
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(in.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return error(Kind::kIo, name_, "reading " + key + ": " + std::strerror(errno));
      if (n == 0) return copied;
      copied += static_cast<std::uint64_t>(n);
      // A file that grows while it is read is held to the same bound.
      if (copied > max_bytes) return error(Kind::kTooLarge, name_, key + " grew past the " + std::to_string(max_bytes) + " read");
      if (!base::write_all(out, std::string_view(buf, static_cast<std::size_t>(n)))) {
        return error(Kind::kIo, name_, "writing " + key + " out: " + std::strerror(errno));
      }
    }
  }

  Expected<ObjectInfo, StorageError> head(const std::string& key) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    struct stat st {};
    if (::lstat(path_of(key).c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return error(Kind::kNotFound, name_, "no object at " + key);
      return error(Kind::kIo, name_, "stat " + key + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) return error(Kind::kNotFound, name_, "no object at " + key + " (not a regular file)");
    return info(key, st);
  }

  Expected<Ok, StorageError> remove(const std::string& key) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    if (::unlink(path_of(key).c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) {
      return error(Kind::kIo, name_, "deleting " + key + ": " + std::strerror(errno));
    }
    return Ok{};
  }

  Expected<std::vector<ObjectInfo>, StorageError> list(const std::string& prefix) override {
    std::vector<ObjectInfo> out;
    std::error_code ec;
    namespace fs = std::filesystem;
    if (!fs::is_directory(fs::symlink_status(root_, ec))) return out;
    // Links are listed as what they are and never followed: only regular files are objects.
    for (fs::recursive_directory_iterator it(root_, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
      const std::string file = fs::relative(it->path(), root_, ec).generic_string();
      // Only "<key>.dat" files are objects: an in-flight write (".tmp-…") is not one yet.
      if (ec || !file.ends_with(kObjectSuffix) || file.find("/.tmp-") != std::string::npos ||
          file.rfind(".tmp-", 0) == 0) {
        continue;
      }
      std::string key = key_of(file);
      if (key.rfind(prefix, 0) != 0) continue;
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(info(key, st));
    }
    if (ec) return error(Kind::kIo, name_, "listing " + root_ + ": " + ec.message());
    std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    return out;
  }

 private:
  // Upstream's layout (upstream-storage-and-queue.md A.6): "<root>/<key, each ':' written
  // '__'>.dat", so that an artifact upstream's proxy stored is read where it lies, and what
  // this worker stores upstream reads back: artifact:npm/left-pad/1.3.0/tarball →
  // <root>/artifact__npm/left-pad/1.3.0/tarball.dat, blob/<sha256> → <root>/blob/<sha256>.dat.
  std::string path_of(const std::string& key) const {
    std::string out = root_ + "/";
    for (char ch : key) {
      if (ch == ':') {
        out += "__";
      } else {
        out += ch;
      }
    }
    return out + std::string(kObjectSuffix);
  }

  // The inverse, for list(): every "__" read back as ':'. Upstream's encoding is not one to
  // one (a key holding "__" lists as one holding ':'), and upstream lists the same way; the
  // keys this worker lists (bundle keys under bundle_prefix) hold neither.
  static std::string key_of(std::string_view file) {
    file.remove_suffix(kObjectSuffix.size());
    std::string key;
    for (std::size_t i = 0; i < file.size(); ++i) {
      if (file[i] == '_' && i + 1 < file.size() && file[i + 1] == '_') {
        key += ':';
        ++i;
      } else {
        key += file[i];
      }
    }
    return key;
  }

  static constexpr std::string_view kObjectSuffix = ".dat";

  static ObjectInfo info(const std::string& key, const struct stat& st) {
    auto t = std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec));
    return ObjectInfo{key, static_cast<std::uint64_t>(st.st_size), t};
  }

  StorageError file_error(const std::string& key, const base::FileError& e, std::uint64_t max) const {
    const std::string head = "storage backend '" + name_ + "': ";
    switch (e.kind) {
      case base::FileError::Kind::kOpen:
        if (e.err == ENOENT || e.err == ENOTDIR) return {Kind::kNotFound, head + "no object at " + key};
        return {Kind::kIo, head + "opening " + key + ": " + std::strerror(e.err)};
      case base::FileError::Kind::kNotRegular:
        return {Kind::kNotFound, head + "no object at " + key + " (not a regular file)"};
      case base::FileError::Kind::kTooLarge:
        return {Kind::kTooLarge, head + key + " is " + std::to_string(e.size) + " bytes, more than the " +
                                     std::to_string(max) + " read"};
      case base::FileError::Kind::kStat:
      case base::FileError::Kind::kRead:
        break;
    }
    return {Kind::kIo, head + "reading " + key + ": " + std::strerror(e.err)};
  }

  template <class Fill>
  Expected<Ok, StorageError> write(const std::string& key, Fill fill) {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    const std::filesystem::path target = path_of(key);
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) return error(Kind::kIo, name_, "creating the directory of " + key + ": " + ec.message());
    // A sibling temporary file renamed into place, as upstream writes; without the ".dat"
    // suffix it is never read or listed as an object.
    std::string tmp = target.parent_path().string() + "/.tmp-" + target.filename().string() + "-XXXXXX";
    base::Fd fd(::mkostemp(tmp.data(), O_CLOEXEC));
    if (!fd.valid()) return error(Kind::kIo, name_, "writing " + key + ": " + std::strerror(errno));
    auto filled = fill(fd.get());
    if (!filled || ::fchmod(fd.get(), 0644) != 0 || ::rename(tmp.c_str(), target.c_str()) != 0) {
      const std::string why = filled ? std::string(std::strerror(errno)) : filled.error();
      ::unlink(tmp.c_str());
      return error(Kind::kIo, name_, "writing " + key + ": " + why);
    }
    return Ok{};
  }

  std::string name_;
  std::string root_;
};

class MemoryBackend final : public core::StorageBackend {
 public:
  explicit MemoryBackend(std::string name) : name_(std::move(name)) {}

  const std::string& name() const override { return name_; }
  std::string_view type() const override { return "in_memory"; }

  Expected<Ok, StorageError> put(const std::string& key, std::string_view bytes) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    std::lock_guard lock(mu_);
    objects_[key] = Object{std::string(bytes), std::chrono::system_clock::now()};
    return Ok{};
  }

  Expected<Ok, StorageError> put_blob(const std::string& key, const core::Blob& blob) override {
    // A pipe would need a reader thread; a memory backend holds the bytes anyway.
    char path[] = "/tmp/batlehub-memblob-XXXXXX";
    base::Fd fd(::mkostemp(path, O_CLOEXEC));
    if (!fd.valid()) return error(Kind::kIo, name_, "buffering " + key + ": " + std::strerror(errno));
    ::unlink(path);
    auto copied = blob.copy_to(fd.get());
    if (!copied) return error(Kind::kIo, name_, "buffering " + key + ": " + copied.error());
    std::string bytes(blob.size(), '\0');
    if (::pread(fd.get(), bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
      return error(Kind::kIo, name_, "buffering " + key + ": short read");
    }
    return put(key, bytes);
  }

  Expected<std::string, StorageError> get(const std::string& key, std::uint64_t max_bytes) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return error(Kind::kNotFound, name_, "no object at " + key);
    if (it->second.bytes.size() > max_bytes) {
      return error(Kind::kTooLarge, name_,
                   key + " is " + std::to_string(it->second.bytes.size()) + " bytes, more than the " +
                       std::to_string(max_bytes) + " read");
    }
    return it->second.bytes;
  }

  Expected<ObjectInfo, StorageError> head(const std::string& key) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return error(Kind::kNotFound, name_, "no object at " + key);
    return ObjectInfo{key, it->second.bytes.size(), it->second.written};
  }

  Expected<Ok, StorageError> remove(const std::string& key) override {
    if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
    std::lock_guard lock(mu_);
    objects_.erase(key);
    return Ok{};
  }

  Expected<std::vector<ObjectInfo>, StorageError> list(const std::string& prefix) override {
    std::lock_guard lock(mu_);
    std::vector<ObjectInfo> out;
    for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      out.push_back(ObjectInfo{it->first, it->second.bytes.size(), it->second.written});
    }
    return out;
  }

 private:
  struct Object {
    std::string bytes;
    std::chrono::system_clock::time_point written;
  };
  std::string name_;
  std::mutex mu_;
  std::map<std::string, Object> objects_;
};

}  // namespace

std::unique_ptr<core::StorageBackend> filesystem_backend(std::string name, std::string root) {
  return std::make_unique<FilesystemBackend>(std::move(name), std::move(root));
}

std::unique_ptr<core::StorageBackend> memory_backend(std::string name) {
  return std::make_unique<MemoryBackend>(std::move(name));
}

}  // namespace batlehub::adapters
