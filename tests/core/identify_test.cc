// Names from file names, rule by rule: each ecosystem's grammar, the names that fit none,
// and the ones the issue saw guessed wrong (a wheel-tagged .tar.gz, a prerelease, a dotted
// NuGet id, a dashed sdist name).
#include <gtest/gtest.h>

#include "core/identify.h"

namespace batlehub::core {
namespace {

struct Case {
  const char* file;
  std::optional<PackageKind> hint;
  std::optional<PackageKind> kind;
  const char* name;     // "" = none told
  const char* version;  // "" = none told
};

class ReadFileName : public ::testing::TestWithParam<Case> {};

TEST_P(ReadFileName, tells_what_the_grammar_allows_and_nothing_more) {
  const Case& c = GetParam();
  FileNameReading r = read_file_name(c.file, c.hint);
  EXPECT_EQ(r.kind, c.kind) << c.file;
  EXPECT_EQ(r.name.value_or(""), c.name) << c.file;
  EXPECT_EQ(r.version.value_or(""), c.version) << c.file;
}

constexpr auto npm = PackageKind::kNpm;
constexpr auto pypi = PackageKind::kPypi;

INSTANTIATE_TEST_SUITE_P(
    Grammars, ReadFileName,
    ::testing::Values(
        // npm tarballs: <name>-<semver>.tgz; a prerelease keeps its dashes. A scope becomes a
        // prefix (@babel/core → babel-core-8.1.3.tgz), so a name with a dash is the
        // package.json's to tell: the version stands, the name is left unknown.
        Case{"/x/left-pad-1.3.0.tgz", {}, npm, "", "1.3.0"}, Case{"babel-core-8.1.3.tgz", {}, npm, "", "8.1.3"},
        Case{"lodash-4.17.21.tgz", {}, npm, "lodash", "4.17.21"},
        Case{"@scope-pkg-2.0.0-beta.1.tgz", {}, npm, "", "2.0.0-beta.1"},
        Case{"pkg-2.0.0-1.tgz", {}, npm, "pkg", "2.0.0-1"}, Case{"noversion.tgz", {}, npm, "", ""},
        Case{"left-pad-1.3.tgz", {}, npm, "", ""},  // not a semver: no guess
        // wheels, PEP 427: name-version(-build)?-py-abi-plat.whl
        Case{"requests-2.31.0-py3-none-any.whl", {}, pypi, "requests", "2.31.0"},
        Case{"PyYAML-6.0.1-cp311-cp311-manylinux_2_17_x86_64.whl", {}, pypi, "PyYAML", "6.0.1"},
        Case{"foo-1.0-1-py3-none-any.whl", {}, pypi, "foo", "1.0"},
        // sdists, PEP 625 and older: the name may hold dashes and the version is all the rest,
        // a whole PEP 440 version after exactly one dash. A wheel-like tag fits no split and
        // two splits are two readings: both are the metadata's to tell, kind included.
        Case{"evil_setup-0.1.0.tar.gz", {}, pypi, "evil_setup", "0.1.0"},
        Case{"python-dateutil-2.8.2.tar.gz", {}, pypi, "python-dateutil", "2.8.2"},
        Case{"artifact-lab-3-package-4c04b1a2-0.1.tar.gz", {}, pypi, "artifact-lab-3-package-4c04b1a2", "0.1"},
        Case{"syscord-0.1.0-py3-none-any.tar.gz", {}, std::nullopt, "", ""},
        Case{"a-1-2.tar.gz", {}, std::nullopt, "", ""},  // a 1-2 (an implicit post-release), or a-1 2?
        Case{"a-1-2.tar.gz", pypi, pypi, "", ""}, Case{"Django-4.2rc1.tar.gz", {}, pypi, "Django", "4.2rc1"},
        Case{"oldpkg-1.0.post2.zip", {}, pypi, "oldpkg", "1.0.post2"}, Case{"x-1.0.tar.gz", {}, pypi, "x", "1.0"},
        Case{"release.tar.gz", {}, std::nullopt, "", ""},  // fits no grammar: --kind
        Case{"notes-final.zip", {}, std::nullopt, "", ""},
        // the operator's --kind picks the grammar of a shared extension
        Case{"left-pad-1.3.0.tar.gz", npm, npm, "", "1.3.0"},
        Case{"lodash-4.17.21.tar.gz", npm, npm, "lodash", "4.17.21"},
        Case{"serde-1.0.0.tar.gz", PackageKind::kCargo, PackageKind::kCargo, "serde", "1.0.0"},
        Case{"release.tar.gz", npm, npm, "", ""},
        // crates, gems, jars, nupkgs
        Case{"serde-json-1.0.108.crate", {}, PackageKind::kCargo, "serde-json", "1.0.108"},
        Case{"rails-7.0.0.gem", {}, PackageKind::kRubygems, "rails", "7.0.0"},
        Case{"nokogiri-1.15.4-x86_64-linux.gem", {}, PackageKind::kRubygems, "nokogiri", "1.15.4"},
        Case{"commons-lang3-3.14.0.jar", {}, PackageKind::kMaven, "commons-lang3", "3.14.0"},
        Case{"Newtonsoft.Json.13.0.3.nupkg", {}, PackageKind::kNuget, "Newtonsoft.Json", "13.0.3"},
        // no package extension at all
        Case{"README.md", {}, std::nullopt, "", ""}));

TEST(Versions, semver_and_pep440_as_their_specs_write_them) {
  EXPECT_TRUE(is_semver("1.2.3"));
  EXPECT_TRUE(is_semver("1.0.0-alpha.1+build.5"));
  EXPECT_FALSE(is_semver("1.2"));
  EXPECT_FALSE(is_semver("01.2.3"));
  EXPECT_TRUE(is_pep440("2!1.0.post2.dev3"));
  EXPECT_TRUE(is_pep440("1.0+local.7"));
  EXPECT_TRUE(is_pep440("1.0-1"));  // PEP 440's implicit post-release
  EXPECT_FALSE(is_pep440("1.0-py3-none-any"));
  EXPECT_TRUE(is_pep440("1.0RC1"));
  EXPECT_FALSE(is_pep440("0.1.0-py3-none-any"));
  EXPECT_FALSE(is_pep440("latest"));
  EXPECT_FALSE(is_pep440(std::string(300, '1')));  // bounded before the regex runs
}

struct Grammar {
  PackageKind kind;
  const char* name;
  const char* problem;  // "" = the kind's registry allows it
};

class NameProblem : public ::testing::TestWithParam<Grammar> {};

TEST_P(NameProblem, says_what_no_registry_allows) {
  const Grammar& g = GetParam();
  auto why = name_problem(g.kind, g.name);
  EXPECT_EQ(why.value_or(""), g.problem) << to_string(g.kind) << " " << g.name;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, NameProblem,
    ::testing::Values(
        Grammar{npm, "lodash", ""}, Grammar{npm, "@babel/core", ""}, Grammar{npm, "JSONStream", ""},
        Grammar{npm, "pip install x", "it holds a space"}, Grammar{npm, "a\tb", "it holds a control character (0x09)"},
        Grammar{npm, "..\\x", "it holds a path separator ('\\')"},
        Grammar{npm, "a/b", "it holds a path separator ('/')"},
        Grammar{npm, "@a/b/c",
                "it does not follow npm's naming rules (URL-safe characters, an optional @scope/, no "
                "leading '.' or '_')"},
        Grammar{npm, "", "it is empty"}, Grammar{npm, "caf\xc3\xa9", "it holds a byte outside ASCII"},
        Grammar{pypi, "requests", ""}, Grammar{pypi, "zope.interface", ""},
        Grammar{pypi, "pip install haxorsiambomber", "it holds a space"},
        Grammar{pypi, "-x-",
                "it does not follow PEP 508 (letters, digits, '.', '_' and '-', beginning and ending "
                "with a letter or digit)"},
        Grammar{pypi, "x/../y", "it holds a path separator ('/')"}, Grammar{PackageKind::kCargo, "serde_json", ""},
        Grammar{PackageKind::kCargo, "9lives",
                "it does not follow crates.io's rules (an ASCII letter, then "
                "letters, digits, '-' or '_', at most 64)"},
        Grammar{PackageKind::kRubygems, "rails", ""}, Grammar{PackageKind::kMaven, "com.google.guava:guava", ""},
        Grammar{PackageKind::kMaven, "guava", ""},
        Grammar{PackageKind::kMaven, "a:b:c",
                "it does not follow Maven's rules (groupId:artifactId, each of "
                "letters, digits, '.', '_' and '-')"},
        Grammar{PackageKind::kComposer, "symfony/console", ""},
        Grammar{PackageKind::kComposer, "symfony/../etc",
                "it does not follow Composer's rules (vendor/package: "
                "lowercase letters, digits, '.', '_' and '-')"},
        Grammar{PackageKind::kGoproxy, "github.com/x/y", ""},
        Grammar{PackageKind::kGoproxy, "github.com//y",
                "it does not follow Go's module paths (elements of letters, "
                "digits, '.', '_', '~' and '-' joined by '/')"},
        Grammar{PackageKind::kNuget, "Newtonsoft.Json", ""}, Grammar{PackageKind::kConda, "numpy", ""},
        Grammar{PackageKind::kConda, "NumPy",
                "it does not follow conda's rules (lowercase letters, digits, '.', '_' "
                "and '-')"}));

TEST(VersionProblem, each_kind_by_its_own_grammar) {
  EXPECT_EQ(version_problem(npm, "4.17.21"), std::nullopt);
  EXPECT_EQ(version_problem(npm, "4.17"), "it is not a semantic version (MAJOR.MINOR.PATCH[-pre][+build])");
  EXPECT_EQ(version_problem(pypi, "2!1.0.post2.dev3"), std::nullopt);
  EXPECT_EQ(version_problem(pypi, "2.1.3 (final)"), "it holds a space");
  EXPECT_EQ(version_problem(pypi, "latest"), "it is not a PEP 440 version");
  EXPECT_EQ(version_problem(PackageKind::kGoproxy, "v0.0.0-20260905035102-160fafc42237"), std::nullopt);
  EXPECT_EQ(version_problem(PackageKind::kGoproxy, "1.2.3"),
            "it is not a Go module version (v and a semantic version)");
  EXPECT_EQ(version_problem(PackageKind::kMaven, "33.3.1-jre"), std::nullopt);
  EXPECT_EQ(version_problem(PackageKind::kMaven, "1.0/.."), "it holds a path separator ('/')");
  EXPECT_EQ(version_problem(PackageKind::kNuget, "-1"),
            "it does not follow a version's characters (letters, digits, '.', '_', '+', '!', '~' and '-', beginning "
            "with a letter or digit)");
  EXPECT_EQ(version_problem(PackageKind::kRubygems, "7.1.0.pre"), std::nullopt);
}

TEST(Shown, control_bytes_and_non_ascii_are_escaped_and_long_input_cut) {
  EXPECT_EQ(shown("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(shown("caf\xc3\xa9"), "caf\\xc3\\xa9");
  EXPECT_EQ(shown(std::string(200, 'x'), 4), "xxxx...");
}

}  // namespace
}  // namespace batlehub::core
