// The extractor under hostile archives: upstream's eight tests (upstream-today.md §4), and
// the attacks the agent adds. Every test ends by asserting nothing was written outside the
// work dir and no special file was created anywhere.
#include "agent/extract.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

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
                                                 std::vector<std::string> dest = {"pkg"}, bool strip = false) {
    if (!work_) work_.emplace(*WorkDir::open(scratch_.work().string()));
    ExtractTarget t{&*work_, std::move(dest), strip};
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

TEST_F(Extract, a_gzip_that_is_not_a_tar_is_malformed) {
  std::string plain(1000, 'q');
  uLongf n = compressBound(plain.size()) + 32;
  std::string gz(n, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(plain.data());
  zs.avail_in = static_cast<uInt>(plain.size());
  zs.next_out = reinterpret_cast<Bytef*>(gz.data());
  zs.avail_out = static_cast<uInt>(gz.size());
  deflate(&zs, Z_FINISH);
  gz.resize(zs.total_out);
  deflateEnd(&zs);
  auto r = run(gz);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, FailureKind::kMalformed);
}

}  // namespace
}  // namespace batlehub::agent
