#include "server/service/sandbox_pool.h"

#include <algorithm>
#include <sstream>

#include "base/cgroup.h"
#include "base/file.h"

namespace batlehub::server {

namespace {

// The worker's own memory bound, in MiB: the tightest limit on its memory cgroup, found the
// way the probe finds a run's (base/cgroup.h). 0 when none is set or none is visible.
std::uint64_t own_memory_bound_mb() {
  namespace cg = base::cgroup;
  auto where = cg::locate("memory", cg::parse_proc_cgroup(base::read_small_file("/proc/self/cgroup")),
                          cg::parse_mountinfo(base::read_small_file("/proc/self/mountinfo", 1024 * 1024)));
  if (!where) return 0;
  auto bound = cg::tightest(*where, cg::limit_file("memory", where->version));
  return bound ? bound->value / (1024 * 1024) : 0;
}

std::uint64_t host_memory_mb() {
  std::istringstream f(base::read_small_file("/proc/meminfo"));
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit) {
    if (key == "MemTotal:") return kb / 1024;
  }
  return 0;
}

}  // namespace

PoolBudget pool_budget(const config::WorkerConfig& w) {
  PoolBudget b;
  const std::uint64_t cgroup = own_memory_bound_mb();
  const std::uint64_t host = host_memory_mb();
  if (cgroup != 0 && cgroup < host) {
    b.budget_mb = cgroup;
    b.source = "cgroup memory limit";
  } else {
    b.budget_mb = host > 1024 ? host - 1024 : 0;
    b.source = "host memory less 1 GiB";
  }
  b.cost_mb = static_cast<std::uint64_t>(w.sandbox.memory_limit_mb + w.sandbox.max_extracted_mb);
  b.derived = static_cast<std::size_t>(std::max<std::uint64_t>(b.cost_mb > 0 ? b.budget_mb / b.cost_mb : 1, 1));
  b.size = b.derived;
  if (w.pool_slots > 0) b.size = std::min(b.size, static_cast<std::size_t>(w.pool_slots));
  return b;
}

// Held for the length of one run; returned on every path out of it.
class SandboxPool::Permit {
 public:
  // The observer is told under the lock, so that what it counts never runs ahead of the
  // permits themselves (a gauge that read size + 1 would be a lie).
  explicit Permit(SandboxPool& p) : p_(p) {
    std::unique_lock lock(p_.mu_);
    p_.freed_.wait(lock, [&] { return p_.in_use_ < p_.size_; });
    ++p_.in_use_;
    if (p_.on_permit_) p_.on_permit_(+1);
  }
  ~Permit() {
    {
      std::lock_guard lock(p_.mu_);
      --p_.in_use_;
      if (p_.on_permit_) p_.on_permit_(-1);
    }
    p_.freed_.notify_one();
  }
  Permit(const Permit&) = delete;
  Permit& operator=(const Permit&) = delete;

 private:
  SandboxPool& p_;
};

SandboxPool::SandboxPool(core::SandboxRuntime& inner, std::size_t size, Observer on_run, PermitObserver on_permit)
    : inner_(inner),
      size_(std::max<std::size_t>(size, 1)),
      on_run_(std::move(on_run)),
      on_permit_(std::move(on_permit)) {}

std::size_t SandboxPool::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}

std::optional<core::RunPhases> phases_of(const Expected<core::RunOutput, core::SandboxError>& result,
                                         const core::RunTrace& trace, std::chrono::steady_clock::time_point began,
                                         std::chrono::steady_clock::time_point returned) {
  if (!result || !trace.ended) return std::nullopt;
  using Seconds = std::chrono::duration<double>;
  const wire::Timings& t = result->report.timings;
  core::RunPhases p;
  p.run = static_cast<double>(t.fetch_ms + t.extract_ms + t.run_ms) / 1000.0;
  // The agent's clock and ours are two clocks: a start that comes out below zero is rounding.
  p.start = std::max(0.0, Seconds(*trace.ended - began).count() - p.run);
  p.collect = std::max(0.0, Seconds(returned - *trace.ended).count());
  return p;
}

Expected<core::RunOutput, core::SandboxError> SandboxPool::run(const core::RunSpec& spec) {
  Permit permit(*this);
  core::RunTrace trace;
  core::RunSpec traced = spec;
  traced.trace = &trace;
  const auto began = std::chrono::steady_clock::now();
  auto r = inner_.run(traced);
  const auto returned = std::chrono::steady_clock::now();
  const std::chrono::duration<double> took = returned - began;
  if (on_run_) on_run_(RunRecord{spec, r, took.count(), trace, phases_of(r, trace, began, returned)});
  return r;
}

Expected<core::ProbeReport, core::SandboxError> SandboxPool::probe(const core::ProbeTarget& target) {
  Permit permit(*this);
  return inner_.probe(target);
}

Expected<core::Swept, core::SandboxError> SandboxPool::sweep(std::chrono::seconds older_than) {
  return inner_.sweep(older_than);
}

}  // namespace batlehub::server
