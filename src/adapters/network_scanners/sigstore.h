// npm provenance as a network scanner (upstream's sigstore.rs): whether the version has
// Sigstore attestations, and whether the transparency log holds the entries they cite.
//
// What leaves the worker, all to hosts the configuration names: GET {registry}/<name>/
// <version> (the version's document, to its [[registries]] `upstreams`, npm's public
// registry by default), GET {registry}/-/npm/v1/attestations/<name>@<version> when the
// document announces attestations, and GET {rekor_url}/api/v1/log/entries?logIndex=N per
// entry a bundle cites. The attestations are always asked of the registry itself, never of
// a URL the document names: a packument is the publisher's, not the operator's.
//
// Upstream checks that each cited entry exists; this also checks that Rekor's entry at
// that index is the bundle's (same integrated time, same canonicalised body). Neither is a
// full Sigstore verification (certificate chain, SCT, DSSE signature): that is `npm audit
// signatures`' job. A version without attestations is PROVENANCE_MISSING only for the
// kinds `require_for` names, as upstream.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "adapters/http/http_client.h"
#include "adapters/network_scanners/api_call.h"
#include "core/network_scanner.h"

namespace batlehub::adapters::net {

inline constexpr const char* kRekorDefaultApi = "https://rekor.sigstore.dev";
inline constexpr const char* kNpmDefaultRegistry = "https://registry.npmjs.org";

struct SigstoreOptions {
  ApiOptions api;  // api_url is the Rekor log (rekor_url)
  std::vector<core::PackageKind> require_for;
  // A registry's name → where its versions' documents are asked for (its first upstream);
  // a registry not here (batlehub scan's "local") asks default_registry.
  std::map<std::string, std::string> registries;
  std::string default_registry = kNpmDefaultRegistry;
};

class SigstoreScanner final : public core::NetworkScanner {
 public:
  explicit SigstoreScanner(SigstoreOptions o) : o_(std::move(o)), client_(o_.api.tls) {}
  const std::string& name() const override { return o_.api.name; }
  // npm is the one registry that announces attestations in its version documents.
  bool supports(core::PackageKind k) const override { return k == core::PackageKind::kNpm; }
  Expected<core::Lookup, core::ScannerError> scan(const core::ScanInput& in,
                                                  std::chrono::steady_clock::time_point deadline) const override;

 private:
  SigstoreOptions o_;
  http::Client client_;
};

}  // namespace batlehub::adapters::net
