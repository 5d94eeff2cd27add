#include "adapters/network_scanners/sigstore.h"

#include <algorithm>

#include "adapters/network_scanners/sigstore_answer.h"
#include "adapters/scanners/subprocess.h"
#include "base/percent_encode.h"

namespace batlehub::adapters::net {

using core::ScannerError;

namespace {

// npm's path for a name: a scope's '/' is encoded (@scope%2fname), the rest as is.
std::string npm_path_name(const std::string& name) {
  if (name.starts_with('@')) {
    const std::size_t slash = name.find('/');
    if (slash != std::string::npos) {
      return "@" + base::percent_encode(name.substr(1, slash - 1), false) + "%2f" +
             base::percent_encode(name.substr(slash + 1), false);
    }
  }
  return base::percent_encode(name, false);
}

http::Request get(const std::string& url, std::size_t max_body) {
  http::Request r;
  r.url = url;
  r.headers = {{"Accept", "application/json"}};
  r.max_body = max_body;
  return r;
}

}  // namespace

Expected<core::Lookup, ScannerError> SigstoreScanner::scan(const core::ScanInput& in,
                                                           std::chrono::steady_clock::time_point deadline) const {
  const ApiOptions& api = o_.api;
  const auto found = o_.registries.find(in.package.registry);
  std::string registry = found != o_.registries.end() ? found->second : o_.default_registry;
  while (registry.ends_with('/')) registry.pop_back();
  const std::string name = npm_path_name(in.package.name);
  const std::string version = base::percent_encode(in.package.version, false);

  // The version's own document, which announces its attestations.
  http::Request doc_req = get(registry + "/" + name + "/" + version, kMaxNpmVersionDoc);
  auto doc = call_api(client_, api, doc_req, deadline);
  if (!doc) return Unexpected(doc.error());
  auto announced = parse_npm_version_doc(doc->body);
  if (!announced) return Unexpected(unreadable(api, doc_req, announced.error().describe()));
  core::Lookup out;
  if (!announced->url) {
    const bool required =
        std::find(o_.require_for.begin(), o_.require_for.end(), in.package.kind) != o_.require_for.end();
    if (required) out.findings.push_back(provenance_missing(api.name, in.package.version));
    return out;
  }

  http::Request att_req = get(registry + "/-/npm/v1/attestations/" + name + "@" + version, kMaxAttestations);
  auto att = call_api(client_, api, att_req, deadline);
  if (!att) return Unexpected(att.error());
  auto bundles = parse_attestations(att->body);
  if (!bundles) return Unexpected(unreadable(api, att_req, bundles.error().describe()));
  std::vector<TlogEntry> entries;
  for (const Bundle& b : *bundles) entries.insert(entries.end(), b.entries.begin(), b.entries.end());
  if (entries.empty()) {
    auto raw = parse_json(att->body);
    out.findings.push_back(provenance_no_entry(api.name, raw ? compact(*raw) : std::string("{}")));
    return out;
  }
  for (const TlogEntry& e : entries) {
    http::Request rekor_req =
        get(api.api_url + "/api/v1/log/entries?logIndex=" + std::to_string(e.log_index), kMaxRekorEntry);
    auto got = call_api(client_, api, rekor_req, deadline, {404});
    if (!got) return Unexpected(got.error());
    std::optional<RekorEntry> logged;
    if (got->status != 404) {
      auto parsed = parse_rekor_entry(got->body);
      if (!parsed) return Unexpected(unreadable(api, rekor_req, parsed.error().describe()));
      logged = std::move(*parsed);
    }
    std::string why;
    switch (check_entry(e, logged, &why)) {
      case TlogCheck::kMatches:
        break;
      case TlogCheck::kAbsent:
        out.findings.push_back(provenance_not_logged(api.name, e.log_index));
        break;
      case TlogCheck::kDiffers:
        out.findings.push_back(provenance_mismatch(api.name, e.log_index, why));
        break;
    }
  }
  return out;
}

}  // namespace batlehub::adapters::net
