// What the probe is asked to prove, per runtime (server/root/builders.h): a room per scanner on
// bwrap, an image once however many scanners run from it on the image runtimes.
#include "server/root/builders.h"
#include "adapters/sandbox/bwrap.h"
#include "server/commands/scan_command.h"
#include "storage_table.h"

#include <gtest/gtest.h>

#include <map>

namespace batlehub::server {

using batlehub::testing::storage_table;
namespace {

config::Env env_of(std::map<std::string, std::string> vars) {
  return [vars](std::string_view k) -> std::optional<std::string> {
    auto it = vars.find(std::string(k));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

config::Config loaded(const std::string& toml, const config::Env& env) {
  auto l = config::load_string(toml + storage_table(toml), "test.toml", env);
  EXPECT_TRUE(l) << (l ? "" : l.error().describe());
  // A named value: g++ 12 warns (maybe-uninitialized) on the conditional's temporary.
  config::Config out;
  if (l) out = l->config;
  return out;
}

const char* kThreeScanners = R"(
[scanners.guarddog]
type = "guarddog"
command = "guarddog"
[scanners.yara]
type = "yara"
command = "yara"
rules = "/etc/batlehub/rules"
[scanners.trivy]
type = "trivy"
command = "trivy"
endpoint = ""
)";

TEST(ProbeTargets, on_bwrap_each_scanner_is_its_own_room) {
  auto env = env_of({});
  auto c = loaded(std::string("[worker.sandbox]\nrooms_dir = \"/nowhere\"\n") + kThreeScanners, env);
  auto t = probe_targets(c, env);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].room, "guarddog");
  EXPECT_FALSE(t[0].image);
  EXPECT_EQ(t[0].commands, std::vector<std::string>{"/usr/bin/guarddog"}) << "no room to look in: its PATH's first";
}

TEST(ProbeTargets, on_oci_the_worker_s_own_image_is_probed_once_for_every_scanner_in_it) {
  auto env = env_of({{"BATLEHUB_IMAGE", "localhost/batlehub-worker:1"}});
  auto c = loaded(std::string("[worker.sandbox]\nruntime = \"oci\"\n") + kThreeScanners, env);
  auto t = probe_targets(c, env);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].room, "guarddog+yara+trivy");
  EXPECT_EQ(t[0].image, "localhost/batlehub-worker:1");
  // Bare names: the agent looks them up on the image's PATH, where the worker cannot look.
  EXPECT_EQ(t[0].commands, (std::vector<std::string>{"guarddog", "yara", "trivy"}));
}

TEST(ProbeTargets, on_oci_each_distinct_image_is_probed_once) {
  auto env = env_of({});
  auto c = loaded(R"(
[worker.sandbox]
runtime = "oci"
[worker.sandbox.oci]
image = "localhost/batlehub-sandbox-all:1"
[scanners.guarddog]
type = "guarddog"
command = "guarddog"
image = "localhost/batlehub-sandbox-guarddog:1"
[scanners.yara]
type = "yara"
command = "yara"
rules = "/etc/batlehub/rules"
[scanners.trivy]
type = "trivy"
command = "/opt/trivy/trivy"
endpoint = ""
)",
                  env);
  auto t = probe_targets(c, env);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].room, "guarddog");
  EXPECT_EQ(t[0].image, "localhost/batlehub-sandbox-guarddog:1");
  EXPECT_EQ(t[1].room, "yara+trivy");
  EXPECT_EQ(t[1].image, "localhost/batlehub-sandbox-all:1");
  EXPECT_EQ(t[1].commands, (std::vector<std::string>{"yara", "/opt/trivy/trivy"}));
}

TEST(IdentifyPlace, on_oci_is_the_first_sandboxed_scanner_whose_image_the_probe_proved) {
  auto env = env_of({{"BATLEHUB_IMAGE", "localhost/batlehub-worker:1"}});
  auto c = loaded(std::string("[worker.sandbox]\nruntime = \"oci\"\n") + kThreeScanners, env);
  EXPECT_EQ(identify_place(c, env).room, "guarddog");
}

// bwrap's run dirs: the operator's TMPDIR first; else a tmpfs /dev/shm open to all with room
// for every slot's extraction; else /tmp (a container's 64 MiB /dev/shm, a disk).
TEST(BwrapScratchDir, tmpdir_wins_then_a_roomy_shared_tmpfs_then_tmp) {
  using adapters::bwrap_scratch_dir;
  using adapters::ScratchCandidate;
  const ScratchCandidate roomy{"/dev/shm", true, true, 8 * 1024};
  EXPECT_EQ(bwrap_scratch_dir(env_of({{"TMPDIR", "/var/scratch"}}), roomy, 4, 512), "/var/scratch");
  EXPECT_EQ(bwrap_scratch_dir(env_of({{"TMPDIR", ""}}), roomy, 4, 512), "/dev/shm");
  EXPECT_EQ(bwrap_scratch_dir(env_of({}), roomy, 4, 512), "/dev/shm");
  EXPECT_EQ(bwrap_scratch_dir(env_of({}), roomy, 17, 512), "/tmp");  // 17 x 512 MiB > 8 GiB
  EXPECT_EQ(bwrap_scratch_dir(env_of({}), ScratchCandidate{"/dev/shm", true, true, 64}, 1, 512), "/tmp");
  EXPECT_EQ(bwrap_scratch_dir(env_of({}), ScratchCandidate{"/dev/shm", false, true, 8192}, 1, 512), "/tmp");
  EXPECT_EQ(bwrap_scratch_dir(env_of({}), ScratchCandidate{"/dev/shm", true, false, 8192}, 1, 512), "/tmp");
}

// A registry's [registries.security] as the worker judges by it: every key upstream documents,
// from upstream's defaults, with the scanners' escalations; `batlehub scan` takes it without
// the age rule, and its flags given override it.
TEST(RegistryPolicy, reads_every_key_from_upstreams_defaults_and_scan_flags_override_it) {
  const std::string toml = R"(
[scanners.postmortem]
type = "postmortem"
command = "/bin/true"
escalation = { kinds = ["install_hook"], count = 2, from = "high", to = "critical" }
[[registries]]
name = "npmjs"
type = "npm"
[registries.security]
mode = "warn"
min_age_secs = 60
mature_age_secs = 0
required_scanners = ["postmortem"]
deny_install_hooks = "deny"
scanner_error = "ignore"
max_severity = "medium"
[[registries]]
name = "plain"
type = "npm"
[registries.security]
)";
  config::Config c = loaded(toml, env_of({}));
  auto p = registry_policy(c, "npmjs");
  ASSERT_TRUE(p);
  using P = core::SecurityPolicy;
  EXPECT_EQ(p->mode, P::Mode::kWarn);
  EXPECT_EQ(p->min_age_secs, 3600) << "floored at an hour, as upstream";
  EXPECT_EQ(p->mature_age_secs, 0);
  EXPECT_TRUE(p->hold_missing_timestamp);
  EXPECT_EQ(p->required_scanners, std::vector<std::string>{"postmortem"});
  EXPECT_EQ(p->deny_install_hooks, P::InstallHooks::kDeny);
  EXPECT_EQ(p->scanner_error, P::ScannerErrors::kIgnore);
  EXPECT_EQ(p->max_severity, core::Severity::kMedium);
  ASSERT_EQ(p->escalations.count("postmortem"), 1u);
  EXPECT_EQ(p->escalations.at("postmortem").kinds, std::vector<core::FindingKind>{core::FindingKind::kInstallHook});
  EXPECT_EQ(p->escalations.at("postmortem").count, 2);

  auto plain = registry_policy(c, "plain");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->min_age_secs, 86400);
  EXPECT_EQ(plain->required_scanners, std::vector<std::string>{"osv"}) << "upstream's default";
  EXPECT_FALSE(registry_policy(c, "local")) << "a registry of this worker's own has no table";

  core::SecurityPolicy scanned = scan_policy(c, "npmjs", PolicyFlags{});
  EXPECT_EQ(scanned.min_age_secs, 0) << "a file has no publication date";
  EXPECT_FALSE(scanned.hold_missing_timestamp);
  EXPECT_EQ(scanned.deny_install_hooks, P::InstallHooks::kDeny);
  PolicyFlags flags;
  flags.deny_install_hooks = P::InstallHooks::kWarn;
  flags.mode = P::Mode::kBlock;
  core::SecurityPolicy overridden = scan_policy(c, "npmjs", flags);
  EXPECT_EQ(overridden.deny_install_hooks, P::InstallHooks::kWarn);
  EXPECT_EQ(overridden.mode, P::Mode::kBlock);
  EXPECT_EQ(overridden.max_severity, core::Severity::kMedium) << "not given: the registry's";
  EXPECT_EQ(scan_policy(c, "local", PolicyFlags{}), core::SecurityPolicy{});
}

}  // namespace
}  // namespace batlehub::server
