#include "adapters/scanners/trivy.h"

#include <algorithm>

#include "adapters/scanners/subprocess.h"
#include "wire/caps.h"

namespace batlehub::adapters {

using core::Finding;
using core::PackageKind;
using core::ScannerError;
using core::Severity;
using nlohmann::json;

namespace {

std::string string_or(const json& obj, const char* key, std::string fallback = "") {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

bool TrivyScanner::supports(PackageKind) const {
  // Every kind batlehub knows is one trivy scans: npm, pypi, cargo, rubygems, composer,
  // goproxy, maven, nuget, conda.
  return true;
}

std::chrono::milliseconds TrivyScanner::timeout() const {
  return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(options_.timeout_secs), options_.job_timeout);
}

Expected<std::vector<core::RunSpec>, ScannerError> TrivyScanner::plan(const core::ScanInput& in) const {
  if (!in.artifact) return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "no artifact to scan"});
  std::vector<std::string> common = {"--format", "json", "--quiet", "--skip-version-check"};
  if (!options_.endpoint.empty()) {
    common.emplace_back("--server");
    common.push_back(options_.endpoint);
  }
  if (!options_.db_repository.empty()) {
    common.emplace_back("--db-repository");
    common.push_back(options_.db_repository);
  }
  common.emplace_back("--cache-dir");
  common.emplace_back(".trivy");

  core::RunSpec spec;
  spec.argv = {options_.command};
  if (in.sbom && in.sbom->size() > wire::kInlineEntryMaxBytes) {
    return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "the SBOM is " + std::to_string(in.sbom->size()) +
                                                                         " bytes; a bundle carries at most " +
                                                                         std::to_string(wire::kInlineEntryMaxBytes) +
                                                                         " inline"});
  }
  if (in.sbom) {
    spec.bundle.entries = {core::BundleEntry::inline_file(*wire::RelPath::parse("sbom.cdx.json"), *in.sbom)};
    spec.argv.emplace_back("sbom");
    spec.argv.insert(spec.argv.end(), common.begin(), common.end());
    spec.argv.emplace_back("sbom.cdx.json");
  } else {
    // A gem's files, lockfiles included, are in its data.tar.gz, which trivy does not open:
    // the agent extracts it in place under the same budget (wire 2's `descend`).
    spec.bundle.entries = {
        core::BundleEntry::archive(*wire::RelPath::parse("tree"), in.artifact, false, sources_member(in.package.kind))};
    spec.argv.emplace_back("fs");
    spec.argv.insert(spec.argv.end(), common.begin(), common.end());
    // --list-all-pkgs: every package read, not only the vulnerable ones (components()).
    spec.argv.insert(spec.argv.end(), {"--scanners", "vuln", "--list-all-pkgs", "tree"});
  }
  spec.network = true;
  spec.limits = options_.limits;
  spec.timeout = timeout();
  spec.label.scanner = options_.name;
  return std::vector<core::RunSpec>{std::move(spec)};
}

Expected<std::vector<Finding>, ScannerError> TrivyScanner::map(const json& report, bool in_archive) const {
  if (!report.is_object()) {
    return Unexpected(ScannerError{ScannerError::Kind::kOutput, "trivy output is not a report object"});
  }
  std::vector<Finding> out;
  auto results = report.find("Results");
  if (results == report.end() || !results->is_array()) return out;
  for (const json& result : *results) {
    if (!result.is_object()) continue;
    auto vulns = result.find("Vulnerabilities");
    if (vulns == result.end() || !vulns->is_array()) continue;
    // A lockfile's Result names the file; the Results trivy aggregates over installed packages
    // are named for a language ("Node.js", "Python"), which no entry of the archive is.
    const std::string type = string_or(result, "Type");
    const bool aggregated =
        type == "node-pkg" || type == "python-pkg" || type == "gemspec" || type == "jar" || type == "conda-pkg";
    const std::string target = in_archive && !aggregated ? string_or(result, "Target") : "";
    for (const json& v : *vulns) {
      if (!v.is_object()) continue;
      std::string id = string_or(v, "VulnerabilityID", "unknown");
      std::string pkg = string_or(v, "PkgName");
      std::string title = string_or(v, "Title");
      std::string fixed = string_or(v, "FixedVersion");
      std::string fix_text = fixed.empty() ? "no fixed version" : "fixed in " + fixed;
      Finding f;
      f.scanner = options_.name;
      f.kind = core::FindingKind::kVulnerability;
      f.code = core::ReasonCode::kVulnerability;
      f.severity = core::parse_severity(string_or(v, "Severity")).value_or(Severity::kUnknown);
      f.reference = id;
      f.summary = title.empty() ? id + " in " + pkg + ", " + fix_text : title + " (" + pkg + ", " + fix_text + ")";
      if (target.empty() || v.contains("Target")) {
        f.raw = compact(v);
      } else {
        json located = v;
        located["Target"] = target;
        f.raw = compact(located);
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

Expected<std::vector<Finding>, ScannerError> TrivyScanner::parse(const core::ScanInput& in,
                                                                 const std::vector<core::RunOutcome>& results) const {
  if (results.size() != 1) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kOther, "trivy: expected one run, got " + std::to_string(results.size())});
  }
  const core::RunOutcome& r = results.front();
  if (!r) return Unexpected(core::to_scanner_error(r.error()));
  if (r->status != 0) {
    return Unexpected(ScannerError{ScannerError::Kind::kUpstream,
                                   "trivy exited " + std::to_string(r->status) + ": " + trimmed_tail(r->stderr_tail)});
  }
  auto doc = parse_json(r->stdout_bytes);
  if (!doc) return Unexpected(doc.error());
  return map(*doc, /*in_archive=*/!in.sbom);
}

std::vector<std::string> TrivyScanner::package_purls(const json& report, std::size_t max) {
  std::vector<std::string> out;
  if (!report.is_object()) return out;
  auto results = report.find("Results");
  if (results == report.end() || !results->is_array()) return out;
  for (const json& r : *results) {
    if (!r.is_object()) continue;
    auto packages = r.find("Packages");
    if (packages == r.end() || !packages->is_array()) continue;
    for (const json& p : *packages) {
      if (!p.is_object()) continue;
      auto id = p.find("Identifier");
      if (id == p.end() || !id->is_object()) continue;
      auto purl = id->find("PURL");
      if (purl == id->end() || !purl->is_string()) continue;
      const std::string& s = purl->get_ref<const std::string&>();
      if (s.empty() || s.size() > 2048 || !s.starts_with("pkg:")) continue;
      if (std::find(out.begin(), out.end(), s) != out.end()) continue;
      if (out.size() == max) return out;
      out.push_back(s);
    }
  }
  return out;
}

std::vector<std::string> TrivyScanner::components(const std::vector<core::RunOutcome>& results) const {
  if (results.size() != 1 || !results.front() || results.front()->status != 0) return {};
  auto doc = parse_json(results.front()->stdout_bytes);
  if (!doc) return {};
  return package_purls(*doc);
}

}  // namespace batlehub::adapters
