#include "wire/identity.h"

#include <nlohmann/json.hpp>

#include <regex>

#include "wire/json_reader.h"

namespace batlehub::wire {

using nlohmann::json;

namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// npm's URL-safe characters for one part of a name; a part may not start with '.' or '_'.
bool npm_part(std::string_view p, bool scope) {
  if (p.empty() || p[0] == '.' || p[0] == '_') return false;
  for (char c : p) {
    // New names are lowercase; a scope always was. Names from before that rule keep their
    // capitals on the registry (e.g. "JSONStream"), so an unscoped name may hold them.
    bool ok = (scope ? is_lower_alnum(c) : is_alnum(c)) || c == '-' || c == '.' || c == '_' || c == '~';
    if (!ok) return false;
  }
  return true;
}

bool npm_name(std::string_view n) {
  if (n.size() > kPackageNameMaxBytes) return false;
  if (n.starts_with('@')) {
    auto slash = n.find('/');
    if (slash == std::string_view::npos) return false;
    return npm_part(n.substr(1, slash - 1), true) && npm_part(n.substr(slash + 1), false);
  }
  return npm_part(n, false);
}

// PEP 508: ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$, case-insensitive.
bool pep508_name(std::string_view n) {
  if (n.empty() || n.size() > kPackageNameMaxBytes) return false;
  if (!is_alnum(n.front()) || !is_alnum(n.back())) return false;
  for (char c : n) {
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

// crates.io: an ASCII letter, then letters, digits, '-' or '_'; at most 64 characters.
bool crate_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  if (!((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z'))) return false;
  for (char c : n) {
    if (!is_alnum(c) && c != '-' && c != '_') return false;
  }
  return true;
}

// RubyGems: letters, digits, '.', '-', '_', and at least one letter.
bool gem_name(std::string_view n) {
  if (n.empty() || n.size() > kPackageNameMaxBytes) return false;
  bool letter = false;
  for (char c : n) {
    if (!is_alnum(c) && c != '.' && c != '-' && c != '_') return false;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) letter = true;
  }
  return letter;
}

bool valid_utf8_text(std::string_view s) {
  // nlohmann validates UTF-8 as it parses; control characters other than tab and newline
  // are refused here so that a message can be printed as it came.
  for (unsigned char c : s) {
    if (c < 0x20 && c != '\t' && c != '\n') return false;
    if (c == 0x7f) return false;
  }
  return true;
}

}  // namespace

bool is_identified_kind(std::string_view k) { return k == "npm" || k == "pypi" || k == "cargo" || k == "rubygems"; }

bool is_semver(std::string_view v) {
  static const std::regex re(R"(^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$)");
  return v.size() <= kPackageVersionMaxBytes && std::regex_match(v.begin(), v.end(), re);
}

bool is_pep440(std::string_view v) {
  static const std::regex re(
      R"(^v?(\d+!)?\d+(\.\d+)*([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?(-\d+|[-_.]?(post|rev|r)[-_.]?\d*)?([-_.]?dev[-_.]?\d*)?(\+[a-z0-9]+([-_.][a-z0-9]+)*)?$)",
      std::regex::icase);
  return v.size() <= kPackageVersionMaxBytes && std::regex_match(v.begin(), v.end(), re);
}

bool is_gem_version(std::string_view v) {
  // Gem::Version::ANCHORED_VERSION_PATTERN without its surrounding blanks.
  static const std::regex re(R"(^[0-9]+(\.[0-9a-zA-Z]+)*(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$)");
  return v.size() <= kPackageVersionMaxBytes && std::regex_match(v.begin(), v.end(), re);
}

bool valid_package_name(std::string_view kind, std::string_view name) {
  if (kind == "npm") return npm_name(name);
  if (kind == "pypi") return pep508_name(name);
  if (kind == "cargo") return crate_name(name);
  if (kind == "rubygems") return gem_name(name);
  return false;
}

bool valid_package_version(std::string_view kind, std::string_view version) {
  if (kind == "npm" || kind == "cargo") return is_semver(version);
  if (kind == "pypi") return is_pep440(version);
  if (kind == "rubygems") return is_gem_version(version);
  return false;
}

// What parse_identity refuses in text, made printable: a message may quote a file name
// from the archive, which may hold any byte.
std::string printable(std::string_view s, bool newline_ok, std::size_t max) {
  std::string out;
  for (char c : s.substr(0, max)) {
    auto u = static_cast<unsigned char>(c);
    out += ((u < 0x20 && u != '\t' && !(newline_ok && u == '\n')) || u == 0x7f) ? '?' : c;
  }
  return out;
}

std::string serialize(const IdentityAnswer& a) {
  json doc;
  if (const auto* id = std::get_if<Identity>(&a)) {
    doc = {{"kind", id->kind}, {"name", id->name}, {"version", id->version},
           {"from", printable(id->from, false, kIdentityTextMaxBytes)}};
  } else {
    const auto& r = std::get<IdentityRefusal>(a);
    doc = {{"error", printable(r.error, true, kIdentityTextMaxBytes)},
           {"from", printable(r.from, false, kIdentityTextMaxBytes)}};
  }
  // A file name from the archive may be any bytes; what cannot be UTF-8 is replaced.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Expected<IdentityAnswer, WireError> parse_identity(std::string_view text) {
  auto doc = detail::parse_bounded(text, kIdentityMaxBytes, 1);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    detail::ObjectReader o(*doc, "");
    std::string from = o.string("from", kIdentityTextMaxBytes);
    if (!valid_utf8_text(from) || from.find('\n') != std::string::npos) {
      detail::refuse("/from", "holds a control character");
    }
    if (o.optional("error")) {
      std::string error = o.string("error", kIdentityTextMaxBytes);
      if (error.empty()) detail::refuse("/error", "is empty");
      if (!valid_utf8_text(error)) detail::refuse("/error", "holds a control character");
      o.finish();
      return IdentityAnswer{IdentityRefusal{std::move(error), std::move(from)}};
    }
    Identity id;
    id.kind = o.string("kind", 16);
    if (!is_identified_kind(id.kind)) detail::refuse("/kind", "'" + id.kind + "' is not a kind the agent identifies");
    id.name = o.string("name", kPackageNameMaxBytes);
    if (!valid_package_name(id.kind, id.name)) detail::refuse("/name", "'" + id.name + "' is not a valid " + id.kind + " name");
    id.version = o.string("version", kPackageVersionMaxBytes);
    if (!valid_package_version(id.kind, id.version)) {
      detail::refuse("/version", "'" + id.version + "' is not a valid " + id.kind + " version");
    }
    if (from.empty()) detail::refuse("/from", "is empty");
    id.from = std::move(from);
    o.finish();
    return IdentityAnswer{std::move(id)};
  } catch (const detail::Refusal& r) {
    return Unexpected(r.error);
  }
}

}  // namespace batlehub::wire
