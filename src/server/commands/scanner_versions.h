// A scanner's version as SARIF names it (report.h, SarifTool): what the scanner itself says,
// asked once per `batlehub scan --format sarif` in its own room or image through the same
// runtime and walls as its scans — `<command> --version`, no bundle, no network. Not a
// version the install script or the room's definition pins: the room is a copy made when it
// was built, an image may be older or newer than this host's install, and under oci or
// kubernetes the host may have no scanner at all; the binary that answers is the one that
// scanned.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "core/sandbox.h"

namespace batlehub::server {

// The run that asks: argv {command, "--version"}, labelled with the scanner's name (its room,
// its image), a 30 s timeout, no network.
core::RunSpec version_request(const config::ScannerConfig& s, const core::Limits& limits);

// The first token of a scanner's stdout that reads as a version: digits, at least one dot,
// an optional "v" before and a -/+ suffix after ("3.2.0" for GuardDog, "0.74.0" from Trivy's
// "Version: 0.74.0", "4.2.3" for YARA). nullopt when there is none in the first 4 KiB.
std::optional<std::string> version_in(std::string_view out);

// Every scanner in `scanners` asked at once through `rt` (the pool bounds how many run): by
// name, the ones that answered with a version. One that fails, or prints none, is left out
// and logged as a warning; it never fails the scan.
std::map<std::string, std::string> scanner_versions(core::SandboxRuntime& rt,
                                                    const std::vector<config::ScannerConfig>& scanners,
                                                    const core::Limits& limits);

}  // namespace batlehub::server
