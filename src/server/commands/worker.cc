#include "server/commands/worker.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "core/queue.h"
#include "server/root/builders.h"
#include "server/root/log.h"
#include "server/root/scanners.h"
#include "server/service/artifact_cache.h"
#include "server/service/metrics.h"
#include "server/service/sandbox_pool.h"
#include "server/service/scan_service.h"
#include "server/service/status_listener.h"
#include "server/service/tracing.h"
// After the server's headers: caps.h first would make run_result.h's enumerators shadow
// wire::kWireVersion (-Wshadow), an include-order trap of the wire's own.
#include "wire/caps.h"
#include "wire/manifest.h"

namespace batlehub::server {

namespace {

using Clock = std::chrono::steady_clock;

// Upstream's idle poll: how long the loop sleeps when nothing was leased (not a key).
constexpr auto kIdlePoll = std::chrono::seconds(2);
// How often an idle worker sweeps for what dead workers left.
constexpr auto kIdleSweepEvery = std::chrono::seconds(60);
// How often a worker whose re-probe failed proves its walls again (probe_interval_secs when
// that is shorter): an outage of the engine, a node or storage ends within seconds of its
// cause, and leasing with it.
constexpr auto kUnreadyReprobeEvery = std::chrono::seconds(15);

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Everything built from one configuration. A reload builds a new one and swaps it in; a
// job keeps the generation it was leased under until it ends.
struct Generation {
  config::Config cfg;
  std::unique_ptr<core::SandboxRuntime> runtime;
  std::unique_ptr<SandboxPool> pool;
  std::vector<std::unique_ptr<core::Scanner>> scanners;
  NetworkScanners network;
  std::vector<core::ProbeTarget> targets;
  PoolBudget budget;
  std::string served;  // "serving npmjs (npm; requires guarddog, yara)"
};

// The worker's own /livez listener becomes one of the probe's canaries (RFC 0022 §4.3): a
// port known to be up, which no sandbox may reach. "" when the listener's address is not
// one a canary can name.
std::string livez_canary(const config::ServerConfig& server, std::uint16_t port) {
  const std::string host = server.host == "0.0.0.0" ? "127.0.0.1" : server.host;
  const std::string canary = host + ":" + std::to_string(port);
  return wire::is_canary_address(canary) ? canary : "";
}

// A run's span: what §6.6 asks a trace to carry, and its phases.
Span run_span(const RunRecord& r, std::string_view runtime, std::string_view outcome, std::string trace_id) {
  Span s;
  s.trace_id = std::move(trace_id);
  s.span_id = new_span_id();
  s.parent_span_id = r.spec.label.parent_span_id;
  s.name = "run";
  s.end = std::chrono::system_clock::now();
  s.start =
      s.end - std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(r.seconds));
  s.attributes = {{"batlehub.runtime", std::string(runtime), std::nullopt},
                  {"batlehub.scanner", r.spec.label.scanner, std::nullopt},
                  {"batlehub.outcome", std::string(outcome), std::nullopt},
                  {"batlehub.job", r.spec.label.job, std::nullopt},
                  {"batlehub.attempt", std::to_string(r.spec.label.attempt), std::nullopt},
                  {"batlehub.sandbox", r.trace.sandbox, std::nullopt},
                  {"batlehub.image", r.trace.image, std::nullopt}};
  if (r.phases) {
    s.attributes.push_back({"batlehub.phase.start_seconds", "", r.phases->start});
    s.attributes.push_back({"batlehub.phase.run_seconds", "", r.phases->run});
    s.attributes.push_back({"batlehub.phase.collect_seconds", "", r.phases->collect});
  }
  if (!r.result) {
    s.error = true;
    s.status_message = r.result.error().message;
  }
  return s;
}

Expected<std::shared_ptr<Generation>, std::string> build_generation(config::Config cfg, const config::Env& env,
                                                                    Metrics& metrics, const std::string& livez,
                                                                    std::shared_ptr<SpanExporter> spans) {
  auto& canaries = cfg.worker.sandbox.probe_canaries;
  if (!livez.empty() && canaries.size() < wire::kMaxProbeCanaries - 2 &&
      std::find(canaries.begin(), canaries.end(), livez) == canaries.end()) {
    canaries.push_back(livez);
  }
  auto g = std::make_shared<Generation>();
  auto runtime = build_sandbox_runtime(cfg, env);
  if (!runtime) return Unexpected(runtime.error());
  auto scanners = build_scanners(cfg, env);
  if (!scanners) return Unexpected(scanners.error());
  auto network = build_network_scanners(cfg);
  if (!network) return Unexpected(network.error());
  auto served = served_registries(cfg);
  if (!served) return Unexpected(served.error());
  g->served = *served;
  g->runtime = std::move(*runtime);
  g->scanners = std::move(*scanners);
  g->network = std::move(*network);
  g->targets = probe_targets(cfg, env);
  g->budget = pool_budget(cfg.worker);
  const std::string runtime_name(g->runtime->name());
  // Each lowered limit is logged the first time this generation sees it at that value (a host
  // with a low hard limit lowers every run the same way) and counted on every run.
  auto lowered_seen = std::make_shared<std::pair<std::mutex, std::set<std::string>>>();
  g->pool = std::make_unique<SandboxPool>(
      *g->runtime, g->budget.size,
      [&metrics, runtime_name, lowered_seen, spans](const RunRecord& r) {
        const std::string_view outcome = core::outcome_label(r.result);
        metrics.run_finished(runtime_name, r.spec.label.scanner, outcome, r.phases);
        if (r.result) {
          for (const auto& l : r.result->report.rlimits_lowered) {
            metrics.rlimit_lowered(runtime_name, l.resource);
            const std::string key = l.resource + "=" + std::to_string(l.applied);
            std::lock_guard lock(lowered_seen->first);
            if (!lowered_seen->second.insert(key).second) continue;
            logger("sandbox")->warn(
                "scanner {} ran with {} {} where {} was asked: the worker's hard limit is lower (raise it to give "
                "scanners the configured bound; counted in batlehub_sandbox_rlimits_lowered_total)",
                r.spec.label.scanner, l.resource, l.applied, l.asked);
          }
        }
        // The run's span, as a structured line: enough to find a stuck run from the log — the
        // container or pod it ran in and the image it was opened from (RFC 0022 §6.6).
        std::string phase_text;
        if (r.phases) {
          phase_text =
              fmt::format(" start={:.3f} run={:.3f} collect={:.3f}", r.phases->start, r.phases->run, r.phases->collect);
        }
        // A run outside a job's trace (identify, version) starts one of its own.
        const std::string trace_id = r.spec.label.trace_id.empty() ? new_trace_id() : r.spec.label.trace_id;
        logger("span")->info(
            "run job={} scanner={} attempt={} runtime={} outcome={} seconds={:.3f}{} sandbox={}{} trace_id={}",
            r.spec.label.job, r.spec.label.scanner, r.spec.label.attempt, runtime_name, outcome, r.seconds, phase_text,
            r.trace.sandbox.empty() ? "-" : r.trace.sandbox, r.trace.image.empty() ? "" : " image=" + r.trace.image,
            trace_id);
        if (spans) spans->add(run_span(r, runtime_name, outcome, trace_id));
      },
      [&metrics](int delta) { delta > 0 ? metrics.permit_taken() : metrics.permit_returned(); });
  g->cfg = std::move(cfg);
  return g;
}

class Worker {
 public:
  Worker(std::optional<std::string> config_path, config::Env env, std::ostream& out)
      : config_path_(std::move(config_path)), env_(std::move(env)), out_(out), id_(worker_id()) {}

  WorkerExit run(config::Config cfg);

 private:
  struct Running {
    std::string job_id;
    std::jthread thread;
    std::atomic<bool> done{false};
  };

  void watch_signals(sigset_t set);
  bool prove(Generation& g, bool at_start);
  void reload();
  void lease(const std::shared_ptr<Generation>& g);
  void run_job(std::shared_ptr<Generation> g, core::ScanJob job, std::uint64_t walls_epoch);
  void close_exhausted(Generation& g);
  void reap();
  void sweep(Generation& g, const char* when);
  void publish_queue();
  void shut_down(std::int64_t grace_secs);

  std::shared_ptr<Generation> generation() {
    std::lock_guard lock(mu_);
    return gen_;
  }

  const std::optional<std::string> config_path_;
  const config::Env env_;
  std::ostream& out_;
  const std::string id_;
  std::shared_ptr<spdlog::logger> log_ = logger("security worker");

  Metrics metrics_;
  std::unique_ptr<StatusListener> listener_;
  std::string livez_;  // the listener as a probe canary ("127.0.0.1:8080")
  std::unique_ptr<core::ScanQueue> queue_;
  std::mutex queue_mu_;  // a ScanQueue is one connection: one caller at a time
  std::shared_ptr<adapters::StorageRouter> storage_;
  std::shared_ptr<SpanExporter> spans_;  // null: no OTEL_EXPORTER_OTLP_* endpoint

  std::mutex mu_;
  std::condition_variable wake_;
  std::shared_ptr<Generation> gen_;
  std::list<Running> running_;
  bool stop_ = false;
  bool hup_ = false;
  // A job's run failed in the sandbox's own machinery (core::ScannerError::transient): the
  // walls are proven again at once, and leasing waits on that probe rather than the interval.
  bool reprobe_ = false;
  std::atomic<bool> ready_{false};
  // Bumped on every failed probe: a job leased before a failure is not recorded.
  std::atomic<std::uint64_t> walls_epoch_{0};
};

void Worker::watch_signals(sigset_t set) {
  std::thread([this, set] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      std::lock_guard lock(mu_);
      if (sig == SIGHUP) {
        hup_ = true;
      } else {
        stop_ = true;
      }
      wake_.notify_all();
      if (sig != SIGHUP) return;
    }
  }).detach();
}

bool Worker::prove(Generation& g, bool at_start) {
  const std::string rt(g.runtime->name());
  if (g.scanners.empty() && g.targets.empty() && !g.network.empty()) {
    // Nothing this worker runs opens an archive: there are no walls to prove, and none in use.
    ready_.store(true);
    metrics_.set_ready(rt, true);
    if (at_start) {
      log_->info("ready ({} slots, runtime {}): network scanners only — nothing opens an archive, no walls to prove",
                 g.pool->size(), rt);
      log_->info("{}", g.served);
    }
    return true;
  }
  WallsProof walls = prove_walls(*g.pool, g.targets, g.cfg.worker.sandbox.rooms_dir);
  const bool was_ready = ready_.exchange(walls.proven);
  metrics_.set_ready(rt, walls.proven);
  if (!walls.proven) {
    ++walls_epoch_;
    metrics_.probe_failed(rt, walls.assertion);
    if (at_start) {
      out_ << walls.failure << "\n" << walls.hint << "\n" << std::flush;
      log_->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
    } else if (was_ready) {
      log_->error(
          "not ready: a re-probe failed: {} — nothing new is leased, and scans running now are released "
          "unrecorded, until a re-probe passes",
          walls.failure);
    }
    return false;
  }
  if (at_start) {
    log_->info("ready ({} slots, runtime {})", g.pool->size(), rt);
    log_->info("{}", g.served);
  } else if (!was_ready) {
    log_->info("ready again ({} slots, runtime {}): a re-probe passed, leasing resumes", g.pool->size(), rt);
  }
  return true;
}

void Worker::reload() {
  auto cfg = load_config(config_path_, env_);
  if (!cfg) {
    logger("config")->error("reload refused, the configuration in use is kept: {}", cfg.error());
    return;
  }
  auto old = generation();
  if (cfg->database != old->cfg.database || cfg->server != old->cfg.server ||
      cfg->worker.state_dir != old->cfg.worker.state_dir) {
    logger("config")->warn("[database], [server] and [worker] state_dir take effect at the next start, not on reload");
  }
  auto g = build_generation(std::move(*cfg), env_, metrics_, livez_, spans_);
  if (!g) {
    logger("config")->error("reload refused, the configuration in use is kept: {}", g.error());
    return;
  }
  {
    std::lock_guard lock(mu_);
    gen_ = *g;
  }
  metrics_.set_pool_size((*g)->pool->size());
  logger("config")->info("reloaded {}: runtime {}, {} scanner(s), {} slots", config_path_.value_or("(defaults)"),
                         (*g)->runtime->name(), (*g)->scanners.size(), (*g)->pool->size());
}

void Worker::sweep(Generation& g, const char* when) {
  // A run's own bound is job_timeout; anything of a live worker older than twice that is
  // stuck, and what a dead worker left goes whatever its age.
  auto swept = g.runtime->sweep(std::chrono::seconds(2 * g.cfg.worker.job_timeout_secs));
  if (!swept) {
    logger("sandbox")->warn("sweep {} failed: {}", when, swept.error().message);
    return;
  }
  // Every kind the runtime looked for is counted, 0 included: its series exist from the first sweep.
  for (const auto& [kind, n] : swept->removed) metrics_.orphans_swept(g.runtime->name(), core::to_string(kind), n);
  if (swept->total() > 0) {
    logger("sandbox")->info(
        "sweep {}: removed {} orphan(s) left by workers that are gone or runs past their deadline: {}", when,
        swept->total(), swept->describe());
  }
}

void Worker::publish_queue() {
  std::lock_guard lock(queue_mu_);
  if (auto c = queue_->counts()) metrics_.set_queue(*c);
  auto gen = generation();
  if (auto h = queue_->worker_heartbeat(id_, gen->cfg.worker.registries); !h) {
    log_->warn("heartbeat: {}", h.error().message);
  }
}

void Worker::lease(const std::shared_ptr<Generation>& g) {
  std::int64_t room = 0;
  {
    std::lock_guard lock(mu_);
    room = g->cfg.worker.max_concurrent - static_cast<std::int64_t>(running_.size());
  }
  if (room <= 0) return;
  core::LeaseRequest req{id_, room, g->cfg.worker.job_timeout_secs, g->cfg.worker.max_attempts,
                         g->cfg.worker.registries};
  Expected<std::vector<core::ScanJob>, core::QueueError> jobs = [&] {
    std::lock_guard lock(queue_mu_);
    return queue_->lease(req);
  }();
  if (!jobs) {
    log_->warn("lease: {}", jobs.error().message);
    return;
  }
  std::lock_guard lock(mu_);
  for (auto& job : *jobs) {
    Running& r = running_.emplace_back();
    r.job_id = job.id;
    r.thread = std::jthread([this, g, job = std::move(job), &r, epoch = walls_epoch_.load()]() mutable {
      run_job(g, std::move(job), epoch);
      // Under the lock: reap() joins this thread while holding it, so nothing after this
      // block may need it.
      std::lock_guard l(mu_);
      r.done = true;
      wake_.notify_all();
    });
  }
}

void Worker::run_job(std::shared_ptr<Generation> g, core::ScanJob job, std::uint64_t walls_epoch) {
  const auto start = Clock::now();
  const std::string coord = job.coordinate.coordinate();
  const std::string rt(g->runtime->name());
  // The job is a trace; its span, the root, is sent once the job ends, its runs' as each ends.
  const std::string trace_id = new_trace_id();
  const std::string job_span_id = new_span_id();
  const auto started = std::chrono::system_clock::now();
  auto span = [&](std::string_view outcome) {
    logger("span")->info("job job={} coordinate={} attempt={} runtime={} outcome={} seconds={:.3f} trace_id={}", job.id,
                         coord, job.attempts, rt, outcome, seconds_since(start), trace_id);
    if (!spans_) return;
    Span s;
    s.trace_id = trace_id;
    s.span_id = job_span_id;
    s.name = "job";
    s.start = started;
    s.end = std::chrono::system_clock::now();
    s.attributes = {{"batlehub.job", job.id, std::nullopt},
                    {"batlehub.coordinate", coord, std::nullopt},
                    {"batlehub.attempt", std::to_string(job.attempts), std::nullopt},
                    {"batlehub.runtime", rt, std::nullopt},
                    {"batlehub.outcome", std::string(outcome), std::nullopt}};
    spans_->add(std::move(s));
  };
  auto release = [&](const std::string& why) {
    std::lock_guard lock(queue_mu_);
    auto r = queue_->fail(job.id, id_, why);
    if (!r) log_->warn("job {}: releasing it failed: {}", job.id, r.error().message);
  };

  if (drops_jobs(g->cfg, job.coordinate.registry)) {
    Expected<bool, core::QueueError> dropped = [&] {
      std::lock_guard lock(queue_mu_);
      return queue_->drop(job.id, id_);
    }();
    if (!dropped) {
      log_->warn("job {}: dropping it failed: {}", job.id, dropped.error().message);
    } else if (!*dropped) {
      log_->warn("job {} ({}): not dropped: the lease was lost to another worker", job.id, coord);
    } else {
      log_->info(
          "job {} ({}): dropped, as upstream drops it: registry {} has no [registries.security], so no "
          "verdict of it is ever read",
          job.id, coord, job.coordinate.registry);
    }
    span("dropped");
    return;
  }
  // The version's file where upstream's proxy cached it, verified (A.6); its kind is the
  // registry's type (B.2), or for a registry of this worker's own what its key says.
  auto artifact = ArtifactCache(g->cfg, storage_, *queue_, spool_dir(g->cfg)).fetch(job.coordinate);
  if (!artifact) {
    log_->error("job {} ({}): {}", job.id, coord, artifact.error());
    release(artifact.error());
    span("artifact_missing");
    return;
  }
  const core::Package package{artifact->kind, job.coordinate.name, job.coordinate.version, job.coordinate.registry};
  core::ScanInput in{package,
                     artifact->blob,
                     std::nullopt,
                     job.id,
                     static_cast<int>(job.attempts),
                     std::chrono::steady_clock::now() + std::chrono::seconds(g->cfg.worker.job_timeout_secs),
                     trace_id,
                     job_span_id};
  const ScannerSet chosen = scanners_for(g->cfg, g->scanners, g->network, job.coordinate.registry, artifact->kind);
  const std::string names = chosen.names();
  log_->info("job {}: {} (attempt {}): scanning with {}", job.id, coord, job.attempts,
             names.empty() ? "no scanner" : names);

  // The registry's own policy; a registry of this worker's own is judged as `batlehub scan`
  // judges a file.
  const core::SecurityPolicy policy = registry_policy(g->cfg, job.coordinate.registry).value_or(core::SecurityPolicy{});
  // Whatever happens to the verdict, the job's runs are over: what they shared goes.
  struct CloseJob {
    core::SandboxRuntime& runtime;
    const std::string& job;
    ~CloseJob() { runtime.close_job(job); }
  } close_job{*g->pool, job.id};
  PackageScan scan = scan_package(chosen, *g->pool, in, policy, [&](const ScannerRun& run) {
    metrics_.job_scanner_finished(job.coordinate.registry, run.scanner, !run.error, run.seconds);
    if (run.error) metrics_.scanner_error(run.scanner, core::error_class(run.error->kind));
    for (const auto& t : run.tolerated) metrics_.scanner_error(run.scanner, core::error_class(t.kind));
    // Upstream's heartbeat after each scanner: the lease lasts as long as the job moves.
    std::lock_guard lock(queue_mu_);
    auto h = queue_->heartbeat(job.id, id_, g->cfg.worker.job_timeout_secs);
    if (h && !*h) log_->warn("job {}: the lease was lost (it expired and another worker took the job)", job.id);
  });

  if (walls_epoch_.load() != walls_epoch) {
    log_->warn("job {} ({}): a re-probe failed while it ran; released unrecorded for a scan behind proven walls",
               job.id, coord);
    release("the worker's walls failed a re-probe during the scan");
    span("released");
    return;
  }
  // A run the sandbox itself failed (its container or pod went, the storage transport could
  // not be reached) says nothing of the package: the job goes back for another attempt, and
  // the walls are proven again before anything more is leased. max_attempts bounds it: an
  // outage that outlasts them closes the job with SCANNER_ERROR, as any exhausted job.
  for (const ScannerRun& run : scan.runs) {
    if (!run.error || !run.error->transient) continue;
    log_->warn("job {} ({}): released unrecorded for another attempt: the sandbox of {} failed under it: {}", job.id,
               coord, run.scanner, run.error->message);
    release("the sandbox of " + run.scanner + " failed under it: " + run.error->message);
    {
      std::lock_guard lock(mu_);
      reprobe_ = true;
    }
    wake_.notify_all();
    span("released");
    return;
  }
  const bool answered = !scan.verdict.scanners_done.empty();
  const std::int64_t now = unix_now();
  // Upstream's record step (B.4): an administrator's word (a stored soc_verdict, the flags
  // scanner's aside) survives a rescan, the scanners that answered before still count, and
  // the whole is judged again on the registry's clock.
  Expected<std::optional<core::RecordedVerdict>, core::QueueError> stored = [&] {
    std::lock_guard lock(queue_mu_);
    return queue_->verdict(job.coordinate.registry, job.coordinate.name, job.coordinate.version);
  }();
  if (!stored) {
    log_->error("job {} ({}): the stored verdict could not be read to merge with: {}", job.id, coord,
                stored.error().message);
    release("the stored verdict could not be read: " + stored.error().message);
    span("record_failed");
    return;
  }
  std::vector<core::Finding> findings = scan.verdict.findings;
  std::vector<std::string> answered_ever = scan.verdict.scanners_done;
  if (*stored) {
    for (const core::Finding& f : (*stored)->verdict.findings) {
      if (f.kind == core::FindingKind::kSocVerdict && f.scanner != "flags") findings.push_back(f);
    }
    for (const std::string& s : (*stored)->verdict.scanners_done) {
      if (std::find(answered_ever.begin(), answered_ever.end(), s) == answered_ever.end()) answered_ever.push_back(s);
    }
  }
  scan.verdict = core::evaluate(job.coordinate, std::move(findings), std::move(answered_ever), policy,
                                core::Moment{job.published_at, now});
  core::RecordedVerdict v{scan.verdict, now, answered ? std::optional<std::int64_t>(now) : std::nullopt};
  Expected<bool, core::QueueError> done = [&] {
    std::lock_guard lock(queue_mu_);
    return queue_->complete(job.id, id_, v);
  }();
  if (!done) {
    log_->error("job {} ({}): the verdict could not be recorded: {}", job.id, coord, done.error().message);
    span("record_failed");
    return;
  }
  if (!*done) {
    log_->warn("job {} ({}): not recorded: the lease was lost to another worker, whose verdict stands", job.id, coord);
    span("lease_lost");
    return;
  }
  const std::string state(core::to_string(scan.verdict.state));
  metrics_.verdict_recorded(job.coordinate.registry, state, core::to_string(job.trigger));
  for (const auto& f : scan.verdict.findings) {
    metrics_.finding_recorded(job.coordinate.registry, f.scanner, core::to_string(f.kind), core::to_string(f.severity));
  }
  std::string codes;
  for (auto c : scan.verdict.reason_codes) codes += (codes.empty() ? "" : ", ") + std::string(core::to_string(c));
  log_->info("job {}: {} is {} ({})", job.id, coord, state, codes.empty() ? "—" : codes);
  span(state);
}

void Worker::close_exhausted(Generation& g) {
  Expected<std::vector<core::ScanJob>, core::QueueError> jobs = [&] {
    std::lock_guard lock(queue_mu_);
    return queue_->exhausted(g.cfg.worker.max_attempts, g.cfg.worker.max_concurrent);
  }();
  if (!jobs) {
    log_->warn("exhausted jobs: {}", jobs.error().message);
    return;
  }
  for (const auto& job : *jobs) {
    // Upstream's closing (B.3 "Exhausted"): per required scanner of the registry, a
    // SCANNER_ERROR finding under its name, and the required scanners as scanners_done so
    // that no SCAN_PENDING is added. A registry of this worker's own (no security table)
    // requires every scanner it has.
    if (drops_jobs(g.cfg, job.coordinate.registry)) {
      std::lock_guard lock(queue_mu_);
      if (auto d = queue_->drop_exhausted(job.id, g.cfg.worker.max_attempts); !d) {
        log_->warn("exhausted job {}: dropping it failed: {}", job.id, d.error().message);
      }
      continue;
    }
    const auto policy = registry_policy(g.cfg, job.coordinate.registry);
    std::vector<std::string> required;
    if (policy) {
      required = policy->required_scanners;
    } else {
      for (const auto& sc : g.scanners) required.push_back(sc->name());
    }
    std::vector<core::Finding> findings;
    for (const std::string& name : required) {
      core::Finding f;
      f.scanner = name;
      f.kind = core::FindingKind::kScannerError;
      f.code = core::ReasonCode::kScannerError;
      f.severity = core::Severity::kHigh;
      f.summary = "no attempt out of " + std::to_string(g.cfg.worker.max_attempts) + " completed within " +
                  std::to_string(g.cfg.worker.job_timeout_secs) + "s";
      findings.push_back(std::move(f));
    }
    const std::int64_t now = unix_now();
    core::RecordedVerdict v{
        core::evaluate(job.coordinate, std::move(findings), required, policy.value_or(core::SecurityPolicy{}),
                       core::Moment{job.published_at, now}),
        now, std::nullopt};
    Expected<bool, core::QueueError> closed = [&] {
      std::lock_guard lock(queue_mu_);
      return queue_->close_exhausted(job.id, g.cfg.worker.max_attempts, v);
    }();
    if (closed && *closed) {
      metrics_.job_expired(job.coordinate.registry);
      metrics_.verdict_recorded(job.coordinate.registry, core::to_string(v.verdict.state),
                                core::to_string(job.trigger));
      log_->warn("job {}: {} closed after {} attempts: {}", job.id, job.coordinate.coordinate(), job.attempts,
                 core::to_string(v.verdict.state));
    }
  }
}

void Worker::reap() {
  std::lock_guard lock(mu_);
  // A finished thread's jthread joins at once; the list keeps addresses stable for the rest.
  running_.remove_if([](const Running& r) { return r.done.load(); });
}

void Worker::shut_down(std::int64_t grace_secs) {
  std::unique_lock lock(mu_);
  running_.remove_if([](const Running& r) { return r.done.load(); });
  log_->info("stopping: nothing new is leased; {} scan(s) running, waiting up to {} s", running_.size(), grace_secs);
  wake_.wait_for(lock, std::chrono::seconds(grace_secs), [&] {
    for (const auto& r : running_) {
      if (!r.done) return false;
    }
    return true;
  });
  std::vector<std::string> left;
  for (const auto& r : running_) {
    if (!r.done) left.push_back(r.job_id);
  }
  if (left.empty()) {
    running_.clear();
    lock.unlock();
    log_->info("stopped: every running scan finished");
    return;
  }
  lock.unlock();
  // Released, not waited for: another worker takes them once this one is gone. The
  // sandboxes die with this process (bwrap --die-with-parent), and the threads with it.
  {
    std::lock_guard q(queue_mu_);
    for (const auto& id : left) {
      auto r = queue_->fail(id, id_, "released: the worker stopped before the scan finished");
      if (!r) log_->warn("job {}: releasing it failed: {}", id, r.error().message);
    }
  }
  log_->warn("stopped: {} scan(s) still running after {} s were released for another worker", left.size(), grace_secs);
  std::fflush(nullptr);
  ::_exit(static_cast<int>(WorkerExit::kStopped));
}

WorkerExit Worker::run(config::Config cfg) {
  // Signals are taken by one thread with sigwait; every thread started from here on
  // (civetweb's, the jobs') inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  auto queue = open_queue(cfg);
  if (!queue) {
    out_ << queue.error() << "\n";
    log_->error("cannot open the queue: {}", queue.error());
    return WorkerExit::kConfig;
  }
  queue_ = std::move(*queue);
  std::string trace_error;
  if (auto where = trace_export_from(env_, &trace_error)) {
    spans_ = std::make_shared<SpanExporter>(*where, id_);
    log_->info("spans go to {} over OTLP/HTTP (service.name {})", where->url, where->service_name);
  } else if (!trace_error.empty()) {
    out_ << trace_error << "\n";
    log_->error("{}", trace_error);
    return WorkerExit::kConfig;
  }
  // [storage] is built now, as upstream builds it at start: an S3 bucket that does not
  // answer stops the worker here, with the backend, the endpoint and the S3 error, rather
  // than at the first job that needs it.
  auto storage = build_storage(cfg, env_);
  if (!storage) {
    out_ << storage.error() << "\n";
    log_->error("{}", storage.error());
    return WorkerExit::kConfig;
  }
  storage_ = std::move(*storage);
  {
    std::ostringstream line;
    describe_storage(cfg.storage, line);
    std::string said = line.str();
    if (!said.empty() && said.back() == '\n') said.pop_back();
    log_->info("{}", said);
  }

  auto listener = StatusListener::start(cfg.server.host, static_cast<std::uint16_t>(cfg.server.port), metrics_);
  if (!listener) {
    out_ << listener.error() << "\n";
    log_->error("{}", listener.error());
    return WorkerExit::kConfig;
  }
  listener_ = std::move(*listener);
  log_->info("worker-only: listening for /livez and /metrics on {}:{}", cfg.server.host, listener_->port());

  livez_ = livez_canary(cfg.server, listener_->port());
  auto built = build_generation(std::move(cfg), env_, metrics_, livez_, spans_);
  if (!built) {
    out_ << built.error() << "\n";
    log_->error("{}", built.error());
    log_->error("refusing to start — a worker without its sandbox scans nothing, it does not scan unsandboxed");
    return WorkerExit::kConfig;
  }
  gen_ = std::move(*built);
  const PoolBudget& b = gen_->budget;
  logger("sandbox")->info("pool: {} slot(s) — {} MiB ({}) ÷ {} MiB a run = {}{}", b.size, b.budget_mb, b.source,
                          b.cost_mb, b.derived, b.size < b.derived ? ", lowered by [worker] pool_slots" : "");
  metrics_.set_pool_size(gen_->pool->size());
  log_->info("worker {} on the {} queue", id_, queue_->backend());

  sweep(*gen_, "at start");
  if (!prove(*gen_, true)) return WorkerExit::kWallsFailed;
  watch_signals(set);

  auto next_probe = Clock::now() + std::chrono::seconds(gen_->cfg.worker.sandbox.probe_interval_secs);
  auto last_sweep = Clock::now();
  for (;;) {
    bool hup = false;
    bool reprobe = false;
    {
      std::lock_guard lock(mu_);
      if (stop_) break;
      hup = std::exchange(hup_, false);
      reprobe = std::exchange(reprobe_, false);
    }
    auto g = generation();
    if (hup) {
      log_->info("SIGHUP: reloading the configuration and re-probing");
      reload();
      g = generation();
    }
    if (hup || reprobe || Clock::now() >= next_probe) {
      if (reprobe) log_->info("re-probing now: a run failed in the sandbox's own machinery");
      // Not ready: proven again sooner than the interval, so that leasing resumes within
      // seconds of an engine, a node or a storage endpoint coming back.
      const auto every = prove(*g, false) ? std::chrono::seconds(g->cfg.worker.sandbox.probe_interval_secs)
                                          : std::min(std::chrono::seconds(g->cfg.worker.sandbox.probe_interval_secs),
                                                     kUnreadyReprobeEvery);
      next_probe = Clock::now() + every;
    }
    reap();
    std::size_t before = 0;
    {
      std::lock_guard lock(mu_);
      before = running_.size();
    }
    if (ready_) lease(g);
    close_exhausted(*g);
    publish_queue();
    std::unique_lock lock(mu_);
    const bool leased = running_.size() > before;
    if (running_.empty() && Clock::now() - last_sweep >= kIdleSweepEvery) {
      lock.unlock();
      sweep(*g, "while idle");
      last_sweep = Clock::now();
      lock.lock();
    }
    if (leased) continue;
    // Woken early by a finished job (a slot is free) or a signal.
    const auto until = std::min(Clock::now() + kIdlePoll, next_probe);
    wake_.wait_until(lock, until, [&] {
      if (stop_ || hup_ || reprobe_) return true;
      for (const auto& r : running_) {
        if (r.done) return true;
      }
      return false;
    });
  }
  shut_down(generation()->cfg.worker.shutdown_grace_secs);
  return WorkerExit::kStopped;
}

}  // namespace

std::string worker_id() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  return std::string(host) + "-" + std::to_string(::getpid());
}

int start_roles(const std::optional<std::string>& roles_flag, const WorkerOptions& o, const config::Env& env,
                std::ostream& err) {
  constexpr std::string_view kNoFile =
      "batlehub: no configuration: pass --config, set BATLEHUB_CONFIG, or put config.toml in the working directory\n";
  std::vector<std::string> roles;
  std::string asked;
  if (roles_flag) {
    asked = "--roles " + *roles_flag;
    std::string_view rest = *roles_flag;
    while (true) {
      const auto comma = rest.find(',');
      std::string_view role = rest.substr(0, comma);
      while (!role.empty() && role.front() == ' ') role.remove_prefix(1);
      while (!role.empty() && role.back() == ' ') role.remove_suffix(1);
      if (role != "proxy" && role != "worker") {
        err << "batlehub: " << asked << ": '" << role << "' is not a role; give proxy, worker or proxy,worker\n";
        return 2;
      }
      roles.emplace_back(role);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  } else {
    if (!o.config_path) {
      err << kNoFile;
      return 2;
    }
    auto loaded = config::load_file(*o.config_path, env);
    if (!loaded) {
      err << loaded.error().describe() << "\n";
      return 2;
    }
    roles = loaded->config.server.roles;
    asked = "[server] roles (upstream's default when absent: proxy and worker) in " + *o.config_path;
  }
  if (std::find(roles.begin(), roles.end(), "proxy") != roles.end()) {
    err << "batlehub: " << asked
        << " asks for the proxy role, and this build has none: it is the scan worker alone. Start it with --roles "
           "worker (or [server] roles = [\"worker\"]) and run upstream's batlehub for the proxy\n";
    return 2;
  }
  if (!o.config_path) {
    err << kNoFile;
    return 2;
  }
  return 0;
}

WorkerExit worker_command(const WorkerOptions& o, const config::Env& env, std::ostream& out) {
  auto cfg = load_config(o.config_path, env);
  if (!cfg) {
    out << cfg.error() << "\n";
    logger("config")->error("{}", cfg.error());
    return WorkerExit::kConfig;
  }
  Worker w(o.config_path, env, out);
  return w.run(std::move(*cfg));
}

}  // namespace batlehub::server
