#include "signals/decode.h"

#include <arpa/inet.h>
#include <mbedtls/aes.h>
#include <mbedtls/md.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "base/utf8.h"
#include "signals/ascii.h"

namespace batlehub::signals {

std::string_view step_name(Step s) {
  switch (s) {
    case Step::kBase64:
      return "base64";
    case Step::kHex:
      return "hex";
    case Step::kInflate:
      return "zlib";
    case Step::kRot13:
      return "rot13";
    case Step::kShift:
      return "letter shift";
    case Step::kReversed:
      return "reversed";
    case Step::kSubstitution:
      return "substitution table";
    case Step::kCharCodes:
      return "character codes";
    case Step::kXor:
      return "xor";
    case Step::kUtf16:
      return "utf-16le";
    case Step::kFernet:
      return "fernet";
  }
  return "?";
}

bool Budget::take(std::size_t n) {
  if (n > bytes_left) {
    exhausted = true;
    return false;
  }
  bytes_left -= n;
  return true;
}

namespace {

bool space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Shortest input worth decoding: shorter strings are words, not payloads.
constexpr std::size_t kMinEncoded = 16;

}  // namespace

std::optional<std::string> base64(std::string_view in) {
  std::string out;
  if (in.size() / 4 * 3 > Budget::kStepMaxBytes) return std::nullopt;
  out.reserve(in.size() / 4 * 3 + 3);
  std::uint32_t acc = 0;
  int bits = 0;
  std::size_t digits = 0;
  std::size_t pad = 0;
  for (char c : in) {
    if (space(c)) continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad > 0) return std::nullopt;  // data after padding
    const int v = b64_value(c);
    if (v < 0) return std::nullopt;
    ++digits;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (digits < kMinEncoded || pad > 2 || digits % 4 == 1) return std::nullopt;
  return out;
}

std::optional<std::string> hex(std::string_view in) {
  std::string out;
  if (in.size() / 2 > Budget::kStepMaxBytes) return std::nullopt;
  int hi = -1;
  std::size_t digits = 0;
  for (char c : in) {
    if (space(c)) continue;
    const int v = hex_value(c);
    if (v < 0) return std::nullopt;
    ++digits;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  if (digits < kMinEncoded || hi >= 0) return std::nullopt;
  return out;
}

std::optional<Inflated> inflate(std::string_view in, std::size_t cap) {
  if (in.size() < 2) return std::nullopt;
  const auto b0 = static_cast<unsigned char>(in[0]);
  const auto b1 = static_cast<unsigned char>(in[1]);
  const bool gzip = b0 == 0x1f && b1 == 0x8b;
  const bool zlib = (b0 & 0x0F) == 8 && (b0 >> 4) <= 7 && ((b0 << 8) | b1) % 31 == 0;
  if (!gzip && !zlib) return std::nullopt;
  z_stream z{};
  // 15 + 32: a zlib or a gzip header, told apart by zlib itself.
  if (inflateInit2(&z, 15 + 32) != Z_OK) return std::nullopt;
  Inflated out;
  std::array<unsigned char, 16384> buf{};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), UINT32_MAX));
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = buf.data();
    z.avail_out = buf.size();
    rc = ::inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    const std::size_t got = buf.size() - z.avail_out;
    if (out.bytes.size() + got > cap) {
      out.bytes.append(reinterpret_cast<const char*>(buf.data()), cap - out.bytes.size());
      out.truncated = true;
      break;
    }
    out.bytes.append(reinterpret_cast<const char*>(buf.data()), got);
    if (got == 0 && z.avail_in == 0) break;  // a stream cut short: what came out is kept
  }
  inflateEnd(&z);
  if (out.bytes.empty()) return std::nullopt;
  return out;
}

std::string shift_letters(std::string_view in, int shift) {
  shift = ((shift % 26) + 26) % 26;
  std::string out(in);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>('a' + (c - 'a' + shift) % 26);
    else if (c >= 'A' && c <= 'Z')
      c = static_cast<char>('A' + (c - 'A' + shift) % 26);
  }
  return out;
}

std::string reversed(std::string_view in) {
  return std::string(in.rbegin(), in.rend());
}

std::string xor_with(std::string_view in, std::string_view key) {
  std::string out(in);
  if (key.empty()) return out;
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<char>(out[k] ^ key[k % key.size()]);
  return out;
}

std::optional<std::string> utf16le_ascii(std::string_view in) {
  if (in.size() < 16 || in.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(in.size() / 2);
  for (std::size_t k = 0; k < in.size(); k += 2) {
    const auto c = static_cast<unsigned char>(in[k]);
    if (in[k + 1] != 0 || c == 0 || c >= 0x80) return std::nullopt;
    out.push_back(static_cast<char>(c));
  }
  return out;
}

// mbedTLS, not hand-written AES: the observer inside the walls already links it
// (src/behavior), so the scanners' fence gains no new library.
std::optional<std::string> fernet_decrypt(std::string_view token, std::string_view key) {
  constexpr std::size_t kHeader = 1 + 8 + 16;  // version, timestamp, IV
  constexpr std::size_t kMac = 32;
  constexpr std::size_t kBlock = 16;
  auto k = base64(key);
  auto t = base64(token);
  if (!k || k->size() != 32 || !t || t->size() < kHeader + kBlock + kMac) return std::nullopt;
  const std::size_t body = t->size() - kHeader - kMac;
  if (static_cast<unsigned char>((*t)[0]) != 0x80 || body % kBlock != 0) return std::nullopt;
  const auto* bytes = reinterpret_cast<const unsigned char*>(t->data());
  const auto* key_bytes = reinterpret_cast<const unsigned char*>(k->data());
  unsigned char mac[kMac];
  const mbedtls_md_info_t* sha256 = mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);
  if (sha256 == nullptr || mbedtls_md_hmac(sha256, key_bytes, 16, bytes, t->size() - kMac, mac) != 0 ||
      std::memcmp(mac, bytes + t->size() - kMac, kMac) != 0)
    return std::nullopt;
  unsigned char iv[kBlock];
  std::memcpy(iv, bytes + 9, kBlock);
  std::string out(body, '\0');
  mbedtls_aes_context aes;
  mbedtls_aes_init(&aes);
  const bool ok = mbedtls_aes_setkey_dec(&aes, key_bytes + 16, 128) == 0 &&
                  mbedtls_aes_crypt_cbc(&aes, MBEDTLS_AES_DECRYPT, body, iv, bytes + kHeader,
                                        reinterpret_cast<unsigned char*>(out.data())) == 0;
  mbedtls_aes_free(&aes);
  if (!ok) return std::nullopt;
  // PKCS#7: the last byte says how many bytes of padding, each of that value.
  const auto pad = static_cast<unsigned char>(out.back());
  if (pad == 0 || pad > kBlock) return std::nullopt;
  for (std::size_t i = out.size() - pad; i < out.size(); ++i) {
    if (static_cast<unsigned char>(out[i]) != pad) return std::nullopt;
  }
  out.resize(out.size() - pad);
  return out;
}

std::string Substitution::apply(std::string_view in) const {
  std::string out(in);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (mapped[u]) c = to[u];
  }
  return out;
}

std::optional<Substitution> substitution(std::string_view from, std::string_view to) {
  if (from.size() != to.size() || from.size() > 256) return std::nullopt;
  Substitution t;
  for (std::size_t k = 0; k < from.size(); ++k) {
    const auto f = static_cast<unsigned char>(from[k]);
    const auto g = static_cast<unsigned char>(to[k]);
    if (f >= 0x80 || g >= 0x80) return std::nullopt;
    if (t.mapped[f]) continue;  // the first pair wins, as str.maketrans keeps the last: either reads
    t.mapped[f] = true;
    t.to[f] = static_cast<char>(g);
    if (f != g) ++t.pairs;
  }
  if (t.pairs < 8) return std::nullopt;
  return t;
}

bool looks_like_text(std::string_view s) {
  if (s.size() < 8) return false;
  std::size_t control = 0;
  std::size_t k = 0;
  while (k < s.size()) {
    const auto c = static_cast<unsigned char>(s[k]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ++control;
      if (c == 0x7F) ++control;
      ++k;
      continue;
    }
    const std::size_t n = base::utf8_sequence_length(s, k);
    if (n == 0) return false;
    k += n;
  }
  return control * 20 <= s.size();
}

bool looks_like_code(std::string_view s) {
  // The last five are PowerShell's: a script an encoded command runs names no "import".
  static constexpr std::array<std::string_view, 29> kWords{"import ",
                                                           "exec(",
                                                           "eval(",
                                                           "socket",
                                                           "subprocess",
                                                           "require(",
                                                           "http://",
                                                           "https://",
                                                           "/bin/",
                                                           "os.system",
                                                           "powershell",
                                                           "curl ",
                                                           "wget ",
                                                           "child_process",
                                                           "Function(",
                                                           "def ",
                                                           "function",
                                                           "__import__",
                                                           "getattr(",
                                                           "urllib",
                                                           "requests.",
                                                           "/dev/tcp/",
                                                           "chmod ",
                                                           "cmd.exe",
                                                           "Invoke-Expression",
                                                           "FromBase64String",
                                                           "DownloadString",
                                                           "Start-Process",
                                                           "Invoke-WebRequest"};
  for (std::string_view w : kWords) {
    if (s.find(w) != std::string_view::npos) return true;
  }
  return false;
}

namespace {

// inet_pton's own grammar: four decimal parts of at most 255, no leading zeros.
bool ipv4(std::string_view h) {
  if (h.size() > 15) return false;
  in_addr a{};
  return ::inet_pton(AF_INET, std::string(h).c_str(), &a) == 1;
}

// The labels of a DNS name (RFC 1123): letters, digits and inner hyphens, 1 to 63 bytes
// each, at least two of them, the last letters only.
bool dns_name(std::string_view h, std::string_view& tld) {
  int labels = 0;
  std::size_t k = 0;
  while (k <= h.size()) {
    std::size_t e = h.find('.', k);
    if (e == std::string_view::npos) e = h.size();
    const std::string_view label = h.substr(k, e - k);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) return false;
    }
    tld = label;
    ++labels;
    k = e + 1;
  }
  return labels >= 2 &&
         std::all_of(tld.begin(), tld.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

}  // namespace

Address address_in(std::string_view s) {
  if (s.size() < 8 || s.size() > 2048) return Address::kNone;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F) return Address::kNone;
  }
  std::string_view rest = s;
  bool scheme = false;
  for (std::string_view p : {"http://", "https://", "ws://", "wss://", "ftp://", "tcp://"}) {
    if (s.size() > p.size() && lower(s.substr(0, p.size())) == p) {
      rest = s.substr(p.size());
      scheme = true;
      break;
    }
  }
  const std::size_t host_end = rest.find_first_of(":/?#");
  const std::string_view host = rest.substr(0, host_end);
  if (host_end != std::string_view::npos && rest[host_end] == ':') {
    const std::string_view after = rest.substr(host_end + 1);
    const std::size_t digits = after.find_first_not_of("0123456789");
    const std::size_t n = digits == std::string_view::npos ? after.size() : digits;
    if (n == 0 || n > 5 || (digits != std::string_view::npos && after[digits] != '/')) return Address::kNone;
  }
  if (ipv4(host)) return scheme ? Address::kUrl : Address::kIpv4;
  std::string_view tld;
  if (!dns_name(host, tld)) return Address::kNone;
  if (scheme) return Address::kUrl;
  // A dotted name without a scheme is an address only under a top-level domain that
  // malware's hosts and their services use; a module path or a file name is not.
  // (Not `sh`, `py` or `js`: a script's name is no host.)
  static constexpr std::array<std::string_view, 28> kTlds{
      "com", "net",  "org",  "io",     "ru", "cn", "xyz", "top", "info", "me",   "co", "app", "dev", "fun",
      "pro", "site", "live", "online", "tk", "cc", "biz", "us",  "link", "club", "ws", "su",  "icu", "shop"};
  const std::string t = lower(tld);
  return std::find(kTlds.begin(), kTlds.end(), t) != kTlds.end() ? Address::kHostName : Address::kNone;
}

bool looks_like_a_payload(std::string_view s) {
  static constexpr std::array<std::string_view, 24> kMarkers{
      "import ", "exec(",     "eval(",     "socket",     "subprocess", "require(", "http://",       "https://",
      "/bin/sh", "/bin/bash", "os.system", "powershell", "curl ",      "wget ",    "child_process", "__import__",
      "urllib",  "requests.", "/dev/tcp/", "chmod ",     "cmd.exe",    "base64",   "Popen",         "os.popen"};
  std::size_t found = 0;
  for (std::string_view w : kMarkers) {
    if (s.find(w) != std::string_view::npos && ++found >= 2) return true;
  }
  return false;
}

namespace {

class Search {
 public:
  Search(Steps allowed, const Tables& tables, Budget& budget) : allowed_(allowed), tables_(tables), budget_(budget) {}

  void from(std::string_view input, std::vector<Step>& chain) {
    if (results_.size() >= kMaxResults || static_cast<int>(chain.size()) >= Budget::kMaxDepth) return;
    if (on(Step::kBase64)) {
      if (auto d = base64(input)) step(Step::kBase64, std::move(*d), chain);
    }
    if (on(Step::kHex)) {
      if (auto d = hex(input)) step(Step::kHex, std::move(*d), chain);
    }
    if (on(Step::kInflate)) {
      if (auto d = inflate(input, Budget::kStepMaxBytes)) {
        if (d->truncated && input.size() * Budget::kBombRatio < Budget::kStepMaxBytes) budget_.bomb = true;
        step(Step::kInflate, std::move(d->bytes), chain);
      }
    }
    if (on(Step::kUtf16)) {
      if (auto d = utf16le_ascii(input)) step(Step::kUtf16, std::move(*d), chain);
    }
    if (input.size() < 16) return;
    // The text-to-text steps: each only where its output reads as code, or where it
    // uncovers another encoding (a reversed base64 string).
    if (on(Step::kReversed)) text_step(Step::kReversed, reversed(input), chain);
    if (on(Step::kRot13)) text_step(Step::kRot13, shift_letters(input, 13), chain);
    if (on(Step::kShift) && input.size() <= kShiftMaxBytes) {
      for (int n = 1; n < 26; ++n) {
        if (n == 13 && on(Step::kRot13)) continue;
        std::string t = shift_letters(input, n);
        if (looks_like_a_payload(t) && !looks_like_a_payload(input)) {
          text_step(Step::kShift, std::move(t), chain);
          break;
        }
      }
    }
    if (on(Step::kSubstitution)) {
      for (const Substitution& s : tables_.substitutions) text_step(Step::kSubstitution, s.apply(input), chain);
    }
    if (on(Step::kXor)) {
      // A key is shorter than what it hides: XOR is its own inverse, and the key read with the
      // hidden string as its key would give the same text a second time.
      // A key of four bytes or more that turns a string into text that reads as code is the
      // file's own: a wrong key of that length leaves control bytes everywhere. A shorter one
      // (`^ 32` flips a letter's case) must meet the payload bar of the letter steps.
      for (const std::string& key : tables_.xor_keys) {
        if (key.size() < input.size()) text_step(Step::kXor, xor_with(input, key), chain, key.size() >= 4);
      }
    }
  }

  std::vector<Decoded> take() { return std::move(results_); }

 private:
  static constexpr std::size_t kMaxResults = 8;
  static constexpr std::size_t kShiftMaxBytes = 64 * 1024;

  bool on(Step s) const { return (allowed_ & step_bit(s)) != 0; }

  void step(Step s, std::string out, std::vector<Step>& chain) {
    if (!budget_.take(out.size())) return;
    chain.push_back(s);
    if (looks_like_text(out)) {
      if (results_.size() >= kMaxResults) {
        chain.pop_back();
        return;
      }
      results_.push_back({std::move(out), chain});
      // A text may itself be encoded again (base64 of base64, hex of base64).
      from(results_.back().text, chain);
    } else {
      from(out, chain);
    }
    chain.pop_back();
  }

  // A text-to-text step is kept only when it changes what the text is: it reads as code, or
  // another decoder takes it.
  void text_step(Step s, std::string out, std::vector<Step>& chain, bool code_is_enough = false) {
    if (!budget_.take(out.size())) return;
    chain.push_back(s);
    if ((looks_like_a_payload(out) || (code_is_enough && looks_like_code(out))) && looks_like_text(out)) {
      if (results_.size() < kMaxResults) results_.push_back({out, chain});
    } else if (static_cast<int>(chain.size()) < Budget::kMaxDepth) {
      // Only the byte decoders after a text step: two text steps in a row undo each other.
      const Steps saved = allowed_;
      allowed_ &= step_bit(Step::kBase64) | step_bit(Step::kHex) | step_bit(Step::kInflate) | step_bit(Step::kUtf16);
      from(out, chain);
      allowed_ = saved;
    }
    chain.pop_back();
  }

  Steps allowed_;
  const Tables& tables_;
  Budget& budget_;
  std::vector<Decoded> results_;
};

}  // namespace

std::vector<Decoded> decode_all(std::string_view literal, Steps allowed, const Tables& tables, Budget& budget) {
  Search s(allowed, tables, budget);
  std::vector<Step> chain;
  s.from(literal, chain);
  return s.take();
}

}  // namespace batlehub::signals
