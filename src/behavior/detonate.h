// A detonation, phase by phase (issue 47, OSSF package-analysis's phases without its
// network): what runs for each ecosystem, as data, and the run that goes through them with
// the observer.
//
// PyPI: a venv under the work dir that sees Debian's setuptools and wheel (so a build needs
// no index), `pip install --no-index --no-deps --no-build-isolation ARCHIVE` (an sdist's
// setup.py or build backend runs; a wheel's .pth files land), then each top-level module
// the installed distribution declares, imported in a fresh interpreter of its own.
// npm: the lifecycle hooks `npm install` runs (preinstall, install, postinstall), each with
// `sh -c` and the environment npm gives it, in the package's directory, then `require` of
// the package. npm itself is not run: with no registry it stops at the first dependency
// (ENOTCACHED) before any hook.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "behavior/observer.h"
#include "behavior/trace.h"

namespace batlehub::behavior {

enum class Ecosystem { kPyPI, kNpm };

inline constexpr const char* kImportScript = "/usr/local/lib/batlehub/import.py";

struct DetonationOptions {
  Ecosystem ecosystem = Ecosystem::kPyPI;
  std::string package;   // PyPI: the archive (sdist or wheel); npm: the extracted package directory
  std::string work_dir;  // writable: the venv, the decoy home, the temporary directory live here
  std::string python = "/usr/bin/python3";
  std::string node = "/usr/bin/node";
  std::string shell = "/bin/sh";
  std::chrono::milliseconds install_timeout{60000};
  std::chrono::milliseconds import_timeout{15000};
  std::size_t max_modules = 16;  // top-level modules imported, each in an interpreter of its own
  // The room's import phase script (rooms/behavior/import.py: the module, then its submodules,
  // each under its own alarm); "" imports the module alone (`python -c`), as where the room
  // lacks the script.
  std::string import_script = kImportScript;
};

// The layout under work_dir.
struct DetonationDirs {
  std::string home;   // the decoy home
  std::string tmp;    // TMPDIR
  std::string venv;   // PyPI
  std::string cache;  // npm_config_cache
  std::string tls;    // the sink's CA certificate lives here (ca.pem): tls_sink.h
};
DetonationDirs dirs_for(const std::string& work_dir);
// The sink's CA certificate, under d.tls: what the phases' clients are told to trust.
inline std::string ca_file(const DetonationDirs& d) {
  return d.tls + "/ca.pem";
}

// The environment every phase gets: HOME (decoys), TMPDIR, PATH, the bait variables.
std::vector<std::string> base_environment(const DetonationDirs& d, const std::string& canary, const std::string& path);

// The name pip needs an archive to have (the worker hands over the artifact's bytes, not
// its file name): a gzip, bzip2 or xz stream is an sdist tarball; a zip whose central
// directory names a `<dist>-<version>.dist-info/WHEEL` is that wheel (named from its own
// dist-info, with tags every interpreter accepts), any other zip an sdist. A hard link of
// that name is made beside `path`; its path is returned.
Expected<std::string, std::string> name_pypi_archive(const std::string& path);

// PyPI's install phase.
PhaseSpec pypi_install(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env);
// The top-level modules the venv's newly installed distribution declares (top_level.txt,
// else RECORD's first components), valid Python identifiers only, at most `max`.
std::vector<std::string> installed_modules(const std::string& site_packages, std::size_t max);
PhaseSpec pypi_import(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env,
                      const std::string& module);
// The Windows view (PyPI): the same phase, with the package's own code compiled so that
// `os.name`, `sys.platform` and `platform.system()` read as on Windows (rooms/behavior/
// fallback.py, asked for by BATLEHUB_VIEW=windows, which it takes out of the environment);
// an install again with --force-reinstall. Recorded as the phase with view "windows". Only
// where the room holds the stand-in module (kWindowsView).
inline constexpr const char* kWindowsView = "/usr/lib/python3/dist-packages/_batlehub_fallback.py";
PhaseSpec as_windows(PhaseSpec s);
// PyPI's execute phase (OSSF package-analysis's third): the module's functions, classes and
// methods called with MagicMock arguments by the room's execute.py, each under its own alarm.
// Only where the room holds the script.
inline constexpr const char* kExecuteScript = "/usr/local/lib/batlehub/execute.py";
PhaseSpec pypi_execute(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env,
                       const std::string& module);

// npm: the hooks package.json's scripts name, in the order npm runs them. A package with a
// binding.gyp at its root and neither an install nor a preinstall script gets npm's own
// default install, `node-gyp rebuild` (npm's docs, "scripts": default values), which the
// room, with no node-gyp and no compiler, fails at once: it runs as npm would run it.
struct NpmPackage {
  std::string name;
  std::string version;
  std::vector<std::pair<std::string, std::string>> hooks;  // (event, script)
};
Expected<NpmPackage, std::string> read_npm_package(const std::string& package_json_bytes, bool binding_gyp = false);
PhaseSpec npm_hook(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env,
                   const NpmPackage& p, const std::pair<std::string, std::string>& hook);
PhaseSpec npm_require(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env);

// The observer's own check (issue 47 point 5), run by the worker's probe in the detonation
// room: one phase, "self-test", whose program (the room's Python) starts a shell, reads the
// decoy SSH key, resolves kSelfTestHost, connects to it and posts the key. A trace missing
// any of those says the observer does not see what a detonation needs it to.
inline constexpr const char* kSelfTestHost = "observer.self-test.batlehub.test";
Expected<Trace, std::string> self_test(const DetonationOptions& o);

// Every phase, observed; the trace. A step of ours that fails (the venv, the decoys) is an
// error; a phase that fails (a build without a compiler) is part of the trace.
Expected<Trace, std::string> detonate(const DetonationOptions& o);

}  // namespace batlehub::behavior
