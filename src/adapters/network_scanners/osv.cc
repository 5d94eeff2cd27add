#include "adapters/network_scanners/osv.h"

#include <algorithm>
#include <map>
#include <set>

#include "adapters/network_scanners/osv_answer.h"
#include "adapters/scanners/subprocess.h"
#include "base/percent_encode.h"
#include "core/purl.h"

namespace batlehub::adapters::net {

using core::ScannerError;

namespace {

// OSV's documented ceiling on queries per querybatch request.
constexpr std::size_t kBatch = 1000;
// Rounds of pages followed before the rest is left: a package with more advisories than
// this is already refused by any max_severity.
constexpr int kMaxPages = 10;

http::Request post_json(const std::string& url, std::string body) {
  http::Request r;
  r.method = "POST";
  r.url = url;
  r.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  r.body = std::move(body);
  r.max_body = kMaxOsvAnswer;
  return r;
}

void walk_components(const nlohmann::json& list, std::vector<std::string>& out, std::set<std::string>& seen,
                     std::size_t max, bool& over) {
  if (!list.is_array()) return;
  for (const auto& c : list) {
    if (over || !c.is_object()) continue;
    if (auto p = c.find("purl"); p != c.end() && p->is_string()) {
      const std::string& purl = p->get_ref<const std::string&>();
      if (!purl.empty() && purl.size() <= 2048 && seen.insert(purl).second) {
        if (out.size() == max) {
          over = true;
          return;
        }
        out.push_back(purl);
      }
    }
    if (auto nested = c.find("components"); nested != c.end()) walk_components(*nested, out, seen, max, over);
  }
}

}  // namespace

Expected<std::vector<std::string>, std::string> sbom_purls(std::string_view cyclonedx, std::size_t max) {
  if (cyclonedx.size() > kMaxSbomBytes) {
    return Unexpected("the SBOM is " + std::to_string(cyclonedx.size()) + " bytes, more than " +
                      std::to_string(kMaxSbomBytes));
  }
  auto doc = parse_json(cyclonedx);
  if (!doc) return Unexpected("the SBOM: " + doc.error().message);
  if (!doc->is_object()) return Unexpected(std::string("the SBOM is not a JSON object"));
  std::vector<std::string> out;
  std::set<std::string> seen;
  bool over = false;
  if (auto c = doc->find("components"); c != doc->end()) walk_components(*c, out, seen, max, over);
  if (over) return Unexpected("the SBOM names more than " + std::to_string(max) + " components");
  return out;
}

Expected<core::Lookup, ScannerError> OsvScanner::scan(const core::ScanInput& in,
                                                      std::chrono::steady_clock::time_point deadline) const {
  const ApiOptions& api = o_.api;
  core::Lookup out;
  // Under upstream's default a failure is a clean answer for what it concerned; under
  // on_outage = "error" it is the scanner's error.
  auto tolerate = [&](ScannerError e) -> std::optional<ScannerError> {
    if (o_.fail_closed) return e;
    out.tolerated.push_back(std::move(e));
    return std::nullopt;
  };

  auto coordinate = core::purl_of(in.package);
  if (!coordinate) {
    return Unexpected(ScannerError{ScannerError::Kind::kUnsupported,
                                   api.name + ": " + in.package.coordinate() + " has no package URL OSV could match"});
  }
  std::vector<std::string> purls = {*coordinate};
  if (in.sbom) {
    auto components = sbom_purls(*in.sbom);
    if (!components) return Unexpected(ScannerError{ScannerError::Kind::kOutput, api.name + ": " + components.error()});
    for (auto& p : *components) {
      if (std::find(purls.begin(), purls.end(), p) == purls.end()) purls.push_back(std::move(p));
    }
  }

  // 1. Which advisories name each PURL: querybatch, then /v1/query for further pages.
  std::vector<std::vector<std::string>> ids(purls.size());
  for (std::size_t first = 0; first < purls.size(); first += kBatch) {
    const std::size_t n = std::min(kBatch, purls.size() - first);
    const std::vector<std::string> chunk(purls.begin() + static_cast<std::ptrdiff_t>(first),
                                         purls.begin() + static_cast<std::ptrdiff_t>(first + n));
    http::Request r = post_json(api.api_url + "/v1/querybatch", osv_batch_request(chunk));
    auto got = call_api(client_, api, r, deadline);
    if (!got) {
      if (auto e = tolerate(got.error())) return Unexpected(*e);
      continue;
    }
    auto results = parse_osv_batch(got->body, n);
    if (!results) {
      if (auto e = tolerate(unreadable(api, r, results.error().describe()))) return Unexpected(*e);
      continue;
    }
    // A query with more ids than one page holds comes back with a next_page_token: the
    // queries that have one are asked again, in one querybatch, each with its page_token
    // (https://google.github.io/osv.dev/post-v1-querybatch/, "Pagination").
    std::vector<std::pair<std::size_t, std::string>> more;  // (index in purls, page token)
    for (std::size_t i = 0; i < n; ++i) {
      OsvBatchResult& res = (*results)[i];
      ids[first + i] = std::move(res.ids);
      if (!res.next_page_token.empty()) more.emplace_back(first + i, std::move(res.next_page_token));
    }
    for (int page = 0; !more.empty() && page < kMaxPages; ++page) {
      nlohmann::json queries = nlohmann::json::array();
      for (const auto& [i, token] : more) {
        queries.push_back({{"package", {{"purl", purls[i]}}}, {"page_token", token}});
      }
      http::Request again = post_json(api.api_url + "/v1/querybatch", compact(nlohmann::json{{"queries", queries}}));
      auto got_more = call_api(client_, api, again, deadline);
      if (!got_more) {
        if (auto e = tolerate(got_more.error())) return Unexpected(*e);
        break;
      }
      auto pages = parse_osv_batch(got_more->body, more.size());
      if (!pages) {
        if (auto e = tolerate(unreadable(api, again, pages.error().describe()))) return Unexpected(*e);
        break;
      }
      std::vector<std::pair<std::size_t, std::string>> next;
      for (std::size_t k = 0; k < more.size(); ++k) {
        OsvBatchResult& res = (*pages)[k];
        auto& mine = ids[more[k].first];
        mine.insert(mine.end(), res.ids.begin(), res.ids.end());
        if (!res.next_page_token.empty()) next.emplace_back(more[k].first, std::move(res.next_page_token));
      }
      more = std::move(next);
    }
  }

  // 2. Each distinct advisory once, for what the ids alone do not say.
  std::map<std::string, OsvVuln> known;
  for (const auto& list : ids) {
    for (const std::string& id : list) {
      if (known.contains(id)) continue;
      http::Request r;
      r.url = api.api_url + "/v1/vulns/" + base::percent_encode(id, false);
      r.headers = {{"Accept", "application/json"}};
      r.max_body = kMaxOsvAnswer;
      OsvVuln v;
      v.id = id;
      v.summary = id;
      v.severity = core::Severity::kUnknown;
      auto got = call_api(client_, api, r, deadline);
      if (!got) {
        // The advisory stands without its details: named, at unknown severity.
        if (auto e = tolerate(got.error())) return Unexpected(*e);
      } else if (auto parsed = parse_osv_vuln(got->body); !parsed) {
        if (auto e = tolerate(unreadable(api, r, parsed.error().describe()))) return Unexpected(*e);
      } else if (parsed->id != id) {
        if (auto e = tolerate(unreadable(api, r, "asked for " + id + ", answered " + printable(parsed->id)))) {
          return Unexpected(*e);
        }
      } else {
        v = std::move(*parsed);
      }
      known.emplace(id, std::move(v));
    }
  }

  for (std::size_t i = 0; i < purls.size(); ++i) {
    std::set<std::string> once;
    for (const std::string& id : ids[i]) {
      if (once.insert(id).second) out.findings.push_back(osv_finding(api.name, known.at(id), purls[i]));
    }
  }
  return out;
}

}  // namespace batlehub::adapters::net
