// Socket.dev as a network scanner: the metered second opinion an operator opts into per
// registry (upstream's socket.rs).
//
// What leaves the worker: the coordinate's PURL, in POST {api_url}/v0/purl?alerts=true&
// compact=true as {"components":[{"purl":…}]}, with the API key as the Basic-auth user
// name and an empty password (as Socket's own CLI sends it). The answer is NDJSON, one
// artifact per line, read under upstream's 8 MiB cap; each alert becomes a finding by its
// type (socket_answer.h). Nothing is tolerated: an outage is the scanner's error, as
// upstream has it.
#pragma once

#include <string>

#include "adapters/http/http_client.h"
#include "adapters/network_scanners/api_call.h"
#include "core/network_scanner.h"

namespace batlehub::adapters::net {

inline constexpr const char* kSocketDefaultApi = "https://api.socket.dev";

struct SocketOptions {
  ApiOptions api;
  std::string api_key;  // required (upstream's validation)
};

class SocketScanner final : public core::NetworkScanner {
 public:
  explicit SocketScanner(SocketOptions o) : o_(std::move(o)), client_(o_.api.tls) {}
  const std::string& name() const override { return o_.api.name; }
  // Upstream's list: npm, PyPI, Go, Maven, RubyGems, Cargo, NuGet.
  bool supports(core::PackageKind k) const override;
  Expected<core::Lookup, core::ScannerError> scan(const core::ScanInput& in,
                                                  std::chrono::steady_clock::time_point deadline) const override;

 private:
  SocketOptions o_;
  http::Client client_;
};

}  // namespace batlehub::adapters::net
