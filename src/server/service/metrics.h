// The worker's Prometheus metrics: RFC 0022 §6.6's batlehub_sandbox_* series and the queue
// series upstream already exports (upstream-today.md §6), served by StatusListener on
// GET /metrics.
//
// Call sites use the typed methods below, never a metric name, so a series cannot be
// misspelt or given a label set that differs from one call site to the next. Every method
// is safe to call from any thread.
//
// The series, and what an operator reads from them:
//
//   batlehub_sandbox_ready{runtime}                         gauge, 0/1
//       1 while the runtime's last probe passed. 0 means the worker refuses to lease.
//   batlehub_sandbox_runs_total{runtime, scanner, outcome}  counter
//       Sandboxed scanner runs by how they ended: ok, start_timeout, run_timeout, crashed,
//       result_invalid, out_of_memory, …. A rate of anything but ok is the alert. `scanner`
//       is ours (departure 23): which scanner's runs fail.
//   batlehub_sandbox_run_seconds{runtime, phase}            histogram, 0.05 s … 600 s
//       How long each phase of a run whose agent reported took: start (to the agent's bundle
//       fetch), run (fetch, extraction and scanner, as the agent timed them), collect (the
//       result read, the sandbox removed). A run that timed out or crashed is in none.
//   batlehub_sandbox_probe_failures_total{runtime, assertion}  counter
//       Which probe assertion failed (no_network, no_shell, …): why a runtime is not ready.
//   batlehub_sandbox_orphans_swept_total{runtime, kind}     counter
//       Leftovers of runs that never collected (pod, container, bundle, cgroup, …). Growth
//       means runs are dying between start and cleanup.
//   batlehub_sandbox_pool_size                              gauge
//       How many sandboxed runs this worker may hold at once.
//   batlehub_sandbox_permits_in_use                         gauge
//       How many of those it holds now. Pinned at pool_size: the pool is the bottleneck.
//   batlehub_scan_jobs_queued{registry, trigger}            gauge
//       Open, unleased jobs. A series whose jobs are all gone reads 0, not its last value.
//   batlehub_scan_jobs_leased{worker}                       gauge
//       Live leases per worker (the same 0 rule).
//   batlehub_scan_job_duration_seconds{registry, scanner, outcome}  histogram
//       One scanner's share of a job, outcome ok or error.
//   batlehub_scanner_errors_total{scanner, class}           counter
//       Scanner errors by class (what the SCANNER_ERROR finding says went wrong).
//   batlehub_scan_jobs_expired_total{registry, scanner="job"}  counter
//       Jobs closed because their attempts ran out ("exhausted"): a job that keeps failing.
//   batlehub_verdicts_total{registry, state, trigger}       counter
//       Verdicts recorded, by state (allowed, warned, quarantined, denied).
//   batlehub_findings_total{registry, scanner, kind, severity}  counter
//       Findings recorded with those verdicts.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/queue.h"
#include "core/sandbox.h"

namespace batlehub::server {

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Sandbox runtimes (RFC 0022 §6.6).
  void set_ready(std::string_view runtime, bool ready);
  // `phases`: when the run's agent reported, else none (server::phases_of).
  void run_finished(std::string_view runtime, std::string_view scanner, std::string_view outcome,
                    const std::optional<core::RunPhases>& phases);
  void probe_failed(std::string_view runtime, std::string_view assertion);
  void orphans_swept(std::string_view runtime, std::string_view kind, std::size_t n);
  // A run whose scanner ran under `resource` lowered to the host's hard limit (RFC 0022 §4.2:
  // rlimits are best-effort; the agent reports each one it lowered).
  void rlimit_lowered(std::string_view runtime, std::string_view resource);
  void set_pool_size(std::size_t n);
  void permit_taken();
  void permit_returned();

  // The queue and what the worker records in it (upstream-today.md §6).
  void set_queue(const core::QueueCounts& counts);
  void job_scanner_finished(std::string_view registry, std::string_view scanner, bool ok, double seconds);
  void scanner_error(std::string_view scanner, std::string_view cls);
  void job_expired(std::string_view registry);
  void verdict_recorded(std::string_view registry, std::string_view state, std::string_view trigger);
  void finding_recorded(std::string_view registry, std::string_view scanner, std::string_view kind,
                        std::string_view severity);

  // Every series in the Prometheus text exposition format (version 0.0.4).
  std::string scrape() const;

 private:
  // prometheus-cpp stays out of this header, so that only metrics.cc compiles against it.
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace batlehub::server
