#include "agent/landlock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace batlehub::agent::landlock {

namespace {

// The kernel's ABI, written out here rather than taken from <linux/landlock.h>: Debian 12's
// headers are 6.1's, which stop at ABI 3, and the agent must use what the running kernel
// offers (the network rights of ABI 4, the device ioctls of ABI 5, the scopes of ABI 6).
// Values from the kernel's include/uapi/linux/landlock.h; they are ABI and never change.
constexpr std::uint64_t kExecute = 1ULL << 0;
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kReadFile = 1ULL << 2;
constexpr std::uint64_t kReadDir = 1ULL << 3;
constexpr std::uint64_t kRemoveDir = 1ULL << 4;
constexpr std::uint64_t kRemoveFile = 1ULL << 5;
constexpr std::uint64_t kMakeChar = 1ULL << 6;
constexpr std::uint64_t kMakeDir = 1ULL << 7;
constexpr std::uint64_t kMakeReg = 1ULL << 8;
constexpr std::uint64_t kMakeSock = 1ULL << 9;
constexpr std::uint64_t kMakeFifo = 1ULL << 10;
constexpr std::uint64_t kMakeBlock = 1ULL << 11;
constexpr std::uint64_t kMakeSym = 1ULL << 12;
constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;  // ABI 5

constexpr std::uint64_t kNetBindTcp = 1ULL << 0;     // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;  // ABI 4

constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6

constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

// The rights a file (not a directory) may be given in a rule.
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

std::uint64_t handled_fs(int abi) {
  std::uint64_t all = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir |
                      kMakeReg | kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) all |= kRefer;
  if (abi >= 3) all |= kTruncate;
  if (abi >= 5) all |= kIoctlDev;
  return all;
}

constexpr std::uint64_t kRead = kReadFile | kReadDir;
constexpr std::uint64_t kReadExec = kRead | kExecute;
// Everything in a work dir but executing and making devices: what is extracted there is
// never run, and the seccomp filter refuses device nodes as well.
constexpr std::uint64_t kReadWrite = kRead | kWriteFile | kRemoveDir | kRemoveFile | kMakeDir | kMakeReg | kMakeSock |
                                     kMakeFifo | kMakeSym | kRefer | kTruncate;

// The mount id of a path, not following a final symlink; 0 when statx cannot say.
std::uint64_t mount_id(int dirfd, const char* path) {
  struct statx sx {};
  if (::statx(dirfd, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) != 0) return 0;
  if ((sx.stx_mask & STATX_MNT_ID) == 0) return 0;
  return sx.stx_mnt_id;
}

std::string errno_text(int e) {
  const char* n = strerrorname_np(e);
  return n != nullptr ? std::string(n) : "errno " + std::to_string(e);
}

class Builder {
 public:
  Builder(int fd, int abi) : fd_(fd), handled_(handled_fs(abi)) {}

  // Adds `access` (less what this ABI does not handle) beneath `path`. A path that is not
  // there is skipped: /tmp or /dev may be absent from a room, and then nothing is granted.
  Expected<bool, std::string> add(const std::string& path, std::uint64_t access, std::vector<Rule>& out) {
    base::Fd at(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!at.valid()) {
      if (errno == ENOENT) return false;
      return Unexpected("landlock: opening " + path + ": " + errno_text(errno));
    }
    struct stat st {};
    if (::fstat(at.get(), &st) != 0) return Unexpected("landlock: fstat " + path + ": " + errno_text(errno));
    std::uint64_t allowed = access & handled_;
    if (!S_ISDIR(st.st_mode)) allowed &= kFileRights;
    if (allowed == 0) return false;
    PathBeneathAttr attr{allowed, at.get()};
    if (::syscall(SYS_landlock_add_rule, fd_, kRulePathBeneath, &attr, 0) != 0) {
      return Unexpected("landlock: add_rule " + path + " (" + rights_name(allowed) + "): " + errno_text(errno));
    }
    out.push_back(Rule{path, allowed});
    return true;
  }

 private:
  int fd_;
  std::uint64_t handled_;
};

}  // namespace

Support query() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi < 0) return Support{0, errno};
  return Support{static_cast<int>(abi), 0};
}

std::string rights_name(std::uint64_t a) {
  std::string out;
  auto add = [&](std::uint64_t bits, const char* name) {
    if ((a & bits) == 0) return;
    if (!out.empty()) out += "+";
    out += name;
  };
  add(kReadFile | kReadDir, "read");
  add(kExecute, "exec");
  add(kWriteFile | kTruncate | kMakeReg | kMakeDir | kMakeSym | kMakeSock | kMakeFifo | kRemoveDir | kRemoveFile |
          kRefer,
      "write");
  add(kIoctlDev, "ioctl");
  return out.empty() ? "nothing" : out;
}

std::string Ruleset::describe() const {
  if (!fd.valid()) return "no ruleset: " + what_is_lost();
  std::string out = "ABI " + std::to_string(support.abi) + ":";
  std::string last;
  for (const Rule& r : rules) {
    const std::string rights = rights_name(r.access);
    out += (rights == last ? ", " : (last.empty() ? " " : "; ") + rights + " ") + r.path;
    last = rights;
  }
  if (!also_denied.empty()) {
    out += "; denied:";
    for (std::size_t i = 0; i < also_denied.size(); ++i) out += (i ? ", " : " ") + also_denied[i];
  }
  return out;
}

std::string what_is_lost() {
  return "the scanner may write wherever the runtime mounted something writable, read every mount it sees, and "
         "connect TCP wherever the sandbox's network reaches; the agent's undumpable flag and the seccomp filter "
         "still keep it out of the agent";
}

Expected<Ruleset, std::string> build(const std::string& work_dir, RootIs root) {
  Ruleset rs;
  rs.root = root;
  rs.support = query();
  if (rs.support.abi <= 0) return rs;
  const int abi = rs.support.abi;
  RulesetAttr attr{handled_fs(abi), 0, 0};
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    rs.also_denied.emplace_back("tcp bind/connect");
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    rs.also_denied.emplace_back("abstract unix sockets and signals outside the scanner's domain");
  }
  // The whole struct whatever the ABI: a kernel that knows fewer fields accepts the rest as
  // long as they are zero (copy_struct_from_user).
  rs.fd.reset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0)));
  if (!rs.fd.valid())
    return Unexpected("landlock: create_ruleset (ABI " + std::to_string(abi) + "): " + errno_text(errno));
  Builder b(rs.fd.get(), abi);
  auto add = [&](const std::string& path, std::uint64_t access) -> Expected<bool, std::string> {
    return b.add(path, access, rs.rules);
  };
  if (root == RootIs::kHost) {
    if (auto r = add("/", kReadExec); !r) return Unexpected(r.error());
  } else {
    // The room: every entry at the top of "/" that is on the root's own mount. A mount of the
    // runtime's or the engine's on top of the room (the bundle, /sys, a volume) is not the
    // room's, and gets nothing unless named below. "/" itself gets nothing, since a right on
    // it would reach every mount beneath it.
    const std::uint64_t root_mount = mount_id(AT_FDCWD, "/");
    if (root_mount == 0) return Unexpected("landlock: statx / (STATX_MNT_ID): " + errno_text(errno));
    DIR* d = ::opendir("/");
    if (d == nullptr) return Unexpected("landlock: opendir /: " + errno_text(errno));
    std::vector<std::string> entries;
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (mount_id(dirfd(d), e->d_name) != root_mount) continue;
      entries.push_back("/" + name);
      if (entries.size() > 4096) break;  // a room's top level is a few dozen entries
    }
    ::closedir(d);
    std::sort(entries.begin(), entries.end());
    for (const std::string& p : entries) {
      if (p == work_dir || p == "/tmp") continue;  // granted below, with more
      if (auto r = add(p, kReadExec); !r) return Unexpected(r.error());
    }
    // The kernel's views a program reads for itself (/proc/self, /dev/urandom).
    if (auto r = add("/proc", kRead); !r) return Unexpected(r.error());
    if (auto r = add("/dev", kRead | kIoctlDev); !r) return Unexpected(r.error());
  }
  if (auto r = add("/dev/null", kReadFile | kWriteFile | kTruncate); !r) return Unexpected(r.error());
  if (auto r = add(work_dir, kReadWrite); !r) return Unexpected(r.error());
  if (work_dir != "/tmp") {
    if (auto r = add("/tmp", kReadWrite); !r) return Unexpected(r.error());
  }
  return rs;
}

}  // namespace batlehub::agent::landlock
