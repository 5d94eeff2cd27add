// Trivy 0.74.0 as a consumer of the sandbox port: upstream's trivy.rs tests, kept by name
// (upstream-today.md §2.4) on a HAND-WRITTEN report (tests/fixtures/trivy/README.md), the
// plan as data, and the real trivy run under `none` and under bwrap in its room — where,
// with no database and no registry to download one from, the answer is trivy's own words
// as an Upstream error, never a clean answer.
#include <gtest/gtest.h>

#include "adapters/scanners/subprocess.h"
#include "adapters/scanners/trivy.h"
#include "real_scanners.h"
#include "wire/caps.h"

namespace batlehub::adapters {
namespace {

using core::Finding;
using core::FindingKind;
using core::PackageKind;
using core::ReasonCode;
using core::ScannerError;
using core::Severity;
using nlohmann::json;
using namespace batlehub::testing;

TrivyScanner scanner(std::string endpoint = "", std::string db_repository = "") {
  TrivyOptions o;
  o.endpoint = std::move(endpoint);
  o.db_repository = std::move(db_repository);
  return TrivyScanner(o);
}

json trivy_fixture(const std::string& name) {
  auto j = parse_json(slurp(kFixtures + "trivy/" + name));
  EXPECT_TRUE(j) << name;
  return j ? *j : json();
}

// --- upstream's tests --------------------------------------------------------------------

TEST(Trivy, the_observed_report_maps_to_vulnerability_findings_with_their_ids) {
  auto fs = scanner().map(trivy_fixture("trivy-sbom.json"));
  ASSERT_TRUE(fs) << fs.error().message;
  ASSERT_EQ(fs->size(), 3u);
  const Finding& first = fs->front();
  EXPECT_EQ(first.scanner, "trivy");
  EXPECT_EQ(first.kind, FindingKind::kVulnerability);
  EXPECT_EQ(first.code, ReasonCode::kVulnerability);
  EXPECT_EQ(first.severity, Severity::kHigh);
  EXPECT_EQ(first.reference, "CVE-2020-8203");
  EXPECT_NE(first.summary.find("lodash"), std::string::npos) << first.summary;
  EXPECT_NE(first.summary.find("fixed in 4.17.19"), std::string::npos) << first.summary;
  EXPECT_EQ(
      describe(*fs),
      "trivy vulnerability VULNERABILITY high [CVE-2020-8203] nodejs-lodash: prototype pollution in zipObjectDeep "
      "function (lodash, fixed in 4.17.19)\n"
      "trivy vulnerability VULNERABILITY high [CVE-2021-23337] nodejs-lodash: command injection via template "
      "(lodash, fixed in 4.17.21)\n"
      "trivy vulnerability VULNERABILITY medium [CVE-2020-28500] nodejs-lodash: ReDoS via the toNumber, trim and "
      "trimEnd functions (lodash, fixed in 4.17.21)\n");
  auto raw = json::parse(first.raw);
  EXPECT_EQ(raw["PkgIdentifier"]["PURL"], "pkg:npm/lodash@4.17.15");
}

TEST(Trivy, over_an_archive_a_finding_carries_its_lockfile_and_never_an_aggregate_or_an_sboms_name) {
  const json report = json::parse(R"({"Results": [
    {"Target": "package/package-lock.json", "Class": "lang-pkgs", "Type": "npm",
     "Vulnerabilities": [{"VulnerabilityID": "CVE-2020-8203", "PkgName": "lodash", "Severity": "HIGH"}]},
    {"Target": "Node.js", "Class": "lang-pkgs", "Type": "node-pkg",
     "Vulnerabilities": [{"VulnerabilityID": "CVE-2021-23337", "PkgName": "lodash", "Severity": "HIGH"}]}]})");
  auto located = scanner().map(report, /*in_archive=*/true);
  ASSERT_TRUE(located);
  ASSERT_EQ(located->size(), 2u);
  EXPECT_EQ(json::parse((*located)[0].raw)["Target"], "package/package-lock.json");
  EXPECT_FALSE(json::parse((*located)[1].raw).contains("Target")) << (*located)[1].raw;
  auto from_sbom = scanner().map(report);
  ASSERT_TRUE(from_sbom);
  for (const Finding& f : *from_sbom) EXPECT_FALSE(json::parse(f.raw).contains("Target")) << f.raw;
}

TEST(Trivy, a_report_with_no_results_is_a_clean_answer) {
  for (const char* doc : {R"({"SchemaVersion": 2, "ArtifactName": "sbom.cdx.json", "ArtifactType": "cyclonedx"})",
                          R"({"SchemaVersion": 2, "Results": null})", R"({"Results": []})",
                          R"({"Results": [{"Target": "Node.js", "Class": "lang-pkgs", "Type": "node-pkg"}]})"}) {
    auto fs = scanner().map(json::parse(doc));
    ASSERT_TRUE(fs) << doc;
    EXPECT_TRUE(fs->empty()) << doc;
  }
}

TEST(Trivy, a_database_repository_becomes_the_db_repository_flag) {
  auto plan = scanner("", "mirror.internal:5000/aquasec/trivy-db:2").plan(with_sbom());
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->front().argv,
            (std::vector<std::string>{"trivy", "sbom", "--format", "json", "--quiet", "--skip-version-check",
                                      "--db-repository", "mirror.internal:5000/aquasec/trivy-db:2", "--cache-dir",
                                      ".trivy", "sbom.cdx.json"}));
}

TEST(Trivy, the_server_endpoint_becomes_the_client_mode_flag) {
  auto plan = scanner("http://trivy.internal:4954").plan(with_sbom());
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->front().argv, (std::vector<std::string>{
                                    "trivy", "sbom", "--format", "json", "--quiet", "--skip-version-check", "--server",
                                    "http://trivy.internal:4954", "--cache-dir", ".trivy", "sbom.cdx.json"}));
  auto local = scanner("").plan(with_sbom());
  ASSERT_TRUE(local);
  EXPECT_EQ(std::count(local->front().argv.begin(), local->front().argv.end(), "--server"), 0);
}

// --- more of the mapping, the plan and the exits -------------------------------------------

TEST(Trivy, a_vulnerability_without_a_title_or_a_fix_or_a_readable_severity_is_still_a_finding) {
  json doc = json::parse(R"({"Results": [{"Vulnerabilities": [
      {"PkgName": "left-pad", "Severity": "SEVERE"},
      {"VulnerabilityID": "GHSA-xxxx", "PkgName": "left-pad", "FixedVersion": "1.3.1", "Severity": "CRITICAL"},
      {"VulnerabilityID": "CVE-1", "PkgName": "x", "Title": "t", "Severity": "LOW"},
      "not an object"]}, "not an object either"]})");
  auto fs = scanner().map(doc);
  ASSERT_TRUE(fs) << fs.error().message;
  EXPECT_EQ(describe(*fs),
            "trivy vulnerability VULNERABILITY unknown [unknown] unknown in left-pad, no fixed version\n"
            "trivy vulnerability VULNERABILITY critical [GHSA-xxxx] GHSA-xxxx in left-pad, fixed in 1.3.1\n"
            "trivy vulnerability VULNERABILITY low [CVE-1] t (x, no fixed version)\n");
}

TEST(Trivy, a_document_that_is_not_a_report_is_an_output_error) {
  for (const char* doc : {"[]", "42", "\"Results\""}) {
    auto fs = scanner().map(json::parse(doc));
    ASSERT_FALSE(fs) << doc;
    EXPECT_EQ(fs.error().kind, ScannerError::Kind::kOutput);
  }
}

TEST(Trivy, with_an_sbom_the_bundle_is_the_sbom_inline_and_no_archive) {
  core::ScanInput in = with_sbom();
  auto plan = scanner().plan(in);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->size(), 1u);
  const core::RunSpec& spec = plan->front();
  ASSERT_EQ(spec.bundle.entries.size(), 1u);
  EXPECT_EQ(spec.bundle.entries[0].kind, wire::EntryKind::kInline);
  EXPECT_EQ(spec.bundle.entries[0].path.str(), "sbom.cdx.json");
  EXPECT_EQ(spec.bundle.entries[0].bytes, *in.sbom);
  EXPECT_TRUE(spec.network);
  EXPECT_EQ(spec.label.scanner, "trivy");
}

TEST(Trivy, without_an_sbom_the_artifact_is_extracted_at_tree_and_scanned_for_vulnerabilities) {
  core::ScanInput in = sample_input(PackageKind::kCargo, "npm-benign");
  auto plan = scanner().plan(in);
  ASSERT_TRUE(plan);
  const core::RunSpec& spec = plan->front();
  EXPECT_EQ(spec.argv,
            (std::vector<std::string>{"trivy", "fs", "--format", "json", "--quiet", "--skip-version-check",
                                      "--cache-dir", ".trivy", "--scanners", "vuln", "--list-all-pkgs", "tree"}));
  ASSERT_EQ(spec.bundle.entries.size(), 1u);
  EXPECT_EQ(spec.bundle.entries[0].kind, wire::EntryKind::kArchive);
  EXPECT_EQ(spec.bundle.entries[0].path.str(), "tree");
  EXPECT_EQ(spec.bundle.entries[0].blob, in.artifact);
  EXPECT_TRUE(spec.network);
}

TEST(Trivy, a_gems_data_tar_gz_is_named_for_the_agent_to_extract_in_place_and_nothing_else_is) {
  const auto gem = scanner().plan(sample_input(PackageKind::kRubygems, "npm-benign"))->front().bundle.entries[0];
  ASSERT_TRUE(gem.descend);
  EXPECT_EQ(gem.descend->str(), "data.tar.gz");
  for (PackageKind k : {PackageKind::kNpm, PackageKind::kPypi, PackageKind::kCargo, PackageKind::kComposer,
                        PackageKind::kGoproxy, PackageKind::kMaven}) {
    EXPECT_FALSE(scanner().plan(sample_input(k, "npm-benign"))->front().bundle.entries[0].descend)
        << core::to_string(k);
  }
}

TEST(Trivy, every_kind_is_supported_and_a_missing_artifact_is_unsupported_even_with_an_sbom) {
  for (PackageKind k :
       {PackageKind::kNpm, PackageKind::kPypi, PackageKind::kCargo, PackageKind::kRubygems, PackageKind::kComposer,
        PackageKind::kGoproxy, PackageKind::kMaven, PackageKind::kNuget, PackageKind::kConda}) {
    EXPECT_TRUE(scanner().supports(k)) << core::to_string(k);
  }
  core::ScanInput in;
  in.sbom = "{}";
  auto p = scanner().plan(in);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ScannerError::Kind::kUnsupported);
}

TEST(Trivy, an_sbom_larger_than_a_bundle_carries_inline_is_unsupported) {
  core::ScanInput in = with_sbom();
  in.sbom = std::string(wire::kInlineEntryMaxBytes + 1, ' ');
  auto p = scanner().plan(in);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ScannerError::Kind::kUnsupported);
  EXPECT_EQ(p.error().message, "the SBOM is 6291457 bytes; a bundle carries at most 6291456 inline");
}

TEST(Trivy, real_reports_with_no_vulnerability_are_clean_answers) {
  // REAL trivy 0.74.0 output, over an EMPTY database (tests/fixtures/trivy/README.md).
  json sbom = trivy_fixture("trivy-sbom-empty-db.json");
  EXPECT_EQ(sbom["Results"][0]["Type"], "node-pkg");
  EXPECT_EQ(sbom["Results"][0]["Packages"][0]["Identifier"]["PURL"], "pkg:npm/lodash@4.17.15");
  for (const char* f : {"trivy-sbom-empty-db.json", "trivy-fs-empty-db.json"}) {
    auto fs = scanner().map(trivy_fixture(f));
    ASSERT_TRUE(fs) << f;
    EXPECT_TRUE(fs->empty()) << f;
  }
}

TEST(Trivy, the_timeout_is_the_larger_of_its_own_and_the_jobs) {
  TrivyOptions o;
  o.timeout_secs = std::chrono::seconds(60);
  o.job_timeout = std::chrono::seconds(600);
  EXPECT_EQ(TrivyScanner(o).timeout(), std::chrono::seconds(600));
  o.timeout_secs = std::chrono::seconds(900);
  EXPECT_EQ(TrivyScanner(o).timeout(), std::chrono::seconds(900));
  auto plan = TrivyScanner(o).plan(with_sbom());
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->front().timeout, std::chrono::seconds(900));
}

TEST(Trivy, only_exit_zero_is_an_answer_and_any_other_exit_is_upstream) {
  core::ScanInput in;
  auto ok = scanner().parse(in, {answered(0, slurp(kFixtures + "trivy/trivy-sbom.json"))});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->size(), 3u);
  auto one = scanner().parse(in, {answered(1, "", "\nFATAL\tFatal error\trun error: init error: DB error\n\n")});
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().kind, ScannerError::Kind::kUpstream);
  EXPECT_EQ(one.error().message, "trivy exited 1: FATAL\tFatal error\trun error: init error: DB error");
  auto killed = scanner().parse(in, {failed(core::SandboxError::Kind::kCrashed, "trivy was killed by signal 9")});
  ASSERT_FALSE(killed);
  EXPECT_EQ(killed.error().kind, ScannerError::Kind::kCrashed);
  auto garbage = scanner().parse(in, {answered(0, "not json")});
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().kind, ScannerError::Kind::kOutput);
}

// --- the real trivy ----------------------------------------------------------------------

class TrivyReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!executable(std::string(kBatlehubBin) + "/trivy")) return;
    scratch_ = new Scratch();
    rooms_ = scratch_->root() / "rooms";
    if (bwrap_unavailable().empty()) room_error_ = new std::string(build_room_from(rooms_, "trivy", "trivy"));
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
    delete room_error_;
    room_error_ = nullptr;
  }
  void SetUp() override {
    if (!scratch_)
      GTEST_SKIP() << "trivy is not installed at " << kBatlehubBin << " (scripts/install-scanners.sh builds it)";
    if (auto why = own_network_missing(); !why.empty()) GTEST_SKIP() << why;
  }
  void need_bwrap() {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(room_error_ && room_error_->empty()) << (room_error_ ? *room_error_ : "");
  }

  // Trivy with no database and no registry it can reach: its own words, as Upstream.
  static void expect_no_database(const Expected<std::vector<Finding>, ScannerError>& got, const std::string& where) {
    ASSERT_FALSE(got) << where << ": a clean answer without a database\n" << describe(*got);
    EXPECT_EQ(got.error().kind, ScannerError::Kind::kUpstream) << where << ": " << core::describe(got.error());
    EXPECT_TRUE(got.error().message.starts_with("trivy exited 1: ")) << where << ": " << got.error().message;
    EXPECT_NE(got.error().message.find("failed to download vulnerability DB"), std::string::npos)
        << where << ": " << got.error().message;
  }

  static Scratch* scratch_;
  static fs::path rooms_;
  static std::string* room_error_;
};
Scratch* TrivyReal::scratch_ = nullptr;
fs::path TrivyReal::rooms_;
std::string* TrivyReal::room_error_ = nullptr;

TEST_F(TrivyReal, without_a_database_an_sbom_scan_is_an_upstream_error_in_trivys_words_under_none) {
  auto none = none_runtime(*scratch_);
  expect_no_database(core::scan_with(local_scanner(), *none, with_sbom()), "none, sbom");
  expect_no_database(core::scan_with(local_scanner(), *none, sample_input(PackageKind::kNpm, "npm-malicious")),
                     "none, fs");
}

TEST_F(TrivyReal, without_a_database_an_sbom_scan_is_the_same_upstream_error_under_bwrap) {
  BATLEHUB_NEED_BWRAP();
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  expect_no_database(core::scan_with(local_scanner(), *bwrap, with_sbom()), "bwrap, sbom");
  expect_no_database(core::scan_with(local_scanner(), *bwrap, sample_input(PackageKind::kNpm, "npm-malicious")),
                     "bwrap, fs");
}

void expect_a_clean_real_report(const TrivyScanner& s, const core::RunOutcome& r, const char* type,
                                const std::string& where) {
  ASSERT_TRUE(r) << where << ": " << r.error().message;
  EXPECT_EQ(r->status, 0) << where << ": " << r->stderr_tail;
  auto doc = parse_json(r->stdout_bytes);
  ASSERT_TRUE(doc) << where << ": " << r->stdout_bytes;
  EXPECT_EQ((*doc)["Trivy"]["Version"], "0.74.0") << where;
  if (type) {
    EXPECT_EQ((*doc)["Results"][0]["Type"], type) << where;
  } else {
    EXPECT_FALSE(doc->contains("Results")) << where;  // trivy fs reads lockfiles; an npm tarball has none
  }
  auto fs = s.parse({}, {r});
  ASSERT_TRUE(fs) << where << ": " << core::describe(fs.error());
  EXPECT_TRUE(fs->empty()) << where;
}

TEST_F(TrivyReal, with_a_database_in_its_cache_trivy_answers_under_none) {
  auto none = none_runtime(*scratch_);
  expect_a_clean_real_report(local_scanner(), run_trivy_with_empty_db(local_scanner(), *none, with_sbom()), "node-pkg",
                             "none, sbom");
  expect_a_clean_real_report(
      local_scanner(),
      run_trivy_with_empty_db(local_scanner(), *none, sample_input(PackageKind::kNpm, "npm-malicious")), nullptr,
      "none, fs");
}

TEST_F(TrivyReal, with_a_database_in_its_cache_an_sbom_scan_answers_the_same_under_bwrap) {
  BATLEHUB_NEED_BWRAP();
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  auto none = none_runtime(*scratch_);
  auto b = run_trivy_with_empty_db(local_scanner(), *bwrap, with_sbom());
  expect_a_clean_real_report(local_scanner(), b, "node-pkg", "bwrap, sbom");
  auto n = run_trivy_with_empty_db(local_scanner(), *none, with_sbom());
  ASSERT_TRUE(b && n);
  // The same report but for its id and time.
  auto strip = [](const std::string& out) {
    json j = json::parse(out);
    j.erase("ReportID");
    j.erase("CreatedAt");
    return j;
  };
  EXPECT_EQ(strip(b->stdout_bytes), strip(n->stdout_bytes));
}

// A KNOWN GAP, recorded so that it is seen: `trivy fs` always makes a process temp dir
// under os.TempDir() (pkg/x/os: MkdirTemp($TMPDIR or /tmp, "trivy-")) to prepare its post
// analysis, and so does its database download. The bwrap room's /tmp is part of the
// read-only root, and the agent gives the scanner no TMPDIR (HOME and PATH only), so every
// `trivy fs` in the room fails — as an Upstream error, never a clean answer. The fix is
// the runtime's (a writable /tmp, or TMPDIR under /work), not the adapter's: when it
// lands, this test fails and becomes the `none` test's twin.
// Trivy always makes a temporary directory under /tmp; the room is read-only, so the bwrap
// runtime gives every run a private, size-bounded tmpfs there.
TEST_F(TrivyReal, trivy_fs_answers_in_the_bwrap_room_as_under_none) {
  BATLEHUB_NEED_BWRAP();
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  auto none = none_runtime(*scratch_);
  auto input = sample_input(PackageKind::kNpm, "npm-malicious");
  auto b = run_trivy_with_empty_db(local_scanner(), *bwrap, input);
  expect_a_clean_real_report(local_scanner(), b, nullptr, "bwrap, fs");
  auto n = run_trivy_with_empty_db(local_scanner(), *none, input);
  ASSERT_TRUE(b && n);
  EXPECT_EQ(local_scanner().parse({}, {b})->size(), local_scanner().parse({}, {n})->size());
}

// With the database of tests/fixtures/trivy/one-advisory-db in its cache — one advisory,
// CVE-2020-8203 in lodash below 4.17.19, HIGH — the real trivy finds it, offline, wherever
// lodash 4.17.15 is named: in the SBOM recorded for the version, and in the lockfile an
// archive ships. The finding a user reads: the id, the severity, the package and its fix.
void expect_the_one_advisory(const TrivyScanner& s, const core::RunOutcome& r, const std::string& where) {
  ASSERT_TRUE(r) << where << ": " << r.error().message;
  ASSERT_EQ(r->status, 0) << where << ": " << r->stderr_tail;
  auto fs = s.parse({}, {r});
  ASSERT_TRUE(fs) << where << ": " << core::describe(fs.error());
  ASSERT_EQ(fs->size(), 1u) << where << ":\n" << describe(*fs) << r->stdout_bytes;
  const Finding& f = fs->front();
  EXPECT_EQ(f.reference, "CVE-2020-8203") << where;
  EXPECT_EQ(f.severity, core::Severity::kHigh) << where;
  EXPECT_EQ(f.kind, core::FindingKind::kVulnerability) << where;
  EXPECT_EQ(f.code, core::ReasonCode::kVulnerability) << where;
  EXPECT_EQ(f.summary, "Prototype Pollution in lodash (lodash, fixed in 4.17.19)") << where;
  json raw = json::parse(f.raw);
  EXPECT_EQ(raw["InstalledVersion"], "4.17.15") << where;
  EXPECT_EQ(raw["SeveritySource"], "ghsa") << where;
}

TEST_F(TrivyReal, with_one_advisory_in_its_database_trivy_finds_it_in_an_sbom_under_none_and_bwrap) {
  auto none = none_runtime(*scratch_);
  expect_the_one_advisory(local_scanner(), run_trivy_with_db(local_scanner(), *none, with_sbom(), "one-advisory-db"),
                          "none, sbom");
  BATLEHUB_NEED_BWRAP();
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  expect_the_one_advisory(local_scanner(), run_trivy_with_db(local_scanner(), *bwrap, with_sbom(), "one-advisory-db"),
                          "bwrap, sbom");
}

TEST_F(TrivyReal, with_one_advisory_in_its_database_trivy_finds_it_in_an_archives_lockfile_under_bwrap) {
  BATLEHUB_NEED_BWRAP();
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  auto r = run_trivy_with_db(local_scanner(), *bwrap, locked_sample(), "one-advisory-db");
  expect_the_one_advisory(local_scanner(), r, "bwrap, fs");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->stdout_bytes)["Results"][0]["Target"], "package/package-lock.json") << r->stdout_bytes;
  // --list-all-pkgs: every package the lockfile names is the run's inventory, the
  // components osv asks about beside the coordinate.
  const std::vector<std::string> components = local_scanner().components({r});
  EXPECT_NE(std::find(components.begin(), components.end(), "pkg:npm/lodash@4.17.15"), components.end())
      << r->stdout_bytes;
  // The same archive with the empty database: a clean answer, so the finding is the
  // database's, not the sample's.
  auto clean = run_trivy_with_db(local_scanner(), *bwrap, locked_sample(), "empty-db");
  ASSERT_TRUE(clean) << clean.error().message;
  auto none_found = local_scanner().parse({}, {clean});
  ASSERT_TRUE(none_found) << core::describe(none_found.error());
  EXPECT_TRUE(none_found->empty()) << describe(*none_found);
}

// A gem that vendors JavaScript ships its package-lock.json inside data.tar.gz, where trivy
// alone never looks (it gave no finding on any gem before wire 2's `descend`).
TEST_F(TrivyReal, with_one_advisory_in_its_database_trivy_finds_it_in_a_lockfile_inside_a_gems_data_tar_gz) {
  BATLEHUB_NEED_BWRAP();
  const fs::path locked = kFixtures + "trivy/samples/npm-locked/package/";
  const std::string data =
      make_tgz({file("vendor/assets/package.json", slurp((locked / "package.json").string())),
                file("vendor/assets/package-lock.json", slurp((locked / "package-lock.json").string())),
                file("lib/assets.rb", "module Assets; end\n")});
  core::ScanInput in;
  in.package = core::Package{PackageKind::kRubygems, "assets", "1.0.0", "test"};
  in.artifact = adapters::memory_blob(
      make_tar({file("metadata.gz", "meta"), file("data.tar.gz", data), file("checksums.yaml.gz", "sums")}),
      "assets-1.0.0.gem");
  auto bwrap = bwrap_runtime(*scratch_, rooms_);
  auto r = run_trivy_with_db(local_scanner(), *bwrap, in, "one-advisory-db");
  expect_the_one_advisory(local_scanner(), r, "bwrap, gem");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->stdout_bytes)["Results"][0]["Target"], "vendor/assets/package-lock.json") << r->stdout_bytes;
  // The finding says which file, for SARIF's location.
  auto fs = local_scanner().parse(in, {r});
  ASSERT_TRUE(fs && fs->size() == 1u);
  EXPECT_EQ(json::parse(fs->front().raw)["Target"], "vendor/assets/package-lock.json");
}

TEST_F(TrivyReal, a_server_that_does_not_answer_is_an_upstream_error_too) {
  auto none = none_runtime(*scratch_);
  // A port on loopback nothing listens on: the client-mode path, refused at once.
  auto got = core::scan_with(local_scanner("http://127.0.0.1:9"), *none, with_sbom());
  ASSERT_FALSE(got) << describe(*got);
  EXPECT_EQ(got.error().kind, ScannerError::Kind::kUpstream) << core::describe(got.error());
  EXPECT_TRUE(got.error().message.starts_with("trivy exited 1: ")) << got.error().message;
}

TEST_F(TrivyReal, the_probe_passes_for_its_room) {
  BATLEHUB_NEED_BWRAP();
  auto r =
      bwrap_runtime(*scratch_, rooms_)->probe(core::ProbeTarget{"trivy", std::nullopt, {"/usr/local/bin/trivy"}, {}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
}

TEST_F(TrivyReal, a_command_that_hangs_crashes_or_prints_garbage_is_a_scanner_error_under_none_and_bwrap) {
  fs::path fakes = scratch_->root() / "fakes";
  write_fakes(fakes);
  struct Case {
    const char* fake;
    ScannerError::Kind want;
  };
  const Case cases[] = {{"fake-hang", ScannerError::Kind::kTimeout},
                        {"fake-segv", ScannerError::Kind::kCrashed},
                        {"fake-garbage", ScannerError::Kind::kOutput},
                        {"fake-exit2", ScannerError::Kind::kUpstream}};
  auto run = [&](core::SandboxRuntime& rt, const fs::path& dir, const std::string& room) {
    for (const Case& c : cases) {
      TrivyOptions o;
      o.name = room;
      o.command = (dir / c.fake).string();
      o.timeout_secs = std::chrono::seconds(1);
      o.job_timeout = std::chrono::seconds(2);
      auto got = core::scan_with(TrivyScanner(o), rt, with_sbom());
      ASSERT_FALSE(got) << rt.name() << " " << c.fake;
      EXPECT_EQ(got.error().kind, c.want) << rt.name() << " " << c.fake << ": " << core::describe(got.error());
      if (std::string(c.fake) == "fake-exit2") {
        EXPECT_EQ(got.error().message, "trivy exited 2: fake: cannot go on");
      }
    }
  };
  auto none = none_runtime(*scratch_);
  run(*none, fakes, "trivy");
  if (!bwrap_unavailable().empty()) return;
  ASSERT_EQ(build_fake_room(rooms_, "fake-trivy", fakes), "");
  run(*bwrap_runtime(*scratch_, rooms_), "/usr/bin", "fake-trivy");
}

}  // namespace
}  // namespace batlehub::adapters
