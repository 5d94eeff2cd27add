// mlab enrichment: what mlab's CVE lookup (GET {base}/api/v1/cve/{id}) says of a CVE, and
// how that changes a finding that names it, as upstream changes it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "adapters/network_scanners/answers.h"
#include "core/findings.h"

namespace batlehub::adapters::net {

struct MlabRecord {
  // {"cvss_score","cvss_severity","cvss_vector","epss_score","epss_percentile","in_kev",
  //  "kev_date_added","kev_due_date","source":"mlab"}, each null when the answer lacks it.
  nlohmann::json enrichment;
  bool in_kev = false;  // false when absent or null
};

// GET {base}/api/v1/cve/{id}: an object; cvss_score, epss_score, epss_percentile numbers,
// cvss_severity, cvss_vector, kev_date_added, kev_due_date strings, in_kev a boolean, each
// absent or null allowed; any other type is an AnswerError naming the field. Other members
// are ignored. Capped at kMaxMlabRecord.
Expected<MlabRecord, AnswerError> parse_mlab_cve(std::string_view body);

// "CVE-" followed by digits and '-' only, longer than 8 characters.
bool is_cve_id(std::string_view s);

// The CVE a finding names: its reference when that is a CVE id, else the first CVE id among
// the strings of its raw's `aliases` (raw read with the answers' depth bound).
std::optional<std::string> cve_of(const core::Finding& f);

// Upstream's enrichment: raw (a JSON object; anything else, or raw that does not parse, is
// replaced by {}) gets "enrichment": r.enrichment; a CVE in CISA's KEV catalogue makes the
// finding critical and suffixes its summary with " (CISA KEV: exploited in the wild)", once.
void apply_enrichment(core::Finding& f, const MlabRecord& r);

}  // namespace batlehub::adapters::net
