// The entities' names, as upstream spells them (upstream-today.md §5.4).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/findings.h"

namespace batlehub::core {
namespace {

TEST(PackageKind, every_kind_round_trips_through_its_name) {
  const std::vector<std::pair<PackageKind, std::string>> kinds{
      {PackageKind::kNpm, "npm"},         {PackageKind::kPypi, "pypi"},         {PackageKind::kCargo, "cargo"},
      {PackageKind::kRubygems, "rubygems"}, {PackageKind::kComposer, "composer"}, {PackageKind::kGoproxy, "goproxy"},
      {PackageKind::kMaven, "maven"},     {PackageKind::kNuget, "nuget"},       {PackageKind::kConda, "conda"},
  };
  for (const auto& [k, name] : kinds) {
    EXPECT_EQ(to_string(k), name);
    EXPECT_EQ(parse_package_kind(name), k) << name;
  }
}

TEST(PackageKind, an_unknown_name_is_refused_and_names_are_case_sensitive) {
  EXPECT_EQ(parse_package_kind(""), std::nullopt);
  EXPECT_EQ(parse_package_kind("deb"), std::nullopt);
  EXPECT_EQ(parse_package_kind("NPM"), std::nullopt);
  EXPECT_EQ(parse_package_kind("npm "), std::nullopt);
}

TEST(Package, the_coordinate_is_registry_name_at_version) {
  Package p{PackageKind::kNpm, "@scope/left-pad", "1.3.0", "npm-sec"};
  EXPECT_EQ(p.coordinate(), "npm-sec:@scope/left-pad@1.3.0");
  EXPECT_EQ(Package{}.registry, "local");
}

TEST(Severity, every_severity_round_trips_and_orders_unknown_to_critical) {
  const std::vector<std::pair<Severity, std::string>> sev{{Severity::kUnknown, "unknown"},
                                                           {Severity::kLow, "low"},
                                                           {Severity::kMedium, "medium"},
                                                           {Severity::kHigh, "high"},
                                                           {Severity::kCritical, "critical"}};
  for (const auto& [s, name] : sev) {
    EXPECT_EQ(to_string(s), name);
    EXPECT_EQ(parse_severity(name), s) << name;
  }
  EXPECT_LT(Severity::kUnknown, Severity::kLow);
  EXPECT_LT(Severity::kLow, Severity::kMedium);
  EXPECT_LT(Severity::kMedium, Severity::kHigh);
  EXPECT_LT(Severity::kHigh, Severity::kCritical);
}

TEST(Severity, moderate_is_medium_and_parsing_ignores_case) {
  EXPECT_EQ(parse_severity("moderate"), Severity::kMedium);
  EXPECT_EQ(parse_severity("MODERATE"), Severity::kMedium);
  EXPECT_EQ(parse_severity("Moderate"), Severity::kMedium);
  EXPECT_EQ(parse_severity("HIGH"), Severity::kHigh);
  EXPECT_EQ(parse_severity("Critical"), Severity::kCritical);
  EXPECT_EQ(parse_severity("lOw"), Severity::kLow);
  EXPECT_EQ(parse_severity("UNKNOWN"), Severity::kUnknown);
  EXPECT_EQ(to_string(*parse_severity("moderate")), "medium");  // never written back as "moderate"
}

TEST(Severity, an_unknown_word_is_refused) {
  for (const char* s : {"", "severe", "med", "high ", " high", "info", "none"}) {
    EXPECT_EQ(parse_severity(s), std::nullopt) << "'" << s << "'";
  }
}

TEST(FindingKind, every_kind_is_snake_case) {
  const std::vector<std::pair<FindingKind, std::string>> kinds{
      {FindingKind::kVulnerability, "vulnerability"}, {FindingKind::kMalwareSignal, "malware_signal"},
      {FindingKind::kInstallHook, "install_hook"},    {FindingKind::kProvenance, "provenance"},
      {FindingKind::kSignature, "signature"},         {FindingKind::kLicense, "license"},
      {FindingKind::kPublisher, "publisher"},         {FindingKind::kTyposquat, "typosquat"},
      {FindingKind::kTransition, "transition"},       {FindingKind::kAge, "age"},
      {FindingKind::kPending, "pending"},             {FindingKind::kSocVerdict, "soc_verdict"},
      {FindingKind::kScannerError, "scanner_error"},  {FindingKind::kBlockList, "block_list"},
      {FindingKind::kRef, "ref"},
  };
  ASSERT_EQ(kinds.size(), 15u);
  std::set<std::string> seen;
  for (const auto& [k, name] : kinds) {
    EXPECT_EQ(to_string(k), name);
    EXPECT_TRUE(seen.insert(std::string(to_string(k))).second) << name;
  }
}

TEST(ReasonCode, all_29_codes_are_screaming_snake_and_distinct) {
  const std::vector<std::pair<ReasonCode, std::string>> codes{
      {ReasonCode::kMinAgeNotMet, "MIN_AGE_NOT_MET"},
      {ReasonCode::kTimestampMissing, "TIMESTAMP_MISSING"},
      {ReasonCode::kScanPending, "SCAN_PENDING"},
      {ReasonCode::kScannerError, "SCANNER_ERROR"},
      {ReasonCode::kScannerUnsupported, "SCANNER_UNSUPPORTED"},
      {ReasonCode::kVulnerability, "VULNERABILITY"},
      {ReasonCode::kMalwareSignal, "MALWARE_SIGNAL"},
      {ReasonCode::kInstallHook, "INSTALL_HOOK"},
      {ReasonCode::kTyposquatSuspect, "TYPOSQUAT_SUSPECT"},
      {ReasonCode::kPublisherChanged, "PUBLISHER_CHANGED"},
      {ReasonCode::kInstallHookAdded, "INSTALL_HOOK_ADDED"},
      {ReasonCode::kRepositoryMoved, "REPOSITORY_MOVED"},
      {ReasonCode::kDormantRelease, "DORMANT_RELEASE"},
      {ReasonCode::kUnpublishedUpstream, "UNPUBLISHED_UPSTREAM"},
      {ReasonCode::kProvenanceMissing, "PROVENANCE_MISSING"},
      {ReasonCode::kProvenanceInvalid, "PROVENANCE_INVALID"},
      {ReasonCode::kProvenanceUnverifiable, "PROVENANCE_UNVERIFIABLE"},
      {ReasonCode::kProvenanceRemoved, "PROVENANCE_REMOVED"},
      {ReasonCode::kSignatureMissing, "SIGNATURE_MISSING"},
      {ReasonCode::kLicenseDenied, "LICENSE_DENIED"},
      {ReasonCode::kUntrustedPublisher, "UNTRUSTED_PUBLISHER"},
      {ReasonCode::kBlockList, "BLOCK_LIST"},
      {ReasonCode::kSocVerdict, "SOC_VERDICT"},
      {ReasonCode::kAdminOverride, "ADMIN_OVERRIDE"},
      {ReasonCode::kMutableRef, "MUTABLE_REF"},
      {ReasonCode::kTagMoved, "TAG_MOVED"},
      {ReasonCode::kAssetReplaced, "ASSET_REPLACED"},
      {ReasonCode::kPinnedRefRequired, "PINNED_REF_REQUIRED"},
      {ReasonCode::kRawScript, "RAW_SCRIPT"},
  };
  ASSERT_EQ(codes.size(), 29u);
  std::set<std::string> seen;
  for (const auto& [c, name] : codes) {
    EXPECT_EQ(to_string(c), name);
    EXPECT_TRUE(seen.insert(std::string(to_string(c))).second) << name;
    for (char ch : name) EXPECT_TRUE((ch >= 'A' && ch <= 'Z') || ch == '_') << name;
  }
  // The enum has no 30th value: the one after the last is not named.
  EXPECT_EQ(to_string(static_cast<ReasonCode>(static_cast<int>(ReasonCode::kRawScript) + 1)), "?");
}

}  // namespace
}  // namespace batlehub::core
