// batlehub: the worker's command line — probe, scan, worker, submit, wait, why, check-config.
#include <CLI/CLI.hpp>

#include <iostream>

#include "server/root/builders.h"
#include "server/commands/probe_command.h"
#include "server/commands/queue_commands.h"
#include "server/commands/scan_command.h"
#include "server/commands/worker.h"

namespace {

// --kind, --name, --version and --registry: how `scan` and `submit` both name a package.
void add_naming(CLI::App* cmd, batlehub::server::Naming& n, std::string& kind) {
  cmd->add_option("--kind", kind, "npm, pypi, cargo, rubygems, composer, goproxy, maven, nuget, conda (default: from the file name; scan then asks the package's own metadata, read in the sandbox)");
  cmd->add_option("--name", n.name, "The package's name (default: from the file name; scan then asks the package's own metadata, read in the sandbox)");
  cmd->add_option("--version", n.version, "The package's version (default: from the file name; scan then asks the package's own metadata, read in the sandbox)");
  cmd->add_option("--registry", n.registry, "The registry name in the coordinate")->default_val("local");
}

// The kind --kind names, into `n`; false, having said why, when it names none.
bool read_kind(const char* command, const std::string& kind, batlehub::server::Naming& n) {
  if (kind.empty()) return true;
  n.kind = batlehub::core::parse_package_kind(kind);
  if (!n.kind) std::cerr << "batlehub " << command << ": --kind " << kind << " is not a package kind\n";
  return n.kind.has_value();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"batlehub — the scan worker and its sandbox (RFC 0022)", "batlehub"};
  app.set_version_flag("--version", "batlehub 0.1.0");
  app.require_subcommand(0, 1);
  // Upstream's way to start a process (its image, its chart): `batlehub --config FILE
  // --roles worker`, no subcommand.
  std::optional<std::string> top_config, roles;
  app.add_option("--config", top_config,
                 "The TOML configuration (default: $BATLEHUB_CONFIG, else ./config.toml); a subcommand's own --config "
                 "wins");
  app.add_option("--roles", roles,
                 "proxy, worker or proxy,worker, as upstream; this build has the worker role only (default: [server] "
                 "roles)");
  app.footer(
      "Without a subcommand, runs the roles --roles (else [server] roles) names: `batlehub --config FILE --roles "
      "worker` is `batlehub worker --config FILE`.");

  std::optional<std::string> config;
  auto* probe = app.add_subcommand("probe", "Prove the sandbox's walls from inside every room, as the worker does at start");
  probe->add_option("--config", config, "The TOML configuration (default: built-in defaults, runtime bwrap)");

  batlehub::server::ScanOptions scan;
  std::string kind, format = "text", max_severity = "high", scanner_error = "quarantine", install_hooks = "warn",
              mode = "block";
  auto* scan_cmd = app.add_subcommand("scan", "Scan package archives with every configured scanner, behind proven walls");
  scan_cmd->add_option("--config", scan.config_path, "The TOML configuration (default: runtime bwrap, the rooms that exist)");
  add_naming(scan_cmd, scan.naming, kind);
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

  batlehub::server::WorkerOptions worker;
  auto* worker_cmd = app.add_subcommand("worker", "Run the scan worker: prove the walls, then lease and scan jobs until SIGTERM");
  worker_cmd->add_option("--config", worker.config_path, "The TOML configuration (default: built-in defaults)");
  worker_cmd->footer(
      "Exit codes: 0 stopped by SIGTERM/SIGINT; 1 the startup probe failed (line 1 the failed assertion, line 2 the\n"
      "runtime's hint); 2 the configuration, the queue or the listener could not be set up.\n"
      "SIGHUP reloads the configuration (an invalid one is refused and the old kept) and re-probes.");

  batlehub::server::SubmitOptions submit;
  std::string submit_kind;
  auto* submit_cmd = app.add_subcommand("submit", "Store package archives and queue a scan of each for the worker");
  submit_cmd->add_option("--config", submit.config_path, "The worker's TOML configuration (its queue and state_dir)");
  add_naming(submit_cmd, submit.naming, submit_kind);
  submit_cmd->add_option("archives", submit.archives, "Package archives")->required();
  submit_cmd->footer("Exit codes: 0 queued (or already queued); 2 usage, configuration or queue; 4 an unreadable archive.");

  batlehub::server::WaitOptions wait;
  std::string wait_timeout = "1h", wait_interval = "30s";
  auto* wait_cmd = app.add_subcommand("wait", "Wait until a package's verdict is servable");
  wait_cmd->add_option("--config", wait.config_path, "The worker's TOML configuration (its queue)");
  wait_cmd->add_option("--timeout", wait_timeout, "How long to wait (1h, 10m, 30s, 500ms)")->default_val("1h");
  wait_cmd->add_option("--interval", wait_interval, "How often to look")->default_val("30s");
  wait_cmd->add_option("coordinate", wait.coordinate, "<registry>:<name>@<version>")->required();
  wait_cmd->footer("Exit codes: 0 servable, 1 waiting cannot help, 2 timeout, 3 usage or configuration.");

  batlehub::server::WhyOptions why;
  auto* why_cmd = app.add_subcommand("why", "Show a package's verdict and the findings behind it");
  why_cmd->add_option("--config", why.config_path, "The worker's TOML configuration (its queue)");
  why_cmd->add_flag("--json", why.json, "Print the recorded verdict as JSON");
  why_cmd->add_option("coordinate", why.coordinate, "<registry>:<name>@<version>")->required();

  std::string check_path;
  auto* check_cmd = app.add_subcommand("check-config", "Load and validate a configuration file as the worker does at start; opens and probes nothing");
  check_cmd->add_option("--config", check_path, "The TOML configuration (default: $BATLEHUB_CONFIG, else ./config.toml)");
  check_cmd->footer(
      "Prints the runtime and the scanners, then each warning. Exit codes: 0 valid; 2 usage, or the file is refused\n"
      "(the loader's file:line: key: message on stdout). Reads BATLEHUB_UNSAFE_NO_SANDBOX and BATLEHUB_IMAGE as the worker does.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const auto env = batlehub::config::process_env();
  // --config before the subcommand, then BATLEHUB_CONFIG, then ./config.toml, for every
  // command that reads a deployment's file; scan and probe keep their built-in defaults.
  auto resolve = [&](std::optional<std::string>& own) {
    if (!own) own = batlehub::config::config_path(top_config, env);
  };
  if (app.get_subcommands().empty()) {
    if (!roles && !top_config) {
      std::cerr << app.help();
      return 2;
    }
    batlehub::server::WorkerOptions as_worker;
    resolve(as_worker.config_path);
    auto started = batlehub::server::start_roles(roles, as_worker, env, std::cerr);
    if (started != 0) return started;
    return static_cast<int>(batlehub::server::worker_command(as_worker, env, std::cout));
  }
  if (*scan_cmd) {
    using batlehub::core::SecurityPolicy;
    if (!read_kind("scan", kind, scan.naming)) return 2;
    scan.format = format == "json" ? batlehub::server::ScanFormat::kJson
                  : format == "sarif" ? batlehub::server::ScanFormat::kSarif
                                      : batlehub::server::ScanFormat::kText;
    // Only the flags given: each overrides the registry's own policy (scan_command.h).
    auto given = [&](const char* flag) { return scan_cmd->get_option(flag)->count() > 0; };
    if (given("--max-severity")) scan.flags.max_severity = *batlehub::core::parse_severity(max_severity);
    if (given("--scanner-error")) {
      scan.flags.scanner_error = scanner_error == "warn"     ? SecurityPolicy::ScannerErrors::kWarn
                                 : scanner_error == "ignore" ? SecurityPolicy::ScannerErrors::kIgnore
                                                             : SecurityPolicy::ScannerErrors::kQuarantine;
    }
    if (given("--deny-install-hooks")) {
      scan.flags.deny_install_hooks = install_hooks == "deny"     ? SecurityPolicy::InstallHooks::kDeny
                                      : install_hooks == "ignore" ? SecurityPolicy::InstallHooks::kIgnore
                                                                  : SecurityPolicy::InstallHooks::kWarn;
    }
    if (given("--mode")) scan.flags.mode = mode == "warn" ? SecurityPolicy::Mode::kWarn : SecurityPolicy::Mode::kBlock;
    if (!scan.config_path) scan.config_path = top_config;
    return static_cast<int>(batlehub::server::scan_command(scan, env, std::cout));
  }
  if (*check_cmd) {
    std::optional<std::string> path;
    if (!check_path.empty()) path = check_path;
    resolve(path);
    if (!path) {
      std::cout << "batlehub check-config: no configuration: pass --config, set BATLEHUB_CONFIG, or put config.toml in "
                   "the working directory\n";
      return 2;
    }
    auto loaded = batlehub::config::load_file(*path, env);
    if (!loaded) {
      std::cout << loaded.error().describe() << "\n";
      return 2;
    }
    std::cout << "runtime " << loaded->config.worker.sandbox.runtime << "\nscanners";
    for (const auto& s : loaded->config.scanners) std::cout << " " << s.name;
    std::cout << "\n";
    batlehub::server::describe_storage(loaded->config.storage, std::cout);
    for (const auto& o : loaded->overrides) std::cout << "override: " << o << "\n";
    if (!loaded->proxy_only.empty()) std::cout << batlehub::server::proxy_only_line(loaded->proxy_only) << "\n";
    for (const auto& w : loaded->warnings) std::cout << "warning: " << w << "\n";
    return 0;
  }
  if (*worker_cmd) {
    resolve(worker.config_path);
    return static_cast<int>(batlehub::server::worker_command(worker, env, std::cout));
  }
  resolve(submit.config_path);
  resolve(wait.config_path);
  resolve(why.config_path);
  if (*submit_cmd) {
    if (!read_kind("submit", submit_kind, submit.naming)) return 2;
    return batlehub::server::submit_command(submit, env, std::cout);
  }
  if (*wait_cmd) {
    auto t = batlehub::server::parse_duration(wait_timeout);
    auto i = batlehub::server::parse_duration(wait_interval);
    if (!t || !i || i->count() == 0) {
      std::cerr << "batlehub wait: --timeout and --interval take a duration such as 1h, 10m, 30s or 500ms\n";
      return static_cast<int>(batlehub::server::WaitExit::kUsage);
    }
    wait.timeout = *t;
    wait.interval = *i;
    return static_cast<int>(batlehub::server::wait_command(wait, env, std::cout));
  }
  if (*why_cmd) return batlehub::server::why_command(why, env, std::cout);
  if (*probe) {
    if (!config) config = top_config;
    return static_cast<int>(batlehub::server::probe_command(config, env, std::cout));
  }
  return 2;
}
