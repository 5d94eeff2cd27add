#include "server/commands/queue_commands.h"

#include <charconv>
#include <ctime>
#include <ostream>
#include <thread>

#include "core/queue.h"
#include "server/service/artifact_cache.h"
#include "server/root/builders.h"
#include "server/commands/report.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

namespace {

using Queue = std::unique_ptr<core::ScanQueue>;

// The configuration and its queue, or the one-line reason on `out`.
std::optional<std::pair<config::Config, Queue>> open(const std::optional<std::string>& path, const config::Env& env,
                                                     std::ostream& out) {
  auto cfg = load_config(path, env);
  if (!cfg) {
    out << cfg.error() << "\n";
    return std::nullopt;
  }
  auto q = open_queue(*cfg);
  if (!q) {
    out << q.error() << "\n";
    return std::nullopt;
  }
  return std::pair{std::move(*cfg), std::move(*q)};
}

// A quarantine the queue can still lift: a job for the coordinate is open (queued, leased
// or being retried).
bool has_open_job(core::ScanQueue& q, const Coordinate& c) {
  auto j = q.open_job(c.registry, c.name, c.version);
  return j && j->has_value();
}

core::Verdict pending_verdict(const Coordinate& c) {
  core::Verdict v;
  v.package.registry = c.registry;
  v.package.name = c.name;
  v.package.version = c.version;
  v.state = core::VerdictState::kQuarantined;
  v.reason_codes = {core::ReasonCode::kScanPending};
  v.policy_ref = c.registry + "/default";
  return v;
}

}  // namespace

std::optional<Coordinate> parse_coordinate(std::string_view s) {
  auto colon = s.find(':');
  auto at = s.rfind('@');
  if (colon == std::string_view::npos || colon == 0 || at == std::string_view::npos || at <= colon + 1 ||
      at + 1 >= s.size()) {
    return std::nullopt;
  }
  return Coordinate{std::string(s.substr(0, colon)), std::string(s.substr(colon + 1, at - colon - 1)),
                    std::string(s.substr(at + 1))};
}

std::optional<std::chrono::milliseconds> parse_duration(std::string_view s) {
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || n < 0 || p == s.data()) return std::nullopt;
  std::string_view unit(p, static_cast<std::size_t>(s.data() + s.size() - p));
  constexpr std::int64_t kMaxSeconds = std::int64_t{1} << 32;  // no overflow below
  if (n > kMaxSeconds) return std::nullopt;
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit.empty() || unit == "s") return std::chrono::seconds(n);
  if (unit == "m") return std::chrono::minutes(n);
  if (unit == "h") return std::chrono::hours(n);
  return std::nullopt;
}

int submit_command(const SubmitOptions& o, const config::Env& env, std::ostream& out) {
  if (o.archives.empty()) {
    out << "batlehub submit: name at least one archive\n";
    return 2;
  }
  auto opened = open(o.config_path, env, out);
  if (!opened) return 2;
  auto& [cfg, queue] = *opened;
  // As upstream's proxy: the archive cached through the deduplicating router ([storage] and
  // the dedup tables, A.6), then the job queued (B.3).
  auto storage = build_storage(cfg, env);
  if (!storage) {
    out << storage.error() << "\n";
    return 2;
  }
  ArtifactCache cache(cfg, *storage, *queue, spool_dir(cfg));
  for (const std::string& path : o.archives) {
    auto named = package_of(path, o.naming);
    if (!named) {
      out << named.error() << "\n";
      return 4;
    }
    auto sha = cache.store(path, *named);
    if (!sha) {
      out << sha.error() << "\n";
      return 4;
    }
    core::JobRequest req;
    req.coordinate = named->coord();
    auto e = queue->enqueue(req);
    if (!e) {
      out << e.error().message << "\n";
      return 2;
    }
    out << (e->created ? "queued " : "already queued ") << req.coordinate.coordinate() << " (job " << e->job_id
        << ", sha256:" << *sha << ")\n";
  }
  return 0;
}

WaitExit wait_command(const WaitOptions& o, const config::Env& env, std::ostream& out) {
  auto c = parse_coordinate(o.coordinate);
  if (!c) {
    out << "batlehub wait: \"" << o.coordinate << "\" is not a coordinate (<registry>:<name>@<version>)\n";
    return WaitExit::kUsage;
  }
  auto opened = open(o.config_path, env, out);
  if (!opened) return WaitExit::kUsage;
  core::ScanQueue& q = *opened->second;
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  for (;;) {
    // The open job first, then the verdict: a worker closes the job and records the
    // verdict in one transaction, so a job seen closed here has its verdict readable next.
    // The other order can read "no verdict yet", then "no open job" when the worker finished
    // in between, and give up on a package that has just been judged.
    const bool open_job = has_open_job(q, *c);
    auto v = q.verdict(c->registry, c->name, c->version);
    if (!v) {
      out << v.error().message << "\n";
      return WaitExit::kUsage;
    }
    if (*v && !open_job) {
      const core::Verdict& verdict = (*v)->verdict;
      out << native_message(verdict) << "\n";
      const bool servable =
          verdict.state == core::VerdictState::kAllowed || verdict.state == core::VerdictState::kWarned;
      return servable ? WaitExit::kServable : WaitExit::kWaitingCannotHelp;
    }
    if (!*v && !open_job) {
      out << o.coordinate << " is not queued and has no verdict: waiting cannot help (`batlehub submit` it)\n";
      return WaitExit::kWaitingCannotHelp;
    }
    if (std::chrono::steady_clock::now() + o.interval > deadline) {
      out << native_message(*v ? (*v)->verdict : pending_verdict(*c)) << " Still waiting after the timeout.\n";
      return WaitExit::kTimeout;
    }
    std::this_thread::sleep_for(o.interval);
  }
}

int why_command(const WhyOptions& o, const config::Env& env, std::ostream& out) {
  auto c = parse_coordinate(o.coordinate);
  if (!c) {
    out << "batlehub why: \"" << o.coordinate << "\" is not a coordinate (<registry>:<name>@<version>)\n";
    return 2;
  }
  auto opened = open(o.config_path, env, out);
  if (!opened) return 2;
  core::ScanQueue& q = *opened->second;
  auto v = q.verdict(c->registry, c->name, c->version);
  if (!v) {
    out << v.error().message << "\n";
    return 2;
  }
  if (!*v) {
    if (!has_open_job(q, *c)) {
      out << o.coordinate << ": no verdict and nothing queued (`batlehub submit` it)\n";
      return 1;
    }
    core::Verdict pending = pending_verdict(*c);
    if (o.json) {
      out << render_verdict_json(pending, static_cast<std::int64_t>(std::time(nullptr)), std::nullopt);
    } else {
      out << render_text(ScanReport{pending, "", "", now_rfc3339(), ""});
    }
    return 0;
  }
  const core::RecordedVerdict& r = **v;
  if (o.json) {
    out << render_verdict_json(r.verdict, r.evaluated_at, r.last_scanned_at);
  } else {
    out << render_text(
        ScanReport{r.verdict, "", "", rfc3339(r.evaluated_at), r.last_scanned_at ? rfc3339(*r.last_scanned_at) : ""});
  }
  return 0;
}

}  // namespace batlehub::server
