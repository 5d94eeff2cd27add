// Where a finding sits decides what it means (docs/verdicts.md): code that no install and no
// import runs (a package's tests, docs, examples, benchmarks) is evidence of nothing but
// its authors' tests, and code that runs at install (a setup.py, a .pth file) runs on every
// machine that installs the package, before anyone imports it. The scanners' adapters
// apply this one model to every hit that names a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/findings.h"

namespace batlehub::adapters::finding_model {

enum class Place {
  kRuntime,       // the package's own code: runs when it is imported or required
  kInstallTime,   // runs when the package is installed: setup.py at the sdist's root, *.pth
  kNotInstalled,  // tests, docs, examples, benchmarks, fixtures: nothing installs or imports them
  kBundled,       // a vendored copy of another project (_vendor/, node_modules/…) or a minified bundle
};

// The file of a scanner's `location`, its ":<line>" dropped: "name-1.0/setup.py:21" →
// "name-1.0/setup.py".
std::string_view file_of(std::string_view location);

// `location` as a scanner reports it, relative to the extracted archive:
// "package/test/x.test.js:12", "name-1.0/setup.py", "name-1.0/docs/conf.py".
Place place_of(std::string_view location);

// The finding's severity where it sits: low where nothing runs it, one step up (at most
// critical) in install-time code, one step down in a vendored copy or a minified bundle
// (someone else's code, dense enough to trip any pattern), unchanged elsewhere.
core::Severity at(core::Severity base, Place p);

// What a hit says the code does, as a set: several of them in one file that runs when the
// package is installed or imported are what a dropper or a stealer looks like, where each
// alone is every library (docs/verdicts.md, "Behaviour at install and import").
enum Behaviour : unsigned {
  kNoBehaviour = 0,
  kNetwork = 1U << 0,  // fetches, sends or names: downloads, exfiltration, shady links, LOLBAS
  // Opens a connection, as every client library does (GuardDog's outbound capability, and
  // its download-and-exec, which any file holding a request and an exec trips): with
  // execution alone that is sphinx's or pytest's plugin machinery, not a dropper.
  kConnect = 1U << 5,
  kExecute = 1U << 1,  // starts processes or runs code it builds: spawn, exec, dynamic loading
  kCollect = 1U << 2,  // gathers what is not its own: credential files, browsers, environment, host facts
  kConceal = 1U << 3,  // hides what it does: obfuscation, encoded payloads
  kPersist = 1U << 4,  // stays behind: autostart, scheduled tasks, executables written
};
// The behaviours a GuardDog rule's hit stands for (0 for a rule that says none of these).
unsigned behaviour_of(std::string_view guarddog_rule);
// Names of the behaviours in `set`, joined by ", ": "network, execute".
std::string behaviour_names(unsigned set);

// A Python file that runs as soon as the package is imported, before any function of it is
// called: a package's top-level __init__.py ("pkg/__init__.py" in a wheel,
// "name-1.0/pkg/__init__.py" or "name-1.0/src/pkg/__init__.py" in an sdist) or a module at the
// top ("mod.py" in a wheel, "name-1.0/mod.py" in an sdist).
bool runs_at_import(std::string_view location);

// A threat rule the table rates below GuardDog's own severity because ordinary libraries
// match it (threat-filesystem-read, threat-network-exfiltration…): it does not count toward
// "three threats together".
bool unspecific(std::string_view guarddog_rule);

// A threat rule GuardDog's own meta rates high but of low or medium specificity
// (threat-filesystem-read, threat-process-memory…): a hit of it in setup.py keeps its
// severity instead of rising by its place.
bool unspecific_to_guarddog(std::string_view guarddog_rule);

// GuardDog 3.2.0's source-code rules (threat-*, capability-*), each with the severity
// batlehub gives a hit of it before its place is considered (the table in
// docs/verdicts.md, with each row's reason). nullopt for a rule the table lacks.
std::optional<core::Severity> guarddog_base(std::string_view rule);

}  // namespace batlehub::adapters::finding_model
