// The oci runtime with transport = "storage", for real, on podman and on docker: the
// bundle and the result through presigned URLs on a real S3 server (versitygw on loopback,
// one per test), the container on a storage network that reaches that server and nothing
// else, and the probe proving that network from inside.
//
// The storage network on one host (docs/operations/oci.md, "The storage transport"): a
// holder container with no network of its own (`--network none`: a loopback and nothing
// else), in whose loopback a relay (tests/helpers/netns_relay.cc) listens on the S3
// server's port and forwards to the server on the host's loopback. A run joins the
// holder's network (`storage_network = "container:<holder>"`), so the URL the worker signed
// — http://127.0.0.1:<port>/… — reaches the same server from inside, and no other address
// reaches anything.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <thread>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/oci.h"
#include "adapters/sandbox/run_frame.h"
#include "adapters/storage/bundle.h"
#include "adapters/storage/router.h"
#include "adapters/storage/s3_backend.h"
#include "base/fd.h"
#include "config/config.h"
#include "engines.h"
#include "server/root/builders.h"
#include "storage/s3_peer.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

class OciStorageTest : public ::testing::TestWithParam<TestEngine> {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    // The S3 server.
    port_ = free_loopback_port();
    peer_dir_ = s_.root() / "s3";
    const std::string start = "VERSITYGW=" + std::string(BATLEHUB_TEST_S3_BIN) + " " + BATLEHUB_SOURCE_DIR +
                              "/scripts/s3-peer.sh start " + peer_dir_.string() + " " + std::to_string(port_) +
                              " >/dev/null";
    ASSERT_EQ(std::system(start.c_str()), 0) << start;
    auto s3 = S3Backend::create(test_s3_config("http://127.0.0.1:" + std::to_string(port_), "bundles"), test_s3_env());
    ASSERT_TRUE(s3) << s3.error();
    s3_ = std::shared_ptr<core::StorageBackend>(std::move(*s3));
    router_ = std::make_shared<StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{s3_}, "bundles");

    // The image, and the holder whose network is the storage network.
    rooms_ = s_.root() / "rooms";
    auto failed = import_hostile_image(GetParam(), rooms_, image_);
    ASSERT_EQ(failed, "") << "failed: " << failed;
    holder_ = "batlehub-test-holder-" + std::to_string(::getpid());
    // podman: a user namespace of the holder's own, which the runs then share (oci.md says why).
    const std::string userns = GetParam().kind == OciEngineKind::kPodman ? " --userns auto:size=65536" : "";
    auto id = engine_out(GetParam(), "run -d --name " + holder_ + " --network none" + userns + " --pull never " +
                                         image_ + " hostile hang");
    ASSERT_TRUE(id && !id->empty()) << "the holder did not start";
    auto pid = engine_out(GetParam(), "inspect -f '{{.State.Pid}}' " + holder_);
    ASSERT_TRUE(pid && !pid->empty());
    relay_ = start_relay("/proc/" + trim(*pid) + "/ns/net");
    ASSERT_GT(relay_, 0) << "the relay did not start";
  }

  void TearDown() override {
    if (relay_ > 0) {
      ::kill(relay_, SIGKILL);
      ::waitpid(relay_, nullptr, 0);
    }
    if (!holder_.empty()) {
      engine_out(GetParam(), "kill " + holder_);  // its pid 1 ignores the SIGTERM rm -f would wait 10 s on
      engine_out(GetParam(), "rm -f " + holder_);
    }
    if (!image_.empty()) remove_image(GetParam(), image_);
    if (!peer_dir_.empty()) {
      std::system((std::string(BATLEHUB_SOURCE_DIR) + "/scripts/s3-peer.sh stop " + peer_dir_.string() + " >/dev/null")
                      .c_str());
    }
  }

  static std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  pid_t start_relay(const std::string& netns) {
    int out[2];
    if (::pipe(out) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(out[1], 1);
      const std::string port = std::to_string(port_);
      const std::string bin = std::string(BATLEHUB_HELPERS_DIR) + "/netns-relay";
      ::execl(bin.c_str(), bin.c_str(), netns.c_str(), port.c_str(), port.c_str(), nullptr);
      ::_exit(127);
    }
    ::close(out[1]);
    char buf[16] = {};
    const ssize_t n = ::read(out[0], buf, sizeof buf - 1);
    ::close(out[0]);
    return n > 0 && std::string(buf).starts_with("ready") ? pid : -1;
  }

  BundleOptions bundle_options(const std::string& worker = this_worker_label()) {
    return BundleOptions{prefix_, std::chrono::seconds(60), worker};
  }

  OciOptions options(std::shared_ptr<BundleStore> store) {
    OciOptions o = test_oci_options(GetParam(), image_, s_.work());
    o.bundles = std::move(store);
    o.storage_network = "container:" + holder_;
    return o;
  }

  std::vector<std::string> keys_under(const std::string& p) {
    std::vector<std::string> out;
    auto l = s3_->list(p);
    EXPECT_TRUE(l) << l.error().message;
    if (l) {
      for (const auto& o : *l) out.push_back(o.key);
    }
    return out;
  }

  std::shared_ptr<const core::Blob> artifact_with_sha(const std::string& bytes) {
    const fs::path p = s_.root() / "artifact.tgz";
    std::ofstream(p, std::ios::binary) << bytes;
    FILE* f = ::popen(("sha256sum " + p.string()).c_str(), "r");
    char hex[65] = {};
    EXPECT_EQ(std::fread(hex, 1, 64, f), 64u);
    ::pclose(f);
    auto b = file_blob(p.string(), std::string(hex));
    EXPECT_TRUE(b);
    return *b;
  }

  core::ProbeTarget target() {
    return core::ProbeTarget{"hostile", std::nullopt, {"/usr/bin/hostile"}, core::Limits{}};
  }

  Scratch s_;
  fs::path rooms_;
  fs::path peer_dir_;
  int port_ = 0;
  std::string image_;
  std::string holder_;
  pid_t relay_ = -1;
  std::shared_ptr<core::StorageBackend> s3_;
  std::shared_ptr<StorageRouter> router_;
  const std::string prefix_ = "sandbox/";
};

TEST_P(OciStorageTest, a_run_through_presigned_urls_gives_what_the_mount_transport_gives_and_leaves_no_key) {
  core::RunSpec spec = fixture_run_spec();
  auto store = std::make_shared<BundleStore>(s3_, router_, bundle_options());
  OciRuntime storage(options(store));
  auto o = storage.run(spec);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->status, 0);
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(o->report.extract.refused_by_type, 1u);

  auto m = OciRuntime(test_oci_options(GetParam(), image_, s_.work())).run(spec);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(o->status, m->status);
  EXPECT_EQ(o->stdout_bytes, m->stdout_bytes);
  EXPECT_EQ(o->stderr_tail, m->stderr_tail);
  EXPECT_EQ(o->report.extract, m->report.extract);
  EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{}) << "a per-run key outlived its run";
}

TEST_P(OciStorageTest, a_job_of_three_scanners_uploads_an_uncached_artifact_once_and_a_cached_one_not_at_all) {
  core::RunSpec spec = fixture_run_spec();
  // The fixture's archive as a file with a content address, as the worker's store hands it out.
  auto memory = spec.bundle.entries[0].blob;
  const fs::path raw = s_.root() / "raw.tgz";
  {
    base::Fd fd(::open(raw.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
    ASSERT_TRUE(memory->copy_to(fd.get()));
  }
  std::ifstream in(raw, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto blob = artifact_with_sha(bytes);
  spec.bundle.entries[0].blob = blob;
  const std::string sha = *blob->sha256();
  spec.label.job = "job-" + std::to_string(::getpid());

  auto store = std::make_shared<BundleStore>(s3_, router_, bundle_options());
  OciRuntime oci(options(store));
  std::vector<std::string> seen;
  for (const char* scanner : {"guarddog", "yara", "trivy"}) {
    spec.label.scanner = scanner;
    auto o = oci.run(spec);
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
    // The server's own listing after each run: the job's one copy, and no per-run key.
    const auto keys = keys_under(prefix_);
    EXPECT_EQ(keys, std::vector<std::string>{prefix_ + spec.label.job + "/artifact-" + sha}) << scanner;
    auto h = s3_->head(prefix_ + spec.label.job + "/artifact-" + sha);
    ASSERT_TRUE(h);
    seen.push_back(std::to_string(h->last_modified.time_since_epoch().count()));
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a second upload would show
  }
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(seen[1], seen[2]);
  oci.close_job(spec.label.job);
  EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{}) << "the job's copy outlived the job";

  // Cached: the artifact's own blob, presigned where it lies; nothing uploaded under the prefix.
  ASSERT_TRUE(router_->store_blob(*blob, sha));
  auto before = s3_->head(blob_key(sha));
  ASSERT_TRUE(before);
  for (const char* scanner : {"guarddog", "yara", "trivy"}) {
    spec.label.scanner = scanner;
    auto o = oci.run(spec);
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
    EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{}) << scanner;
  }
  EXPECT_EQ(s3_->head(blob_key(sha))->last_modified, before->last_modified);
  (void)s3_->remove(blob_key(sha));
  (void)s3_->remove("artifact:npm/x/1.0.0");
}

TEST_P(OciStorageTest,
       the_probe_passes_on_the_storage_network_and_fails_no_network_when_a_canary_is_reachable_through_it) {
  auto store = std::make_shared<BundleStore>(s3_, router_, bundle_options());
  OciRuntime oci(options(store));
  auto r = oci.probe(target());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
  EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{});

  // A storage network that lets one more destination through: the relay's port, named as a
  // canary, is what such a network would reach.
  OciOptions leaky = options(store);
  leaky.probe_canaries = {"127.0.0.1:" + std::to_string(port_)};
  auto l = OciRuntime(leaky).probe(target());
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_FALSE(l->passed());
  EXPECT_EQ(l->first_failure()->rfind("no_network:", 0), 0u) << *l->first_failure();
}

TEST_P(OciStorageTest, a_worker_killed_mid_run_leaves_keys_and_a_container_that_the_next_sweep_removes) {
  const HangingWorker w = fork_worker_with_a_hanging_run(GetParam(), [&](const core::RunSpec& spec) {
    auto store = std::make_shared<BundleStore>(s3_, router_, bundle_options());
    OciRuntime oci(options(store));
    (void)oci.run(spec);
  });
  ASSERT_GE(w.pid, 0);
  const pid_t child = w.pid;
  const std::string& worker = w.label;
  ASSERT_NE(w.containers, "") << "the child's container never appeared";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  ::waitpid(child, nullptr, 0);
  const auto left = keys_under(prefix_);
  ASSERT_FALSE(left.empty()) << "the dead worker's manifest should still be there";
  for (const auto& k : left) EXPECT_NE(k.find(bundle_key_segment(worker) + "-"), std::string::npos) << k;

  auto store = std::make_shared<BundleStore>(s3_, router_, bundle_options());
  OciRuntime next(options(store));
  auto removed = next.sweep(std::chrono::seconds(3600));
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(removed->of(core::OrphanKind::kContainer), 1u) << removed->describe();
  // Its keys are one run's bundle (and the job's uploaded artifact, when it had one).
  EXPECT_GE(removed->of(core::OrphanKind::kBundle), 1u) << removed->describe();
  EXPECT_LE(removed->of(core::OrphanKind::kBundle), 2u) << removed->describe();
  EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{});
  EXPECT_EQ(engine_out(GetParam(), "ps -a --filter label=io.batlehub.worker=" + worker + " --format '{{.Names}}'")
                .value_or("?"),
            "");
}

TEST_P(OciStorageTest, a_worker_configured_for_the_storage_transport_proves_and_runs_through_it) {
  // The operator's path: a TOML file, the worker's builder, the probe of every image, a run.
  const bool podman = GetParam().kind == OciEngineKind::kPodman;
  const std::string toml =
      std::string("[worker.sandbox]\nruntime = \"oci\"\nstart_timeout_secs = 60\nbundle_prefix = \"") + prefix_ +
      "\"\nprobe_canaries = [\"127.0.0.1:9\"]\n[worker.sandbox.oci]\nengine = \"" + (podman ? "podman" : "docker") +
      "\"\nimage = \"" + image_ + "\"\ntransport = \"storage\"\nstorage_network = \"container:" + holder_ +
      "\"\n[storage]\ntype = \"s3\"\nendpoint_url = \"http://127.0.0.1:" + std::to_string(port_) +
      "\"\nbucket = \"" + BATLEHUB_TEST_S3_BUCKET + "\"\nregion = \"us-east-1\"\nforce_path_style = true" +
      "\n[scanners.hostile]\ntype = \"yara\"\ncommand = \"hostile\"\nrules = \"/dev/null\"\n";
  const std::vector<std::string> engine = engine_env(GetParam());
  config::Env env = [&](std::string_view k) -> std::optional<std::string> {
    if (k == "TMPDIR") return s_.work().string();
    if (k == "AWS_ACCESS_KEY_ID") return std::string(BATLEHUB_TEST_S3_ACCESS_KEY);
    if (k == "AWS_SECRET_ACCESS_KEY") return std::string(BATLEHUB_TEST_S3_SECRET_KEY);
    for (const auto& kv : engine) {
      if (kv.starts_with(std::string(k) + "=")) return kv.substr(k.size() + 1);
    }
    return std::nullopt;
  };
  auto loaded = config::load_string(toml, "worker.toml", env);
  ASSERT_TRUE(loaded) << loaded.error().describe() << "\n" << toml;
  auto rt = server::build_sandbox_runtime(loaded->config, env);
  ASSERT_TRUE(rt) << rt.error();
  const auto targets = server::probe_targets(loaded->config, env);
  ASSERT_EQ(targets.size(), 1u);
  auto probed = (*rt)->probe(targets[0]);
  ASSERT_TRUE(probed) << probed.error().message;
  EXPECT_TRUE(probed->passed()) << probed->first_failure().value_or("");
  core::RunSpec spec = fixture_run_spec();
  auto o = (*rt)->run(spec);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{});
}

// Issue 32's S3 fault: the endpoint goes away before a run, and again while its scanner
// runs, and comes back on the data it had. Each failed run is an error that says what failed
// (the worker records it as the scanner's SCANNER_ERROR, never a verdict from a run that did
// not finish), leaves no container, and the next run once the endpoint is back succeeds; the
// failed runs' keys, which could not be deleted while it was down, are the sweep's.
TEST_P(OciStorageTest, an_s3_endpoint_that_goes_away_fails_the_run_with_the_reason_the_next_run_passes_and_the_sweep_takes_its_keys) {
  auto store = std::make_shared<BundleStore>(s3_, router_, bundle_options());
  OciOptions o = options(store);
  // A live worker's sweep leaves a bundle alone until it is orphan_after old (15 minutes by
  // default): here, a second.
  o.orphan_after = std::chrono::seconds(1);
  OciRuntime oci(o);
  const std::string me = this_worker_label();
  const std::string endpoint = "127.0.0.1 port " + std::to_string(port_);
  const std::string peer =
      "VERSITYGW=" + std::string(BATLEHUB_TEST_S3_BIN) + " " + BATLEHUB_SOURCE_DIR + "/scripts/s3-peer.sh ";
  const std::string stop = peer + "stop " + peer_dir_.string();
  const std::string restart = peer + "restart " + peer_dir_.string() + " " + std::to_string(port_) + " >/dev/null";

  // Down before the run: the bundle cannot be put, so no container is started.
  ASSERT_EQ(std::system(stop.c_str()), 0);
  auto before = oci.run(fixture_run_spec());
  ASSERT_FALSE(before) << "a run whose bundle could not be stored cannot succeed";
  std::cout << "S3 down before the run: " << before.error().message << "\n";
  EXPECT_NE(before.error().message.find("PUT"), std::string::npos) << before.error().message;
  EXPECT_NE(before.error().message.find("Couldn't connect to server: Failed to connect to " + endpoint),
            std::string::npos)
      << before.error().message;
  EXPECT_EQ(containers_of(GetParam(), me), "");
  ASSERT_EQ(std::system(restart.c_str()), 0);

  // Down while the scanner runs: the agent has its bundle, and cannot deliver its result.
  core::RunSpec sleeping = fixture_run_spec();
  sleeping.argv = {"hostile", "sleep", "6"};
  auto pending = std::async(std::launch::async, [&] { return oci.run(sleeping); });
  ASSERT_TRUE(wait_for_a_sleeping_scanner(GetParam(), me)) << "the scanner never started";
  ASSERT_EQ(std::system(stop.c_str()), 0);
  auto during = pending.get();
  ASSERT_FALSE(during) << "a run whose result could not be delivered cannot succeed";
  std::cout << "S3 down during the run: " << during.error().message << "\n";
  EXPECT_NE(during.error().message.find("reading out.tar"), std::string::npos) << during.error().message;
  EXPECT_NE(during.error().message.find(endpoint), std::string::npos) << during.error().message;
  EXPECT_EQ(containers_of(GetParam(), me), "");

  // Back, on the data it had: the same runtime runs again.
  ASSERT_EQ(std::system(restart.c_str()), 0);
  auto after = oci.run(fixture_run_spec());
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->stdout_bytes, "module.exports = 42;\n");
  EXPECT_EQ(containers_of(GetParam(), me), "");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto swept = oci.sweep(std::chrono::seconds(0));
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_EQ(swept->of(core::OrphanKind::kBundle), 1u) << swept->describe();  // the run cut off mid-way
  EXPECT_EQ(keys_under(prefix_), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Engines, OciStorageTest, ::testing::Values(kPodman, kDocker),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace batlehub::adapters
