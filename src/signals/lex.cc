#include "signals/lex.h"

#include "signals/ascii.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace batlehub::signals {

namespace {

void put_utf8(std::string& out, std::uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool ident_char(char c) {
  return name_char(c) || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

class Lexer {
 public:
  Lexer(std::string_view src, Language lang) : s_(src), lang_(lang) { out_.code.assign(src.begin(), src.end()); }

  Lexed run() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        continue;
      }
      if (lang_ == Language::kPython) {
        if (c == '#') {
          comment_to_eol();
          continue;
        }
        if (c == '\'' || c == '"') {
          python_string(i_, i_, false, false);
          continue;
        }
        if (std::size_t q = python_prefix(); q != 0) {
          python_string(i_, i_ + q, raw_prefix(q), bytes_prefix(q));
          continue;
        }
      } else {
        if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
          comment_to_eol();
          continue;
        }
        if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
          block_comment();
          continue;
        }
        if (c == '\'' || c == '"' || c == '`') {
          js_string(c);
          continue;
        }
        if (c == '/' && regex_can_start()) {
          js_regex();
          continue;
        }
      }
      if (ident_char(c)) {
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        continue;
      }
      ++i_;
    }
    return std::move(out_);
  }

 private:
  void blank(std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out_.code.size(); ++k) {
      if (out_.code[k] != '\n') out_.code[k] = ' ';
    }
  }

  void comment_to_eol() {
    std::size_t b = i_;
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    blank(b, i_);
  }

  void block_comment() {
    std::size_t b = i_;
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && i_ + 1 < s_.size() && s_[i_ + 1] == '/')) {
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
    i_ = std::min(i_ + 2, s_.size());
    blank(b, i_);
  }

  // The length of a string prefix (r, b, u, f, rb, br, fr, rf in any case) directly before
  // a quote at i_, when i_ starts a token; 0 otherwise.
  std::size_t python_prefix() const {
    if (i_ > 0 && ident_char(s_[i_ - 1])) return 0;
    auto is_prefix_char = [](char c) {
      c = static_cast<char>(c | 0x20);
      return c == 'r' || c == 'b' || c == 'u' || c == 'f';
    };
    for (std::size_t n = 1; n <= 2 && i_ + n < s_.size(); ++n) {
      if (!is_prefix_char(s_[i_ + n - 1])) return 0;
      if (s_[i_ + n] == '\'' || s_[i_ + n] == '"') return n;
    }
    return 0;
  }
  bool raw_prefix(std::size_t n) const {
    for (std::size_t k = 0; k < n; ++k)
      if ((s_[i_ + k] | 0x20) == 'r') return true;
    return false;
  }
  bool bytes_prefix(std::size_t n) const {
    for (std::size_t k = 0; k < n; ++k)
      if ((s_[i_ + k] | 0x20) == 'b') return true;
    return false;
  }

  // A Python string whose token starts at `token` (its prefix) and whose quote is at `q`.
  void python_string(std::size_t token, std::size_t q, bool raw, bool bytes) {
    const char quote = s_[q];
    const bool triple = q + 2 < s_.size() && s_[q + 1] == quote && s_[q + 2] == quote;
    Literal lit;
    lit.begin = token;
    lit.line = line_;
    i_ = q + (triple ? 3 : 1);
    const std::size_t body = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == quote && (!triple || (i_ + 2 < s_.size() && s_[i_ + 1] == quote && s_[i_ + 2] == quote))) {
        blank(body, i_);
        i_ += triple ? 3 : 1;
        lit.end = i_;
        out_.literals.push_back(std::move(lit));
        return;
      }
      if (c == '\n') {
        if (!triple) break;  // an unterminated one-line string ends at its line (counted by run())
        ++line_;
      }
      if (c == '\\' && i_ + 1 < s_.size()) {
        if (raw) {
          lit.value.push_back(c);
          lit.value.push_back(s_[i_ + 1]);
          if (s_[i_ + 1] == '\n') ++line_;
          i_ += 2;
        } else {
          escape(lit.value, /*python=*/true, bytes);
        }
        continue;
      }
      lit.value.push_back(c);
      ++i_;
    }
    blank(body, i_);
    lit.end = i_;
    out_.literals.push_back(std::move(lit));
  }

  // A template literal's ${…} is code: it stays in `code` (the rest of the string is
  // blanked), and the literal's value holds "${}" in its place.
  void restore(const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
    for (const auto& [b, e] : spans) {
      for (std::size_t k = b; k < e && k < out_.code.size(); ++k) out_.code[k] = s_[k];
    }
  }

  void js_string(char quote) {
    Literal lit;
    lit.begin = i_;
    lit.line = line_;
    ++i_;
    const std::size_t body = i_;
    std::vector<std::pair<std::size_t, std::size_t>> code_spans;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == quote) {
        blank(body, i_);
        restore(code_spans);
        ++i_;
        lit.end = i_;
        out_.literals.push_back(std::move(lit));
        return;
      }
      if (c == '\n') {
        if (quote != '`') break;  // counted by run()
        ++line_;
      }
      if (quote == '`' && c == '$' && i_ + 1 < s_.size() && s_[i_ + 1] == '{') {
        const std::size_t from = i_ + 2;
        int depth = 1;
        std::size_t k = from;
        for (; k < s_.size() && depth > 0; ++k) {
          if (s_[k] == '{') ++depth;
          if (s_[k] == '}') --depth;
          if (s_[k] == '\n') ++line_;
        }
        const std::size_t to = depth == 0 ? k - 1 : k;  // at the closing brace, or the end
        code_spans.emplace_back(from, to);
        lit.value += "${}";
        i_ = std::min(to + 1, s_.size());
        continue;
      }
      if (c == '\\' && i_ + 1 < s_.size()) {
        escape(lit.value, /*python=*/false, false);
        continue;
      }
      lit.value.push_back(c);
      ++i_;
    }
    blank(body, i_);
    restore(code_spans);
    lit.end = i_;
    out_.literals.push_back(std::move(lit));
  }

  // At a backslash inside a non-raw string: decode one escape into `out`.
  void escape(std::string& out, bool python, bool bytes) {
    const char e = s_[i_ + 1];
    i_ += 2;
    switch (e) {
      case 'n':
        out.push_back('\n');
        return;
      case 't':
        out.push_back('\t');
        return;
      case 'r':
        out.push_back('\r');
        return;
      case 'b':
        out.push_back('\b');
        return;
      case 'f':
        out.push_back('\f');
        return;
      case 'v':
        out.push_back('\v');
        return;
      case 'a':
        out.push_back('\a');
        return;
      case '\n':
        ++line_;
        return;  // a line continuation
      case 'x': {
        int hi = i_ < s_.size() ? hex_value(s_[i_]) : -1;
        int lo = i_ + 1 < s_.size() ? hex_value(s_[i_ + 1]) : -1;
        if (hi < 0 || lo < 0) {
          out += "\\x";
          return;
        }
        i_ += 2;
        const auto v = static_cast<std::uint32_t>(hi * 16 + lo);
        if (python && !bytes) {
          put_utf8(out, v);  // '\xe9' in a str is the code point U+00E9
        } else {
          out.push_back(static_cast<char>(v));
        }
        return;
      }
      case 'u':
      case 'U': {
        if (python && bytes) break;
        std::uint32_t v = 0;
        if (!python && e == 'u' && i_ < s_.size() && s_[i_] == '{') {
          std::size_t k = i_ + 1;
          int n = 0;
          while (k < s_.size() && n < 6 && hex_value(s_[k]) >= 0)
            v = v * 16 + static_cast<std::uint32_t>(hex_value(s_[k++])), ++n;
          if (n > 0 && k < s_.size() && s_[k] == '}') {
            i_ = k + 1;
            put_utf8(out, v);
            return;
          }
          break;
        }
        const int digits = e == 'u' ? 4 : 8;
        if ((!python && e == 'U') || i_ + static_cast<std::size_t>(digits) > s_.size()) break;
        for (int k = 0; k < digits; ++k) {
          int d = hex_value(s_[i_ + static_cast<std::size_t>(k)]);
          if (d < 0) {
            out.push_back('\\');
            out.push_back(e);
            return;
          }
          v = v * 16 + static_cast<std::uint32_t>(d);
        }
        i_ += static_cast<std::size_t>(digits);
        put_utf8(out, v);
        return;
      }
      default:
        if (e >= '0' && e <= '7') {
          std::uint32_t v = static_cast<std::uint32_t>(e - '0');
          for (int k = 0; k < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k)
            v = v * 8 + static_cast<std::uint32_t>(s_[i_++] - '0');
          if (python && !bytes) {
            put_utf8(out, v);
          } else {
            out.push_back(static_cast<char>(v & 0xFF));
          }
          return;
        }
        if (e == '\\' || e == '\'' || e == '"' || e == '`' || e == '$' || !python) {
          out.push_back(e);  // JavaScript keeps any other escaped character as itself
          return;
        }
        break;
    }
    out.push_back('\\');  // Python keeps an unknown escape as written
    out.push_back(e);
  }

  // A '/' starts a regular expression where an expression may start: after an operator,
  // an opening bracket, a comma, or a keyword such as `return`. After an identifier, a
  // number or a closing bracket it is a division.
  bool regex_can_start() const {
    std::size_t k = i_;
    while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '\t' || s_[k - 1] == '\r' || s_[k - 1] == '\n')) --k;
    if (k == 0) return true;
    const char p = s_[k - 1];
    if (ident_char(p)) {
      std::size_t b = k;
      while (b > 0 && ident_char(s_[b - 1])) --b;
      const std::string_view word = s_.substr(b, k - b);
      return word == "return" || word == "typeof" || word == "case" || word == "in" || word == "of" ||
             word == "yield" || word == "await" || word == "void" || word == "delete";
    }
    return std::string_view("(,=:[!&|?{};+-*%<>~^").find(p) != std::string_view::npos;
  }

  // A regular expression literal is code, not a string: it is skipped whole so that its
  // quotes do not open one, and left as it is in `code`. It ends at its line.
  void js_regex() {
    ++i_;
    bool in_class = false;
    while (i_ < s_.size() && s_[i_] != '\n') {
      const char c = s_[i_];
      if (c == '\\') {
        i_ += 2;
        continue;
      }
      if (c == '[') in_class = true;
      if (c == ']') in_class = false;
      ++i_;
      if (c == '/' && !in_class) break;
    }
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;  // flags
  }

  std::string_view s_;
  Language lang_;
  Lexed out_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
};

}  // namespace

Lexed lex(std::string_view source, Language lang) {
  return Lexer(source, lang).run();
}

std::size_t line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 +
         static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

std::vector<Literal>::const_iterator literal_from(const Lexed& lexed, std::size_t at) {
  return std::lower_bound(lexed.literals.begin(), lexed.literals.end(), at,
                          [](const Literal& l, std::size_t a) { return l.begin < a; });
}

std::size_t matching_close(std::string_view code, std::size_t open) {
  int depth = 0;
  for (std::size_t k = open; k < code.size(); ++k) {
    const char c = code[k];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return k + 1;
    }
  }
  return code.size();
}

}  // namespace batlehub::signals
