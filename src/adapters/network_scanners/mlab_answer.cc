#include "adapters/network_scanners/mlab_answer.h"

#include <exception>

namespace batlehub::adapters::net {

using detail::at;
using detail::error;
using detail::present;
using detail::shown;
using nlohmann::json;

namespace {

constexpr std::string_view kKevSuffix = " (CISA KEV: exploited in the wild)";
// A finding's raw is at most what an answer was (the largest answer cap).
constexpr std::size_t kMaxRaw = kMaxOsvAnswer;

enum class Want { kNumber, kString, kBoolean };

const char* name_of(Want w) {
  switch (w) {
    case Want::kNumber:
      return "a number";
    case Want::kString:
      return "a string";
    case Want::kBoolean:
      return "a boolean";
  }
  return "?";
}

bool fits(const json& v, Want w) {
  switch (w) {
    case Want::kNumber:
      return v.is_number();
    case Want::kString:
      return v.is_string();
    case Want::kBoolean:
      return v.is_boolean();
  }
  return false;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Expected<MlabRecord, AnswerError> parse_mlab_cve(std::string_view body) {
  const std::string where = "mlab cve";
  auto doc = detail::parse_answer(body, kMaxMlabRecord, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    if (!doc->is_object()) return Unexpected(error(where, "the answer is not an object but " + shown(*doc)));
    static constexpr struct {
      const char* key;
      Want want;
    } kFields[] = {
        {"cvss_score", Want::kNumber},     {"cvss_severity", Want::kString},   {"cvss_vector", Want::kString},
        {"epss_score", Want::kNumber},     {"epss_percentile", Want::kNumber}, {"in_kev", Want::kBoolean},
        {"kev_date_added", Want::kString}, {"kev_due_date", Want::kString},
    };
    MlabRecord out;
    out.enrichment = json::object();
    for (const auto& field : kFields) {
      const json* v = present(*doc, field.key);
      if (v == nullptr) {
        out.enrichment[field.key] = nullptr;
        continue;
      }
      if (!fits(*v, field.want)) {
        return Unexpected(error(at(where, std::string("/") + field.key),
                                std::string("is not ") + name_of(field.want) + " but " + shown(*v)));
      }
      out.enrichment[field.key] = *v;
    }
    out.enrichment["source"] = "mlab";
    const json* kev = present(*doc, "in_kev");
    out.in_kev = kev != nullptr && kev->get<bool>();
    return out;
  } catch (const std::exception& e) {
    return Unexpected(error(where, "the answer could not be read: " + printable(detail::first_chars(e.what(), 200))));
  }
}

bool is_cve_id(std::string_view s) {
  if (s.size() <= 8 || s.substr(0, 4) != "CVE-") return false;
  for (char c : s.substr(4)) {
    if (!((c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

std::optional<std::string> cve_of(const core::Finding& f) {
  if (f.reference && is_cve_id(*f.reference)) return f.reference;
  auto raw = detail::parse_answer(f.raw, kMaxRaw, "raw");
  if (!raw) return std::nullopt;
  const json* aliases = present(*raw, "aliases");
  if (aliases == nullptr || !aliases->is_array()) return std::nullopt;
  for (const json& a : *aliases) {
    if (a.is_string() && is_cve_id(a.get_ref<const std::string&>())) return a.get<std::string>();
  }
  return std::nullopt;
}

void apply_enrichment(core::Finding& f, const MlabRecord& r) {
  auto raw = detail::parse_answer(f.raw, kMaxRaw, "raw");
  json obj = raw && raw->is_object() ? std::move(*raw) : json::object();
  obj["enrichment"] = r.enrichment;
  f.raw = compact(obj);
  if (r.in_kev) {
    f.severity = core::Severity::kCritical;
    if (!ends_with(f.summary, kKevSuffix)) f.summary += kKevSuffix;
  }
}

}  // namespace batlehub::adapters::net
