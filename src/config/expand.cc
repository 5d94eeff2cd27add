#include "config/expand.h"

#include <algorithm>
#include <optional>

namespace batlehub::config {
namespace {

bool name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}

// The NAME of a `${NAME}` starting at text[at] (which is '$'), or nullopt.
std::optional<std::string_view> placeholder_at(std::string_view text, std::size_t at) {
  if (text.compare(at, 2, "${") != 0) return std::nullopt;
  std::size_t end = at + 2;
  if (end >= text.size() || !name_start(text[end])) return std::nullopt;
  while (end < text.size() && name_char(text[end])) ++end;
  if (end >= text.size() || text[end] != '}') return std::nullopt;
  return text.substr(at + 2, end - at - 2);
}

// Where the lexer is. Only what decides whether a '#' starts a comment matters: inside a
// string it does not, and a string's own delimiters and escapes decide where it ends.
enum class Where { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral };

}  // namespace

Expected<std::string, ExpandError> expand_variables(std::string_view text, const core::Env& env,
                                                    std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  Where where = Where::kCode;
  int line = 1;
  std::size_t i = 0;
  // Copies n bytes of the text as they are.
  auto keep = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      if (text[i + k] == '\n') ++line;
    }
    out += text.substr(i, n);
    i += n;
  };
  while (i < text.size()) {
    if (out.size() > max_bytes) {
      return Unexpected(ExpandError{line, "the expanded file is over " + std::to_string(max_bytes) + " bytes"});
    }
    const char c = text[i];
    const std::string_view rest = text.substr(i);
    if (c == '\n') {
      // A comment, and a single-line string, end with their line (an unterminated string is
      // TOML's error to report, with its own line).
      if (where == Where::kComment || where == Where::kBasic || where == Where::kLiteral) where = Where::kCode;
      keep(1);
      continue;
    }
    if (where == Where::kComment) {
      keep(1);
      continue;
    }
    if (c == '$') {
      if (rest.starts_with("$$") && placeholder_at(text, i + 1)) {
        // `$${NAME}` → `${NAME}`, itself never expanded.
        i += 1;
        keep(placeholder_at(text, i)->size() + 3);
        continue;
      }
      if (auto name = placeholder_at(text, i)) {
        const std::optional<std::string> value = env ? env(*name) : std::nullopt;
        if (!value) {
          return Unexpected(
              ExpandError{line, "${" + std::string(*name) + "} names an environment variable that is not set"});
        }
        if (out.size() + value->size() > max_bytes) {
          return Unexpected(ExpandError{line, "with ${" + std::string(*name) + "} expanded the file is over " +
                                                  std::to_string(max_bytes) + " bytes"});
        }
        out += *value;
        i += name->size() + 3;
        continue;
      }
      keep(1);
      continue;
    }
    switch (where) {
      case Where::kCode:
        if (c == '#') {
          where = Where::kComment;
          keep(1);
        } else if (rest.starts_with("\"\"\"")) {
          where = Where::kMultiBasic;
          keep(3);
        } else if (rest.starts_with("'''")) {
          where = Where::kMultiLiteral;
          keep(3);
        } else {
          if (c == '"') where = Where::kBasic;
          if (c == '\'') where = Where::kLiteral;
          keep(1);
        }
        break;
      case Where::kBasic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          keep(2);  // an escaped quote or backslash does not end the string
        } else {
          if (c == '"') where = Where::kCode;
          keep(1);
        }
        break;
      case Where::kLiteral:
        if (c == '\'') where = Where::kCode;
        keep(1);
        break;
      case Where::kMultiBasic:
      case Where::kMultiLiteral: {
        const char quote = where == Where::kMultiBasic ? '"' : '\'';
        if (where == Where::kMultiBasic && c == '\\' && i + 1 < text.size()) {
          keep(2);
        } else if (rest.size() >= 3 && rest[0] == quote && rest[1] == quote && rest[2] == quote) {
          // Up to two more quotes belong to the content ("""a""""" is legal TOML).
          std::size_t n = 3;
          while (n < 5 && n < rest.size() && rest[n] == quote) ++n;
          where = Where::kCode;
          keep(n);
        } else {
          keep(1);
        }
        break;
      }
      case Where::kComment:
        keep(1);
        break;
    }
  }
  if (out.size() > max_bytes) {
    return Unexpected(ExpandError{line, "the expanded file is over " + std::to_string(max_bytes) + " bytes"});
  }
  return out;
}

}  // namespace batlehub::config
