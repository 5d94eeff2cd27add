// `batlehub --config FILE --roles worker` with upstream's `[storage]` on the tests' S3
// server (versitygw, the fixture "s3"), its keys from each link of the AWS credential chain
// in the worker's environment: the environment, a shared credentials file, web identity and
// the container endpoint (the last two through their stand-in on loopback,
// tests/scripts/aws-credentials-peer.py). With the right keys the worker gets past storage —
// to "ready" where bwrap can prove the walls (the release tree), to its sandbox's probe
// otherwise (the sanitizer tree's agent is not static, and the walls fail there, after
// storage); with a wrong secret, an absent bucket or an endpoint nobody listens on it stops
// at once, exit 2, the S3 reason on stderr.
#include <gtest/gtest.h>

#include "aws_links.h"
#include "rooms.h"
#include "s3_peer.h"
#include "worker_peer.h"

namespace batlehub::testing {
namespace {

class WorkerS3Credentials : public ::testing::TestWithParam<AwsLink> {
 protected:
  void SetUp() override {
    if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
    endpoint_ = env_or("BATLEHUB_TEST_S3_ENDPOINT");
    ASSERT_FALSE(endpoint_.empty()) << "BATLEHUB_TEST_S3_ENDPOINT is unset: run under ctest (fixture s3)";
    rooms_ = s_.root() / "rooms";
    tmp_ = s_.root() / "tmp";
    fs::create_directories(rooms_);
    fs::create_directories(tmp_);
    fs::permissions(tmp_, fs::perms::all | fs::perms::sticky_bit);
    walls_ = bwrap_unavailable().empty();
    if (walls_) {
      ASSERT_TRUE(build_room(rooms_, "postmortem",
                             "--binary " + std::string(BATLEHUB_HELPERS_DIR) + "/fake_postmortem:/usr/bin/postmortem"));
    }
  }

  // An upstream-shaped configuration: [storage] is upstream's single s3 backend.
  fs::path config(const std::string& endpoint, const std::string& bucket = BATLEHUB_TEST_S3_BUCKET) {
    const fs::path p = s_.root() / "config.toml";
    Scratch::write(p,
                   "[server]\nhost = \"127.0.0.1\"\nport = 0\n\n"
                   "[storage]\ntype = \"s3\"\nbucket = \"" +
                       bucket +
                       "\"\nregion = \"us-east-1\"\n"
                       "endpoint_url = \"" +
                       endpoint +
                       "\"\nforce_path_style = true\n\n"
                       "[worker]\nstate_dir = \"" +
                       (s_.root() / "state").string() +
                       "\"\nregistries = [\"npm\"]\njob_timeout_secs = 20\n\n"
                       "[worker.sandbox]\nrooms_dir = \"" +
                       rooms_.string() +
                       "\"\nprobe_canaries = [\"127.0.0.1:9\"]\n\n"
                       "[scanners.postmortem]\ntype = \"postmortem\"\ncommand = \"postmortem\"\ntimeline = false\n");
    return p;
  }

  // The worker with `secret` from GetParam()'s link in its environment, and nothing else
  // of the test's.
  std::unique_ptr<Process> start(const fs::path& cfg, const std::string& secret) {
    link_ = aws_link_setup(GetParam(), secret, s_.root());
    EXPECT_EQ(link_.error, "");
    std::vector<std::string> env{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp_.string()};
    for (auto& kv : link_.as_environ()) env.push_back(std::move(kv));
    return std::make_unique<Process>(
        std::vector<std::string>{BATLEHUB_BIN, "--config", cfg.string(), "--roles", "worker"}, env, s_.root() / "w.out",
        s_.root() / "w.err");
  }

  // A worker that must stop before anything but storage: exit 2, `why` on stderr, no
  // listener ever opened.
  void expect_stopped_at_storage(Process& w, const std::string& why) {
    const auto status = w.wait_exit(60s);
    ASSERT_TRUE(status.has_value()) << "the worker did not stop\n" << w.err();
    EXPECT_EQ(*status, 2) << w.out() << w.err();
    EXPECT_NE(w.err().find(why), std::string::npos) << w.err();
    EXPECT_FALSE(w.logged("listening for /livez and /metrics")) << w.err();
  }

  std::string unreachable(const std::string& endpoint, const std::string& bucket = BATLEHUB_TEST_S3_BUCKET) const {
    return "storage backend 'default' (" + endpoint + ", path-style): S3 bucket '" + bucket + "' is not reachable: ";
  }

  Scratch s_;
  fs::path rooms_, tmp_;
  std::string endpoint_;
  bool walls_ = false;
  AwsLinkSetup link_;
};

TEST_P(WorkerS3Credentials, the_worker_gets_past_storage_with_the_links_keys) {
  auto w = start(config(endpoint_), BATLEHUB_TEST_S3_SECRET_KEY);
  if (walls_) {
    ASSERT_TRUE(w->wait_for_log("INFO security worker: ready (")) << w->out() << w->err();
    w->signal(SIGTERM);
    EXPECT_EQ(w->wait_exit(60s), 0) << w->err();
  } else {
    // After storage: the listener, then the sandbox's probe, which this tree's dynamically
    // linked agent cannot pass (exit 1, "refusing to start").
    ASSERT_TRUE(w->wait_for_log("listening for /livez and /metrics on")) << w->out() << w->err();
    const auto status = w->wait_exit(120s);
    ASSERT_TRUE(status.has_value()) << w->err();
    EXPECT_EQ(*status, 1) << w->out() << w->err();
    EXPECT_TRUE(w->logged("refusing to start")) << w->err();
  }
  EXPECT_FALSE(w->logged("is not reachable")) << w->err();
  if (link_.peer) {
    const std::string stats = link_.peer->stats();
    EXPECT_EQ(stats.find(GetParam() == AwsLink::kWebIdentity ? "\"sts\": 0," : "\"container\": 0,"), std::string::npos)
        << "the worker never asked the stand-in: " << stats;
  }
}

TEST_P(WorkerS3Credentials, a_wrong_secret_stops_the_worker_with_s3s_reason) {
  auto w = start(config(endpoint_), "not-the-secret");
  expect_stopped_at_storage(*w, unreachable(endpoint_) + "SignatureDoesNotMatch (HTTP 403)");
  EXPECT_EQ(w->err().find("not-the-secret"), std::string::npos) << w->err();
}

TEST_P(WorkerS3Credentials, an_absent_bucket_stops_the_worker) {
  const std::string bucket = "absent-" + std::to_string(::getpid());
  auto w = start(config(endpoint_, bucket), BATLEHUB_TEST_S3_SECRET_KEY);
  expect_stopped_at_storage(*w, unreachable(endpoint_, bucket) + "NoSuchBucket (HTTP 404)");
}

TEST_P(WorkerS3Credentials, an_endpoint_nobody_listens_on_stops_the_worker) {
  const std::string closed = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  auto w = start(config(closed), BATLEHUB_TEST_S3_SECRET_KEY);
  expect_stopped_at_storage(*w, unreachable(closed) + "Couldn't connect to server");
}

INSTANTIATE_TEST_SUITE_P(Links, WorkerS3Credentials,
                         ::testing::Values(AwsLink::kEnvironment, AwsLink::kSharedFile, AwsLink::kWebIdentity,
                                           AwsLink::kContainer),
                         [](const auto& i) { return aws_link_name(i.param); });

// No link applies: the worker names each one it tried and stops.
TEST(WorkerS3NoCredentials, the_worker_names_every_link_it_tried) {
  if (auto why = s3_peer_unavailable(); !why.empty()) GTEST_SKIP() << why;
  Scratch s;
  const fs::path cfg = s.root() / "config.toml";
  Scratch::write(cfg,
                 "[server]\nhost = \"127.0.0.1\"\nport = 0\n[storage]\ntype = \"s3\"\nbucket = \"batlehub-test\"\n"
                 "region = \"us-east-1\"\nendpoint_url = \"http://127.0.0.1:1\"\nforce_path_style = true\n"
                 "[worker]\nstate_dir = \"" +
                     (s.root() / "state").string() + "\"\n");
  Process w({BATLEHUB_BIN, "--config", cfg.string(), "--roles", "worker"},
            {"PATH=/usr/bin:/bin", "HOME=" + (s.root() / "home").string()}, s.root() / "w.out", s.root() / "w.err");
  const auto status = w.wait_exit(60s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 2) << w.err();
  for (const char* said : {"no AWS credentials: the environment: ", "; the shared files: ", "; web identity: ",
                           "; the container endpoint: ", "; instance metadata (IMDS): not in this build"}) {
    EXPECT_NE(w.err().find(said), std::string::npos) << said << "\n" << w.err();
  }
}

}  // namespace
}  // namespace batlehub::testing
