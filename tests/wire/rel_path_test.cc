#include "wire/rel_path.h"

#include <gtest/gtest.h>

namespace batlehub::wire {
namespace {

TEST(RelPath, AcceptsPlainRelativePaths) {
  for (const char* p : {"a", "node_modules/left-pad", "vendor/bundle/gems/x-1.0", "site-packages/my_pkg", ".trivy"}) {
    auto r = RelPath::parse(p);
    ASSERT_TRUE(r) << p << ": " << r.error();
    EXPECT_EQ(r->str(), p);
  }
}

TEST(RelPath, SplitsIntoComponents) {
  auto r = RelPath::parse("a/b/c");
  ASSERT_TRUE(r);
  std::vector<std::string_view> want = {"a", "b", "c"};
  EXPECT_EQ(r->components(), want);
}

TEST(RelPath, RefusesTraversalAbsoluteBackslashAndEmpty) {
  struct Case {
    const char* path;
    const char* says;
  };
  for (Case c : std::initializer_list<Case>{{"", "empty"},
                                            {"..", "'..'"},
                                            {"a/../b", "'..'"},
                                            {"../etc/passwd", "'..'"},
                                            {"/etc/passwd", "absolute"},
                                            {"a\\b", "backslash"},
                                            {"..\\..\\evil", "backslash"},
                                            {"a//b", "empty component"},
                                            {"a/", "empty component"},
                                            {"./a", "'.'"},
                                            {"a/./b", "'.'"}}) {
    auto r = RelPath::parse(c.path);
    ASSERT_FALSE(r) << c.path;
    EXPECT_NE(r.error().find(c.says), std::string::npos) << c.path << " -> " << r.error();
  }
}

TEST(RelPath, RefusesNulAndOverlongPaths) {
  EXPECT_FALSE(RelPath::parse(std::string("a\0b", 3)));
  EXPECT_FALSE(RelPath::parse(std::string(1025, 'a')));
  EXPECT_FALSE(RelPath::parse(std::string(256, 'a')));
  EXPECT_TRUE(RelPath::parse(std::string(255, 'a')));
}

}  // namespace
}  // namespace batlehub::wire
