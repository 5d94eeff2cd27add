// How a verdict is printed: upstream's `batlehub why` layout for people, JSON for
// machines, SARIF 2.1.0 for code-scanning tools.
#pragma once

#include <string>
#include <vector>

#include "core/verdict.h"

namespace batlehub::server {

struct ScanReport {
  core::Verdict verdict;
  std::string artifact_path;  // the archive as the operator named it
  std::string runtime;        // the sandbox runtime the scanners ran under
  std::string evaluated_at;   // RFC 3339, UTC
};

// Upstream's `batlehub why`: the coordinate, indented label/value lines, the findings
// (scanner 12, severity 10, code 22, summary [reference]), then a closing sentence.
std::string render_text(const ScanReport& r);
std::string render_json(const std::vector<ScanReport>& rs);
std::string render_sarif(const std::vector<ScanReport>& rs);

std::string now_rfc3339();

}  // namespace batlehub::server
