// The lexer (src/signals/lex.h): a file split into its code and its string literals, so that
// a call is looked for in code and a payload in strings, with the source's offsets and lines.
#include "signals/lex.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace batlehub::signals {
namespace {

std::vector<std::string> values(const Lexed& l) {
  std::vector<std::string> out;
  for (const Literal& lit : l.literals) out.push_back(lit.value);
  return out;
}

// The code must keep every newline where the source has it, and be the source's length, so
// that an offset or a line found in code is the source's.
void expect_same_shape(std::string_view src, const Lexed& l) {
  ASSERT_EQ(l.code.size(), src.size());
  for (std::size_t k = 0; k < src.size(); ++k) {
    EXPECT_EQ(l.code[k] == '\n', src[k] == '\n') << "at offset " << k;
  }
}

// --- Python ---------------------------------------------------------------------------

TEST(Lex, python_single_and_double_quoted_strings_are_literals_at_their_offsets_and_lines) {
  const std::string src = "a = 'one'\nb = \"two\"\n";
  const Lexed l = lex(src, Language::kPython);
  ASSERT_EQ(l.literals.size(), 2u);
  EXPECT_EQ(l.literals[0].value, "one");
  EXPECT_EQ(l.literals[0].begin, 4u);
  EXPECT_EQ(l.literals[0].end, 9u);
  EXPECT_EQ(l.literals[0].line, 1u);
  EXPECT_EQ(l.literals[1].value, "two");
  EXPECT_EQ(l.literals[1].begin, 14u);
  EXPECT_EQ(l.literals[1].end, 19u);
  EXPECT_EQ(l.literals[1].line, 2u);
  // The contents are blanked, the quotes kept.
  EXPECT_EQ(l.code, "a = '   '\nb = \"   \"\n");
}

TEST(Lex, python_triple_quoted_string_spans_lines_and_keeps_its_newlines_in_code) {
  const std::string src = "x = '''a\nb'''\ny = \"\"\"c\"\"\"\nz = 'd'\n";
  const Lexed l = lex(src, Language::kPython);
  EXPECT_EQ(values(l), (std::vector<std::string>{"a\nb", "c", "d"}));
  EXPECT_EQ(l.literals[0].line, 1u);
  EXPECT_EQ(l.literals[0].end, 13u);
  EXPECT_EQ(l.literals[1].line, 3u);
  EXPECT_EQ(l.literals[2].line, 4u);
  EXPECT_EQ(l.code, "x = ''' \n '''\ny = \"\"\" \"\"\"\nz = ' '\n");
}

TEST(Lex, an_empty_python_string_before_more_code_is_not_a_triple_quote) {
  const Lexed l = lex("a = ''\nb = 'x'", Language::kPython);
  EXPECT_EQ(values(l), (std::vector<std::string>{"", "x"}));
}

TEST(Lex, python_string_prefixes_r_b_rb_f_u_start_the_literal_at_the_prefix) {
  const std::string src = R"(r'\x41' b'\x41' rb'\n' f'{x}' u'\x41' Br"\t")";
  const Lexed l = lex(src, Language::kPython);
  // A raw string keeps its backslashes as written; the others decode them.
  EXPECT_EQ(values(l), (std::vector<std::string>{"\\x41", "A", "\\n", "{x}", "A", "\\t"}));
  EXPECT_EQ(l.literals[0].begin, 0u);
  EXPECT_EQ(l.literals[1].begin, 8u);
  EXPECT_EQ(l.literals[2].begin, 16u);
  EXPECT_EQ(l.literals[3].begin, 23u);
  EXPECT_EQ(l.literals[4].begin, 30u);
  EXPECT_EQ(l.literals[5].begin, 38u);
}

TEST(Lex, an_identifier_ending_in_a_prefix_letter_is_not_a_prefix) {
  // `bar` and `self` end in letters that could be prefixes: the string starts at its quote.
  const Lexed l = lex("bar'x' self\"y\"", Language::kPython);
  ASSERT_EQ(l.literals.size(), 2u);
  EXPECT_EQ(l.literals[0].begin, 3u);
  EXPECT_EQ(l.literals[1].begin, 11u);
}

TEST(Lex, python_escapes_decode_hex_unicode_octal_and_line_continuation) {
  const std::string src = "s = '\\x41\\u00e9\\U0001F600\\101\\\nB\\n\\t\\\\\\'\\d'\nt = 'z'\n";
  const Lexed l = lex(src, Language::kPython);
  ASSERT_EQ(l.literals.size(), 2u);
  // \x41 A, \u00e9 é as UTF-8, \U0001F600 as UTF-8, \101 octal A, backslash-newline nothing,
  // \n \t \\ \' decoded, and an unknown escape \d kept as Python keeps it.
  EXPECT_EQ(l.literals[0].value,
            "A\xC3\xA9\xF0\x9F\x98\x80"
            "AB\n\t\\'\\d");
  // The continuation moved to line 2; the next string is on line 3.
  EXPECT_EQ(l.literals[1].line, 3u);
  expect_same_shape(src, l);
}

TEST(Lex, python_hex_escape_is_a_code_point_in_a_str_and_a_byte_in_bytes) {
  const Lexed l = lex(R"('\xe9' b'\xe9' '\351' b'\351')", Language::kPython);
  EXPECT_EQ(values(l), (std::vector<std::string>{"\xC3\xA9", "\xE9", "\xC3\xA9", "\xE9"}));
}

TEST(Lex, python_unicode_escapes_are_not_decoded_in_bytes) {
  const Lexed l = lex(R"(b'\u00e9')", Language::kPython);
  EXPECT_EQ(values(l), (std::vector<std::string>{"\\u00e9"}));
}

TEST(Lex, python_comment_is_blanked_and_its_quotes_open_no_string) {
  const std::string src = "x = 1  # it's 'quoted'\ny = 'z'\n";
  const Lexed l = lex(src, Language::kPython);
  ASSERT_EQ(l.literals.size(), 1u);
  EXPECT_EQ(l.literals[0].value, "z");
  EXPECT_EQ(l.literals[0].line, 2u);
  EXPECT_EQ(l.code, "x = 1                 \ny = ' '\n");
}

TEST(Lex, python_code_keeps_every_newline_and_the_source_length) {
  const std::string src =
      "import os  # a comment\n"
      "s = '''one\ntwo''' + r'\\d' + \"\\x41\\\n\"\n"
      "t = f\"{s!r}\"  # 'x'\n";
  const Lexed l = lex(src, Language::kPython);
  expect_same_shape(src, l);
  EXPECT_EQ(values(l), (std::vector<std::string>{"one\ntwo", "\\d", "A", "{s!r}"}));
}

TEST(Lex, an_unterminated_python_string_ends_at_its_line) {
  const std::string src = "a = 'open\nb = 1\n";
  const Lexed l = lex(src, Language::kPython);
  ASSERT_EQ(l.literals.size(), 1u);
  EXPECT_EQ(l.literals[0].value, "open");
  EXPECT_EQ(l.literals[0].end, 9u);  // at the newline, which stays in code
  EXPECT_EQ(l.code, "a = '    \nb = 1\n");
}

TEST(Lex, a_string_after_an_unterminated_one_line_string_has_its_own_line) {
  const Lexed py = lex("a = 'open\nb = 'x'\n", Language::kPython);
  ASSERT_EQ(py.literals.size(), 2u);
  EXPECT_EQ(py.literals[1].line, 2u);
  const Lexed js = lex("a = 'open\nb = 'x'\n", Language::kJavaScript);
  ASSERT_EQ(js.literals.size(), 2u);
  EXPECT_EQ(js.literals[1].line, 2u);
}

TEST(Lex, an_unterminated_triple_quoted_string_ends_at_the_end_of_the_file) {
  const std::string src = "x = '''abc\ndef";
  const Lexed l = lex(src, Language::kPython);
  ASSERT_EQ(l.literals.size(), 1u);
  EXPECT_EQ(l.literals[0].value, "abc\ndef");
  EXPECT_EQ(l.literals[0].end, src.size());
  expect_same_shape(src, l);
}

TEST(Lex, a_trailing_backslash_at_the_end_of_the_file_is_kept_and_read_past_nothing) {
  const Lexed l = lex("'abc\\", Language::kPython);
  ASSERT_EQ(l.literals.size(), 1u);
  EXPECT_EQ(l.literals[0].value, "abc\\");
  EXPECT_EQ(l.literals[0].end, 5u);
}

// --- JavaScript -----------------------------------------------------------------------

TEST(Lex, javascript_single_double_and_backtick_strings_are_literals) {
  const std::string src = "a='x';b=\"y\";c=`z\nw`;d='v'";
  const Lexed l = lex(src, Language::kJavaScript);
  EXPECT_EQ(values(l), (std::vector<std::string>{"x", "y", "z\nw", "v"}));
  EXPECT_EQ(l.literals[2].begin, 14u);
  EXPECT_EQ(l.literals[2].end, 19u);
  EXPECT_EQ(l.literals[3].line, 2u);  // a template literal spans lines
  EXPECT_EQ(l.code, "a=' ';b=\" \";c=` \n `;d=' '");
}

TEST(Lex, javascript_line_and_block_comments_are_blanked_and_open_no_string) {
  const std::string src = "// 'a'\n/* \"b\"\n*/ c = 'd'";
  const Lexed l = lex(src, Language::kJavaScript);
  ASSERT_EQ(l.literals.size(), 1u);
  EXPECT_EQ(l.literals[0].value, "d");
  EXPECT_EQ(l.literals[0].line, 3u);
  EXPECT_EQ(l.code, "      \n      \n   c = ' '");
}

TEST(Lex, javascript_escapes_decode_hex_unicode_and_braced_code_points) {
  const Lexed l = lex(R"('\x41\u00e9\u{1F600}\d\'\n')", Language::kJavaScript);
  // JavaScript keeps an unknown escape's character without its backslash.
  EXPECT_EQ(values(l), (std::vector<std::string>{"A\xC3\xA9\xF0\x9F\x98\x80"
                                                 "d'\n"}));
}

TEST(Lex, javascript_regex_literal_containing_a_quote_does_not_open_a_string) {
  const std::string src = "if (/'/.test(x)) y = 'ok';";
  const Lexed l = lex(src, Language::kJavaScript);
  EXPECT_EQ(values(l), (std::vector<std::string>{"ok"}));
  // The regular expression is code, left as written.
  EXPECT_EQ(l.code, "if (/'/.test(x)) y = '  ';");
}

TEST(Lex, javascript_regex_with_a_slash_in_a_class_and_flags_is_skipped_whole) {
  const Lexed l = lex("s.replace(/[/\"]/g, \"-\")", Language::kJavaScript);
  EXPECT_EQ(values(l), (std::vector<std::string>{"-"}));
}

TEST(Lex, javascript_division_is_not_a_regex) {
  // Read as a regular expression, "/ 2, y = 'q' /" would swallow the string.
  const Lexed l = lex("x = a / 2, y = 'q' / 3; z = (b) / 4 + 'r' / 5", Language::kJavaScript);
  EXPECT_EQ(values(l), (std::vector<std::string>{"q", "r"}));
}

TEST(Lex, javascript_regex_after_return_is_a_regex) {
  const Lexed l = lex("function f(){ return /\"/.test(s) ? 'a' : 'b' }", Language::kJavaScript);
  EXPECT_EQ(values(l), (std::vector<std::string>{"a", "b"}));
}

TEST(Lex, an_unterminated_javascript_string_ends_at_its_line_and_a_template_at_the_end_of_the_file) {
  const std::string src = "a = \"open\nb = `t\nu";
  const Lexed l = lex(src, Language::kJavaScript);
  ASSERT_EQ(l.literals.size(), 2u);
  EXPECT_EQ(l.literals[0].value, "open");
  EXPECT_EQ(l.literals[0].end, 9u);
  EXPECT_EQ(l.literals[1].value, "t\nu");
  EXPECT_EQ(l.literals[1].end, src.size());
  expect_same_shape(src, l);
}

TEST(Lex, javascript_code_keeps_every_newline_and_the_source_length) {
  const std::string src = "/* a\n b */ const s = `x\n${y}` // c\n+ '\\\n' + /re\\/'/g;\n";
  expect_same_shape(src, lex(src, Language::kJavaScript));
}

// --- line_at, matching_close ------------------------------------------------------------

TEST(Lex, line_at_counts_the_newlines_before_the_offset) {
  EXPECT_EQ(line_at("a\nb\nc", 0), 1u);
  EXPECT_EQ(line_at("a\nb\nc", 1), 1u);  // the newline itself is on its line
  EXPECT_EQ(line_at("a\nb\nc", 2), 2u);
  EXPECT_EQ(line_at("a\nb\nc", 4), 3u);
  EXPECT_EQ(line_at("a\nb\nc", 1000), 3u);  // past the end: the last line
}

TEST(Lex, matching_close_skips_nested_brackets_and_a_string_s_parentheses) {
  const Lexed l = lex("f(a, g(b), ')', [c]) + 1", Language::kPython);
  EXPECT_EQ(matching_close(l.code, 1), 20u);   // just past the ')' that closes f(
  EXPECT_EQ(matching_close(l.code, 6), 9u);    // g(b)
  EXPECT_EQ(matching_close(l.code, 16), 19u);  // [c]
}

TEST(Lex, matching_close_of_a_parenthesis_never_closed_is_the_end) {
  EXPECT_EQ(matching_close("f(a, (b)", 1), 8u);
  EXPECT_EQ(matching_close("(", 0), 1u);
}

}  // namespace
}  // namespace batlehub::signals
