// Opening and creating paths strictly beneath a directory.
//
// Every lookup walks one component at a time from the root's file descriptor with
// O_NOFOLLOW, so neither a symlink planted in the tree nor a '..' can lead outside it.
// (openat2's RESOLVE_BENEATH would do the same in one call, but only from Linux 5.6; the
// walk works on every kernel a worker may run on.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fd.h"
#include "base/expected.h"

namespace batlehub::agent {

struct PathError {
  int err = 0;  // errno, or 0 when the path itself was refused
  std::string message;
};

// Splits an archive entry's name the way upstream's extractor does: backslashes become
// '/', '.' and empty components are dropped; '..' or a leading '/' refuse the entry.
// An empty result is returned as an empty vector (the caller skips such entries).
Expected<std::vector<std::string>, std::string> normalise_entry_path(std::string_view name);

class WorkDir {
 public:
  // Takes ownership of a directory file descriptor.
  explicit WorkDir(base::Fd root) : root_(std::move(root)) {}
  static Expected<WorkDir, PathError> open(const std::string& path);

  int fd() const { return root_.get(); }

  // Opens (creating as 0755 where missing) the directory at `components` beneath the root.
  Expected<base::Fd, PathError> mkdirs(const std::vector<std::string>& components);
  // Creates a regular file (mode 0644) beneath the root, creating its parents. With
  // `exclusive`, a file already there is an error; otherwise it is replaced in place.
  // A symlink or a directory in its place is always an error.
  Expected<base::Fd, PathError> create_file(const std::vector<std::string>& components, bool exclusive);
  // Whether anything exists at `components` (without following a final symlink).
  bool exists(const std::vector<std::string>& components);
  // Drops the cached parent; call after renaming anything beneath the root.
  void forget() {
    cached_parent_path_.clear();
    cached_parent_.reset();
  }

 private:
  base::Fd root_;
  // The parent directory most recently opened, kept because archives list siblings
  // together; it saves re-walking the same prefix for every file.
  std::vector<std::string> cached_parent_path_;
  base::Fd cached_parent_;
};

}  // namespace batlehub::agent
