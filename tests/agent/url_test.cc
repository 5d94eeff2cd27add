#include "agent/url.h"

#include <gtest/gtest.h>

#include "wire/post_form.h"

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

// The result's form (wire/post_form.h): what the worker encodes is what the agent reads back,
// field for field and in order, and the form's own URL without them.
TEST(Url, APostFormComesBackFieldForFieldInOrder) {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"key", "sandbox/job 1/yara/1/7@h-1/out.tar"},
      {"x-amz-credential", "AKID/20261206/us-east-1/s3/aws4_request"},
      {"policy", "eyJleHBpcmF0aW9uIjoi+/=="},
      {"x-amz-signature", "0a1b"}};
  auto u = parse_url(wire::post_form_url("http://127.0.0.1:9000/bucket", fields));
  ASSERT_TRUE(u) << u.error();
  EXPECT_TRUE(u->post_form);
  EXPECT_EQ(u->scheme, Url::Scheme::kHttp);
  EXPECT_EQ(u->authority, "127.0.0.1:9000");
  EXPECT_EQ(u->target, "/bucket");
  EXPECT_EQ(u->form, fields);
  auto s = parse_url(wire::post_form_url("https://bucket.s3.example/", {{"key", "k"}}));
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->target, "/");
  EXPECT_EQ(s->port, 443);
  EXPECT_FALSE(parse_url("http://host/bucket?key=k")->post_form) << "a plain URL is never a form";
}

TEST(Url, RefusesAFormThatWouldBreakItsParts) {
  for (const char* bad : {"post+http://host/b", "post+http://host/b?", "post+http://host/b?key", "post+file:///x?k=v",
                          "post+post+http://host/b?k=v", "post+http://host/b?k=a%0D%0Ab", "post+http://host/b?k%22=v",
                          "post+http://host/b?=v", "post+http://host/b?k=%0", "post+http://host/b?k=a%00"}) {
    EXPECT_FALSE(parse_url(bad)) << bad;
  }
}

TEST(Url, RefusesWhatItDoesNotSpeak) {
  for (const char* bad : {"ftp://x/y", "http://", "http://user:pw@host/x", "http://host:0/", "http://host:99999/",
                          "http://host/a b", "http://[::1/x", "gopher://x", "http://host:8x/"}) {
    EXPECT_FALSE(parse_url(bad)) << bad;
  }
}

}  // namespace
}  // namespace batlehub::agent
