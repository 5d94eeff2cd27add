// Look-alike letters as Python reads them (src/signals/disguise.h), checked against what
// CPython's unicodedata.normalize("NFKC", …) gives for each range's first and last letter.
#include "signals/disguise.h"

#include <gtest/gtest.h>

namespace batlehub::signals {
namespace {

TEST(Disguise, each_range_maps_as_nfkc_does) {
  EXPECT_EQ(ascii_of(0x1D400), "A");  // MATHEMATICAL BOLD CAPITAL A
  EXPECT_EQ(ascii_of(0x1D41A), "a");  // MATHEMATICAL BOLD SMALL A
  EXPECT_EQ(ascii_of(0x1D4CD), "x");  // MATHEMATICAL SCRIPT SMALL X
  EXPECT_EQ(ascii_of(0x1D4B8), "c");  // MATHEMATICAL SCRIPT SMALL C
  EXPECT_EQ(ascii_of(0x1D6A3), "z");  // MATHEMATICAL MONOSPACE SMALL Z, the last letter
  EXPECT_EQ(ascii_of(0x1D7CE), "0");  // MATHEMATICAL BOLD DIGIT ZERO
  EXPECT_EQ(ascii_of(0x1D7FF), "9");  // MATHEMATICAL MONOSPACE DIGIT NINE
  EXPECT_EQ(ascii_of(0x212F), "e");   // SCRIPT SMALL E
  EXPECT_EQ(ascii_of(0x210E), "h");   // PLANCK CONSTANT
  EXPECT_EQ(ascii_of(0xFF21), "A");   // FULLWIDTH LATIN CAPITAL LETTER A
  EXPECT_EQ(ascii_of(0xFF5A), "z");   // FULLWIDTH LATIN SMALL LETTER Z
  EXPECT_EQ(ascii_of(0xFF3F), "_");   // FULLWIDTH LOW LINE
  EXPECT_EQ(ascii_of(0xFB01), "fi");  // LATIN SMALL LIGATURE FI
  EXPECT_EQ(ascii_of(0x017F), "s");   // LATIN SMALL LETTER LONG S
}

TEST(Disguise, greek_cyrillic_and_ascii_are_not_look_alikes) {
  EXPECT_EQ(ascii_of(0x03B1), "");   // GREEK SMALL LETTER ALPHA: a letter of its own to Python
  EXPECT_EQ(ascii_of(0x0435), "");   // CYRILLIC SMALL LETTER IE
  EXPECT_EQ(ascii_of(0x1D6A4), "");  // MATHEMATICAL ITALIC SMALL DOTLESS I: NFKC gives U+0131
  EXPECT_EQ(ascii_of('e'), "");
}

TEST(Disguise, a_name_in_code_is_mapped_and_named_with_its_place_and_its_writing) {
  const std::string src = "x = 1\n\u212f\U0001D4CD\u212f\U0001D4B8(p)\n";
  auto u = undisguise(src, src);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->text, "x = 1\nexec(p)\n");
  ASSERT_EQ(u->names.size(), 1U);
  EXPECT_EQ(u->names[0].name, "exec");
  EXPECT_EQ(u->names[0].offset, 6U);
  EXPECT_EQ(u->names[0].written, "\u212f\U0001D4CD\u212f\U0001D4B8");
}

TEST(Disguise, a_half_disguised_name_is_one_name_and_two_are_two) {
  const std::string src = "ex\u212F\U0001D4B8(a); \uFF45val(b)\n";
  auto u = undisguise(src, src);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->text, "exec(a); eval(b)\n");
  ASSERT_EQ(u->names.size(), 2U);
  EXPECT_EQ(u->names[0].name, "exec");
  EXPECT_EQ(u->names[1].name, "eval");
}

TEST(Disguise, nothing_to_map_or_bytes_that_are_no_utf8_give_nothing) {
  EXPECT_FALSE(undisguise("exec(p)\n", "exec(p)\n"));
  const std::string broken = "x = \xF0\x9D\x93\n\xFF";  // a cut sequence, a byte no UTF-8 has
  EXPECT_FALSE(undisguise(broken, broken));
  EXPECT_FALSE(undisguise("ab", "abc"));  // code and source of different lengths: not a pair
}

TEST(Disguise, only_the_code_is_read_and_the_text_keeps_every_other_byte) {
  // The literal is blanked in the code view (as lex() blanks it): its letters stay as written.
  const std::string src = "s = '\u212F'; \u212Fx = 2\n";
  std::string code = src;
  for (std::size_t k = 5; k < 8; ++k) code[k] = ' ';
  auto u = undisguise(src, code);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->text, "s = '\u212F'; ex = 2\n");
  ASSERT_EQ(u->names.size(), 1U);
  EXPECT_EQ(u->names[0].name, "ex");
}

}  // namespace
}  // namespace batlehub::signals
