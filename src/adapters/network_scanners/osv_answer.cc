#include "adapters/network_scanners/osv_answer.h"

#include <charconv>
#include <cmath>
#include <exception>
#include <system_error>

namespace batlehub::adapters::net {

using detail::at;
using detail::error;
using detail::member;
using detail::present;
using detail::shown;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxIdChars = 128;
constexpr std::size_t kMaxSummaryChars = 1024;
constexpr std::size_t kDetailsChars = 200;  // upstream's: a summary made of `details`
// A page token goes back to OSV in the next request; it is opaque, but no real one is long.
constexpr std::size_t kMaxPageToken = 16 * 1024;

// A score as Rust's f64::from_str reads one (upstream parses the string): an optional sign,
// then digits with an optional point and exponent, or inf / infinity / nan in any case. No
// white space, no hex. NaN is no score (it compares with nothing), so nullopt too.
std::optional<double> number_of(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) return std::nullopt;
  }
  if (s.empty() || s.find('(') != std::string_view::npos) return std::nullopt;  // from_chars' "nan(…)"
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
  if (ec != std::errc() || end != s.data() + s.size() || std::isnan(d)) return std::nullopt;
  return d;
}

core::Severity band(double score) {
  if (score >= 9.0) return core::Severity::kCritical;
  if (score >= 7.0) return core::Severity::kHigh;
  if (score >= 4.0) return core::Severity::kMedium;
  if (score > 0) return core::Severity::kLow;
  return core::Severity::kUnknown;
}

// Upstream's severity: database_specific.severity, else the largest numeric score.
core::Severity severity_of(const json& v) {
  if (const json* db = present(v, "database_specific")) {
    if (const json* s = present(*db, "severity"); s != nullptr && s->is_string()) {
      if (auto parsed = core::parse_severity(s->get_ref<const std::string&>())) return *parsed;
    }
  }
  std::optional<double> best;
  if (const json* scores = present(v, "severity"); scores != nullptr && scores->is_array()) {
    for (const json& entry : *scores) {
      const json* score = member(entry, "score");
      if (score == nullptr) continue;
      std::optional<double> n;
      if (score->is_number()) {
        n = score->get<double>();
      } else if (score->is_string()) {
        n = number_of(score->get_ref<const std::string&>());
      }
      if (n && !std::isnan(*n) && (!best || *n > *best)) best = n;
    }
  }
  return best ? band(*best) : core::Severity::kUnknown;
}

// A string member, or nullopt when absent or null; a member of another type is an error.
Expected<std::optional<std::string>, AnswerError> string_member(const json& obj, const char* key,
                                                                const std::string& where, const std::string& pointer) {
  const json* m = present(obj, key);
  if (m == nullptr) return std::optional<std::string>();
  if (!m->is_string()) {
    return Unexpected(error(at(where, pointer + "/" + key), "is not a string but " + shown(*m)));
  }
  return std::optional<std::string>(m->get<std::string>());
}

Expected<std::string, AnswerError> checked_id(const json* id, const std::string& where, const std::string& pointer) {
  if (id == nullptr) return Unexpected(error(at(where, pointer), "is missing"));
  if (!id->is_string()) return Unexpected(error(at(where, pointer), "is not a string but " + shown(*id)));
  const std::string& s = id->get_ref<const std::string&>();
  if (!is_osv_id(s)) {
    return Unexpected(error(at(where, pointer), detail::quote_of(s) + " is no vulnerability id (1 to " +
                                                    std::to_string(kMaxIdChars) +
                                                    " characters of printable ASCII without spaces)"));
  }
  return s;
}

Expected<std::string, AnswerError> page_token(const json& obj, const std::string& where, const std::string& pointer) {
  auto token = string_member(obj, "next_page_token", where, pointer);
  if (!token) return Unexpected(std::move(token).error());
  if (!*token) return std::string();
  if ((*token)->size() > kMaxPageToken) {
    return Unexpected(
        error(at(where, pointer + "/next_page_token"),
              "is " + std::to_string((*token)->size()) + " bytes long, more than " + std::to_string(kMaxPageToken)));
  }
  return std::move(**token);
}

// The first `fixed` event across affected[].ranges[].events[], with the shapes checked.
Expected<std::optional<std::string>, AnswerError> fixed_of(const json& v, const std::string& where,
                                                           const std::string& pointer) {
  std::optional<std::string> fixed;
  const json* affected = present(v, "affected");
  if (affected == nullptr) return fixed;
  if (!affected->is_array()) {
    return Unexpected(error(at(where, pointer + "/affected"), "is not an array but " + shown(*affected)));
  }
  for (std::size_t a = 0; a < affected->size(); ++a) {
    const json& aff = (*affected)[a];
    const std::string ap = pointer + "/affected/" + std::to_string(a);
    if (!aff.is_object()) return Unexpected(error(at(where, ap), "is not an object but " + shown(aff)));
    const json* ranges = present(aff, "ranges");
    if (ranges == nullptr) continue;
    if (!ranges->is_array()) {
      return Unexpected(error(at(where, ap + "/ranges"), "is not an array but " + shown(*ranges)));
    }
    for (std::size_t r = 0; r < ranges->size(); ++r) {
      const json& range = (*ranges)[r];
      const std::string rp = ap + "/ranges/" + std::to_string(r);
      if (!range.is_object()) return Unexpected(error(at(where, rp), "is not an object but " + shown(range)));
      const json* events = present(range, "events");
      if (events == nullptr) continue;
      if (!events->is_array()) {
        return Unexpected(error(at(where, rp + "/events"), "is not an array but " + shown(*events)));
      }
      for (std::size_t e = 0; e < events->size(); ++e) {
        const json& event = (*events)[e];
        const std::string ep = rp + "/events/" + std::to_string(e);
        if (!event.is_object()) return Unexpected(error(at(where, ep), "is not an object but " + shown(event)));
        auto f = string_member(event, "fixed", where, ep);
        if (!f) return Unexpected(std::move(f).error());
        if (*f && !fixed) fixed = std::move(*f);
      }
    }
  }
  return fixed;
}

Expected<OsvVuln, AnswerError> vuln_of(const json& v, const std::string& where, const std::string& pointer) {
  if (!v.is_object()) return Unexpected(error(at(where, pointer), "is not an object but " + shown(v)));
  OsvVuln out;
  auto id = checked_id(member(v, "id"), where, pointer + "/id");
  if (!id) return Unexpected(std::move(id).error());
  out.id = std::move(*id);

  auto summary = string_member(v, "summary", where, pointer);
  if (!summary) return Unexpected(std::move(summary).error());
  auto details = string_member(v, "details", where, pointer);
  if (!details) return Unexpected(std::move(details).error());
  // An empty summary says nothing: the details, then the id, stand in for it.
  if (*summary && !(*summary)->empty()) {
    out.summary = printable(detail::first_chars(**summary, kMaxSummaryChars));
  } else if (*details && !(*details)->empty()) {
    out.summary = printable(detail::first_chars(**details, kDetailsChars));
  } else {
    out.summary = out.id;
  }

  if (const json* aliases = present(v, "aliases")) {
    if (!aliases->is_array()) {
      return Unexpected(error(at(where, pointer + "/aliases"), "is not an array but " + shown(*aliases)));
    }
    for (const json& a : *aliases) {
      if (a.is_string()) out.aliases.push_back(a.get<std::string>());
    }
  }

  out.severity = severity_of(v);
  auto fixed = fixed_of(v, where, pointer);
  if (!fixed) return Unexpected(std::move(fixed).error());
  out.fixed_version = std::move(*fixed);
  return out;
}

}  // namespace

bool is_osv_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdChars) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

std::string osv_batch_request(const std::vector<std::string>& purls) {
  json queries = json::array();
  for (const std::string& p : purls) queries.push_back({{"package", {{"purl", p}}}});
  return compact(json{{"queries", std::move(queries)}});
}

std::string osv_query_request(const std::string& purl, const std::string& page_token) {
  json q = {{"package", {{"purl", purl}}}};
  if (!page_token.empty()) q["page_token"] = page_token;
  return compact(q);
}

Expected<std::vector<OsvBatchResult>, AnswerError> parse_osv_batch(std::string_view body, std::size_t queries) {
  const std::string where = "osv querybatch";
  auto doc = detail::parse_answer(body, kMaxOsvAnswer, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    if (!doc->is_object()) return Unexpected(error(where, "the answer is not an object but " + shown(*doc)));
    const json* results = member(*doc, "results");
    if (results == nullptr) return Unexpected(error(at(where, "/results"), "is missing"));
    if (!results->is_array()) {
      return Unexpected(error(at(where, "/results"), "is not an array but " + shown(*results)));
    }
    if (results->size() != queries) {
      return Unexpected(error(at(where, "/results"), "has " + std::to_string(results->size()) + " results for " +
                                                         std::to_string(queries) + " queries"));
    }
    std::vector<OsvBatchResult> out;
    out.reserve(queries);
    for (std::size_t i = 0; i < results->size(); ++i) {
      const json& r = (*results)[i];
      const std::string rp = "/results/" + std::to_string(i);
      if (!r.is_object()) return Unexpected(error(at(where, rp), "is not an object but " + shown(r)));
      OsvBatchResult result;
      if (const json* vulns = present(r, "vulns")) {
        if (!vulns->is_array()) {
          return Unexpected(error(at(where, rp + "/vulns"), "is not an array but " + shown(*vulns)));
        }
        for (std::size_t j = 0; j < vulns->size(); ++j) {
          const json& v = (*vulns)[j];
          const std::string vp = rp + "/vulns/" + std::to_string(j);
          if (!v.is_object()) return Unexpected(error(at(where, vp), "is not an object but " + shown(v)));
          auto id = checked_id(member(v, "id"), where, vp + "/id");
          if (!id) return Unexpected(std::move(id).error());
          result.ids.push_back(std::move(*id));
        }
      }
      auto token = page_token(r, where, rp);
      if (!token) return Unexpected(std::move(token).error());
      result.next_page_token = std::move(*token);
      out.push_back(std::move(result));
    }
    return out;
  } catch (const std::exception& e) {
    return Unexpected(error(where, "the answer could not be read: " + printable(detail::first_chars(e.what(), 200))));
  }
}

Expected<OsvVuln, AnswerError> parse_osv_vuln(std::string_view body) {
  const std::string where = "osv vuln";
  auto doc = detail::parse_answer(body, kMaxOsvAnswer, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    return vuln_of(*doc, where, "");
  } catch (const std::exception& e) {
    return Unexpected(error(where, "the answer could not be read: " + printable(detail::first_chars(e.what(), 200))));
  }
}

Expected<std::pair<std::vector<OsvVuln>, std::string>, AnswerError> parse_osv_query(std::string_view body) {
  const std::string where = "osv query";
  auto doc = detail::parse_answer(body, kMaxOsvAnswer, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    if (!doc->is_object()) return Unexpected(error(where, "the answer is not an object but " + shown(*doc)));
    std::vector<OsvVuln> vulns;
    if (const json* list = present(*doc, "vulns")) {
      if (!list->is_array()) return Unexpected(error(at(where, "/vulns"), "is not an array but " + shown(*list)));
      vulns.reserve(list->size());
      for (std::size_t i = 0; i < list->size(); ++i) {
        auto v = vuln_of((*list)[i], where, "/vulns/" + std::to_string(i));
        if (!v) return Unexpected(std::move(v).error());
        vulns.push_back(std::move(*v));
      }
    }
    auto token = page_token(*doc, where, "");
    if (!token) return Unexpected(std::move(token).error());
    return std::pair<std::vector<OsvVuln>, std::string>(std::move(vulns), std::move(*token));
  } catch (const std::exception& e) {
    return Unexpected(error(where, "the answer could not be read: " + printable(detail::first_chars(e.what(), 200))));
  }
}

core::Finding osv_finding(const std::string& scanner, const OsvVuln& v, const std::string& purl) {
  core::Finding f;
  f.scanner = scanner;
  f.kind = core::FindingKind::kVulnerability;
  f.code = core::ReasonCode::kVulnerability;
  f.severity = v.severity;
  f.summary = printable(v.summary);  // already printable when parsed here; idempotent
  f.reference = v.id;
  json raw = {{"purl", purl},
              {"fixed_version", v.fixed_version ? json(*v.fixed_version) : json(nullptr)},
              {"aliases", v.aliases}};
  f.raw = compact(raw);
  return f;
}

}  // namespace batlehub::adapters::net
