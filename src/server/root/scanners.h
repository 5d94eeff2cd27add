// The scanners the configuration names, built as consumers of the sandbox port.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/network_scanner.h"
#include "core/scanner.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

// Where `batlehub scan` looks for YARA rules when no configuration names them
// (scripts/install-scanners.sh installs rooms/rules/batlehub-default.yar there).
inline constexpr const char* kDefaultYaraRules = "/usr/local/share/batlehub/rules/default.yar";

// One scanner per sandboxed [scanners.<name>]. YARA's rules file (or rules_dir) is read
// here, on the worker, and travels in each run's bundle as bytes. The network scanners are
// build_network_scanners'.
Expected<std::vector<std::unique_ptr<core::Scanner>>, std::string> build_scanners(const config::Config& c,
                                                                                  const config::Env& env);

// The scanners that open nothing (RFC 0022 §6.3), run in the worker.
struct NetworkScanners {
  std::vector<std::unique_ptr<core::NetworkScanner>> scanners;    // osv, sigstore, socket
  std::vector<std::unique_ptr<core::FindingEnricher>> enrichers;  // mlab
  bool empty() const { return scanners.empty() && enrichers.empty(); }
};

// One per [scanners.<name>] of type osv, sigstore, socket or mlab, at upstream's default
// endpoints unless api_url (rekor_url) says otherwise; and upstream's implicit osv, at its
// defaults, when a registry's security table names "osv" and no table of that name exists.
// A ca_file that cannot be read is refused here, at start.
Expected<NetworkScanners, std::string> build_network_scanners(const config::Config& c);

// What a version of `registry` and `kind` is scanned with: the scanners that support the
// kind and, when the registry has a security table, only those its `scanners` and
// `required_scanners` name (upstream runs a registry's own list); enrichers likewise.
ScannerSet scanners_for(const config::Config& c, const std::vector<std::unique_ptr<core::Scanner>>& sandboxed,
                        const NetworkScanners& network, const std::string& registry, core::PackageKind kind);

// With no configuration file: the defaults, plus one scanner of each known type whose room
// exists under `rooms_dir` (named after its type).
config::Config default_scan_config(const std::string& rooms_dir);

}  // namespace batlehub::server
