// The port: where a scanner's process runs (RFC 0022 §5.1, §6.1).
//
// Everything here is data and interfaces; no I/O. A scanner describes a run as a RunSpec —
// a bundle, an argv, a network flag, limits, a timeout — and a SandboxRuntime turns it
// into a RunOutput or a SandboxError, on whatever walls it has.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "wire/manifest.h"
#include "wire/rel_path.h"
#include "wire/run_result.h"

namespace batlehub::core {

// Bytes the worker holds and a run needs (the artifact): read-only, shared by the runs of
// one job, never a path the scanner sees. The adapters implement it (a file, memory).
class Blob {
 public:
  virtual ~Blob() = default;
  virtual std::uint64_t size() const = 0;
  // Writes every byte to `fd`. The one I/O the port asks of a blob. A failed read names the
  // blob ("reading …: …"); a failed write is the reason alone, then "(copying <blob>)", for
  // the caller to put after the destination it knows.
  virtual Expected<Ok, std::string> copy_to(int fd) const = 0;
  // For messages: what this is ("artifact left-pad-1.3.0.tgz").
  virtual std::string describe() const = 0;
  // The content's sha256 (lowercase hex) when the holder knows it — a content-addressed
  // artifact. What lets the storage transport find the artifact's own blob in the cache
  // and upload one copy per job however many scanners read it (RFC 0022 §5.2).
  virtual std::optional<std::string> sha256() const { return std::nullopt; }
};

struct BundleEntry {
  wire::EntryKind kind = wire::EntryKind::kInline;
  wire::RelPath path = *wire::RelPath::parse("x");
  std::string bytes;                 // kInline
  std::shared_ptr<const Blob> blob;  // kFile, kArchive
  bool strip_wrapper = false;        // kArchive
  // kArchive: the member the agent extracts in its place, under the same budget (a gem's
  // data.tar.gz; wire::Entry::descend).
  std::optional<wire::RelPath> descend;

  static BundleEntry inline_file(wire::RelPath p, std::string bytes);
  static BundleEntry file(wire::RelPath p, std::shared_ptr<const Blob> blob);
  static BundleEntry archive(wire::RelPath p, std::shared_ptr<const Blob> blob, bool strip_wrapper,
                             std::optional<wire::RelPath> descend = std::nullopt);
};

// The files a run needs, described, never written: a runtime that shares no filesystem
// with the worker is then no special case.
struct Bundle {
  std::vector<BundleEntry> entries;
};

// The [worker.sandbox] limits, the same on every runtime (RFC 0022 §4.2's table).
struct Limits {
  std::uint64_t memory_limit_mb = 2048;
  std::uint64_t cpu_seconds = 300;
  std::uint64_t max_extracted_mb = 512;
  std::uint64_t max_entries = 50'000;

  wire::Rlimits rlimits() const { return {memory_limit_mb, cpu_seconds}; }
  wire::ExtractPolicy extract_policy() const { return {max_entries, max_extracted_mb * 1024 * 1024, 100}; }
  // What one run may cost in memory; what sizes the sandbox pool (RFC 0022 §4.2).
  std::uint64_t cost_mb() const { return memory_limit_mb + max_extracted_mb; }
};

// For labels, names and keys: which job, which scanner, which attempt. The scanner's name
// also names its room (bwrap: <rooms_dir>/<scanner>).
struct RunLabel {
  std::string job = "adhoc";
  std::string scanner;
  int attempt = 1;
  // The trace the run belongs to and the span it is a child of (its job's), as the worker's
  // spans carry them (server/service/tracing.h); "" = none: the run's span starts a trace.
  std::string trace_id;
  std::string parent_span_id;
};

// What a runtime tells of one run while it happens, whether the run ends in an output or an
// error: the run's span and the phase metric read it (RFC 0022 §6.6). The caller that wants it
// (SandboxPool) points RunSpec::trace at one; a runtime writes through trace_sandbox and
// trace_ended, which do nothing on nullptr (no one asked).
struct RunTrace {
  std::string sandbox;  // the container's or the pod's name; under none and bwrap, the run directory's
  std::string image;    // the image runtimes': the image the run was opened from
  // When the sandbox ended (the process, the container, the pod): what follows is the collect
  // phase (the result read, the sandbox removed). Unset when it never started.
  std::optional<std::chrono::steady_clock::time_point> ended;
};

struct RunSpec {
  Bundle bundle;
  std::vector<std::string> argv;
  std::chrono::milliseconds timeout{600'000};
  bool network = false;
  Limits limits;
  std::optional<std::string> image;  // the image runtimes' override
  RunLabel label;
  RunTrace* trace = nullptr;  // not owned; nullptr = nobody asked
};

// RFC 0022 §6.6's phases of a run, in seconds: start (from the run's beginning to the agent's
// bundle fetch), run (the agent's fetch, extraction and scanner, as the agent timed them) and
// collect (from the sandbox's end: the result read, the sandbox and its keys removed). What
// the pool derives from a RunTrace (server::phases_of) and the metric observes.
struct RunPhases {
  double start = 0;
  double run = 0;
  double collect = 0;
};

void trace_sandbox(RunTrace* trace, std::string sandbox, std::string image = "");
void trace_ended(RunTrace* trace);

struct RunOutput {
  // The scanner's exit code. A run whose scanner was killed, timed out or left no result is
  // a SandboxError instead (adapters/sandbox/run_dir.h, collect_tar), never an output.
  int status = 0;
  std::string stdout_bytes;
  std::string stderr_tail;
  // Everything the agent reported (extraction, timings, signal), for metrics and logs.
  wire::RunResult report;

  bool operator==(const RunOutput&) const = default;
};

// The outcomes of RFC 0022 §4.2's run diagram, plus configuration and I/O.
struct SandboxError {
  enum class Kind {
    kStartTimeout,   // the sandbox did not get the agent to its bundle in time
    kRunTimeout,     // the scanner ran past its timeout and was killed
    kCrashed,        // no result came back, or the scanner was killed by a signal
    kOutOfMemory,    // the kernel's OOM killer ended the run: its cgroup reached its memory bound
    kResultInvalid,  // out.tar or result.json is malformed
    kBundleRefused,  // the agent refused the bundle (a bomb, a traversal, a size lie…)
    kUnsupported,    // the archive is of no format the agent extracts
    kConfig,
    kIo,
  };
  // What a runtime's caller decides on beyond the kind, as data, never as message text.
  enum class Reason {
    kUnspecified,
    kNoResult,          // the sandbox ended and no out.tar was there: the agent never wrote back
    kOtherWireVersion,  // a result came back in a wire version this worker does not speak
    kTransport,         // what carries the run failed under it: the storage endpoint (a bundle
                        // or its result could not be moved) or the API server (its pod could
                        // not be followed) did not answer
  };
  Kind kind = Kind::kIo;
  std::string message;
  Reason reason = Reason::kUnspecified;
};

std::string_view to_string(SandboxError::Kind k);

// The manifest a run's spec makes. How each input reaches the agent (a file beside the
// manifest, a presigned URL) is the runtime's: `url_of` is asked once per blob entry, with
// its index among them, and its error is the manifest's.
using InputUrl = std::function<Expected<std::string, SandboxError>(const BundleEntry& entry, int n)>;
Expected<wire::Manifest, SandboxError> manifest_for(const RunSpec& spec, const InputUrl& url_of);

// The metric's `outcome` label for a run (ok, start_timeout, run_timeout, crashed, out_of_memory,
// result_invalid).
std::string_view outcome_label(const Expected<RunOutput, SandboxError>& r);

// What a scanner's caller sees (upstream's ScannerError).
struct ScannerError {
  enum class Kind { kTimeout, kCrashed, kOutput, kUnsupported, kUpstream, kOther };
  Kind kind = Kind::kOther;
  std::string message;
  // The sandbox's own machinery failed under the run, not the scanner or its package: the
  // agent never answered (its container or pod went with an engine or a node restarting), or
  // the storage transport could not move the bundle or the result. The worker gives such a
  // job another attempt rather than record it; attempts are bounded by max_attempts, after
  // which the job closes with SCANNER_ERROR as any exhausted job does (fail closed).
  bool transient = false;
};

std::string_view to_string(ScannerError::Kind k);
// Upstream's class() label for batlehub_scanner_errors_total: timeout, crashed, output,
// unsupported, upstream, other.
std::string_view error_class(ScannerError::Kind k);

// RFC 0022 §6.1: a run that timed out starting or running is Timeout, a crash (the OOM
// killer's included: its message says so) Crashed, a
// malformed result Output. A bundle the agent refused is Output (upstream's extractor
// errors were), and an archive it cannot read is Unsupported; configuration and I/O are Other.
ScannerError to_scanner_error(const SandboxError& e);

// What the startup probe proves, per room (RFC 0022 §4.3).
struct ProbeTarget {
  std::string room;                   // the scanner's name
  std::optional<std::string> image;   // the image runtimes
  std::vector<std::string> commands;  // absolute paths in the room
  Limits limits;
  // [worker.sandbox] require_landlock: a kernel without Landlock fails the probe rather than
  // warning (hold_to_target).
  bool require_landlock = false;
  // The detonation's room (a behavior scanner's alone) holds /bin/sh, which npm runs a
  // package's install scripts with (rooms/behavior.toml): its no_shell assertion must find
  // exactly that and nothing else — no bash, no busybox, no batlehub (hold_to_target).
  bool shell_expected = false;
  // A run the probe makes in the room once the agent's walls hold, and what its output must
  // show: the detonation's observer seeing a helper's exec, decoy read, DNS name and
  // connection (issue 47). nullopt for every other scanner. `judge` says what is missing.
  struct SelfCheck {
    RunSpec run;
    std::function<std::optional<std::string>(const Expected<RunOutput, SandboxError>&)> judge;
  };
  std::optional<SelfCheck> self_check;
};

struct ProbeReport {
  std::string runtime;
  std::string room;
  bool skipped = false;  // `none` skips the probe (and says so)
  bool result_at_all = false;
  std::string no_result_reason;  // when !result_at_all: what the runtime saw
  wire::AgentProbeReport agent;  // the assertions the agent made from inside
  std::string agent_version;     // as the agent wrote it in its result.json
  std::uint64_t elapsed_ms = 0;

  // Why the walls are not proven, as data: no result at all, an assertion that failed,
  // or one this wire version knows that the agent did not make. nullopt when they hold.
  struct Failure {
    enum class What { kNoResult, kAssertionFailed, kAssertionMissing };
    What what = What::kNoResult;
    std::optional<wire::Check> check;  // kAssertionFailed, kAssertionMissing
    std::string evidence;              // the agent's, or the runtime's no_result_reason
    // The probe's first line: "a result at all: …", "no_shell: found /bin/sh".
    std::string describe() const;
  };
  std::optional<Failure> failure() const;
  // failure()->describe(): what the probe prints and logs.
  std::optional<std::string> first_failure() const;
  bool passed() const { return skipped || !failure(); }
};

// What the target asks beyond the agent's own verdicts: with require_landlock, the agent's
// warning that the kernel has no Landlock becomes a failure. Every runtime's report goes
// through it (server::prove_walls).
void hold_to_target(ProbeReport& report, const ProbeTarget& target);

// What a sweep removes, by kind: RFC 0022 §6.6's pod, container and bundle (one run's
// staged keys), and what runs leave on the worker's own host: a run directory, a run's
// cgroup (departure 23 in docs/architecture.md).
enum class OrphanKind { kPod, kContainer, kBundle, kRunDir, kCgroup };
std::string_view to_string(OrphanKind k);

// A sweep's count per kind. Every kind the runtime looked for is there, 0 when it found none,
// so that the metric's series exist from the first sweep, not from the first leftover.
struct Swept {
  std::map<OrphanKind, std::size_t> removed;

  void looked_for(OrphanKind k) { removed.try_emplace(k, 0); }
  void add(OrphanKind k, std::size_t n) { removed[k] += n; }
  std::size_t of(OrphanKind k) const;
  std::size_t total() const;
  // "1 container, 2 bundles" (kinds with none left out); "nothing" when all are 0.
  std::string describe() const;
  bool operator==(const Swept&) const = default;
};

class SandboxRuntime {
 public:
  virtual ~SandboxRuntime() = default;
  // none, bwrap, oci, kubernetes: the `runtime` label of the metrics.
  virtual std::string_view name() const = 0;
  // Where its runs are made, for the probing line (RFC 0022 §1): "namespace batlehub-sandbox,
  // runtime class gvisor, bundles on s3://cache/sandbox/".
  virtual std::string where() const { return ""; }
  // One run: create the sandbox, get the bundle to the agent, wait for the sandbox to end,
  // bring the result back.
  virtual Expected<RunOutput, SandboxError> run(const RunSpec& spec) = 0;
  // The startup probe, once per room or image the config names.
  virtual Expected<ProbeReport, SandboxError> probe(const ProbeTarget& target) = 0;
  // Remove what a previous worker left behind, or what is older than `older_than` past its
  // deadline; says how many of each kind it looked for were removed.
  virtual Expected<Swept, SandboxError> sweep(std::chrono::seconds older_than) = 0;
  // The job's last run is over: what its runs shared (the storage transport's per-job copy
  // of an uncached artifact) is released. Nothing to release on most runtimes.
  virtual void close_job(const std::string& /*job*/) {}
  // What to do when the probe fails on this runtime (the probe's second line): for the check
  // that failed, or for no result at all (nullopt), which is also what a skipped probe says.
  virtual std::string hint(std::optional<wire::Check> failed) const = 0;
};

}  // namespace batlehub::core
