// The gzip layer (agent/gunzip.h): igzip against streams written by zlib, the reference
// gzip writer, and against each way a stream can be wrong. What is asserted is what gzip(1)
// would say of the same bytes: the data, or a refusal naming the member and the offset.
#include "agent/gunzip.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "../helpers/zlib_stream.h"

#include <cstring>
#include <random>
#include <string>

namespace batlehub::agent {
namespace {

// A raw deflate stream of `plain` (no header, no trailer), at `level`.
std::string deflate_raw(const std::string& plain, int level) {
  return batlehub::testing::deflate_stream(plain, level, -MAX_WBITS);
}

void le32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct Header {
  std::string extra, name, comment;
  bool header_crc = false;
  unsigned char method = 8;
};

// One gzip member (RFC 1952) of `plain`, its header written by hand so that every optional
// field can be set.
std::string member(const std::string& plain, int level = 6, const Header& h = {}) {
  std::string s = {'\x1f', '\x8b', static_cast<char>(h.method)};
  unsigned char flags = 0;
  if (h.header_crc) flags |= 0x02;
  if (!h.extra.empty()) flags |= 0x04;
  if (!h.name.empty()) flags |= 0x08;
  if (!h.comment.empty()) flags |= 0x10;
  s.push_back(static_cast<char>(flags));
  s.append(4, '\0');    // mtime
  s.push_back('\0');    // xfl
  s.push_back('\x03');  // os: Unix
  if (!h.extra.empty()) {
    s.push_back(static_cast<char>(h.extra.size() & 0xff));
    s.push_back(static_cast<char>(h.extra.size() >> 8));
    s += h.extra;
  }
  if (!h.name.empty()) s += h.name + '\0';
  if (!h.comment.empty()) s += h.comment + '\0';
  if (h.header_crc) {
    auto crc = crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()));
    s.push_back(static_cast<char>(crc & 0xff));
    s.push_back(static_cast<char>((crc >> 8) & 0xff));
  }
  s += deflate_raw(plain, level);
  le32(s, static_cast<std::uint32_t>(
              crc32(0, reinterpret_cast<const Bytef*>(plain.data()), static_cast<uInt>(plain.size()))));
  le32(s, static_cast<std::uint32_t>(plain.size()));
  return s;
}

std::span<const unsigned char> bytes(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// Everything `g` inflates, or its error.
Expected<std::string, std::string> drain(Gunzip& g) {
  std::string out;
  for (;;) {
    auto block = g.next();
    if (!block) return Unexpected(block.error());
    if (block->empty()) return out;
    out.append(reinterpret_cast<const char*>(block->data()), block->size());
  }
}

Expected<std::string, std::string> inflate(const std::string& gz) {
  auto g = Gunzip::from_memory(bytes(gz));
  return drain(*g);
}

// A reader that hands out at most `step` bytes a call: every boundary lands somewhere new.
std::unique_ptr<Gunzip> trickle(const std::string& gz, std::size_t step) {
  return std::make_unique<Gunzip>(
      [&gz, step, at = std::size_t{0}](std::span<unsigned char> buf) mutable -> Expected<std::size_t, std::string> {
        std::size_t n = std::min({buf.size(), step, gz.size() - at});
        std::memcpy(buf.data(), gz.data() + at, n);
        at += n;
        return n;
      });
}

std::string noise(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  // Words from a small vocabulary: compressible like source code, with long matches and
  // dynamic Huffman blocks.
  static const char* kWords[] = {"const ",  "require(", "module.exports", " = ",          "function", "{\n", "}\n",
                                 "return ", "0x41",     "eval",           "Buffer.from(", "'base64'", ";\n"};
  s.clear();
  while (s.size() < n) s += kWords[rng() % (sizeof kWords / sizeof *kWords)];
  s.resize(n);
  return s;
}

TEST(GzipLayer, inflates_what_zlib_wrote_at_every_level) {
  std::string plain = noise(300'000, 1);
  for (int level : {0, 1, 6, 9}) {
    auto out = inflate(member(plain, level));
    ASSERT_TRUE(out) << "level " << level << ": " << out.error();
    EXPECT_EQ(*out, plain) << "level " << level;
  }
  auto empty = inflate(member(""));
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_EQ(*empty, "");
}

TEST(GzipLayer, reads_the_optional_header_fields_and_checks_the_header_crc) {
  Header h{.extra = std::string("AB\x04\0wxyz", 8), .name = "pkg.tar", .comment = "made by hand", .header_crc = true};
  auto out = inflate(member("inside\n", 6, h));
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, "inside\n");

  std::string bad = member("inside\n", 6, h);
  bad[10 + 2 + 8 + 8 + 13] ^= 0x01;  // the header's CRC-16, after xlen, extra, name and comment
  auto refused = inflate(bad);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("gzip member 1"), std::string::npos) << refused.error();
}

TEST(GzipLayer, concatenated_members_are_one_stream_as_gzip_reads_them) {
  std::string a = noise(70'000, 2), b = noise(50'000, 3), c = "tail\n";
  std::string gz = member(a) + member(b, 1) + member(c, 0);
  auto g = Gunzip::from_memory(bytes(gz));
  auto out = drain(*g);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, a + b + c);
  EXPECT_EQ(g->members(), 3U);
}

TEST(GzipLayer, every_read_boundary_gives_the_same_bytes) {
  // Reads of 1, 2, 3 and 7 bytes put a boundary inside every header, every magic and every
  // trailer; 4093 splits deflate blocks.
  std::string a = noise(20'000, 4), b = noise(9'000, 5);
  std::string gz = member(a, 9, Header{.name = "x"}) + member(b, 1) + "\0\0\0junk";
  for (std::size_t step : {1U, 2U, 3U, 7U, 4093U}) {
    auto g = trickle(gz, step);
    auto out = drain(*g);
    ASSERT_TRUE(out) << "step " << step << ": " << out.error();
    EXPECT_EQ(*out, a + b) << "step " << step;
    EXPECT_EQ(g->members(), 2U) << "step " << step;
  }
}

TEST(GzipLayer, bytes_after_the_last_member_that_start_no_member_are_ignored) {
  // gzip(1) warns "trailing garbage ignored"; libarchive's filter, which this replaces,
  // stopped there silently. Zero padding (a tape block's worth) is the common case.
  for (std::string tail : {std::string(512, '\0'), std::string("junk"), std::string("\x1f"), std::string("\x1f\x8c")}) {
    auto out = inflate(member("data") + tail);
    ASSERT_TRUE(out) << out.error();
    EXPECT_EQ(*out, "data");
  }
}

TEST(GzipLayer, a_stream_cut_anywhere_short_of_its_end_is_refused_as_truncated) {
  std::string plain = noise(40'000, 6);
  std::string gz = member(plain) + member("second");
  const std::size_t first = member(plain).size();
  for (std::size_t cut = 0; cut < gz.size(); ++cut) {
    if (cut == first) continue;  // the first member whole, alone: a complete stream
    auto out = inflate(gz.substr(0, cut));
    if (cut < first + 2 && cut > first) {
      // One byte of the next member's magic: trailing bytes that start no member.
      ASSERT_TRUE(out) << cut;
      continue;
    }
    ASSERT_FALSE(out) << "cut at " << cut << " of " << gz.size() << " inflated " << out->size() << " bytes";
    EXPECT_NE(out.error().find("truncated"), std::string::npos) << "cut at " << cut << ": " << out.error();
  }
}

TEST(GzipLayer, a_wrong_crc_or_length_in_the_trailer_is_refused_naming_the_member) {
  std::string good = member("first") + member(noise(10'000, 7));
  for (std::size_t from_end : {8U, 1U}) {  // the CRC-32's first byte, ISIZE's last
    std::string bad = good;
    bad[bad.size() - from_end] ^= 0x40;
    auto out = inflate(bad);
    ASSERT_FALSE(out);
    EXPECT_NE(out.error().find("gzip member 2"), std::string::npos) << out.error();
    EXPECT_NE(out.error().find("CRC-32 or length"), std::string::npos) << out.error();
  }
}

TEST(GzipLayer, a_bad_header_or_block_is_refused_with_what_is_wrong) {
  Header deflate64{.method = 9};
  auto method = inflate(member("x", 6, deflate64));
  ASSERT_FALSE(method);
  EXPECT_NE(method.error().find("not deflate"), std::string::npos) << method.error();

  // BTYPE 11 is reserved: a final block of that type, right after the header.
  std::string reserved = std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10) + "\x07" + std::string(16, '\0');
  auto block = inflate(reserved);
  ASSERT_FALSE(block);
  EXPECT_NE(block.error().find("invalid deflate block"), std::string::npos) << block.error();
  EXPECT_NE(block.error().find("gzip member 1, at compressed byte"), std::string::npos) << block.error();

  // A stored block whose length and its complement disagree.
  std::string stored =
      std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10) + std::string("\x01\x05\x00\x00\x00", 5) + "hello";
  auto len = inflate(stored);
  ASSERT_FALSE(len);
  EXPECT_NE(len.error().find("gzip member 1"), std::string::npos) << len.error();
}

TEST(GzipLayer, reads_a_file_descriptor_in_blocks) {
  // Eight MiB through a memfd: many reads, many output blocks, one member.
  std::string plain = noise(8 << 20, 8);
  std::string gz = member(plain, 1);
  int fd = ::memfd_create("gunzip-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, gz.data(), gz.size()), static_cast<ssize_t>(gz.size()));
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  auto g = Gunzip::from_fd(fd);
  auto out = drain(*g);
  ::close(fd);
  ASSERT_TRUE(out) << out.error();
  EXPECT_TRUE(*out == plain);
}

TEST(GzipLayer, a_read_error_is_the_error) {
  Gunzip g([](std::span<unsigned char>) -> Expected<std::size_t, std::string> {
    return Unexpected(std::string("reading the archive: Input/output error"));
  });
  auto out = drain(g);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error(), "reading the archive: Input/output error");
}

}  // namespace
}  // namespace batlehub::agent
