// Names written in look-alike letters. Python reads an identifier after NFKC normalisation
// (PEP 3131), so `ℯ𝓍ℯ𝒸(payload)` — script e, script x, script e, script c — is a call of
// exec, while a reader, a grep and every pattern scanner see four letters they do not know.
// No package writes its own names that way: the only reason is to hide what is called.
//
// `undisguise` maps, in the code only (never inside a string or a comment, where Python
// keeps the letters as they are), every character NFKC turns into an ASCII letter, digit or
// underscore: the mathematical alphanumeric symbols (U+1D400–U+1D7FF), the letterlike
// symbols that fill their holes (ℯ, ℊ, ℋ…), the fullwidth forms (Ａ, ａ, ０, ＿), the
// Latin ligatures (ﬁ, ﬂ, ﬆ…) and the long s (ſ). The rest of Unicode is left: Greek and
// Cyrillic letters are letters of their own to Python, not disguises of Latin ones. Not
// ICU: the product's static scanner links base, nlohmann_json and zlib only
// (scripts/check-fence.sh), and these few ranges are the whole of what NFKC maps to ASCII
// among characters an identifier may hold.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::signals {

struct DisguisedName {
  std::size_t offset = 0;  // in the text as written
  std::string name;        // the name as Python reads it: "exec"
  std::string written;     // as written: "ℯ𝓍ℯ𝒸"
};

struct Undisguised {
  std::string text;                  // the text with each look-alike as its ASCII letter; newlines kept
  std::vector<DisguisedName> names;  // each name that held a look-alike, at most 64
};

// The ASCII a code point becomes under NFKC, when it is one of the look-alikes above: one
// character, or two or three for a ligature. Empty for any other code point.
std::string_view ascii_of(char32_t cp);

// `code` is the source with its literals and comments blanked (Lexed::code): only there are
// look-alikes read; `source` is the text as written, of the same length. nullopt when the
// code holds none.
std::optional<Undisguised> undisguise(std::string_view source, std::string_view code);

}  // namespace batlehub::signals
