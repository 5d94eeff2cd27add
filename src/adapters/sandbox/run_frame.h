// What every runtime's run and probe open with, and who this worker is to what its runs leave behind:
// the pieces the runtimes share, kept below them so that none includes another.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/storage/bundle.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

// This host's name ("unknown" when gethostname fails): a worker label's second half, and how
// a sweep tells this host's orphans from another's.
std::string worker_hostname();

// This process's worker label, "<pid>@<hostname>": on its containers and pods, and in the
// path of every bundle key it stages, so that a sweep can tell a dead worker's from a live
// one's.
std::string this_worker_label();

// The storage transport's part of a sweep (oci and kubernetes): the bundles listed on the leaf
// backend itself, never through the router (RFC 0022 §4.2), left by a dead worker of this host
// or older than `older_than`, counted into `swept`. Nothing when there is no bundle store (oci's
// mount transport).
Expected<Ok, core::SandboxError> sweep_bundles(BundleStore* bundles, std::chrono::seconds older_than,
                                               core::Swept& swept);

// Why `spec` cannot be run by any runtime (kConfig), or nothing.
std::optional<core::SandboxError> refuse_run(const core::RunSpec& spec);

// The whole run's deadline: the scanner's timeout and the sandbox's start (fetching,
// extracting, collecting) on top of it.
std::chrono::milliseconds run_deadline(const core::RunSpec& spec, std::chrono::seconds start_timeout);

// A probe's report as every runtime opens it (its runtime and room named) and the clock that
// dates it: finish() stamps the time since construction and hands the report over.
class ProbeInProgress {
 public:
  ProbeInProgress(std::string_view runtime, const core::ProbeTarget& target);
  core::ProbeReport& report() { return report_; }
  core::ProbeReport finish();

 private:
  std::chrono::steady_clock::time_point started_;
  core::ProbeReport report_;
};

}  // namespace batlehub::adapters
