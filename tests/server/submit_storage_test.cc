// `batlehub submit` with an S3 default backend, as an operator runs it: the artifact is
// cached the way upstream's deduplicating router caches it (upstream-storage-and-queue.md
// A.6) — its content once as blob/<sha256>, the logical key's rows in the dedup tables, and
// nothing at the logical key itself (upstream would read an object there as the artifact) —
// then queued. Against versitygw on loopback (the fixture "s3").
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "adapters/queue/sqlite_queue.h"
#include "adapters/storage/router.h"
#include "adapters/storage/s3_backend.h"
#include "s3_peer.h"
#include "scratch.h"

namespace batlehub::server {
namespace {

using batlehub::testing::Scratch;
namespace fs = std::filesystem;

struct Ran {
  int status = 0;
  std::string out;
};

Ran batlehub(const std::vector<std::string>& args, const fs::path& out) {
  // The keys reach the S3 backend as upstream's do: the AWS chain's environment link.
  std::string cmd = "env -i PATH=/usr/bin:/bin AWS_ACCESS_KEY_ID=" + std::string(BATLEHUB_TEST_S3_ACCESS_KEY) +
                    " AWS_SECRET_ACCESS_KEY=" + std::string(BATLEHUB_TEST_S3_SECRET_KEY) + " '" +
                    std::string(BATLEHUB_BIN) + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " > '" + out.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return Ran{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, Scratch::read(out)};
}

class SubmitToStorage : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = batlehub::testing::s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    registry_ = "npm-submit-" + std::to_string(::getpid());
    s3_config_ = batlehub::testing::test_s3_config(BATLEHUB_TEST_S3_ENDPOINT_BUILT, "s3");
  }

  fs::path config(const std::string& endpoint) {
    fs::path p = s_.root() / "config.toml";
    Scratch::write(p, "[worker]\nstate_dir = \"" + (s_.root() / "state").string() + "\"\nregistries = [\"" + registry_ +
                          "\"]\n[storage]\ntype = \"s3\"\nendpoint_url = \"" + endpoint + "\"\nbucket = \"" +
                          BATLEHUB_TEST_S3_BUCKET + "\"\nregion = \"us-east-1\"\nforce_path_style = true\n");
    return p;
  }

  fs::path archive(const std::string& name, const std::string& bytes) {
    fs::path p = s_.root() / name;
    Scratch::write(p, bytes);
    return p;
  }

  Scratch s_;
  std::string registry_;
  config::StorageBackendConfig s3_config_;
};

TEST_F(SubmitToStorage, the_artifact_is_queued_and_its_blob_and_ref_are_where_the_router_presigns_them) {
  // Bytes unique to this run, so that the blob is this test's alone.
  const std::string bytes = "not really a tarball " + std::to_string(::getpid()) + "\n";
  Ran r = batlehub({"submit", "--config", config(BATLEHUB_TEST_S3_ENDPOINT_BUILT).string(), "--registry", registry_,
                    archive("leftpad-1.3.0.tgz", bytes).string()},
                   s_.root() / "submit.out");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  const auto at = r.out.find("sha256:");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string sha = r.out.substr(at + 7, 64);

  auto s3 = adapters::S3Backend::create(s3_config_, batlehub::testing::test_s3_env());
  ASSERT_TRUE(s3) << s3.error();
  std::shared_ptr<core::StorageBackend> backend(std::move(*s3));
  EXPECT_EQ(*backend->get(adapters::blob_key(sha), 1 << 20), bytes);
  // Upstream's key for an npm tarball; nothing stored at it.
  const std::string logical = "artifact:" + registry_ + "/leftpad/1.3.0/tarball";
  EXPECT_EQ(backend->head(logical).error().kind, core::StorageError::Kind::kNotFound);
  auto q = adapters::open_sqlite_queue((s_.root() / "state" / "queue.sqlite3").string());
  ASSERT_TRUE(q) << q.error().message;
  auto rows = (*q)->cached_artifacts(logical, false);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].content_hash, sha);
  EXPECT_EQ((*rows)[0].content_key, adapters::blob_key(sha));
  EXPECT_EQ((*rows)[0].size_bytes, static_cast<std::int64_t>(bytes.size()));
  EXPECT_EQ((*rows)[0].backend_name, std::optional<std::string>("default")) << "the single shape's one backend";
  // Where the storage transport presigns it from.
  adapters::StorageRouter router({backend}, "s3");
  auto where = router.locate_blob(sha);
  ASSERT_TRUE(where) << where.error().message;
  auto url = where->backend->presign_get(where->key, std::chrono::seconds(60));
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_NE(url->find("/" + std::string(BATLEHUB_TEST_S3_BUCKET) + "/blob/" + sha + "?"), std::string::npos) << *url;

  // The same content under a second name: a second ref to the same content, no second blob.
  const auto before = backend->head(adapters::blob_key(sha));
  ASSERT_TRUE(before);
  Ran again = batlehub({"submit", "--config", config(BATLEHUB_TEST_S3_ENDPOINT_BUILT).string(), "--registry", registry_,
                        archive("rightpad-1.0.0.tgz", bytes).string()},
                       s_.root() / "again.out");
  ASSERT_EQ(again.status, 0) << again.out;
  auto second = (*q)->cached_artifacts("artifact:" + registry_ + "/rightpad/1.0.0/tarball", false);
  ASSERT_TRUE(second && second->size() == 1u);
  EXPECT_EQ((*second)[0].content_hash, sha);
  EXPECT_EQ(backend->head(adapters::blob_key(sha))->last_modified, before->last_modified);

  (void)backend->remove(adapters::blob_key(sha));
}

// The worker reads artifacts from [storage] only: an archive that cannot be cached is not
// queued, and the bucket's own answer says why (HeadBucket, as the worker asks at start).
TEST_F(SubmitToStorage, an_unreachable_cache_is_said_and_nothing_is_queued) {
  Ran r = batlehub({"submit", "--config", config("http://127.0.0.1:9").string(), "--registry", registry_,
                    archive("leftpad-1.3.1.tgz", "x").string()},
                   s_.root() / "submit.out");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("S3 bucket '" + std::string(BATLEHUB_TEST_S3_BUCKET) + "' is not reachable"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("queued"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace batlehub::server
