#include "signals/disguise.h"

#include <array>
#include <utility>

#include "base/utf8.h"
#include "signals/ascii.h"

namespace batlehub::signals {

namespace {

constexpr std::string_view kUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
constexpr std::string_view kLower = "abcdefghijklmnopqrstuvwxyz";
constexpr std::string_view kDigits = "0123456789";

// The letterlike symbols (U+2100–U+214F) NFKC maps to one ASCII letter: the holes of the
// mathematical alphabets (script e is U+212F, not U+1D4BA) and the double-struck italics.
constexpr std::array<std::pair<char32_t, std::string_view>, 33> kLetterlike{{
    {0x2102, "C"}, {0x210A, "g"}, {0x210B, "H"}, {0x210C, "H"}, {0x210D, "H"}, {0x210E, "h"}, {0x2110, "I"},
    {0x2111, "I"}, {0x2112, "L"}, {0x2113, "l"}, {0x2115, "N"}, {0x2119, "P"}, {0x211A, "Q"}, {0x211B, "R"},
    {0x211C, "R"}, {0x211D, "R"}, {0x2124, "Z"}, {0x2128, "Z"}, {0x212A, "K"}, {0x212C, "B"}, {0x212D, "C"},
    {0x212F, "e"}, {0x2130, "E"}, {0x2131, "F"}, {0x2133, "M"}, {0x2134, "o"}, {0x2139, "i"}, {0x2145, "D"},
    {0x2146, "d"}, {0x2147, "e"}, {0x2148, "i"}, {0x2149, "j"}, {0x017F, "s"},
}};

// The Latin ligatures U+FB00–U+FB06: ff, fi, fl, ffi, ffl, long-s t, st.
constexpr std::array<std::string_view, 7> kLigatures{"ff", "fi", "fl", "ffi", "ffl", "st", "st"};

char32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (n) {
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default:
      return b(0);
  }
}

// A byte of a Python name: ASCII's, or any of a UTF-8 sequence (Python's names are Unicode).
bool name_byte(char c) {
  return name_char(c) || (static_cast<unsigned char>(c) & 0x80) != 0;
}

constexpr std::size_t kMaxNames = 64;
constexpr std::size_t kMaxNameBytes = 64;

}  // namespace

std::string_view ascii_of(char32_t cp) {
  // Thirteen alphabets of 52 letters (bold, italic, bold italic, script, bold script,
  // fraktur, double-struck, bold fraktur, sans-serif and its bold, italic and bold italic,
  // monospace); their unassigned holes are never in a valid file, and mapping them too
  // costs nothing.
  if (cp >= 0x1D400 && cp < 0x1D400 + 13 * 52) {
    const auto k = static_cast<std::size_t>((cp - 0x1D400) % 52);
    return k < 26 ? kUpper.substr(k, 1) : kLower.substr(k - 26, 1);
  }
  if (cp >= 0x1D7CE && cp <= 0x1D7FF) return kDigits.substr(static_cast<std::size_t>((cp - 0x1D7CE) % 10), 1);
  if (cp >= 0xFF21 && cp <= 0xFF3A) return kUpper.substr(cp - 0xFF21, 1);
  if (cp >= 0xFF41 && cp <= 0xFF5A) return kLower.substr(cp - 0xFF41, 1);
  if (cp >= 0xFF10 && cp <= 0xFF19) return kDigits.substr(cp - 0xFF10, 1);
  if (cp == 0xFF3F) return "_";
  if (cp >= 0xFB00 && cp <= 0xFB06) return kLigatures[cp - 0xFB00];
  for (const auto& [from, to] : kLetterlike) {
    if (from == cp) return to;
  }
  return {};
}

std::optional<Undisguised> undisguise(std::string_view source, std::string_view code) {
  if (code.size() != source.size()) return std::nullopt;
  Undisguised u;
  u.text.reserve(source.size());
  // Where, in the new text, each look-alike went, and where it was written.
  std::vector<std::pair<std::size_t, std::size_t>> mapped;
  std::size_t i = 0;
  while (i < source.size()) {
    const auto c = static_cast<unsigned char>(code[i]);
    const std::size_t n = c >= 0x80 ? base::utf8_sequence_length(code, i) : 0;
    const std::string_view ascii = n > 1 ? ascii_of(code_point(code, i, n)) : std::string_view{};
    if (ascii.empty()) {
      u.text += source[i];
      ++i;
      continue;
    }
    mapped.emplace_back(u.text.size(), i);
    u.text += ascii;
    i += n;
  }
  if (mapped.empty()) return std::nullopt;
  // Each name that holds a look-alike, once per occurrence: its bounds in the new text.
  std::size_t last_end = 0;
  for (const auto& [at, written_at] : mapped) {
    if (u.names.size() >= kMaxNames) break;
    if (at < last_end) continue;  // a later letter of the same name
    std::size_t b = at;
    while (b > 0 && name_byte(u.text[b - 1])) --b;
    std::size_t e = at;
    while (e < u.text.size() && name_byte(u.text[e])) ++e;
    last_end = e;
    std::size_t wb = written_at;
    while (wb > 0 && name_byte(source[wb - 1])) --wb;
    std::size_t we = written_at;
    while (we < source.size() && name_byte(source[we])) ++we;
    u.names.push_back({wb, u.text.substr(b, std::min(e - b, kMaxNameBytes)),
                       std::string(source.substr(wb, std::min(we - wb, kMaxNameBytes)))});
  }
  return u;
}

}  // namespace batlehub::signals
