// What scanners find and what a verdict is made of (upstream's entities, kept as they are:
// upstream-today.md §5.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::core {

enum class PackageKind { kNpm, kPypi, kCargo, kRubygems, kComposer, kGoproxy, kMaven, kNuget, kConda };
std::string_view to_string(PackageKind k);
std::optional<PackageKind> parse_package_kind(std::string_view s);

// What upstream names a version by: a row of scan_jobs or artifact_verdicts, and what
// `batlehub why` takes. The kind is not part of it: upstream derives it from the
// `[[registries]]` entry the registry names (upstream-storage-and-queue.md B.2).
struct Coordinate {
  std::string registry;
  std::string name;
  std::string version;
  std::string coordinate() const { return registry + ":" + name + "@" + version; }
  bool operator==(const Coordinate&) const = default;
};

// A version as a scan sees it: its coordinate and the ecosystem whose layout it has.
struct Package {
  PackageKind kind = PackageKind::kNpm;
  std::string name;
  std::string version;
  std::string registry = "local";  // the registry's name in a coordinate: <registry>:<name>@<version>
  std::string coordinate() const { return registry + ":" + name + "@" + version; }
  Coordinate coord() const { return Coordinate{registry, name, version}; }
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
  std::optional<std::uint8_t> confidence;   // upstream's u8, when the scanner gives one
  std::optional<std::int64_t> available_at;  // seconds since the epoch: when a time-bound hold lifts

  bool operator==(const Finding&) const = default;
};

}  // namespace batlehub::core
