// The identity document as the worker reads it: untrusted bytes off a run's stdout.
#include "wire/identity.h"

#include <gtest/gtest.h>

namespace batlehub::wire {
namespace {

TEST(Identity, round_trips_both_shapes) {
  IdentityAnswer id = Identity{"npm", "@scope/pkg", "1.2.3", "package/package.json"};
  auto back = parse_identity(serialize(id));
  ASSERT_TRUE(back) << back.error().describe("identity");
  EXPECT_EQ(*back, id);
  IdentityAnswer no = IdentityRefusal{"no package.json at the archive's top", ""};
  auto back2 = parse_identity(serialize(no));
  ASSERT_TRUE(back2) << back2.error().describe("identity");
  EXPECT_EQ(*back2, no);
}

TEST(Identity, a_refusal_quoting_control_bytes_still_parses) {
  auto back = parse_identity(serialize(IdentityRefusal{"bad \x01 name\n", "a\nb\x7f"}));
  ASSERT_TRUE(back) << back.error().describe("identity");
  EXPECT_EQ(std::get<IdentityRefusal>(*back).from, "a?b?");
}

TEST(Identity, every_field_is_checked) {
  auto refused = [](std::string_view text) {
    auto r = parse_identity(text);
    return r ? std::string("accepted") : r.error().describe("identity");
  };
  EXPECT_NE(refused(R"({"kind":"maven","name":"a","version":"1","from":"pom.xml"})").find("/kind"), std::string::npos);
  EXPECT_NE(refused(R"({"kind":"npm","name":"A B","version":"1.0.0","from":"p"})").find("/name"), std::string::npos);
  EXPECT_NE(refused(R"({"kind":"npm","name":"a","version":"1.0","from":"p"})").find("/version"), std::string::npos);
  EXPECT_NE(refused(R"({"kind":"pypi","name":"a","version":"1.0","from":""})").find("/from"), std::string::npos);
  EXPECT_NE(refused(R"({"kind":"pypi","name":"a","version":"1.0","from":"p","extra":1})").find("extra"), std::string::npos);
  EXPECT_NE(refused(R"({"kind":"pypi","name":"a","version":"1.0"})").find("from"), std::string::npos);
  EXPECT_NE(refused(R"({"error":"","from":""})").find("/error"), std::string::npos);
  EXPECT_NE(refused(R"({"error":"x","from":"","kind":"npm"})").find("kind"), std::string::npos);
  EXPECT_NE(refused(R"({"error":{"a":1},"from":""})"), "accepted");
  EXPECT_NE(refused("[1]"), "accepted");
  EXPECT_NE(refused("{\"error\":\"x\",\"from\":\"\"} trailing"), "accepted");
  EXPECT_NE(refused(std::string(kIdentityMaxBytes + 1, ' ')).find("more than"), std::string::npos);
  EXPECT_EQ(refused(R"({"kind":"rubygems","name":"rake","version":"13.0.6","from":"metadata.gz"})"), "accepted");
  EXPECT_EQ(refused(R"({"kind":"cargo","name":"serde_json","version":"1.0.108","from":"Cargo.toml"})"), "accepted");
}

TEST(Identity, names_by_each_ecosystems_rule) {
  EXPECT_TRUE(valid_package_name("npm", "@scope/pkg"));
  EXPECT_TRUE(valid_package_name("npm", "JSONStream"));
  EXPECT_FALSE(valid_package_name("npm", "@Scope/pkg"));
  EXPECT_FALSE(valid_package_name("npm", "@scope"));
  EXPECT_FALSE(valid_package_name("npm", ".hidden"));
  EXPECT_FALSE(valid_package_name("npm", std::string(215, 'a')));
  EXPECT_TRUE(valid_package_name("pypi", "Foo_Bar.baz"));
  EXPECT_FALSE(valid_package_name("pypi", "foo-"));
  EXPECT_TRUE(valid_package_name("cargo", "serde_json"));
  EXPECT_FALSE(valid_package_name("cargo", "_x"));
  EXPECT_TRUE(valid_package_name("rubygems", "net-http"));
  EXPECT_FALSE(valid_package_name("rubygems", "1.2"));
  EXPECT_TRUE(is_gem_version("1.0.0.pre"));
  EXPECT_TRUE(is_gem_version("2.0.0-rc1"));
  EXPECT_FALSE(is_gem_version("x1"));
}

}  // namespace
}  // namespace batlehub::wire
