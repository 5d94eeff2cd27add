#include "base/utf8.h"

#include <gtest/gtest.h>

namespace batlehub::agent {
namespace {

TEST(Utf8, KeepsTheLastCharactersNotBytes) {
  std::string s;
  for (int i = 0; i < 3000; ++i) s += "\xC3\xA9";  // é
  std::string t = base::lossy_utf8_tail(s, 2000);
  EXPECT_EQ(t.size(), 4000u);
  EXPECT_EQ(t.substr(0, 2), "\xC3\xA9");
}

TEST(Utf8, ReplacesInvalidSequences) {
  EXPECT_EQ(base::lossy_utf8_tail("a\xff" "b", 10), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(base::lossy_utf8_tail("\xC0\xAF", 10), "\xEF\xBF\xBD\xEF\xBF\xBD");      // overlong
  EXPECT_EQ(base::lossy_utf8_tail("\xED\xA0\x80", 10), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(base::lossy_utf8_tail("\xE2\x82", 10), "\xEF\xBF\xBD\xEF\xBF\xBD");      // truncated
  EXPECT_EQ(base::lossy_utf8_tail("\xF0\x9F\x98\x80", 10), "\xF0\x9F\x98\x80");      // 4-byte ok
}

}  // namespace
}  // namespace batlehub::agent
