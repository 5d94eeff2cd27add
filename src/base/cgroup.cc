#include "base/cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "base/file.h"

namespace batlehub::base::cgroup {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

template <class F>
void for_each_line(std::string_view text, F f) {
  std::size_t n = 0;
  for (std::string_view line : split(text, '\n')) {
    if (++n > kMaxLines) return;
    if (!line.empty()) f(line);
  }
}

}  // namespace

std::string unescape_mount_field(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

namespace {

bool contains(const std::vector<std::string>& v, std::string_view x) {
  for (const auto& s : v) {
    if (s == x) return true;
  }
  return false;
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

// `path` below `root`, or nullopt when the process's cgroup is not under the mount's root
// (a bind of another cgroup: that mount does not show the process's own).
std::optional<std::string> below(const std::string& path, const std::string& root) {
  if (root == "/") return path == "/" ? std::string() : path;
  if (path == root) return std::string();
  if (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/') {
    return path.substr(root.size());
  }
  return std::nullopt;
}

}  // namespace

std::vector<Membership> parse_proc_cgroup(std::string_view text) {
  std::vector<Membership> out;
  for_each_line(text, [&](std::string_view line) {
    auto c1 = line.find(':');
    auto c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) return;
    Membership m;
    std::string_view id = line.substr(0, c1);
    if (std::from_chars(id.data(), id.data() + id.size(), m.hierarchy).ec != std::errc()) return;
    std::string_view ctl = line.substr(c1 + 1, c2 - c1 - 1);
    if (!ctl.empty()) {
      for (std::string_view c : split(ctl, ',')) m.controllers.emplace_back(c);
    }
    m.path = std::string(line.substr(c2 + 1));
    out.push_back(std::move(m));
  });
  return out;
}

std::vector<Mount> parse_mountinfo(std::string_view text) {
  std::vector<Mount> out;
  for_each_line(text, [&](std::string_view line) {
    // id parent major:minor root mount-point options [optional…] - fstype source super-options
    auto sep = line.find(" - ");
    if (sep == std::string_view::npos) return;
    auto left = split(line.substr(0, sep), ' ');
    auto right = split(line.substr(sep + 3), ' ');
    if (left.size() < 5 || right.size() < 3) return;
    Mount m;
    if (right[0] == "cgroup2") {
      m.version = Version::kV2;
    } else if (right[0] == "cgroup") {
      m.version = Version::kV1;
      for (std::string_view o : split(right[2], ',')) {
        if (o == "rw" || o == "ro" || o.empty()) continue;
        m.controllers.emplace_back(o);
      }
    } else {
      return;
    }
    m.root = unescape_mount_field(left[3]);
    m.mount_point = unescape_mount_field(left[4]);
    out.push_back(std::move(m));
  });
  return out;
}

std::optional<Located> locate(std::string_view controller, const std::vector<Membership>& memberships,
                              const std::vector<Mount>& mounts) {
  // v1 first: on a hybrid host a controller bound to a v1 hierarchy is absent from v2.
  for (const Membership& mb : memberships) {
    if (mb.hierarchy == 0 || !contains(mb.controllers, controller)) continue;
    // The last mount at a place is the one that is seen: walk them newest first.
    for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) {
      const Mount& mt = *it;
      if (mt.version != Version::kV1 || !contains(mt.controllers, controller)) continue;
      if (auto rest = below(mb.path, mt.root)) return Located{Version::kV1, mt.mount_point + *rest, mt.mount_point, mb.path};
    }
  }
  for (const Membership& mb : memberships) {
    if (mb.hierarchy != 0 || !mb.controllers.empty()) continue;
    for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) {
      const Mount& mt = *it;
      if (mt.version != Version::kV2) continue;
      auto rest = below(mb.path, mt.root);
      if (!rest) continue;
      std::string dir = mt.mount_point + *rest;
      // A v2 controller is on for a cgroup when its parent enabled it: its files are there.
      if (exists(dir + "/" + std::string(limit_file(controller, Version::kV2)))) {
        return Located{Version::kV2, dir, mt.mount_point, mb.path};
      }
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_limit(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "max" || text.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
    // v1 writes -1 for an unlimited cpu.cfs_quota_us.
    return std::nullopt;
  }
  if (v >= (std::uint64_t{1} << 62)) return std::nullopt;
  return v;
}

std::string_view limit_file(std::string_view controller, Version v) {
  if (controller == "memory") return v == Version::kV2 ? "memory.max" : "memory.limit_in_bytes";
  if (controller == "pids") return "pids.max";
  if (controller == "cpu") return v == Version::kV2 ? "cpu.max" : "cpu.cfs_quota_us";
  return "";
}

std::optional<Bound> tightest(const Located& l, std::string_view file) {
  std::optional<Bound> best;
  std::string dir = l.dir;
  for (int depth = 0; depth < 64; ++depth) {
    std::string p = dir + "/" + std::string(file);
    if (auto v = parse_limit(base::read_small_file(p, 64)); v && (!best || *v < best->value)) best = Bound{*v, p};
    if (dir.size() <= l.mount_point.size()) break;
    auto slash = dir.rfind('/');
    if (slash == std::string::npos || slash < l.mount_point.size()) break;
    dir.resize(slash);
  }
  return best;
}

std::uint64_t oom_kills(const std::string& memory_dir, Version v) {
  std::string text = base::read_small_file(memory_dir + (v == Version::kV2 ? "/memory.events" : "/memory.oom_control"));
  std::uint64_t n = 0;
  for_each_line(text, [&](std::string_view line) {
    constexpr std::string_view kKey = "oom_kill ";
    if (line.starts_with(kKey)) {
      std::string_view num = line.substr(kKey.size());
      std::from_chars(num.data(), num.data() + num.size(), n);
    }
  });
  return n;
}

std::optional<Located> locate_self(std::string_view controller) {
  return locate(controller, parse_proc_cgroup(base::read_small_file("/proc/self/cgroup")),
                parse_mountinfo(base::read_small_file("/proc/self/mountinfo", 1024 * 1024)));
}

}  // namespace batlehub::base::cgroup
