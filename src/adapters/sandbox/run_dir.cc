#include "adapters/sandbox/run_dir.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <sstream>
#include <vector>

#include "agent/out_tar.h"
#include "base/file.h"
#include "base/owner.h"
#include "wire/caps.h"

namespace batlehub::adapters {

namespace fs = std::filesystem;
using core::SandboxError;
using Kind = core::SandboxError::Kind;

namespace {
Unexpected<SandboxError> io_error(std::string m) {
  return Unexpected(SandboxError{Kind::kIo, std::move(m)});
}

bool write_file(const std::string& path, std::string_view data, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return false;
  bool ok = true;
  while (!data.empty()) {
    ssize_t w = ::write(fd, data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = false;
      break;
    }
    data.remove_prefix(static_cast<std::size_t>(w));
  }
  return ::close(fd) == 0 && ok;
}
}  // namespace

Expected<TempDir, std::string> TempDir::create(const std::string& parent, const std::string& prefix) {
  std::string tmpl = parent + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr)
    return Unexpected("cannot create a run dir under " + parent + ": " + std::strerror(errno));
  return TempDir(tmpl);
}

Expected<TempDir, std::string> TempDir::create_owned(const std::string& parent, std::string_view what,
                                                     const std::string& label) {
  return create(parent, "batlehub-" + std::string(what) + "-" + std::to_string(::getpid()) + "-" + label);
}

namespace {
// "batlehub-run-1234-yara-Ab12Cd" → 1234.
std::optional<pid_t> run_dir_owner(std::string_view name) {
  for (std::string_view what : {"batlehub-run-", "batlehub-probe-"}) {
    if (!name.starts_with(what)) continue;
    name.remove_prefix(what.size());
    pid_t pid = 0;
    std::size_t i = 0;
    for (; i < name.size() && i < 10 && name[i] >= '0' && name[i] <= '9'; ++i) pid = pid * 10 + (name[i] - '0');
    if (i == 0 || i >= name.size() || name[i] != '-' || pid <= 0) return std::nullopt;
    return pid;
  }
  return std::nullopt;
}
}  // namespace

namespace {

// Mountinfo's mount point field, its octal escapes (\040 for a space…) undone.
std::string unescape_mount_point(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    auto octal = [&](std::size_t k) { return k < field.size() && field[k] >= '0' && field[k] <= '7'; };
    if (field[i] == '\\' && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

// Detaches every mount at or below `dir`, deepest first: a run directory a killed worker
// left can hold one (the docker engine's nosuid,nodev bind of /bundle), and a mount point
// cannot be removed.
void detach_mounts_under(const std::string& dir) {
  std::vector<std::string> points;
  std::istringstream info(base::read_small_file("/proc/self/mountinfo", 4 * 1024 * 1024));
  for (std::string line; std::getline(info, line);) {
    std::istringstream f(line);
    std::string id, parent, devs, root, point;
    if (!(f >> id >> parent >> devs >> root >> point)) continue;
    std::string p = unescape_mount_point(point);
    if (p == dir || p.starts_with(dir + "/")) points.push_back(std::move(p));
  }
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& p : points) ::umount2(p.c_str(), MNT_DETACH);
}

}  // namespace

std::size_t sweep_run_dirs(const std::string& scratch_dir, std::chrono::seconds older_than) {
  std::size_t removed = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(scratch_dir, ec)) {
    const std::string name = e.path().filename().string();
    auto owner = run_dir_owner(name);
    if (!owner || *owner == ::getpid() || !e.is_directory(ec) || e.is_symlink(ec)) continue;
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0) continue;
    // A live owner's run dir is its own however long the run takes (base/owner.h).
    const base::Owner o = base::owner_of_leftover(*owner, st.st_mtim);
    const bool old = ::time(nullptr) - st.st_mtime > static_cast<time_t>(older_than.count());
    if (o == base::Owner::kLive || (o == base::Owner::kUnplaceable && !old)) continue;
    detach_mounts_under(e.path().string());
    std::error_code rm;
    if (fs::remove_all(e.path(), rm) > 0 && !rm) ++removed;
  }
  return removed;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Expected<Ok, SandboxError> write_manifest(const wire::Manifest& m, const std::string& host_dir) {
  if (!write_file(host_dir + "/manifest.json", wire::serialize(m), 0644)) {
    return io_error("writing " + host_dir + "/manifest.json: " + std::strerror(errno));
  }
  return Ok{};
}

Expected<wire::Manifest, SandboxError> write_bundle(const core::RunSpec& spec, const RunDirView& view) {
  const std::string in_dir = view.host + "/.batlehub-in";
  bool made_in_dir = false;
  auto m = core::manifest_for(spec, [&](const core::BundleEntry& e, int n) -> Expected<std::string, SandboxError> {
    if (!made_in_dir) {
      if (::mkdir(in_dir.c_str(), 0755) != 0) return io_error("creating " + in_dir + ": " + std::strerror(errno));
      made_in_dir = true;
    }
    const std::string name = std::to_string(n);
    const std::string host_path = in_dir + "/" + name;
    int fd = ::open(host_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("creating " + host_path + ": " + std::strerror(errno));
    auto copied = e.blob->copy_to(fd);
    ::close(fd);
    if (!copied) return io_error("writing " + host_path + ": " + copied.error());
    return "file://" + view.sandbox + "/.batlehub-in/" + name;
  });
  if (!m) return m;
  if (auto ok = write_manifest(*m, view.host); !ok) return Unexpected(ok.error());
  return m;
}

static Expected<std::string, SandboxError> read_out_tar_file(const std::string& host_dir) {
  std::string path = host_dir + "/out.tar";
  auto file = base::read_regular_file(path, wire::kOutTarMaxBytes, base::OpenOptions{.follow_links = false});
  if (!file) {
    const base::FileError& e = file.error();
    switch (e.kind) {
      case base::FileError::Kind::kOpen:
        if (e.err == ENOENT)
          return Unexpected(SandboxError{Kind::kCrashed, "no result came back", SandboxError::Reason::kNoResult});
        return Unexpected(
            SandboxError{Kind::kCrashed, "out.tar cannot be opened: " + std::string(std::strerror(e.err))});
      case base::FileError::Kind::kStat:
      case base::FileError::Kind::kNotRegular:
        return Unexpected(SandboxError{Kind::kResultInvalid, "out.tar is not a regular file"});
      case base::FileError::Kind::kTooLarge:
        return Unexpected(SandboxError{Kind::kResultInvalid, "out.tar is " + std::to_string(e.size) +
                                                                 " bytes, more than the " +
                                                                 std::to_string(wire::kOutTarMaxBytes) + " allowed"});
      case base::FileError::Kind::kRead:
        return Unexpected(SandboxError{Kind::kResultInvalid, "out.tar was truncated while read"});
    }
  }
  if (file->bytes.size() < file->size_at_open)
    return Unexpected(SandboxError{Kind::kResultInvalid, "out.tar was truncated while read"});
  // Empty: the file a runtime made for the agent to write in place (oci), never written.
  if (file->bytes.empty()) {
    return Unexpected(SandboxError{Kind::kCrashed, "no result came back", SandboxError::Reason::kNoResult});
  }
  return std::move(file->bytes);
}

static Expected<wire::RunResult, SandboxError> parse_out_tar(const std::string& tar, std::string* stdout_bytes) {
  if (tar.size() > wire::kOutTarMaxBytes) {
    return Unexpected(SandboxError{Kind::kResultInvalid, "out.tar is " + std::to_string(tar.size()) +
                                                             " bytes, more than the " +
                                                             std::to_string(wire::kOutTarMaxBytes) + " allowed"});
  }
  auto parts = agent::read_out_tar(tar);
  if (!parts) return Unexpected(SandboxError{Kind::kResultInvalid, parts.error()});
  auto result = wire::parse_result(parts->result_json);
  if (!result) {
    return Unexpected(SandboxError{
        Kind::kResultInvalid, result.error().describe("result.json"),
        result.error().other_version ? SandboxError::Reason::kOtherWireVersion : SandboxError::Reason::kUnspecified});
  }
  if (stdout_bytes) *stdout_bytes = std::move(parts->stdout_bytes);
  return std::move(result).value();
}

Expected<wire::RunResult, SandboxError> read_result(const std::string& host_dir) {
  auto tar = read_out_tar_file(host_dir);
  if (!tar) return Unexpected(tar.error());
  return parse_out_tar(*tar, nullptr);
}

Expected<wire::RunResult, SandboxError> read_result_tar(const std::string& tar) {
  return parse_out_tar(tar, nullptr);
}

Expected<core::RunOutput, SandboxError> collect(const std::string& host_dir, const std::string& program) {
  auto tar = read_out_tar_file(host_dir);
  if (!tar) return Unexpected(tar.error());
  return collect_tar(*tar, program);
}

Expected<core::RunOutput, SandboxError> collect_tar(const std::string& tar, const std::string& program) {
  core::RunOutput out;
  auto r = parse_out_tar(tar, &out.stdout_bytes);
  if (!r) return Unexpected(r.error());
  out.report = std::move(r).value();
  const wire::RunResult& res = out.report;
  out.stderr_tail = res.stderr_tail;
  // Whatever the scanner said after the OOM killer took one of its processes is no answer:
  // a scan whose worker process died half-way may well exit 0 on what it never read.
  if (res.oom_kills > 0) {
    return Unexpected(SandboxError{Kind::kOutOfMemory, "the kernel's OOM killer ended " +
                                                           std::to_string(res.oom_kills) + " process(es) of the " +
                                                           program + " run: it reached its sandbox's memory bound"});
  }
  if (res.failure) {
    using F = wire::FailureKind;
    const std::string& msg = res.failure->message;
    switch (res.failure->kind) {
      case F::kUnrecognised:
        return Unexpected(SandboxError{Kind::kUnsupported, msg});
      case F::kTraversal:
      case F::kTooManyEntries:
      case F::kTooLarge:
      case F::kBomb:
      case F::kMalformed:
      case F::kInputSize:
      case F::kWrite:
        return Unexpected(SandboxError{Kind::kBundleRefused, msg});
      case F::kWireVersion:
        return Unexpected(SandboxError{Kind::kResultInvalid, "the agent speaks another wire version: " + msg});
      case F::kCommandNotFound:
        return Unexpected(SandboxError{Kind::kCrashed, "the scanner is not in its room: " + msg});
      case F::kInternal:
        if (res.ran) break;  // a tree that could not be fully killed still answered
        return Unexpected(SandboxError{Kind::kCrashed, msg});
      default:
        return Unexpected(SandboxError{Kind::kCrashed, msg});
    }
  }
  if (res.timed_out) {
    return Unexpected(SandboxError{Kind::kRunTimeout, program + " ran past its timeout of " +
                                                          std::to_string(res.timings.run_ms) +
                                                          " ms and was killed with its process tree"});
  }
  if (res.stdout_over_cap) {
    return Unexpected(SandboxError{Kind::kResultInvalid,
                                   "scanner output exceeded " + std::to_string(wire::kStdoutCapBytes) + " bytes"});
  }
  if (!res.exit_code) {
    return Unexpected(SandboxError{Kind::kCrashed, program + " was killed by signal " +
                                                       std::to_string(res.signal.value_or(0)) +
                                                       (res.stderr_tail.empty() ? "" : " (" + res.stderr_tail + ")")});
  }
  out.status = *res.exit_code;
  return out;
}

}  // namespace batlehub::adapters
