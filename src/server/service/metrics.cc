#include "server/service/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace batlehub::server {

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::Labels;

// From a probe-sized run to [worker] job_timeout_secs' default: a run that hits a bucket
// past 300 s is about to be killed by its deadline.
const Histogram::BucketBoundaries& duration_buckets() {
  static const Histogram::BucketBoundaries b{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
  return b;
}

std::string str(std::string_view s) {
  return std::string(s);
}

Family<Gauge>& gauge(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}
Family<Counter>& counter(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}
Family<Histogram>& histogram(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

}  // namespace

struct Metrics::Impl {
  prometheus::Registry registry;

  Family<Gauge>& sandbox_ready =
      gauge(registry, "batlehub_sandbox_ready",
            "1 while the sandbox runtime's last probe passed; 0 means the worker refuses to lease jobs.");
  Family<Counter>& sandbox_runs =
      counter(registry, "batlehub_sandbox_runs_total",
              "Sandboxed scanner runs by how they ended (ok, start_timeout, run_timeout, crashed, result_invalid, "
              "out_of_memory); any outcome but ok is a scan that produced a scanner error.");
  Family<Histogram>& sandbox_run_seconds =
      histogram(registry, "batlehub_sandbox_run_seconds",
                "Seconds a sandboxed run spent in each phase (run: the scanner inside the walls).");
  Family<Counter>& probe_failures =
      counter(registry, "batlehub_sandbox_probe_failures_total",
              "Sandbox probe failures by the assertion that failed: why a runtime is not ready.");
  Family<Counter>& rlimits_lowered =
      counter(registry, "batlehub_sandbox_rlimits_lowered_total",
              "Sandboxed runs whose scanner ran under a resource limit lowered to the host's hard limit, by limit; "
              "raise the worker's hard limit (systemd LimitNPROC=, ulimit -H) to give scanners the configured bound.");
  Family<Counter>& orphans_swept = counter(
      registry, "batlehub_sandbox_orphans_swept_total",
      "Leftovers of sandboxed runs that never cleaned up, removed by the sweeper; growth means runs die mid-way.");
  Family<Gauge>& pool_size =
      gauge(registry, "batlehub_sandbox_pool_size", "How many sandboxed runs this worker may hold at once.");
  Family<Gauge>& permits_in_use =
      gauge(registry, "batlehub_sandbox_permits_in_use",
            "Sandbox permits held now; pinned at batlehub_sandbox_pool_size means the pool is the bottleneck.");
  Family<Gauge>& jobs_queued = gauge(registry, "batlehub_scan_jobs_queued",
                                     "Open scan jobs no worker holds, by registry and trigger: the backlog.");
  Family<Gauge>& jobs_leased =
      gauge(registry, "batlehub_scan_jobs_leased", "Scan jobs each worker holds a live lease on.");
  Family<Histogram>& job_duration =
      histogram(registry, "batlehub_scan_job_duration_seconds",
                "Seconds one scanner took on one job, by registry, scanner and outcome (ok or error).");
  Family<Counter>& scanner_errors =
      counter(registry, "batlehub_scanner_errors_total",
              "Scanner errors by scanner and class; each one is a SCANNER_ERROR finding on a verdict.");
  Family<Counter>& jobs_expired =
      counter(registry, "batlehub_scan_jobs_expired_total",
              "Scan jobs closed because every attempt failed (exhausted); the package got a scanner-error verdict.");
  Family<Counter>& verdicts = counter(registry, "batlehub_verdicts_total",
                                      "Verdicts recorded, by registry, state and the trigger that queued the scan.");
  Family<Counter>& findings = counter(registry, "batlehub_findings_total",
                                      "Findings recorded with verdicts, by registry, scanner, kind and severity.");

  // The unlabelled gauges exist from the start, so a scrape shows 0 rather than nothing.
  Gauge& pool_size_value = pool_size.Add({});
  Gauge& permits_value = permits_in_use.Add({});

  // Label sets set_queue has published, so that a set absent from the next counts is
  // zeroed rather than left at its last value forever.
  std::mutex queue_mutex;
  std::set<std::pair<std::string, std::string>> queued_seen;
  std::set<std::string> leased_seen;
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

void Metrics::set_ready(std::string_view runtime, bool ready) {
  impl_->sandbox_ready.Add({{"runtime", str(runtime)}}).Set(ready ? 1 : 0);
}

void Metrics::run_finished(std::string_view runtime, std::string_view scanner, std::string_view outcome,
                           const std::optional<core::RunPhases>& phases) {
  impl_->sandbox_runs.Add({{"runtime", str(runtime)}, {"scanner", str(scanner)}, {"outcome", str(outcome)}})
      .Increment();
  if (!phases) return;
  auto observe = [&](const char* phase, double seconds) {
    impl_->sandbox_run_seconds.Add({{"runtime", str(runtime)}, {"phase", phase}}, duration_buckets()).Observe(seconds);
  };
  observe("start", phases->start);
  observe("run", phases->run);
  observe("collect", phases->collect);
}

void Metrics::probe_failed(std::string_view runtime, std::string_view assertion) {
  impl_->probe_failures.Add({{"runtime", str(runtime)}, {"assertion", str(assertion)}}).Increment();
}

void Metrics::rlimit_lowered(std::string_view runtime, std::string_view resource) {
  impl_->rlimits_lowered.Add({{"runtime", str(runtime)}, {"resource", str(resource)}}).Increment();
}

void Metrics::orphans_swept(std::string_view runtime, std::string_view kind, std::size_t n) {
  // Touched even for n = 0, so that a sweeper that runs and finds nothing shows a 0 series.
  impl_->orphans_swept.Add({{"runtime", str(runtime)}, {"kind", str(kind)}}).Increment(static_cast<double>(n));
}

void Metrics::set_pool_size(std::size_t n) {
  impl_->pool_size_value.Set(static_cast<double>(n));
}
void Metrics::permit_taken() {
  impl_->permits_value.Increment();
}
void Metrics::permit_returned() {
  impl_->permits_value.Decrement();
}

void Metrics::set_queue(const core::QueueCounts& counts) {
  std::lock_guard lock(impl_->queue_mutex);
  // Zero only what vanished (never everything first), so that a concurrent scrape never
  // sees a live series dip to 0.
  for (const auto& key : impl_->queued_seen) {
    if (!counts.queued.contains(key)) {
      impl_->jobs_queued.Add({{"registry", key.first}, {"trigger", key.second}}).Set(0);
    }
  }
  for (const auto& [key, n] : counts.queued) {
    impl_->jobs_queued.Add({{"registry", key.first}, {"trigger", key.second}}).Set(static_cast<double>(n));
    impl_->queued_seen.insert(key);
  }
  for (const auto& worker : impl_->leased_seen) {
    if (!counts.leased.contains(worker)) impl_->jobs_leased.Add({{"worker", worker}}).Set(0);
  }
  for (const auto& [worker, n] : counts.leased) {
    impl_->jobs_leased.Add({{"worker", worker}}).Set(static_cast<double>(n));
    impl_->leased_seen.insert(worker);
  }
}

void Metrics::job_scanner_finished(std::string_view registry, std::string_view scanner, bool ok, double seconds) {
  impl_->job_duration
      .Add({{"registry", str(registry)}, {"scanner", str(scanner)}, {"outcome", ok ? "ok" : "error"}},
           duration_buckets())
      .Observe(seconds);
}

void Metrics::scanner_error(std::string_view scanner, std::string_view cls) {
  impl_->scanner_errors.Add({{"scanner", str(scanner)}, {"class", str(cls)}}).Increment();
}

void Metrics::job_expired(std::string_view registry) {
  // scanner="job": upstream's label set, where the whole job rather than one scanner expired.
  impl_->jobs_expired.Add({{"registry", str(registry)}, {"scanner", "job"}}).Increment();
}

void Metrics::verdict_recorded(std::string_view registry, std::string_view state, std::string_view trigger) {
  impl_->verdicts.Add({{"registry", str(registry)}, {"state", str(state)}, {"trigger", str(trigger)}}).Increment();
}

void Metrics::finding_recorded(std::string_view registry, std::string_view scanner, std::string_view kind,
                               std::string_view severity) {
  impl_->findings
      .Add({{"registry", str(registry)}, {"scanner", str(scanner)}, {"kind", str(kind)}, {"severity", str(severity)}})
      .Increment();
}

std::string Metrics::scrape() const {
  return prometheus::TextSerializer().Serialize(impl_->registry.Collect());
}

}  // namespace batlehub::server
