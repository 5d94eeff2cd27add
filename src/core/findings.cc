#include "core/findings.h"

#include <array>
#include <cctype>
#include <utility>

#include "base/names.h"

namespace batlehub::core {

namespace {

using base::Names;
using base::name_of;
using base::value_of;

constexpr Names<PackageKind, 9> kKinds{{{PackageKind::kNpm, "npm"},
                                        {PackageKind::kPypi, "pypi"},
                                        {PackageKind::kCargo, "cargo"},
                                        {PackageKind::kRubygems, "rubygems"},
                                        {PackageKind::kComposer, "composer"},
                                        {PackageKind::kGoproxy, "goproxy"},
                                        {PackageKind::kMaven, "maven"},
                                        {PackageKind::kNuget, "nuget"},
                                        {PackageKind::kConda, "conda"}}};

constexpr Names<Severity, 5> kSeverities{{{Severity::kUnknown, "unknown"},
                                          {Severity::kLow, "low"},
                                          {Severity::kMedium, "medium"},
                                          {Severity::kHigh, "high"},
                                          {Severity::kCritical, "critical"}}};

constexpr Names<FindingKind, 15> kFindingKinds{{{FindingKind::kVulnerability, "vulnerability"},
                                                {FindingKind::kMalwareSignal, "malware_signal"},
                                                {FindingKind::kInstallHook, "install_hook"},
                                                {FindingKind::kProvenance, "provenance"},
                                                {FindingKind::kSignature, "signature"},
                                                {FindingKind::kLicense, "license"},
                                                {FindingKind::kPublisher, "publisher"},
                                                {FindingKind::kTyposquat, "typosquat"},
                                                {FindingKind::kTransition, "transition"},
                                                {FindingKind::kAge, "age"},
                                                {FindingKind::kPending, "pending"},
                                                {FindingKind::kSocVerdict, "soc_verdict"},
                                                {FindingKind::kScannerError, "scanner_error"},
                                                {FindingKind::kBlockList, "block_list"},
                                                {FindingKind::kRef, "ref"}}};

constexpr Names<ReasonCode, 29> kCodes{{{ReasonCode::kMinAgeNotMet, "MIN_AGE_NOT_MET"},
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
                                        {ReasonCode::kRawScript, "RAW_SCRIPT"}}};
}  // namespace

std::string_view to_string(PackageKind k) { return name_of(kKinds, k); }
std::optional<PackageKind> parse_package_kind(std::string_view s) {
  for (const auto& [k, v] : kKinds) {
    if (v == s) return k;
  }
  return std::nullopt;
}
std::string_view to_string(Severity s) { return name_of(kSeverities, s); }
std::optional<Severity> parse_severity(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "moderate") return Severity::kMedium;
  for (const auto& [k, v] : kSeverities) {
    if (v == lower) return k;
  }
  return std::nullopt;
}
std::string_view to_string(FindingKind k) { return name_of(kFindingKinds, k); }
std::string_view to_string(ReasonCode c) { return name_of(kCodes, c); }
std::optional<FindingKind> parse_finding_kind(std::string_view s) { return value_of(kFindingKinds, s); }
std::optional<ReasonCode> parse_reason_code(std::string_view s) { return value_of(kCodes, s); }

}  // namespace batlehub::core
