// Static decoding of the strings a package decodes before it runs them: base64, hex,
// zlib/gzip, rot13 and other letter shifts, reversal, character-substitution tables, XOR
// with a key the file holds, lists of character codes, UTF-16LE (PowerShell's encoded
// commands) and Fernet tokens with a key the file holds. Nothing is executed: each decoder is a pure function of the
// bytes, and the search over chains of them ("base64, then zlib, then base64") is bounded
// in depth, in the bytes any one step may produce, and in the bytes a whole file may
// produce (Budget). A stream that inflates past its cap from far fewer bytes is a decoding
// bomb: reported as such, never inflated further.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::signals {

enum class Step : std::uint8_t {
  kBase64,
  kHex,
  kInflate,
  kRot13,
  kShift,
  kReversed,
  kSubstitution,
  kCharCodes,
  kXor,
  kUtf16,
  kFernet,  // a chain's name only: the Fernet pass (signals.cc) needs a key, so no search takes it
};
std::string_view step_name(Step s);

// Which steps a search may take: a file that never calls a decoder is not decoded with it.
using Steps = unsigned;
constexpr Steps step_bit(Step s) {
  return 1U << static_cast<unsigned>(s);
}

struct Budget {
  static constexpr std::size_t kStepMaxBytes = 1U << 20;  // what one decoding may produce
  static constexpr std::size_t kFileMaxBytes = 8U << 20;  // what one file's decodings may produce
  static constexpr int kMaxDepth = 4;                     // steps in one chain
  static constexpr std::size_t kBombRatio = 100;          // inflated past the cap from < 1/100 of it

  std::size_t bytes_left = kFileMaxBytes;
  bool exhausted = false;  // a decoding was skipped because the file's budget was spent
  bool bomb = false;       // a stream inflated past kStepMaxBytes at more than kBombRatio:1

  // Takes n bytes from the budget; false (and exhausted) when there are not that many.
  bool take(std::size_t n);
};

// Each decoder returns nullopt when its input is not in its form.
std::optional<std::string> base64(std::string_view in);  // standard or URL-safe alphabet, whitespace ignored
std::optional<std::string> hex(std::string_view in);     // pairs of hex digits, whitespace ignored
struct Inflated {
  std::string bytes;
  bool truncated = false;  // the stream went on past the cap
};
std::optional<Inflated> inflate(std::string_view in, std::size_t cap);  // a zlib or gzip stream
std::string shift_letters(std::string_view in, int shift);              // ROT-n over ASCII letters (rot13 is 13)
std::string reversed(std::string_view in);
// Each character XORed with the key's, the key repeated (`chr(ord(c) ^ ord(key[i % len(key)]))`,
// `s.charCodeAt(i) ^ k.charCodeAt(i % k.length)`). An empty key leaves the input as it is.
std::string xor_with(std::string_view in, std::string_view key);
// Bytes that are ASCII text in UTF-16LE (each character's high byte zero), narrowed: what
// `powershell -EncodedCommand` reads after base64. nullopt for anything else, and for fewer
// than 8 characters.
std::optional<std::string> utf16le_ascii(std::string_view in);

// A Fernet token (the `cryptography` package's: version 0x80, a timestamp, an IV, AES-128-CBC
// ciphertext, an HMAC-SHA256) decrypted with a key the file holds (32 bytes, URL-safe
// base64). nullopt unless the key's signing half verifies the token's HMAC and the
// plaintext's padding is whole: a wrong key is never taken for a payload.
std::optional<std::string> fernet_decrypt(std::string_view token, std::string_view key);

// A one-to-one character table (from `str.maketrans(FROM, TO)`, or a dict of single
// characters): applied byte by byte; bytes not in it stay as they are.
struct Substitution {
  std::array<char, 256> to{};
  std::array<bool, 256> mapped{};
  std::size_t pairs = 0;
  std::string apply(std::string_view in) const;
};
// FROM and TO of equal length (ASCII); nullopt otherwise or when fewer than 8 characters move.
std::optional<Substitution> substitution(std::string_view from, std::string_view to);

// Text a person or an interpreter reads: at least 8 bytes, valid UTF-8, and at most 5 % of
// its bytes control characters other than tab, CR and LF.
bool looks_like_text(std::string_view s);

// Text that reads as code or a command: it names an import, a process, a shell, the
// network or an evaluation. Used to choose among letter shifts and to tell a decoded
// payload from decoded data.
bool looks_like_code(std::string_view s);

// Stricter, for the steps that map text to text (letter shifts, rot13, reversal,
// substitution tables): at least two distinct markers of what a payload does (an import, a
// process, a shell, the network, an evaluation), none of them merely "def " or "function".
// A letter shift of ordinary English finds "def " by chance ("first" shifted by 12 is
// "rudef"); two payload markers together it does not.
bool looks_like_a_payload(std::string_view s);

// Text that is one network address and nothing else: a URL (http, https, ws, wss, ftp or
// tcp, then a host), an IPv4 address, or a host name whose last label is a common top-level
// domain, each with an optional port and path; no space or control byte. A decoded string
// that is an address was hidden on purpose: a library writes its endpoint in clear. A bare
// dotted name needs the known top-level domain, so that `os.system` or `setup.py` decoded
// from base64 is not an address.
enum class Address { kNone, kUrl, kIpv4, kHostName };
Address address_in(std::string_view s);

struct Decoded {
  std::string text;
  std::vector<Step> chain;  // the steps from the literal to the text, in order
};

struct Tables {
  std::vector<Substitution> substitutions;  // the file's own tables
  std::vector<std::string> xor_keys;        // the file's XOR keys: strings and small numbers near a `^`
};

// Every text reachable from `literal` by up to Budget::kMaxDepth of the `allowed` steps,
// stopping a chain at the first step whose output looks like text (or, for letter shifts
// and substitutions, like code). At most 8 results; the budget bounds the work.
std::vector<Decoded> decode_all(std::string_view literal, Steps allowed, const Tables& tables, Budget& budget);

}  // namespace batlehub::signals
