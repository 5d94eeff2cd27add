#include "agent/url.h"

#include <gtest/gtest.h>

namespace batlehub::agent {
namespace {

TEST(Url, FileUrlsDecodeToAbsolutePaths) {
  auto u = parse_url("file:///work/manifest%20one.json");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->scheme, Url::Scheme::kFile);
  EXPECT_EQ(u->path, "/work/manifest one.json");
  EXPECT_FALSE(parse_url("file://host/x"));
  EXPECT_FALSE(parse_url("file:///x?y"));
  EXPECT_FALSE(parse_url("file:///x%00y"));
  EXPECT_FALSE(parse_url("file:///x%4"));
}

TEST(Url, HttpUrlsKeepTheTargetAsSigned) {
  auto u = parse_url("https://s3.example:8443/bucket/sandbox/j/out.tar?X-Amz-Signature=a%2Fb&X-Amz-Expires=60");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->scheme, Url::Scheme::kHttps);
  EXPECT_EQ(u->host, "s3.example");
  EXPECT_EQ(u->authority, "s3.example:8443");
  EXPECT_EQ(u->port, 8443);
  EXPECT_EQ(u->target, "/bucket/sandbox/j/out.tar?X-Amz-Signature=a%2Fb&X-Amz-Expires=60");
  auto v = parse_url("http://[::1]:9000?x=1");
  ASSERT_TRUE(v) << v.error();
  EXPECT_EQ(v->host, "::1");
  EXPECT_EQ(v->port, 9000);
  EXPECT_EQ(v->target, "/?x=1");
  auto w = parse_url("http://127.0.0.1");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->port, 80);
  EXPECT_EQ(w->target, "/");
}

TEST(Url, RefusesWhatItDoesNotSpeak) {
  for (const char* bad : {"ftp://x/y", "http://", "http://user:pw@host/x", "http://host:0/", "http://host:99999/",
                          "http://host/a b", "http://[::1/x", "gopher://x", "http://host:8x/"}) {
    EXPECT_FALSE(parse_url(bad)) << bad;
  }
}

}  // namespace
}  // namespace batlehub::agent
