// How a verdict is printed: upstream's `batlehub why` layout for people, JSON for
// machines, SARIF 2.1.0 for code-scanning tools.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.h"

namespace batlehub::server {

// One scanner's part in a scan, for SARIF: its run says which scanners looked, findings or
// not, and which failed.
struct ScannerOutcome {
  std::string scanner;                 // the [scanners.<name>] name
  std::optional<std::string> failure;  // why it gave no answer (core::describe); unset: it answered
};

// A configured scanner as a SARIF run's tool.
struct SarifTool {
  std::string name;                    // the [scanners.<name>] name: the driver's name
  std::string type;                    // guarddog, trivy, yara, postmortem: how its findings locate
  std::optional<std::string> version;  // what the scanner itself said (scanner_versions.h); unset: it did not
};

struct ScanReport {
  core::Verdict verdict;
  std::string artifact_path;  // the archive as the operator named it
  std::string runtime;        // the sandbox runtime the scanners ran under
  std::string evaluated_at;   // RFC 3339, UTC
  // RFC 3339, UTC, when a scanner last answered; "" = evaluated_at if any scanner answered,
  // else never.
  std::string scanned_at;
  // The scanners that ran over this archive, answered or failed (SARIF's runs and invocations).
  std::vector<ScannerOutcome> ran;
  // The ecosystem the scan read the archive as (a verdict has none: upstream keeps the
  // kind on the registry, not on the version).
  std::optional<core::PackageKind> kind;
};

// Upstream's `batlehub why`: the coordinate, indented label/value lines, the findings
// (scanner 12, severity 10, code 22, summary [reference]), then a closing sentence.
std::string render_text(const ScanReport& r);
std::string render_json(const std::vector<ScanReport>& rs);
// SARIF 2.1.0, as the official validator (Sarif.Multitool validate) accepts it with no error
// and no warning: one run per scanner that ran over any archive, findings or not, its driver
// named and versioned as `tools` say, batlehub as the run's converter, and one invocation per
// archive (failed, with the reason as its notification, when the scanner gave no answer).
// Each archive is a base URI in the run's originalUriBaseIds, named by its coordinate
// ("local:evil-pad@1.3.1"): file://<its absolute path>/, the tree of its entries. A result's
// analysisTarget is that base (""), its location the file inside the package as a relative
// URI against it, with the line as its region, when the scanner names them (guarddog's
// "package/index.js:7"). A finding about a file but no line in it (a yara rule matched the
// whole file) has that file as its analysisTarget and no location, and one about the package
// as a whole (a metadata rule, a vulnerability, a scanner's failure) only the archive: a
// physical location without a region is a warning (SARIF2017), and a region the scanner did
// not give would be made up.
std::string render_sarif(const std::vector<ScanReport>& rs, const std::vector<SarifTool>& tools);

// Where a finding sits in its archive, as its scanner recorded it in the finding's raw JSON:
// guarddog's hit `location` ("package/index.js:7", relative to the archive's root), yara's
// matched `path` (under the run's "scan/tree/"), trivy's `Target` (the lockfile, added to the
// vulnerability by the adapter when it scanned the archive). Nothing for other scanners, or a path that
// is empty, absolute or climbs (`..`): such a finding is about the archive as a whole.
struct FindingPlace {
  std::string path;                   // an entry of the archive: "package/index.js"
  std::optional<std::uint64_t> line;  // 1-based
};
std::optional<FindingPlace> place_of(std::string_view scanner_type, const core::Finding& f);

// RFC 3986: every byte but the unreserved ones and '/' percent-encoded ("a b#1" → "a%20b%231").
std::string uri_path(std::string_view path);

// A command's refusal in the format its output was asked in: the message and a newline for
// text; {"error": {"exit", "message", "archive"}} for JSON; a SARIF log whose one run's
// invocation failed, with the message as its notification, for SARIF.
enum class ScanFormat { kText, kJson, kSarif };
std::string render_refusal(ScanFormat f, int exit_code, const std::string& message, const std::string& archive);

std::string now_rfc3339();
std::string rfc3339(std::int64_t unix_seconds);

// Upstream's one-line message: "<registry>:<name>@<version> is <state> (<CODES>). Run
// `batlehub why <coord>` for details."
std::string native_message(const core::Verdict& v);

// A recorded verdict as `batlehub why --json` prints it: the verdict's own fields, the
// findings with their raw JSON.
std::string render_verdict_json(const core::Verdict& v, std::int64_t evaluated_at,
                                std::optional<std::int64_t> last_scanned_at);

}  // namespace batlehub::server
