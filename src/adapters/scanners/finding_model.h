// Where a finding sits decides what it means (docs/verdicts.md): code that no install and no
// import runs (a package's tests, docs, examples, benchmarks) is evidence of nothing but
// its authors' tests, and code that runs at install (a setup.py, a .pth file) runs on every
// machine that installs the package, before anyone imports it. The scanners' adapters
// apply this one model to every hit that names a file.
#pragma once

#include <optional>
#include <string_view>

#include "core/findings.h"

namespace batlehub::adapters::finding_model {

enum class Place {
  kRuntime,       // the package's own code: runs when it is imported or required
  kInstallTime,   // runs when the package is installed: setup.py at the sdist's root, *.pth
  kNotInstalled,  // tests, docs, examples, benchmarks, fixtures: nothing installs or imports them
};

// `location` as a scanner reports it, relative to the extracted archive:
// "package/test/x.test.js:12", "name-1.0/setup.py", "name-1.0/docs/conf.py".
Place place_of(std::string_view location);

// The finding's severity where it sits: low where nothing runs it, one step up (at most
// critical) in install-time code, unchanged elsewhere.
core::Severity at(core::Severity base, Place p);

// GuardDog 3.2.0's source-code rules (threat-*, capability-*), each with the severity
// batlehub gives a hit of it before its place is considered (the table in
// docs/verdicts.md, with each row's reason). nullopt for a rule the table lacks.
std::optional<core::Severity> guarddog_base(std::string_view rule);

}  // namespace batlehub::adapters::finding_model
