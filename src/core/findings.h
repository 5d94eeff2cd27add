// What scanners find and what a verdict is made of (upstream's entities, kept as they are:
// upstream-today.md §5.4).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::core {

enum class PackageKind { kNpm, kPypi, kCargo, kRubygems, kComposer, kGoproxy, kMaven, kNuget, kConda };
std::string_view to_string(PackageKind k);
std::optional<PackageKind> parse_package_kind(std::string_view s);

struct Package {
  PackageKind kind = PackageKind::kNpm;
  std::string name;
  std::string version;
  std::string registry = "local";  // the registry's name in a coordinate: <registry>:<name>@<version>
  std::string coordinate() const { return registry + ":" + name + "@" + version; }
};

// unknown < low < medium < high < critical
enum class Severity { kUnknown, kLow, kMedium, kHigh, kCritical };
std::string_view to_string(Severity s);
std::optional<Severity> parse_severity(std::string_view s);  // case-insensitive

enum class FindingKind {
  kVulnerability, kMalwareSignal, kInstallHook, kProvenance, kSignature, kLicense, kPublisher, kTyposquat,
  kTransition, kAge, kPending, kSocVerdict, kScannerError, kBlockList, kRef,
};
std::string_view to_string(FindingKind k);  // snake_case
std::optional<FindingKind> parse_finding_kind(std::string_view s);

enum class ReasonCode {
  kMinAgeNotMet, kTimestampMissing, kScanPending, kScannerError, kScannerUnsupported, kVulnerability,
  kMalwareSignal, kInstallHook, kTyposquatSuspect, kPublisherChanged, kInstallHookAdded, kRepositoryMoved,
  kDormantRelease, kUnpublishedUpstream, kProvenanceMissing, kProvenanceInvalid, kProvenanceUnverifiable,
  kProvenanceRemoved, kSignatureMissing, kLicenseDenied, kUntrustedPublisher, kBlockList, kSocVerdict,
  kAdminOverride, kMutableRef, kTagMoved, kAssetReplaced, kPinnedRefRequired, kRawScript,
};
std::string_view to_string(ReasonCode c);  // SCREAMING_SNAKE
std::optional<ReasonCode> parse_reason_code(std::string_view s);

struct Finding {
  std::string scanner;  // the [scanners.<name>] name
  FindingKind kind = FindingKind::kMalwareSignal;
  ReasonCode code = ReasonCode::kMalwareSignal;
  Severity severity = Severity::kMedium;
  std::optional<std::string> reference;
  std::string summary;
  // The scanner's own JSON for this finding, serialized: hostile, never interpolated.
  std::string raw;

  bool operator==(const Finding&) const = default;
};

}  // namespace batlehub::core
