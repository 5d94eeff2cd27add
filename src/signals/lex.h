// A package's source file split into its code and its string literals, so that a signal
// looks for calls in code (never inside a string) and for commands, paths and payloads in
// strings (never in code). Python and JavaScript only: the two languages whose packages run
// code at install and at import.
//
// Not a parser: a lexer that knows each language's quotes, escapes and comments, which is
// all that separating code from strings needs. A full parser (CPython's ast, a JavaScript
// engine) would mean an interpreter inside the room and a grammar per language version;
// hostile files are often not valid code at all (a truncated payload, a template), and a
// lexer reads those as well as valid ones. It is linear in the file, allocates at most a
// copy of the file plus the literals' decoded bytes, and never fails: an unterminated
// string ends at the end of the file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::signals {

enum class Language { kPython, kJavaScript };

struct Literal {
  std::string value;      // the string's bytes, escapes decoded (a raw string's as written)
  std::size_t begin = 0;  // offset of its opening quote in the source (and in Lexed::code)
  std::size_t end = 0;    // offset just past its closing quote
  std::size_t line = 1;   // 1-based line of the opening quote
};

struct Lexed {
  // The source with every literal's contents and every comment replaced by spaces (newlines
  // kept, quotes kept), so offsets and lines are the source's and a call's parentheses can
  // be matched without a string's parentheses getting in the way.
  std::string code;
  std::vector<Literal> literals;  // in source order
};

Lexed lex(std::string_view source, Language lang);

// The 1-based line of `offset` in `text`.
std::size_t line_at(std::string_view text, std::size_t offset);

// The first of `lexed`'s literals (in source order) whose opening quote is at or after `at`.
std::vector<Literal>::const_iterator literal_from(const Lexed& lexed, std::size_t at);

// Offset just past the parenthesis that closes the one at `open` in `code` (a Lexed::code),
// or code.size() when it never closes. `open` must index a '(' or '['.
std::size_t matching_close(std::string_view code, std::size_t open);

}  // namespace batlehub::signals
