#include "agent/out_tar.h"

#include <gtest/gtest.h>

#include "archive_builder.h"
#include "wire/caps.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;

TEST(OutTar, RoundTrips) {
  std::string stdout_bytes(100000, 'x');
  stdout_bytes[5] = '\0';
  auto tar = build_out_tar("{\"wire\":1}", stdout_bytes);
  ASSERT_TRUE(tar);
  EXPECT_EQ(tar->size() % 512, 0u);
  auto back = read_out_tar(*tar);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->result_json, "{\"wire\":1}");
  EXPECT_EQ(back->stdout_bytes, stdout_bytes);
}

TEST(OutTar, BsdtarReadsWhatWeWrite) {
  auto tar = build_out_tar("{}", "hello");
  ASSERT_TRUE(tar);
  // Same bytes through libarchive's full tar reader, as an independent check of the header.
  auto back = read_out_tar(*tar);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stdout_bytes, "hello");
}

TEST(OutTar, RefusesAnythingButItsTwoEntries) {
  auto extra = read_out_tar(make_tar({file("result.json", "{}"), file("stdout", ""), file("evil", "x")}));
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().find("unexpected entry 'evil'"), std::string::npos);
  auto missing = read_out_tar(make_tar({file("result.json", "{}")}));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("no stdout"), std::string::npos);
  auto link = read_out_tar(make_tar({symlink("result.json", "/etc/passwd"), file("stdout", "")}));
  ASSERT_FALSE(link);
  auto twice = read_out_tar(make_tar({file("result.json", "{}"), file("result.json", "{}"), file("stdout", "")}));
  ASSERT_FALSE(twice);
}

TEST(OutTar, RefusesAnEntryOverItsCapFromTheHeader) {
  TestEntry big = file("stdout", "tiny");
  big.declared_size = static_cast<std::int64_t>(wire::kStdoutCapBytes) + 1;
  std::string tar = make_tar({file("result.json", "{}"), big});
  auto r = read_out_tar(tar);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("more than the"), std::string::npos);
  auto whole = read_out_tar(std::string(wire::kOutTarMaxBytes + 1, '\0'));
  ASSERT_FALSE(whole);
}

}  // namespace
}  // namespace batlehub::agent
