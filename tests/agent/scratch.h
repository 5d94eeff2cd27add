// A scratch tree for tests: root/a/b/work is the work dir, and everything else under root
// must stay exactly as it was — which is how "nothing written outside" is asserted.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace batlehub::testing {

namespace fs = std::filesystem;

// The whole file, or what could be read of it ("" when it cannot be opened): read(2), not an
// ifstream, since the /proc files of a process that exits while they are read fail with
// ESRCH, which libstdc++'s filebuf throws ("underflow error reading the file: No such
// process", seen in a fault test).
inline std::string read_what_is_there(const fs::path& p) {
  std::string out;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

class Scratch {
 public:
  explicit Scratch(const char* base = "/tmp") {
    std::string tmpl = std::string(base) + "/batlehub-test-XXXXXX";
    root_ = ::mkdtemp(tmpl.data());
    // Traversable by the sandbox user (65532), which the bwrap runtime runs as under root.
    fs::permissions(root_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
    fs::create_directories(work());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  fs::path root() const { return root_; }
  fs::path work() const { return root_ / "a" / "b" / "work"; }

  // Every path under root that is not the work dir, its ancestors, or inside it; plus any
  // symlink, device, fifo or socket anywhere.
  std::vector<std::string> strays() const {
    std::vector<std::string> out;
    fs::path w = work();
    for (auto it = fs::recursive_directory_iterator(root_); it != fs::recursive_directory_iterator(); ++it) {
      const fs::path& p = it->path();
      auto st = it->symlink_status();
      if (fs::is_symlink(st) || fs::is_block_file(st) || fs::is_character_file(st) || fs::is_fifo(st) || fs::is_socket(st)) {
        out.push_back("special file " + p.string());
      }
      std::string ps = p.string();
      bool inside = ps == w.string() || ps.starts_with(w.string() + "/");
      bool ancestor = p == root_ / "a" || p == root_ / "a" / "b";
      if (!inside && !ancestor) out.push_back("outside the work dir: " + ps);
    }
    // A traversal that got out of root entirely would land beside it.
    for (const char* n : {"escape", "zipslip", "escape-from-inside", "evil"}) {
      if (fs::exists(root_.parent_path() / n)) out.push_back("beside the scratch root: " + std::string(n));
    }
    return out;
  }

  static std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  static void write(const fs::path& p, std::string_view data) {
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
  }

 private:
  fs::path root_;
};

}  // namespace batlehub::testing
