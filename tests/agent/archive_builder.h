// Builds archives in memory for tests, hostile ones included.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace batlehub::testing {

struct TestEntry {
  std::string name;
  std::string data;
  mode_t type = 0100000;  // AE_IFREG
  mode_t perm = 0644;
  std::string link;  // symlink target, or hardlink target when `hardlink`
  bool hardlink = false;
  std::optional<std::int64_t> declared_size;  // a header that lies (tar only)
};

inline TestEntry file(std::string name, std::string data, mode_t perm = 0644) {
  return TestEntry{std::move(name), std::move(data), 0100000, perm, "", false, std::nullopt};
}
inline TestEntry dir(std::string name) { return TestEntry{std::move(name), "", 0040000, 0755, "", false, std::nullopt}; }
inline TestEntry symlink(std::string name, std::string target) {
  return TestEntry{std::move(name), "", 0120000, 0777, std::move(target), false, std::nullopt};
}
inline TestEntry hardlink(std::string name, std::string target) {
  return TestEntry{std::move(name), "", 0100000, 0644, std::move(target), true, std::nullopt};
}

enum class Kind { kTar, kTarGz, kTarXz, kTarBz2, kZip };

std::string make_archive(Kind kind, const std::vector<TestEntry>& entries);
inline std::string make_tar(const std::vector<TestEntry>& e) { return make_archive(Kind::kTar, e); }
inline std::string make_tgz(const std::vector<TestEntry>& e) { return make_archive(Kind::kTarGz, e); }
inline std::string make_zip(const std::vector<TestEntry>& e) { return make_archive(Kind::kZip, e); }

}  // namespace batlehub::testing
