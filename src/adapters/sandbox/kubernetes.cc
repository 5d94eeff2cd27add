#include "adapters/sandbox/kubernetes.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <optional>
#include <thread>

#include "adapters/sandbox/image_choice.h"
#include "adapters/sandbox/probe_support.h"
#include "adapters/sandbox/registry.h"
#include "adapters/sandbox/run_dir.h"
#include "adapters/sandbox/run_frame.h"
#include "config/text.h"

namespace batlehub::adapters {

namespace {

using core::SandboxError;
using Kind = core::SandboxError::Kind;
using nlohmann::json;

// "2026-12-03T11:30:00Z", as the API writes every timestamp: seconds since the epoch, or 0.
std::int64_t parse_time(const std::string& s) {
  std::tm tm{};
  const char* end = ::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return 0;
  return static_cast<std::int64_t>(::timegm(&tm));
}

SandboxError api_error(const std::string& what, const Expected<KubeResponse, std::string>& r) {
  if (!r) return SandboxError{Kind::kIo, what + ": " + r.error()};
  // 403 (Pod Security, the Role, the quota) and 422 (an invalid pod) are the cluster
  // refusing what it was asked: a configuration to change, not a request to retry.
  const Kind kind = r->status == 403 || r->status == 422 ? Kind::kConfig : Kind::kIo;
  return SandboxError{kind, what + ": " + std::to_string(r->status) + " " + r->message()};
}

}  // namespace

SandboxError KubernetesRuntime::start_timeout_error(const PodEnd& end, const std::string& scanner) const {
  return SandboxError{Kind::kStartTimeout,
                      "the pod " + end.name + " of " + scanner + " did not start its container within " +
                          std::to_string(options_.start_timeout.count()) + " s (start_timeout_secs; it was " +
                          (end.state.waiting.empty() ? "pending" : end.state.waiting) + ") and was deleted"};
}

KubernetesRuntime::KubernetesRuntime(KubernetesOptions o) : options_(std::move(o)), worker_(this_worker_label()) {
  namespace_ = !options_.namespace_.empty() ? options_.namespace_
               : options_.api               ? options_.api->credentials().namespace_
                                            : "";
}

std::string KubernetesRuntime::pods_path() const {
  return "/api/v1/namespaces/" + kube_escape(namespace_) + "/pods";
}

void KubernetesRuntime::delete_pod(const std::string& pod) const {
  // Zero grace: the agent ignores SIGTERM (it is pid 1 and waits on its scanner), so any
  // grace period would only be waited out.
  (void)options_.api->call("DELETE", pods_path() + "/" + kube_escape(pod) + "?gracePeriodSeconds=0",
                           R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})");
}

Expected<KubernetesRuntime::PodEnd, SandboxError> KubernetesRuntime::watch_to_end(
    const std::string& pod, std::string resource_version, std::chrono::steady_clock::time_point start_until,
    std::chrono::steady_clock::time_point until) {
  PodEnd end;
  end.name = pod;
  const std::string get = pods_path() + "/" + kube_escape(pod);
  bool started = false;
  // Set while the API server does not answer (a restart, a reset): the pod runs on without
  // it, so the pod is followed again, from what the server says of it then, until the
  // deadline. A deadline met while the server is still away is that outage, not the pod's.
  std::optional<std::string> unreachable;
  auto away = [&](const std::string& why) {
    unreachable = why;
    const auto left = until - std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(500), left));
  };
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    const bool start_due = !started && now >= start_until && start_until < until;
    if ((start_due || now >= until) && unreachable) {
      return Unexpected(SandboxError{Kind::kIo,
                                     "following pod " + pod + ": the API server did not answer until the " +
                                         (start_due ? "start timeout" : "run's deadline") + ": " + *unreachable,
                                     SandboxError::Reason::kTransport});
    }
    if (start_due) {
      end.start_timed_out = true;
      return end;
    }
    if (now >= until) {
      end.timed_out = true;
      return end;
    }
    // Until the container has started, the watch ends at start_until; after, at the deadline.
    const auto bound = started ? until : std::min(start_until, until);
    std::optional<PodState> done;
    bool gone = false;
    const auto secs = std::chrono::ceil<std::chrono::seconds>(bound - now).count();
    const std::string path =
        pods_path() + "?watch=true&allowWatchBookmarks=false&fieldSelector=" + kube_escape("metadata.name=" + pod) +
        "&resourceVersion=" + kube_escape(resource_version) +
        "&timeoutSeconds=" + std::to_string(std::max<long>(1, secs));
    std::string lost;
    auto w = options_.api->watch(
        path, bound,
        [&](const std::string& type, const json& obj) {
          if (type == "ERROR") {
            resource_version.clear();  // 410 Gone and the like: read the pod again, then watch from there
            return false;
          }
          if (type == "DELETED") {
            gone = true;
            return false;
          }
          resource_version = pod_field(pod_object(obj, "metadata"), "resourceVersion");
          PodState s = pod_state(obj);
          started = started || s.started;
          if (s.where != PodState::Where::kRunning) {
            done = s;
            return false;
          }
          end.state = std::move(s);  // the last word, should start_timeout come first
          return true;
        },
        &lost);
    if (done) {
      end.state = *done;
      return end;
    }
    if (gone) {
      end.state.where = PodState::Where::kEnded;
      end.state.reason = "Deleted";
      end.state.detail = "the pod was deleted by someone else while it ran";
      return end;
    }
    // A server back from an outage may refuse for a moment what it allowed before (its
    // authorizer's caches still filling: seen, 403 on the watch right after /readyz passed):
    // while it was away a moment ago, a refusal is more of the same outage.
    if (!w && unreachable) {
      away(w.error());
      continue;
    }
    if (!w) return Unexpected(SandboxError{Kind::kIo, w.error()});
    if (*w == KubeApi::WatchEnd::kLost) {
      away(lost);
      resource_version.clear();  // what happened meanwhile is read from the pod, not replayed
      continue;
    }
    if (*w == KubeApi::WatchEnd::kDeadline) continue;  // the loop's head says so
    unreachable.reset();
    if (resource_version.empty()) {
      // Start again from the pod as it is now.
      auto r = options_.api->call("GET", get);
      if (!r) {
        away("reading pod " + pod + ": " + r.error());
        continue;
      }
      if (r->status == 404) {
        end.state.where = PodState::Where::kEnded;
        end.state.reason = "Deleted";
        end.state.detail = "the pod was deleted by someone else while it ran";
        return end;
      }
      if (r->status != 200 && unreachable) {
        away(api_error("reading pod " + pod, r).message);
        continue;
      }
      if (r->status != 200) return Unexpected(api_error("reading pod " + pod, r));
      auto obj = json::parse(r->body, nullptr, false);
      if (!obj.is_object()) return Unexpected(SandboxError{Kind::kIo, "reading pod " + pod + ": not JSON"});
      PodState s = pod_state(obj);
      started = started || s.started;
      if (s.where != PodState::Where::kRunning) {
        end.state = s;
        return end;
      }
      end.state = std::move(s);
      resource_version = pod_field(pod_object(obj, "metadata"), "resourceVersion");
    }
  }
}

Expected<KubernetesRuntime::PodEnd, SandboxError> KubernetesRuntime::contain(
    const core::RunLabel& label, const std::string& image, bool network, const core::Limits& limits,
    std::chrono::milliseconds deadline, const StagedRun& staged, core::RunTrace* trace) {
  if (!options_.api) return Unexpected(SandboxError{Kind::kConfig, "the kubernetes runtime has no API server"});
  PodManifestInput in;
  in.namespace_ = namespace_;
  in.scanner = label.scanner;
  in.worker = worker_;
  in.job = label.job;
  in.network = network;
  in.active_deadline_secs = std::chrono::ceil<std::chrono::seconds>(deadline).count();
  in.service_account = options_.service_account;
  in.runtime_class = options_.runtime_class;
  in.node_selector = options_.node_selector;
  in.image_pull_secrets = options_.image_pull_secrets;
  in.image = image;
  in.in_url = staged.manifest_url;
  in.out_url = staged.out_url;
  in.memory_mb = limits.memory_limit_mb;
  in.work_mb = limits.max_extracted_mb;
  json pod = pod_manifest(in);
  if (edit_pod_for_tests_) edit_pod_for_tests_(pod);

  const auto created_at = std::chrono::steady_clock::now();
  const auto until = created_at + deadline;
  {
    // A pod exists on the server before its name is known here: until it is in flight,
    // the sweep must not take a pod of this worker's for a previous life's.
    std::lock_guard lock(mu_);
    ++creating_;
  }
  auto created = options_.api->call("POST", pods_path(), pod.dump());
  auto obj = created && created->status == 201 ? json::parse(created->body, nullptr, false) : json();
  const json& meta = obj.is_object() ? pod_object(obj, "metadata") : obj;
  const std::string name = pod_field(meta, "name");
  {
    std::lock_guard lock(mu_);
    --creating_;
    if (!name.empty()) in_flight_.insert(name);
  }
  if (!created || created->status != 201) {
    return Unexpected(api_error("creating a pod for " + label.scanner + " in namespace " + namespace_, created));
  }
  if (name.empty()) return Unexpected(SandboxError{Kind::kIo, "the API server created a pod and named none"});
  core::trace_sandbox(trace, name, image);
  auto ended = watch_to_end(name, pod_field(meta, "resourceVersion"), created_at + options_.start_timeout, until);
  core::trace_ended(trace);
  delete_pod(name);
  {
    std::lock_guard lock(mu_);
    in_flight_.erase(name);
  }
  return ended;
}

Expected<core::RunOutput, SandboxError> KubernetesRuntime::run(const core::RunSpec& spec) {
  if (auto refused = refuse_run(spec)) return Unexpected(std::move(*refused));
  if (!options_.bundles) {
    return Unexpected(
        SandboxError{Kind::kConfig, "the kubernetes runtime moves bundles through storage, and has none"});
  }
  auto image = choose_image(options_.images, options_.default_image, spec.label.scanner, spec.image,
                            "[worker.sandbox.kubernetes]");
  if (!image) return Unexpected(image.error());
  const auto deadline = run_deadline(spec, options_.start_timeout);
  auto staged = options_.bundles->stage(spec, std::chrono::ceil<std::chrono::seconds>(deadline));
  if (!staged) return Unexpected(staged.error());
  FinishOnExit finish(*options_.bundles, *staged);
  auto ended = contain(spec.label, *image, spec.network, spec.limits, deadline, *staged, spec.trace);
  if (!ended) return Unexpected(ended.error());
  const PodState& s = ended->state;
  if (ended->start_timed_out) return Unexpected(start_timeout_error(*ended, spec.label.scanner));
  if (ended->timed_out || s.reason == "DeadlineExceeded") {
    return Unexpected(SandboxError{Kind::kRunTimeout, "the pod " + ended->name + " of " + spec.label.scanner +
                                                          " ran past " + std::to_string(deadline.count()) +
                                                          " ms and was deleted"});
  }
  if (s.where == PodState::Where::kCannotStart) {
    return Unexpected(SandboxError{Kind::kCrashed, "the pod " + ended->name + " could not start its container: " +
                                                       s.reason + (s.detail.empty() ? "" : ": " + s.detail)});
  }
  auto tar = options_.bundles->read_result(*staged);
  if (!tar) {
    if (tar.error().reason != SandboxError::Reason::kNoResult) return Unexpected(tar.error());
    // The agent itself went: under the container's memory limit that is the OOM killer.
    const Kind kind = s.reason == "OOMKilled" ? Kind::kOutOfMemory : Kind::kCrashed;
    return Unexpected(SandboxError{kind,
                                   "the pod " + ended->name + " ended " + s.phase + " (" + s.reason +
                                       (s.detail.empty() ? "" : ", " + s.detail) + ") and no result came back",
                                   SandboxError::Reason::kNoResult});
  }
  return collect_tar(*tar, spec.argv[0]);
}

Expected<core::ProbeReport, SandboxError> KubernetesRuntime::probe(const core::ProbeTarget& target) {
  ProbeInProgress in_progress("kubernetes", target);
  core::ProbeReport& rep = in_progress.report();
  auto done = [&]() -> Expected<core::ProbeReport, SandboxError> { return in_progress.finish(); };
  auto image =
      choose_image(options_.images, options_.default_image, target.room, target.image, "[worker.sandbox.kubernetes]");
  if (!image) {
    rep.no_result_reason = image.error().message;
    return done();
  }
  if (!options_.bundles) {
    return Unexpected(
        SandboxError{Kind::kConfig, "the kubernetes runtime moves bundles through storage, and has none"});
  }
  // The bundle's own fetch proves the one destination the pod's network allows; the
  // canaries (the worker's listener among them), that it allows nothing else.
  CanaryListener listener;
  const wire::Manifest m = probe_manifest(target, canaries_for(listener.port(), options_.probe_canaries));
  const core::RunLabel label{"probe", target.room, 1};
  const auto deadline = std::chrono::milliseconds(m.timeout_ms) + options_.start_timeout;
  auto staged = options_.bundles->stage_manifest(m, label, std::chrono::ceil<std::chrono::seconds>(deadline));
  if (!staged) return Unexpected(staged.error());
  FinishOnExit finish(*options_.bundles, *staged);
  auto ended = contain(label, *image, false, target.limits, deadline, *staged);
  if (!ended) return Unexpected(ended.error());
  if (ended->start_timed_out) {
    rep.no_result_reason = start_timeout_error(*ended, target.room).message;
    return done();
  }
  const PodState& s = ended->state;
  const std::string how = ended->timed_out ? "the pod " + ended->name + " ran past its deadline"
                                           : "the pod " + ended->name + " ended " + s.phase + " (" + s.reason + ")";
  auto tar = options_.bundles->read_result(*staged);
  fill_probe_report(rep, tar ? read_result_tar(*tar) : Expected<wire::RunResult, SandboxError>(Unexpected(tar.error())),
                    how, s.detail);
  return done();
}

Expected<core::Swept, SandboxError> KubernetesRuntime::sweep(std::chrono::seconds older_than) {
  if (!options_.api) return Unexpected(SandboxError{Kind::kConfig, "the kubernetes runtime has no API server"});
  const std::string selector = "app.kubernetes.io/component=sandbox," + std::string(kPodWorkerLabel);
  auto r = options_.api->call("GET", pods_path() + "?labelSelector=" + kube_escape(selector));
  if (!r || r->status != 200) return Unexpected(api_error("listing the sandbox pods of namespace " + namespace_, r));
  auto list = json::parse(r->body, nullptr, false);
  auto items = list.is_object() ? list.find("items") : list.end();
  if (!list.is_object() || items == list.end() || !items->is_array()) {
    return Unexpected(SandboxError{Kind::kIo, "listing the sandbox pods: not a list"});
  }
  const std::string me = label_value(worker_);
  const std::string here = "_" + label_value(worker_hostname());
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  const std::int64_t grace = std::max(older_than, options_.orphan_after).count();
  core::Swept swept;
  swept.looked_for(core::OrphanKind::kPod);
  for (const auto& pod : *items) {
    if (!pod.is_object()) continue;
    const json& meta = pod_object(pod, "metadata");
    const std::string name = pod_field(meta, "name");
    const std::string worker = pod_field(pod_object(meta, "labels"), kPodWorkerLabel);
    if (name.empty()) continue;
    bool orphan = false;
    if (worker == me) {
      // Labelled with this worker and not in flight here: a previous life's (in a container
      // the worker is pid 1 on every restart, with the same hostname).
      std::lock_guard lock(mu_);
      orphan = creating_ == 0 && !in_flight_.contains(name);
    } else if (worker.ends_with(here)) {
      const std::string pid = worker.substr(0, worker.size() - here.size());
      orphan = !pid.empty() && pid.size() < 10 && pid.find_first_not_of("0123456789") == std::string::npos &&
               ::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH;
    }
    if (!orphan) {
      const std::int64_t created = parse_time(pod_field(meta, "creationTimestamp"));
      std::int64_t active = 0;
      const json& spec = pod_object(pod, "spec");
      if (auto a = spec.find("activeDeadlineSeconds"); a != spec.end() && a->is_number_integer()) {
        active = a->get<std::int64_t>();
      }
      orphan = created > 0 && now > created + active + grace;
    }
    if (!orphan) continue;
    auto d = options_.api->call("DELETE", pods_path() + "/" + kube_escape(name) + "?gracePeriodSeconds=0",
                                R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})");
    if (d && (d->status == 200 || d->status == 202)) swept.add(core::OrphanKind::kPod, 1);
  }
  const auto bundle_age = std::max(older_than, options_.orphan_after);
  if (auto b = sweep_bundles(options_.bundles.get(), bundle_age, swept); !b) return Unexpected(b.error());
  return swept;
}

std::string KubernetesRuntime::where() const {
  std::string s = "namespace " + namespace_;
  if (!options_.runtime_class.empty()) s += ", runtime class " + options_.runtime_class;
  if (options_.bundles) s += ", bundles on " + options_.bundles->location();
  return s;
}

void KubernetesRuntime::close_job(const std::string& job) {
  if (options_.bundles) options_.bundles->close_job(job);
}

// One hint per way the probe can fail: the fix is in the worker's Role, the namespace, the
// images, the kubelets or the network — or in something that rewrote the pod on its way in
// (a mutating admission webhook), since the pod spec itself sets every wall below.
std::string KubernetesRuntime::hint(std::optional<wire::Check> failed) const {
  using wire::Check;
  auto see = [](std::string what) { return what + " See docs/operations/kubernetes.md"; };
  const std::string ns = "'" + namespace_ + "'";
  if (!failed) {
    // A RuntimeClass whose handler a node does not run leaves the pod without a sandbox
    // (FailedCreatePodSandBox, an event the worker's Role may not read) until its deadline:
    // from here it looks like any pod that never answered, so the class is named first.
    const std::string runtime_class =
        options_.runtime_class.empty()
            ? ""
            : "pods of runtime class '" + options_.runtime_class +
                  "' need a node whose container runtime runs that class's handler (a pod whose sandbox "
                  "never starts is what a node without it gives: `kubectl get events` shows "
                  "FailedCreatePodSandBox, `kubectl get runtimeclass " +
                  options_.runtime_class + "` the handler it needs); and ";
    return see(runtime_class +
               "kubernetes needs the worker's credentials (in-cluster, or [worker.sandbox.kubernetes] kubeconfig) "
               "bound to a Role with pods create/get/list/watch/delete in namespace " +
               ns +
               ", that namespace labelled pod-security.kubernetes.io/enforce=restricted, each scanner's image on "
               "the nodes or pullable, and the storage endpoint reachable from a pod labelled "
               "io.batlehub/network=storage (the pod's own bundle fetch).");
  }
  const std::string rewritten =
      "the pod spec sets this wall itself: look for a mutating admission webhook or a policy engine that "
      "rewrites pods in namespace " +
      ns + " ";
  switch (*failed) {
    case Check::kWireVersion:
      return see(
          "the image's agent is of another release: rebuild the image with this release's agent and push "
          "it where the nodes pull from (scripts/build-image.py).");
    case Check::kNoShell:
    case Check::kCommandsExist:
      return see(image_hint(*failed, "[worker.sandbox.kubernetes]"));
    case Check::kSeccompFilter:
    case Check::kNoNewPrivs:
    case Check::kCanarySyscall:
    case Check::kClone3Enosys:
      return see(
          "the agent installs this wall itself, under the pod's RuntimeDefault profile: the node's kernel "
          "must filter with seccomp, the runtime class must allow seccomp(2) and prctl(2), and the image "
          "must hold this release's agent (scripts/build-image.py).");
    case Check::kAgentUnreachable:
      return see(rewritten +
                 "(a capability such as SYS_PTRACE added, shareProcessNamespace), or the image holds an agent "
                 "of another release, which does not make itself undumpable (scripts/build-image.py).");
    case Check::kLandlock:
      return see(
          "the node's kernel offers Landlock and the agent's ruleset is not on the scanner: the image must "
          "hold this release's agent (scripts/build-image.py), and the pod's seccomp profile must allow "
          "landlock_create_ruleset and landlock_restrict_self (containerd's RuntimeDefault does). A node "
          "without Landlock is only a warning unless [worker.sandbox] require_landlock = true: then boot it "
          "with landlock in lsm=, or select nodes that have it.");
    case Check::kRlimits:
      return see(
          "the container runtime refused the agent a resource limit: the node's hard limits (containerd's "
          "or CRI-O's default rlimits) must allow setrlimit down from them. A node hard limit below the "
          "run's is only a warning.");
    case Check::kPidsBounded:
      return see(
          "a pod spec cannot bound its processes, only the kubelet can: set podPidsLimit to at most 256 in "
          "every node's KubeletConfiguration (or a node selector to the nodes that have it).");
    case Check::kMemoryBounded:
      return see(rewritten +
                 "(resources.limits.memory), or a node whose kubelet does not enforce limits "
                 "(cgroups without the memory controller).");
    case Check::kNoNetwork:
      return see("a pod reached a canary: apply the chart's NetworkPolicies in namespace " + ns +
                 " (default deny; io.batlehub/network=storage reaches the storage endpoint only), with a CNI that "
                 "enforces NetworkPolicy.");
    case Check::kNoCredentials:
      return see(rewritten + "(automountServiceAccountToken: false, no env or envFrom), or the service account " + "'" +
                 options_.service_account +
                 "' has a token mounted by a webhook; a credential inside the "
                 "image means rebuilding it from its definition.");
    case Check::kEmptyEnvironment:
      return see(rewritten + "to add env or envFrom (a PodPreset-like injector, a sidecar injector).");
    case Check::kUnprivileged:
    case Check::kReadOnlyRoot:
    case Check::kOneWritableDir:
    case Check::kPidNamespace:
      break;
  }
  return see(rewritten +
             "(runAsNonRoot and runAsUser 65532, readOnlyRootFilesystem, allowPrivilegeEscalation: "
             "false, no hostPID or shareProcessNamespace), and label the namespace "
             "pod-security.kubernetes.io/enforce=restricted so that such a pod is refused.");
}

RuntimeRegistration kubernetes_registration() {
  RuntimeRegistration r = image_runtime_registration<KubernetesTable>();
  r.schema.read = [](config::TableReader& t, config::RuntimeTables& into) {
    KubernetesTable k;
    if (auto v = t.str("namespace")) k.namespace_ = *v;
    if (auto v = t.str("service_account")) k.service_account = *v;
    if (auto v = t.str("image")) k.image = *v;
    if (auto v = t.str("runtime_class")) k.runtime_class = *v;
    if (auto v = t.string_map("node_selector")) k.node_selector = *v;
    if (auto v = t.strings("image_pull_secrets")) k.image_pull_secrets = *v;
    if (auto v = t.integer("orphan_after_secs")) k.orphan_after_secs = *v;
    if (auto v = t.str("kubeconfig")) k.kubeconfig = *v;
    if (auto v = t.str("context")) k.context = *v;
    into.set(std::move(k));
  };
  r.schema.check = [](const config::SandboxConfig& s, config::TableCheck& check) {
    const KubernetesTable& k = s.tables.get<KubernetesTable>();
    const std::string base = "worker.sandbox.kubernetes.";
    check.not_empty(base + "service_account", k.service_account);
    for (const auto& [label, value] : k.node_selector) {
      if (label.empty()) check.refuse(base + "node_selector", "a node_selector label must not be empty");
    }
    for (std::size_t i = 0; i < k.image_pull_secrets.size(); ++i) {
      if (k.image_pull_secrets[i].empty()) {
        check.refuse(base + "image_pull_secrets[" + std::to_string(i) + "]",
                     "an image pull secret's name must not be empty");
      }
    }
    check.range(base + "orphan_after_secs", k.orphan_after_secs, 1, std::numeric_limits<std::int32_t>::max());
    if (!k.kubeconfig.empty() && k.kubeconfig.front() != '/') {
      check.refuse(base + "kubeconfig", "kubeconfig = " + config::quoted(k.kubeconfig) + " must be an absolute path");
    }
    if (!k.context.empty() && k.kubeconfig.empty()) {
      check.refuse(base + "context", "context = " + config::quoted(k.context) +
                                         " names a kubeconfig context, and no kubeconfig is set (in the cluster the "
                                         "worker uses its service account)");
    }
  };
  r.schema.storage_transport = [](const config::SandboxConfig&) -> std::optional<std::string> {
    return "the kubernetes runtime";
  };
  r.schema.shared_integer = [](const config::SandboxConfig& s, std::string_view key) -> std::optional<std::int64_t> {
    if (key == "orphan_after_secs") return s.tables.get<KubernetesTable>().orphan_after_secs;
    return std::nullopt;
  };
  r.build = [](const RuntimeContext& ctx) -> Expected<std::unique_ptr<core::SandboxRuntime>, std::string> {
    const config::SandboxConfig& s = ctx.config.worker.sandbox;
    const KubernetesTable& k = s.tables.get<KubernetesTable>();
    auto creds = k.kubeconfig.empty() ? in_cluster_credentials(ctx.env) : load_kubeconfig(k.kubeconfig, k.context);
    if (!creds) return Unexpected("the kubernetes runtime cannot reach its API server: " + creds.error());
    KubernetesOptions o;
    o.api = std::make_shared<KubeApi>(std::move(*creds));
    o.namespace_ = k.namespace_;
    if (o.namespace_.empty() && o.api->credentials().namespace_.empty()) {
      return Unexpected("the kubernetes runtime has no namespace: set [worker.sandbox.kubernetes] namespace (" +
                        o.api->credentials().source + " names none)");
    }
    o.service_account = k.service_account;
    o.runtime_class = k.runtime_class;
    o.node_selector = k.node_selector;
    o.image_pull_secrets = k.image_pull_secrets;
    o.images = ctx.images;
    o.default_image = ctx.default_image;
    o.start_timeout = std::chrono::seconds(s.start_timeout_secs);
    o.probe_canaries = s.probe_canaries;
    o.orphan_after = std::chrono::seconds(k.orphan_after_secs);
    auto bundles = ctx.bundles();
    if (!bundles) return Unexpected(bundles.error());
    o.bundles = std::move(*bundles);
    return std::unique_ptr<core::SandboxRuntime>(std::make_unique<KubernetesRuntime>(std::move(o)));
  };
  r.hint =
      "kubernetes needs the worker's credentials (in-cluster, or [worker.sandbox.kubernetes] kubeconfig), a "
      "namespace labelled pod-security.kubernetes.io/enforce=restricted and an S3-compatible bundle backend "
      "(docs/operations/kubernetes.md)";
  return r;
}

}  // namespace batlehub::adapters
