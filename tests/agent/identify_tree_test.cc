// The metadata readers as data (good, malformed, oversize, missing fields, each ecosystem's
// layout), the tree walk on real extracted trees (precedence, --kind, a symlink never
// followed, an oversize file refused unread), and the real agent binary in identify mode as
// the scanner of a run: extracted under its limits, then reading under the scanner's walls.
#include "agent/identify_tree.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../helpers/zlib_stream.h"

#include "archive_builder.h"
#include "harness.h"
#include "scratch.h"

namespace batlehub::agent {
namespace {

namespace fs = std::filesystem;
using testing::Scratch;

wire::Identity ok(const MetadataReading& r) {
  EXPECT_TRUE(r) << (r ? "" : r.error().error);
  return r ? *r : wire::Identity{};
}
std::string refusal(const MetadataReading& r) {
  EXPECT_FALSE(r) << "accepted " << (r ? r->name + "@" + r->version : "");
  return r ? "" : r.error().error;
}
bool says(const std::string& message, const std::string& what) { return message.find(what) != std::string::npos; }

// --- npm ---

TEST(PackageJson, reads_name_and_version) {
  auto id = ok(read_package_json(R"({"name":"left-pad","version":"1.3.0","main":"index.js"})", "package/package.json"));
  EXPECT_EQ(id.kind, "npm");
  EXPECT_EQ(id.name, "left-pad");
  EXPECT_EQ(id.version, "1.3.0");
  EXPECT_EQ(id.from, "package/package.json");
}

TEST(PackageJson, keeps_a_scope_and_a_prerelease) {
  auto id = ok(read_package_json(R"({"version":"2.0.0-beta.1+b5","name":"@scope/pkg"})", "package/package.json"));
  EXPECT_EQ(id.name, "@scope/pkg");
  EXPECT_EQ(id.version, "2.0.0-beta.1+b5");
}

TEST(PackageJson, refuses_what_is_missing_malformed_or_not_npms_grammar) {
  EXPECT_TRUE(says(refusal(read_package_json(R"({"version":"1.0.0"})", "p.json")), "p.json: has no \"name\""));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"x"})", "p.json")), "has no \"version\""));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":1,"version":"1.0.0"})", "p.json")), "\"name\" is not a string"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"x","version":["1"]})", "p.json")), "\"version\" is not a string"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"x","version":"1.0"})", "p.json")), "not a semver version"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"x","version":"v1.0.0"})", "p.json")), "not a semver version"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"@Scope/x","version":"1.0.0"})", "p.json")), "not a valid npm package name"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"../x","version":"1.0.0"})", "p.json")), "not a valid npm package name"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"","version":"1.0.0"})", "p.json")), "not a valid npm package name"));
  EXPECT_TRUE(says(refusal(read_package_json(R"(["name","x"])", "p.json")), "is not a JSON object"));
  EXPECT_TRUE(says(refusal(read_package_json(R"({"name":"x",)", "p.json")), "not valid JSON"));
  EXPECT_TRUE(says(refusal(read_package_json(std::string(100, '[') + std::string(100, ']'), "p.json")), "deeper"));
  EXPECT_TRUE(says(refusal(read_package_json(std::string(kMetadataMaxBytes + 1, ' '), "p.json")), "more than 1 MiB"));
}

// --- PyPA core metadata ---

TEST(CoreMetadata, reads_an_sdists_pkg_info) {
  auto id = ok(read_core_metadata("Metadata-Version: 2.1\r\nName: requests\r\nVersion: 2.31.0\r\nSummary: HTTP\r\n"
                                  "\r\nName: not-a-header-this-is-the-description\n",
                                  "requests-2.31.0/PKG-INFO"));
  EXPECT_EQ(id.kind, "pypi");
  EXPECT_EQ(id.name, "requests");
  EXPECT_EQ(id.version, "2.31.0");
  EXPECT_EQ(id.from, "requests-2.31.0/PKG-INFO");
}

TEST(CoreMetadata, reads_a_wheels_metadata_with_folded_headers_and_any_case) {
  auto id = ok(read_core_metadata("Metadata-Version: 2.3\nname:   Foo_Bar.baz  \nLicense: MIT\n  Version: 9.9 folded\n"
                                  "VERSION: 1.0rc1.post2.dev3\nClassifier: X\n",
                                  "foo_bar.baz-1.0rc1.post2.dev3.dist-info/METADATA"));
  EXPECT_EQ(id.name, "Foo_Bar.baz");  // as written: PEP 503 normalisation is for comparing, not naming
  EXPECT_EQ(id.version, "1.0rc1.post2.dev3");
}

TEST(CoreMetadata, refuses_missing_doubled_or_invalid_headers) {
  EXPECT_TRUE(says(refusal(read_core_metadata("Version: 1.0\n", "PKG-INFO")), "PKG-INFO: has no Name: header"));
  EXPECT_TRUE(says(refusal(read_core_metadata("Name: x\n", "PKG-INFO")), "has no Version: header"));
  EXPECT_TRUE(says(refusal(read_core_metadata("Name: x\n\nVersion: 1.0\n", "PKG-INFO")), "has no Version: header"));
  EXPECT_TRUE(says(refusal(read_core_metadata("Name: x\nName: y\nVersion: 1.0\n", "PKG-INFO")), "more than one Name"));
  EXPECT_TRUE(says(refusal(read_core_metadata("Name: x\nVersion: banana\n", "PKG-INFO")), "not a PEP 440 version"));
  EXPECT_TRUE(says(refusal(read_core_metadata("Name: -x\nVersion: 1.0\n", "PKG-INFO")), "not a valid pypi package name"));
  EXPECT_TRUE(says(refusal(read_core_metadata("Name: x y\nVersion: 1.0\n", "PKG-INFO")), "not a valid pypi package name"));
  EXPECT_TRUE(says(refusal(read_core_metadata(std::string(kMetadataMaxBytes + 1, 'a'), "PKG-INFO")), "more than 1 MiB"));
}

// --- Cargo ---

TEST(CargoToml, reads_the_package_table_of_a_published_crate) {
  auto id = ok(read_cargo_toml("# THIS FILE IS AUTOMATICALLY GENERATED BY CARGO\n[dependencies.serde]\nversion = \"1\"\n"
                               "\n[package]\nedition = \"2021\"\nname = \"serde_json\"\nversion = \"1.0.108\" # pinned\n"
                               "authors = [\n  \"a\",\n]\n[lib]\nname = \"other\"\n",
                               "serde_json-1.0.108/Cargo.toml"));
  EXPECT_EQ(id.kind, "cargo");
  EXPECT_EQ(id.name, "serde_json");
  EXPECT_EQ(id.version, "1.0.108");
  EXPECT_EQ(ok(read_cargo_toml("[ package ]\nname='a-b'\nversion='0.1.0'\n", "Cargo.toml")).name, "a-b");
}

TEST(CargoToml, refuses_workspaces_inheritance_and_what_it_does_not_read) {
  EXPECT_TRUE(says(refusal(read_cargo_toml("[workspace]\nmembers = [\"a\"]\n", "Cargo.toml")), "no [package] table"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"a\"\nversion.workspace = true\n", "Cargo.toml")),
                   "inherits from a workspace"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"a\"\nversion = { workspace = true }\n", "Cargo.toml")),
                   "is a table"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"a\"\n", "Cargo.toml")), "[package] has no version"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nversion = \"1.0.0\"\n", "Cargo.toml")), "[package] has no name"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"a\"\nname = \"b\"\nversion = \"1.0.0\"\n", "Cargo.toml")),
                   "given twice"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"a\\u0062\"\nversion = \"1.0.0\"\n", "Cargo.toml")),
                   "escapes are not read"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = a\nversion = \"1.0.0\"\n", "Cargo.toml")), "not a string"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"\"\"a\"\"\"\nversion = \"1.0.0\"\n", "Cargo.toml")),
                   "multi-line"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"9a\"\nversion = \"1.0.0\"\n", "Cargo.toml")),
                   "not a valid cargo package name"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname = \"a\"\nversion = \"1.0\"\n", "Cargo.toml")),
                   "not a semver version"));
  EXPECT_TRUE(says(refusal(read_cargo_toml("[package]\nname=\"a\"\n[package]\nversion=\"1.0.0\"\n", "Cargo.toml")),
                   "more than one [package]"));
}

// --- gems ---

constexpr char kGemSpec[] =
    "--- !ruby/object:Gem::Specification\n"
    "name: rake\n"
    "version: !ruby/object:Gem::Version\n"
    "  version: 13.0.6\n"
    "platform: ruby\n"
    "authors:\n- Someone\n"
    "dependencies:\n- !ruby/object:Gem::Dependency\n  name: minitest\n  requirement: !ruby/object:Gem::Requirement\n"
    "    requirements:\n    - - \">=\"\n      - !ruby/object:Gem::Version\n        version: '0'\n";

TEST(GemMetadata, reads_name_and_the_version_mapping) {
  auto id = ok(read_gem_metadata(kGemSpec, "metadata.gz"));
  EXPECT_EQ(id.kind, "rubygems");
  EXPECT_EQ(id.name, "rake");
  EXPECT_EQ(id.version, "13.0.6");
  auto quoted = ok(read_gem_metadata("--- !ruby/object:Gem::Specification\nversion: !ruby/object:Gem::Version \n"
                                     "  version: '1.0.0.pre'\nname: \"nokogiri\"\n",
                                     "metadata"));
  EXPECT_EQ(quoted.name, "nokogiri");
  EXPECT_EQ(quoted.version, "1.0.0.pre");
}

TEST(GemMetadata, refuses_another_layout) {
  EXPECT_TRUE(says(refusal(read_gem_metadata("name: rake\n", "metadata")), "does not begin with"));
  EXPECT_TRUE(says(refusal(read_gem_metadata("--- !ruby/object:Gem::Specification\nversion: 1.0\nname: a\n", "metadata")),
                   "not a !ruby/object:Gem::Version mapping"));
  EXPECT_TRUE(says(refusal(read_gem_metadata("--- !ruby/object:Gem::Specification\nname: a\n", "metadata")),
                   "has no top-level version:"));
  EXPECT_TRUE(says(refusal(read_gem_metadata("--- !ruby/object:Gem::Specification\nname: a\nname: b\n", "metadata")),
                   "more than one top-level name:"));
  EXPECT_TRUE(says(refusal(read_gem_metadata(
                       "--- !ruby/object:Gem::Specification\nname: a\nversion: !ruby/object:Gem::Version\nplatform: x\n",
                       "metadata")),
                   "holds no version:"));
  EXPECT_TRUE(says(refusal(read_gem_metadata("--- !ruby/object:Gem::Specification\nname: '&x'\nversion: "
                                             "!ruby/object:Gem::Version\n  version: 1.0\n",
                                             "metadata")),
                   "not a valid rubygems package name"));
}

std::string gzip(const std::string& plain) {
  return batlehub::testing::deflate_stream(plain, Z_DEFAULT_COMPRESSION, 16 + MAX_WBITS);
}

TEST(Gunzip, inflates_within_its_bound_and_refuses_past_it) {
  EXPECT_EQ(*gunzip_bounded(gzip("hello"), 100), "hello");
  auto big = gunzip_bounded(gzip(std::string(200'000, 'a')), 100'000);
  ASSERT_FALSE(big);
  EXPECT_TRUE(says(big.error(), "more than 100000 bytes"));
  EXPECT_FALSE(gunzip_bounded("not gzip", 100));
  std::string g = gzip("hello world");
  EXPECT_FALSE(gunzip_bounded(g.substr(0, g.size() - 6), 100));
}

// --- the tree ---

class Tree : public ::testing::Test {
 protected:
  fs::path at(const std::string& rel, const std::string& bytes) {
    fs::path p = s_.work() / "pkg" / rel;
    fs::create_directories(p.parent_path());
    Scratch::write(p, bytes);
    return p;
  }
  wire::IdentityAnswer identify(std::optional<std::string_view> kind = std::nullopt) {
    fs::create_directories(s_.work() / "pkg");
    return identify_tree((s_.work() / "pkg").string(), kind);
  }
  static wire::Identity id(const wire::IdentityAnswer& a) {
    if (auto* r = std::get_if<wire::IdentityRefusal>(&a)) ADD_FAILURE() << r->error;
    auto* i = std::get_if<wire::Identity>(&a);
    return i ? *i : wire::Identity{};
  }
  static std::string refused(const wire::IdentityAnswer& a) {
    auto* r = std::get_if<wire::IdentityRefusal>(&a);
    EXPECT_TRUE(r) << "identified " << std::get<wire::Identity>(a).name;
    return r ? r->error : "";
  }
  Scratch s_;
};

TEST_F(Tree, an_npm_tarball_by_its_wrapper) {
  at("package/package.json", R"({"name":"@scope/pkg","version":"1.2.3"})");
  at("package/index.js", "x");
  auto i = id(identify());
  EXPECT_EQ(i.kind, "npm");
  EXPECT_EQ(i.name, "@scope/pkg");
  EXPECT_EQ(i.from, "package/package.json");
}

TEST_F(Tree, an_sdist_by_its_pkg_info_before_its_package_json_and_cargo_toml) {
  at("maturin_pkg-0.3.0/PKG-INFO", "Metadata-Version: 2.1\nName: maturin-pkg\nVersion: 0.3.0\n");
  at("maturin_pkg-0.3.0/Cargo.toml", "[package]\nname = \"core\"\nversion = \"0.0.1\"\n");
  at("maturin_pkg-0.3.0/package.json", R"({"name":"ui","version":"0.0.1"})");
  auto i = id(identify());
  EXPECT_EQ(i.kind, "pypi");
  EXPECT_EQ(i.name, "maturin-pkg");
  EXPECT_EQ(i.from, "maturin_pkg-0.3.0/PKG-INFO");
  // --kind picks the ecosystem: then only its file is read.
  EXPECT_EQ(id(identify("cargo")).name, "core");
  EXPECT_EQ(id(identify("npm")).name, "ui");
  EXPECT_TRUE(says(refused(identify("rubygems")), "no gem metadata"));
}

TEST_F(Tree, a_wheel_by_its_dist_info) {
  at("six-1.16.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: six\nVersion: 1.16.0\n");
  at("six-1.16.0.dist-info/RECORD", "");
  at("six.py", "");
  auto i = id(identify());
  EXPECT_EQ(i.name, "six");
  EXPECT_EQ(i.from, "six-1.16.0.dist-info/METADATA");
  at("other-1.0.dist-info/METADATA", "Name: other\nVersion: 1.0\n");
  EXPECT_TRUE(says(refused(identify()), "2 .dist-info directories"));
}

TEST_F(Tree, a_crate_and_a_gem) {
  at("serde-1.0.0/Cargo.toml", "[package]\nname = \"serde\"\nversion = \"1.0.0\"\n");
  at("serde-1.0.0/Cargo.toml.orig", "whatever");
  EXPECT_EQ(id(identify()).from, "serde-1.0.0/Cargo.toml");
  fs::remove_all(s_.work() / "pkg");
  at("metadata.gz", gzip(kGemSpec));
  at("data.tar.gz", "not read");
  auto g = id(identify());
  EXPECT_EQ(g.kind, "rubygems");
  EXPECT_EQ(g.name, "rake");
  EXPECT_EQ(g.from, "metadata.gz");
}

TEST_F(Tree, nothing_known_a_tie_a_link_and_an_oversize_file_are_refused_by_name) {
  at("README", "hello");
  EXPECT_EQ(refused(identify()),
            "no package.json, PKG-INFO, METADATA, Cargo.toml or gem metadata at the archive's top or in its one top "
            "directory");
  at("src-1/package.json", R"({"name":"a","version":"1.0.0"})");
  at("src-1/Cargo.toml", "[package]\nname = \"a\"\nversion = \"1.0.0\"\n");
  EXPECT_TRUE(says(refused(identify()), "both src-1/package.json and src-1/Cargo.toml"));

  fs::remove_all(s_.work() / "pkg");
  Scratch::write(s_.root() / "outside.json", R"({"name":"planted","version":"6.6.6"})");
  fs::create_directories(s_.work() / "pkg/package");
  fs::create_symlink(s_.root() / "outside.json", s_.work() / "pkg/package/package.json");
  EXPECT_TRUE(says(refused(identify()), "package/package.json: is a symlink (never followed)"));

  fs::remove_all(s_.work() / "pkg");
  at("package/package.json", std::string(kMetadataMaxBytes + 1, ' '));
  EXPECT_TRUE(says(refused(identify()), "package/package.json: is 1048577 bytes, more than the 1 MiB read"));

  fs::remove_all(s_.work() / "pkg");
  at("package/package.json", "{}");
  EXPECT_TRUE(says(refused(identify()), "package/package.json: has no \"name\""));
}

TEST_F(Tree, a_missing_dir_or_a_symlinked_one_is_refused) {
  EXPECT_TRUE(says(refused(identify_tree((s_.work() / "absent").string(), std::nullopt)), "cannot open the extracted dir"));
  fs::create_directories(s_.root() / "elsewhere/package");
  Scratch::write(s_.root() / "elsewhere/package/package.json", R"({"name":"planted","version":"6.6.6"})");
  fs::create_symlink(s_.root() / "elsewhere", s_.work() / "linked");
  EXPECT_TRUE(says(refused(identify_tree((s_.work() / "linked").string(), std::nullopt)), "cannot open the extracted dir"));
}

// --- the real agent, as the scanner of an identify run ---

class IdentifyRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!BATLEHUB_AGENT_STATIC) {
      GTEST_SKIP() << "this build links the agent dynamically (sanitizers cannot link statically), and an identify "
                      "run starts the agent itself under the scanner's memory rlimit, where ASan cannot reserve its "
                      "shadow memory; the release build runs this test";
    }
  }
  testing::Outcome run(const std::string& archive_bytes, std::vector<std::string> extra = {}) {
    fs::path a = s_.root() / "artifact";
    fs::remove_all(s_.work() / "pkg");  // an archive entry's path must not exist yet
    Scratch::write(a, archive_bytes);
    std::vector<std::string> argv = {BATLEHUB_AGENT_BIN, "identify", "pkg"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto m = testing::scan_manifest(argv);
    wire::Entry e;
    e.kind = wire::EntryKind::kArchive;
    e.path = *wire::RelPath::parse("pkg");
    e.url = "file://" + a.string();
    e.size = fs::file_size(a);
    m.entries = {e};
    return testing::run_agent_binary(s_, m);
  }
  Scratch s_;
};

TEST_F(IdentifyRun, the_agent_reads_the_tree_it_extracted_under_the_scanners_walls) {
  auto o = run(testing::make_tgz({testing::file("package/package.json", R"({"name":"@scope/pkg","version":"1.2.3"})"),
                                  testing::file("package/index.js", "x")}));
  ASSERT_TRUE(o.have_result) << o.error;
  EXPECT_FALSE(o.result.failure) << o.result.failure->message;
  EXPECT_TRUE(o.result.ran);
  EXPECT_EQ(o.result.exit_code, 0) << o.result.stderr_tail;
  EXPECT_EQ(o.stdout_bytes,
            "{\"from\":\"package/package.json\",\"kind\":\"npm\",\"name\":\"@scope/pkg\",\"version\":\"1.2.3\"}\n");
  auto doc = wire::parse_identity(o.stdout_bytes);
  ASSERT_TRUE(doc) << doc.error().describe("identity");
  EXPECT_EQ(std::get<wire::Identity>(*doc).name, "@scope/pkg");
}

TEST_F(IdentifyRun, with_a_kind_and_on_a_zip_with_no_metadata) {
  auto o = run(testing::make_tgz({testing::file("x-1.0/PKG-INFO", "Name: x\nVersion: 1.0\n")}), {"pypi"});
  EXPECT_EQ(o.result.exit_code, 0) << o.stdout_bytes;
  EXPECT_NE(o.stdout_bytes.find("\"from\":\"x-1.0/PKG-INFO\""), std::string::npos) << o.stdout_bytes;
  auto z = run(testing::make_zip({testing::file("readme.txt", "nothing here")}));
  EXPECT_EQ(z.result.exit_code, 1);
  auto doc = wire::parse_identity(z.stdout_bytes);
  ASSERT_TRUE(doc) << z.stdout_bytes;
  EXPECT_TRUE(says(std::get<wire::IdentityRefusal>(*doc).error, "no package.json, PKG-INFO, METADATA, Cargo.toml"));
}

TEST_F(IdentifyRun, a_bad_word_is_a_usage_error_in_the_same_document) {
  auto o = run(testing::make_tgz({testing::file("a", "b")}), {"maven"});
  EXPECT_EQ(o.result.exit_code, 2);
  auto doc = wire::parse_identity(o.stdout_bytes);
  ASSERT_TRUE(doc) << o.stdout_bytes;
  EXPECT_TRUE(says(std::get<wire::IdentityRefusal>(*doc).error, "no metadata of kind 'maven'"));
}

}  // namespace
}  // namespace batlehub::agent
