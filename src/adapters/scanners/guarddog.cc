#include "adapters/scanners/guarddog.h"

#include <algorithm>

#include "adapters/scanners/subprocess.h"

namespace batlehub::adapters {

using core::Finding;
using core::FindingKind;
using core::PackageKind;
using core::ReasonCode;
using core::ScannerError;
using core::Severity;
using nlohmann::json;

namespace {

std::string string_or_empty(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

struct Family {
  FindingKind kind;
  ReasonCode code;
  Severity severity;
};

Family family_of(std::string_view rule) {
  std::string lower(rule);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view w) { return lower.find(w) != std::string::npos; };
  // GuardDog 3.x names its rules by family: `threat-*` (a malicious pattern) and
  // `capability-*` (something the code can do). Upstream's mapping predates them and finds
  // none of its words in them, which made every 3.2.0 hit — a curl-into-sh postinstall
  // included — a medium malware signal that no default policy acts on. So: a threat is
  // high (a hook threat is an install hook), a capability is low (a hook capability is a
  // medium install hook); older names keep upstream's mapping below.
  if (lower.starts_with("threat-")) {
    if (has("hook")) return {FindingKind::kInstallHook, ReasonCode::kInstallHook, Severity::kHigh};
    return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kHigh};
  }
  if (lower.starts_with("capability-")) {
    if (has("hook")) return {FindingKind::kInstallHook, ReasonCode::kInstallHook, Severity::kMedium};
    return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kLow};
  }
  if (has("install") || has("exec-base64") || has("cmd-overwrite")) {
    return {FindingKind::kInstallHook, ReasonCode::kInstallHook, Severity::kHigh};
  }
  if (has("typosquat")) return {FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect, Severity::kMedium};
  if (has("exfiltrat") || has("steganography") || has("shady")) {
    return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kHigh};
  }
  return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kMedium};
}

// The `results` map of one report object: at its top level (GuardDog 3.2.0's local scan)
// or under `result` (upstream's expectation; `verify` nests each dependency's report so).
const json* results_of(const json& obj) {
  if (!obj.is_object()) return nullptr;
  if (auto it = obj.find("results"); it != obj.end() && it->is_object()) return &*it;
  if (auto r = obj.find("result"); r != obj.end() && r->is_object()) {
    if (auto it = r->find("results"); it != r->end() && it->is_object()) return &*it;
  }
  return nullptr;
}

// A rule's value as hits: a list of hits (source-code rules), a message string (metadata
// rules), nothing for null, false, {} or []; any other value is one hit as it stands.
std::vector<json> hits_of(const json& v) {
  if (v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_structured() && v.empty())) return {};
  if (v.is_array()) return std::vector<json>(v.begin(), v.end());
  return {v};
}

}  // namespace

std::optional<std::string_view> GuardDogScanner::ecosystem_of(PackageKind k) {
  switch (k) {
    case PackageKind::kNpm:
      return "npm";
    case PackageKind::kPypi:
      return "pypi";
    case PackageKind::kGoproxy:
      return "go";
    default:
      return std::nullopt;
  }
}

bool GuardDogScanner::supports(PackageKind k) const {
  auto eco = ecosystem_of(k);
  if (!eco) return false;
  return options_.ecosystems.empty() ||
         std::find(options_.ecosystems.begin(), options_.ecosystems.end(), *eco) != options_.ecosystems.end();
}

Expected<std::vector<core::RunSpec>, ScannerError> GuardDogScanner::plan(const core::ScanInput& in) const {
  if (!supports(in.package.kind)) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kUnsupported,
                     "guarddog does not scan " + std::string(core::to_string(in.package.kind)) + " here"});
  }
  if (!in.artifact) return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "no artifact to scan"});
  core::RunSpec spec;
  spec.bundle.entries = {core::BundleEntry::archive(*wire::RelPath::parse("package"), in.artifact, false)};
  spec.argv = {
      options_.command, std::string(*ecosystem_of(in.package.kind)), "scan", "package", "--output-format", "json"};
  spec.network = false;
  spec.limits = options_.limits;
  spec.timeout = options_.timeout;
  spec.label.scanner = options_.name;
  return std::vector<core::RunSpec>{std::move(spec)};
}

Expected<std::vector<Finding>, ScannerError> GuardDogScanner::map(const json& doc) const {
  std::vector<const json*> maps;
  if (doc.is_array()) {
    for (const json& o : doc) {
      if (const json* r = results_of(o)) maps.push_back(r);
    }
  } else if (const json* r = results_of(doc)) {
    maps.push_back(r);
  }
  if (maps.empty()) {
    return Unexpected(ScannerError{ScannerError::Kind::kOutput,
                                   "guarddog output carried no `results` object (neither at the top level nor as "
                                   "`result.results`)"});
  }
  std::vector<Finding> out;
  for (const json* results : maps) {
    for (const auto& [rule, value] : results->items()) {
      Family fam = family_of(rule);
      for (const json& hit : hits_of(value)) {
        std::string message = hit.is_string() ? hit.get<std::string>() : string_or_empty(hit, "message");
        std::string location = string_or_empty(hit, "location");
        Finding f;
        f.scanner = options_.name;
        f.kind = fam.kind;
        f.code = fam.code;
        f.severity = fam.severity;
        f.reference = rule;
        f.summary = printable(rule);
        if (!message.empty()) f.summary += ": " + printable(message);
        if (!location.empty()) f.summary += " (" + printable(location) + ")";
        f.raw = compact(hit);
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

Expected<std::vector<Finding>, ScannerError> GuardDogScanner::parse(const core::ScanInput&,
                                                                    const std::vector<core::RunOutcome>& results) const {
  if (results.size() != 1) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kOther, "guarddog: expected one run, got " + std::to_string(results.size())});
  }
  const core::RunOutcome& r = results.front();
  if (!r) return Unexpected(core::to_scanner_error(r.error()));
  if (!r->status) return Unexpected(ScannerError{ScannerError::Kind::kCrashed, "guarddog was killed"});
  int status = *r->status;
  if (status != 0 && status != 1) {
    return Unexpected(ScannerError{ScannerError::Kind::kCrashed,
                                   "guarddog exited " + std::to_string(status) + ": " + trimmed_tail(r->stderr_tail)});
  }
  // GuardDog 3.2.0 exits 1 with nothing on stdout when it fails before reporting (its own
  // sandbox unavailable, an unreadable target): the stderr tail says why.
  if (r->stdout_bytes.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Unexpected(ScannerError{
        ScannerError::Kind::kOutput,
        "guarddog exited " + std::to_string(status) + " and printed no report: " + trimmed_tail(r->stderr_tail)});
  }
  auto doc = parse_json(r->stdout_bytes);
  if (!doc) return Unexpected(doc.error());
  return map(*doc);
}

}  // namespace batlehub::adapters
