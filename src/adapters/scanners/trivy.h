// Trivy (Aqua Security, 0.74.0) as a consumer of the sandbox port (upstream's trivy.rs,
// upstream-today.md §2.4; RFC 0022 §5.2).
//
// With an SBOM recorded for the version, the bundle is the SBOM inline as sbom.cdx.json
// and no archive at all:
//
//   trivy sbom --format json --quiet --skip-version-check [--server X] --cache-dir .trivy sbom.cdx.json
//
// otherwise the artifact is an archive entry extracted at `tree` and
//
//   trivy fs --format json --quiet --skip-version-check [--server X] --cache-dir .trivy --scanners vuln
//            --list-all-pkgs tree
//
// Paths are relative to the work directory, the scanner's cwd on every runtime (under
// `none` it is a TempDir, not /work); the database lands in .trivy, the one writable
// place. Always with the network (a server, or the database download). Timeout: the larger
// of trivy's `timeout_secs` and the job's. Exit 0 only; any other exit is
// Upstream("trivy exited N: <its stderr tail>") — trivy's own words, which is how a
// database it cannot download reaches the verdict: as a scanner error, never as a clean
// answer.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "core/scanner.h"

namespace batlehub::adapters {

struct TrivyOptions {
  std::string name = "trivy";                      // the [scanners.<name>] name: findings, labels, room
  std::string command = "trivy";                   // argv[0], inside the room / image (fixed upstream)
  std::string endpoint;                            // a Trivy server (client mode); "" = a local database
  std::string db_repository;                       // --db-repository; "" = Trivy's default
  std::chrono::seconds timeout_secs{60};           // [scanners.trivy] timeout_secs
  std::chrono::milliseconds job_timeout{600'000};  // [worker] job_timeout_secs
  core::Limits limits;
};

class TrivyScanner final : public core::Scanner {
 public:
  explicit TrivyScanner(TrivyOptions options) : options_(std::move(options)) {}

  const std::string& name() const override { return options_.name; }
  // npm, pypi, cargo, rubygems, composer, goproxy, maven, nuget, conda.
  bool supports(core::PackageKind k) const override;
  // One run. Unsupported without an artifact, even with an SBOM (upstream's worker checks
  // needs_artifact before it calls scan), and for an SBOM larger than a bundle carries
  // inline (wire::kInlineEntryMaxBytes).
  Expected<std::vector<core::RunSpec>, core::ScannerError> plan(const core::ScanInput& in) const override;
  Expected<std::vector<core::Finding>, core::ScannerError> parse(
      const core::ScanInput& in, const std::vector<core::RunOutcome>& results) const override;

  // Findings from a trivy JSON report: one per Results[].Vulnerabilities[] (kind
  // vulnerability, code VULNERABILITY, severity from `Severity` lower-cased — unknown when
  // unreadable — reference the VulnerabilityID, raw the vulnerability). Summary
  // "Title (Pkg, fixed in X)", or "ID in Pkg, fixed in X" without a title. No `Results`
  // is zero findings; a document that is not an object is Output. With `in_archive` (the report
  // of `trivy fs` over the extracted archive, not of an SBOM) each finding's raw also holds its
  // Result's `Target`, the lockfile it was read from ("package/package-lock.json"), relative to
  // the archive's root: where SARIF locates it.
  Expected<std::vector<core::Finding>, core::ScannerError> map(const nlohmann::json& report,
                                                               bool in_archive = false) const;

  // `trivy fs --list-all-pkgs` inventories every package it read (Results[].Packages[]):
  // their Identifier.PURL strings are the components osv asks about beside the coordinate.
  bool inventories() const override { return true; }
  std::vector<std::string> components(const std::vector<core::RunOutcome>& results) const override;
  // The distinct Results[].Packages[].Identifier.PURL of a report, in order, at most `max`.
  static std::vector<std::string> package_purls(const nlohmann::json& report, std::size_t max = 10'000);

  std::chrono::milliseconds timeout() const;
  const TrivyOptions& options() const { return options_; }

 private:
  TrivyOptions options_;
};

}  // namespace batlehub::adapters
