#include "wire/manifest.h"

#include <arpa/inet.h>

#include <cstdint>

#include "wire/base64.h"
#include "wire/caps.h"
#include "wire/json_reader.h"

namespace batlehub::wire {

using nlohmann::json;
using detail::ObjectReader;
using detail::refuse;
using detail::refuse_version;

std::string_view to_string(EntryKind k) {
  switch (k) {
    case EntryKind::kInline: return "inline";
    case EntryKind::kFile: return "file";
    case EntryKind::kArchive: return "archive";
  }
  return "?";
}

namespace {

bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

bool is_fetchable_url(std::string_view u) {
  return u.starts_with("file:///") || u.starts_with("http://") || u.starts_with("https://");
}


ExtractPolicy read_policy(const json& j, const std::string& where) {
  ObjectReader r(j, where);
  ExtractPolicy p;
  p.max_entries = r.u64("max_entries", 10'000'000);
  p.max_extracted_bytes = r.u64("max_extracted_bytes", kMaxInputBytes * 64);
  p.max_ratio = r.u64("max_ratio", 1'000'000);
  if (p.max_entries == 0) refuse(r.path("max_entries"), "must be at least 1");
  if (p.max_ratio == 0) refuse(r.path("max_ratio"), "must be at least 1");
  r.finish();
  return p;
}

Entry read_entry(const json& j, const std::string& where, std::size_t& inline_total) {
  ObjectReader r(j, where);
  Entry e;
  std::string kind = r.string("kind", 16);
  auto path = RelPath::parse(r.string("path", kMaxRelPathBytes));
  if (!path) refuse(r.path("path"), path.error());
  e.path = std::move(path).value();
  if (kind == "inline") {
    e.kind = EntryKind::kInline;
    std::string b64 = r.string("base64", (kInlineEntryMaxBytes + 2) / 3 * 4);
    std::size_t n = base64_decoded_size(b64);
    if (n > kInlineEntryMaxBytes) refuse(r.path("base64"), "decodes to more than the inline entry cap");
    if (inline_total + n > kInlineTotalMaxBytes) {
      refuse(r.path("base64"), "inline entries add up to more than " + std::to_string(kInlineTotalMaxBytes) + " bytes");
    }
    auto bytes = base64_decode(b64);
    if (!bytes) refuse(r.path("base64"), "is not valid base64");
    inline_total += bytes->size();
    e.bytes = std::move(*bytes);
  } else if (kind == "file" || kind == "archive") {
    e.kind = kind == "file" ? EntryKind::kFile : EntryKind::kArchive;
    e.url = r.string("url", kMaxUrlBytes);
    if (!is_fetchable_url(e.url) || has_nul(e.url)) {
      refuse(r.path("url"), "must be a file:///, http:// or https:// URL");
    }
    e.size = r.u64("size", kMaxInputBytes);
    if (e.kind == EntryKind::kArchive) {
      e.strip_wrapper = r.boolean_or("strip_wrapper", false);
      if (const json* d = r.optional("descend")) {
        auto member = RelPath::parse(detail::as_string(*d, r.path("descend"), kMaxRelPathBytes));
        if (!member) refuse(r.path("descend"), member.error());
        e.descend = std::move(member).value();
      }
    }
  } else {
    refuse(r.path("kind"), "'" + kind + "' is not one of inline, file, archive");
  }
  r.finish();
  return e;
}

ProbeSpec read_probe(const json& j, const std::string& where) {
  ObjectReader r(j, where);
  ProbeSpec p;
  const json& canaries = r.array("canaries", kMaxProbeCanaries);
  for (std::size_t i = 0; i < canaries.size(); ++i) {
    std::string w = r.path("canaries") + "/" + std::to_string(i);
    std::string c = detail::as_string(canaries[i], w, 64);
    if (!is_canary_address(c)) refuse(w, "'" + c + "' is not an address:port (names are not allowed)");
    p.canaries.push_back(std::move(c));
  }
  const json& commands = r.array("commands", kMaxProbeCommands);
  for (std::size_t i = 0; i < commands.size(); ++i) {
    std::string w = r.path("commands") + "/" + std::to_string(i);
    std::string c = detail::as_string(commands[i], w, 4096);
    // A bare name is looked up on the sandbox's PATH, as a run's argv[0] is: on the image
    // runtimes the worker cannot see inside the image to resolve it first.
    bool bare = !c.empty() && c.find('/') == std::string::npos;
    if ((!c.starts_with('/') && !bare) || has_nul(c)) refuse(w, "must be an absolute path or a bare command name");
    p.commands.push_back(std::move(c));
  }
  r.finish();
  return p;
}

Manifest read_manifest(const json& doc) {
  ObjectReader r(doc, "");
  Manifest m;
  const json& wire = r.required("wire");
  if (!wire.is_number_integer()) refuse("/wire", "expected an integer");
  // Compared as read: a value that does not fit an int must not wrap into a version we speak.
  if (wire.get<std::int64_t>() != kWireVersion) {
    refuse_version("this agent speaks wire version " + std::to_string(kWireVersion) + ", the manifest speaks " +
                   wire.dump());
  }
  m.wire = kWireVersion;
  if (const json* p = r.optional("probe")) m.probe = read_probe(*p, "/probe");

  const json& argv = r.array("argv", kMaxArgs);
  std::size_t argv_bytes = 0;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string w = "/argv/" + std::to_string(i);
    std::string a = detail::as_string(argv[i], w, kMaxArgvBytes);
    if (has_nul(a)) refuse(w, "contains NUL");
    argv_bytes += a.size() + 1;
    if (argv_bytes > kMaxArgvBytes) refuse("/argv", "adds up to more than " + std::to_string(kMaxArgvBytes) + " bytes");
    m.argv.push_back(std::move(a));
  }
  if (!m.probe) {
    if (m.argv.empty()) refuse("/argv", "must name a command (only a probe manifest has none)");
    if (m.argv[0].empty()) refuse("/argv/0", "must not be empty");
  }

  m.network = r.boolean("network");
  {
    ObjectReader l(r.object("limits"), "/limits");
    m.limits.memory_limit_mb = l.u64("memory_limit_mb", 1ULL << 30);
    m.limits.cpu_seconds = l.u64("cpu_seconds", 1ULL << 31);
    l.finish();
  }
  m.timeout_ms = r.u64("timeout_ms", kMaxTimeoutMs);
  if (m.timeout_ms == 0) refuse("/timeout_ms", "must be at least 1");
  m.extract_policy = read_policy(r.object("extract_policy"), "/extract_policy");

  const json& entries = r.array("entries", kMaxEntries);
  std::size_t inline_total = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    m.entries.push_back(read_entry(entries[i], "/entries/" + std::to_string(i), inline_total));
  }
  r.finish();
  return m;
}

}  // namespace

bool is_canary_address(std::string_view s) {
  if (has_nul(s)) return false;
  std::string host;
  std::string_view port;
  if (s.starts_with('[')) {
    auto close = s.find("]:");
    if (close == std::string_view::npos) return false;
    host = s.substr(1, close - 1);
    port = s.substr(close + 2);
    in6_addr a6{};
    if (inet_pton(AF_INET6, host.c_str(), &a6) != 1) return false;
  } else {
    auto colon = s.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = s.substr(0, colon);
    port = s.substr(colon + 1);
    in_addr a4{};
    if (inet_pton(AF_INET, host.c_str(), &a4) != 1) return false;
  }
  if (port.empty() || port.size() > 5) return false;
  unsigned v = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + unsigned(c - '0');
  }
  return v >= 1 && v <= 65535;
}

std::optional<int> peek_wire_version(std::string_view text) {
  auto doc = detail::parse_bounded(text, kManifestMaxBytes, kMaxJsonDepth);
  if (!doc || !doc->is_object()) return std::nullopt;
  auto it = doc->find("wire");
  if (it == doc->end() || !it->is_number_integer()) return std::nullopt;
  auto v = it->get<std::int64_t>();
  if (v < INT32_MIN || v > INT32_MAX) return INT32_MAX;  // certainly not ours
  return static_cast<int>(v);
}

Expected<Manifest, WireError> parse_manifest(std::string_view text) {
  auto doc = detail::parse_bounded(text, kManifestMaxBytes, kMaxJsonDepth);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    return read_manifest(*doc);
  } catch (const detail::Refusal& r) {
    return Unexpected(r.error);
  }
}

std::string serialize(const Manifest& m) {
  json entries = json::array();
  for (const Entry& e : m.entries) {
    json j = {{"kind", to_string(e.kind)}, {"path", e.path.str()}};
    if (e.kind == EntryKind::kInline) {
      j["base64"] = base64_encode(e.bytes);
    } else {
      j["url"] = e.url;
      j["size"] = e.size;
      if (e.kind == EntryKind::kArchive) {
        j["strip_wrapper"] = e.strip_wrapper;
        if (e.descend) j["descend"] = e.descend->str();
      }
    }
    entries.push_back(std::move(j));
  }
  json doc = {
      {"wire", m.wire},
      {"argv", m.argv},
      {"network", m.network},
      {"limits", {{"memory_limit_mb", m.limits.memory_limit_mb}, {"cpu_seconds", m.limits.cpu_seconds}}},
      {"timeout_ms", m.timeout_ms},
      {"extract_policy",
       {{"max_entries", m.extract_policy.max_entries},
        {"max_extracted_bytes", m.extract_policy.max_extracted_bytes},
        {"max_ratio", m.extract_policy.max_ratio}}},
      {"entries", std::move(entries)},
  };
  if (m.probe) doc["probe"] = {{"canaries", m.probe->canaries}, {"commands", m.probe->commands}};
  return doc.dump(2);
}

}  // namespace batlehub::wire
