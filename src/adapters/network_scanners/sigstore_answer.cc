#include "adapters/network_scanners/sigstore_answer.h"

#include <exception>

#include "wire/base64.h"

namespace batlehub::adapters::net {

using detail::at;
using detail::error;
using detail::member;
using detail::present;
using detail::shown;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxUrl = 4096;

std::string read_failure(const std::exception& e) {
  return "the answer could not be read: " + printable(detail::first_chars(e.what(), 200));
}

Expected<const json*, AnswerError> object_member(const json& obj, const char* key, const std::string& where,
                                                 const std::string& pointer) {
  const json* m = present(obj, key);
  if (m != nullptr && !m->is_object()) {
    return Unexpected(error(at(where, pointer + "/" + key), "is not an object but " + shown(*m)));
  }
  return m;
}

Expected<std::optional<std::string>, AnswerError> string_member(const json& obj, const char* key,
                                                                const std::string& where, const std::string& pointer) {
  const json* m = present(obj, key);
  if (m == nullptr) return std::optional<std::string>();
  if (!m->is_string()) {
    return Unexpected(error(at(where, pointer + "/" + key), "is not a string but " + shown(*m)));
  }
  return std::optional<std::string>(m->get<std::string>());
}

Expected<TlogEntry, AnswerError> tlog_entry_of(const json& e, const std::string& where, const std::string& pointer) {
  if (!e.is_object()) return Unexpected(error(at(where, pointer), "is not an object but " + shown(e)));
  TlogEntry out;
  const json* index = present(e, "logIndex");
  if (index == nullptr) return Unexpected(error(at(where, pointer + "/logIndex"), "is missing"));
  std::string what;
  auto i = detail::read_int64(*index, /*non_negative=*/true, what);
  if (!i) return Unexpected(error(at(where, pointer + "/logIndex"), what));
  out.log_index = static_cast<std::uint64_t>(*i);
  if (const json* t = present(e, "integratedTime")) {
    auto time = detail::read_int64(*t, /*non_negative=*/false, what);
    if (!time) return Unexpected(error(at(where, pointer + "/integratedTime"), what));
    out.integrated_time = *time;
  }
  auto body = string_member(e, "canonicalizedBody", where, pointer);
  if (!body) return Unexpected(std::move(body).error());
  if (*body) out.canonicalized_body = std::move(**body);
  auto log_id = object_member(e, "logId", where, pointer);
  if (!log_id) return Unexpected(std::move(log_id).error());
  if (*log_id != nullptr) {
    auto key = string_member(**log_id, "keyId", where, pointer + "/logId");
    if (!key) return Unexpected(std::move(key).error());
    if (*key) out.log_id = std::move(**key);
  }
  return out;
}

bool is_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

std::string index_text(std::uint64_t i) {
  return std::to_string(i);
}

}  // namespace

Expected<Announced, AnswerError> parse_npm_version_doc(std::string_view body) {
  const std::string where = "npm version document";
  auto doc = detail::parse_answer(body, kMaxNpmVersionDoc, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    if (!doc->is_object()) return Unexpected(error(where, "the answer is not an object but " + shown(*doc)));
    Announced out;
    auto dist = object_member(*doc, "dist", where, "");
    if (!dist) return Unexpected(std::move(dist).error());
    if (*dist == nullptr) return out;
    auto attestations = object_member(**dist, "attestations", where, "/dist");
    if (!attestations) return Unexpected(std::move(attestations).error());
    if (*attestations == nullptr) return out;
    const json& a = **attestations;
    auto url = string_member(a, "url", where, "/dist/attestations");
    if (!url) return Unexpected(std::move(url).error());
    if (*url) {
      const std::string& u = **url;
      bool clean = !u.empty() && u.size() <= kMaxUrl;
      for (char c : u) clean = clean && c > 0x20 && c < 0x7f;
      if (!clean) {
        return Unexpected(error(at(where, "/dist/attestations/url"), detail::quote_of(u) + " is no URL (1 to " +
                                                                         std::to_string(kMaxUrl) +
                                                                         " bytes of printable ASCII without spaces)"));
      }
      out.url = std::move(**url);
    }
    auto provenance = object_member(a, "provenance", where, "/dist/attestations");
    if (!provenance) return Unexpected(std::move(provenance).error());
    if (*provenance != nullptr) {
      auto type = string_member(**provenance, "predicateType", where, "/dist/attestations/provenance");
      if (!type) return Unexpected(std::move(type).error());
      out.predicate_type = std::move(*type);
    }
    return out;
  } catch (const std::exception& e) {
    return Unexpected(error(where, read_failure(e)));
  }
}

Expected<std::vector<Bundle>, AnswerError> parse_attestations(std::string_view body) {
  const std::string where = "npm attestations";
  auto doc = detail::parse_answer(body, kMaxAttestations, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    if (!doc->is_object()) return Unexpected(error(where, "the answer is not an object but " + shown(*doc)));
    const json* list = present(*doc, "attestations");
    if (list == nullptr) return Unexpected(error(at(where, "/attestations"), "is missing"));
    if (!list->is_array()) {
      return Unexpected(error(at(where, "/attestations"), "is not an array but " + shown(*list)));
    }
    std::vector<Bundle> out;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& a = (*list)[i];
      const std::string ap = "/attestations/" + std::to_string(i);
      if (!a.is_object()) return Unexpected(error(at(where, ap), "is not an object but " + shown(a)));
      Bundle b;
      auto type = string_member(a, "predicateType", where, ap);
      if (!type) return Unexpected(std::move(type).error());
      if (!*type) return Unexpected(error(at(where, ap + "/predicateType"), "is missing"));
      b.predicate_type = std::move(**type);
      const json* bundle = present(a, "bundle");
      if (bundle == nullptr) return Unexpected(error(at(where, ap + "/bundle"), "is missing"));
      if (!bundle->is_object()) {
        return Unexpected(error(at(where, ap + "/bundle"), "is not an object but " + shown(*bundle)));
      }
      auto material = object_member(*bundle, "verificationMaterial", where, ap + "/bundle");
      if (!material) return Unexpected(std::move(material).error());
      if (*material != nullptr) {
        const std::string mp = ap + "/bundle/verificationMaterial";
        if (const json* entries = present(**material, "tlogEntries")) {
          if (!entries->is_array()) {
            return Unexpected(error(at(where, mp + "/tlogEntries"), "is not an array but " + shown(*entries)));
          }
          for (std::size_t j = 0; j < entries->size(); ++j) {
            auto e = tlog_entry_of((*entries)[j], where, mp + "/tlogEntries/" + std::to_string(j));
            if (!e) return Unexpected(std::move(e).error());
            b.entries.push_back(std::move(*e));
          }
        }
      }
      out.push_back(std::move(b));
    }
    return out;
  } catch (const std::exception& e) {
    return Unexpected(error(where, read_failure(e)));
  }
}

Expected<RekorEntry, AnswerError> parse_rekor_entry(std::string_view body) {
  const std::string where = "rekor entry";
  auto doc = detail::parse_answer(body, kMaxRekorEntry, where);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    if (!doc->is_object()) return Unexpected(error(where, "the answer is not an object but " + shown(*doc)));
    if (doc->size() != 1) {
      return Unexpected(error(
          where, "the answer holds " + std::to_string(doc->size()) + " entries; one was asked for, by its log index"));
    }
    auto it = doc->begin();
    const std::string& uuid = it.key();
    if (!((uuid.size() == 64 || uuid.size() == 80) && is_hex(uuid))) {
      return Unexpected(error(where, "the key " + detail::quote_of(uuid) + " is no entry UUID (64 or 80 hex digits)"));
    }
    // The pointer names the entry by its UUID, which is hex: nothing in it to escape.
    const std::string p = "/" + uuid;
    const json& v = it.value();
    if (!v.is_object()) return Unexpected(error(at(where, p), "is not an object but " + shown(v)));
    RekorEntry out;
    out.uuid = uuid;
    std::string what;
    const json* index = present(v, "logIndex");
    if (index == nullptr) return Unexpected(error(at(where, p + "/logIndex"), "is missing"));
    auto i = detail::read_int64(*index, /*non_negative=*/true, what);
    if (!i) return Unexpected(error(at(where, p + "/logIndex"), what));
    out.log_index = static_cast<std::uint64_t>(*i);
    const json* time = present(v, "integratedTime");
    if (time == nullptr) return Unexpected(error(at(where, p + "/integratedTime"), "is missing"));
    auto t = detail::read_int64(*time, /*non_negative=*/false, what);
    if (!t) return Unexpected(error(at(where, p + "/integratedTime"), what));
    out.integrated_time = *t;
    for (const char* key : {"body", "logID"}) {
      auto s = string_member(v, key, where, p);
      if (!s) return Unexpected(std::move(s).error());
      if (!*s) return Unexpected(error(at(where, p + "/" + key), "is missing"));
      (std::string_view(key) == "body" ? out.body : out.log_id) = std::move(**s);
    }
    return out;
  } catch (const std::exception& e) {
    return Unexpected(error(where, read_failure(e)));
  }
}

TlogCheck check_entry(const TlogEntry& bundle, const std::optional<RekorEntry>& rekor, std::string* why) {
  if (!rekor) {
    if (why != nullptr) *why = "Rekor has no entry at log index " + index_text(bundle.log_index);
    return TlogCheck::kAbsent;
  }
  std::string reasons;
  auto add = [&reasons](const std::string& r) { reasons += (reasons.empty() ? "" : "; ") + r; };
  if (rekor->log_index != bundle.log_index) {
    add("Rekor's entry is at log index " + index_text(rekor->log_index) + ", the bundle's at " +
        index_text(bundle.log_index));
  }
  if (bundle.integrated_time && *bundle.integrated_time != rekor->integrated_time) {
    add("Rekor integrated it at " + std::to_string(rekor->integrated_time) + ", the bundle says " +
        std::to_string(*bundle.integrated_time));
  }
  if (!bundle.canonicalized_body.empty()) {
    // Both are base64 of the same canonical JSON when they agree; compared decoded so that
    // an encoding's spelling is no difference, and as given when either is no base64.
    auto mine = wire::base64_decode(bundle.canonicalized_body);
    auto theirs = wire::base64_decode(rekor->body);
    bool same = mine && theirs ? *mine == *theirs : bundle.canonicalized_body == rekor->body;
    if (!same) add("its body is not the bundle's canonicalizedBody");
  }
  if (why != nullptr) *why = reasons;
  return reasons.empty() ? TlogCheck::kMatches : TlogCheck::kDiffers;
}

core::Finding provenance_missing(const std::string& scanner, const std::string& version) {
  core::Finding f;
  f.scanner = scanner;
  f.kind = core::FindingKind::kProvenance;
  f.code = core::ReasonCode::kProvenanceMissing;
  f.severity = core::Severity::kHigh;
  f.summary = "no provenance attestation is published for version " + printable(version);
  f.raw = compact(json{{"version", version}});
  return f;
}

core::Finding provenance_no_entry(const std::string& scanner, const std::string& raw_bundles_json) {
  core::Finding f;
  f.scanner = scanner;
  f.kind = core::FindingKind::kProvenance;
  f.code = core::ReasonCode::kProvenanceInvalid;
  f.severity = core::Severity::kHigh;
  f.summary = "the attestation bundle names no transparency-log entry";
  // Kept as JSON when it is JSON within the attestations' own bounds, compacted; anything
  // else is carried as a JSON string, so that raw is always JSON.
  auto doc = detail::parse_answer(raw_bundles_json, kMaxAttestations, "bundles");
  f.raw = doc ? compact(*doc) : compact(json(raw_bundles_json));
  return f;
}

core::Finding provenance_not_logged(const std::string& scanner, std::uint64_t index) {
  core::Finding f;
  f.scanner = scanner;
  f.kind = core::FindingKind::kProvenance;
  f.code = core::ReasonCode::kProvenanceInvalid;
  f.severity = core::Severity::kCritical;
  f.summary = "Rekor has no entry at log index " + index_text(index) + ", which the bundle cites";
  f.raw = compact(json{{"log_index", index}});
  return f;
}

core::Finding provenance_mismatch(const std::string& scanner, std::uint64_t index, const std::string& why) {
  core::Finding f;
  f.scanner = scanner;
  f.kind = core::FindingKind::kProvenance;
  f.code = core::ReasonCode::kProvenanceInvalid;
  f.severity = core::Severity::kCritical;
  f.summary = "Rekor's entry at log index " + index_text(index) + " is not the bundle's: " + printable(why);
  f.raw = compact(json{{"log_index", index}, {"why", why}});
  return f;
}

}  // namespace batlehub::adapters::net
