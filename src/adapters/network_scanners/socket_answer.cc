#include "adapters/network_scanners/socket_answer.h"

#include <exception>

namespace batlehub::adapters::net {

using detail::at;
using detail::error;
using detail::present;
using detail::shown;
using nlohmann::json;

namespace {

constexpr std::size_t kReferenceChars = 120;  // upstream's
constexpr std::size_t kTypeChars = 128;       // a type or a category in a summary

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// Upstream's mapping from Socket's alert type.
void classify(std::string_view type, core::Finding& f) {
  if (type == "installScripts" || type == "gitDependency" || type == "httpDependency") {
    f.kind = core::FindingKind::kInstallHook;
    f.code = core::ReasonCode::kInstallHook;
  } else if (type == "didYouMean" || type == "typosquat") {
    f.kind = core::FindingKind::kTyposquat;
    f.code = core::ReasonCode::kTyposquatSuspect;
  } else if (type == "cve" || type == "vulnerability" || type == "criticalCVE" || type == "mediumCVE" ||
             type == "mildCVE") {
    f.kind = core::FindingKind::kVulnerability;
    f.code = core::ReasonCode::kVulnerability;
  } else {
    f.kind = core::FindingKind::kMalwareSignal;
    f.code = core::ReasonCode::kMalwareSignal;
  }
}

// What Socket said went wrong, for a message: a string, or an object's `message`.
std::string complaint(const json& e) {
  if (e.is_string()) return detail::quote_of(e.get_ref<const std::string&>());
  if (const json* m = present(e, "message"); m != nullptr && m->is_string()) {
    return detail::quote_of(m->get_ref<const std::string&>());
  }
  return shown(e);
}

std::optional<std::string> reference_of(const json& alert) {
  const json* props = present(alert, "props");
  if (props == nullptr) return std::nullopt;
  for (const char* key : {"note", "cveId"}) {
    const json* v = present(*props, key);
    if (v != nullptr && v->is_string() && !v->get_ref<const std::string&>().empty()) {
      return printable(detail::first_chars(v->get_ref<const std::string&>(), kReferenceChars));
    }
  }
  return std::nullopt;
}

// One line's findings, appended to `out`.
Expected<Ok, AnswerError> read_line(std::string_view line, const std::string& where, const std::string& scanner,
                                    std::vector<core::Finding>& out) {
  if (line.size() > kMaxSocketLine) {
    return Unexpected(error(where, "the line is " + std::to_string(line.size()) + " bytes, more than the " +
                                       std::to_string(kMaxSocketLine) + " read"));
  }
  auto row = detail::parse_answer(line, kMaxSocketLine, where);
  if (!row) return Unexpected(std::move(row).error());
  if (!row->is_object()) return Unexpected(error(where, "the line is not an object but " + shown(*row)));
  if (const json* e = detail::member(*row, "error")) {
    return Unexpected(error(at(where, "/error"), "Socket answered an error: " + complaint(*e)));
  }
  if (const json* kind = detail::member(*row, "_type")) {
    if (kind->is_string() && kind->get_ref<const std::string&>() == "summary") return Ok{};
    if (kind->is_string() && kind->get_ref<const std::string&>() == "purlError") {
      const json* value = present(*row, "value");
      const json* input = value != nullptr ? present(*value, "inputPurl") : nullptr;
      const json* why = value != nullptr ? present(*value, "error") : nullptr;
      return Unexpected(error(at(where, "/_type"), "Socket could not resolve " +
                                                       (input != nullptr ? complaint(*input) : "a PURL") +
                                                       (why != nullptr ? ": " + complaint(*why) : "")));
    }
    return Unexpected(error(at(where, "/_type"), "is a row of an unknown kind: " + shown(*kind)));
  }
  const json* alerts = present(*row, "alerts");
  if (alerts == nullptr) return Ok{};
  if (!alerts->is_array()) {
    return Unexpected(error(at(where, "/alerts"), "is not an array but " + shown(*alerts)));
  }
  for (std::size_t i = 0; i < alerts->size(); ++i) {
    const json& alert = (*alerts)[i];
    if (!alert.is_object()) {
      return Unexpected(error(at(where, "/alerts/" + std::to_string(i)), "is not an object but " + shown(alert)));
    }
    const json* type = present(alert, "type");
    if (type == nullptr || !type->is_string()) continue;  // upstream skips an alert without a type
    const std::string& t = type->get_ref<const std::string&>();
    core::Finding f;
    f.scanner = scanner;
    classify(t, f);
    f.severity = core::Severity::kMedium;
    if (const json* s = present(alert, "severity"); s != nullptr && s->is_string()) {
      f.severity = core::parse_severity(s->get_ref<const std::string&>()).value_or(core::Severity::kMedium);
    }
    f.summary = "socket: " + printable(detail::first_chars(t, kTypeChars));
    if (const json* c = present(alert, "category");
        c != nullptr && c->is_string() && !c->get_ref<const std::string&>().empty()) {
      f.summary += " (" + printable(detail::first_chars(c->get_ref<const std::string&>(), kTypeChars)) + ")";
    }
    f.reference = reference_of(alert);
    f.raw = compact(alert);
    out.push_back(std::move(f));
  }
  return Ok{};
}

}  // namespace

std::string socket_request(const std::vector<std::string>& purls) {
  json components = json::array();
  for (const std::string& p : purls) components.push_back({{"purl", p}});
  return compact(json{{"components", std::move(components)}});
}

Expected<std::vector<core::Finding>, AnswerError> parse_socket_ndjson(std::string_view body,
                                                                      const std::string& scanner) {
  const std::string where = "socket purl";
  if (body.size() > kMaxSocketAnswer) {
    return Unexpected(error(where, "the answer is " + std::to_string(body.size()) + " bytes, more than the " +
                                       std::to_string(kMaxSocketAnswer) + " read"));
  }
  std::vector<core::Finding> out;
  std::size_t number = 0;
  std::size_t start = 0;
  try {
    while (start < body.size()) {
      std::size_t end = body.find('\n', start);
      if (end == std::string_view::npos) end = body.size();
      std::string_view line = body.substr(start, end - start);
      start = end + 1;
      ++number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (is_blank(line)) continue;
      auto read = read_line(line, where + " line " + std::to_string(number), scanner, out);
      if (!read) return Unexpected(std::move(read).error());
    }
  } catch (const std::exception& e) {
    return Unexpected(error(where + " line " + std::to_string(number),
                            "the line could not be read: " + printable(detail::first_chars(e.what(), 200))));
  }
  return out;
}

}  // namespace batlehub::adapters::net
