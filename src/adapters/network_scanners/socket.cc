#include "adapters/network_scanners/socket.h"

#include "adapters/network_scanners/socket_answer.h"
#include "core/purl.h"
#include "wire/base64.h"

namespace batlehub::adapters::net {

using core::PackageKind;
using core::ScannerError;

bool SocketScanner::supports(PackageKind k) const {
  switch (k) {
    case PackageKind::kNpm:
    case PackageKind::kPypi:
    case PackageKind::kGoproxy:
    case PackageKind::kMaven:
    case PackageKind::kRubygems:
    case PackageKind::kCargo:
    case PackageKind::kNuget:
      return true;
    case PackageKind::kComposer:
    case PackageKind::kConda:
      return false;
  }
  return false;
}

Expected<core::Lookup, ScannerError> SocketScanner::scan(const core::ScanInput& in,
                                                         std::chrono::steady_clock::time_point deadline) const {
  const ApiOptions& api = o_.api;
  auto purl = core::purl_of(in.package);
  if (!purl) {
    return Unexpected(ScannerError{ScannerError::Kind::kUnsupported,
                                   api.name + ": " + in.package.coordinate() + " has no package URL to ask about"});
  }
  http::Request r;
  r.method = "POST";
  r.url = api.api_url + "/v0/purl?alerts=true&compact=true";
  r.headers = {{"Content-Type", "application/json"},
               {"Accept", "application/x-ndjson, application/json"},
               {"Authorization", "Basic " + wire::base64_encode(o_.api_key + ":")}};
  r.body = socket_request({*purl});
  r.max_body = kMaxSocketAnswer;
  auto got = call_api(client_, api, r, deadline);
  if (!got) return Unexpected(got.error());
  auto findings = parse_socket_ndjson(got->body, api.name);
  if (!findings) return Unexpected(unreadable(api, r, findings.error().describe()));
  return core::Lookup{std::move(*findings), {}};
}

}  // namespace batlehub::adapters::net
