#include "server/report.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <map>
#include <sstream>

namespace batlehub::server {

using nlohmann::json;

std::string now_rfc3339() {
  return rfc3339(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::string rfc3339(std::int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string join_codes(const std::vector<core::ReasonCode>& cs) {
  if (cs.empty()) return "—";
  std::string out;
  for (auto c : cs) {
    if (!out.empty()) out += ", ";
    out += core::to_string(c);
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* none) {
  if (v.empty()) return none;
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

std::string pad(std::string_view s, std::size_t w) {
  std::string out(s);
  if (out.size() < w) out.append(w - out.size(), ' ');
  return out + " ";
}

// One line: a scanner's summary is hostile text, so control characters are made visible.
std::string one_line(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string closing(const core::Verdict& v) {
  switch (v.state) {
    case core::VerdictState::kAllowed: return "Served.";
    case core::VerdictState::kWarned: return "Served, with the warnings above.";
    case core::VerdictState::kQuarantined:
      if (v.reason_codes == std::vector<core::ReasonCode>{core::ReasonCode::kScanPending} && v.findings.empty()) {
        return "Held until a scanner answers: `batlehub wait " + v.package.coordinate() + "` returns when one has.";
      }
      return "Held until every required scanner answers: fix what the SCANNER_ERROR findings say and scan again.";
    case core::VerdictState::kDenied:
      return "Refused until a rescan clears it or an administrator overrides it.";
  }
  return "";
}

std::string sarif_level(core::Severity s) {
  switch (s) {
    case core::Severity::kCritical:
    case core::Severity::kHigh: return "error";
    case core::Severity::kMedium: return "warning";
    default: return "note";
  }
}

json finding_json(const core::Finding& f) {
  json raw = json::parse(f.raw, nullptr, false);
  return {{"scanner", f.scanner},
          {"kind", core::to_string(f.kind)},
          {"code", core::to_string(f.code)},
          {"severity", core::to_string(f.severity)},
          {"reference", f.reference ? json(*f.reference) : json(nullptr)},
          {"summary", f.summary},
          {"raw", raw.is_discarded() ? json(nullptr) : raw}};
}

}  // namespace

std::string render_text(const ScanReport& r) {
  const core::Verdict& v = r.verdict;
  std::ostringstream o;
  o << v.package.coordinate() << "\n";
  o << "  " << pad("state", 10) << core::to_string(v.state) << "\n";
  o << "  " << pad("reasons", 10) << join_codes(v.reason_codes) << "\n";
  o << "  " << pad("policy", 10) << v.policy_ref << "\n";
  o << "  " << pad("evaluated", 10) << r.evaluated_at << "\n";
  o << "  " << pad("scanned", 10)
    << (!r.scanned_at.empty() ? r.scanned_at : v.scanners_done.empty() ? "never" : r.evaluated_at) << "\n";
  o << "  " << pad("scanners", 10) << join(v.scanners_done, "none answered yet") << "\n";
  if (v.findings.empty()) {
    o << "  " << pad("findings", 10) << "none\n";
  } else {
    o << "  findings\n";
    for (const auto& f : v.findings) {
      o << "    " << pad(f.scanner, 12) << pad(core::to_string(f.severity), 10) << pad(core::to_string(f.code), 22)
        << one_line(f.summary);
      if (f.reference) o << " [" << one_line(*f.reference) << "]";
      o << "\n";
    }
  }
  o << closing(v) << "\n";
  return o.str();
}

std::string render_refusal(ScanFormat f, int exit_code, const std::string& message, const std::string& archive) {
  switch (f) {
    case ScanFormat::kText: return message + "\n";
    case ScanFormat::kJson: {
      json e = {{"exit", exit_code}, {"message", message}, {"archive", archive.empty() ? json(nullptr) : json(archive)}};
      return json{{"error", e}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    case ScanFormat::kSarif: {
      json notification = {{"level", "error"}, {"message", {{"text", message}}}};
      if (!archive.empty()) {
        notification["locations"] = json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", archive}}}}}}});
      }
      json run = {{"tool", {{"driver", {{"name", "batlehub"}, {"informationUri", "https://github.com/batleforc/batlehub"}}}}},
                  {"invocations", json::array({{{"executionSuccessful", false},
                                                {"exitCode", exit_code},
                                                {"toolExecutionNotifications", json::array({notification})}}})},
                  {"results", json::array()}};
      json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
      return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
  }
  return message + "\n";
}

std::string native_message(const core::Verdict& v) {
  std::string codes;
  for (auto c : v.reason_codes) codes += (codes.empty() ? "" : ", ") + std::string(core::to_string(c));
  return v.package.coordinate() + " is " + std::string(core::to_string(v.state)) + " (" + codes +
         "). Run `batlehub why " + v.package.coordinate() + "` for details.";
}

std::string render_verdict_json(const core::Verdict& v, std::int64_t evaluated_at,
                                std::optional<std::int64_t> last_scanned_at) {
  json codes = json::array();
  for (auto c : v.reason_codes) codes.push_back(core::to_string(c));
  json findings = json::array();
  for (const auto& f : v.findings) findings.push_back(finding_json(f));
  json out = {{"package", {{"registry", v.package.registry}, {"name", v.package.name}, {"version", v.package.version}}},
              {"kind", core::to_string(v.package.kind)},
              {"state", core::to_string(v.state)},
              {"reason_codes", codes},
              {"findings", findings},
              {"policy_ref", v.policy_ref},
              {"available_at", nullptr},
              {"evaluated_at", rfc3339(evaluated_at)},
              {"last_scanned_at", last_scanned_at ? json(rfc3339(*last_scanned_at)) : json(nullptr)},
              {"scanners_done", v.scanners_done}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string render_json(const std::vector<ScanReport>& rs) {
  json out = json::array();
  for (const auto& r : rs) {
    const core::Verdict& v = r.verdict;
    json codes = json::array();
    for (auto c : v.reason_codes) codes.push_back(core::to_string(c));
    json findings = json::array();
    for (const auto& f : v.findings) findings.push_back(finding_json(f));
    out.push_back({{"artifact", r.artifact_path},
                   {"registry", v.package.registry},
                   {"kind", core::to_string(v.package.kind)},
                   {"name", v.package.name},
                   {"version", v.package.version},
                   {"state", core::to_string(v.state)},
                   {"reason_codes", codes},
                   {"policy_ref", v.policy_ref},
                   {"evaluated_at", r.evaluated_at},
                   {"scanners_done", v.scanners_done},
                   {"runtime", r.runtime},
                   {"findings", findings}});
  }
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string render_sarif(const std::vector<ScanReport>& rs) {
  // One run per scanner, across every artifact: code-scanning tools group by tool.
  std::map<std::string, json> runs;
  std::map<std::string, std::map<std::string, json>> rules;
  for (const auto& r : rs) {
    for (const auto& f : r.verdict.findings) {
      std::string rule_id = f.reference ? *f.reference : std::string(core::to_string(f.code));
      rules[f.scanner][rule_id] = {{"id", rule_id},
                                   {"shortDescription", {{"text", std::string(core::to_string(f.code))}}},
                                   {"properties", {{"kind", core::to_string(f.kind)}}}};
      json result = {{"ruleId", rule_id},
                     {"level", sarif_level(f.severity)},
                     {"message", {{"text", f.summary}}},
                     {"locations",
                      json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", r.artifact_path}}}}}}})},
                     {"properties",
                      {{"severity", core::to_string(f.severity)},
                       {"code", core::to_string(f.code)},
                       {"package", r.verdict.package.coordinate()},
                       {"verdict", core::to_string(r.verdict.state)}}}};
      runs[f.scanner]["results"].push_back(std::move(result));
    }
  }
  json out = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array()}};
  for (auto& [scanner, run] : runs) {
    json rule_list = json::array();
    for (auto& [id, rule] : rules[scanner]) rule_list.push_back(rule);
    out["runs"].push_back({{"tool", {{"driver", {{"name", scanner}, {"informationUri", "https://github.com/batleforc/batlehub"}, {"rules", rule_list}}}}},
                           {"results", run["results"]}});
  }
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace batlehub::server
