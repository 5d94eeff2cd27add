// The scan service: what `batlehub scan` and `batlehub worker` both do with a runtime and the
// scanners — prove the walls, then run a package's scanners through the pool and turn what
// they found into a verdict. The commands around it only parse, print, lease and record.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/network_scanner.h"
#include "core/sandbox.h"
#include "core/scanner.h"
#include "core/verdict.h"
#include "wire/identity.h"

namespace batlehub::server {

// The startup probe over every room or image the config names (RFC 0022 §4.3).
struct WallsProof {
  bool proven = false;
  // When not proven: line 1, the failed assertion ("no_shell: found /bin/sh", "a result at
  // all: …"); line 2, the runtime's hint; the room; and the check's name for
  // batlehub_sandbox_probe_failures_total{assertion} ("result_at_all" when none came back).
  std::string failure;
  std::string hint;
  std::string room;
  std::string assertion;
};

// Probes each target in turn and stops at the first failure; no target at all is a
// failure too ("no room to probe: …"). Logs `INFO sandbox: probing
// runtime …`, `probe passed in …` or `ERROR sandbox: probe failed …` per room; the caller
// says what it refuses. `on_report` sees each report that came back (passed, failed or
// skipped), for `batlehub probe`'s listing.
WallsProof prove_walls(core::SandboxRuntime& runtime, const std::vector<core::ProbeTarget>& targets,
                       const std::string& rooms_dir,
                       const std::function<void(const core::ProbeReport&)>& on_report = {});

// "850 ms", "2.3 s".
std::string elapsed_text(std::uint64_t ms);

// What the probe's `kernel` says of the sandbox, beside the worker's own uname: the scanner
// ran on the worker's kernel (bwrap, runc), or on one of its own — gVisor's named as such —
// so that an operator sees a runtime class or an engine's --runtime=runsc take effect.
std::string kernel_text(const std::string& sandbox_kernel, const std::string& worker_kernel);

// One scanner's part of a package's scan.
struct ScannerRun {
  std::string scanner;
  std::optional<core::ScannerError> error;  // unset: it answered
  // Failures it answered as clean (osv's outages, upstream's way): logged and counted.
  std::vector<core::ScannerError> tolerated;
  std::size_t findings = 0;
  double seconds = 0;
};

// What scans a package: the sandboxed scanners (through the runtime), the network scanners
// (in the worker, RFC 0022 §6.3) and, once they are all done, the enrichers over what they
// found.
struct ScannerSet {
  std::vector<const core::Scanner*> sandboxed;
  std::vector<const core::NetworkScanner*> network;
  std::vector<const core::FindingEnricher*> enrichers;
  bool empty() const { return sandboxed.empty() && network.empty(); }
  std::string names() const;  // "guarddog, osv (+mlab)"
};

struct PackageScan {
  core::Verdict verdict;
  std::vector<ScannerRun> runs;  // in the scanners' order
};

// Every scanner given that supports the package, all at once: the runtime is the pool,
// which bounds how many run. A scanner's failure becomes its SCANNER_ERROR finding
// (upstream's scan_worker) and it is not among scanners_done. `on_done` is called as each
// scanner finishes (from its thread; the worker's lease heartbeat).
// Components found by the scanners that inventory them, as a CycloneDX document of their
// PURLs (distinct, in order): the SBOM osv reads when no SBOM was given.
std::string cyclonedx_of(const std::vector<std::vector<std::string>>& components);

// The network scanners run beside the sandboxed ones, each on its own thread (osv after
// Trivy when Trivy runs: it asks about Trivy's inventory too); an enricher's
// failure leaves the findings as they were and is not a finding (it makes none).
PackageScan scan_package(const ScannerSet& scanners, core::SandboxRuntime& runtime, const core::ScanInput& in,
                         const core::SecurityPolicy& policy,
                         const std::function<void(const ScannerRun&)>& on_done = {});
PackageScan scan_package(const std::vector<const core::Scanner*>& scanners, core::SandboxRuntime& runtime,
                         const core::ScanInput& in, const core::SecurityPolicy& policy,
                         const std::function<void(const ScannerRun&)>& on_done = {});

// The package an archive is, as `batlehub scan` and `batlehub submit` name it: --kind,
// --name and --version when given, else what the file name says by its ecosystem's grammar
// (core/identify.h), else — when `identify` is given — what the package's own metadata says,
// read inside the walls. Each source fills only what the ones before it left unknown. The
// error says what could not be told (and what the agent saw) and which flag to pass.
struct Naming {
  std::optional<core::PackageKind> kind;
  std::optional<std::string> name;
  std::optional<std::string> version;
  std::string registry = "local";
};
// Reads the package's metadata; `kind` is what is already known of it (the agent then
// reads only that ecosystem's files). The error is what the agent saw, or why it could not look.
using Identify = std::function<Expected<wire::Identity, std::string>(std::optional<core::PackageKind> kind)>;
Expected<core::Package, std::string> package_of(const std::string& path, const Naming& given,
                                                const Identify& identify = {});

// Where an identify run happens: a room that passed the probe (the scanner's name, as
// RunLabel::scanner names rooms), the [worker.sandbox] limits, and the agent's own command
// as the room's PATH finds it.
struct IdentifyPlace {
  std::string room;
  core::Limits limits;
  std::string agent_command = "batlehub-sandbox";
  std::chrono::milliseconds timeout{60'000};
};
// One run of the agent as its own scanner — argv [agent, "identify", "pkg"(, kind)] — on the
// archive extracted at pkg/ under the run's extraction policy. Its stdout is the identity
// document, parsed here as untrusted bytes (wire::parse_identity: size cap, closed object,
// every field by its grammar). The run goes through `runtime` like any scanner's run.
Expected<wire::Identity, std::string> identify_in_sandbox(core::SandboxRuntime& runtime,
                                                          std::shared_ptr<const core::Blob> archive,
                                                          std::optional<core::PackageKind> kind,
                                                          const IdentifyPlace& place);
// The same, from a run's outcome: what identify_in_sandbox makes of it.
Expected<wire::Identity, std::string> identity_from_run(const Expected<core::RunOutput, core::SandboxError>& run);

}  // namespace batlehub::server
