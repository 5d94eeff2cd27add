// batlehub: the worker's command line. Today: `batlehub probe`.
#include <CLI/CLI.hpp>

#include <iostream>

#include "server/probe_command.h"

int main(int argc, char** argv) {
  CLI::App app{"batlehub — the scan worker and its sandbox (RFC 0022)", "batlehub"};
  app.set_version_flag("--version", "batlehub 0.1.0");
  app.require_subcommand(1);

  std::optional<std::string> config;
  auto* probe = app.add_subcommand("probe", "Prove the sandbox's walls from inside every room, as the worker does at start");
  probe->add_option("--config", config, "The TOML configuration (default: built-in defaults, runtime bwrap)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*probe) {
    return static_cast<int>(batlehub::server::probe_command(config, batlehub::config::process_env(), std::cout));
  }
  return 2;
}
