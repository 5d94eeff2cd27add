// The scanners the configuration names, built as consumers of the sandbox port.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/scanner.h"

namespace batlehub::server {

// Where `batlehub scan` looks for YARA rules when no configuration names them
// (scripts/install-scanners.sh installs rooms/rules/batlehub-default.yar there).
inline constexpr const char* kDefaultYaraRules = "/usr/local/share/batlehub/rules/default.yar";

// One scanner per sandboxed [scanners.<name>]. YARA's rules file (or rules_dir) is read
// here, on the worker, and travels in each run's bundle as bytes. The network scanners
// (osv, mlab, sigstore, socket) are not in this build: none is built, and the loader's
// warnings name each one.
Expected<std::vector<std::unique_ptr<core::Scanner>>, std::string> build_scanners(const config::Config& c,
                                                                                  const config::Env& env);

// With no configuration file: the defaults, plus one scanner of each known type whose room
// exists under `rooms_dir` (named after its type).
config::Config default_scan_config(const std::string& rooms_dir);

}  // namespace batlehub::server
