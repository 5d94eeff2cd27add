// bench_storage: what the oci runtime's storage transport costs (the bundle and the result
// through presigned URLs on an S3 server) beside its mount transport (the bundle written
// into a run dir bound into the container), the same run of the same image on each, on
// podman and on docker.
//
//   bench_storage [--agent PATH] [--hostile PATH] [--relay PATH] [--versitygw PATH] [--dir DIR]
//                 [--engine podman|docker]... [--docker-host unix://PATH] [--podman PATH]
//                 [--docker PATH] [--files N] [--file-kib N] [--reps N] [--warmup N]
//
// One run:
//   1. builds one room (scripts/build-room.py: the agent and the static `hostile` test
//      scanner) in a fresh dir under DIR (default $BATLEHUB_BENCH_DIR, else /dev/shm),
//      imports it as an image into each engine asked (scripts/build-image.py), writes a
//      package-like .tgz of --files files (package/index.js and package/lib/*.js, about
//      --file-kib KiB each, compressible as source is) and hashes it;
//   2. starts its own S3 server (versitygw, scripts/s3-peer.sh, on a free loopback port) with
//      a second, empty bucket, and per engine the storage network the tests use
//      (tests/adapters/oci_storage_test.cc): a holder container with `--network none` (on
//      podman its own `--userns auto:size=65536`) and tests/helpers/netns-relay relaying the
//      server's port from the holder's loopback to the host's;
//   3. per engine, times, alternating, after --warmup untimed rounds, --reps of each of:
//        mount (the anchor): OciRuntime::run() with the mount transport;
//        storage, uncached: OciRuntime::run() with transport "storage", a new job each round,
//          the artifact in no cache (the store's router looks in the empty bucket): the job's
//          first scanner, which uploads the artifact;
//        storage, cached: the same, the artifact stored once through the router
//          (store_blob) before the rounds: presigned where it lies, nothing uploaded;
//      the run is `hostile cat node_modules/x/index.js` over one archive entry, the .tgz as a
//      file blob with its sha256 (adapters::file_blob(path, sha)), stripped of its package/;
//   4. checks every run (status 0, stdout the file's bytes; on storage, the artifact
//      uploaded on each uncached run and on no cached one, out.tar read back; after the
//      rounds, no key left under the bundle prefix) and prints the table: per case the wall
//      clock, the ratio to mount, and the bytes each side moved.
//
// Bytes are counted where they move: the store's backend is wrapped in a counting decorator
// (every put/put_blob/get/head/remove/list the worker makes, with their bytes and time);
// the agent's download is what its manifest names (the manifest and the artifact, one GET
// each) and its upload is out.tar, which the worker then GETs whole. For mount, the bytes
// the runtime writes into the run dir (adapters::write_bundle of the same spec, measured
// once apart).
//
// Nothing leaves the machine: the S3 server listens on 127.0.0.1, the images are imported
// from a local tar, runs never pull (--pull never), the containers have --network none or
// the holder's (which has a loopback only), and a docker host must be a unix socket.
#include <archive.h>
#include <archive_entry.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/oci.h"
#include "adapters/sandbox/run_dir.h"
#include "adapters/storage/bundle.h"
#include "adapters/storage/router.h"
#include "adapters/storage/s3_backend.h"
#include "bench_engines.h"
#include "bench_s3.h"
#include "bench_support.h"

namespace {

namespace fs = std::filesystem;
namespace ad = batlehub::adapters;
namespace core = batlehub::core;
using namespace batlehub::bench;
using batlehub::Expected;
using batlehub::Ok;

// The bench's own second bucket, beside scripts/s3-peer.sh's (bench_s3.h).
constexpr const char* kEmptyBucket = "batlehub-bench-empty";
constexpr const char* kPrefix = "sandbox/";
constexpr const char* kInBundle = "node_modules/x";
constexpr const char* kCatPath = "node_modules/x/index.js";

#ifdef BATLEHUB_RELAY_BIN
constexpr const char* kRelayBin = BATLEHUB_RELAY_BIN;
#else
constexpr const char* kRelayBin = "";
#endif

struct Options : OciBenchOptions {
  Options() : OciBenchOptions(kAgentBin, kHostileBin) {}
  std::string relay = kRelayBin;
  std::string versitygw = "/opt/batlehub/peers/versitygw-1.8.0/versitygw";
  std::string s3_peer = source_script("s3-peer.sh");
  int files = 200;
  int file_kib = 4;
};

constexpr const char* kUsage =
    "usage: bench_storage [--agent PATH] [--hostile PATH] [--relay PATH] [--versitygw PATH] [--dir DIR]\n"
    "                     [--engine podman|docker]... [--docker-host unix://PATH] [--podman PATH]\n"
    "                     [--docker PATH] [--files N] [--file-kib N] [--reps N] [--warmup N]\n"
    "  engines: --engine, repeatable; by default podman, and docker too when --docker-host is given\n";

Options parse_args(int argc, char** argv) {
  Options o;
  Args args(argc, argv, kUsage);
  while (args.next()) {
    if (oci_bench_flag(args, o) || args.value_into({{"--relay", &o.relay}, {"--versitygw", &o.versitygw}})) continue;
    const std::string& a = args.flag();
    if (a == "--files")
      o.files = static_cast<int>(args.number(1, 10000));
    else if (a == "--file-kib")
      o.file_kib = static_cast<int>(args.number(1, 1024));
    else
      args.unknown();
  }
  settle_oci_bench_options(args, o);
  if (o.relay.empty()) args.fail("--relay PATH is required (tests/helpers/netns-relay)");
  require_executables({&o.agent, &o.hostile, &o.relay});
  if (::access(o.versitygw.c_str(), X_OK) != 0)
    die("no versitygw at " + o.versitygw + " (scripts/install-peers.sh installs it), or pass --versitygw");
  for (const auto* p : {&o.build_room, &o.build_image, &o.s3_peer}) {
    if (p->empty() || ::access(p->c_str(), R_OK) != 0)
      die("scripts/build-room.py, build-image.py or s3-peer.sh not found");
  }
  return o;
}

// What the worker's side of the storage transport did, as the counting decorator saw it.
struct Counts {
  std::uint64_t requests = 0;   // put, put_blob, get, head, remove, list: each one HTTP request
  std::uint64_t presigned = 0;  // URLs signed (no request)
  std::uint64_t up = 0;         // bytes the worker PUT: manifests, uploaded artifacts
  std::uint64_t down = 0;       // bytes the worker GOT: out.tar
  std::uint64_t manifest = 0;   // of `up`, the manifests'
  std::uint64_t artifact = 0;   // of `up`, the artifacts' (put_blob)
  std::uint64_t out_tar = 0;    // of `down`, out.tar's
  double ms = 0;                // wall clock inside those requests
};

Counts operator-(const Counts& a, const Counts& b) {
  return Counts{a.requests - b.requests, a.presigned - b.presigned, a.up - b.up,           a.down - b.down,
                a.manifest - b.manifest, a.artifact - b.artifact,   a.out_tar - b.out_tar, a.ms - b.ms};
}

// A StorageBackend that forwards to another and counts what went through it. The bench's
// runs are one at a time, and the runtime stages and collects on the calling thread.
class CountingBackend final : public core::StorageBackend {
 public:
  CountingBackend(std::shared_ptr<core::StorageBackend> inner, Counts* counts) : inner_(std::move(inner)), c_(counts) {}

  const std::string& name() const override { return inner_->name(); }
  std::string_view type() const override { return inner_->type(); }

  Expected<Ok, core::StorageError> put(const std::string& key, std::string_view bytes) override {
    auto r = timed([&] { return inner_->put(key, bytes); });
    if (r) {
      c_->up += bytes.size();
      if (key.ends_with("/manifest.json")) c_->manifest += bytes.size();
    }
    return r;
  }
  Expected<Ok, core::StorageError> put_blob(const std::string& key, const core::Blob& blob) override {
    auto r = timed([&] { return inner_->put_blob(key, blob); });
    if (r) {
      c_->up += blob.size();
      c_->artifact += blob.size();
    }
    return r;
  }
  Expected<std::string, core::StorageError> get(const std::string& key, std::uint64_t max_bytes) override {
    auto r = timed([&] { return inner_->get(key, max_bytes); });
    if (r) {
      c_->down += r->size();
      if (key.ends_with("/out.tar")) c_->out_tar += r->size();
    }
    return r;
  }
  Expected<core::ObjectInfo, core::StorageError> head(const std::string& key) override {
    return timed([&] { return inner_->head(key); });
  }
  Expected<Ok, core::StorageError> remove(const std::string& key) override {
    return timed([&] { return inner_->remove(key); });
  }
  Expected<std::vector<core::ObjectInfo>, core::StorageError> list(const std::string& prefix) override {
    return timed([&] { return inner_->list(prefix); });
  }
  Expected<std::string, core::StorageError> presign_get(const std::string& key,
                                                        std::chrono::seconds ttl) const override {
    ++c_->presigned;
    return inner_->presign_get(key, ttl);
  }
  Expected<std::string, core::StorageError> presign_put(const std::string& key, std::chrono::seconds ttl,
                                                        std::uint64_t max_bytes) const override {
    ++c_->presigned;
    return inner_->presign_put(key, ttl, max_bytes);
  }

 private:
  template <class F>
  std::invoke_result_t<F> timed(F f) {
    auto t = Clock::now();
    auto r = f();
    c_->ms += std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    ++c_->requests;
    return r;
  }

  std::shared_ptr<core::StorageBackend> inner_;
  Counts* c_;
};

// The storage network of one engine: the holder container and the relay into its loopback.
struct Network {
  std::string holder;
  pid_t relay = -1;
};

// One engine's setup and samples.
struct Engine : EngineBase {
  Network net;
  std::vector<RunSample> mount, uncached, cached;
  std::vector<Counts> uncached_io, cached_io;
};

std::vector<Engine>* g_engines = nullptr;
std::string g_s3_dir;
std::string g_s3_peer;

void stop_relay(Network& n) {
  if (n.relay <= 0) return;
  ::kill(n.relay, SIGKILL);
  ::waitpid(n.relay, nullptr, 0);
  n.relay = -1;
}

void remove_holder(Engine& e, const std::string& logs) {
  if (e.net.holder.empty()) return;
  // Its pid 1 (hostile hang) ignores the SIGTERM `rm -f` would wait 10 s on.
  run_process({e.binary, "kill", e.net.holder}, logs + "/holder-kill.out", logs + "/holder-kill.err", std::nullopt,
              e.env);
  run_process({e.binary, "rm", "-f", e.net.holder}, logs + "/holder-rm.out", logs + "/holder-rm.err", std::nullopt,
              e.env);
  e.net.holder.clear();
}

void stop_s3() {
  if (g_s3_dir.empty()) return;
  run_process({"/bin/bash", g_s3_peer, "stop", g_s3_dir}, "/dev/null", "/dev/null");
  g_s3_dir.clear();
}

// Undoes everything, in the order nothing waits on: the relays (our children) first.
void cleanup_all(const std::string& logs) {
  if (g_engines) {
    for (auto& e : *g_engines) stop_relay(e.net);
    for (auto& e : *g_engines) {
      remove_holder(e, logs);
      if (e.imported) {
        e.imported = false;
        run_process({e.binary, "rmi", "-f", e.image}, "/dev/null", "/dev/null", std::nullopt, e.env);
      }
    }
  }
  stop_s3();
}

// The relay into `netns`, started by fork+exec; its pid once it printed "ready".
pid_t start_relay(const std::string& relay, const std::string& netns, int port, const std::string& err_path) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) die(std::string("pipe: ") + std::strerror(errno));
  const std::string p = std::to_string(port);
  int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const pid_t pid = ::fork();
  if (pid < 0) die(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(out[1], 1);
    if (err >= 0) ::dup2(err, 2);
    ::execl(relay.c_str(), relay.c_str(), netns.c_str(), p.c_str(), p.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(out[1]);
  if (err >= 0) ::close(err);
  char buf[16] = {};
  ssize_t n;
  do n = ::read(out[0], buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  ::close(out[0]);
  if (n <= 0 || !std::string(buf).starts_with("ready")) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    die("netns-relay did not start: " + read_file(err_path));
  }
  return pid;
}

// The package: package/index.js and package/lib/fNNNN.js, source-like text (identifiers,
// numbers and strings from a fixed-seed generator: it compresses about as source does).
// Returns index.js's bytes, which the runs print.
std::string write_package(const std::string& path, int files, int file_kib) {
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  const char* words[] = {"const",  "return", "function", "require", "module", "exports", "this", "value",
                         "length", "push",   "index",    "buffer",  "stream", "options", "cb",   "err"};
  auto source = [&](std::size_t bytes) {
    std::string out;
    while (out.size() < bytes) {
      out += "  ";
      out += words[next() % 16];
      out += " v";
      for (int i = 0; i < 5; ++i) out += static_cast<char>('a' + next() % 26);
      out += " = \"";
      for (int i = 0; i < 8; ++i) out += static_cast<char>('a' + next() % 26);
      out += "\" + " + std::to_string(next() % 100000) + ";\n";
    }
    out.resize(bytes);
    return out;
  };
  struct Deleter {
    void operator()(archive* a) const { archive_write_free(a); }
  };
  std::unique_ptr<archive, Deleter> a(archive_write_new());
  auto check = [&](int r, const char* what) {
    if (r != ARCHIVE_OK) die(std::string("writing the package (") + what + "): " + archive_error_string(a.get()));
  };
  check(archive_write_set_format_pax_restricted(a.get()), "format");
  check(archive_write_add_filter_gzip(a.get()), "gzip");
  check(archive_write_open_filename(a.get(), path.c_str()), "open");
  auto add = [&](const std::string& name, const std::string& data) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    archive_entry_set_mtime(e, 1700000000, 0);
    check(archive_write_header(a.get(), e), "header");
    archive_entry_free(e);
    if (archive_write_data(a.get(), data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
      die("writing the package: " + std::string(archive_error_string(a.get())));
  };
  const std::string index = "module.exports = require('./lib/f0000.js');\n" + source(1024);
  add("package/package.json", "{\"name\": \"x\", \"version\": \"1.0.0\", \"main\": \"index.js\"}\n");
  add("package/index.js", index);
  for (int i = 0; i < files - 1; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "package/lib/f%04d.js", i);
    add(name, source(static_cast<std::size_t>(file_kib) * 1024));
  }
  check(archive_write_close(a.get()), "close");
  return index;
}

std::string sha256_of(const std::string& path, const std::string& logs) {
  auto sum = find_on_path("sha256sum");
  if (!sum) die("sha256sum is not on PATH");
  ProcResult p = run_process({*sum, path}, logs + "/sha256.out", logs + "/sha256.err");
  std::string out = read_file(logs + "/sha256.out");
  if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0 || out.size() < 64) die("sha256sum " + path + " failed");
  return out.substr(0, 64);
}

double mib(std::uint64_t b) {
  return static_cast<double>(b) / (1024 * 1024);
}
double kib(std::uint64_t b) {
  return static_cast<double>(b) / 1024;
}

std::uint64_t median_u(const std::vector<Counts>& v, std::uint64_t Counts::*f) {
  std::vector<double> x;
  for (const auto& c : v) x.push_back(static_cast<double>(c.*f));
  return static_cast<std::uint64_t>(median(x));
}
double median_ms(const std::vector<Counts>& v) {
  std::vector<double> x;
  for (const auto& c : v) x.push_back(c.ms);
  return median(x);
}

void bench(int argc, char** argv) {
  Options opt = parse_args(argc, argv);
  // As bench_oci: docker's bundle dirs are mounts, podman's --userns auto is root's, and the
  // relay enters the holder's network namespace (CAP_SYS_ADMIN).
  if (::geteuid() != 0)
    die("run as root: docker's bundle dir is a mount, podman's --userns auto is root's, the relay needs setns");
  g_s3_peer = opt.s3_peer;

  bool tmpfs = on_tmpfs(opt.dir, "bench_storage");

  std::vector<Engine> engines =
      engines_of<Engine>(opt, "localhost/batlehub-bench-storage:" + std::to_string(::getpid()));

  // 1. The directories, the room, the images and the package.
  std::string run = fresh_run_dir(opt.dir, "storage-");
  std::string rooms = run + "/rooms", scratch = run + "/scratch", logs = run + "/logs", s3_dir = run + "/s3";
  for (const auto& d : {run, rooms, scratch, logs}) fs::create_directories(d);
  g_engines = &engines;
  on_failure().cleanup = [run, logs] {
    cleanup_all(logs);
    std::error_code ec;
    fs::remove_all(run, ec);
  };

  std::string room = rooms + "/" + kScanner;
  double room_s = build_room_and_images(opt, room, logs, engines);

  const std::string tgz = run + "/x-1.0.0.tgz";
  const std::string expect = write_package(tgz, opt.files, opt.file_kib);
  const std::uint64_t tgz_bytes = fs::file_size(tgz);
  const std::string sha = sha256_of(tgz, logs);
  auto blob = ad::file_blob(tgz, sha);
  if (!blob) die("file_blob(" + tgz + "): " + blob.error());
  std::uint64_t unpacked = 0;
  {
    // What the archive holds, for the table: the agent extracts this much on every run.
    std::unique_ptr<archive, decltype(&archive_read_free)> r(archive_read_new(), archive_read_free);
    archive_read_support_filter_gzip(r.get());
    archive_read_support_format_tar(r.get());
    if (archive_read_open_filename(r.get(), tgz.c_str(), 65536) != ARCHIVE_OK) die("reading back " + tgz);
    archive_entry* en = nullptr;
    while (archive_read_next_header(r.get(), &en) == ARCHIVE_OK) unpacked += archive_entry_size(en);
  }

  // 2. The S3 server, its second (empty) bucket, and the backends.
  const int port = free_loopback_port();
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(port);
  {
    g_s3_dir = s3_dir;
    std::vector<std::string> env = default_env();
    env.push_back("VERSITYGW=" + opt.versitygw);
    ProcResult p = run_process({"/bin/bash", opt.s3_peer, "start", s3_dir, std::to_string(port)}, logs + "/s3-peer.out",
                               logs + "/s3-peer.err", std::nullopt, env);
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0 || trim(read_file(logs + "/s3-peer.out")) != endpoint)
      die("scripts/s3-peer.sh start: " + read_file(logs + "/s3-peer.err"));
    auto curl = find_on_path("curl");
    if (!curl) die("curl is not on PATH (scripts/s3-peer.sh needs it too)");
    // As s3-peer.sh makes its bucket: a signed PUT (the empty body's sha256).
    p = run_process(
        {*curl, "-sS", "-f", "-o", "/dev/null", "-X", "PUT", "-H",
         "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "--aws-sigv4",
         "aws:amz:us-east-1:s3", "--user", std::string(kAccessKey) + ":" + kSecretKey, endpoint + "/" + kEmptyBucket},
        logs + "/bucket.out", logs + "/bucket.err");
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0)
      die(std::string("creating the bucket ") + kEmptyBucket + ": " + read_file(logs + "/bucket.err"));
  }
  Counts counts;
  auto leaf = std::make_shared<CountingBackend>(s3_backend(port, kBucket), &counts);
  auto empty = std::make_shared<CountingBackend>(s3_backend(port, kEmptyBucket), &counts);
  // The cached case's router holds the artifact; the uncached case's looks for it (one HEAD)
  // in a bucket that never holds it, as a worker's router does for an artifact not cached.
  auto cache =
      std::make_shared<ad::StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{leaf}, leaf->name());
  auto no_cache =
      std::make_shared<ad::StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{empty}, empty->name());
  if (auto s = cache->store_blob(**blob, sha); !s) die("store_blob: " + s.error().message);

  // 3. What is measured.
  core::RunSpec spec;
  spec.label.scanner = kScanner;
  spec.timeout = std::chrono::seconds(20);
  spec.bundle.entries = {core::BundleEntry::archive(*batlehub::wire::RelPath::parse(kInBundle), *blob, true)};
  spec.argv = {kScanner, "cat", kCatPath};
  const auto start_timeout = std::chrono::seconds(60);

  // What the mount transport writes into a run dir for this spec, measured once apart.
  std::uint64_t mount_bytes = 0;
  {
    auto d = ad::TempDir::create_owned(scratch, "measure", kScanner);
    if (!d) die(d.error());
    if (auto m = ad::write_bundle(spec, ad::RunDirView{d->path(), "/bundle"}); !m)
      die("write_bundle: " + m.error().message);
    mount_bytes = tree_bytes(d->path());
  }

  const std::string job_prefix = "bench-" + std::to_string(::getpid());
  unsigned serial = 0;
  for (auto& e : engines) {
    // The storage network: the holder, then the relay in its namespace.
    e.net.holder = "batlehub-bench-holder-" + std::to_string(::getpid()) + "-" + e.name;
    std::vector<std::string> hold = {e.binary, "run", "-d", "--name", e.net.holder, "--network", "none"};
    if (e.kind == ad::OciEngineKind::kPodman) hold.insert(hold.end(), {"--userns", "auto:size=65536"});
    hold.insert(hold.end(), {"--pull", "never", e.image, kScanner, "hang"});
    ProcResult h = run_process(hold, logs + "/holder.out", logs + "/holder.err", std::nullopt, e.env);
    if (!WIFEXITED(h.status) || WEXITSTATUS(h.status) != 0)
      die("the " + e.name + " holder did not start: " + read_file(logs + "/holder.err"));
    run_process({e.binary, "inspect", "-f", "{{.State.Pid}}", e.net.holder}, logs + "/holder-pid.out",
                logs + "/holder-pid.err", std::nullopt, e.env);
    const std::string hpid = trim(read_file(logs + "/holder-pid.out"));
    if (hpid.empty() || hpid == "0")
      die("the " + e.name + " holder has no pid: " + read_file(logs + "/holder-pid.err"));
    // From here until stop_relay, the relay is this process's child: no run_process (which
    // reaps every child) until then.
    e.net.relay = start_relay(opt.relay, "/proc/" + hpid + "/ns/net", port, logs + "/relay.err");

    ad::OciOptions oo = oci_options(e, scratch, start_timeout);
    ad::OciRuntime mount(oo);
    const ad::BundleOptions bo{kPrefix, std::chrono::seconds(60), mount.worker_label()};
    ad::OciOptions so = oo;
    so.storage_network = "container:" + e.net.holder;
    so.bundles = std::make_shared<ad::BundleStore>(leaf, no_cache, bo);
    ad::OciRuntime uncached(so);
    so.bundles = std::make_shared<ad::BundleStore>(leaf, cache, bo);
    ad::OciRuntime cached(so);

    const std::string cached_job = job_prefix + "-" + e.name + "-cached";
    auto storage_once = [&](ad::OciRuntime& rt, const std::string& job, bool upload) {
      core::RunSpec s = spec;
      s.label.job = job;
      const Counts before = counts;
      RunSample r =
          timed_run("the storage transport on " + e.name + (upload ? ", uncached" : ", cached"), rt, s, expect);
      const Counts io = counts - before;
      // The transport did what it is for: the artifact uploaded for the job's first scanner
      // and not for a cached one, and out.tar came back.
      if (io.artifact != (upload ? tgz_bytes : 0))
        die(e.name + (upload ? " uncached" : " cached") + " run uploaded " + std::to_string(io.artifact) +
            " bytes of artifact, not " + std::to_string(upload ? tgz_bytes : 0));
      if (io.manifest == 0 || io.out_tar == 0) die(e.name + " storage run wrote no manifest or read no out.tar");
      return std::make_pair(r, io);
    };

    e.load_before = load_now();
    e.pressure_before = cpu_pressure();
    for (int i = -opt.warmup; i < opt.reps; ++i) {
      RunSample m = timed_run("the mount transport on " + e.name, mount, spec, expect);
      const std::string job = job_prefix + "-" + e.name + "-" + std::to_string(serial++);
      auto u = storage_once(uncached, job, true);
      uncached.close_job(job);  // untimed: the job's copy goes when the job closes
      auto c = storage_once(cached, cached_job, false);
      if (i < 0) continue;  // warm-up: the image's first mount, the engine's and the server's caches
      e.mount.push_back(m);
      e.uncached.push_back(u.first);
      e.uncached_io.push_back(u.second);
      e.cached.push_back(c.first);
      e.cached_io.push_back(c.second);
    }
    e.pressure_after = cpu_pressure();
    cached.close_job(cached_job);
    stop_relay(e.net);
    remove_holder(e, logs);
    auto left = leaf->list(kPrefix);
    if (!left) die("listing " + std::string(kPrefix) + ": " + left.error().message);
    if (!left->empty()) die("a bundle key outlived its run: " + left->front().key);
  }
  std::uint64_t room_bytes = tree_bytes(room);
  (void)leaf->remove(ad::blob_key(sha));
  cleanup_all(logs);
  fs::remove_all(run);
  on_failure().cleanup = nullptr;

  // 4. The table.
  using T = batlehub::wire::Timings;
  std::printf(
      "bench_storage: the oci runtime's storage transport (presigned URLs on S3) vs its mount transport, same run\n\n");
  std::fputs(machine_line(opt.dir, tmpfs).c_str(), stdout);
  std::printf("           running as root\n");
  std::printf(
      "  package  %d files, %.0f KiB unpacked, a %.0f KiB .tgz (file blob with its sha256), one archive entry\n",
      opt.files, kib(unpacked), kib(tgz_bytes));
  std::printf("  scanner  `hostile cat %s` (%zu bytes printed, checked on every run)\n", kCatPath, expect.size());
  std::printf("  room     the agent + hostile, %.1f MiB, built once by scripts/build-room.py (%.1f s)\n",
              mib(room_bytes), room_s);
  print_engines(engines, opt.docker_host);
  std::printf("  storage  versitygw on %s (its posix backend under %s); the runs join a holder's\n", endpoint.c_str(),
              opt.dir.c_str());
  std::printf("           network (--network none), netns-relay forwarding the port from its loopback\n");
  std::printf("  runs     %d of each, alternating mount, uncached, cached, after %d untimed warm-up round%s\n",
              opt.reps, opt.warmup, opt.warmup == 1 ? "" : "s");

  const char* head = "  %-44s %9s    %9s    %9s    %8s\n";
  const char* row = "  %-44s %9.1f ms %9.1f ms %9.1f ms %8.1f ms\n";
  const char* ratio = "  %-44s %9.2fx   %9.2fx   %9.2fx\n";
  for (const auto& e : engines) {
    Stats sm = stats(samples(e.mount)), su = stats(samples(e.uncached)), sc = stats(samples(e.cached));
    std::printf("\n== %s   load average %s before; CPU pressure %s before, %s after\n", e.name.c_str(),
                e.load_before.c_str(), e.pressure_before.c_str(), e.pressure_after.c_str());
    std::printf(head, "wall clock of one OciRuntime::run()", "median", "p90", "min", "cpu med");
    std::printf(row, "mount (the anchor)", sm.med, sm.p90, sm.min, sm.cpu);
    std::printf(row, "storage, uncached (uploads the artifact)", su.med, su.p90, su.min, su.cpu);
    std::printf(ratio, "ratio storage uncached / mount", su.med / sm.med, su.p90 / sm.p90, su.min / sm.min);
    std::printf(row, "storage, cached (presigned in place)", sc.med, sc.p90, sc.min, sc.cpu);
    std::printf(ratio, "ratio storage cached / mount", sc.med / sm.med, sc.p90 / sm.p90, sc.min / sm.min);

    // One column per side: what the worker put and got, what the agent got and put.
    const char* bhead = "  %-42s %13s %13s %13s %13s\n";
    const char* brow = "  %-42s %9.1f KiB %9.1f KiB %9.1f KiB %9.1f KiB\n";
    std::printf("\n");
    std::printf(bhead, "bytes moved per run (medians)", "worker up", "worker down", "agent down", "agent up");
    std::printf("  %-42s %9.1f KiB %13s %13s %13s\n", "mount: written into the run dir", kib(mount_bytes), "-",
                "(bind mount)", "(bind mount)");
    for (const auto* io : {&e.uncached_io, &e.cached_io}) {
      const std::uint64_t man = median_u(*io, &Counts::manifest);
      std::printf(brow, io == &e.uncached_io ? "storage, uncached" : "storage, cached", kib(median_u(*io, &Counts::up)),
                  kib(median_u(*io, &Counts::down)), kib(man + tgz_bytes), kib(median_u(*io, &Counts::out_tar)));
    }
    std::printf("  %-42s manifest %.1f KiB on mount, %.1f KiB uncached, %.1f KiB cached; the rest the artifact\n",
                "  of which", kib(mount_bytes - tgz_bytes), kib(median_u(e.uncached_io, &Counts::manifest)),
                kib(median_u(e.cached_io, &Counts::manifest)));
    std::printf("\n  the worker's S3 requests per run (median)  uncached %llu requests in %.1f ms, %llu URLs signed\n",
                static_cast<unsigned long long>(median_u(e.uncached_io, &Counts::requests)), median_ms(e.uncached_io),
                static_cast<unsigned long long>(median_u(e.uncached_io, &Counts::presigned)));
    std::printf("  %-42s cached   %llu requests in %.1f ms, %llu URLs signed\n", "",
                static_cast<unsigned long long>(median_u(e.cached_io, &Counts::requests)), median_ms(e.cached_io),
                static_cast<unsigned long long>(median_u(e.cached_io, &Counts::presigned)));
    auto timings = [&](const char* what, const std::vector<RunSample>& v) {
      std::printf("  %-42s %-9s fetch %.0f, extract %.0f, run %.0f\n",
                  what == std::string("mount") ? "the agent's timings_ms, median (whole ms)" : "", what,
                  median_timing(v, &T::fetch_ms), median_timing(v, &T::extract_ms), median_timing(v, &T::run_ms));
    };
    timings("mount", e.mount);
    timings("uncached", e.uncached);
    timings("cached", e.cached);
  }
  std::printf(
      "\n  every run exited 0 and printed the bytes of %s (by its RunOutput); every\n"
      "  uncached run uploaded the artifact and no cached one did; no bundle key was left.\n"
      "  worker up/down: what the store's backend PUT and GOT, counted by a decorator around it\n"
      "  (manifest, artifact; out.tar); agent down: the manifest and the artifact its manifest\n"
      "  names (one GET each); agent up: out.tar, which the worker then GETs whole. mount: the\n"
      "  manifest and the artifact's copy as write_bundle writes them; the agent reads them and\n"
      "  writes its out.tar through the bind mount. requests: one HTTP request each (put, get,\n"
      "  head, list, remove); signing a URL is none. cpu: the bench and the engine's CLI.\n",
      kCatPath);
}

}  // namespace

int main(int argc, char** argv) {
  return batlehub::bench::bench_main("bench_storage", bench, argc, argv);
}
