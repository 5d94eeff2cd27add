// The sandbox pool (RFC 0022 §4.2, §6.1): every run() holds a permit, so at most `size`
// sandboxes exist at once, whoever asks — the scanners of one job, or of many.
//
// It is itself a SandboxRuntime, wrapped around the real one: the scanners and the scan
// service cannot run anything that does not hold a permit, and every run is observed in
// one place (metrics, the run's span line).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

#include "config/config.h"
#include "core/sandbox.h"

namespace batlehub::server {

// How the pool's size was reached, for the worker's log line and docs/operations/worker.md.
struct PoolBudget {
  std::uint64_t budget_mb = 0;  // the memory the runs may share
  // "cgroup memory limit" (the worker's own memory cgroup's tightest limit), or "host
  // memory less 1 GiB" (/proc/meminfo's MemTotal, when no cgroup bounds the worker).
  std::string source;
  std::uint64_t cost_mb = 0;  // one run: memory_limit_mb + max_extracted_mb
  std::size_t derived = 1;    // ⌊budget ÷ cost⌋, at least 1
  std::size_t size = 1;       // derived, lowered by [worker] pool_slots when set
};

// The RFC's formula on this host: the budget is the worker's memory cgroup limit when one
// is set below the host's memory, else the host's memory less 1 GiB (RFC 0018-bis).
PoolBudget pool_budget(const config::WorkerConfig& w);

// What a finished run was: for the metrics and the span.
// The phases of a run whose agent reported; nullopt for one whose agent said nothing (a
// timeout, a crash, a sandbox that never started: their time is in no phase).
std::optional<core::RunPhases> phases_of(const Expected<core::RunOutput, core::SandboxError>& result,
                                         const core::RunTrace& trace, std::chrono::steady_clock::time_point began,
                                         std::chrono::steady_clock::time_point returned);

struct RunRecord {
  const core::RunSpec& spec;
  const Expected<core::RunOutput, core::SandboxError>& result;
  double seconds = 0;  // the whole run(), permit wait excluded
  const core::RunTrace& trace;  // the container or pod, the image
  std::optional<core::RunPhases> phases;
};

class SandboxPool final : public core::SandboxRuntime {
 public:
  using Observer = std::function<void(const RunRecord&)>;
  // Permit changes: +1 taken, -1 returned (the permits-in-use gauge).
  using PermitObserver = std::function<void(int)>;

  SandboxPool(core::SandboxRuntime& inner, std::size_t size, Observer on_run = {}, PermitObserver on_permit = {});

  std::string_view name() const override { return inner_.name(); }
  std::string where() const override { return inner_.where(); }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override;
  // The probe and the sweep hold a permit too: a probe is a run.
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override;
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds older_than) override;
  void close_job(const std::string& job) override { inner_.close_job(job); }
  std::string hint(std::optional<wire::Check> failed) const override { return inner_.hint(failed); }

  std::size_t size() const { return size_; }
  std::size_t in_use() const;

 private:
  class Permit;
  core::SandboxRuntime& inner_;
  const std::size_t size_;
  Observer on_run_;
  PermitObserver on_permit_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  std::size_t in_use_ = 0;
};

}  // namespace batlehub::server
