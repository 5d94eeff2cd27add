// ListObjectsV2 pages and error bodies as S3 and versitygw write them, and what the parser
// refuses.
#include "adapters/storage/s3_xml.h"

#include <gtest/gtest.h>

#include <chrono>

namespace batlehub::adapters::s3 {
namespace {

constexpr std::string_view kPage = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <Contents><Key>p/a &amp; b</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>
    <ETag>"fba9dede5f27731c9771645a39863328"</ETag><Size>434234</Size><StorageClass>STANDARD</StorageClass></Contents>
  <Contents><Key>p/&#xe9;</Key><LastModified>2009-10-12T17:50:31Z</LastModified><Size>0</Size></Contents>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>)";

TEST(S3Xml, ParsesAPage) {
  auto page = parse_list_objects(kPage);
  ASSERT_TRUE(page) << page.error();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "p/a & b");
  EXPECT_EQ(page->objects[0].size, 434234u);
  EXPECT_EQ(std::chrono::system_clock::to_time_t(page->objects[0].last_modified), 1255369830);
  EXPECT_EQ(page->objects[1].key, "p/\xc3\xa9");
  EXPECT_EQ(page->objects[1].size, 0u);
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3Xml, AnEmptyLastPage) {
  auto page = parse_list_objects("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(page) << page.error();
  EXPECT_TRUE(page->objects.empty());
  EXPECT_FALSE(page->truncated);
}

TEST(S3Xml, RefusesWhatItCannotTrust) {
  const std::string_view bad[] = {
      "",
      "<Error><Code>NoSuchBucket</Code></Error>",
      "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>99999999999999999999</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>1</Size><LastModified>yesterday</LastModified></Contents>"
      "</ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>1</Size><LastModified>8000-01-01T00:00:00Z</LastModified>"
      "</Contents></ListBucketResult>",
      "<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key>",
      R"(<!DOCTYPE l [<!ENTITY a "aaaa">]><ListBucketResult><Prefix>&a;</Prefix></ListBucketResult>)",
  };
  for (std::string_view xml : bad) EXPECT_FALSE(parse_list_objects(xml)) << xml;
  EXPECT_FALSE(parse_list_objects(std::string(kMaxListPageBytes + 1, ' ')));
  const std::string long_key = "<ListBucketResult><Contents><Key>" + std::string(5000, 'k') +
                               "</Key><Size>1</Size></Contents></ListBucketResult>";
  EXPECT_FALSE(parse_list_objects(long_key));
}

TEST(S3Xml, ErrorCode) {
  EXPECT_EQ(parse_error_code(R"(<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>)"),
            "NoSuchKey");
  // Cut short after the Code, as a body read no further than kMaxErrorBodyBytes is.
  EXPECT_EQ(parse_error_code("<Error><Code>SlowDown</Code><Message>Please redu"), "SlowDown");
  EXPECT_EQ(parse_error_code(""), "");
  EXPECT_EQ(parse_error_code("not xml"), "");
  EXPECT_EQ(parse_error_code("<Other><Code>X</Code></Other>"), "");
}

}  // namespace
}  // namespace batlehub::adapters::s3
