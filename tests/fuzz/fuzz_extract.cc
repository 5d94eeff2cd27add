// fuzz_extract: extract_memory on hostile bytes, with a containment oracle.
//
// Layout, made once per process under $BATLEHUB_FUZZ_SCRATCH when it is set (fuzz.sh sets
// it), else under /dev/shm, or /tmp when there is no /dev/shm:
//
//   <base>/outside/   a marker directory that must stay empty
//   <base>/run/       made afresh for every extraction and removed after it; the work dir
//
// Each input is extracted three times: with strip_wrapper off, with it on, and with it on
// and `descend` naming data.tar.gz (wire 2: a gem's inner archive, extracted in its place
// under the same budget), so every seed exercises every path, into run/dest under a small
// ExtractPolicy so the fuzzer stays fast. After each extraction, whether it succeeded or not:
//
//   - <base> holds nothing but "run" and "outside", and "outside" is still empty;
//   - run/ holds nothing but "dest" (and the strip step's ".batlehub-strip-dest");
//   - nothing under run/ is a symlink, a device, a fifo or a socket (every entry is
//     lstat'ed, i.e. fstatat(AT_SYMLINK_NOFOLLOW), walking by descriptor so that paths
//     longer than PATH_MAX are walked too);
//   - every regular file has one link (no hardlink was made) and no exec/set-id/sticky
//     bit, and together their lengths stay within what the budget allows: the smaller of
//     max_extracted_bytes and (max_ratio + 1) times the input's size (with `descend`, the
//     one budget covers the member's contents too: the ratio stays against the input);
//   - a successful extraction left run/dest as a directory;
//   - no file descriptor was left open.
//
// Any violation is __builtin_trap(), so libFuzzer saves the input as a crash.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "agent/extract.h"
#include "agent/workdir.h"
#include "wire/extract_policy.h"

namespace {

std::string g_base;     // <base>
std::string g_run;      // <base>/run
std::string g_outside;  // <base>/outside

constexpr batlehub::wire::ExtractPolicy kPolicy{
    .max_entries = 256,
    .max_extracted_bytes = 4 * 1024 * 1024,
    .max_ratio = 200,
};

[[noreturn]] void violation(const std::string& what) {
  std::fprintf(stderr, "fuzz_extract: ORACLE VIOLATION: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

[[noreturn]] void setup_failure(const std::string& what) {
  std::fprintf(stderr, "fuzz_extract: setup: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(2);
}

// The names in a directory (by descriptor; `dirfd` stays open and owned by the caller).
std::vector<std::string> list_fd(int dirfd, const std::string& shown) {
  std::vector<std::string> out;
  int dup = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (d == nullptr) violation("cannot list " + shown + ": " + std::strerror(errno));
  ::rewinddir(d);  // the duplicate shares `dirfd`'s offset, which an earlier listing moved
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(std::move(n));
  }
  ::closedir(d);
  return out;
}

std::set<std::string> list_dir(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) violation("cannot open " + path + ": " + std::strerror(errno));
  auto names = list_fd(fd, path);
  ::close(fd);
  return {names.begin(), names.end()};
}

// The process's open descriptors, each with what it points at ("3 -> /dev/shm/...").
std::set<std::string> open_fds() {
  std::set<std::string> out;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return out;
  int self = ::dirfd(d);
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.' || std::atoi(e->d_name) == self) continue;
    char target[4096];
    ssize_t n = ::readlinkat(self, e->d_name, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    out.insert(std::string(e->d_name) + " -> " + target);
  }
  ::closedir(d);
  return out;
}

std::string mode_string(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(m & 07777));
  return buf;
}

// Checks everything beneath `dirfd` (shown as `shown`); returns the regular files' total size.
std::uint64_t check_tree(int dirfd, const std::string& shown) {
  std::uint64_t total = 0;
  for (const std::string& name : list_fd(dirfd, shown)) {
    std::string path = shown + "/" + name;
    struct stat st{};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      violation("cannot lstat " + path + ": " + std::strerror(errno));
    }
    switch (st.st_mode & S_IFMT) {
      case S_IFDIR: {
        int sub = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) violation("cannot open directory " + path + ": " + std::strerror(errno));
        total += check_tree(sub, path);
        ::close(sub);
        break;
      }
      case S_IFREG:
        if (st.st_nlink != 1) violation("regular file with " + std::to_string(st.st_nlink) + " links at " + path);
        if ((st.st_mode & 07111) != 0) violation("file with mode " + mode_string(st.st_mode) + " at " + path);
        total += static_cast<std::uint64_t>(st.st_size);
        break;
      case S_IFLNK: violation("symlink created at " + path);
      case S_IFIFO: violation("fifo created at " + path);
      case S_IFSOCK: violation("socket created at " + path);
      case S_IFCHR: violation("character device created at " + path);
      case S_IFBLK: violation("block device created at " + path);
      default: violation("unknown file type created at " + path);
    }
  }
  return total;
}

// rm -r of everything beneath `dirfd`, by descriptor.
void empty_dir(int dirfd, const std::string& shown) {
  for (const std::string& name : list_fd(dirfd, shown)) {
    if (::unlinkat(dirfd, name.c_str(), 0) == 0) continue;
    if (errno != EISDIR) setup_failure("unlink " + shown + "/" + name);
    int sub = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) setup_failure("open " + shown + "/" + name);
    ::fchmod(sub, 0755);  // in case something made it unwritable
    empty_dir(sub, shown + "/" + name);
    ::close(sub);
    if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0) setup_failure("rmdir " + shown + "/" + name);
  }
}

void remove_tree(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return;
    setup_failure("open " + path);
  }
  empty_dir(fd, path);
  ::close(fd);
  if (::rmdir(path.c_str()) != 0) setup_failure("rmdir " + path);
}

void cleanup() {
  if (!g_base.empty()) remove_tree(g_base);
}

bool writable_dir(const char* path) {
  struct stat st{};
  return path != nullptr && *path != '\0' && ::stat(path, &st) == 0 && S_ISDIR(st.st_mode) && ::access(path, W_OK) == 0;
}

void setup() {
  // scripts/fuzz.sh points BATLEHUB_FUZZ_SCRATCH at a directory it removes afterwards, so
  // that a crash (which skips atexit) leaves nothing behind.
  const char* scratch = std::getenv("BATLEHUB_FUZZ_SCRATCH");
  std::string parent = writable_dir(scratch) ? scratch : writable_dir("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string tmpl = parent + "/fuzz_extract.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) setup_failure("mkdtemp " + tmpl);
  g_base = buf.data();
  g_run = g_base + "/run";
  g_outside = g_base + "/outside";
  if (::mkdir(g_outside.c_str(), 0755) != 0) setup_failure("mkdir " + g_outside);
  std::atexit(cleanup);
}

void extract_once(std::span<const unsigned char> bytes, bool strip, bool descend) {
  if (::mkdir(g_run.c_str(), 0755) != 0) setup_failure("mkdir " + g_run);
  const std::set<std::string> fds_before = open_fds();
  bool ok = false;
  {
    auto work = batlehub::agent::WorkDir::open(g_run);
    if (!work) violation("cannot open the work dir: " + work.error().message);
    batlehub::agent::ExtractTarget target{&*work, {"dest"}, strip, {}};
    if (descend) target.descend = {"data.tar.gz"};
    auto report = batlehub::agent::extract_memory(bytes, target, kPolicy);
    ok = report.has_value();
  }
  const std::string mode = std::string(strip ? " (strip_wrapper)" : "") + (descend ? " (descend data.tar.gz)" : "");

  for (const auto& fd : open_fds()) {
    if (!fds_before.contains(fd)) violation("file descriptor " + fd + " was left open" + mode);
  }

  std::set<std::string> base = list_dir(g_base);
  for (const auto& n : base) {
    if (n != "run" && n != "outside") violation("'" + n + "' appeared beside the work dir" + mode);
  }
  if (!base.contains("outside")) violation("the 'outside' marker was removed or renamed" + mode);
  std::set<std::string> outside = list_dir(g_outside);
  if (!outside.empty()) violation("'" + *outside.begin() + "' appeared in the 'outside' marker dir" + mode);
  if (!base.contains("run")) violation("the work dir itself was removed or renamed" + mode);

  int run = ::open(g_run.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (run < 0) violation("the work dir is no longer a directory" + mode);
  for (const auto& n : list_fd(run, g_run)) {
    if (n != "dest" && n != ".batlehub-strip-dest") violation("'" + n + "' appeared in the work dir beside dest" + mode);
  }
  if (ok) {
    struct stat st{};
    if (::fstatat(run, "dest", &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
      violation("a successful extraction left no dest directory" + mode);
    }
  }
  // Every byte of a file's length must have been charged to the budget, which stops at
  // max_extracted_bytes and at max_ratio times the input's size.
  const std::uint64_t by_ratio = (kPolicy.max_ratio + 1) * std::max<std::uint64_t>(bytes.size(), 1);
  const std::uint64_t allowed = std::min<std::uint64_t>(kPolicy.max_extracted_bytes, by_ratio);
  std::uint64_t total = check_tree(run, g_run);
  if (total > allowed) {
    violation("files under the work dir add up to " + std::to_string(total) + " bytes, over the " +
              std::to_string(allowed) + " the policy allows for a " + std::to_string(bytes.size()) +
              "-byte input" + mode);
  }
  ::close(run);

  remove_tree(g_run);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const unsigned char> bytes(data, size);
  extract_once(bytes, /*strip=*/false, /*descend=*/false);
  extract_once(bytes, /*strip=*/true, /*descend=*/false);
  extract_once(bytes, /*strip=*/true, /*descend=*/true);
  return 0;
}
