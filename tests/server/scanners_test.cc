// The scanners a configuration builds (server/root/scanners.h): the sandboxed ones, the network
// ones beside them (upstream's implicit osv among them), which of them a registry's version
// is scanned with; yara's upstream rules_dir becomes one rules text.
#include "server/root/scanners.h"

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

std::vector<std::string> names_of(const NetworkScanners& n) {
  std::vector<std::string> out;
  for (const auto& s : n.scanners) out.push_back(s->name());
  for (const auto& e : n.enrichers) out.push_back("+" + e->name());
  return out;
}

TEST(BuildScanners, EachTypeBuildsOnItsSideOfTheWall) {
  const config::Config c = loaded(R"(
[scanners.osv]
api_url = "http://127.0.0.1:9/osv"
[scanners.mlab]
[scanners.sigstore]
[scanners.socket]
api_key = "k"
[scanners.guarddog]
command = "guarddog"
)");
  auto built = build_scanners(c, config::env_of({}));
  ASSERT_TRUE(built) << built.error();
  ASSERT_EQ(built->size(), 1u);
  EXPECT_EQ((*built)[0]->name(), "guarddog");
  auto network = build_network_scanners(c);
  ASSERT_TRUE(network) << network.error();
  EXPECT_EQ(names_of(*network), (std::vector<std::string>{"osv", "sigstore", "socket", "+mlab"}));
}

// Upstream's osv exists without a table (upstream-today.md §5.2): built at its defaults when
// a registry names it, and only then.
TEST(BuildScanners, UpstreamsImplicitOsvIsBuiltWhenARegistryNamesIt) {
  auto none = build_network_scanners(loaded("[scanners.guarddog]\ncommand = \"guarddog\"\n"));
  ASSERT_TRUE(none) << none.error();
  EXPECT_TRUE(none->empty());
  auto implicit = build_network_scanners(
      loaded("[scanners.guarddog]\ncommand = \"guarddog\"\n[[registries]]\nname = \"npmjs\"\ntype = \"npm\"\n"
             "[registries.security]\nrequired_scanners = [\"guarddog\"]\n"));  // scanners: ["osv"], the default
  ASSERT_TRUE(implicit) << implicit.error();
  EXPECT_EQ(names_of(*implicit), std::vector<std::string>{"osv"});
  auto unreadable = build_network_scanners(loaded("[scanners.osv]\nca_file = \"/nonexistent/batlehub-test-ca.pem\"\n"));
  ASSERT_FALSE(unreadable);
  EXPECT_EQ(unreadable.error(), "[scanners.osv] ca_file /nonexistent/batlehub-test-ca.pem: not a readable file");
}

// A registry's security table says what its versions are scanned with (`scanners` and
// `required_scanners`); a registry without one (batlehub scan's "local") gets them all.
TEST(BuildScanners, ARegistrysVersionIsScannedWithWhatItsTableNamesAndSupportsItsKind) {
  const config::Config c = loaded(R"(
[scanners.guarddog]
command = "guarddog"
[scanners.yara]
rules = "/nonexistent/rules.yar"
[scanners.osv]
[scanners.sigstore]
[scanners.mlab]
[[registries]]
name = "npmjs"
type = "npm"
[registries.security]
scanners = ["osv", "sigstore", "mlab"]
required_scanners = ["guarddog"]
)");
  std::vector<std::unique_ptr<core::Scanner>> sandboxed;
  {
    config::Config no_yara = c;
    no_yara.scanners.erase(no_yara.scanners.begin() + 1);  // its rules file is not there
    auto built = build_scanners(no_yara, config::env_of({}));
    ASSERT_TRUE(built) << built.error();
    sandboxed = std::move(*built);
  }
  auto network = build_network_scanners(c);
  ASSERT_TRUE(network) << network.error();
  const ScannerSet npm = scanners_for(c, sandboxed, *network, "npmjs", core::PackageKind::kNpm);
  EXPECT_EQ(npm.names(), "guarddog, osv, sigstore (+mlab)");
  // sigstore reads npm's attestations only; guarddog's ecosystems are npm, pypi and go.
  EXPECT_EQ(scanners_for(c, sandboxed, *network, "npmjs", core::PackageKind::kCargo).names(), "osv (+mlab)");
  EXPECT_EQ(scanners_for(c, sandboxed, *network, "local", core::PackageKind::kNpm).names(),
            "guarddog, osv, sigstore (+mlab)");
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
