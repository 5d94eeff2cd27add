// What the two queue adapters share: how a job, a verdict and its findings become row
// values and back. Each adapter reads and writes its own database; both spell the values
// the same way here, so a row means the same on either backend, and an unknown spelling
// (a row written by a newer batlehub, or tampered with) is an error that names table,
// column and value rather than a guess.
//
// Private to src/adapters/queue: nothing outside the two adapters includes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/expected.h"
#include "base/utf8.h"
#include "core/findings.h"
#include "core/queue.h"
#include "core/verdict.h"

namespace batlehub::adapters::queue_rows {

// A column value for an error message: bounded, valid UTF-8, control characters escaped
// so that the message stays on one line whatever the row holds.
inline std::string quoted(std::string_view value) {
  constexpr std::size_t kMax = 80;
  std::string text = base::lossy_utf8_tail(value.substr(0, kMax), kMax);
  std::string out = "\"";
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  if (value.size() > kMax) out += "…";
  return out + "\"";
}

inline std::string bad_value(std::string_view table, std::string_view column, std::string_view value) {
  return std::string(table) + "." + std::string(column) + ": unknown value " + quoted(value);
}

template <class T>
Expected<T, std::string> column_value(std::optional<T> parsed, std::string_view table, std::string_view column,
                                      std::string_view value) {
  if (!parsed) return Unexpected(bad_value(table, column, value));
  return *parsed;
}

// Text a scanner wrote about a hostile package, made storable: valid UTF-8 with no NUL
// (PostgreSQL's text refuses both, SQLite would keep them), so both backends store, and
// give back, the same string.
inline std::string storable_text(std::string_view bytes) {
  std::string valid = base::lossy_utf8_tail(bytes, bytes.size());
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    if (c == '\0') {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      out += c;
    }
  }
  return out;
}

inline std::optional<core::VerdictState> parse_verdict_state(std::string_view s) {
  for (auto st : {core::VerdictState::kAllowed, core::VerdictState::kWarned, core::VerdictState::kQuarantined,
                  core::VerdictState::kDenied}) {
    if (core::to_string(st) == s) return st;
  }
  return std::nullopt;
}

// Lists (reason codes, scanners done, a worker's registries) cross both databases as a JSON
// array of strings: a TEXT column in SQLite, unpacked to and from text[] in PostgreSQL.
inline std::string json_list(const std::vector<std::string>& items) {
  nlohmann::json arr = nlohmann::json::array();
  for (const std::string& s : items) arr.push_back(s);
  return arr.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline Expected<std::vector<std::string>, std::string> parse_json_list(std::string_view text, std::string_view table,
                                                                       std::string_view column) {
  nlohmann::json arr = nlohmann::json::parse(text, nullptr, false);
  if (arr.is_discarded() || !arr.is_array()) return Unexpected(bad_value(table, column, text));
  std::vector<std::string> out;
  for (const nlohmann::json& item : arr) {
    if (!item.is_string()) return Unexpected(bad_value(table, column, text));
    out.push_back(item.get<std::string>());
  }
  return out;
}

// Job ids are UUIDs on both backends (PostgreSQL's uuid type; SQLite stores the text).
inline bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

// ---- jobs

// A scan_jobs row as read, times already in seconds since the epoch.
struct JobRow {
  std::string id, registry, package_name, version, trigger;
  std::optional<std::int64_t> published_at;
  std::int64_t attempts = 0;
  std::optional<std::int64_t> leased_until;
  std::optional<std::string> leased_by;
  std::int64_t created_at = 0;
  std::optional<std::int64_t> completed_at;
  std::optional<std::string> last_error;
};

inline Expected<core::ScanJob, std::string> job_from_row(JobRow row) {
  auto trigger = column_value(core::parse_trigger(row.trigger), "scan_jobs", "trigger", row.trigger);
  if (!trigger) return Unexpected(trigger.error());
  core::ScanJob job;
  job.id = std::move(row.id);
  job.coordinate = core::Coordinate{std::move(row.registry), std::move(row.package_name), std::move(row.version)};
  job.published_at = row.published_at;
  job.trigger = *trigger;
  job.attempts = row.attempts;
  job.leased_until = row.leased_until.value_or(0);
  job.leased_by = row.leased_by.value_or("");
  job.created_at = row.created_at;
  job.completed_at = row.completed_at;
  job.last_error = row.last_error.value_or("");
  return job;
}

// ---- findings

// Nesting deeper than this in a finding's raw JSON is kept as a JSON string of its text:
// nlohmann's dump recurses, and a row upstream (or anyone) wrote is not ours to trust.
constexpr int kMaxRawDepth = 64;

inline bool json_depth_within(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// artifact_findings.raw is jsonb upstream (B.2), "null" when a finding has none. What a
// scanner wrote is stored as its JSON, re-serialized one way (so that PostgreSQL's jsonb and
// SQLite's text give back the same string); text that is not JSON is kept as a JSON string,
// never dropped. "" and "null" are the same: no raw.
inline std::string raw_json(std::string_view raw) {
  if (raw.empty()) return "null";
  const std::string text = storable_text(raw);
  if (json_depth_within(text, kMaxRawDepth) && nlohmann::json::accept(text)) {
    return nlohmann::json::parse(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
inline std::string raw_from_column(std::string_view stored) {
  std::string canonical = raw_json(stored);
  return canonical == "null" ? std::string() : canonical;
}

// One artifact_findings row's values (the coordinate, id and created_at aside); times in
// seconds.
struct FindingRow {
  std::string scanner, kind, code, severity;
  std::optional<std::string> reference;
  std::string summary;
  std::string raw;  // JSON text ("null": none)
  std::optional<std::int64_t> confidence;
  std::optional<std::int64_t> available_at;
};

inline FindingRow finding_row(const core::Finding& f) {
  FindingRow row;
  row.scanner = storable_text(f.scanner);
  row.kind = std::string(core::to_string(f.kind));
  row.code = std::string(core::to_string(f.code));
  row.severity = std::string(core::to_string(f.severity));
  if (f.reference) row.reference = storable_text(*f.reference);
  row.summary = storable_text(f.summary);
  row.raw = raw_json(f.raw);
  if (f.confidence) row.confidence = *f.confidence;
  row.available_at = f.available_at;
  return row;
}

inline Expected<core::Finding, std::string> finding_from_row(FindingRow row) {
  constexpr std::string_view kTable = "artifact_findings";
  auto kind = column_value(core::parse_finding_kind(row.kind), kTable, "kind", row.kind);
  if (!kind) return Unexpected(kind.error());
  auto code = column_value(core::parse_reason_code(row.code), kTable, "code", row.code);
  if (!code) return Unexpected(code.error());
  // Upstream's readers take a severity outside the set as unknown (B.2), and so does this
  // one; only the exact spellings count (parse_severity also reads "moderate", any case).
  std::optional<core::Severity> severity = core::parse_severity(row.severity);
  const core::Severity sev =
      severity && core::to_string(*severity) == row.severity ? *severity : core::Severity::kUnknown;
  std::optional<std::uint8_t> confidence;
  if (row.confidence) {
    if (*row.confidence < 0 || *row.confidence > 255) {
      return Unexpected(bad_value(kTable, "confidence", std::to_string(*row.confidence)));
    }
    confidence = static_cast<std::uint8_t>(*row.confidence);
  }
  return core::Finding{std::move(row.scanner), *kind, *code, sev, std::move(row.reference), std::move(row.summary),
                       raw_from_column(row.raw), confidence, row.available_at};
}

// ---- verdicts

// One artifact_verdicts row's values (the coordinate aside); times in seconds.
struct VerdictRow {
  std::string state;
  std::string reason_codes;   // JSON list
  std::string scanners_done;  // JSON list
  std::string policy_ref;
  std::optional<std::int64_t> available_at;
  std::int64_t evaluated_at = 0;
  std::optional<std::int64_t> last_scanned_at;
};

inline VerdictRow verdict_row(const core::RecordedVerdict& rv) {
  std::vector<std::string> codes;
  for (core::ReasonCode c : rv.verdict.reason_codes) codes.emplace_back(core::to_string(c));
  VerdictRow row;
  row.state = std::string(core::to_string(rv.verdict.state));
  row.reason_codes = json_list(codes);
  std::vector<std::string> scanners;
  for (const std::string& s : rv.verdict.scanners_done) scanners.push_back(storable_text(s));
  row.scanners_done = json_list(scanners);
  row.policy_ref = storable_text(rv.verdict.policy_ref);
  // Upstream keeps available_at only on a quarantine (B.2).
  if (rv.verdict.state == core::VerdictState::kQuarantined) row.available_at = rv.verdict.available_at;
  row.evaluated_at = rv.evaluated_at;
  row.last_scanned_at = rv.last_scanned_at;
  return row;
}

inline Expected<core::RecordedVerdict, std::string> verdict_from_rows(std::string registry, std::string name,
                                                                      std::string version, VerdictRow row,
                                                                      std::vector<FindingRow> findings) {
  constexpr std::string_view kTable = "artifact_verdicts";
  auto state = column_value(parse_verdict_state(row.state), kTable, "state", row.state);
  if (!state) return Unexpected(state.error());
  auto code_names = parse_json_list(row.reason_codes, kTable, "reason_codes");
  if (!code_names) return Unexpected(code_names.error());
  auto scanners = parse_json_list(row.scanners_done, kTable, "scanners_done");
  if (!scanners) return Unexpected(scanners.error());

  core::RecordedVerdict rv;
  rv.verdict.package = core::Coordinate{std::move(registry), std::move(name), std::move(version)};
  rv.verdict.state = *state;
  for (const std::string& c : *code_names) {
    auto code = column_value(core::parse_reason_code(c), kTable, "reason_codes", c);
    if (!code) return Unexpected(code.error());
    rv.verdict.reason_codes.push_back(*code);
  }
  for (FindingRow& f : findings) {
    auto finding = finding_from_row(std::move(f));
    if (!finding) return Unexpected(finding.error());
    rv.verdict.findings.push_back(std::move(*finding));
  }
  rv.verdict.scanners_done = std::move(*scanners);
  rv.verdict.policy_ref = std::move(row.policy_ref);
  rv.verdict.available_at = row.available_at;
  rv.evaluated_at = row.evaluated_at;
  rv.last_scanned_at = row.last_scanned_at;
  return rv;
}

// ---- the lease

// Upstream's two picks (upstream-storage-and-queue.md B.3) for a lease of `max` jobs:
// max(max − 1, 1) by priority then age, then — when max ≥ 2 — one by lowest priority first,
// so that a flood of first_seen never parks backfill for ever. `pick(lowest_first, limit)`
// is the adapter's one UPDATE; a row the first pick leased is no candidate for the second.
template <class Pick>
auto two_picks(std::int64_t max, Pick&& pick) -> decltype(pick(false, std::int64_t{1})) {
  auto jobs = pick(false, std::max<std::int64_t>(max - 1, 1));
  if (!jobs || max < 2) return jobs;
  auto low = pick(true, 1);
  if (!low) return low;
  for (auto& j : *low) jobs->push_back(std::move(j));
  return jobs;
}

// ---- cached artifacts

// A.6 step 1 for one key or every key under a prefix, and the keys artifact_storage alone
// knows (step 2's legacy objects): one statement for both databases, which differ only in
// how a prefix is matched (`match`, with '%' for the column: PostgreSQL's left(), SQLite's
// substr()) and how the limit is bound (`limit`).
inline std::string cached_artifacts_sql(std::string_view match, std::string_view limit) {
  auto where = [&](std::string_view column) {
    std::string out(match);
    out.replace(out.find('%'), 1, column);
    return out;
  };
  return "WITH keys AS (SELECT logical_key AS k FROM artifact_dedup_refs WHERE " + where("logical_key") +
         " UNION SELECT storage_key FROM artifact_storage WHERE " + where("storage_key") +
         ") SELECT keys.k, coalesce(r.content_hash, ''), coalesce(i.content_key, ''), i.size_bytes, s.backend_name"
         " FROM keys LEFT JOIN artifact_dedup_refs r ON r.logical_key = keys.k"
         " LEFT JOIN artifact_dedup_index i ON i.content_hash = r.content_hash"
         " LEFT JOIN artifact_storage s ON s.storage_key = keys.k ORDER BY keys.k LIMIT " +
         std::string(limit);
}

}  // namespace batlehub::adapters::queue_rows
