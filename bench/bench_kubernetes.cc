// bench_kubernetes: what a run costs on the `kubernetes` runtime (KubernetesRuntime::run(),
// one pod per run, the bundle and the result through presigned URLs on S3) beside a bare pod
// of the same image through the same API, on the project's own single-node cluster.
//
//   bench_kubernetes [--agent PATH] [--hostile PATH] [--relay PATH] [--versitygw PATH]
//                    [--k8s-bin DIR] [--helm PATH] [--dir DIR] [--reps N] [--warmup N]
//                    [--wait-cluster SECS]
//
// One run:
//   1. skips, saying why, when not root or when scripts/k8s-peer.sh lacks a binary
//      (`k8s-peer.sh missing --relay PATH`), or helm or versitygw is not there;
//   2. builds one room (scripts/build-room.py: the agent and the static `hostile` test
//      scanner) in a fresh dir under DIR (default $BATLEHUB_BENCH_DIR, else /dev/shm);
//   3. starts its own S3 server (versitygw, scripts/s3-peer.sh) on a free loopback port, then
//      the cluster (scripts/k8s-peer.sh start in a fresh /tmp/bhb-k8s.XXXXXX, --s3-port that
//      port, --relay netns-relay: the cluster's storage door relays the pod network's gateway,
//      <gateway>:<port>, to that server; the bench signs for that address, as a worker whose
//      pods reach storage over their network does). One cluster per machine: while another directory's cluster runs,
//      it retries every 15 s for --wait-cluster seconds (600), then skips saying so;
//   4. makes a sandbox namespace with the Helm chart and a worker token bound to the chart's
//      Role (tests/scripts/k8s_sandbox_namespace.py, as the runtime's tests do) and imports the
//      room into the cluster's containerd (scripts/build-image.py --engine containerd);
//   5. times, alternating, after --warmup untimed rounds, --reps of each of:
//        the anchor: a bare pod of the same image, adapters::pod_manifest()'s pod (restricted
//          Pod Security, the same service account, limits and volumes) with `hostile exit 0 ok`
//          as its command, created through the same KubeApi with the worker's credentials,
//          watched to Succeeded, deleted with grace 0;
//        the run: KubernetesRuntime::run() of `hostile cat node_modules/x/index.js` over a small
//          extracted .tgz and a lockfile (the tests' fixture_run_spec()): staging on S3, the
//          pod, the watch, out.tar read back, the pod deleted, the run's keys deleted;
//        the probe: KubernetesRuntime::probe() of the room (it must pass);
//      each one after the previous pod's teardown on the node finished (its address given
//      back, untimed), so that no measurement pays for the one before it;
//   6. checks every run (status 0, stdout the file's bytes; every anchor pod Succeeded with
//      exit code 0; every probe passed; no bundle key left), stops the cluster and the S3
//      server, and prints the table: median, p90 and min, the ratios to the anchor, the aim,
//      and where a run's time goes.
//
// The breakdown comes from the measured runs themselves: the store's backend is wrapped in a
// decorator that timestamps every request and every URL signed, and the run's phases are
// read off those stamps: staging (up to the last URL signed), the pod (from there to the HEAD
// of out.tar: create, watch, delete), reading out.tar (HEAD + GET), collecting it, and
// finishing (the run's keys listed and deleted). The runtime is not changed.
//
// The cluster and the S3 server are stopped on every way out: at the end, on a failure (the
// bench's die()), and — by a watcher process apart, in its own session — when the bench is
// killed. Nothing leaves the machine: every server listens on 127.0.0.1 but the cluster's
// storage door, on the pod bridge's gateway address (RFC 2544's range, fenced in), the image
// is imported from a local tar, containerd never pulls, and a pod reaches only the S3 server.
#include <arpa/inet.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <archive.h>
#include <archive_entry.h>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/kube_api.h"
#include "adapters/sandbox/kubernetes.h"
#include "adapters/sandbox/pod_manifest.h"
#include "adapters/sandbox/run_frame.h"
#include "adapters/storage/bundle.h"
#include "adapters/storage/router.h"
#include "adapters/storage/s3_backend.h"
#include "bench_s3.h"
#include "bench_support.h"

namespace {

namespace fs = std::filesystem;
namespace ad = batlehub::adapters;
namespace core = batlehub::core;
using namespace batlehub::bench;
using batlehub::Expected;
using batlehub::Ok;
using nlohmann::json;

constexpr const char* kPrefix = "bench-k8s/";
constexpr const char* kCatPath = "node_modules/x/index.js";
constexpr const char* kIndexJs = "module.exports = 42;\n";

#ifdef BATLEHUB_RELAY_BIN
constexpr const char* kRelayBin = BATLEHUB_RELAY_BIN;
#else
constexpr const char* kRelayBin = "";
#endif

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

struct Options {
  std::string agent = kAgentBin;
  std::string hostile = kHostileBin;
  std::string relay = kRelayBin;
  std::string versitygw = "/opt/batlehub/peers/versitygw-1.8.0/versitygw";
  std::string k8s_bin = env_or("K8S_BIN", "/opt/batlehub/peers/kubernetes-1.37.2/bin");
  std::string helm = "/opt/batlehub/peers/helm-3.21.4/helm";
  std::string dir = default_bench_dir();
  std::string build_room = source_script("build-room.py");
  std::string build_image = source_script("build-image.py");
  std::string s3_peer = source_script("s3-peer.sh");
  std::string k8s_peer = source_script("k8s-peer.sh");
  std::string ns_script = *kSourceDir ? std::string(kSourceDir) + "/tests/scripts/k8s_sandbox_namespace.py" : "";
  std::string chart = *kSourceDir ? std::string(kSourceDir) + "/deploy/helm/batlehub" : "";
  int reps = 10;
  int warmup = 1;
  int wait_cluster = 600;
};

constexpr const char* kUsage =
    "usage: bench_kubernetes [--agent PATH] [--hostile PATH] [--relay PATH] [--versitygw PATH]\n"
    "                        [--k8s-bin DIR] [--helm PATH] [--dir DIR] [--reps N] [--warmup N]\n"
    "                        [--wait-cluster SECS]\n"
    "  --reps defaults to $BENCH_K8S_REPS, else 10; --k8s-bin to $K8S_BIN, else\n"
    "  /opt/batlehub/peers/kubernetes-1.37.2/bin\n";

Options parse_args(int argc, char** argv) {
  Options o;
  Args args(argc, argv, kUsage);
  if (const char* r = std::getenv("BENCH_K8S_REPS"); r && *r) {
    char* end = nullptr;
    const long n = std::strtol(r, &end, 10);
    if (*end != '\0' || n < 1 || n > 100000) args.fail(std::string("bad BENCH_K8S_REPS: ") + r);
    o.reps = static_cast<int>(n);
  }
  while (args.next()) {
    if (args.value_into({{"--agent", &o.agent},
                         {"--hostile", &o.hostile},
                         {"--relay", &o.relay},
                         {"--versitygw", &o.versitygw},
                         {"--k8s-bin", &o.k8s_bin},
                         {"--helm", &o.helm},
                         {"--dir", &o.dir}}))
      continue;
    const std::string& a = args.flag();
    if (a == "--reps")
      o.reps = static_cast<int>(args.number(1));
    else if (a == "--warmup")
      o.warmup = static_cast<int>(args.number(0));
    else if (a == "--wait-cluster")
      o.wait_cluster = static_cast<int>(args.number(0, 86400));
    else
      args.unknown();
  }
  if (o.agent.empty()) args.fail("--agent PATH is required");
  if (o.hostile.empty()) args.fail("--hostile PATH is required");
  if (o.relay.empty()) args.fail("--relay PATH is required (tests/helpers/netns-relay)");
  o.dir = fs::absolute(o.dir).string();
  for (const auto* p : {&o.build_room, &o.build_image, &o.s3_peer, &o.k8s_peer, &o.ns_script, &o.chart}) {
    if (p->empty() || ::access(p->c_str(), R_OK) != 0)
      die("the source tree's scripts (build-room.py, build-image.py, s3-peer.sh, k8s-peer.sh, "
          "tests/scripts/k8s_sandbox_namespace.py) or deploy/helm/batlehub not found");
  }
  return o;
}

// Says why the bench cannot run here and ends it (exit 0: a skip is not a failure), after
// undoing what it set up.
[[noreturn]] void skip(const std::string& why) {
  std::printf("bench_kubernetes: skipped: %s\n", why.c_str());
  std::fflush(stdout);
  if (auto cleanup = std::exchange(on_failure().cleanup, nullptr)) cleanup();
  std::exit(0);
}

// ---------------------------------------------------------------------------------- timing

// One request the store made to its backend, or one URL it signed, with when it began and ended.
struct Event {
  enum class Op { kPut, kPutBlob, kGet, kHead, kRemove, kList, kPresign } op;
  std::string key;
  Clock::time_point t0, t1;
};

// A StorageBackend that forwards to another and stamps what went through it. The bench's
// runs are one at a time, and the runtime stages and collects on the calling thread.
class StampingBackend final : public core::StorageBackend {
 public:
  StampingBackend(std::shared_ptr<core::StorageBackend> inner, std::vector<Event>* log)
      : inner_(std::move(inner)), log_(log) {}

  const std::string& name() const override { return inner_->name(); }
  std::string_view type() const override { return inner_->type(); }

  Expected<Ok, core::StorageError> put(const std::string& key, std::string_view bytes) override {
    return stamped(Event::Op::kPut, key, [&] { return inner_->put(key, bytes); });
  }
  Expected<Ok, core::StorageError> put_blob(const std::string& key, const core::Blob& blob) override {
    return stamped(Event::Op::kPutBlob, key, [&] { return inner_->put_blob(key, blob); });
  }
  Expected<std::string, core::StorageError> get(const std::string& key, std::uint64_t max_bytes) override {
    return stamped(Event::Op::kGet, key, [&] { return inner_->get(key, max_bytes); });
  }
  Expected<core::ObjectInfo, core::StorageError> head(const std::string& key) override {
    return stamped(Event::Op::kHead, key, [&] { return inner_->head(key); });
  }
  Expected<Ok, core::StorageError> remove(const std::string& key) override {
    return stamped(Event::Op::kRemove, key, [&] { return inner_->remove(key); });
  }
  Expected<std::vector<core::ObjectInfo>, core::StorageError> list(const std::string& prefix) override {
    return stamped(Event::Op::kList, prefix, [&] { return inner_->list(prefix); });
  }
  Expected<std::string, core::StorageError> presign_get(const std::string& key,
                                                        std::chrono::seconds ttl) const override {
    return stamped(Event::Op::kPresign, key, [&] { return inner_->presign_get(key, ttl); });
  }
  Expected<std::string, core::StorageError> presign_put(const std::string& key, std::chrono::seconds ttl,
                                                        std::uint64_t max_bytes) const override {
    return stamped(Event::Op::kPresign, key, [&] { return inner_->presign_put(key, ttl, max_bytes); });
  }

 private:
  template <class F>
  std::invoke_result_t<F> stamped(Event::Op op, const std::string& key, F f) const {
    const auto t0 = Clock::now();
    auto r = f();
    log_->push_back(Event{op, key, t0, Clock::now()});
    return r;
  }

  std::shared_ptr<core::StorageBackend> inner_;
  std::vector<Event>* log_;
};

// A string field of the object's metadata, "" when there is none.
std::string meta(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto v = m->find(key);
  return v != m->end() && v->is_string() ? v->get<std::string>() : "";
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Where one run()'s or probe()'s time went, read off the backend's stamps.
struct Phases {
  double stage = 0;     // the call's start to the last URL signed: the manifest, the inputs
  double pod = 0;       // from there to out.tar's HEAD: create, watch to the end, delete
  double read = 0;      // out.tar's HEAD and GET
  double collect = 0;   // out.tar read into a RunOutput (a probe: into its report)
  double finish = 0;    // the run's keys listed and deleted
  double requests = 0;  // S3 requests (signing a URL is none)
};

Phases phases_of(const std::vector<Event>& log, Clock::time_point start, Clock::time_point end) {
  auto is_out = [](const Event& e) {
    return (e.op == Event::Op::kHead || e.op == Event::Op::kGet) && e.key.ends_with("/out.tar");
  };
  auto head = std::find_if(log.begin(), log.end(), is_out);
  auto get = std::find_if(log.rbegin(), log.rend(), is_out);
  if (head == log.end() || head == log.begin()) die("a run's requests to S3 were not stage, out.tar, finish");
  auto last_stage = std::prev(head);
  auto after_get = get.base();  // the first event after out.tar's GET
  Phases p;
  p.stage = ms_between(start, last_stage->t1);
  p.pod = ms_between(last_stage->t1, head->t0);
  p.read = ms_between(head->t0, std::prev(after_get)->t1);
  if (after_get != log.end()) {
    p.collect = ms_between(std::prev(after_get)->t1, after_get->t0);
    p.finish = ms_between(after_get->t0, end);
  } else {
    p.collect = ms_between(std::prev(after_get)->t1, end);
  }
  for (const auto& e : log) p.requests += e.op != Event::Op::kPresign;
  return p;
}

// ------------------------------------------------------------------------ the bench's peers

// What the bench started, for its cleanup (in-process and the watcher's).
struct Peers {
  std::string run;      // the run dir: room, logs, S3 data
  std::string s3_dir;   // s3-peer.sh's DIR
  std::string cluster;  // k8s-peer.sh's DIR
  std::string s3_peer, k8s_peer;
  std::vector<std::string> env;  // the scripts' environment
  int watcher_fd = -1;           // the write end of the watcher's pipe
};
Peers g_peers;

// The environment the scripts run in: the bench's own (python3 may be a pyenv shim), with
// sbin on PATH (k8s-peer.sh runs ip, ss, sysctl) and K8S_BIN set.
std::vector<std::string> scripts_env(const Options& o) {
  std::vector<std::string> env;
  std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  for (const std::string d : {"/usr/local/sbin", "/usr/sbin", "/sbin"}) {
    if ((":" + path + ":").find(":" + d + ":") == std::string::npos) path += ":" + d;
  }
  for (char** v = environ; *v; ++v) {
    std::string s = *v;
    if (s.starts_with("PATH=") || s.starts_with("K8S_BIN=") || s.starts_with("VERSITYGW=") || s.starts_with("TMPDIR="))
      continue;
    env.push_back(s);
  }
  env.push_back("PATH=" + path);
  env.push_back("K8S_BIN=" + o.k8s_bin);
  env.push_back("VERSITYGW=" + o.versitygw);
  return env;
}

// fork + execve + wait, for the watcher (which must never die() as the bench does).
int spawn_wait(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> av, ev;
  for (const auto& s : argv) av.push_back(const_cast<char*>(s.c_str()));
  av.push_back(nullptr);
  for (const auto& s : env) ev.push_back(const_cast<char*>(s.c_str()));
  ev.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::execve(av[0], av.data(), ev.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Stops the cluster and the S3 server and removes the bench's directories: the cluster's only
// when `stop` left no mount under it. Returns what went wrong, "" when nothing did.
std::string stop_peers(const Peers& p) {
  std::string problems;
  if (!p.cluster.empty()) {
    const int st = spawn_wait({"/bin/bash", p.k8s_peer, "stop", p.cluster}, p.env);
    if (st == 0) {
      spawn_wait({"/bin/rm", "-rf", "--one-file-system", "--", p.cluster}, p.env);
    } else {
      problems += "scripts/k8s-peer.sh stop " + p.cluster + " ended with " + describe_status(st) +
                  " (its state is kept there); ";
    }
  }
  if (!p.s3_dir.empty()) {
    const int st = spawn_wait({"/bin/bash", p.s3_peer, "stop", p.s3_dir}, p.env);
    if (st != 0) problems += "scripts/s3-peer.sh stop ended with " + describe_status(st) + "; ";
  }
  if (!p.run.empty()) spawn_wait({"/bin/rm", "-rf", "--one-file-system", "--", p.run}, p.env);
  return problems;
}

// A process apart that outlives the bench: in its own session (a ^C to the bench's process
// group does not reach it) and not its child (run_process reaps every child, and would wait
// on it). It waits on a pipe; when the bench ends without writing "done" to it — killed,
// crashed — it stops the cluster and the S3 server as the bench would have.
void start_watcher(const Peers& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) die(std::string("pipe: ") + std::strerror(errno));
  const pid_t mid = ::fork();
  if (mid < 0) die(std::string("fork: ") + std::strerror(errno));
  if (mid == 0) {
    ::setsid();
    const pid_t w = ::fork();
    if (w != 0) ::_exit(w < 0 ? 1 : 0);
    ::close(fds[1]);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(s, SIG_IGN);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    std::string got;
    char buf[64];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        got.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break;
    }
    if (got.find("done") == std::string::npos) {
      std::fprintf(stderr, "bench_kubernetes: ended without stopping its cluster (%s); stopping it\n",
                   p.cluster.c_str());
      ::dup2(null, 2);
      stop_peers(p);
    }
    ::_exit(0);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(mid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("could not start the watcher process");
  g_peers.watcher_fd = fds[1];
}

// The bench's own cleanup, on every way out it sees: the peers stopped, then the watcher told.
void cleanup_peers() {
  const std::string problems = stop_peers(g_peers);
  if (!problems.empty()) std::fprintf(stderr, "bench_kubernetes: cleanup: %s\n", problems.c_str());
  if (g_peers.watcher_fd >= 0) {
    (void)!::write(g_peers.watcher_fd, "done", 4);
    ::close(g_peers.watcher_fd);
    g_peers.watcher_fd = -1;
  }
}

// A port nothing listens on now, for the bench's own S3 server.
int free_port() {
  for (int tries = 0; tries < 20; ++tries) {
    const int port = free_loopback_port();
    // Not one of the cluster's fixed ports (k8s-peer.sh: etcd, the API server, the kubelet…).
    if (port != 6443 && port != 23790 && port != 23800 && (port < 10248 || port > 10259)) return port;
  }
  die("no free loopback port");
}

// The fixture's package: package/index.js, package/lib/a.js, and a symlink out of the package
// (which extraction refuses), as a .tgz in memory.
std::string fixture_tgz() {
  struct Deleter {
    void operator()(archive* a) const { archive_write_free(a); }
  };
  std::unique_ptr<archive, Deleter> a(archive_write_new());
  std::vector<char> buf(64 * 1024);
  std::size_t used = 0;
  auto check = [&](int r, const char* what) {
    if (r != ARCHIVE_OK) die(std::string("writing the package (") + what + "): " + archive_error_string(a.get()));
  };
  check(archive_write_set_format_pax_restricted(a.get()), "format");
  check(archive_write_add_filter_gzip(a.get()), "gzip");
  check(archive_write_open_memory(a.get(), buf.data(), buf.size(), &used), "open");
  auto add = [&](const std::string& name, unsigned type, const std::string& data, const std::string& link = "") {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    if (!link.empty()) archive_entry_set_symlink(e, link.c_str());
    archive_entry_set_mtime(e, 1700000000, 0);
    check(archive_write_header(a.get(), e), "header");
    archive_entry_free(e);
    if (!data.empty() && archive_write_data(a.get(), data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
      die("writing the package: " + std::string(archive_error_string(a.get())));
  };
  add("package/", AE_IFDIR, "");
  add("package/index.js", AE_IFREG, kIndexJs);
  add("package/lib/a.js", AE_IFREG, "a");
  add("package/evil", AE_IFLNK, "", "/etc/passwd");
  check(archive_write_close(a.get()), "close");
  return std::string(buf.data(), used);
}

// --------------------------------------------------------------------------------- the pods

// One bare pod's life: create (the POST), watched to its end, deleted (the DELETE).
struct PodSample {
  double total = 0;      // create → Succeeded → deleted
  double create = 0;     // the POST
  double succeeded = 0;  // create → Succeeded (the POST's start to the event that says so)
  double remove = 0;     // the DELETE
};

// The pod `name` watched from `rv` to its end (as the runtime watches it): its state.
ad::PodState watch_to_end(const ad::KubeApi& api, const std::string& pods, const std::string& name, std::string rv,
                          Clock::time_point until) {
  for (;;) {
    if (Clock::now() >= until) die("the bare pod " + name + " did not end in time");
    std::optional<ad::PodState> done;
    const auto secs = std::chrono::ceil<std::chrono::seconds>(until - Clock::now()).count();
    const std::string path =
        pods + "?watch=true&allowWatchBookmarks=false&fieldSelector=" + ad::kube_escape("metadata.name=" + name) +
        "&resourceVersion=" + ad::kube_escape(rv) + "&timeoutSeconds=" + std::to_string(std::max<long>(1, secs));
    auto w = api.watch(path, until, [&](const std::string& type, const json& obj) {
      if (type == "ERROR") {
        rv.clear();
        return false;
      }
      if (type == "DELETED") die("the bare pod " + name + " was deleted by someone else");
      rv = meta(obj, "resourceVersion");
      ad::PodState s = ad::pod_state(obj);
      if (s.where == ad::PodState::Where::kRunning) return true;
      done = s;
      return false;
    });
    if (done) return *done;
    if (!w) die("watching the bare pod " + name + ": " + w.error());
    if (rv.empty()) {
      auto r = api.call("GET", pods + "/" + ad::kube_escape(name));
      if (!r || r->status != 200) die("reading the bare pod " + name + ": " + (r ? r->message() : r.error()));
      auto obj = json::parse(r->body, nullptr, false);
      ad::PodState s = ad::pod_state(obj);
      if (s.where != ad::PodState::Where::kRunning) return s;
      rv = meta(obj, "resourceVersion");
    }
  }
}

PodSample bare_pod(const ad::KubeApi& api, const std::string& ns, const json& pod) {
  const std::string pods = "/api/v1/namespaces/" + ad::kube_escape(ns) + "/pods";
  PodSample s;
  const auto t0 = Clock::now();
  auto created = api.call("POST", pods, pod.dump());
  const auto t1 = Clock::now();
  if (!created || created->status != 201)
    die("creating the bare pod: " +
        (created ? std::to_string(created->status) + " " + created->message() : created.error()));
  auto obj = json::parse(created->body, nullptr, false);
  const std::string name = meta(obj, "name");
  const std::string rv = meta(obj, "resourceVersion");
  if (name.empty()) die("the API server created a bare pod and named none");
  ad::PodState end = watch_to_end(api, pods, name, rv, t0 + std::chrono::seconds(120));
  const auto t2 = Clock::now();
  auto deleted = api.call("DELETE", pods + "/" + ad::kube_escape(name) + "?gracePeriodSeconds=0",
                          R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})");
  const auto t3 = Clock::now();
  if (!deleted || (deleted->status != 200 && deleted->status != 202))
    die("deleting the bare pod " + name + ": " + (deleted ? deleted->message() : deleted.error()));
  if (end.phase != "Succeeded")
    die("the bare pod " + name + " ended " + end.phase + " (" + end.reason + ", " + end.detail + "), not Succeeded");
  s.create = ms_between(t0, t1);
  s.succeeded = ms_between(t0, t2);
  s.remove = ms_between(t2, t3);
  s.total = ms_between(t0, t3);
  return s;
}

// Waits (untimed) until the node has torn down every pod's network: no address of the pod
// network is held (the CNI's host-local IPAM keeps a file named after each address it handed
// out, removed at the pod sandbox's DEL). False when it took longer than 30 s.
bool settle(const std::string& cluster) {
  const auto until = Clock::now() + std::chrono::seconds(30);
  const fs::path held = fs::path(cluster) / "cni" / "ipam" / "batlehub-storage";
  while (Clock::now() < until) {
    bool any = false;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(held, ec)) {
      in_addr a{};
      any = any || ::inet_pton(AF_INET, e.path().filename().c_str(), &a) == 1;
    }
    if (!any) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// ----------------------------------------------------------------------------- the bench

// `bash SCRIPT args…` in the scripts' environment; its stdout, or a die() naming its stderr.
std::string script(const std::vector<std::string>& argv, const std::string& logs, const std::string& name) {
  ProcResult p = run_process(argv, logs + "/" + name + ".out", logs + "/" + name + ".err", std::nullopt, g_peers.env);
  if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0)
    die(name + " ended with " + describe_status(p.status) + ": " + read_file(logs + "/" + name + ".err"));
  return read_file(logs + "/" + name + ".out");
}

std::vector<double> field(const std::vector<Phases>& v, double Phases::*f) {
  std::vector<double> out;
  for (const auto& p : v) out.push_back(p.*f);
  return out;
}
std::vector<double> field(const std::vector<PodSample>& v, double PodSample::*f) {
  std::vector<double> out;
  for (const auto& p : v) out.push_back(p.*f);
  return out;
}
std::vector<Sample> as_samples(const std::vector<double>& wall) {
  std::vector<Sample> out;
  for (double w : wall) out.push_back(Sample{w, 0});
  return out;
}

void bench(int argc, char** argv) {
  Options opt = parse_args(argc, argv);

  // 1. What the cluster needs, or a skip that says why.
  if (::geteuid() != 0) skip("it runs as root (the cluster's kubelet and containerd do)");
  require_executables({&opt.agent, &opt.hostile, &opt.relay});
  g_peers.env = scripts_env(opt);
  g_peers.s3_peer = opt.s3_peer;
  g_peers.k8s_peer = opt.k8s_peer;
  {
    const std::string tmp = "/tmp/bhb-k8s-missing-" + std::to_string(::getpid());
    ProcResult p = run_process({"/bin/bash", opt.k8s_peer, "missing", "--relay", opt.relay}, tmp + ".out", "/dev/null",
                               std::nullopt, g_peers.env);
    std::string lacking = trim(read_file(tmp + ".out"));
    ::unlink((tmp + ".out").c_str());
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
      std::string list;
      for (char c : lacking) list += c == '\n' ? std::string("; ") : std::string(1, c);
      skip("the cluster lacks: " + list);
    }
  }
  if (::access(opt.helm.c_str(), X_OK) != 0)
    skip("no helm at " + opt.helm + " (scripts/install-kubernetes.sh installs it), or pass --helm");
  if (::access(opt.versitygw.c_str(), X_OK) != 0)
    skip("no versitygw at " + opt.versitygw + " (scripts/install-peers.sh installs it), or pass --versitygw");
  const std::string kubectl = opt.k8s_bin + "/kubectl";
  auto py = find_on_path("python3");
  if (!py) skip("python3 is not on PATH (the scripts need it)");

  bool tmpfs = on_tmpfs(opt.dir, "bench_kubernetes");

  // 2. The directories (the cluster's short: containerd's sockets live under it), the watcher.
  std::string base = opt.dir + "/batlehub-bench";
  fs::create_directories(base);
  remove_stale_runs(base, "k8s-");
  const std::string run = base + "/k8s-" + std::to_string(::getpid());
  fs::remove_all(run);
  const std::string rooms = run + "/rooms", logs = run + "/logs";
  for (const auto& d : {run, rooms, logs}) fs::create_directories(d);
  char cluster_tmpl[] = "/tmp/bhb-k8s.XXXXXX";
  if (!::mkdtemp(cluster_tmpl)) die(std::string("mkdtemp: ") + std::strerror(errno));
  g_peers.run = run;
  g_peers.s3_dir = run + "/s3";
  g_peers.cluster = cluster_tmpl;
  on_failure().cleanup = cleanup_peers;
  start_watcher(g_peers);
  // helm's and the namespace script's temporary files go with the run dir.
  g_peers.env.push_back("TMPDIR=" + run);

  const std::string room = rooms + "/" + kScanner;
  const double room_s = build_room(*py, opt.build_room, opt.agent, opt.hostile, room, logs, g_peers.env);

  // 3. The S3 server, then the cluster on its port.
  const int port = free_port();
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(port);
  if (trim(script({"/bin/bash", opt.s3_peer, "start", g_peers.s3_dir, std::to_string(port)}, logs, "s3-peer")) !=
      endpoint)
    die("scripts/s3-peer.sh start printed no endpoint: " + read_file(logs + "/s3-peer.err"));

  const auto c0 = Clock::now();
  double cluster_wait_s = 0;
  std::string kubeconfig;
  for (bool said = false;;) {
    ProcResult p = run_process(
        {"/bin/bash", opt.k8s_peer, "start", g_peers.cluster, "--s3-port", std::to_string(port), "--relay", opt.relay},
        logs + "/k8s-start.out", logs + "/k8s-start.err", std::nullopt, g_peers.env);
    const std::string err = read_file(logs + "/k8s-start.err");
    if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0) {
      kubeconfig = trim(read_file(logs + "/k8s-start.out"));
      if (kubeconfig.empty() || ::access(kubeconfig.c_str(), R_OK) != 0)
        skip("scripts/k8s-peer.sh started nothing: " + trim(err));
      break;
    }
    const bool busy = err.find("runs (one per machine") != std::string::npos ||
                      err.find("is taken (another cluster?)") != std::string::npos;
    if (!busy) die("scripts/k8s-peer.sh start ended with " + describe_status(p.status) + ":\n" + err);
    cluster_wait_s = std::chrono::duration<double>(Clock::now() - c0).count();
    if (cluster_wait_s >= opt.wait_cluster) {
      skip("another test cluster ran for the " + std::to_string(opt.wait_cluster) +
           " s the bench waited (one per machine): " + trim(err));
    }
    if (!said) {
      std::fprintf(stderr, "bench_kubernetes: another cluster runs; waiting up to %d s for it: %s\n", opt.wait_cluster,
                   trim(err).c_str());
      said = true;
    }
    std::this_thread::sleep_for(
        std::chrono::seconds(std::clamp(opt.wait_cluster - static_cast<int>(cluster_wait_s), 1, 15)));
  }
  const double cluster_s = std::chrono::duration<double>(Clock::now() - c0).count() - cluster_wait_s;
  std::string ready_line;
  {
    const std::string err = read_file(logs + "/k8s-start.err");
    if (auto at = err.find("node batlehub-node Ready"); at != std::string::npos)
      ready_line = err.substr(at, err.find('\n', at) - at);
  }
  std::string version = trim(script({opt.k8s_bin + "/kube-apiserver", "--version"}, logs, "version"));

  // 4. The sandbox namespace as the chart makes it, a worker's token; the image.
  const std::string release = "bh-bench-" + std::to_string(::getpid());
  const std::string worker_kubeconfig = run + "/worker.kubeconfig";
  auto t = Clock::now();
  const std::string sbx = trim(script({*py, opt.ns_script, "up", opt.chart, opt.helm, kubectl, kubeconfig, release,
                                       std::to_string(port), worker_kubeconfig},
                                      logs, "namespace"));
  const double ns_s = std::chrono::duration<double>(Clock::now() - t).count();
  const std::string image = "localhost/batlehub-bench-k8s:" + std::to_string(::getpid());
  t = Clock::now();
  script({*py, opt.build_image, "--room", room, "--engine", "containerd", "--containerd-address",
          g_peers.cluster + "/containerd/containerd.sock", "--tag", image},
         logs, "build-image");
  const double import_s = std::chrono::duration<double>(Clock::now() - t).count();

  // 5. The API with the worker's credentials, the runtime, the bare pod.
  auto creds = ad::load_kubeconfig(worker_kubeconfig);
  if (!creds) die("the worker's kubeconfig: " + creds.error());
  auto api = std::make_shared<ad::KubeApi>(std::move(*creds));
  std::vector<Event> events;
  // The pods reach storage at the cluster's storage door (scripts/k8s-peer.sh); the URLs are
  // signed for it, and the bench's own requests go the same way.
  const std::string door = trim(read_file(g_peers.cluster + "/storage-door"));
  if (door.empty()) die("scripts/k8s-peer.sh wrote no storage door (" + g_peers.cluster + "/storage-door)");
  auto leaf = std::make_shared<StampingBackend>(s3_backend(port, kBucket, door), &events);
  auto router =
      std::make_shared<ad::StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{leaf}, leaf->name());
  const std::string worker = ad::this_worker_label();
  ad::KubernetesOptions ko;
  ko.api = api;
  ko.namespace_ = sbx;
  ko.default_image = image;
  ko.start_timeout = std::chrono::seconds(90);
  ko.probe_canaries = {};
  ko.bundles =
      std::make_shared<ad::BundleStore>(leaf, router, ad::BundleOptions{kPrefix, std::chrono::seconds(60), worker});
  ad::KubernetesRuntime k8s(ko);
  // The strongest configuration (issue 29): the same run in the cluster's RuntimeClass gvisor
  // (gVisor's shim and Debian's runsc, scripts/k8s-peer.sh), when the cluster has it: its
  // first run tells, and a failure then says why it is not measured.
  ad::KubernetesOptions kg = ko;
  kg.runtime_class = "gvisor";
  ad::KubernetesRuntime k8s_gvisor(kg);
  std::string gvisor_skipped;

  core::RunSpec spec;
  spec.label.scanner = kScanner;
  spec.label.job = "bench-k8s-" + std::to_string(::getpid());
  spec.timeout = std::chrono::seconds(20);
  const std::string tgz = fixture_tgz();
  spec.bundle.entries = {core::BundleEntry::archive(*batlehub::wire::RelPath::parse("node_modules/x"),
                                                    ad::memory_blob(tgz, "x.tgz"), true),
                         core::BundleEntry::inline_file(*batlehub::wire::RelPath::parse("package-lock.json"), "{}")};
  spec.argv = {kScanner, "cat", kCatPath};

  // The anchor's pod: the runtime's own (restricted Pod Security, its service account,
  // limits, volumes, labels), with `hostile exit 0 ok` in place of the agent.
  ad::PodManifestInput in;
  in.namespace_ = sbx;
  in.scanner = "anchor";
  in.worker = worker;
  in.job = spec.label.job;
  in.active_deadline_secs = 120;
  in.image = image;
  json anchor_pod = ad::pod_manifest(in);
  anchor_pod["spec"]["containers"][0]["command"] = json::array({kInRoom, "exit", "0", kExpect});

  const core::ProbeTarget target{kScanner, std::nullopt, {kInRoom}, core::Limits{}};

  std::vector<PodSample> anchors;
  std::vector<double> runs_ms, probes_ms, gvisor_runs_ms;
  std::vector<Phases> run_phases, probe_phases;
  std::vector<batlehub::wire::Timings> agent;
  int unsettled = 0;
  const std::string load_before = load_now(), pressure_before = cpu_pressure();
  for (int i = -opt.warmup; i < opt.reps; ++i) {
    unsettled += !settle(g_peers.cluster);
    PodSample a = bare_pod(*api, sbx, anchor_pod);

    unsettled += !settle(g_peers.cluster);
    events.clear();
    auto r0 = Clock::now();
    auto r = k8s.run(spec);
    auto r1 = Clock::now();
    expect_run_ok("KubernetesRuntime::run()", r, kIndexJs);
    if (r->report.extract.refused_by_type != 1)
      die("the run's extraction refused " + std::to_string(r->report.extract.refused_by_type) +
          " entries by type, not 1 (the symlink)");
    Phases rp = phases_of(events, r0, r1);

    unsettled += !settle(g_peers.cluster);
    events.clear();
    auto p0 = Clock::now();
    auto pr = k8s.probe(target);
    auto p1 = Clock::now();
    if (!pr) die("KubernetesRuntime::probe(): " + pr.error().message);
    if (!pr->passed()) die("the probe did not pass: " + pr->first_failure().value_or(""));
    Phases pp = phases_of(events, p0, p1);

    double gvisor_ms = -1;
    if (gvisor_skipped.empty()) {
      unsettled += !settle(g_peers.cluster);
      auto g0 = Clock::now();
      auto g = k8s_gvisor.run(spec);
      auto g1 = Clock::now();
      if (!g) {
        gvisor_skipped = "a run in the RuntimeClass gvisor failed: " + g.error().message;
      } else {
        expect_run_ok("KubernetesRuntime::run() under gVisor", g, kIndexJs);
        gvisor_ms = ms_between(g0, g1);
      }
    }

    if (i < 0) continue;  // warm-up: the image's first snapshot, the API server's caches
    anchors.push_back(a);
    runs_ms.push_back(ms_between(r0, r1));
    run_phases.push_back(rp);
    agent.push_back(r->report.timings);
    probes_ms.push_back(ms_between(p0, p1));
    probe_phases.push_back(pp);
    if (gvisor_ms >= 0) gvisor_runs_ms.push_back(gvisor_ms);
  }
  const std::string load_after = load_now(), pressure_after = cpu_pressure();
  k8s.close_job(spec.label.job);
  auto left = leaf->list(kPrefix);
  if (!left) die("listing " + std::string(kPrefix) + ": " + left.error().message);
  if (!left->empty()) die("a bundle key outlived its run: " + left->front().key);
  const std::uint64_t room_bytes = tree_bytes(room);

  // 6. Everything stopped before the table (the watcher told).
  on_failure().cleanup = nullptr;
  cleanup_peers();

  Stats sa = stats(as_samples(field(anchors, &PodSample::total)));
  Stats ss = stats(as_samples(field(anchors, &PodSample::succeeded)));
  Stats sr = stats(as_samples(runs_ms));
  Stats sp = stats(as_samples(probes_ms));

  std::printf("bench_kubernetes: one run on the kubernetes runtime vs a bare pod of the same image, same API\n\n");
  std::fputs(machine_line(opt.dir, tmpfs).c_str(), stdout);
  std::printf("           running as root\n");
  std::printf("  cluster  %s (kube-apiserver --version: %s)\n", opt.k8s_bin.c_str(), version.c_str());
  std::printf(
      "           scripts/k8s-peer.sh in %s (start %.1f s; %s)%s\n", g_peers.cluster.c_str(), cluster_s,
      ready_line.empty() ? "node Ready" : ready_line.c_str(),
      cluster_wait_s > 0
          ? (", after waiting " + std::to_string(static_cast<int>(cluster_wait_s)) + " s for another cluster").c_str()
          : "");
  std::printf("  ns       %s, made by the chart (k8s_sandbox_namespace.py, %.1f s): restricted Pod Security,\n",
              sbx.c_str(), ns_s);
  std::printf("           the chart's Role, quota and sandbox service account; the worker's token on every request\n");
  std::printf("  room     the agent + hostile, %.1f MiB (build-room.py %.1f s), imported into the cluster's\n",
              static_cast<double>(room_bytes) / (1024 * 1024), room_s);
  std::printf("           containerd as %s (build-image.py %.1f s)\n", image.c_str(), import_s);
  std::printf("  storage  versitygw on %s; the pods reach it at %s:%d (the cluster's storage door)\n", endpoint.c_str(),
              door.c_str(), port);
  std::printf("  anchor   a bare pod: pod_manifest()'s pod with `hostile exit 0 ok` as its command, created,\n");
  std::printf("           watched to Succeeded, deleted with grace 0, through the same KubeApi\n");
  std::printf("  run      KubernetesRuntime::run() of `hostile cat %s` over a %zu-byte .tgz\n", kCatPath, tgz.size());
  std::printf("           (index.js, lib/a.js, a symlink out that the agent refuses) and a lockfile\n");
  std::printf("  probe    KubernetesRuntime::probe() of the room (it must pass)\n");
  std::printf("  runs     %d of each, alternating anchor, run, probe, after %d untimed warm-up round%s; each\n",
              opt.reps, opt.warmup, opt.warmup == 1 ? "" : "s");
  std::printf("           once the node tore the previous pod's network down (untimed%s)\n",
              unsettled ? (", " + std::to_string(unsettled) + " waits gave up after 30 s").c_str() : "");
  std::printf("  load     %s before, %s after; CPU pressure %s before, %s after\n\n", load_before.c_str(),
              load_after.c_str(), pressure_before.c_str(), pressure_after.c_str());

  const char* head = "  %-52s %9s    %9s    %9s\n";
  const char* row = "  %-52s %9.0f ms %9.0f ms %9.0f ms\n";
  const char* ratio = "  %-52s %9.2fx   %9.2fx   %9.2fx\n";
  std::printf(head, "wall clock", "median", "p90", "min");
  std::printf(row, "bare pod: create -> Succeeded -> deleted (anchor)", sa.med, sa.p90, sa.min);
  std::printf(row, "  of which create -> Succeeded", ss.med, ss.p90, ss.min);
  std::printf(row, "kubernetes runtime: run(), call to return", sr.med, sr.p90, sr.min);
  std::printf(ratio, "ratio run / bare pod", sr.med / sa.med, sr.p90 / sa.p90, sr.min / sa.min);
  std::printf(row, "kubernetes runtime: probe(), call to return", sp.med, sp.p90, sp.min);
  std::printf(ratio, "ratio probe / bare pod", sp.med / sa.med, sp.p90 / sa.p90, sp.min / sa.min);
  if (gvisor_skipped.empty() && !gvisor_runs_ms.empty()) {
    Stats sg = stats(as_samples(gvisor_runs_ms));
    std::printf("\n  the strongest configuration, in the same alternation (no aim: the cost to weigh)\n");
    std::printf(row, "run() in the RuntimeClass gvisor (runsc)", sg.med, sg.p90, sg.min);
    std::printf(ratio, "ratio gVisor / runc (run())", sg.med / sr.med, sg.p90 / sr.p90, sg.min / sr.min);
  } else {
    std::printf("\n  gVisor: not measured: %s\n", gvisor_skipped.empty() ? "no round ran" : gvisor_skipped.c_str());
  }

  auto med = [](const std::vector<double>& v) { return median(v); };
  std::printf("\n  where the time goes (medians of each step; from the S3 requests' timestamps)\n");
  std::printf("  %-52s %9s    %9s\n", "", "run()", "probe()");
  const char* prow = "  %-52s %9.1f ms %9.1f ms\n";
  std::printf(prow, "staging: manifest (+ the bundle's upload), 2-3 URLs", med(field(run_phases, &Phases::stage)),
              med(field(probe_phases, &Phases::stage)));
  std::printf(prow, "the pod: create, watch to its end, delete", med(field(run_phases, &Phases::pod)),
              med(field(probe_phases, &Phases::pod)));
  std::printf(prow, "out.tar read back (HEAD + GET)", med(field(run_phases, &Phases::read)),
              med(field(probe_phases, &Phases::read)));
  std::printf(prow, "out.tar collected into the result", med(field(run_phases, &Phases::collect)),
              med(field(probe_phases, &Phases::collect)));
  std::printf(prow, "the run's keys listed and deleted", med(field(run_phases, &Phases::finish)),
              med(field(probe_phases, &Phases::finish)));
  std::printf("  %-52s %9.0f    %9.0f\n", "S3 requests per call", med(field(run_phases, &Phases::requests)),
              med(field(probe_phases, &Phases::requests)));
  std::vector<double> fetch, extract, runms;
  for (const auto& a : agent) {
    fetch.push_back(static_cast<double>(a.fetch_ms));
    extract.push_back(static_cast<double>(a.extract_ms));
    runms.push_back(static_cast<double>(a.run_ms));
  }
  std::printf("  %-52s fetch %.0f, extract %.0f, run %.0f ms\n", "  inside the run's pod, the agent's timings_ms",
              med(fetch), med(extract), med(runms));
  std::printf("  the bare pod, for comparison: POST %.1f ms, POST -> Succeeded %.0f ms, DELETE %.1f ms\n",
              med(field(anchors, &PodSample::create)), med(field(anchors, &PodSample::succeeded)),
              med(field(anchors, &PodSample::remove)));

  std::printf(
      "\n  every run exited 0 and printed %s's bytes (by its RunOutput; the symlink refused);\n"
      "  every bare pod ended Succeeded; every probe passed; no bundle key was left. The cluster\n"
      "  and the S3 server were stopped before this table.\n\n",
      kCatPath);
  const double rr = sr.med / sa.med;
  std::printf("  aim: ratio run / bare pod <= 1.2     %.2f  %s\n", rr, rr <= 1.2 ? "PASS" : "MISS");
}

}  // namespace

int main(int argc, char** argv) {
  return batlehub::bench::bench_main("bench_kubernetes", bench, argc, argv);
}
