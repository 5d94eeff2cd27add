// The storage port's local backends, the router and the bundle module, without a server:
// the filesystem and in-memory backends for real, and presigning stubbed by a backend that
// answers "http://127.0.0.1/stub/<name>/<key>" so that what gets presigned where is visible as data. The
// same module against a real S3 server: s3_bundle_test.cc.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "adapters/sandbox/blob.h"
#include "adapters/storage/bundle.h"
#include "adapters/storage/local_backends.h"
#include "adapters/storage/router.h"
#include "base/percent_encode.h"
#include "run_specs.h"
#include "wire/caps.h"
#include "wire/manifest.h"

namespace batlehub::adapters {
namespace {

using batlehub::testing::spec_reading;
using core::StorageError;
using std::chrono::seconds;

constexpr char kSha[] = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";  // sha256("foo")

// An in-memory backend that can presign: every write is counted and every URL names its key
// (on loopback, and never fetched: these tests read the manifest, not the URLs).
class PresigningMemory final : public core::StorageBackend {
 public:
  explicit PresigningMemory(std::string name) : inner_(memory_backend(std::move(name))) {}
  const std::string& name() const override { return inner_->name(); }
  std::string_view type() const override { return "stub"; }
  Expected<Ok, StorageError> put(const std::string& k, std::string_view b) override {
    ++puts;
    put_bytes += b.size();
    return inner_->put(k, b);
  }
  Expected<Ok, StorageError> put_blob(const std::string& k, const core::Blob& b) override {
    ++puts;
    put_bytes += b.size();
    return inner_->put_blob(k, b);
  }
  Expected<std::string, StorageError> get(const std::string& k, std::uint64_t m) override { return inner_->get(k, m); }
  Expected<core::ObjectInfo, StorageError> head(const std::string& k) override { return inner_->head(k); }
  Expected<Ok, StorageError> remove(const std::string& k) override { return inner_->remove(k); }
  Expected<std::vector<core::ObjectInfo>, StorageError> list(const std::string& p) override { return inner_->list(p); }
  Expected<std::string, StorageError> presign_get(const std::string& k, seconds ttl) const override {
    return "http://127.0.0.1/stub/" + name() + "/" + k + "?get&ttl=" + std::to_string(ttl.count());
  }
  Expected<std::string, StorageError> presign_put(const std::string& k, seconds ttl, std::uint64_t max) const override {
    return "http://127.0.0.1/stub/" + name() + "/" + k + "?put&ttl=" + std::to_string(ttl.count()) +
           "&max=" + std::to_string(max);
  }
  Expected<core::PresignedPost, StorageError> presign_post(const std::string& k, seconds ttl,
                                                           std::uint64_t max) const override {
    return core::PresignedPost{"http://127.0.0.1/stub/" + name(),
                               {{"key", k}, {"ttl", std::to_string(ttl.count())}, {"max", std::to_string(max)}}};
  }
  std::size_t puts = 0;
  std::uint64_t put_bytes = 0;

 private:
  std::unique_ptr<core::StorageBackend> inner_;
};

std::shared_ptr<const core::Blob> artifact(std::optional<std::string> sha = kSha) {
  // A file blob, as the worker's artifact store hands out, in a directory of this process's
  // own that goes when the process ends (the files outlive each test: blobs are shared).
  struct Dir {
    std::filesystem::path path =
        std::filesystem::path(::testing::TempDir()) / ("storage-artifacts-" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static Dir dir;
  static int n = 0;
  const std::string path = (dir.path / std::to_string(n++)).string();
  std::ofstream(path) << "foo";
  auto b = file_blob(path, std::move(sha));
  EXPECT_TRUE(b.has_value());
  return *b;
}

wire::Manifest manifest_at(core::StorageBackend& b, const StagedRun& r) {
  auto json = b.get(r.manifest_key, wire::kManifestMaxBytes);
  EXPECT_TRUE(json.has_value());
  auto m = wire::parse_manifest(*json);
  EXPECT_TRUE(m.has_value());
  return *m;
}

// --- the port's key rule and the local backends -----------------------------------------------

TEST(StorageKeys, every_backend_refuses_a_key_that_could_leave_its_place_before_any_io) {
  auto mem = memory_backend("m");
  for (const std::string& k :
       std::vector<std::string>{"", "/abs", "a/../b", "..", "a//b", "a/", "./a", "a\nb", std::string(1025, 'k'),
                                // upstream-storage-and-queue.md A.6's further refusals
                                "a\\b", "a/%2e%2e/b", "a/%2E%2e", "%252e%252e/x", "a/%2e/b"}) {
    auto r = mem->put(k, "x");
    ASSERT_FALSE(r) << k;
    EXPECT_EQ(r.error().kind, StorageError::Kind::kBadKey) << k;
  }
  EXPECT_TRUE(mem->put("artifact:npm/left-pad/1.3.0", "ok"));
  // '/' inside names is legitimate (a scope), and so is a '%' that decodes to anything else.
  EXPECT_TRUE(mem->put("artifact:npm/@scope/name/1.0.0/tarball", "ok"));
  EXPECT_TRUE(mem->put("artifact:npm/a%2eb/1.0.0/tarball", "ok"));
}

// upstream-storage-and-queue.md A.6's table: where upstream's proxy caches a version's file.
TEST(StorageKeys, upstream_caches_each_kinds_one_file_under_its_logical_key) {
  using core::upstream_artifact_key;
  EXPECT_EQ(upstream_artifact_key("npm", "npm", "left-pad", "1.3.0"), "artifact:npm/left-pad/1.3.0/tarball");
  EXPECT_EQ(upstream_artifact_key("npm", "npmjs", "@scope/name", "2.0.0"), "artifact:npmjs/@scope/name/2.0.0/tarball");
  EXPECT_EQ(upstream_artifact_key("galaxy", "ansible", "ns.coll", "1.0.0"), "artifact:ansible/ns.coll/1.0.0/tarball");
  EXPECT_EQ(upstream_artifact_key("cargo", "crates", "serde", "1.0.200"), "artifact:crates/serde/1.0.200/dl");
  EXPECT_EQ(upstream_artifact_key("composer", "php", "a/b", "1.0.0"), "artifact:php/a/b/1.0.0/dist");
  EXPECT_EQ(upstream_artifact_key("rubygems", "gems", "rails", "7.1.0"), "artifact:gems/rails/7.1.0/gem");
  EXPECT_EQ(upstream_artifact_key("goproxy", "go", "github.com/!burnt!sushi/toml", "v1.3.2"),
            "artifact:go/github.com/!burnt!sushi/toml/v1.3.2/zip");
  EXPECT_EQ(upstream_artifact_key("openvsx", "ovsx", "ms.python", "1.0.0"), "artifact:ovsx/ms.python/1.0.0/vsix");
  EXPECT_EQ(upstream_artifact_key("vscode-marketplace", "vsm", "a.b", "2"), "artifact:vsm/a.b/2/vsix");
  EXPECT_EQ(upstream_artifact_key("jetbrains-marketplace", "jb", "123", "4"), "artifact:jb/123/4/plugin");
  // NuGet: the id and the version lower-cased, in the file name and in the key's segments.
  EXPECT_EQ(upstream_artifact_key("nuget", "nuget", "Newtonsoft.Json", "13.0.3-Beta1"),
            "artifact:nuget/newtonsoft.json/13.0.3-beta1/newtonsoft.json.13.0.3-beta1.nupkg");
  // No single file upstream: its worker gets no bytes, and neither does this one.
  for (const char* type : {"pypi", "conda", "maven", "terraform", "github", "nodedist", "apk", "unknown"}) {
    EXPECT_EQ(upstream_artifact_key(type, "r", "n", "1"), std::nullopt) << type;
  }
}

TEST(FilesystemBackend, round_trips_lists_by_prefix_and_writes_nothing_outside_its_root) {
  const std::string root = ::testing::TempDir() + "/fs-backend-" + std::to_string(::getpid());
  std::filesystem::remove_all(root);
  auto fs = filesystem_backend("local", root + "/store");
  ASSERT_TRUE(fs->put("sandbox/j/a", "hello"));
  ASSERT_TRUE(fs->put("sandbox/j/b", "world!"));
  ASSERT_TRUE(fs->put("other/c", "x"));
  EXPECT_EQ(*fs->get("sandbox/j/a", 100), "hello");
  EXPECT_EQ(fs->head("sandbox/j/b")->size, 6u);
  auto listed = fs->list("sandbox/");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "sandbox/j/a");
  EXPECT_EQ((*listed)[1].key, "sandbox/j/b");

  auto big = fs->get("sandbox/j/b", 5);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().kind, StorageError::Kind::kTooLarge);
  EXPECT_EQ(fs->get("sandbox/none", 5).error().kind, StorageError::Kind::kNotFound);
  EXPECT_EQ(fs->head("sandbox/none").error().kind, StorageError::Kind::kNotFound);

  // A link planted in the tree, where an object would lie, is neither read through nor listed.
  std::filesystem::create_symlink("/etc/hostname", root + "/store/sandbox/j/link.dat");
  EXPECT_FALSE(fs->get("sandbox/j/link", 1 << 20));
  EXPECT_EQ(fs->list("sandbox/")->size(), 2u);

  ASSERT_TRUE(fs->remove("sandbox/j/a"));
  EXPECT_TRUE(fs->remove("sandbox/j/a")) << "deleting what is gone is not an error";
  EXPECT_EQ(fs->list("sandbox/")->size(), 1u);
  EXPECT_FALSE(fs->put("../escape", "x"));
  EXPECT_FALSE(std::filesystem::exists(root + "/escape.dat"));
  std::filesystem::remove_all(root);
}

// upstream-storage-and-queue.md A.6: "<path>/<key with every ':' replaced by '__'>.dat".
TEST(FilesystemBackend, lays_objects_out_as_upstream_does_and_reads_what_upstream_stored) {
  const std::string root = ::testing::TempDir() + "/fs-upstream-" + std::to_string(::getpid());
  std::filesystem::remove_all(root);
  auto fs = filesystem_backend("local", root);
  auto write = [](const std::string& path, const std::string& bytes) { std::ofstream(path) << bytes; };
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  ASSERT_TRUE(fs->put("artifact:npm/left-pad/1.3.0/tarball", "tgz"));
  EXPECT_EQ(read(root + "/artifact__npm/left-pad/1.3.0/tarball.dat"), "tgz");
  // What upstream's proxy wrote, read where it lies: a blob and a scoped package's key.
  const std::string sha(64, 'a');
  std::filesystem::create_directories(root + "/blob");
  write(root + "/blob/" + sha + ".dat", "content");
  EXPECT_EQ(*fs->get("blob/" + sha, 100), "content");
  std::filesystem::create_directories(root + "/artifact__npm/@scope/name/2.0.0");
  write(root + "/artifact__npm/@scope/name/2.0.0/tarball.dat", "scoped");
  EXPECT_EQ(*fs->get("artifact:npm/@scope/name/2.0.0/tarball", 100), "scoped");
  EXPECT_EQ(fs->head("artifact:npm/@scope/name/2.0.0/tarball")->size, 6u);
  // Listed by key; an in-flight write (no ".dat") and a stray file are not objects.
  write(root + "/artifact__npm/left-pad/1.3.0/.tmp-tarball.dat-abc123", "partial");
  write(root + "/artifact__npm/left-pad/1.3.0/README", "not an object");
  auto listed = fs->list("artifact:npm/");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "artifact:npm/@scope/name/2.0.0/tarball");
  EXPECT_EQ((*listed)[1].key, "artifact:npm/left-pad/1.3.0/tarball");
  ASSERT_TRUE(fs->remove("artifact:npm/left-pad/1.3.0/tarball"));
  EXPECT_FALSE(std::filesystem::exists(root + "/artifact__npm/left-pad/1.3.0/tarball.dat"));
  std::filesystem::remove_all(root);
}

TEST(LocalBackends, cannot_presign_and_say_so_in_the_rfcs_words) {
  auto fs = filesystem_backend("local", ::testing::TempDir());
  auto mem = memory_backend("mem");
  for (core::StorageBackend* b : {fs.get(), mem.get()}) {
    auto g = b->presign_get("k", seconds(60));
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error().kind, StorageError::Kind::kUnsupported);
    EXPECT_NE(g.error().message.find(
                  "' cannot presign a URL; configure an S3-compatible backend, or name one in bundle_backend"),
              std::string::npos)
        << g.error().message;
    auto p = b->presign_put("k", seconds(60), 10);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().kind, StorageError::Kind::kUnsupported);
  }
  EXPECT_NE(fs->presign_get("k", seconds(1)).error().message.find("'filesystem' cannot presign"), std::string::npos);
  EXPECT_NE(mem->presign_get("k", seconds(1)).error().message.find("'in_memory' cannot presign"), std::string::npos);
}

// --- the router ---------------------------------------------------------------------------------

TEST(StorageRouter, stores_content_once_and_locates_it_where_it_lies) {
  auto first = std::make_shared<PresigningMemory>("first");
  auto second = std::make_shared<PresigningMemory>("second");
  StorageRouter router({first, second}, "second");
  auto blob = artifact();
  EXPECT_EQ(*router.store_blob(*blob, kSha), "second");
  EXPECT_EQ(*router.store_blob(*blob, kSha, "first"), "second") << "already held: not stored again";
  EXPECT_EQ(second->put_bytes, 3u) << "the content once, and nothing else: no object at a logical key";
  EXPECT_EQ(first->puts, 0u);

  auto where = router.locate_blob(kSha);
  ASSERT_TRUE(where) << where.error().message;
  EXPECT_EQ(where->backend->name(), "second");
  EXPECT_EQ(*where->backend->presign_get(where->key, seconds(90)),
            std::string("http://127.0.0.1/stub/second/blob/") + kSha + "?get&ttl=90");
  auto missing = router.locate_blob(std::string(64, 'f'));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, StorageError::Kind::kNotFound);
  EXPECT_EQ(router.store_blob(*blob, "not-a-sha").error().kind, StorageError::Kind::kBadKey);
}

TEST(StorageRouter, a_blob_already_on_another_backend_is_not_stored_again) {
  auto first = std::make_shared<PresigningMemory>("first");
  auto second = std::make_shared<PresigningMemory>("second");
  ASSERT_TRUE(first->put(blob_key(kSha), "foo"));
  StorageRouter router({first, second}, "second");
  EXPECT_EQ(*router.store_blob(*artifact(), kSha), "first");
  EXPECT_FALSE(second->head(blob_key(kSha))) << "no second copy";
  EXPECT_EQ(router.locate_blob(kSha)->backend->name(), "first");
}

// --- the bundle module --------------------------------------------------------------------------

struct BundleFixture : ::testing::Test {
  std::shared_ptr<PresigningMemory> cache = std::make_shared<PresigningMemory>("cache");
  std::shared_ptr<PresigningMemory> bundles = std::make_shared<PresigningMemory>("bundles");
  std::shared_ptr<StorageRouter> router =
      std::make_shared<StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{cache, bundles}, "cache");
  BundleStore store{bundles, router, BundleOptions{"sandbox/", seconds(60), "4242@host-a"}};
};

TEST_F(BundleFixture, a_cached_artifact_is_presigned_where_it_lies_and_nothing_is_uploaded_but_manifests) {
  auto blob = artifact();
  ASSERT_TRUE(router->store_blob(*blob, kSha));
  const std::size_t cache_puts = cache->puts;
  for (const char* scanner : {"guarddog", "yara", "trivy"}) {
    auto run = store.stage(spec_reading(blob, scanner), seconds(600));
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->bytes_in_place, 3u);
    wire::Manifest m = manifest_at(*bundles, *run);
    ASSERT_EQ(m.entries.size(), 2u);
    EXPECT_EQ(m.entries[0].url, std::string("http://127.0.0.1/stub/cache/blob/") + kSha + "?get&ttl=660");
    EXPECT_EQ(m.entries[0].size, 3u);
    EXPECT_EQ(m.entries[1].bytes, "{}");
    EXPECT_EQ(run->manifest_url, "http://127.0.0.1/stub/bundles/" + run->manifest_key + "?get&ttl=660");
    // A form to POST (wire/post_form.h), its fields percent-encoded in order, bounded by the ceiling.
    EXPECT_EQ(run->out_url, "post+http://127.0.0.1/stub/bundles?key=" + base::percent_encode(run->out_key, false) +
                                "&ttl=660&max=" + std::to_string(wire::kOutTarMaxBytes));
    EXPECT_EQ(run->manifest_key.rfind(std::string("sandbox/job-1/") + scanner + "/1/4242@host-a-", 0), 0u)
        << run->manifest_key;
    store.finish(*run);
  }
  EXPECT_EQ(cache->puts, cache_puts) << "nothing written to the cache";
  EXPECT_TRUE(bundles->list("sandbox/")->empty()) << "every per-run key deleted";
}

TEST_F(BundleFixture, an_uncached_artifact_is_uploaded_once_per_job_and_deleted_when_the_job_closes) {
  auto blob = artifact();
  std::vector<StagedRun> runs;
  for (const char* scanner : {"guarddog", "yara", "trivy"}) {
    auto run = store.stage(spec_reading(blob, scanner), seconds(10));
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(manifest_at(*bundles, *run).entries[0].url,
              std::string("http://127.0.0.1/stub/bundles/sandbox/job-1/artifact-") + kSha + "?get&ttl=70");
    runs.push_back(*run);
  }
  EXPECT_EQ(runs[0].bytes_in_place + runs[1].bytes_in_place, 0u);
  auto manifest_size = [&](const StagedRun& r) { return bundles->head(r.manifest_key)->size; };
  EXPECT_EQ(runs[0].bytes_uploaded, 3 + manifest_size(runs[0])) << "the first run uploads the artifact";
  EXPECT_EQ(runs[1].bytes_uploaded, manifest_size(runs[1])) << "the second run uploads its manifest only";
  std::size_t artifact_puts = 0;
  const auto listed = bundles->list("sandbox/");
  ASSERT_TRUE(listed);
  for (const auto& o : *listed) artifact_puts += o.key.find("/artifact-") != std::string::npos;
  EXPECT_EQ(artifact_puts, 1u);
  for (const auto& r : runs) store.finish(r);
  ASSERT_EQ(bundles->list("sandbox/")->size(), 1u) << "the job's artifact stays while the job is open";
  store.close_job("job-1");
  EXPECT_TRUE(bundles->list("sandbox/")->empty());
}

TEST_F(BundleFixture, a_blob_with_no_content_address_is_uploaded_per_run_and_goes_with_the_run) {
  auto run = store.stage(spec_reading(memory_blob("tree", "extracted tree"), "trivy"), seconds(10));
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(manifest_at(*bundles, *run).entries[0].url,
            "http://127.0.0.1/stub/bundles/" + run->run_prefix + "in-0?get&ttl=70");
  store.finish(*run);
  EXPECT_TRUE(bundles->list("sandbox/")->empty());
}

TEST_F(BundleFixture, an_artifact_cached_on_a_backend_that_cannot_presign_is_uploaded_as_if_uncached) {
  auto fs_root = ::testing::TempDir() + "/bundle-fs-" + std::to_string(::getpid());
  std::shared_ptr<core::StorageBackend> fs = filesystem_backend("disk", fs_root);
  auto r = std::make_shared<StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{fs, bundles}, "disk");
  auto blob = artifact();
  ASSERT_TRUE(r->store_blob(*blob, kSha));
  BundleStore s{bundles, r, BundleOptions{"sandbox/", seconds(60), "4242@host-a"}};
  auto run = s.stage(spec_reading(blob, "yara"), seconds(10));
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->bytes_in_place, 0u);
  EXPECT_EQ(manifest_at(*bundles, *run).entries[0].url,
            std::string("http://127.0.0.1/stub/bundles/sandbox/job-1/artifact-") + kSha + "?get&ttl=70");
  std::filesystem::remove_all(fs_root);
}

TEST_F(BundleFixture, the_result_is_read_only_after_a_head_says_it_is_within_the_ceiling) {
  auto run = store.stage(spec_reading(artifact(), "yara"), seconds(10));
  ASSERT_TRUE(run);
  auto none = store.read_result(*run);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().reason, core::SandboxError::Reason::kNoResult);
  // What a backend that ignores the signed length would keep: one byte over the ceiling.
  ASSERT_TRUE(bundles->put(run->out_key, std::string(wire::kOutTarMaxBytes + 1, 'x')));
  auto over = store.read_result(*run);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, core::SandboxError::Kind::kResultInvalid);
  EXPECT_NE(over.error().message.find("more than the"), std::string::npos) << over.error().message;
  ASSERT_TRUE(bundles->put(run->out_key, "tar bytes"));
  EXPECT_EQ(*store.read_result(*run), "tar bytes");
  store.finish(*run);
  store.close_job("job-1");
  EXPECT_TRUE(bundles->list("sandbox/")->empty());
}

TEST_F(BundleFixture, the_sweep_lists_on_the_leaf_and_finds_keys_the_router_never_saw) {
  // A dead worker of this host (a child that exited and was reaped), a live one's run in
  // flight, and another host's recent run.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const std::string dead = "sandbox/job-9/yara/1/" + std::to_string(child) + "@host-a-1/";
  ASSERT_TRUE(bundles->put(dead + "manifest.json", "{}"));
  ASSERT_TRUE(bundles->put(dead + "out.tar", "t"));
  ASSERT_TRUE(bundles->put("sandbox/job-9/yara/1/77@host-b-1/manifest.json", "{}"));
  auto live = store.stage(spec_reading(artifact(), "yara"), seconds(10));
  ASSERT_TRUE(live);

  auto swept = store.sweep(seconds(3600));
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_EQ(*swept, 1u) << "two keys of one run: one bundle";
  EXPECT_FALSE(bundles->head(dead + "manifest.json"));
  EXPECT_FALSE(bundles->head(dead + "out.tar"));
  EXPECT_TRUE(bundles->head("sandbox/job-9/yara/1/77@host-b-1/manifest.json"))
      << "another host's recent run is not ours";
  EXPECT_TRUE(bundles->head(live->manifest_key)) << "a run in flight is never swept";

  // Past orphan_after, any worker's keys go, but never a run in flight.
  EXPECT_EQ(*store.sweep(seconds(-1)), 1u);
  EXPECT_TRUE(bundles->head(live->manifest_key));
  store.finish(*live);
  store.close_job("job-1");
  EXPECT_TRUE(bundles->list("sandbox/")->empty());
}

}  // namespace
}  // namespace batlehub::adapters
