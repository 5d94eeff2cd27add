// The kubernetes runtime's pure parts, as data: the worker's credentials from a kubeconfig
// or the in-cluster service account, and where a pod stands from its object. The runtime
// itself runs on a real cluster in kubernetes_runtime_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "adapters/sandbox/kube_api.h"
#include "adapters/sandbox/kubernetes.h"

namespace batlehub::adapters {
namespace {

namespace fs = std::filesystem;

class KubeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kubeconfig-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string kubeconfig(const std::string& user, const std::string& cluster_extra = "",
                         const std::string& server = "https://127.0.0.1:6443") {
    return write("kubeconfig",
                 "apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: " + server +
                     "\n    certificate-authority: ca.crt\n" + cluster_extra + "users:\n- name: worker\n  user:\n" +
                     user +
                     "contexts:\n- name: main\n  context: {cluster: local, user: worker, namespace: sbx}\n"
                     "- name: other\n  context: {cluster: local, user: worker}\n"
                     "current-context: main\n");
  }
  fs::path dir_;
};

TEST_F(KubeConfigTest, the_current_contexts_server_ca_token_and_namespace_are_read_with_paths_relative_to_it) {
  write("ca.crt", "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
  auto c = load_kubeconfig(kubeconfig("    token: abc123\n"));
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(c->token, "abc123");
  EXPECT_EQ(c->namespace_, "sbx");
  EXPECT_NE(c->source.find("(context main)"), std::string::npos) << c->source;
}

TEST_F(KubeConfigTest, a_named_context_is_used_instead_of_the_current_one) {
  write("ca.crt", "x");
  auto c = load_kubeconfig(kubeconfig("    token: abc\n"), "other");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->namespace_, "");
  auto missing = load_kubeconfig(kubeconfig("    token: abc\n"), "nowhere");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("no context 'nowhere'"), std::string::npos) << missing.error();
}

TEST_F(KubeConfigTest, inline_client_certificates_are_decoded_and_a_token_file_is_kept_as_a_path) {
  write("ca.crt", "x");
  // "cert\n" and "key" in base64, one padded twice and one not at all.
  auto c = load_kubeconfig(kubeconfig("    client-certificate-data: Y2VydAo=\n    client-key-data: a2V5\n"));
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->client_cert_pem, "cert\n");
  EXPECT_EQ(c->client_key_pem, "key");
  auto f = load_kubeconfig(kubeconfig("    tokenFile: token\n"));
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->token_file, (dir_ / "token").string());
}

TEST_F(KubeConfigTest, what_the_worker_will_not_do_is_refused_by_name) {
  write("ca.crt", "x");
  struct Case {
    std::string user, cluster_extra, server, says;
  } cases[] = {
      {"    exec: {command: aws}\n", "", "https://127.0.0.1:6443", "helper program"},
      {"    token: t\n", "    insecure-skip-tls-verify: true\n", "https://127.0.0.1:6443", "insecure-skip-tls-verify"},
      {"    token: t\n", "", "http://127.0.0.1:8080", "must be https://"},
      {"    client-certificate-data: Y2VydAo=\n", "", "https://127.0.0.1:6443", "without its key"},
      {"    username: u\n", "", "https://127.0.0.1:6443", "no token, tokenFile or client certificate"},
      {"    client-key-data: '!!!!'\n    client-certificate-data: Y2VydAo=\n", "", "https://127.0.0.1:6443",
       "not base64"},
  };
  for (const auto& k : cases) {
    auto c = load_kubeconfig(kubeconfig(k.user, k.cluster_extra, k.server));
    ASSERT_FALSE(c) << k.says;
    EXPECT_NE(c.error().find(k.says), std::string::npos) << c.error();
  }
}

TEST_F(KubeConfigTest, a_file_that_is_not_a_kubeconfig_is_refused_with_its_path) {
  auto not_yaml = load_kubeconfig(write("bad", "a: [unclosed"));
  ASSERT_FALSE(not_yaml);
  EXPECT_NE(not_yaml.error().find("is not YAML"), std::string::npos) << not_yaml.error();
  auto list = load_kubeconfig(write("list", "- a\n- b\n"));
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().find("not a mapping"), std::string::npos) << list.error();
  auto huge = load_kubeconfig(write("huge", std::string(2 * 1024 * 1024, '#')));
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().find("larger than"), std::string::npos) << huge.error();
  auto absent = load_kubeconfig((dir_ / "absent").string());
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().find((dir_ / "absent").string()), std::string::npos) << absent.error();
}

TEST_F(KubeConfigTest, in_cluster_credentials_come_from_the_environment_and_the_service_account_directory) {
  auto outside = in_cluster_credentials(config::env_of({}), dir_.string());
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().find("not in a cluster"), std::string::npos) << outside.error();
  auto env = config::env_of({{"KUBERNETES_SERVICE_HOST", "127.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "6443"}});
  auto no_token = in_cluster_credentials(env, dir_.string());
  ASSERT_FALSE(no_token);
  EXPECT_NE(no_token.error().find("automountServiceAccountToken"), std::string::npos) << no_token.error();
  write("token", "tok\n");
  write("ca.crt", "ca");
  write("namespace", "batlehub\n");
  auto c = in_cluster_credentials(env, dir_.string());
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->token_file, (dir_ / "token").string());
  EXPECT_EQ(c->ca_pem, "ca");
  EXPECT_EQ(c->namespace_, "batlehub");
  auto v6 = in_cluster_credentials(
      config::env_of({{"KUBERNETES_SERVICE_HOST", "::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}), dir_.string());
  ASSERT_TRUE(v6) << v6.error();
  EXPECT_EQ(v6->server, "https://[::1]:443");
}

TEST(KubeEscape, keeps_unreserved_characters_and_encodes_the_rest) {
  EXPECT_EQ(kube_escape("metadata.name=batlehub-sbx-a_b~"), "metadata.name%3Dbatlehub-sbx-a_b~");
  EXPECT_EQ(kube_escape("a,b/c d"), "a%2Cb%2Fc%20d");
}

nlohmann::json pod(const std::string& status) {
  return nlohmann::json::parse(R"({"metadata":{"name":"p"},"status":)" + status + "}");
}

TEST(PodState, a_pending_or_running_pod_is_on_its_way) {
  EXPECT_EQ(pod_state(pod(R"({"phase":"Pending"})")).where, PodState::Where::kRunning);
  EXPECT_EQ(pod_state(pod(R"({"phase":"Running","containerStatuses":[{"state":{"running":{}}}]})")).where,
            PodState::Where::kRunning);
  // A container waiting for a reason that passes (its image being unpacked) is on its way too.
  EXPECT_EQ(
      pod_state(
          pod(R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ContainerCreating"}}}]})"))
          .where,
      PodState::Where::kRunning);
}

// What start_timeout reads: whether the sandbox's container has started, and until then
// what it waits on, in the kubelet's words, kept short.
TEST(PodState, says_whether_the_container_started_and_else_what_it_waits_on) {
  auto pending = pod_state(pod(R"({"phase":"Pending"})"));
  EXPECT_FALSE(pending.started);
  EXPECT_EQ(pending.waiting, "Pending");
  EXPECT_EQ(pod_state(nlohmann::json::parse(R"({"metadata":{}})")).waiting, "not yet scheduled");
  auto init =
      pod_state(pod(R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"PodInitializing"}}}]})"));
  EXPECT_FALSE(init.started);
  EXPECT_EQ(init.waiting, "PodInitializing");
  auto pulling = pod_state(pod(
      R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ContainerCreating","message":"pulling\nimage"}}}]})"));
  EXPECT_EQ(pulling.waiting, "ContainerCreating: pulling image");
  EXPECT_TRUE(pod_state(pod(R"({"phase":"Running","containerStatuses":[{"state":{"running":{}}}]})")).started);
  EXPECT_TRUE(
      pod_state(pod(R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"exitCode":1}}}]})")).started);
}

TEST(PodState, an_ended_pod_says_its_phase_and_why) {
  auto ok = pod_state(pod(
      R"({"phase":"Succeeded","containerStatuses":[{"state":{"terminated":{"reason":"Completed","exitCode":0}}}]})"));
  EXPECT_EQ(ok.where, PodState::Where::kEnded);
  EXPECT_EQ(ok.phase, "Succeeded");
  EXPECT_EQ(ok.reason, "Completed");
  EXPECT_EQ(ok.detail, "exit code 0");
  auto oom = pod_state(pod(
      R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"reason":"OOMKilled","exitCode":137}}}]})"));
  EXPECT_EQ(oom.where, PodState::Where::kEnded);
  EXPECT_EQ(oom.reason, "OOMKilled");
  EXPECT_EQ(oom.detail, "exit code 137");
  // The pod's own reason comes first: activeDeadlineSeconds passed.
  auto late = pod_state(pod(
      R"({"phase":"Failed","reason":"DeadlineExceeded","message":"Pod was active on the node longer than the specified deadline","containerStatuses":[{"state":{"terminated":{"reason":"Error","exitCode":137}}}]})"));
  EXPECT_EQ(late.reason, "DeadlineExceeded");
  EXPECT_EQ(late.detail, "Pod was active on the node longer than the specified deadline");
}

TEST(PodState, the_sandboxs_own_termination_message_is_kept_short_and_on_one_line) {
  // /dev/termination-log is the sandbox's to write: 4 KiB of it, with line breaks.
  nlohmann::json p =
      pod(R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"reason":"Error","exitCode":1}}}]})");
  p["status"]["containerStatuses"][0]["state"]["terminated"]["message"] =
      "forged\nINFO all clean\n" + std::string(4000, 'x');
  auto s = pod_state(p);
  EXPECT_EQ(s.detail.rfind("exit code 1: forged INFO all clean ", 0), 0u) << s.detail;
  EXPECT_LE(s.detail.size(), 256u + 13u);
  EXPECT_EQ(s.detail.find('\n'), std::string::npos);
}

TEST(PodState, a_container_that_can_never_start_is_said_at_once) {
  auto s = pod_state(pod(
      R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ErrImageNeverPull","message":"image \"x\" is not present"}}}]})"));
  EXPECT_EQ(s.where, PodState::Where::kCannotStart);
  EXPECT_EQ(s.reason, "ErrImageNeverPull");
  EXPECT_EQ(s.detail, "image \"x\" is not present");
}

TEST(PodState, an_object_of_any_other_shape_is_on_its_way_never_a_crash) {
  for (const char* text : {R"({})", R"({"status":3})", R"({"status":{"phase":7,"containerStatuses":{}}})",
                           R"({"status":{"containerStatuses":[1,"x",{"state":[]},{"state":{"terminated":5}}]}})"}) {
    EXPECT_EQ(pod_state(nlohmann::json::parse(text)).where, PodState::Where::kRunning) << text;
  }
}

}  // namespace
}  // namespace batlehub::adapters
