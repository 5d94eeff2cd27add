// OSV (osv.dev): the requests the osv scanner sends and the answers it reads, and the
// finding it makes of a vulnerability, as upstream makes it.
//
//   POST /v1/querybatch   https://google.github.io/osv.dev/post-v1-querybatch/
//   POST /v1/query        https://google.github.io/osv.dev/post-v1-query/
//   GET  /v1/vulns/{id}   https://google.github.io/osv.dev/get-v1-vulns/
//   the record's fields   https://ossf.github.io/osv-schema/
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/network_scanners/answers.h"
#include "core/findings.h"

namespace batlehub::adapters::net {

// {"queries":[{"package":{"purl":"…"}}, …]}, one query per PURL, in order.
std::string osv_batch_request(const std::vector<std::string>& purls);
// {"package":{"purl":"…"}}, with "page_token" when one is given (the previous answer's
// next_page_token).
std::string osv_query_request(const std::string& purl, const std::string& page_token = "");

// One query's result in a querybatch answer: the ids of the vulnerabilities (the answer
// carries only id and modified; GET /v1/vulns/{id} has the rest) and, when OSV paginated
// this query, the token to ask again with.
struct OsvBatchResult {
  std::vector<std::string> ids;
  std::string next_page_token;
};

// A vulnerability id as this file accepts one: 1 to 128 characters of printable ASCII
// without the space (0x21-0x7e). Whoever puts it in a URL percent-encodes it.
bool is_osv_id(std::string_view id);

// A querybatch answer: `results` must have exactly `queries` entries, in the order of the
// queries; each is {} or {"vulns":[{"id","modified"},…], "next_page_token"?}. Every id is
// checked (is_osv_id). Capped at kMaxOsvAnswer.
Expected<std::vector<OsvBatchResult>, AnswerError> parse_osv_batch(std::string_view body, std::size_t queries);

// A vulnerability as upstream reads it.
//
//   severity       database_specific.severity when it is a string that parse_severity reads
//                  (unknown, low, medium or "moderate", high, critical, any case); else the
//                  largest severity[].score that is a number (a JSON number, or a string that
//                  parses whole as one), CVSS's bands: >= 9.0 critical, >= 7.0 high, >= 4.0
//                  medium, > 0 low, else unknown. A score that is a CVSS vector
//                  ("CVSS:3.1/AV:N/…") is no number and is skipped: upstream computes no
//                  score from a vector, and neither does this (a record with vectors only is
//                  unknown).
//   summary        `summary`, else the first 200 characters of `details`, else the id;
//                  printable (adapters::printable), at most 1024 characters.
//   aliases        the strings of `aliases`.
//   fixed_version  the first `fixed` event across affected[].ranges[].events[], in order.
struct OsvVuln {
  std::string id;
  std::string summary;
  std::vector<std::string> aliases;
  core::Severity severity = core::Severity::kUnknown;
  std::optional<std::string> fixed_version;
};

// GET /v1/vulns/{id}: one record. Checked: `id` (is_osv_id); `summary`, `details` strings
// (null as absent); `aliases` an array; `affected`, its `ranges`, their `events` arrays of
// objects and a `fixed` a string. database_specific and severity[] are read as upstream
// reads them: what does not parse is skipped, never refused. Capped at kMaxOsvAnswer.
Expected<OsvVuln, AnswerError> parse_osv_vuln(std::string_view body);

// POST /v1/query: {"vulns":[record…], "next_page_token"?} ({} when there is none); each
// record read as parse_osv_vuln reads one. The token is "" when OSV gave none.
Expected<std::pair<std::vector<OsvVuln>, std::string /*next_page_token*/>, AnswerError> parse_osv_query(
    std::string_view body);

// Upstream's finding for a vulnerability of `purl`: kind vulnerability, code VULNERABILITY,
// the mapped severity, the summary, reference the id, raw
// {"purl":…,"fixed_version":…|null,"aliases":[…]}.
core::Finding osv_finding(const std::string& scanner, const OsvVuln& v, const std::string& purl);

}  // namespace batlehub::adapters::net
