// How a verdict is printed: upstream's `batlehub why` layout for people, JSON for
// machines, SARIF 2.1.0 for code-scanning tools.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/verdict.h"

namespace batlehub::server {

struct ScanReport {
  core::Verdict verdict;
  std::string artifact_path;  // the archive as the operator named it
  std::string runtime;        // the sandbox runtime the scanners ran under
  std::string evaluated_at;   // RFC 3339, UTC
  // RFC 3339, UTC, when a scanner last answered; "" = evaluated_at if any scanner answered,
  // else never.
  std::string scanned_at;
};

// Upstream's `batlehub why`: the coordinate, indented label/value lines, the findings
// (scanner 12, severity 10, code 22, summary [reference]), then a closing sentence.
std::string render_text(const ScanReport& r);
std::string render_json(const std::vector<ScanReport>& rs);
std::string render_sarif(const std::vector<ScanReport>& rs);

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
