// The scanners a configuration builds (server/scanners.h): the network scanners are not in
// this build and build nothing; yara's upstream rules_dir becomes one rules text.
#include "server/scanners.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "adapters/scanners/yara.h"
#include "storage_table.h"

namespace batlehub::server {

using batlehub::testing::storage_table;
namespace {

namespace fs = std::filesystem;

config::Config loaded(const std::string& toml) {
  auto l = config::load_string(toml + storage_table(toml), "test.toml", config::env_of({}));
  EXPECT_TRUE(l) << (l ? "" : l.error().describe());
  // A named value: g++ 12 warns (maybe-uninitialized) on the conditional's temporary.
  config::Config out;
  if (l) out = l->config;
  return out;
}

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/batlehub-scanners-test-XXXXXX";
    const char* made = ::mkdtemp(tmpl);
    EXPECT_NE(made, nullptr);
    path = made != nullptr ? made : "/nonexistent-batlehub-scanners-test";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((fs::path(path) / rel).parent_path());
    std::ofstream(fs::path(path) / rel) << text;
  }
  std::string path;
};

TEST(BuildScanners, TheNetworkScannersBuildNothingAndTheOthersStillBuild) {
  auto built = build_scanners(loaded(R"(
[scanners.osv]
[scanners.mlab]
[scanners.sigstore]
[scanners.socket]
api_key = "k"
[scanners.guarddog]
command = "guarddog"
)"),
                              config::env_of({}));
  ASSERT_TRUE(built) << built.error();
  ASSERT_EQ(built->size(), 1u);
  EXPECT_EQ((*built)[0]->name(), "guarddog");
}

TEST(BuildScanners, YaraRulesDirIsEveryYarAndYaraFileInPathOrderAsOneText) {
  TempDir d;
  d.write("b.yara", "rule b { condition: true }");
  d.write("a.yar", "rule a { condition: true }");
  d.write("sub/c.yar", "rule c { condition: true }");
  d.write("README", "rule not_a_rule { condition: true }");
  d.write("d.yar.bak", "rule backup { condition: true }");
  auto built = build_scanners(loaded("[scanners.yara]\nrules_dir = \"" + d.path + "\"\n"), config::env_of({}));
  ASSERT_TRUE(built) << built.error();
  ASSERT_EQ(built->size(), 1u);
  const auto* yara = dynamic_cast<const adapters::YaraScanner*>((*built)[0].get());
  ASSERT_NE(yara, nullptr);
  EXPECT_EQ(yara->options().rules,
            "rule a { condition: true }\nrule b { condition: true }\nrule c { condition: true }\n");
}

TEST(BuildScanners, AYaraRulesDirWithNoRulesOrThatIsNotThereIsRefusedByName) {
  TempDir d;
  d.write("notes.txt", "nothing");
  auto empty = build_scanners(loaded("[scanners.yara]\nrules_dir = \"" + d.path + "\"\n"), config::env_of({}));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error(), "[scanners.yara] yara rules_dir " + d.path + " holds no .yar or .yara file");
  auto absent = build_scanners(loaded("[scanners.yara]\nrules_dir = \"" + d.path + "/absent\"\n"), config::env_of({}));
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error(), "[scanners.yara] yara rules_dir " + d.path + "/absent: No such file or directory");
}

TEST(BuildScanners, AYaraRulesDirOverFourMebibytesIsRefused) {
  TempDir d;
  d.write("a.yar", std::string(3 * 1024 * 1024, ' '));
  d.write("b.yar", std::string(2 * 1024 * 1024, ' '));
  auto built = build_scanners(loaded("[scanners.yara]\nrules_dir = \"" + d.path + "\"\n"), config::env_of({}));
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error(),
            "[scanners.yara] yara rules_dir " + d.path + " holds more than 4 MiB of rules (at " + d.path + "/b.yar)");
}

}  // namespace
}  // namespace batlehub::server
