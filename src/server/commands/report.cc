#include "server/commands/report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "base/percent_encode.h"

namespace batlehub::server {

using nlohmann::json;

std::string now_rfc3339() {
  return rfc3339(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
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
    case core::VerdictState::kAllowed:
      return "Served.";
    case core::VerdictState::kWarned:
      return "Served, with the warnings above.";
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
    case core::Severity::kHigh:
      return "error";
    case core::Severity::kMedium:
      return "warning";
    default:
      return "note";
  }
}

std::string information_uri(std::string_view type) {
  if (type == "guarddog") return "https://github.com/DataDog/guarddog";
  if (type == "trivy") return "https://github.com/aquasecurity/trivy";
  if (type == "yara") return "https://github.com/VirusTotal/yara";
  return "https://github.com/batleforc/batlehub";
}

// file:// and the absolute path, percent-encoded, with the trailing slash a base URI needs.
std::string archive_base_uri(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) abs = path;
  return "file://" + uri_path(abs.lexically_normal().string()) + "/";
}

// batlehub, as the converter of every run and the tool of a refusal's.
json batlehub_driver() {
  return {
      {"name", "batlehub"}, {"version", BATLEHUB_VERSION}, {"informationUri", "https://github.com/batleforc/batlehub"}};
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
  if (v.available_at) o << "  " << pad("available", 10) << rfc3339(*v.available_at) << "\n";
  o << "  " << pad("policy", 10) << v.policy_ref << "\n";
  o << "  " << pad("evaluated", 10) << r.evaluated_at << "\n";
  o << "  " << pad("scanned", 10)
    << (!r.scanned_at.empty()     ? r.scanned_at
        : v.scanners_done.empty() ? "never"
                                  : r.evaluated_at)
    << "\n";
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
    case ScanFormat::kText:
      return message + "\n";
    case ScanFormat::kJson: {
      json e = {
          {"exit", exit_code}, {"message", message}, {"archive", archive.empty() ? json(nullptr) : json(archive)}};
      return json{{"error", e}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    case ScanFormat::kSarif: {
      // The archive (when there is one) is the run's one base URI, as in render_sarif.
      json notification = {{"level", "error"}, {"message", {{"text", message}}}};
      json run = {{"tool", {{"driver", batlehub_driver()}}}};
      if (!archive.empty()) {
        notification["locations"] =
            json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", ""}, {"uriBaseId", "ARCHIVE"}}}}}}});
        run["originalUriBaseIds"] = {{"ARCHIVE",
                                      {{"uri", archive_base_uri(archive)},
                                       {"description", {{"text", "The entries of the archive " + archive + "."}}}}}};
      }
      run["invocations"] = json::array({{{"executionSuccessful", false},
                                         {"exitCode", exit_code},
                                         {"toolExecutionNotifications", json::array({notification})}}});
      run["results"] = json::array();
      json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                  {"version", "2.1.0"},
                  {"runs", json::array({run})}};
      return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
  }
  return message + "\n";
}

std::string native_message(const core::Verdict& v) {
  std::string codes;
  for (auto c : v.reason_codes) codes += (codes.empty() ? "" : ", ") + std::string(core::to_string(c));
  if (v.available_at) codes += ", available " + rfc3339(*v.available_at);
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
              {"state", core::to_string(v.state)},
              {"reason_codes", codes},
              {"findings", findings},
              {"policy_ref", v.policy_ref},
              {"available_at", v.available_at ? json(rfc3339(*v.available_at)) : json(nullptr)},
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
                   {"kind", r.kind ? json(core::to_string(*r.kind)) : json(nullptr)},
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

std::string uri_path(std::string_view path) {
  return base::percent_encode(path, /*keep_slash=*/true);
}

namespace {

// An entry's path as a relative reference that stays beneath its base: no leading '/', no
// "." or ".." segment, not empty.
bool inside_archive(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view seg = path.substr(i, j - i);
    if (seg.empty() || seg == "." || seg == "..") return false;
    i = j + 1;
  }
  return true;
}

std::optional<std::uint64_t> line_number(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (n == 0) return std::nullopt;
  return n;
}

std::string string_at(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::optional<FindingPlace> place_of(std::string_view scanner_type, const core::Finding& f) {
  json raw = json::parse(f.raw, nullptr, false);
  if (!raw.is_object()) return std::nullopt;
  FindingPlace p;
  if (scanner_type == "guarddog") {
    // "package/index.js:7": the file, then its line after the last colon.
    std::string loc = string_at(raw, "location");
    std::size_t colon = loc.rfind(':');
    auto line = colon == std::string::npos ? std::nullopt : line_number(std::string_view(loc).substr(colon + 1));
    p.path = line ? loc.substr(0, colon) : loc;
    p.line = line;
  } else if (scanner_type == "trivy") {
    // The lockfile trivy read the vulnerable package from, relative to the scanned tree,
    // which is the archive's root (trivy.h); absent for an SBOM's findings.
    p.path = string_at(raw, "Target");
  } else if (scanner_type == "yara") {
    // yara scanned the run's scan/tree, where the archive was extracted (yara.h).
    std::string path = string_at(raw, "path");
    if (!path.starts_with("scan/tree/")) return std::nullopt;
    p.path = path.substr(std::string_view("scan/tree/").size());
  } else if (scanner_type == "signals") {
    // The fact's file, relative to the scanned tree (the archive's root), and its line; a
    // combined finding carries its facts, the first of which says where.
    const json& fact =
        raw.contains("facts") && raw["facts"].is_array() && !raw["facts"].empty() ? raw["facts"][0] : raw;
    if (!fact.is_object()) return std::nullopt;
    p.path = string_at(fact, "file");
    if (auto l = fact.find("line"); l != fact.end() && l->is_number_unsigned() && l->get<std::uint64_t>() > 0)
      p.line = l->get<std::uint64_t>();
  } else {
    return std::nullopt;
  }
  if (!inside_archive(p.path)) return std::nullopt;
  return p;
}

std::string render_sarif(const std::vector<ScanReport>& rs, const std::vector<SarifTool>& tools) {
  // Each archive's base id: its coordinate, made unique when the same one is scanned twice.
  std::vector<std::string> base_ids;
  for (const auto& r : rs) {
    std::string id = r.verdict.package.coordinate();
    std::string unique = id;
    for (int n = 2; std::find(base_ids.begin(), base_ids.end(), unique) != base_ids.end(); ++n) {
      unique = id + "#" + std::to_string(n);
    }
    base_ids.push_back(unique);
  }
  // The runs: every configured scanner that ran over any archive, in the configuration's
  // order, then any other a report names (none, unless the caller left it out of `tools`).
  std::vector<SarifTool> ordered;
  auto ran_any = [&](const std::string& name) {
    for (const auto& r : rs) {
      for (const auto& o : r.ran) {
        if (o.scanner == name) return true;
      }
      for (const auto& f : r.verdict.findings) {
        if (f.scanner == name) return true;
      }
    }
    return false;
  };
  auto known = [&](const std::string& name) {
    return std::any_of(ordered.begin(), ordered.end(), [&](const SarifTool& t) { return t.name == name; });
  };
  for (const auto& t : tools) {
    if (!known(t.name) && ran_any(t.name)) ordered.push_back(t);
  }
  for (const auto& r : rs) {
    for (const auto& o : r.ran) {
      if (!known(o.scanner)) ordered.push_back(SarifTool{o.scanner, "", std::nullopt});
    }
    for (const auto& f : r.verdict.findings) {
      if (!known(f.scanner)) ordered.push_back(SarifTool{f.scanner, "", std::nullopt});
    }
  }

  json out = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array()}};
  for (const SarifTool& tool : ordered) {
    std::map<std::string, json> rules;
    json bases = json::object();
    json invocations = json::array();
    json results = json::array();
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const ScanReport& r = rs[i];
      const std::string& base = base_ids[i];
      auto outcome =
          std::find_if(r.ran.begin(), r.ran.end(), [&](const ScannerOutcome& o) { return o.scanner == tool.name; });
      bool has_findings = std::any_of(r.verdict.findings.begin(), r.verdict.findings.end(),
                                      [&](const core::Finding& f) { return f.scanner == tool.name; });
      if (outcome == r.ran.end() && !has_findings) continue;
      bases[base] = {{"uri", archive_base_uri(r.artifact_path)},
                     {"description", {{"text", "The entries of the archive " + r.artifact_path + " (" + base + ")."}}}};
      json invocation = {{"executionSuccessful", outcome == r.ran.end() || !outcome->failure},
                         {"properties", {{"analysisTarget", base}}}};
      if (outcome != r.ran.end() && outcome->failure) {
        invocation["toolExecutionNotifications"] = json::array(
            {{{"level", "error"},
              {"message", {{"text", *outcome->failure}}},
              {"locations",
               json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", ""}, {"uriBaseId", base}}}}}}})}}});
      }
      invocations.push_back(std::move(invocation));
      for (const auto& f : r.verdict.findings) {
        if (f.scanner != tool.name) continue;
        std::string rule_id = f.reference ? *f.reference : std::string(core::to_string(f.code));
        rules[rule_id] = {{"id", rule_id},
                          {"shortDescription", {{"text", std::string(core::to_string(f.code))}}},
                          {"properties", {{"kind", core::to_string(f.kind)}}}};
        json result = {{"ruleId", rule_id},
                       {"level", sarif_level(f.severity)},
                       {"message", {{"text", f.summary.empty() ? std::string(core::to_string(f.code)) : f.summary}}},
                       {"analysisTarget", {{"uri", ""}, {"uriBaseId", base}}},
                       {"properties",
                        {{"severity", core::to_string(f.severity)},
                         {"code", core::to_string(f.code)},
                         {"package", r.verdict.package.coordinate()},
                         {"verdict", core::to_string(r.verdict.state)}}}};
        if (auto place = place_of(tool.type, f)) {
          json where = {{"uri", uri_path(place->path)}, {"uriBaseId", base}};
          if (place->line) {
            result["locations"] = json::array(
                {{{"physicalLocation", {{"artifactLocation", where}, {"region", {{"startLine", *place->line}}}}}}});
          } else {
            result["analysisTarget"] = where;
          }
        }
        results.push_back(std::move(result));
      }
    }
    json rule_list = json::array();
    for (auto& [id, rule] : rules) rule_list.push_back(std::move(rule));
    json driver = {{"name", tool.name}, {"informationUri", information_uri(tool.type)}, {"rules", rule_list}};
    if (tool.version) driver["version"] = *tool.version;
    out["runs"].push_back({{"tool", {{"driver", driver}}},
                           {"conversion", {{"tool", {{"driver", batlehub_driver()}}}}},
                           {"originalUriBaseIds", bases},
                           {"invocations", invocations},
                           {"results", results}});
  }
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace batlehub::server
