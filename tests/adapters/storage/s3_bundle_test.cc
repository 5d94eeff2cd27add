// The bundle module (adapters/storage/bundle.h) against a real S3 server: versitygw 1.8.0 on
// 127.0.0.1, started by the fixture "s3" (tests/s3_fixture.cmake). storage_test.cc has the
// same module with presigning stubbed; here every URL the module presigns is used for real,
// by a client without credentials, as the sandbox would: the manifest fetched through its
// GET URL and parsed, each input fetched through the URL the manifest names, out.tar PUT
// through its URL. Every test works under a bundle_prefix of its own ("sbt-<pid>-<n>/"), and
// under content of its own, so that the tests share the bucket and may run side by side.
//
// What versitygw answers, as these tests assert it:
//   - the manifest's GET URL with one hex digit of X-Amz-Signature flipped: 403
//     SignatureDoesNotMatch;
//   - out.tar's PUT URL used to GET: 403 SignatureDoesNotMatch (the method is signed);
//   - the manifest's GET URL used to PUT: 403 SignatureDoesNotMatch;
//   - the manifest's GET URL once the run is finished: 404 NoSuchKey (the signature still
//     holds; the key is gone);
//   - a bundle URL past valid_for + bundle_ttl: 403 AccessDenied;
//   - out.tar PUT one byte over kOutTarMaxBytes: 200, stored whole (the URL cannot bound
//     the length, s3_backend.h says why), and read_result refuses it from its HEAD alone.
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>

#include "adapters/sandbox/blob.h"
#include "adapters/storage/bundle.h"
#include "adapters/storage/router.h"
#include "adapters/storage/s3_backend.h"
#include "adapters/storage/s3_xml.h"
#include "run_specs.h"
#include "s3_peer.h"
#include "wire/caps.h"
#include "wire/manifest.h"

namespace batlehub::adapters {
namespace {

using core::StorageError;
using namespace std::chrono_literals;
using namespace batlehub::testing;

// The bundle's GETs and PUTs, given more time than the default.
HttpAnswer http(const std::string& method, const std::string& url, const std::string& body = "") {
  return batlehub::testing::http(method, url, body, HttpOptions{.timeout_seconds = 60});
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EXPECT_EQ(EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr), 1);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xf];
  }
  return out;
}

std::string hostname() {
  char buf[256] = {};
  EXPECT_EQ(::gethostname(buf, sizeof buf - 1), 0);
  return buf;
}

// A pid that names no process: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  EXPECT_GT(child, 0);
  EXPECT_EQ(::waitpid(child, nullptr, 0), child);
  return child;
}

// The S3 backend, every GET counted: how a test sees that read_result refused unread.
class Counting final : public core::StorageBackend {
 public:
  explicit Counting(std::shared_ptr<core::StorageBackend> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  std::string_view type() const override { return inner_->type(); }
  Expected<Ok, StorageError> put(const std::string& k, std::string_view b) override { return inner_->put(k, b); }
  Expected<Ok, StorageError> put_blob(const std::string& k, const core::Blob& b) override {
    return inner_->put_blob(k, b);
  }
  Expected<std::string, StorageError> get(const std::string& k, std::uint64_t m) override {
    ++gets;
    return inner_->get(k, m);
  }
  Expected<core::ObjectInfo, StorageError> head(const std::string& k) override { return inner_->head(k); }
  Expected<Ok, StorageError> remove(const std::string& k) override { return inner_->remove(k); }
  Expected<std::vector<core::ObjectInfo>, StorageError> list(const std::string& p) override { return inner_->list(p); }
  Expected<std::string, StorageError> presign_get(const std::string& k, std::chrono::seconds ttl) const override {
    return inner_->presign_get(k, ttl);
  }
  Expected<std::string, StorageError> presign_put(const std::string& k, std::chrono::seconds ttl,
                                                  std::uint64_t max) const override {
    return inner_->presign_put(k, ttl, max);
  }
  Expected<core::PresignedPost, StorageError> presign_post(const std::string& k, std::chrono::seconds ttl,
                                                           std::uint64_t max) const override {
    return inner_->presign_post(k, ttl, max);
  }
  std::atomic<int> gets = 0;

 private:
  std::shared_ptr<core::StorageBackend> inner_;
};

class S3BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    endpoint_ = env_or("BATLEHUB_TEST_S3_ENDPOINT");
    ASSERT_FALSE(endpoint_.empty()) << "BATLEHUB_TEST_S3_ENDPOINT is unset: run under ctest (fixture s3)";
    auto b = S3Backend::create(test_s3_config(endpoint_), test_s3_env());
    ASSERT_TRUE(b.has_value()) << b.error();
    s3_ = std::move(*b);
    leaf_ = std::make_shared<Counting>(s3_);
    router_ = std::make_shared<StorageRouter>(std::vector<std::shared_ptr<core::StorageBackend>>{s3_}, "s3test");
    static int n = 0;
    prefix_ = "sbt-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "/";
    worker_ = std::to_string(::getpid()) + "@" + hostname();
  }

  void TearDown() override {
    // Whatever a failed test left under its prefix.
    if (!s3_) return;
    if (auto keys = s3_->list(prefix_)) {
      for (const auto& k : *keys) (void)s3_->remove(k.key);
    }
  }

  BundleStore store(std::string worker = "", std::chrono::seconds ttl = 60s) {
    return BundleStore(leaf_, router_, BundleOptions{prefix_, ttl, worker.empty() ? worker_ : std::move(worker)});
  }

  std::vector<core::ObjectInfo> listed(const std::string& under = "") {
    auto keys = s3_->list(under.empty() ? prefix_ : under);
    EXPECT_TRUE(keys.has_value()) << keys.error().message;
    return keys ? *keys : std::vector<core::ObjectInfo>{};
  }

  // Bytes of this test's own: a sha256 no other test and no other run shares.
  std::string content(std::size_t n) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string s = std::string(info->name()) + " " + prefix_ + "\n";
    for (std::size_t i = 0; s.size() < n; ++i) s += static_cast<char>('a' + (i * 7) % 26);
    s.resize(n);
    return s;
  }

  std::shared_ptr<const core::Blob> file_artifact(const std::string& bytes, const std::string& sha) {
    const std::string path = ::testing::TempDir() + "/s3-bundle-" + prefix_.substr(0, prefix_.size() - 1);
    std::ofstream(path, std::ios::binary) << bytes;
    auto b = file_blob(path, sha);
    ::unlink(path.c_str());  // the blob keeps its descriptor
    EXPECT_TRUE(b.has_value()) << (b ? "" : b.error());
    return b ? *b : nullptr;
  }

  // What the sandbox does with its one URL: fetch the manifest and parse it.
  wire::Manifest fetch_manifest(const StagedRun& run, std::uint64_t* size = nullptr) {
    const HttpAnswer a = http("GET", run.manifest_url);
    EXPECT_EQ(a.status, 200) << a.body;
    if (size) *size = a.body.size();
    auto m = wire::parse_manifest(a.body);
    EXPECT_TRUE(m.has_value()) << a.body;
    return m ? *m : wire::Manifest{};
  }

  std::string endpoint_;
  std::shared_ptr<S3Backend> s3_;
  std::shared_ptr<Counting> leaf_;
  std::shared_ptr<StorageRouter> router_;
  std::string prefix_;
  std::string worker_;
};

// A run with no artifact: its manifest is all it stages.
core::RunSpec inline_only(std::string scanner, std::string job) {
  core::RunSpec s;
  s.argv = {"scanner", "/work/lock.json"};
  s.label = core::RunLabel{std::move(job), std::move(scanner), 1};
  s.bundle.entries.push_back(core::BundleEntry::inline_file(*wire::RelPath::parse("lock.json"), "{}"));
  return s;
}

std::string flip_signature_digit(std::string url) {
  const std::size_t at = url.find("X-Amz-Signature=");
  EXPECT_NE(at, std::string::npos) << url;
  if (at == std::string::npos) return url;
  char& c = url[at + std::strlen("X-Amz-Signature=")];
  c = c == '0' ? '1' : '0';
  return url;
}

TEST_F(S3BundleTest, an_uncached_artifact_is_uploaded_once_for_three_scanners_and_goes_when_the_job_closes) {
  const std::string bytes = content(3000);
  const std::string sha = sha256_hex(bytes);
  auto blob = file_artifact(bytes, sha);
  ASSERT_TRUE(blob);
  BundleStore s = store();
  const std::string artifact_key = prefix_ + "job-1/artifact-" + sha;

  std::vector<StagedRun> runs;
  std::optional<std::chrono::system_clock::time_point> first_modified;
  for (const char* scanner : {"guarddog", "yara", "trivy"}) {
    if (!runs.empty()) std::this_thread::sleep_for(1100ms);  // a re-upload would show in LastModified
    auto run = s.stage(spec_reading(blob, scanner, "job-1"), 60s);
    ASSERT_TRUE(run) << run.error().message;

    // The server's own listing: one artifact key, written once.
    std::vector<core::ObjectInfo> artifacts;
    for (const auto& o : listed()) {
      if (o.key.find("/artifact-") != std::string::npos) artifacts.push_back(o);
    }
    ASSERT_EQ(artifacts.size(), 1u) << scanner;
    EXPECT_EQ(artifacts[0].key, artifact_key);
    EXPECT_EQ(artifacts[0].size, bytes.size());
    if (!first_modified) first_modified = artifacts[0].last_modified;
    EXPECT_EQ(artifacts[0].last_modified, *first_modified) << scanner << ": the artifact was written again";

    // The sandbox's side: the manifest through its URL, the artifact through the manifest's.
    std::uint64_t manifest_size = 0;
    const wire::Manifest m = fetch_manifest(*run, &manifest_size);
    ASSERT_EQ(m.entries.size(), 2u);
    EXPECT_EQ(m.entries[0].kind, wire::EntryKind::kArchive);
    EXPECT_EQ(m.entries[0].size, bytes.size());
    EXPECT_TRUE(m.entries[0].url.starts_with(endpoint_ + "/")) << m.entries[0].url;
    EXPECT_NE(m.entries[0].url.find("/artifact-" + sha + "?"), std::string::npos) << m.entries[0].url;
    const HttpAnswer art = http("GET", m.entries[0].url);
    EXPECT_EQ(art.status, 200) << art.body;
    EXPECT_TRUE(art.body == bytes) << scanner << ": the artifact URL fetched other bytes";
    EXPECT_EQ(m.entries[1].bytes, "{}");

    EXPECT_EQ(run->bytes_in_place, 0u);
    const std::uint64_t artifact_part = runs.empty() ? bytes.size() : 0;
    EXPECT_EQ(run->bytes_uploaded, artifact_part + manifest_size) << scanner;
    runs.push_back(*run);
  }

  for (const auto& r : runs) s.finish(r);
  const auto after_runs = listed();
  ASSERT_EQ(after_runs.size(), 1u) << "the job's artifact stays while the job is open";
  EXPECT_EQ(after_runs[0].key, artifact_key);
  s.close_job("job-1");
  EXPECT_TRUE(listed().empty());
}

TEST_F(S3BundleTest, a_cached_artifact_is_presigned_in_place_and_only_manifests_are_uploaded) {
  const std::string bytes = content(2000);
  const std::string sha = sha256_hex(bytes);
  auto blob = file_artifact(bytes, sha);
  ASSERT_TRUE(blob);
  ASSERT_TRUE(router_->store_blob(*blob, sha));
  auto cached = s3_->head(blob_key(sha));
  ASSERT_TRUE(cached) << cached.error().message;
  ASSERT_EQ(cached->size, bytes.size());

  BundleStore s = store();
  for (const char* scanner : {"guarddog", "yara", "trivy"}) {
    std::this_thread::sleep_for(1100ms);  // a rewrite of blob/<sha> would show in LastModified
    auto run = s.stage(spec_reading(blob, scanner, "job-1"), 60s);
    ASSERT_TRUE(run) << run.error().message;
    std::uint64_t manifest_size = 0;
    const wire::Manifest m = fetch_manifest(*run, &manifest_size);
    EXPECT_EQ(run->bytes_uploaded, manifest_size) << scanner;
    EXPECT_EQ(run->bytes_in_place, bytes.size()) << scanner;
    ASSERT_EQ(m.entries.size(), 2u);
    EXPECT_TRUE(m.entries[0].url.starts_with(endpoint_ + "/" + BATLEHUB_TEST_S3_BUCKET + "/blob/" + sha + "?"))
        << m.entries[0].url;
    const HttpAnswer art = http("GET", m.entries[0].url);
    EXPECT_EQ(art.status, 200) << art.body;
    EXPECT_TRUE(art.body == bytes) << scanner << ": the blob URL fetched other bytes";

    for (const auto& o : listed()) EXPECT_EQ(o.key.find("artifact-"), std::string::npos) << o.key;
    auto now = s3_->head(blob_key(sha));
    ASSERT_TRUE(now) << now.error().message;
    EXPECT_EQ(now->last_modified, cached->last_modified) << scanner << ": blob/<sha> was written again";
    s.finish(*run);
  }
  s.close_job("job-1");
  EXPECT_TRUE(listed().empty());

  // Outside the prefix: the test's own cache entries.
  ASSERT_TRUE(s3_->remove(blob_key(sha)));
  EXPECT_EQ(s3_->head(blob_key(sha)).error().kind, StorageError::Kind::kNotFound);
}

TEST_F(S3BundleTest, the_result_comes_back_through_the_presigned_post_and_the_storage_refuses_one_over_the_ceiling) {
  BundleStore s = store();
  auto run = s.stage(inline_only("yara", "job-1"), 60s);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->out_url.starts_with("post+" + endpoint_ + "/")) << run->out_url;

  auto none = s.read_result(*run);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().reason, core::SandboxError::Reason::kNoResult) << none.error().message;

  const std::string small = "a small out.tar, " + prefix_;
  const HttpAnswer put = post(run->out_url, small);
  ASSERT_EQ(put.status, 204) << put.error << put.body;
  auto got = s.read_result(*run);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, small);

  // One byte over the ceiling: the storage refuses it itself (the policy's
  // content-length-range), and what was there stays.
  const std::string over(wire::kOutTarMaxBytes + 1, 'x');
  const HttpAnswer big = post(run->out_url, over);
  EXPECT_EQ(big.status, 400) << big.error << big.body;
  EXPECT_EQ(s3::parse_error_code(big.body), "EntityTooLarge") << big.body;
  auto kept = s3_->head(run->out_key);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->size, small.size());

  // An endpoint that did not hold to the policy would still not be read: written here with the
  // worker's own keys, read_result refuses it from the HEAD, never asking for the body.
  ASSERT_TRUE(s3_->put(run->out_key, over));
  auto info = s3_->head(run->out_key);
  ASSERT_TRUE(info) << info.error().message;
  ASSERT_EQ(info->size, wire::kOutTarMaxBytes + 1);
  const int gets_before = leaf_->gets.load();
  auto refused = s.read_result(*run);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, core::SandboxError::Kind::kResultInvalid) << refused.error().message;
  EXPECT_NE(refused.error().message.find(std::to_string(wire::kOutTarMaxBytes)), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("on the bundle backend"), std::string::npos)
      << "the HEAD refused it, not a read cut short: " << refused.error().message;
  EXPECT_EQ(leaf_->gets.load(), gets_before) << "out.tar was downloaded";

  s.finish(*run);
  EXPECT_TRUE(listed(run->run_prefix).empty());
  EXPECT_TRUE(listed().empty());
}

TEST_F(S3BundleTest, each_url_does_one_thing_on_one_key_while_the_key_lives) {
  BundleStore s = store();
  auto run = s.stage(inline_only("guarddog", "job-1"), 60s);
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_EQ(http("GET", run->manifest_url).status, 200);

  const HttpAnswer tampered = http("GET", flip_signature_digit(run->manifest_url));
  EXPECT_EQ(tampered.status, 403) << tampered.body;
  EXPECT_EQ(s3::parse_error_code(tampered.body), "SignatureDoesNotMatch") << tampered.body;

  // The result's form reads nothing (its URL is the bucket's, unsigned) and writes only its
  // own key: a form whose key was changed is refused by the policy.
  const HttpAnswer out_read = http("GET", post_form_of(run->out_url).url);
  EXPECT_EQ(out_read.status, 403) << "a POST form cannot read: " << out_read.body;
  const std::string elsewhere = prefix_ + "job-1/guarddog/1/elsewhere/out.tar";
  const HttpAnswer moved = post(run->out_url, "t", {"key", elsewhere});
  EXPECT_EQ(moved.status, 403) << "a POST form cannot write another key: " << moved.body;
  EXPECT_EQ(s3_->head(elsewhere).error().kind, StorageError::Kind::kNotFound);

  const std::string manifest_before = http("GET", run->manifest_url).body;
  const HttpAnswer write = http("PUT", run->manifest_url, "{\"wire\":1,\"argv\":[\"evil\"]}");
  EXPECT_EQ(write.status, 403) << "a GET URL cannot write: " << write.body;
  EXPECT_EQ(s3::parse_error_code(write.body), "SignatureDoesNotMatch") << write.body;
  EXPECT_EQ(http("GET", run->manifest_url).body, manifest_before) << "the manifest was overwritten";
  EXPECT_EQ(s3_->head(run->out_key).error().kind, StorageError::Kind::kNotFound);

  s.finish(*run);
  const HttpAnswer gone = http("GET", run->manifest_url);
  EXPECT_TRUE(gone.status == 404 || gone.status == 403) << gone.status << ": " << gone.body;
  EXPECT_TRUE(listed().empty());
}

TEST_F(S3BundleTest, the_sweep_removes_a_dead_workers_run_from_the_leaf_and_never_a_run_in_flight) {
  const std::string host = hostname();
  const std::string dead_worker = std::to_string(dead_pid()) + "@" + host;
  BundleStore dead = store(dead_worker);
  auto orphan = dead.stage(inline_only("yara", "job-9"), 60s);
  ASSERT_TRUE(orphan) << orphan.error().message;
  EXPECT_NE(orphan->run_prefix.find("/" + dead_worker + "-"), std::string::npos) << orphan->run_prefix;
  // The sandbox wrote back, and then the worker died without finishing the run.
  ASSERT_EQ(post(orphan->out_url, "t").status, 204);
  EXPECT_EQ(listed(orphan->run_prefix).size(), 2u);

  // Another host's recent run, written through a presigned PUT as well.
  const std::string elsewhere = prefix_ + "job-9/yara/1/77@another-host-1/out.tar";
  auto elsewhere_url = s3_->presign_put(elsewhere, 60s, wire::kOutTarMaxBytes);
  ASSERT_TRUE(elsewhere_url) << elsewhere_url.error().message;
  ASSERT_EQ(http("PUT", *elsewhere_url, "e").status, 200);

  BundleStore here = store();
  auto live = here.stage(inline_only("yara", "job-1"), 60s);
  ASSERT_TRUE(live) << live.error().message;

  const std::size_t before = listed().size();
  ASSERT_EQ(before, 4u);
  auto swept = here.sweep(3600s);
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_EQ(*swept, 1u) << "the dead worker's manifest and out.tar: one run's bundle";
  EXPECT_EQ(listed().size(), before - 2) << "its two keys were removed";
  EXPECT_TRUE(listed(orphan->run_prefix).empty()) << "the dead worker's manifest and out.tar are gone";
  EXPECT_TRUE(s3_->head(elsewhere)) << "another host's recent run is not this host's to judge";
  EXPECT_TRUE(s3_->head(live->manifest_key)) << "a run in flight here is never swept";

  // Past orphan_after every key goes, whoever wrote it, but never a run in flight.
  auto all = here.sweep(-1s);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(*all, 1u);
  EXPECT_FALSE(s3_->head(elsewhere));
  EXPECT_TRUE(s3_->head(live->manifest_key));
  const auto left = listed();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].key, live->manifest_key);

  here.finish(*live);
  EXPECT_TRUE(listed().empty());
}

TEST_F(S3BundleTest, the_bundle_urls_expire_after_valid_for_plus_the_bundle_ttl) {
  BundleStore s = store("", 1s);
  auto run = s.stage(inline_only("trivy", "job-1"), 1s);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_NE(run->manifest_url.find("X-Amz-Expires=2&"), std::string::npos) << run->manifest_url;
  // The result's form carries its deadline in the signed policy.
  EXPECT_EQ(http("GET", run->manifest_url).status, 200);
  std::this_thread::sleep_for(2500ms);
  const HttpAnswer late = http("GET", run->manifest_url);
  EXPECT_EQ(late.status, 403) << late.body;
  EXPECT_EQ(s3::parse_error_code(late.body), "AccessDenied") << late.body;
  EXPECT_EQ(post(run->out_url, "late").status, 403);
  EXPECT_EQ(s3_->head(run->out_key).error().kind, StorageError::Kind::kNotFound);
  s.finish(*run);
  EXPECT_TRUE(listed().empty());
}

}  // namespace
}  // namespace batlehub::adapters
