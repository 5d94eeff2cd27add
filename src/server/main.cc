// batlehub: the worker's command line. Today: `batlehub probe`.
#include <CLI/CLI.hpp>

#include <iostream>

#include "server/probe_command.h"
#include "server/scan_command.h"

int main(int argc, char** argv) {
  CLI::App app{"batlehub — the scan worker and its sandbox (RFC 0022)", "batlehub"};
  app.set_version_flag("--version", "batlehub 0.1.0");
  app.require_subcommand(1);

  std::optional<std::string> config;
  auto* probe = app.add_subcommand("probe", "Prove the sandbox's walls from inside every room, as the worker does at start");
  probe->add_option("--config", config, "The TOML configuration (default: built-in defaults, runtime bwrap)");

  batlehub::server::ScanOptions scan;
  std::string kind, format = "text", max_severity = "high", scanner_error = "quarantine", install_hooks = "warn",
              mode = "block";
  auto* scan_cmd = app.add_subcommand("scan", "Scan package archives with every configured scanner, behind proven walls");
  scan_cmd->add_option("--config", scan.config_path, "The TOML configuration (default: runtime bwrap, the rooms that exist)");
  scan_cmd->add_option("--kind", kind, "npm, pypi, cargo, rubygems, composer, goproxy, maven, nuget, conda (default: from the file name)");
  scan_cmd->add_option("--name", scan.name, "The package's name (default: from the file name)");
  scan_cmd->add_option("--version", scan.version, "The package's version (default: from the file name)");
  scan_cmd->add_option("--registry", scan.registry, "The registry name in the coordinate")->default_val("local");
  scan_cmd->add_option("--format", format, "text (batlehub why), json, or sarif")->check(CLI::IsMember({"text", "json", "sarif"}));
  scan_cmd->add_option("--max-severity", max_severity, "Findings at or above this deny (block) or warn (warn mode)")
      ->check(CLI::IsMember({"low", "medium", "high", "critical"}));
  scan_cmd->add_option("--scanner-error", scanner_error, "What a scanner failure does: quarantine, warn, ignore")
      ->check(CLI::IsMember({"quarantine", "warn", "ignore"}));
  scan_cmd->add_option("--deny-install-hooks", install_hooks, "deny, warn, ignore")->check(CLI::IsMember({"deny", "warn", "ignore"}));
  scan_cmd->add_option("--mode", mode, "block or warn")->check(CLI::IsMember({"block", "warn"}));
  scan_cmd->add_option("archives", scan.archives, "Package archives (.tgz, .whl, .tar.gz, .zip, .crate, .gem, .jar)")->required();
  scan_cmd->footer(
      "Exit codes: 0 allowed, 10 warned, 20 quarantined, 30 denied (the worst of all archives);\n"
      "2 usage or configuration, 3 the sandbox's walls failed their probe (nothing scanned), 4 an unreadable archive.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*scan_cmd) {
    using batlehub::core::SecurityPolicy;
    if (!kind.empty()) {
      scan.kind = batlehub::core::parse_package_kind(kind);
      if (!scan.kind) {
        std::cerr << "batlehub scan: --kind " << kind << " is not a package kind\n";
        return 2;
      }
    }
    scan.format = format == "json" ? batlehub::server::ScanFormat::kJson
                  : format == "sarif" ? batlehub::server::ScanFormat::kSarif
                                      : batlehub::server::ScanFormat::kText;
    scan.policy.max_severity = *batlehub::core::parse_severity(max_severity);
    scan.policy.scanner_error = scanner_error == "warn"     ? SecurityPolicy::ScannerErrors::kWarn
                                : scanner_error == "ignore" ? SecurityPolicy::ScannerErrors::kIgnore
                                                            : SecurityPolicy::ScannerErrors::kQuarantine;
    scan.policy.deny_install_hooks = install_hooks == "deny"     ? SecurityPolicy::InstallHooks::kDeny
                                     : install_hooks == "ignore" ? SecurityPolicy::InstallHooks::kIgnore
                                                                 : SecurityPolicy::InstallHooks::kWarn;
    scan.policy.mode = mode == "warn" ? SecurityPolicy::Mode::kWarn : SecurityPolicy::Mode::kBlock;
    return static_cast<int>(batlehub::server::scan_command(scan, batlehub::config::process_env(), std::cout));
  }
  if (*probe) {
    return static_cast<int>(batlehub::server::probe_command(config, batlehub::config::process_env(), std::cout));
  }
  return 2;
}
