#include "wire/manifest.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "wire/base64.h"
#include "wire/caps.h"

namespace batlehub::wire {
namespace {

using nlohmann::json;

Manifest sample() {
  Manifest m;
  m.wire = kWireVersion;
  m.argv = {"postmortem", "scan", ".", "--json"};
  m.network = false;
  m.limits = {2048, 300};
  m.timeout_ms = 600'000;
  Entry lock;
  lock.kind = EntryKind::kInline;
  lock.path = *RelPath::parse("package-lock.json");
  lock.bytes = std::string("{\"lockfileVersion\":3}\0\xff", 23);
  Entry art;
  art.kind = EntryKind::kArchive;
  art.path = *RelPath::parse("node_modules/left-pad");
  art.url = "file:///work/in/artifact";
  art.size = 12345;
  art.strip_wrapper = true;
  Entry sbom;
  sbom.kind = EntryKind::kFile;
  sbom.path = *RelPath::parse("sbom.cdx.json");
  sbom.url = "https://s3.example/bucket/sandbox/j/sbom?X-Amz-Signature=abc";
  sbom.size = 99;
  m.entries = {lock, art, sbom};
  return m;
}

json doc_of(const Manifest& m) { return json::parse(serialize(m)); }

std::string where_refused(const json& j) {
  auto r = parse_manifest(j.dump());
  EXPECT_FALSE(r) << j.dump();
  return r ? std::string("(parsed)") : r.error().where + ": " + r.error().message;
}

TEST(Manifest, RoundTrips) {
  Manifest m = sample();
  auto back = parse_manifest(serialize(m));
  ASSERT_TRUE(back) << back.error().describe("manifest");
  EXPECT_EQ(*back, m);
}

TEST(Manifest, ProbeManifestRoundTripsWithoutArgv) {
  Manifest m;
  m.wire = kWireVersion;
  m.timeout_ms = 10'000;
  m.probe = ProbeSpec{{"127.0.0.1:8080", "1.1.1.1:53", "[::1]:9"}, {"/usr/bin/guarddog", "/usr/local/bin/batlehub-sandbox"}};
  auto back = parse_manifest(serialize(m));
  ASSERT_TRUE(back) << back.error().describe("manifest");
  EXPECT_EQ(*back, m);
}

TEST(Manifest, RefusesAnotherWireVersionAtSlashWire) {
  json j = doc_of(sample());
  j["wire"] = kWireVersion + 1;
  auto r = parse_manifest(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/wire");
  EXPECT_NE(r.error().message.find("speaks wire version"), std::string::npos);
  EXPECT_TRUE(r.error().other_version) << "told apart as data, not by the pointer's text";
  EXPECT_EQ(peek_wire_version(j.dump()), kWireVersion + 1);
  // A `wire` that is not a version at all is an invalid document, not another version.
  j["wire"] = "1";
  auto s = parse_manifest(j.dump());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().where, "/wire");
  EXPECT_FALSE(s.error().other_version);
}

// Wire 2: an archive entry may name one member to descend (a gem's data.tar.gz).
TEST(Manifest, AnArchiveEntryCarriesItsDescendMemberAsARelPath) {
  Manifest m = sample();
  m.entries[1].descend = *RelPath::parse("data.tar.gz");
  json j = doc_of(m);
  EXPECT_EQ(j["entries"][1]["descend"], "data.tar.gz");
  EXPECT_FALSE(j["entries"][0].contains("descend"));
  EXPECT_FALSE(j["entries"][2].contains("descend"));
  auto back = parse_manifest(j.dump());
  ASSERT_TRUE(back) << back.error().describe("manifest");
  EXPECT_EQ(*back, m);
  EXPECT_EQ(back->entries[1].descend->str(), "data.tar.gz");

  // null is absent; a nested member is a path like any other.
  j["entries"][1]["descend"] = nullptr;
  auto none = parse_manifest(j.dump());
  ASSERT_TRUE(none) << none.error().describe("manifest");
  EXPECT_FALSE(none->entries[1].descend);
  j["entries"][1]["descend"] = "gems/x/data.tar.gz";
  ASSERT_TRUE(parse_manifest(j.dump()));

  // Refused: a path that is no RelPath, a value that is no string, and on another kind.
  for (const char* bad : {"../data.tar.gz", "/data.tar.gz", "a//b", "", "a\\b", "./x"}) {
    j["entries"][1]["descend"] = bad;
    EXPECT_NE(where_refused(j).find("/entries/1/descend"), std::string::npos) << bad;
  }
  j["entries"][1]["descend"] = 7;
  EXPECT_NE(where_refused(j).find("/entries/1/descend"), std::string::npos);
  j["entries"][1]["descend"] = std::string(kMaxRelPathBytes + 1, 'a');
  EXPECT_NE(where_refused(j).find("/entries/1/descend"), std::string::npos);
  j["entries"][1].erase("descend");
  for (int i : {0, 2}) {
    json k = j;
    k["entries"][i]["descend"] = "data.tar.gz";
    EXPECT_NE(where_refused(k).find("/entries/" + std::to_string(i)), std::string::npos) << "only an archive descends";
  }
}

TEST(Manifest, AnOlderVersionsManifestIsAnotherVersionNotAnOlderSubset) {
  // Wire 2 added `descend`, wire 3 the probe's `kernel`, and each side speaks exactly one
  // version (docs/wire-format.md, Versions): an agent of this release refuses a wire 1 or 2
  // manifest as another version, even one that uses nothing a later version added.
  static_assert(kWireVersion == 3);
  for (int older : {1, 2}) {
    json j = doc_of(sample());
    j["wire"] = older;
    auto r = parse_manifest(j.dump());
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().other_version);
    EXPECT_EQ(r.error().message, "this agent speaks wire version 3, the manifest speaks " + std::to_string(older));
  }
}

TEST(Manifest, AWireVersionThatWrapsIsNotOurs) {
  json j = doc_of(sample());
  j["wire"] = 4294967298LL;  // 2^32 + 2: an int cast would make it 2
  auto r = parse_manifest(j.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "/wire");
  EXPECT_TRUE(r.error().other_version);
  EXPECT_NE(peek_wire_version(j.dump()), kWireVersion);
}

TEST(Manifest, ACanaryWithANulIsRefused) {
  Manifest m;
  m.wire = kWireVersion;
  m.timeout_ms = 1000;
  m.probe = ProbeSpec{{std::string("127.0.0.1\0junk:80", 18)}, {}};
  EXPECT_NE(where_refused(doc_of(m)).find("/probe/canaries/0"), std::string::npos);
}

TEST(Manifest, AShortBase64IsReportedAsInvalidNotOverTheCap) {
  json j = doc_of(sample());
  j["entries"][0]["base64"] = "QQ=";
  EXPECT_NE(where_refused(j).find("is not valid base64"), std::string::npos);
}

TEST(Manifest, RefusesADocumentOverItsCapBeforeParsing) {
  std::string big(kManifestMaxBytes + 1, ' ');
  auto r = parse_manifest(big);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("more than the"), std::string::npos);
}

TEST(Manifest, RefusesDeepNesting) {
  std::string deep = "{\"wire\":1,\"x\":" + std::string(10000, '[') + std::string(10000, ']') + "}";
  auto r = parse_manifest(deep);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("deeper"), std::string::npos);
}

TEST(Manifest, RefusesAnInlineEntryOverItsCap) {
  json j = doc_of(sample());
  j["entries"][0]["base64"] = base64_encode(std::string(kInlineEntryMaxBytes + 1, 'a'));
  EXPECT_NE(where_refused(j).find("/entries/0/base64"), std::string::npos);
}

TEST(Manifest, RefusesInlineEntriesThatAddUpOverTheTotalCap) {
  json j = doc_of(sample());
  std::string chunk = base64_encode(std::string(kInlineTotalMaxBytes / 2 + 1, 'a'));
  j["entries"][0]["base64"] = chunk;
  json second = j["entries"][0];
  second["path"] = "other.lock";
  j["entries"].push_back(second);
  EXPECT_NE(where_refused(j).find("add up"), std::string::npos);
}

TEST(Manifest, RefusesTooManyEntries) {
  json j = doc_of(sample());
  json e = j["entries"][1];
  j["entries"] = json::array();
  for (std::size_t i = 0; i <= kMaxEntries; ++i) {
    e["path"] = "p" + std::to_string(i);
    j["entries"].push_back(e);
  }
  EXPECT_NE(where_refused(j).find("/entries: has 1025 items"), std::string::npos);
}

TEST(Manifest, RefusesArgvOverItsCaps) {
  json j = doc_of(sample());
  j["argv"] = json::array();
  for (std::size_t i = 0; i <= kMaxArgs; ++i) j["argv"].push_back("a");
  EXPECT_NE(where_refused(j).find("/argv"), std::string::npos);
  j["argv"] = {std::string(kMaxArgvBytes / 2, 'a'), std::string(kMaxArgvBytes / 2, 'b')};
  EXPECT_NE(where_refused(j).find("adds up"), std::string::npos);
}

TEST(Manifest, RefusesADeclaredInputSizeOverTheCap) {
  json j = doc_of(sample());
  j["entries"][1]["size"] = kMaxInputBytes + 1;
  EXPECT_NE(where_refused(j).find("/entries/1/size"), std::string::npos);
}

TEST(Manifest, RefusesTraversalInAnEntryPath) {
  json j = doc_of(sample());
  j["entries"][1]["path"] = "../../etc";
  EXPECT_NE(where_refused(j).find("/entries/1/path"), std::string::npos);
  j["entries"][1]["path"] = "/etc";
  EXPECT_NE(where_refused(j).find("absolute"), std::string::npos);
  j["entries"][1]["path"] = "a\\b";
  EXPECT_NE(where_refused(j).find("backslash"), std::string::npos);
}

TEST(Manifest, RefusesUnknownFieldsAndWrongTypes) {
  json j = doc_of(sample());
  j["extra"] = 1;
  EXPECT_NE(where_refused(j).find("/extra"), std::string::npos);
  j = doc_of(sample());
  j["network"] = "no";
  EXPECT_NE(where_refused(j).find("/network: expected true or false"), std::string::npos);
  j = doc_of(sample());
  j["limits"]["memory_limit_mb"] = -1;
  EXPECT_NE(where_refused(j).find("/limits/memory_limit_mb"), std::string::npos);
  j = doc_of(sample());
  j["entries"][2]["kind"] = "symlink";
  EXPECT_NE(where_refused(j).find("/entries/2/kind"), std::string::npos);
  j = doc_of(sample());
  j["entries"][2]["url"] = "ftp://x/y";
  EXPECT_NE(where_refused(j).find("/entries/2/url"), std::string::npos);
}

TEST(Manifest, RefusesAScanWithoutACommandAndZeroBounds) {
  json j = doc_of(sample());
  j["argv"] = json::array();
  EXPECT_NE(where_refused(j).find("/argv"), std::string::npos);
  j = doc_of(sample());
  j["timeout_ms"] = 0;
  EXPECT_NE(where_refused(j).find("/timeout_ms"), std::string::npos);
  j = doc_of(sample());
  j["extract_policy"]["max_ratio"] = 0;
  EXPECT_NE(where_refused(j).find("/extract_policy/max_ratio"), std::string::npos);
}

TEST(Manifest, ProbeCanariesAreAddressesNeverNames) {
  Manifest m;
  m.wire = kWireVersion;
  m.timeout_ms = 1000;
  m.probe = ProbeSpec{{"example.com:53"}, {}};
  json j = doc_of(m);
  EXPECT_NE(where_refused(j).find("/probe/canaries/0"), std::string::npos);
  j["probe"]["canaries"] = {"1.1.1.1"};
  EXPECT_NE(where_refused(j).find("/probe/canaries/0"), std::string::npos);
  j["probe"]["canaries"] = {"1.1.1.1:0"};
  EXPECT_NE(where_refused(j).find("/probe/canaries/0"), std::string::npos);
  j["probe"]["canaries"] = json::array();
  j["probe"]["commands"] = {"relative/cmd"};
  EXPECT_NE(where_refused(j).find("/probe/commands/0"), std::string::npos);
  j["probe"]["commands"] = {""};
  EXPECT_NE(where_refused(j).find("/probe/commands/0"), std::string::npos);
  // A bare name is the image runtimes' way: the agent looks it up on the sandbox's PATH.
  j["probe"]["commands"] = {"guarddog", "/usr/bin/yara"};
  auto bare = parse_manifest(j.dump());
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare->probe->commands, (std::vector<std::string>{"guarddog", "/usr/bin/yara"}));
}

TEST(Manifest, RefusesNulInArgv) {
  json j = doc_of(sample());
  j["argv"][1] = std::string("a\0b", 3);
  EXPECT_NE(where_refused(j).find("/argv/1: contains NUL"), std::string::npos);
}

TEST(Manifest, ExtractPolicyDefaultsAreUpstreams) {
  ExtractPolicy p;
  EXPECT_EQ(p.max_entries, 50'000u);
  EXPECT_EQ(p.max_extracted_bytes, 512ULL * 1024 * 1024);
  EXPECT_EQ(p.max_ratio, 100u);
}

}  // namespace
}  // namespace batlehub::wire
