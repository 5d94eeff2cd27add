// RelPath: a path inside the work directory, valid by construction.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"

namespace batlehub::wire {

// A non-empty, relative, '/'-separated path with no '..', no '.', no empty component, no
// backslash and no NUL. It can name nothing outside the directory it is resolved against
// (provided nothing on the way is a symlink, which the agent's resolver also refuses).
class RelPath {
 public:
  static Expected<RelPath, std::string> parse(std::string_view text);

  const std::string& str() const { return path_; }
  std::vector<std::string_view> components() const;
  bool operator==(const RelPath&) const = default;

 private:
  explicit RelPath(std::string p) : path_(std::move(p)) {}
  std::string path_;
};

}  // namespace batlehub::wire
