// The worker's configuration: defaults, the loader's refusals, and every validation rule
// of RFC 0022 §4.3 with its message (docs/configuration.md lists the same).
#include "config/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/kubernetes.h"
#include "adapters/sandbox/oci.h"

namespace batlehub::config {
namespace {

const std::string kFixtures = BATLEHUB_CONFIG_FIXTURES;

Env no_env() {
  return env_of({});
}

// A file must have [storage], as upstream's must. A test about other tables gets one
// filesystem backend appended (below every line it counts), unless it wrote its own.
std::string with_storage(std::string_view toml) {
  std::string out(toml);
  if (out.find("[storage") == std::string::npos)
    out += "\n[storage]\ntype = \"filesystem\"\npath = \"/var/cache/batlehub\"\n";
  return out;
}

Expected<Loaded, ConfigError> load(std::string_view toml, const Env& env = no_env()) {
  return load_string(with_storage(toml), "config.toml", env);
}

// The loaded value, failing the test (with the refusal) if it was refused.
Loaded loads(std::string_view toml, const Env& env = no_env()) {
  auto r = load(toml, env);
  EXPECT_TRUE(r) << r.error().describe() << "\n--- in ---\n" << toml;
  // A named value, not `r ? *r : Loaded{}`: g++ 12 warns (maybe-uninitialized) on the
  // temporary of the conditional.
  Loaded out;
  if (r) out = std::move(*r);
  return out;
}

// The refusal of the file exactly as written, described.
std::string storage_free_refusal(std::string_view toml) {
  auto r = load_string(toml, "config.toml", no_env());
  EXPECT_FALSE(r) << "loaded:\n" << toml;
  return r ? std::string("(loaded)") : r.error().describe();
}

// The refusal, described, or "(loaded)" (and a failure) if it loaded.
std::string refusal(std::string_view toml, const Env& env = no_env()) {
  auto r = load(toml, env);
  EXPECT_FALSE(r) << "loaded:\n" << toml;
  return r ? std::string("(loaded)") : r.error().describe();
}

ConfigError error_of(std::string_view toml, const Env& env = no_env()) {
  auto r = load(toml, env);
  EXPECT_FALSE(r) << "loaded:\n" << toml;
  return r ? ConfigError{} : r.error();
}

// A storage table whose default backend can presign: upstream's single shape.
constexpr std::string_view kS3Storage = R"(
[storage]
type = "s3"
endpoint_url = "http://minio:9000"
bucket = "cache"
region = "us-east-1"
force_path_style = true
)";

std::string with_s3(std::string_view toml) {
  return std::string(toml) + std::string(kS3Storage);
}

// ---------------------------------------------------------------------------------------
// Defaults

TEST(Defaults, EveryValueIsTheRfcs) {
  const Config c = defaults();
  const SandboxConfig& s = c.worker.sandbox;
  EXPECT_EQ(c.worker.max_concurrent, 4);
  EXPECT_EQ(c.worker.job_timeout_secs, 600);
  EXPECT_EQ(c.worker.max_attempts, 3);
  EXPECT_TRUE(c.worker.registries.empty());

  EXPECT_EQ(s.runtime, "bwrap");
  EXPECT_EQ(s.memory_limit_mb, 2048);
  EXPECT_EQ(s.cpu_seconds, 300);
  EXPECT_EQ(s.max_extracted_mb, 512);
  EXPECT_EQ(s.max_entries, 50000);
  EXPECT_EQ(s.start_timeout_secs, 120);
  EXPECT_EQ(s.probe_interval_secs, 600);
  EXPECT_EQ(s.probe_canaries, std::vector<std::string>{"1.1.1.1:53"});  // the RFC's; parsed here, never dialled
  EXPECT_FALSE(s.accept_per_process_limits);
  EXPECT_EQ(s.bundle_backend, "");
  EXPECT_EQ(s.bundle_prefix, "sandbox/");
  EXPECT_EQ(s.bundle_ttl_secs, 60);
  EXPECT_EQ(s.rooms_dir, "/opt/sandbox");

  EXPECT_EQ(s.tables.get<adapters::BwrapTable>().binary, "bwrap");
  EXPECT_EQ(s.tables.get<adapters::BwrapTable>().cgroup_parent, "");
  EXPECT_EQ(s.tables.get<adapters::OciTable>().engine, adapters::OciEngineKind::kPodman);
  EXPECT_EQ(s.tables.get<adapters::OciTable>().binary, "podman");
  EXPECT_EQ(s.tables.get<adapters::OciTable>().image, "");
  EXPECT_EQ(s.tables.get<adapters::OciTable>().transport, adapters::OciTransport::kMount);
  EXPECT_TRUE(s.tables.get<adapters::OciTable>().extra_args.empty());
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().namespace_, "");
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().service_account, "batlehub-sandbox");
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().image, "");
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().runtime_class, "");
  EXPECT_TRUE(s.tables.get<adapters::KubernetesTable>().node_selector.empty());
  EXPECT_TRUE(s.tables.get<adapters::KubernetesTable>().image_pull_secrets.empty());
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().orphan_after_secs, 900);
  EXPECT_FALSE(s.tables.has("bwrap"));
  EXPECT_FALSE(s.tables.has("oci"));
  EXPECT_FALSE(s.tables.has("kubernetes"));

  EXPECT_TRUE(c.scanners.empty());
  EXPECT_FALSE(c.has_security_registry);

  // A Config built in code (no file) has one filesystem backend, "default"; a file must
  // say what its storage is (Storage.is_required_as_upstream_requires_it).
  EXPECT_EQ(c.storage.shape, StorageShape::kSingle);
  EXPECT_EQ(c.storage.default_backend, "default");
  ASSERT_EQ(c.storage.backends.size(), 1u);
  EXPECT_EQ(c.storage.backends[0].name, "default");
  EXPECT_EQ(c.storage.backends[0].type, StorageType::kFilesystem);
  EXPECT_EQ(c.storage.backends[0].path, "/var/cache/batlehub");
  ASSERT_NE(bundle_backend(c), nullptr);
  EXPECT_EQ(bundle_backend(c)->name, "default");
}

TEST(Defaults, TheDefaultsValidateWithoutAWarning) {
  auto v = validate(defaults(), no_env());
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_TRUE(v->empty());
}

TEST(Defaults, AFileWithNoContentAtAllLoadsToTheDefaults) {
  for (std::string_view empty : {"", "\n\n", "# only a comment\n", "   \t\n"}) {
    Loaded l = loads(empty);
    EXPECT_EQ(l.config, defaults()) << "for: " << empty;
    EXPECT_TRUE(l.warnings.empty());
  }
}

TEST(Defaults, EmptyTablesLoadToTheDefaults) {
  Loaded l = loads("[worker]\n[worker.sandbox]\n[scanners]\n");
  EXPECT_EQ(l.config, defaults());
}

TEST(Defaults, EachScannerTypesDefaults) {
  Loaded l = loads(R"([scanners.postmortem]
command = "postmortem"
[scanners.guarddog]
command = "guarddog"
[scanners.trivy]
endpoint = ""
[scanners.yara]
rules = "/etc/batlehub/rules.yar"
[scanners.osv]
)");
  const Config& c = l.config;
  ASSERT_EQ(c.scanners.size(), 5u);
  const ScannerConfig* pm = c.find_scanner("postmortem");
  ASSERT_NE(pm, nullptr);
  EXPECT_EQ(pm->type, ScannerType::kPostmortem);
  EXPECT_EQ(pm->command, "postmortem");
  EXPECT_FALSE(pm->online);
  EXPECT_TRUE(pm->timeline);
  EXPECT_EQ(pm->image, "");
  EXPECT_FALSE(pm->escalation);
  const ScannerConfig* gd = c.find_scanner("guarddog");
  ASSERT_NE(gd, nullptr);
  EXPECT_EQ(gd->type, ScannerType::kGuarddog);
  EXPECT_TRUE(gd->ecosystems.empty());
  const ScannerConfig* tv = c.find_scanner("trivy");
  ASSERT_NE(tv, nullptr);
  EXPECT_EQ(tv->type, ScannerType::kTrivy);
  EXPECT_EQ(tv->command, "trivy");  // fixed upstream; a key here
  EXPECT_EQ(tv->endpoint, "");
  EXPECT_EQ(tv->db_repository, "");
  EXPECT_EQ(tv->timeout_secs, 60);
  const ScannerConfig* ya = c.find_scanner("yara");
  ASSERT_NE(ya, nullptr);
  EXPECT_EQ(ya->type, ScannerType::kYara);
  EXPECT_EQ(ya->command, "yara");
  EXPECT_EQ(ya->rules, "/etc/batlehub/rules.yar");
  const ScannerConfig* osv = c.find_scanner("osv");
  ASSERT_NE(osv, nullptr);
  EXPECT_EQ(osv->type, ScannerType::kOsv);
  EXPECT_EQ(osv->api_url, "");
}

TEST(Defaults, OciBinaryFollowsTheEngine) {
  EXPECT_EQ(loads("[worker.sandbox.oci]\nengine = \"docker\"\n")
                .config.worker.sandbox.tables.get<adapters::OciTable>()
                .binary,
            "docker");
  EXPECT_EQ(loads("[worker.sandbox.oci]\nengine = \"docker\"\nbinary = \"/usr/local/bin/docker\"\n")
                .config.worker.sandbox.tables.get<adapters::OciTable>()
                .binary,
            "/usr/local/bin/docker");
}

// ---------------------------------------------------------------------------------------
// Every key read

TEST(Load, EveryKeyIsRead) {
  Loaded l = loads(R"([worker]
max_concurrent = 2
job_timeout_secs = 120
max_attempts = 1
registries = ["npm", "pypi"]

[worker.sandbox]
runtime = "oci"
memory_limit_mb = 4096
cpu_seconds = 60
max_extracted_mb = 1024
max_entries = 1000
start_timeout_secs = 30
probe_interval_secs = 3600
probe_canaries = ["127.0.0.1:9", "[::1]:9"]
bundle_backend = "s3"
bundle_prefix = "runs/"
bundle_ttl_secs = 120
rooms_dir = "/srv/rooms"

[worker.sandbox.oci]
engine = "docker"
binary = "/usr/bin/docker"
image = "registry.local/batlehub-worker:1"
transport = "storage"
storage_network = "batlehub-storage"
extra_args = ["--runtime=runsc", "--cgroup-parent=batlehub"]

[scanners.egress]
type = "postmortem"
command = "/opt/egress-probe"
online = true
timeline = false
image = "registry.local/egress:1"
escalation = { kinds = ["malware_signal", "install_hook"], count = 2, from = "medium", to = "critical" }

[scanners.gd]
type = "guarddog"
command = "guarddog"
ecosystems = ["npm", "pypi", "go"]

[scanners.trivy]
command = "/usr/local/bin/trivy"
endpoint = "http://trivy.batlehub.svc:4954"
db_repository = "mirror.internal:5000/aquasec/trivy-db:2"
timeout_secs = 300

[scanners.yara]
command = "yr"
rules = "/etc/batlehub/rules.yar"

[scanners.osv]
api_url = "https://osv.internal/v1"

[storage]
default = "local"
[[storage.backends]]
name = "local"
type = "filesystem"
path = "/var/cache/batlehub"
[[storage.backends]]
name = "s3"
type = "s3"
endpoint_url = "https://s3.example"
bucket = "bundles"
region = "eu-west-3"
prefix = "cache/"
[[storage.backends]]
name = "mem"
type = "in_memory"
)");
  const Config& c = l.config;
  EXPECT_EQ(c.worker.max_concurrent, 2);
  EXPECT_EQ(c.worker.job_timeout_secs, 120);
  EXPECT_EQ(c.worker.max_attempts, 1);
  EXPECT_EQ(c.worker.registries, (std::vector<std::string>{"npm", "pypi"}));
  const SandboxConfig& s = c.worker.sandbox;
  EXPECT_EQ(s.runtime, "oci");
  EXPECT_EQ(s.memory_limit_mb, 4096);
  EXPECT_EQ(s.cpu_seconds, 60);
  EXPECT_EQ(s.max_extracted_mb, 1024);
  EXPECT_EQ(s.max_entries, 1000);
  EXPECT_EQ(s.start_timeout_secs, 30);
  EXPECT_EQ(s.probe_interval_secs, 3600);
  EXPECT_EQ(s.probe_canaries, (std::vector<std::string>{"127.0.0.1:9", "[::1]:9"}));
  EXPECT_EQ(s.bundle_backend, "s3");
  EXPECT_EQ(s.bundle_prefix, "runs/");
  EXPECT_EQ(s.bundle_ttl_secs, 120);
  EXPECT_EQ(s.rooms_dir, "/srv/rooms");
  EXPECT_TRUE(s.tables.has("oci"));
  EXPECT_EQ(s.tables.get<adapters::OciTable>().engine, adapters::OciEngineKind::kDocker);
  EXPECT_EQ(s.tables.get<adapters::OciTable>().binary, "/usr/bin/docker");
  EXPECT_EQ(s.tables.get<adapters::OciTable>().image, "registry.local/batlehub-worker:1");
  EXPECT_EQ(s.tables.get<adapters::OciTable>().transport, adapters::OciTransport::kStorage);
  EXPECT_EQ(s.tables.get<adapters::OciTable>().storage_network, "batlehub-storage");
  EXPECT_EQ(s.tables.get<adapters::OciTable>().extra_args,
            (std::vector<std::string>{"--runtime=runsc", "--cgroup-parent=batlehub"}));
  EXPECT_TRUE(uses_storage_transport(s));

  // Scanners in file order, not by name.
  ASSERT_EQ(c.scanners.size(), 5u);
  EXPECT_EQ(c.scanners[0].name, "egress");
  EXPECT_EQ(c.scanners[1].name, "gd");
  EXPECT_EQ(c.scanners[2].name, "trivy");
  EXPECT_EQ(c.scanners[3].name, "yara");
  EXPECT_EQ(c.scanners[4].name, "osv");

  const ScannerConfig& pm = c.scanners[0];
  EXPECT_EQ(pm.type, ScannerType::kPostmortem);
  EXPECT_EQ(pm.command, "/opt/egress-probe");
  EXPECT_TRUE(pm.online);
  EXPECT_FALSE(pm.timeline);
  EXPECT_EQ(pm.image, "registry.local/egress:1");
  ASSERT_TRUE(pm.escalation);
  EXPECT_EQ(pm.escalation->kinds, (std::vector<std::string>{"malware_signal", "install_hook"}));
  EXPECT_EQ(pm.escalation->count, 2);
  EXPECT_EQ(pm.escalation->from, Severity::kMedium);
  EXPECT_EQ(pm.escalation->to, Severity::kCritical);
  EXPECT_EQ(c.scanners[1].type, ScannerType::kGuarddog);
  EXPECT_EQ(c.scanners[1].ecosystems, (std::vector<std::string>{"npm", "pypi", "go"}));
  EXPECT_EQ(c.scanners[2].command, "/usr/local/bin/trivy");
  EXPECT_EQ(c.scanners[2].endpoint, "http://trivy.batlehub.svc:4954");
  EXPECT_EQ(c.scanners[2].db_repository, "mirror.internal:5000/aquasec/trivy-db:2");
  EXPECT_EQ(c.scanners[2].timeout_secs, 300);
  EXPECT_EQ(c.scanners[3].command, "yr");
  EXPECT_EQ(c.scanners[4].api_url, "https://osv.internal/v1");

  // The image a run is opened from: the scanner's, else the runtime's.
  EXPECT_EQ(image_for(c, c.scanners[0], no_env()), "registry.local/egress:1");
  EXPECT_EQ(image_for(c, c.scanners[1], no_env()), "registry.local/batlehub-worker:1");

  EXPECT_EQ(c.storage.shape, StorageShape::kMulti);
  EXPECT_EQ(c.storage.default_backend, "local");
  ASSERT_EQ(c.storage.backends.size(), 3u);
  EXPECT_EQ(c.storage.backends[0].name, "local");
  EXPECT_EQ(c.storage.backends[1].name, "s3");
  EXPECT_EQ(c.storage.backends[2].name, "mem");
  const StorageBackendConfig* s3 = c.storage.find("s3");
  ASSERT_NE(s3, nullptr);
  EXPECT_EQ(s3->type, StorageType::kS3);
  EXPECT_EQ(s3->endpoint_url, "https://s3.example");
  EXPECT_EQ(s3->bucket, "bundles");
  EXPECT_EQ(s3->region, "eu-west-3");
  EXPECT_EQ(s3->prefix, "cache/");
  EXPECT_FALSE(s3->force_path_style);  // upstream's default
  EXPECT_EQ(c.storage.find("mem")->type, StorageType::kInMemory);
  EXPECT_EQ(bundle_backend(c), s3);
  // The single shape: one backend, named "default".
  Loaded d = loads(with_s3(""));
  EXPECT_EQ(d.config.storage.shape, StorageShape::kSingle);
  EXPECT_EQ(d.config.storage.default_backend, "default");
  ASSERT_NE(d.config.storage.find("default"), nullptr);
  EXPECT_EQ(d.config.storage.find("default")->region, "us-east-1");
  EXPECT_TRUE(d.config.storage.find("default")->force_path_style);
  EXPECT_EQ(d.config.storage.find("default")->prefix, "");
}

TEST(Load, KubernetesKeysAreRead) {
  Loaded l = loads(with_s3(R"([worker.sandbox]
runtime = "kubernetes"
[worker.sandbox.kubernetes]
namespace = "batlehub-sandbox"
service_account = "scan"
image = "ghcr.io/batleforc/batlehub-worker:1"
runtime_class = "gvisor"
node_selector = { "kubernetes.io/arch" = "amd64", pool = "sandbox" }
image_pull_secrets = ["ghcr"]
orphan_after_secs = 1800
)"));
  const adapters::KubernetesTable& k = l.config.worker.sandbox.tables.get<adapters::KubernetesTable>();
  EXPECT_TRUE(l.config.worker.sandbox.tables.has("kubernetes"));
  EXPECT_EQ(k.namespace_, "batlehub-sandbox");
  EXPECT_EQ(k.service_account, "scan");
  EXPECT_EQ(k.image, "ghcr.io/batleforc/batlehub-worker:1");
  EXPECT_EQ(k.runtime_class, "gvisor");
  EXPECT_EQ(k.node_selector,
            (std::map<std::string, std::string>{{"kubernetes.io/arch", "amd64"}, {"pool", "sandbox"}}));
  EXPECT_EQ(k.image_pull_secrets, (std::vector<std::string>{"ghcr"}));
  EXPECT_EQ(k.orphan_after_secs, 1800);
  EXPECT_EQ(k.kubeconfig, "");  // in the cluster: the service account's credentials
  EXPECT_TRUE(l.warnings.empty());
}

TEST(Load, AWorkerOutsideTheClusterNamesAnAbsoluteKubeconfigAndMayNameItsContext) {
  Loaded l =
      loads(with_s3("[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\nkubeconfig = "
                    "\"/etc/batlehub/kubeconfig\"\n"
                    "context = \"scan\"\n"));
  EXPECT_EQ(l.config.worker.sandbox.tables.get<adapters::KubernetesTable>().kubeconfig, "/etc/batlehub/kubeconfig");
  EXPECT_EQ(l.config.worker.sandbox.tables.get<adapters::KubernetesTable>().context, "scan");
  EXPECT_NE(refusal(with_s3("[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\n"
                            "kubeconfig = \"kube/config\"\n"))
                .find("worker.sandbox.kubernetes.kubeconfig: kubeconfig = \"kube/config\" must be an absolute path"),
            std::string::npos);
  EXPECT_NE(
      refusal(with_s3("[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\ncontext = \"x\"\n"))
          .find("no kubeconfig is set"),
      std::string::npos);
}

TEST(Load, AScannersTypeDefaultsToItsNameOnlyForAKnownType) {
  Loaded l =
      loads("[scanners.egress]\ntype = \"postmortem\"\ncommand = \"probe\"\n[scanners.trivy]\nendpoint = \"\"\n");
  EXPECT_EQ(l.config.find_scanner("egress")->type, ScannerType::kPostmortem);
  EXPECT_EQ(l.config.find_scanner("trivy")->type, ScannerType::kTrivy);
  EXPECT_EQ(
      refusal("\n[scanners.egress]\ncommand = \"probe\"\n"),
      "config.toml:2: scanners.egress.type: [scanners.egress] has no type, and 'egress' is not the name of a "
      "scanner type; set type = one of postmortem, guarddog, trivy, yara, signals, behavior, osv, mlab, sigstore, "
      "socket");
  EXPECT_EQ(refusal("[scanners.x]\ntype = \"firewall\"\n"),
            "config.toml:2: scanners.x.type: type = \"firewall\" is not one of postmortem, guarddog, trivy, yara, "
            "signals, behavior, osv, mlab, sigstore, socket");
}

TEST(Load, EscalationMayBeATableOfItsOwn) {
  Loaded l = loads(R"([scanners.guarddog]
command = "guarddog"
[scanners.guarddog.escalation]
kinds = ["malware_signal"]
count = 3
from = "low"
to = "high"
)");
  const auto& e = l.config.find_scanner("guarddog")->escalation;
  ASSERT_TRUE(e);
  EXPECT_EQ(e->count, 3);
  EXPECT_EQ(e->from, Severity::kLow);
  EXPECT_EQ(e->to, Severity::kHigh);
}

TEST(Load, OtherPartsOfBatlehubAreIgnored) {
  Loaded l = loads(R"(log_level = "debug"
[server]
roles = ["worker"]
port = 8080
[stats]
metrics_enabled = true
[registries.npm]
upstream = "https://registry.npmjs.org"
[cache]
anything = { goes = 1 }
)");
  Config expected = defaults();
  expected.server.roles = {"worker"};
  expected.registries = {RegistryEntry{.name = "npm", .type = "", .storage = "", .key = "registries.npm"}};
  EXPECT_EQ(l.config, expected);
  EXPECT_FALSE(l.config.has_security_registry);
  EXPECT_EQ(l.proxy_only,
            (std::vector<std::string>{"log_level", "[stats]",
                                      "registries (all but each one's name, type, storage, upstreams and security "
                                      "table)",
                                      "[cache]"}));
}

TEST(Load, ASecurityRegistryIsRecorded) {
  EXPECT_TRUE(loads("[registries.npm]\nupstream = \"x\"\n[registries.npm.security]\nmode = \"block\"\n")
                  .config.has_security_registry);
  EXPECT_TRUE(loads("[registries]\npypi = { security = { mode = \"warn\" } }\n").config.has_security_registry);
  EXPECT_FALSE(loads("[registries.npm]\nsecurity = \"no\"\n").config.has_security_registry);
}

// ---------------------------------------------------------------------------------------
// The loader's refusals

TEST(Refused, ATomlSyntaxErrorWithItsLine) {
  ConfigError e = error_of("[worker]\nmax_concurrent = 4\nmax_attempts = \n");
  EXPECT_EQ(e.file, "config.toml");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.key, "");
  EXPECT_EQ(e.message.rfind("TOML syntax error: ", 0), 0u) << e.message;
  EXPECT_EQ(e.describe().rfind("config.toml:3: TOML syntax error: ", 0), 0u) << e.describe();

  EXPECT_EQ(error_of("[worker]\n[worker]\n").line, 2);                              // a table defined twice
  EXPECT_EQ(error_of("a = 1\n\na = 2\n").line, 3);                                  // a key defined twice
  EXPECT_EQ(error_of("a = \"\xff\"\n").message.rfind("TOML syntax error", 0), 0u);  // not UTF-8
}

TEST(Refused, AnUnknownKeyNamedWithItsLine) {
  ConfigError e = error_of("[worker.sandbox]\nruntime = \"bwrap\"\nmemory_limit = 2048\n");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.key, "worker.sandbox.memory_limit");
  EXPECT_EQ(e.describe(),
            "config.toml:3: worker.sandbox.memory_limit: unknown key 'memory_limit' in [worker.sandbox] "
            "(did you mean 'memory_limit_mb'?)");
  // No suggestion when nothing is close.
  EXPECT_EQ(refusal("[worker]\n\nidle_poll_secs = 2\n"),
            "config.toml:3: worker.idle_poll_secs: unknown key 'idle_poll_secs' in [worker]");
}

TEST(Refused, AnUnknownKeyAnywhereUnderTheModelledTables) {
  EXPECT_EQ(refusal("[worker.sandbox.bwrap]\nbinary = \"bwrap\"\nargs = []\n"),
            "config.toml:3: worker.sandbox.bwrap.args: unknown key 'args' in [worker.sandbox.bwrap]");
  EXPECT_EQ(refusal("[worker.sandbox.oci]\nnetwork = \"none\"\n"),
            "config.toml:2: worker.sandbox.oci.network: unknown key 'network' in [worker.sandbox.oci]");
  EXPECT_EQ(refusal("[worker.sandbox.kubernetes]\nnamespce = \"x\"\n"),
            "config.toml:2: worker.sandbox.kubernetes.namespce: unknown key 'namespce' in "
            "[worker.sandbox.kubernetes] (did you mean 'namespace'?)");
  EXPECT_EQ(refusal("[worker.sandbox.firecracker]\n"),
            "config.toml:1: worker.sandbox.firecracker: unknown key 'firecracker' in [worker.sandbox]");
  // A key of another scanner type.
  EXPECT_EQ(
      refusal("[scanners.guarddog]\ncommand = \"guarddog\"\nonline = true\n"),
      "config.toml:3: scanners.guarddog.online: unknown key 'online' in [scanners.guarddog] (a guarddog scanner)");
  EXPECT_EQ(refusal("[scanners.osv]\nimage = \"x\"\n"),
            "config.toml:2: scanners.osv.image: unknown key 'image' in [scanners.osv] (an osv scanner)");
  EXPECT_EQ(
      refusal("[scanners.pm]\ntype = \"postmortem\"\ncommand = \"p\"\nescalation = { kinds = [\"vulnerability\"], "
              "count = 1, from = \"high\", to = \"critical\", by = \"x\" }\n"),
      "config.toml:4: scanners.pm.escalation.by: unknown key 'by' in [scanners.pm.escalation]");
}

TEST(Refused, AValueOfTheWrongType) {
  EXPECT_EQ(refusal("[worker.sandbox]\nmemory_limit_mb = \"2048\"\n"),
            "config.toml:2: worker.sandbox.memory_limit_mb: expected an integer, not a string");
  EXPECT_EQ(refusal("[worker.sandbox]\ncpu_seconds = 300.0\n"),
            "config.toml:2: worker.sandbox.cpu_seconds: expected an integer, not a floating-point number");
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = 1\n"),
            "config.toml:2: worker.sandbox.runtime: expected a string, not an integer");
  EXPECT_EQ(refusal("[scanners.postmortem]\ncommand = \"p\"\nonline = \"yes\"\n"),
            "config.toml:3: scanners.postmortem.online: expected a boolean, not a string");
  EXPECT_EQ(refusal("[worker]\nregistries = \"npm\"\n"),
            "config.toml:2: worker.registries: expected an array of strings, not a string");
  EXPECT_EQ(refusal("[worker.sandbox.oci]\nextra_args = [\"--a\",\n  2]\n"),
            "config.toml:3: worker.sandbox.oci.extra_args[1]: expected a string, not an integer");
  EXPECT_EQ(refusal("[worker.sandbox.kubernetes]\nnode_selector = { pool = 1 }\n"),
            "config.toml:2: worker.sandbox.kubernetes.node_selector.pool: expected a string, not an integer");
  EXPECT_EQ(refusal("worker = 3\n"), "config.toml:1: worker: expected a table, not an integer");
  EXPECT_EQ(refusal("[worker]\nsandbox = \"bwrap\"\n"),
            "config.toml:2: worker.sandbox: expected a table, not a string");
  EXPECT_EQ(refusal("[scanners]\nosv = true\n"), "config.toml:2: scanners.osv: expected a table, not a boolean");
}

TEST(Refused, AStringWithANulCharacter) {
  EXPECT_EQ(refusal("[worker.sandbox.bwrap]\nbinary = \"bw\\u0000rap\"\n"),
            "config.toml:2: worker.sandbox.bwrap.binary: must not contain a NUL character");
}

TEST(Refused, ARuntimeOutsideTheSet) {
  // The brief's and the RFC's example, word for word.
  EXPECT_EQ(refusal("# the worker\n\n[worker.sandbox]\nmemory_limit_mb = 2048\n\n\n\n\n\n\n\nruntime = "
                    "\"firecracker\"\n"),
            "config.toml:12: worker.sandbox.runtime: runtime = \"firecracker\" is not one of none, bwrap, oci, "
            "kubernetes");
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"Bwrap\"\n"),
            "config.toml:2: worker.sandbox.runtime: runtime = \"Bwrap\" is not one of none, bwrap, oci, kubernetes");
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"\"\n"),
            "config.toml:2: worker.sandbox.runtime: runtime = \"\" is not one of none, bwrap, oci, kubernetes");
}

TEST(Refused, EveryOtherEnumOutsideItsSet) {
  EXPECT_EQ(refusal("[worker.sandbox.oci]\nengine = \"containerd\"\n"),
            "config.toml:2: worker.sandbox.oci.engine: engine = \"containerd\" is not one of podman, docker");
  EXPECT_EQ(refusal("[worker.sandbox.oci]\ntransport = \"http\"\n"),
            "config.toml:2: worker.sandbox.oci.transport: transport = \"http\" is not one of mount, storage");
  EXPECT_EQ(refusal("[scanners.guarddog]\ncommand = \"g\"\nescalation = { kinds = [\"vulnerability\"], count = 1, "
                    "from = \"severe\", to = \"critical\" }\n"),
            "config.toml:3: scanners.guarddog.escalation.from: from = \"severe\" is not one of low, medium, high, "
            "critical");
}

TEST(Refused, AMissingRequiredKey) {
  EXPECT_EQ(refusal("[scanners.postmortem]\nonline = true\n"),
            "config.toml:1: scanners.postmortem.command: command is required for a postmortem scanner");
  EXPECT_EQ(refusal("[scanners.guarddog]\n"),
            "config.toml:1: scanners.guarddog.command: command is required for a guarddog scanner");
  EXPECT_EQ(refusal("[scanners.trivy]\ntimeout_secs = 30\n"),
            "config.toml:1: scanners.trivy.endpoint: endpoint is required for a trivy scanner (\"\" = a local "
            "database)");
  EXPECT_EQ(refusal("[scanners.yara]\n"),
            "config.toml:1: scanners.yara.rules: rules is required for a yara scanner (the path of a rules file on "
            "the worker host)");
  // An unknown key is named before a missing required one: it is often the same key, misspelt.
  EXPECT_EQ(refusal("[scanners.postmortem]\ncomand = \"postmortem\"\n"),
            "config.toml:2: scanners.postmortem.comand: unknown key 'comand' in [scanners.postmortem] (a postmortem "
            "scanner) (did you mean 'command'?)");
  EXPECT_EQ(refusal("[scanners.guarddog]\ncommand = \"g\"\nescalation = { kinds = [\"vulnerability\"], from = "
                    "\"high\", to = \"critical\" }\n"),
            "config.toml:3: scanners.guarddog.escalation.count: count is required in an escalation: {kinds = "
            "[...], count = N, from = \"sev\", to = \"sev\"}");
}

TEST(Refused, AFileOverOneMebibyte) {
  std::string big = "# padding\n";
  big += std::string(kMaxConfigBytes, '#');
  EXPECT_EQ(storage_free_refusal(big),
            "config.toml: the file is 1048586 bytes; a configuration file may be at most 1048576 bytes "
            "(1 MiB)");

  char dir[] = "/tmp/config_test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/big.toml";
  {
    std::ofstream out(path);
    out << big;
  }
  auto r = load_file(path, no_env());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().describe(), path +
                                      ": the file is 1048586 bytes; a configuration file may be at most 1048576 "
                                      "bytes (1 MiB)");
  // Exactly 1 MiB is still read.
  {
    std::ofstream out(path, std::ios::trunc);
    const std::string storage = "[storage]\ntype = \"filesystem\"\npath = \"/x\"\n";
    out << storage << std::string(kMaxConfigBytes - storage.size(), '\n');
  }
  EXPECT_TRUE(load_file(path, no_env()));
  unlink(path.c_str());
  rmdir(dir);
}

TEST(Refused, AFileThatIsNotThereOrNotARegularFile) {
  auto missing = load_file("/nonexistent/config.toml", no_env());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().describe(), "/nonexistent/config.toml: cannot be opened: No such file or directory");

  auto dir = load_file("/tmp", no_env());
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().describe(), "/tmp: is not a regular file");

  // A FIFO with no writer: refused at once, not waited on.
  char tmp[] = "/tmp/config_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmp), nullptr);
  const std::string fifo = std::string(tmp) + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto f = load_file(fifo, no_env());
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().message, "is not a regular file");
  unlink(fifo.c_str());
  rmdir(tmp);
}

// ---------------------------------------------------------------------------------------
// The RFC's example configurations

Loaded load_fixture(const std::string& name, const Env& env = no_env()) {
  auto r = load_file(kFixtures + "/" + name, env);
  EXPECT_TRUE(r) << r.error().describe();
  Loaded out;
  if (r) out = std::move(*r);
  return out;
}

TEST(RfcExamples, BeforeLoadsAsToday) {
  Loaded l = load_fixture("rfc-1-before.toml");
  EXPECT_EQ(l.config, defaults());  // every key it sets is at its default
  EXPECT_TRUE(l.warnings.empty());
}

TEST(RfcExamples, AfterLoadsOnKubernetes) {
  Loaded l = load_fixture("rfc-1-after.toml");
  const SandboxConfig& s = l.config.worker.sandbox;
  EXPECT_EQ(s.runtime, "kubernetes");
  EXPECT_EQ(s.memory_limit_mb, 2048);
  EXPECT_EQ(s.cpu_seconds, 300);
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().namespace_, "batlehub-sandbox");
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().runtime_class, "gvisor");
  EXPECT_EQ(s.tables.get<adapters::KubernetesTable>().image, "ghcr.io/batleforc/batlehub-sandbox-postmortem@sha256:…");
  ASSERT_EQ(l.config.scanners.size(), 1u);
  const ScannerConfig& gd = l.config.scanners[0];
  EXPECT_EQ(gd.name, "guarddog");
  EXPECT_EQ(gd.type, ScannerType::kGuarddog);
  EXPECT_EQ(gd.command, "guarddog");
  EXPECT_EQ(gd.image, "ghcr.io/batleforc/batlehub-sandbox-guarddog@sha256:…");
  EXPECT_EQ(image_for(l.config, gd, no_env()), gd.image);
  ASSERT_NE(bundle_backend(l.config), nullptr);
  EXPECT_EQ(bundle_backend(l.config)->name, "cache");
  EXPECT_TRUE(l.warnings.empty());
}

TEST(RfcExamples, AfterWithoutTheStorageWeAddedIsRefusedForItThenByThePresignRule) {
  std::ifstream in(kFixtures + "/rfc-1-after.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text = text.substr(0, text.find("# --- not in the RFC"));
  ASSERT_EQ(text.find("\n[storage"), std::string::npos);
  EXPECT_NE(storage_free_refusal(text).find("[storage] is missing"), std::string::npos);
  EXPECT_EQ(error_of(text + "[storage]\ntype = \"filesystem\"\npath = \"/x\"\n").message,
            "the kubernetes runtime moves bundles through the storage backend and 'filesystem' cannot presign a URL; "
            "configure an S3-compatible backend, or name one in bundle_backend (bundle backend: 'default')");
}

TEST(RfcExamples, TheFullBlockOf41LoadsWithTheDefaultsAndTwoWarnings) {
  Loaded l = load_fixture("rfc-4.1.toml");
  Config expected = defaults();
  // The three tables, each at its defaults, with the keys the RFC's block sets.
  expected.worker.sandbox.tables.set(adapters::BwrapTable{}, {"binary"});
  expected.worker.sandbox.tables.set(adapters::OciTable{}, {"engine", "binary", "image", "transport", "extra_args"});
  expected.worker.sandbox.tables.set(adapters::KubernetesTable{},
                                     {"namespace", "service_account", "image", "runtime_class", "node_selector",
                                      "image_pull_secrets", "orphan_after_secs"});
  ScannerConfig pm;
  pm.name = "postmortem";
  pm.type = ScannerType::kPostmortem;
  pm.command = "postmortem";
  expected.scanners = {pm};
  EXPECT_EQ(l.config, expected);
  const std::string f = kFixtures + "/rfc-4.1.toml";
  EXPECT_EQ(l.warnings, (std::vector<std::string>{
                            f + ":33: worker.sandbox.oci: [worker.sandbox.oci] has no effect under runtime 'bwrap'; "
                                "it is read by the oci runtime only",
                            f + ":44: worker.sandbox.kubernetes: [worker.sandbox.kubernetes] has no effect under "
                                "runtime 'bwrap'; it is read by the kubernetes runtime only",
                        }));
}

// ---------------------------------------------------------------------------------------
// Upstream configurations load unchanged (RFC 0022 §9), the network scanners included: they
// run in the worker (adapters/network_scanners), so none is a warning.

TEST(UpstreamConfig, ACompleteOneLoadsWithEveryScannerTypeAndItsKeys) {
  Loaded l = load_fixture("../upstream/complete.toml");
  const Config& c = l.config;
  EXPECT_EQ(c.worker.max_concurrent, 4);
  EXPECT_EQ(c.worker.job_timeout_secs, 600);
  EXPECT_EQ(c.worker.max_attempts, 3);
  EXPECT_EQ(c.worker.sandbox, defaults().worker.sandbox);  // upstream's keys, at upstream's defaults
  EXPECT_EQ(c.database.url, "postgres://batlehub@127.0.0.1:5432/batlehub");
  EXPECT_EQ(c.server.host, "0.0.0.0");

  ASSERT_EQ(c.scanners.size(), 8u);
  const std::vector<std::pair<std::string, ScannerType>> in_order = {
      {"osv", ScannerType::kOsv},           {"trivy", ScannerType::kTrivy}, {"postmortem", ScannerType::kPostmortem},
      {"guarddog", ScannerType::kGuarddog}, {"mlab", ScannerType::kMlab},   {"sigstore", ScannerType::kSigstore},
      {"socket", ScannerType::kSocket},     {"yara", ScannerType::kYara}};
  for (std::size_t i = 0; i < in_order.size(); ++i) {
    EXPECT_EQ(c.scanners[i].name, in_order[i].first);
    EXPECT_EQ(c.scanners[i].type, in_order[i].second) << in_order[i].first;
  }
  const ScannerConfig& osv = *c.find_scanner("osv");
  EXPECT_EQ(osv.api_url, "http://127.0.0.1:9/osv");
  ASSERT_TRUE(osv.escalation);
  EXPECT_EQ(osv.escalation->count, 3);
  const ScannerConfig& trivy = *c.find_scanner("trivy");
  EXPECT_EQ(trivy.timeout_secs, 120);
  ASSERT_TRUE(trivy.escalation);
  EXPECT_EQ(trivy.escalation->from, Severity::kMedium);
  EXPECT_EQ(c.find_scanner("postmortem")->escalation->kinds,
            (std::vector<std::string>{"malware_signal", "install_hook"}));
  EXPECT_EQ(c.find_scanner("guarddog")->ecosystems, (std::vector<std::string>{"npm", "pypi"}));
  const ScannerConfig& mlab = *c.find_scanner("mlab");
  EXPECT_EQ(mlab.api_key, "mlab-test-key");
  EXPECT_EQ(mlab.api_url, "http://127.0.0.1:9/mlab");
  const ScannerConfig& sigstore = *c.find_scanner("sigstore");
  EXPECT_EQ(sigstore.rekor_url, "http://127.0.0.1:9/rekor");
  EXPECT_EQ(sigstore.require_for, std::vector<std::string>{"npm"});
  const ScannerConfig& socket = *c.find_scanner("socket");
  EXPECT_EQ(socket.api_key, "socket-test-key");
  EXPECT_EQ(socket.api_url, "http://127.0.0.1:9/socket");
  ASSERT_TRUE(socket.escalation);
  EXPECT_EQ(socket.escalation->kinds, std::vector<std::string>{"malware_signal"});
  const ScannerConfig& yara = *c.find_scanner("yara");
  EXPECT_EQ(yara.rules_dir, "/etc/batlehub/yara");
  EXPECT_EQ(yara.rules, "");
  EXPECT_EQ(yara.command, "yara");

  // [[registries]] with their [registries.security]: what their verdicts wait for.
  EXPECT_TRUE(c.has_security_registry);
  ASSERT_EQ(c.security_registries.size(), 2u);
  const RegistrySecurity& npm = c.security_registries[0];
  EXPECT_EQ(npm.registry, "npm");
  EXPECT_EQ(npm.key, "registries[0].security");
  EXPECT_EQ(npm.scanners, (std::vector<std::string>{"osv", "guarddog", "postmortem", "socket", "yara"}));
  EXPECT_EQ(npm.required_scanners, (std::vector<std::string>{"osv", "guarddog"}));
  EXPECT_EQ(npm.mature_age_secs, 86400);
  const RegistrySecurity& pypi = c.security_registries[1];
  EXPECT_EQ(pypi.registry, "pypi");
  EXPECT_EQ(pypi.scanners, std::vector<std::string>{"osv"});  // upstream's defaults
  EXPECT_EQ(pypi.required_scanners, std::vector<std::string>{"osv"});
  EXPECT_EQ(pypi.mature_age_secs, 0);

  // [storage], upstream's single S3 shape.
  EXPECT_EQ(c.storage.shape, StorageShape::kSingle);
  ASSERT_EQ(c.storage.backends.size(), 1u);
  const StorageBackendConfig& b = c.storage.backends[0];
  EXPECT_EQ(b.name, "default");
  EXPECT_EQ(b.type, StorageType::kS3);
  EXPECT_EQ(b.bucket, "batlehub-cache");
  EXPECT_EQ(b.region, "us-east-1");
  EXPECT_EQ(b.prefix, "cache/");
  EXPECT_EQ(b.endpoint_url, "http://127.0.0.1:9");
  EXPECT_TRUE(b.force_path_style);
  // The proxy's tables and keys: named, in file order.
  EXPECT_EQ(l.proxy_only, (std::vector<std::string>{
                              "database.max_connections", "[stats]",
                              "registries (all but each one's name, type, storage, upstreams and security table)",
                              "[auth]", "[upstream_audit]", "[notifications]"}));
  EXPECT_EQ(c.server.roles, (std::vector<std::string>{"proxy", "worker"}));
}

TEST(UpstreamConfig, ACompleteOneLoadsWithoutAWarning) {
  Loaded l = load_fixture("../upstream/complete.toml");
  EXPECT_EQ(l.warnings, std::vector<std::string>{});
}

TEST(UpstreamConfig, EveryScannerTypeLoadsAloneUnderItsOwnName) {
  Loaded l = loads(R"([scanners.mlab]
[scanners.sigstore]
[scanners.socket]
api_key = "k"
)");
  ASSERT_EQ(l.config.scanners.size(), 3u);
  EXPECT_EQ(l.config.scanners[0].type, ScannerType::kMlab);
  EXPECT_EQ(l.config.scanners[0].api_key, "");  // optional for mlab
  EXPECT_EQ(l.config.scanners[1].type, ScannerType::kSigstore);
  EXPECT_TRUE(l.config.scanners[1].require_for.empty());
  EXPECT_EQ(l.config.scanners[2].type, ScannerType::kSocket);
  EXPECT_EQ(l.warnings, std::vector<std::string>{});
  for (const ScannerConfig& s : l.config.scanners) {
    EXPECT_EQ(s.timeout_secs, 30) << s.name << ": ours, one request's bound";
    EXPECT_EQ(s.ca_file, "") << s.name << ": the system's roots";
  }
  for (ScannerType t : {ScannerType::kOsv, ScannerType::kMlab, ScannerType::kSigstore, ScannerType::kSocket}) {
    EXPECT_FALSE(runs_in_sandbox(t)) << to_string(t);
  }
  for (ScannerType t : {ScannerType::kPostmortem, ScannerType::kGuarddog, ScannerType::kTrivy, ScannerType::kYara}) {
    EXPECT_TRUE(runs_in_sandbox(t)) << to_string(t);
  }
}

// Ours beside upstream's: ca_file, timeout_secs and osv's on_outage (docs/configuration.md).
TEST(UpstreamConfig, TheNetworkScannersKeysOfOursLoadAndAreChecked) {
  Loaded l = loads(R"([scanners.osv]
api_url = "https://osv.mirror.example.internal/"
on_outage = "error"
ca_file = "/etc/batlehub/mirror-ca.pem"
timeout_secs = 5
)");
  const ScannerConfig& osv = *l.config.find_scanner("osv");
  EXPECT_EQ(osv.on_outage, "error");
  EXPECT_EQ(osv.ca_file, "/etc/batlehub/mirror-ca.pem");
  EXPECT_EQ(osv.timeout_secs, 5);
  EXPECT_EQ(loads("[scanners.osv]\n").config.scanners[0].on_outage, "clean") << "upstream's way by default";

  EXPECT_EQ(refusal("[scanners.osv]\non_outage = \"fail\"\n"),
            "config.toml:2: scanners.osv.on_outage: on_outage = \"fail\" is not one of \"clean\" (upstream's: an "
            "outage is no advisory, logged and counted) and \"error\" (the scanner's error, judged by the registry's "
            "scanner_error)");
  EXPECT_EQ(refusal("[scanners.osv]\napi_url = \"ftp://127.0.0.1/osv\"\n"),
            "config.toml:2: scanners.osv.api_url: api_url = \"ftp://127.0.0.1/osv\" is not an "
            "http(s)://host[:port][/path] base URL");
  EXPECT_EQ(refusal("[scanners.sigstore]\nrekor_url = \"https://127.0.0.1/?x=1\"\n"),
            "config.toml:2: scanners.sigstore.rekor_url: rekor_url = \"https://127.0.0.1/?x=1\" is not an "
            "http(s)://host[:port][/path] base URL");
  EXPECT_EQ(refusal("[scanners.mlab]\nca_file = \"ca.pem\"\n"),
            "config.toml:2: scanners.mlab.ca_file: ca_file = \"ca.pem\" must be an absolute path");
  EXPECT_EQ(refusal("[scanners.osv]\ntimeout_secs = 0\n"),
            "config.toml:2: scanners.osv.timeout_secs: timeout_secs = 0 must be at least 1");
  // on_outage is osv's alone: upstream counts only osv's outage as clean.
  EXPECT_NE(refusal("[scanners.socket]\napi_key = \"k\"\non_outage = \"error\"\n").find("on_outage"),
            std::string::npos);
}

TEST(UpstreamConfig, ARequireForKindThisWorkerDoesNotScanIsAWarning) {
  EXPECT_EQ(
      loads("[scanners.sigstore]\nrequire_for = [\"npm\", \"deb\"]\n").warnings,
      std::vector<std::string>{"config.toml:2: scanners.sigstore.require_for: require_for names \"deb\", which is "
                               "not a kind this worker scans (npm, pypi, cargo, rubygems, composer, goproxy, "
                               "maven, nuget, conda): it is ignored here"});
}

TEST(UpstreamConfig, MlabAsARequiredScannerIsAWarning) {
  Loaded l = loads(R"([scanners.mlab]
[[registries]]
name = "npmjs"
type = "npm"
upstreams = ["https://registry.npmjs.org", "https://npm.mirror.example.internal"]
[registries.security]
required_scanners = ["osv", "mlab"]
)");
  EXPECT_EQ(l.warnings, (std::vector<std::string>{
                            "config.toml:7: registries[0].security.required_scanners: registry 'npmjs' requires "
                            "scanner 'mlab' (type mlab), which enriches the findings of others and makes none of its "
                            "own: an mlab outage would hold every version SCAN_PENDING"}));
  ASSERT_EQ(l.config.registries.size(), 1u);
  EXPECT_EQ(l.config.registries[0].upstreams,
            (std::vector<std::string>{"https://registry.npmjs.org", "https://npm.mirror.example.internal"}));
}

TEST(UpstreamConfig, SocketsApiKeyIsRequiredAsUpstreamValidatesIt) {
  EXPECT_EQ(refusal("[scanners.socket]\napi_url = \"http://127.0.0.1:9\"\n"),
            "config.toml:1: scanners.socket.api_key: api_key is required for a socket scanner (socket.dev's API key)");
  EXPECT_EQ(refusal("[scanners.socket]\napi_key = \"\"\n"),
            "config.toml:2: scanners.socket.api_key: api_key is required for a socket scanner (socket.dev's API key)");
}

TEST(UpstreamConfig, TheNetworkScannersKeysAreCheckedLikeEveryOtherTables) {
  EXPECT_EQ(refusal("[scanners.mlab]\napi_kee = \"k\"\n"),
            "config.toml:2: scanners.mlab.api_kee: unknown key 'api_kee' in [scanners.mlab] (an mlab scanner) (did "
            "you mean 'api_key'?)");
  EXPECT_EQ(refusal("[scanners.sigstore]\nrequire_for = \"npm\"\n"),
            "config.toml:2: scanners.sigstore.require_for: expected an array of strings, not a string");
  EXPECT_EQ(refusal("[scanners.sigstore]\napi_key = \"k\"\n"),
            "config.toml:2: scanners.sigstore.api_key: unknown key 'api_key' in [scanners.sigstore] (a sigstore "
            "scanner)");
  EXPECT_EQ(refusal("[scanners.socket]\napi_key = \"k\"\nimage = \"x\"\n"),
            "config.toml:3: scanners.socket.image: unknown key 'image' in [scanners.socket] (a socket scanner)");
  EXPECT_EQ(refusal("[scanners.x]\ntype = \"clamav\"\n"),
            "config.toml:2: scanners.x.type: type = \"clamav\" is not one of postmortem, guarddog, trivy, yara, "
            "signals, behavior, osv, mlab, sigstore, socket");
}

TEST(UpstreamConfig, YaraTakesUpstreamsRulesDirOrOurRulesFileNotBoth) {
  EXPECT_EQ(loads("[scanners.yara]\nrules_dir = \"/etc/batlehub/yara\"\n").config.scanners[0].rules_dir,
            "/etc/batlehub/yara");
  EXPECT_EQ(refusal("[scanners.yara]\nrules_dir = \"yara\"\n"),
            "config.toml:2: scanners.yara.rules_dir: rules_dir = \"yara\" must be an absolute path on the worker host "
            "(the worker reads its *.yar and *.yara files and ships their bytes in the bundle)");
  EXPECT_EQ(refusal("[scanners.yara]\nrules = \"/r.yar\"\nrules_dir = \"/etc/batlehub/yara\"\n"),
            "config.toml:3: scanners.yara.rules_dir: rules and rules_dir are both set: name a rules file or a "
            "directory of them");
}

TEST(UpstreamConfig, ARegistrysScannersAreNoWarningNowThatEachTypeRuns) {
  // The table-of-registries spelling, beside upstream's [[registries]].
  Loaded l = loads(R"([scanners.guarddog]
command = "guarddog"
[scanners.socket]
api_key = "k"
[registries.npm.security]
scanners = ["guarddog", "socket"]
required_scanners = ["guarddog", "socket"]
)");
  EXPECT_EQ(l.warnings, std::vector<std::string>{});
  // A security table that names nothing: upstream's default, the implicit osv, which runs.
  EXPECT_TRUE(
      loads("[registries.npm]\nupstream = \"x\"\n[registries.npm.security]\nmode = \"block\"\n").warnings.empty());
  // [registries] is the proxy's: whatever its shape, nothing there is refused here.
  EXPECT_TRUE(loads("[[registries]]\n[registries.security]\nscanners = 3\nrequired_scanners = [1, \"g\"]\n"
                    "mature_age_secs = \"x\"\n")
                  .warnings.empty());
  EXPECT_TRUE(loads("registries = 3\n").warnings.empty());
}

// The worked examples of docs/configuration.md load as the page says.
std::string doc_example(std::string_view heading) {
  std::ifstream in(BATLEHUB_CONFIG_DOC);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t h = doc.find(heading);
  EXPECT_NE(h, std::string::npos) << heading;
  const std::size_t open = doc.find("```toml\n", h);
  const std::size_t close = doc.find("```\n", open + 8);
  EXPECT_NE(close, std::string::npos) << heading;
  return doc.substr(open + 8, close - open - 8);
}

TEST(DocExamples, TheBwrapExampleLoadsWithoutAWarning) {
  auto r = load_string(doc_example("## Worked example: bwrap"), "bwrap-example.toml", no_env());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->config.worker.sandbox.runtime, "bwrap");
  EXPECT_EQ(r->config.scanners.size(), 4u);
}

TEST(DocExamples, TheKubernetesExampleLoadsWithoutAWarning) {
  auto r = load_string(doc_example("## Worked example: kubernetes"), "kubernetes-example.toml", no_env());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->config.worker.sandbox.runtime, "kubernetes");
  EXPECT_EQ(bundle_backend(r->config)->name, "s3");
  // Switched back to bwrap, every image is refused (the page says so).
  std::string text = doc_example("## Worked example: kubernetes");
  text.replace(text.find("\"kubernetes\""), 12, "\"bwrap\"");
  auto b = load_string(text, "k.toml", no_env());
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "image on scanner 'postmortem' has no effect under runtime 'bwrap'; it is read by the oci and kubernetes "
            "runtimes");
}

// ---------------------------------------------------------------------------------------
// RFC 0022 §4.3, one rule at a time

struct NoneCase {
  std::optional<std::string> env;
  bool loads;
};

class TheNoneRule : public ::testing::TestWithParam<NoneCase> {};

TEST_P(TheNoneRule, OnlyExactlyOneLetsItThrough) {
  const NoneCase& c = GetParam();
  std::map<std::string, std::string, std::less<>> vars;
  if (c.env) vars["BATLEHUB_UNSAFE_NO_SANDBOX"] = *c.env;
  auto r = load("[worker.sandbox]\nruntime = \"none\"\n", env_of(vars));
  if (c.loads) {
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->config.worker.sandbox.runtime, "none");
    EXPECT_EQ(r->warnings, (std::vector<std::string>{
                               "config.toml:2: worker.sandbox.runtime: runtime = \"none\": scanners run in the "
                               "worker's own process, with no sandbox around them (BATLEHUB_UNSAFE_NO_SANDBOX=1 is "
                               "set)"}));
  } else {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().describe(),
              "config.toml:2: worker.sandbox.runtime: [worker.sandbox] runtime = \"none\" is refused outside tests "
              "unless BATLEHUB_UNSAFE_NO_SANDBOX=1 is set");
  }
}

INSTANTIATE_TEST_SUITE_P(Env, TheNoneRule,
                         ::testing::Values(NoneCase{std::nullopt, false}, NoneCase{"0", false}, NoneCase{"true", false},
                                           NoneCase{"", false}, NoneCase{"1 ", false}, NoneCase{"01", false},
                                           NoneCase{"1", true}));

TEST(Load, BehaviorIsOursWithItsPhaseBoundsAndNeverRunsWithoutASandbox) {
  Loaded l = loads("[worker.sandbox]\nruntime = \"bwrap\"\n[scanners.behavior]\nimport_timeout_secs = 30\n");
  const ScannerConfig* b = l.config.find_scanner("behavior");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->type, ScannerType::kBehavior);
  EXPECT_EQ(b->command, "batlehub-behavior");
  EXPECT_EQ(b->install_timeout_secs, 120);
  EXPECT_EQ(b->import_timeout_secs, 30);
  EXPECT_TRUE(runs_in_sandbox(ScannerType::kBehavior));
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"bwrap\"\n[scanners.behavior]\ninstall_timeout_secs = 0\n"),
            "config.toml:4: scanners.behavior.install_timeout_secs: install_timeout_secs must be 1 to 3600 seconds");
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"bwrap\"\n[scanners.behavior]\nrules = \"/x.yar\"\n"),
            "config.toml:4: scanners.behavior.rules: unknown key 'rules' in [scanners.behavior] (a behavior scanner)");
  // Under `none` (allowed for tests by the variable), the detonation alone is still refused.
  std::map<std::string, std::string, std::less<>> unsafe{{"BATLEHUB_UNSAFE_NO_SANDBOX", "1"}};
  auto r = load("[worker.sandbox]\nruntime = \"none\"\n[scanners.behavior]\n", env_of(unsafe));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().describe().find("refused under the none runtime"), std::string::npos) << r.error().describe();
}

TEST(TheNoneRule, AppliesWithoutASecurityRegistryToo) {
  Loaded l = loads("[worker.sandbox]\nruntime = \"bwrap\"\n");  // (control)
  EXPECT_FALSE(l.config.has_security_registry);
  EXPECT_NE(refusal("[worker.sandbox]\nruntime = \"none\"\n").find("is refused outside tests"), std::string::npos);
  EXPECT_NE(refusal("[worker.sandbox]\nruntime = \"none\"\n[registries.npm.security]\n")
                .find("is refused outside "
                      "tests"),
            std::string::npos);
}

TEST(TheNoneRule, AnEmptyEnvFunctionIsAnUnsetVariable) {
  auto r = load("[worker.sandbox]\nruntime = \"none\"\n", Env{});
  ASSERT_FALSE(r);
}

TEST(ThePresignRule, KubernetesOnAFilesystemBackendIsRefused) {
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\nimage = \"i\"\n"),
            "config.toml:2: worker.sandbox.runtime: the kubernetes runtime moves bundles through the storage backend "
            "and 'filesystem' cannot presign a URL; configure an S3-compatible backend, or name one in "
            "bundle_backend (bundle backend: 'default')");
}

TEST(ThePresignRule, KubernetesOnAnInMemoryBackendIsRefused) {
  EXPECT_EQ(error_of("[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\nimage = \"i\"\n"
                     "[storage]\ndefault = \"m\"\n[[storage.backends]]\nname = \"m\"\ntype = \"in_memory\"\n")
                .message,
            "the kubernetes runtime moves bundles through the storage backend and 'in_memory' cannot presign a URL; "
            "configure an S3-compatible backend, or name one in bundle_backend (bundle backend: 'm')");
}

TEST(ThePresignRule, OciWithTheStorageTransportIsRefused) {
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\ntransport = "
                    "\"storage\"\n"),
            "config.toml:2: worker.sandbox.runtime: the oci runtime with transport = \"storage\" moves bundles "
            "through the storage backend and 'filesystem' cannot presign a URL; configure an S3-compatible backend, "
            "or name one in bundle_backend (bundle backend: 'default')");
}

TEST(TheStorageNetwork, OciWithTheStorageTransportNamesTheNetworkItsRunsJoin) {
  constexpr std::string_view kS3 = R"(
[storage]
type = "s3"
endpoint_url = "http://127.0.0.1:9000"
bucket = "sandbox-bundles"
region = "us-east-1"
force_path_style = true
)";
  const std::string head =
      "[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\ntransport = \"storage\"\n";
  EXPECT_NE(error_of(head + std::string(kS3)).message.find("transport = \"storage\" needs storage_network"),
            std::string::npos);
  EXPECT_NE(error_of(head + "storage_network = \"host\"\n" + std::string(kS3)).message.find("no wall at all"),
            std::string::npos);
  EXPECT_NE(error_of(head + "storage_network = \"none\"\n" + std::string(kS3)).message.find("no way to fetch"),
            std::string::npos);
  Loaded l = loads(head + "storage_network = \"container:batlehub-storage\"\n" + std::string(kS3));
  EXPECT_EQ(l.config.worker.sandbox.tables.get<adapters::OciTable>().storage_network, "container:batlehub-storage");
  EXPECT_TRUE(uses_storage_transport(l.config.worker.sandbox));
}

TEST(TheS3Backend, ItsEndpointBucketAndKeysAreCheckedAtLoad) {
  auto backend = [](std::string_view keys) {
    return "[storage]\ntype = \"s3\"\nregion = \"us-east-1\"\n" + std::string(keys);
  };
  EXPECT_EQ(refusal(backend("endpoint_url = \"s3.example\"\nbucket = \"bkt\"\n")),
            "config.toml:4: storage.endpoint_url: endpoint_url = \"s3.example\" must start with https:// (or http:// "
            "for a peer on this host)");
  EXPECT_NE(error_of(backend("endpoint_url = \"https://s3.example/bkt\"\nbucket = \"bkt\"\n"))
                .message.find("a scheme and an authority only"),
            std::string::npos);
  EXPECT_EQ(refusal(backend("bucket = \"My_Bucket\"\n")),
            "config.toml:4: storage.bucket: bucket = \"My_Bucket\" is not an S3 bucket name (3-63 characters: a-z, "
            "0-9, '-', '.')");
  EXPECT_NE(error_of(backend("endpoint_url = \"http://127.0.0.1:9000\"\nbucket = \"bkt\"\nca_file = \"/ca.pem\"\n"))
                .message.find("https:// endpoint only"),
            std::string::npos);
  Loaded l =
      loads(backend("endpoint_url = \"https://s3.example:9000/\"\nbucket = \"bkt\"\n"
                    "ca_file = \"/etc/batlehub/s3-ca.pem\"\nforce_path_style = true\nprefix = \"batlehub/\"\n"));
  const auto* b = l.config.storage.find("default");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->ca_file, "/etc/batlehub/s3-ca.pem");
  EXPECT_TRUE(b->force_path_style);
  EXPECT_EQ(b->prefix, "batlehub/");
  // No endpoint_url: AWS's own, where ca_file may name the roots too.
  EXPECT_TRUE(load(backend("bucket = \"bkt\"\nca_file = \"/etc/ca.pem\"\n")));
}

TEST(ThePresignRule, OciWithTheMountTransportNeedsNoPresigning) {
  Loaded l = loads("[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\n");
  EXPECT_EQ(l.config.worker.sandbox.runtime, "oci");
  EXPECT_FALSE(uses_storage_transport(l.config.worker.sandbox));
}

TEST(ThePresignRule, TheBundleBackendIsTheOneChecked) {
  constexpr std::string_view kTwo = R"(
[storage]
default = "local"
[[storage.backends]]
name = "local"
type = "filesystem"
path = "/var/cache/batlehub"
[[storage.backends]]
name = "s3"
type = "s3"
endpoint_url = "http://minio:9000"
bucket = "cache"
region = "us-east-1"
)";
  // The default backend cannot presign, the one bundle_backend names can: loads.
  loads(std::string("[worker.sandbox]\nruntime = \"kubernetes\"\nbundle_backend = \"s3\"\n[worker.sandbox.kubernetes]"
                    "\nimage = \"i\"\n") +
        std::string(kTwo));
  // The other way round: refused, and the key is bundle_backend.
  ConfigError e =
      error_of(std::string("[worker.sandbox]\nruntime = \"kubernetes\"\nbundle_backend = \"local\"\n"
                           "[worker.sandbox.kubernetes]\nimage = \"i\"\n") +
               std::string(kTwo).replace(std::string(kTwo).find("default = \"local\""), 17, "default = \"s3\"   "));
  EXPECT_EQ(e.key, "worker.sandbox.bundle_backend");
  EXPECT_EQ(e.line, 3);
  EXPECT_NE(e.message.find("'filesystem' cannot presign a URL"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("(bundle backend: 'local')"), std::string::npos) << e.message;
}

TEST(TheBundleBackendRule, ANameStorageDoesNotDeclareIsRefusedWithTheList) {
  EXPECT_EQ(refusal(R"([worker.sandbox]
bundle_backend = "s4"
[storage]
default = "local"
[[storage.backends]]
name = "local"
type = "filesystem"
path = "/x"
[[storage.backends]]
name = "s3"
type = "s3"
endpoint_url = "http://minio:9000"
bucket = "cache"
region = "us-east-1"
)"),
            "config.toml:2: worker.sandbox.bundle_backend: bundle_backend = \"s4\" names no backend of [storage]; "
            "declared: local, s3");
  // Against the single shape's one backend too.
  EXPECT_EQ(refusal("[worker.sandbox]\nbundle_backend = \"s3\"\n"),
            "config.toml:2: worker.sandbox.bundle_backend: bundle_backend = \"s3\" names no backend of [storage]; "
            "declared: default");
}

TEST(TheMemoryBackedWorkRule, MaxExtractedAtOrAboveTheMemoryLimitIsRefusedOnTheImageRuntimes) {
  EXPECT_EQ(refusal(with_s3("[worker.sandbox]\nruntime = \"kubernetes\"\nmemory_limit_mb = 1024\nmax_extracted_mb = "
                            "1024\n[worker.sandbox.kubernetes]\nimage = \"i\"\n")),
            "config.toml:4: worker.sandbox.max_extracted_mb: max_extracted_mb = 1024 is not below memory_limit_mb = "
            "1024: under runtime 'kubernetes' /work is memory-backed and charged to the same limit, so the scanner "
            "would have no memory left once the extraction filled it");
  EXPECT_EQ(error_of("[worker.sandbox]\nruntime = \"oci\"\nmax_extracted_mb = 4096\n[worker.sandbox.oci]\nimage = "
                     "\"i\"\n")
                .message,
            "max_extracted_mb = 4096 is not below memory_limit_mb = 2048: under runtime 'oci' /work is "
            "memory-backed and charged to the same limit, so the scanner would have no memory left once the "
            "extraction filled it");
  // One below passes; on bwrap /work is a host directory and the rule does not apply.
  loads(
      with_s3("[worker.sandbox]\nruntime = \"kubernetes\"\nmemory_limit_mb = 1024\nmax_extracted_mb = 1023\n"
              "[worker.sandbox.kubernetes]\nimage = \"i\"\n"));
  loads("[worker.sandbox]\nmax_extracted_mb = 4096\n");
}

TEST(TheImageRule, AnImageUnderBwrapIsRefused) {
  EXPECT_EQ(refusal("[scanners.guarddog]\ncommand = \"guarddog\"\nimage = \"ghcr.io/x/guarddog:1\"\n"),
            "config.toml:3: scanners.guarddog.image: image on scanner 'guarddog' has no effect under runtime 'bwrap'; "
            "it is read by the oci and kubernetes runtimes");
}

TEST(TheImageRule, AnImageUnderNoneIsRefused) {
  EXPECT_EQ(error_of("[worker.sandbox]\nruntime = \"none\"\n[scanners.pm]\ntype = \"postmortem\"\ncommand = "
                     "\"postmortem\"\nimage = \"x\"\n",
                     env_of({{"BATLEHUB_UNSAFE_NO_SANDBOX", "1"}}))
                .message,
            "image on scanner 'pm' has no effect under runtime 'none'; it is read by the oci and kubernetes runtimes");
}

TEST(TheImageRule, AnEmptyImageIsNoImage) {
  loads("[scanners.guarddog]\ncommand = \"guarddog\"\nimage = \"\"\n");
}

TEST(TheImageRule, OnTheImageRuntimesEveryScannerNeedsAnImageFromSomewhere) {
  constexpr std::string_view kOci = "[worker.sandbox]\nruntime = \"oci\"\n[scanners.guarddog]\ncommand = \"g\"\n";
  EXPECT_EQ(refusal(kOci),
            "config.toml:3: scanners.guarddog.image: scanner 'guarddog' has no image to run from under "
            "runtime 'oci': set image on the scanner or in [worker.sandbox.oci] (or BATLEHUB_IMAGE in "
            "the worker's environment) to an image made like its room: the scanner and the agent, no "
            "shell, no batlehub");
  // An image named by the environment (BATLEHUB_IMAGE).
  Loaded l = loads(kOci, env_of({{"BATLEHUB_IMAGE", "ghcr.io/batleforc/batlehub-worker:1"}}));
  EXPECT_EQ(image_for(l.config, l.config.scanners[0], env_of({{"BATLEHUB_IMAGE", "own"}})), "own");
  // The runtime table's image.
  loads(std::string(kOci) + "[worker.sandbox.oci]\nimage = \"worker:1\"\n");
  // osv runs in the worker and needs none.
  loads("[worker.sandbox]\nruntime = \"oci\"\n[scanners.osv]\n");
}

TEST(TheInertTableRule, ATableForAnotherRuntimeIsAWarning) {
  Loaded l =
      loads(with_s3("[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\nimage = \"i\"\n"
                    "[worker.sandbox.oci]\nengine = \"docker\"\n[worker.sandbox.bwrap]\n"));
  EXPECT_EQ(l.warnings,
            (std::vector<std::string>{
                "config.toml:7: worker.sandbox.bwrap: [worker.sandbox.bwrap] has no effect under runtime "
                "'kubernetes'; it is read by the bwrap runtime only",
                "config.toml:5: worker.sandbox.oci: [worker.sandbox.oci] has no effect under runtime 'kubernetes'; "
                "it is read by the oci runtime only"}));
  Loaded o = loads(
      "[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\n"
      "[worker.sandbox.kubernetes]\n");
  EXPECT_EQ(o.warnings, (std::vector<std::string>{
                            "config.toml:5: worker.sandbox.kubernetes: [worker.sandbox.kubernetes] has no effect under "
                            "runtime 'oci' but for orphan_after_secs, which oci's sweep reads too; the rest is read by "
                            "the kubernetes runtime only"}));
  EXPECT_TRUE(loads("[worker.sandbox.bwrap]\n").warnings.empty());
}

TEST(TheInertTableRule, UnderOciAKubernetesTableSettingOnlyTheOrphanAgeIsRead) {
  // builders.cc hands oci [worker.sandbox.kubernetes] orphan_after_secs as its sweep's grace.
  Loaded l = loads(
      "[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\n"
      "[worker.sandbox.kubernetes]\norphan_after_secs = 3600\n");
  EXPECT_TRUE(l.warnings.empty());
  EXPECT_EQ(l.config.worker.sandbox.tables.get<adapters::KubernetesTable>().orphan_after_secs, 3600);
  EXPECT_EQ(loads("[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\n"
                  "[worker.sandbox.kubernetes]\norphan_after_secs = 3600\nnamespace = \"n\"\n")
                .warnings,
            (std::vector<std::string>{
                "config.toml:5: worker.sandbox.kubernetes: [worker.sandbox.kubernetes] has no effect under runtime "
                "'oci' but for orphan_after_secs, which oci's sweep reads too; the rest is read by the kubernetes "
                "runtime only"}));
  // Under bwrap nothing of it is read.
  EXPECT_EQ(loads("[worker.sandbox.kubernetes]\norphan_after_secs = 3600\n").warnings,
            (std::vector<std::string>{"config.toml:1: worker.sandbox.kubernetes: [worker.sandbox.kubernetes] has no "
                                      "effect under runtime 'bwrap'; it is read by the kubernetes runtime only"}));
}

struct PrefixCase {
  std::string prefix;
  std::string message;  // "" = accepted
};

class TheBundlePrefixRule : public ::testing::TestWithParam<PrefixCase> {};

TEST_P(TheBundlePrefixRule, IsOneSegmentOutsideEveryNamespaceTheProxyReads) {
  const PrefixCase& c = GetParam();
  std::string toml = "[worker.sandbox]\nbundle_prefix = \"" + c.prefix + "\"\n";
  auto r = load(toml);
  if (c.message.empty()) {
    EXPECT_TRUE(r) << r.error().describe();
    return;
  }
  ASSERT_FALSE(r) << c.prefix;
  EXPECT_EQ(r.error().key, "worker.sandbox.bundle_prefix");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().message, c.message);
}

constexpr const char* kNotProxy = "; what the sandbox writes must never share a prefix with a key the proxy reads";

INSTANTIATE_TEST_SUITE_P(
    Prefixes, TheBundlePrefixRule,
    ::testing::Values(
        PrefixCase{"sandbox/", ""}, PrefixCase{"batlehub-runs/", ""}, PrefixCase{"x/", ""},
        PrefixCase{"sandbox",
                   "bundle_prefix = \"sandbox\" must be one path segment with a trailing '/', like "
                   "\"sandbox/\""},
        PrefixCase{"", "bundle_prefix = \"\" must be one path segment with a trailing '/', like \"sandbox/\""},
        PrefixCase{"/", "bundle_prefix = \"/\" must be one path segment with a trailing '/', like \"sandbox/\""},
        PrefixCase{"a/b/",
                   "bundle_prefix = \"a/b/\" must be one path segment with a trailing '/', like "
                   "\"sandbox/\""},
        PrefixCase{"/sandbox/",
                   "bundle_prefix = \"/sandbox/\" must be one path segment with a trailing '/', like "
                   "\"sandbox/\""},
        PrefixCase{"../", "bundle_prefix = \"../\" must be one path segment with a trailing '/', like \"sandbox/\""},
        PrefixCase{"blob/", std::string("bundle_prefix = \"blob/\" is where the deduplicating storage router keeps "
                                        "its blobs") +
                                kNotProxy},
        PrefixCase{"artifact:/", std::string("bundle_prefix = \"artifact:/\" starts with 'artifact:', one of the "
                                             "proxy's key namespaces (artifact:, local:, meta:)") +
                                     kNotProxy},
        PrefixCase{"artifact:sandbox/", std::string("bundle_prefix = \"artifact:sandbox/\" starts with "
                                                    "'artifact:', one of the proxy's key namespaces (artifact:, "
                                                    "local:, meta:)") +
                                            kNotProxy},
        PrefixCase{"local:x/", std::string("bundle_prefix = \"local:x/\" starts with 'local:', one of the proxy's "
                                           "key namespaces (artifact:, local:, meta:)") +
                                   kNotProxy},
        PrefixCase{"meta:", std::string("bundle_prefix = \"meta:\" starts with 'meta:', one of the proxy's key "
                                        "namespaces (artifact:, local:, meta:)") +
                                kNotProxy}));

TEST(TheRoomsDirRule, MustBeAbsolute) {
  EXPECT_EQ(refusal("[worker.sandbox]\nrooms_dir = \"opt/sandbox\"\n"),
            "config.toml:2: worker.sandbox.rooms_dir: rooms_dir = \"opt/sandbox\" must be an absolute path (bwrap's "
            "root for a scanner is <rooms_dir>/<scanner name>)");
  EXPECT_EQ(error_of("[worker.sandbox]\nrooms_dir = \"\"\n").key, "worker.sandbox.rooms_dir");
}

TEST(TheBinaryRules, BwrapAndOciBinariesMustNotBeEmpty) {
  EXPECT_EQ(refusal("[worker.sandbox.bwrap]\nbinary = \"\"\n"),
            "config.toml:2: worker.sandbox.bwrap.binary: binary must not be empty");
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"oci\"\n[worker.sandbox.oci]\nimage = \"i\"\nbinary = \"\"\n"),
            "config.toml:5: worker.sandbox.oci.binary: binary must not be empty");
}

TEST(TheKubernetesRules, ServiceAccountAndSecretsAndOrphanAge) {
  const std::string k8s = "[worker.sandbox]\nruntime = \"kubernetes\"\n[worker.sandbox.kubernetes]\nimage = \"i\"\n";
  EXPECT_EQ(refusal(with_s3(k8s + "service_account = \"\"\n")),
            "config.toml:5: worker.sandbox.kubernetes.service_account: service_account must not be empty");
  EXPECT_EQ(refusal(with_s3(k8s + "image_pull_secrets = [\"a\", \"\"]\n")),
            "config.toml:5: worker.sandbox.kubernetes.image_pull_secrets[1]: an image pull secret's name must not "
            "be empty");
  EXPECT_EQ(refusal(with_s3(k8s + "orphan_after_secs = 0\n")),
            "config.toml:5: worker.sandbox.kubernetes.orphan_after_secs: orphan_after_secs = 0 must be at least 1");
}

class TheScannerNameRule : public ::testing::TestWithParam<std::string> {};

TEST_P(TheScannerNameRule, IsADirectoryNameAndALabel) {
  const std::string& name = GetParam();
  ConfigError e = error_of("[scanners.\"" + name + "\"]\ntype = \"osv\"\n");
  EXPECT_EQ(e.line, 1) << name;
  EXPECT_EQ(e.message, "scanner name '" + name +
                           "' must be 1 to 63 characters among A-Z, a-z, 0-9, '_' and '-', beginning and ending "
                           "with a letter or a digit: it names the scanner's room (<rooms_dir>/<name>) and labels its "
                           "sandboxes");
}

INSTANTIATE_TEST_SUITE_P(BadNames, TheScannerNameRule,
                         ::testing::Values("", "my scanner", "a/b", "..", "x.y", "-lead", "trail_", "caf\xc3\xa9",
                                           std::string(64, 'a')));

TEST(TheScannerNameRule, GoodNamesPass) {
  loads("[scanners.osv-2]\ntype = \"osv\"\n[scanners.Egress_probe9]\ntype = \"osv\"\n[scanners." +
        std::string(63, 'a') + "]\ntype = \"osv\"\n");
  EXPECT_EQ(error_of("[scanners.\"a b\"]\ntype = \"osv\"\n").key, "scanners.\"a b\"");
}

TEST(TheScannerRules, GuarddogEcosystemsAreNpmPypiGo) {
  EXPECT_EQ(refusal("[scanners.guarddog]\ncommand = \"guarddog\"\necosystems = [\"npm\", \"rubygems\"]\n"),
            "config.toml:3: scanners.guarddog.ecosystems[1]: ecosystems[1] = \"rubygems\" is not one of npm, pypi, "
            "go");
}

TEST(TheScannerRules, TrivyTimeoutIsAtLeastOneSecond) {
  EXPECT_EQ(refusal("[scanners.trivy]\nendpoint = \"\"\ntimeout_secs = 0\n"),
            "config.toml:3: scanners.trivy.timeout_secs: timeout_secs = 0 must be at least 1");
  EXPECT_EQ(refusal("[scanners.trivy]\nendpoint = \"\"\ntimeout_secs = 86401\n"),
            "config.toml:3: scanners.trivy.timeout_secs: timeout_secs = 86401 must be at most 86400 (24 hours, the "
            "longest timeout a run's manifest carries)");
}

TEST(TheScannerRules, YaraRulesIsAnAbsoluteHostPath) {
  EXPECT_EQ(refusal("[scanners.yara]\nrules = \"rules.yar\"\n"),
            "config.toml:2: scanners.yara.rules: rules = \"rules.yar\" must be an absolute path on the worker host "
            "(the worker reads the file and ships its bytes in the bundle)");
}

TEST(TheScannerRules, CommandsMustNotBeEmptyButAreNotLookedUp) {
  EXPECT_EQ(refusal("[scanners.postmortem]\ncommand = \"\"\n"),
            "config.toml:2: scanners.postmortem.command: command must not be empty");
  EXPECT_EQ(refusal("[scanners.trivy]\ncommand = \"\"\nendpoint = \"\"\n"),
            "config.toml:2: scanners.trivy.command: command must not be empty");
  // Not on this PATH, nor anywhere: the room (or the image) has it, and the probe checks.
  loads("[scanners.postmortem]\ncommand = \"/no/such/postmortem-binary\"\n");
}

TEST(TheScannerRules, AnEscalationsKindsAndCount) {
  const std::string pre = "[scanners.guarddog]\ncommand = \"g\"\n[scanners.guarddog.escalation]\n";
  EXPECT_EQ(refusal(pre + "kinds = [\"malware\"]\ncount = 1\nfrom = \"high\"\nto = \"critical\"\n"),
            "config.toml:4: scanners.guarddog.escalation.kinds[0]: kinds[0] = \"malware\" is not a finding kind (one "
            "of vulnerability, malware_signal, install_hook, provenance, signature, license, publisher, typosquat, "
            "transition, age, pending, soc_verdict, scanner_error, block_list, ref)");
  EXPECT_EQ(refusal(pre + "kinds = []\ncount = 1\nfrom = \"high\"\nto = \"critical\"\n"),
            "config.toml:4: scanners.guarddog.escalation.kinds: kinds must name at least one finding kind");
  EXPECT_EQ(refusal(pre + "kinds = [\"vulnerability\"]\ncount = 0\nfrom = \"high\"\nto = \"critical\"\n"),
            "config.toml:5: scanners.guarddog.escalation.count: count = 0 must be at least 1");
}

struct RangeCase {
  std::string table;
  std::string key;
};

class TheRangeRule : public ::testing::TestWithParam<RangeCase> {};

TEST_P(TheRangeRule, ZeroAndNegativeAreRefused) {
  const RangeCase& c = GetParam();
  for (int v : {0, -1}) {
    const std::string toml = "[" + c.table + "]\n" + c.key + " = " + std::to_string(v) + "\n";
    EXPECT_EQ(refusal(toml), "config.toml:2: " + c.table + "." + c.key + ": " + c.key + " = " + std::to_string(v) +
                                 " must be at least 1");
  }
  EXPECT_TRUE(load("[" + c.table + "]\n" + c.key + " = 1\n")) << c.key;
}

INSTANTIATE_TEST_SUITE_P(
    Keys, TheRangeRule,
    ::testing::Values(RangeCase{"worker", "max_concurrent"}, RangeCase{"worker", "job_timeout_secs"},
                      RangeCase{"worker", "max_attempts"}, RangeCase{"worker.sandbox", "memory_limit_mb"},
                      RangeCase{"worker.sandbox", "cpu_seconds"}, RangeCase{"worker.sandbox", "max_extracted_mb"},
                      RangeCase{"worker.sandbox", "max_entries"}, RangeCase{"worker.sandbox", "start_timeout_secs"},
                      RangeCase{"worker.sandbox", "probe_interval_secs"},
                      RangeCase{"worker.sandbox", "bundle_ttl_secs"}),
    [](const ::testing::TestParamInfo<RangeCase>& param_info) { return param_info.param.key; });

TEST(TheRangeRule, UpperBoundsAreTheWires) {
  EXPECT_EQ(refusal("[worker]\njob_timeout_secs = 86401\n"),
            "config.toml:2: worker.job_timeout_secs: job_timeout_secs = 86401 must be at most 86400 (24 hours, the "
            "longest timeout a run's manifest carries)");
  EXPECT_EQ(refusal("[worker.sandbox]\nmax_entries = 10000001\n"),
            "config.toml:2: worker.sandbox.max_entries: max_entries = 10000001 must be at most 10000000");
  EXPECT_EQ(refusal("[worker.sandbox]\nmax_extracted_mb = 524289\n"),
            "config.toml:2: worker.sandbox.max_extracted_mb: max_extracted_mb = 524289 must be at most 524288");
  EXPECT_EQ(refusal("[worker.sandbox]\nmemory_limit_mb = 9223372036854775807\n"),
            "config.toml:2: worker.sandbox.memory_limit_mb: memory_limit_mb = 9223372036854775807 must be at most "
            "1073741824");
  loads("[worker]\njob_timeout_secs = 86400\n");
}

TEST(TheProbeCanaryRule, AddressesOfThisMachineAreKeptInOrder) {
  Loaded l = loads("[worker.sandbox]\nprobe_canaries = [\"127.0.0.1:9\", \"[::1]:8080\"]\n");
  EXPECT_EQ(l.config.worker.sandbox.probe_canaries, (std::vector<std::string>{"127.0.0.1:9", "[::1]:8080"}));
  // An empty list is the worker's own listener alone.
  EXPECT_TRUE(loads("[worker.sandbox]\nprobe_canaries = []\n").config.worker.sandbox.probe_canaries.empty());
}

TEST(TheProbeCanaryRule, ANameOrAnAddressWithoutAPortIsRefusedWithItsLine) {
  EXPECT_EQ(
      refusal("[worker.sandbox]\nrooms_dir = \"/srv/rooms\"\nprobe_canaries = [\"127.0.0.1:9\", "
              "\"resolver.example:53\"]\n"),
      "config.toml:3: worker.sandbox.probe_canaries[1]: probe canary \"resolver.example:53\" is not an address and a "
      "port (\"a.b.c.d:port\" or \"[v6]:port\"): a canary is an address, never a name, because a sandbox may be "
      "allowed its resolver");
  for (const char* bad : {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "::1:53", "[::1]", ""}) {
    EXPECT_NE(refusal("[worker.sandbox]\nprobe_canaries = [\"" + std::string(bad) + "\"]\n").find("probe_canaries[0]"),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(refusal("[worker.sandbox]\nprobe_canaries = \"127.0.0.1:9\"\n"),
            "config.toml:2: worker.sandbox.probe_canaries: expected an array of strings, not a string");
}

TEST(TheProbeCanaryRule, AtMostWhatAManifestCarriesBesideTheWorkersOwnTwo) {
  std::string many = "[worker.sandbox]\nprobe_canaries = [";
  for (int i = 0; i < 63; ++i) many += (i ? ", " : "") + std::string("\"127.0.0.1:") + std::to_string(1000 + i) + "\"";
  EXPECT_EQ(
      refusal(many + "]\n"),
      "config.toml:2: worker.sandbox.probe_canaries: probe_canaries lists 63 addresses; at most 62 fit beside the "
      "worker's own two");
}

TEST(TheCgroupKeys, AreReadAndACgroupParentMustBeAPathBelowEachHierarchysRoot) {
  Loaded l = loads(
      "[worker.sandbox]\naccept_per_process_limits = true\n[worker.sandbox.bwrap]\n"
      "cgroup_parent = \"/batlehub.slice/runs\"\n");
  EXPECT_TRUE(l.config.worker.sandbox.accept_per_process_limits);
  EXPECT_EQ(l.config.worker.sandbox.tables.get<adapters::BwrapTable>().cgroup_parent, "/batlehub.slice/runs");
  EXPECT_EQ(refusal("[worker.sandbox.bwrap]\ncgroup_parent = \"/a/../b\"\n"),
            "config.toml:2: worker.sandbox.bwrap.cgroup_parent: cgroup_parent = \"/a/../b\" must be an absolute path "
            "below each cgroup hierarchy's root, like \"/batlehub.slice/sandbox\", with no '.' or '..' segment");
  for (const char* bad : {"batlehub", "/a//b", "/./a", "/a/.."}) {
    EXPECT_NE(refusal("[worker.sandbox.bwrap]\ncgroup_parent = \"" + std::string(bad) + "\"\n").find("cgroup_parent"),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(refusal("[worker.sandbox]\naccept_per_process_limits = \"yes\"\n"),
            "config.toml:2: worker.sandbox.accept_per_process_limits: expected a boolean, not a string");
}

TEST(TheWorkerRules, ARegistryNameIsNotEmpty) {
  EXPECT_EQ(refusal("[worker]\nregistries = [\"npm\", \"\"]\n"),
            "config.toml:2: worker.registries[1]: a registry name must not be empty");
}

TEST(TheStorageRules, OnlyS3CanPresign) {
  EXPECT_TRUE(can_presign(StorageType::kS3));
  EXPECT_FALSE(can_presign(StorageType::kFilesystem));
  EXPECT_FALSE(can_presign(StorageType::kInMemory));
}

// ---------------------------------------------------------------------------------------
// validate() on a Config built in code, and the error's shape

TEST(Validate, AConfigBuiltInCodeIsRefusedWithoutALine) {
  Config c = defaults();
  c.worker.sandbox.runtime = "kubernetes";
  adapters::KubernetesTable k;
  k.image = "i";
  c.worker.sandbox.tables.set(k);
  auto v = validate(c, no_env());
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().line, 0);
  EXPECT_EQ(v.error().describe(),
            "config: worker.sandbox.runtime: the kubernetes runtime moves bundles through the storage backend and "
            "'filesystem' cannot presign a URL; configure an S3-compatible backend, or name one in bundle_backend "
            "(bundle backend: 'default')");
  c.storage.backends[0] = StorageBackendConfig{
      .name = "default", .type = StorageType::kS3, .bucket = "bkt", .region = "us-east-1", .endpoint_url = "http://m"};
  v = validate(c, no_env());
  ASSERT_TRUE(v) << v.error().describe();
}

TEST(Validate, AnOriginFallsBackToTheNearestParent) {
  Origin o;
  o.lines = {{"worker", 1}, {"worker.sandbox", 4}, {"worker.sandbox.runtime", 5}};
  EXPECT_EQ(o.line_of("worker.sandbox.runtime"), 5);
  EXPECT_EQ(o.line_of("worker.sandbox.bundle_prefix"), 4);
  EXPECT_EQ(o.line_of("worker.sandbox.oci.extra_args[2]"), 4);
  EXPECT_EQ(o.line_of("scanners.x"), 0);
}

TEST(ConfigErrorTest, Describe) {
  EXPECT_EQ((ConfigError{"config.toml", 12, "worker.sandbox.runtime", "m"}).describe(),
            "config.toml:12: worker.sandbox.runtime: m");
  EXPECT_EQ((ConfigError{"config.toml", 0, "", "m"}).describe(), "config.toml: m");
  EXPECT_EQ((ConfigError{"config.toml", 3, "", "m"}).describe(), "config.toml:3: m");
}

TEST(Quoting, AValueShownInAMessageIsEscapedAndCut) {
  EXPECT_EQ(error_of("[worker.sandbox]\nruntime = \"a\\u0001\\\"b\"\n").message,
            "runtime = \"a\\x01\\\"b\" is not one of none, bwrap, oci, kubernetes");
  const std::string long_value(300, 'x');
  const std::string m = error_of("[worker.sandbox]\nruntime = \"" + long_value + "\"\n").message;
  EXPECT_EQ(m, "runtime = \"" + std::string(100, 'x') + "\xe2\x80\xa6\" is not one of none, bwrap, oci, kubernetes");
}

TEST(ProcessEnv, ReadsTheRealEnvironment) {
  ASSERT_EQ(setenv("BATLEHUB_CONFIG_TEST_VAR", "v", 1), 0);
  Env env = process_env();
  EXPECT_EQ(env("BATLEHUB_CONFIG_TEST_VAR"), std::optional<std::string>("v"));
  unsetenv("BATLEHUB_CONFIG_TEST_VAR");
  EXPECT_EQ(env("BATLEHUB_CONFIG_TEST_VAR"), std::nullopt);
}

// ---------------------------------------------------------------------------------------
// [storage] as upstream has it (upstream-storage-and-queue.md A.1-A.5)

namespace storage_tests {

// The file as written, without the helper's appended [storage].
Expected<Loaded, ConfigError> load_as_is(std::string_view toml, const Env& env = no_env()) {
  return load_string(toml, "config.toml", env);
}
std::string refused_as_is(std::string_view toml, const Env& env = no_env()) {
  auto r = load_as_is(toml, env);
  EXPECT_FALSE(r) << "loaded:\n" << toml;
  return r ? std::string("(loaded)") : r.error().describe();
}

TEST(Storage, IsRequiredAsUpstreamRequiresIt) {
  EXPECT_EQ(refused_as_is("[worker]\nmax_concurrent = 2\n"),
            "config.toml: storage: [storage] is missing; upstream requires it too. One backend: [storage] type = "
            "\"filesystem\" with path, or type = \"s3\" with bucket and region; named backends: default = "
            "\"<name>\" with [[storage.backends]] entries");
}

TEST(Storage, TheSingleFilesystemShape) {
  auto l = load_as_is("[storage]\ntype = \"filesystem\"\npath = \"/srv/batlehub/cache\"\n");
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.storage.shape, StorageShape::kSingle);
  EXPECT_EQ(l->config.storage.default_backend, "default");
  ASSERT_EQ(l->config.storage.backends.size(), 1u);
  EXPECT_EQ(l->config.storage.backends[0].path, "/srv/batlehub/cache");
  EXPECT_TRUE(l->warnings.empty());
}

TEST(Storage, TheSingleShapesRequiredKeysAndTypes) {
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"filesystem\"\n"),
            "config.toml:1: storage.path: path is required for a filesystem backend");
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"s3\"\nbucket = \"b-1\"\n"),
            "config.toml:1: storage.region: region is required for an s3 backend (the signing region, e.g. "
            "\"us-east-1\"; upstream has no default)");
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"s3\"\nregion = \"us-east-1\"\n"),
            "config.toml:1: storage.bucket: bucket is required for an s3 backend");
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"gcs\"\nbucket = \"b\"\n"),
            "config.toml:2: storage.type: type = \"gcs\" is not one of filesystem, s3, in_memory");
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"s3\"\nbucket = \"bkt\"\nregion = \"us-east-1\"\nforce_path_style = "
                          "\"yes\"\n"),
            "config.toml:5: storage.force_path_style: expected a boolean, not a string");
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"filesystem\"\npath = \"\"\n"),
            "config.toml:3: storage.path: path must not be empty");
}

TEST(Storage, TheMultiShapeFromTheReference) {
  // upstream-storage-and-queue.md A.3, verbatim.
  auto l = load_as_is(R"([storage]
default = "local"            # string, required: the name of one backend below

[[storage.backends]]
name = "local"               # string, required, the backend's name
type = "filesystem"          # then that type's keys, flat, as in A.2
path = "/srv/batlehub/cache"

[[storage.backends]]
name = "objects"
type = "s3"
bucket = "batlehub-blobs"
region = "eu-central-1"
prefix = "cache/"
endpoint_url = "https://s3.example.internal"
force_path_style = true
)");
  ASSERT_TRUE(l) << l.error().describe();
  const StorageConfig& st = l->config.storage;
  EXPECT_EQ(st.shape, StorageShape::kMulti);
  EXPECT_EQ(st.default_backend, "local");
  ASSERT_EQ(st.backends.size(), 2u);
  EXPECT_EQ(st.backends[0].path, "/srv/batlehub/cache");
  const StorageBackendConfig& o = st.backends[1];
  EXPECT_EQ(o.name, "objects");
  EXPECT_EQ(o.bucket, "batlehub-blobs");
  EXPECT_EQ(o.region, "eu-central-1");
  EXPECT_EQ(o.prefix, "cache/");
  EXPECT_EQ(o.endpoint_url, "https://s3.example.internal");
  EXPECT_TRUE(o.force_path_style);
  EXPECT_EQ(l->origin.line_of("storage.backends[1].bucket"), 12);
  EXPECT_TRUE(l->warnings.empty());
}

TEST(Storage, TheMultiShapesRefusalsNameTheEntryAndTheLine) {
  EXPECT_EQ(refused_as_is("[storage]\ndefault = \"cache\"\n[[storage.backends]]\nname = \"local\"\ntype = "
                          "\"filesystem\"\npath = \"/x\"\n"),
            "config.toml:2: storage.default: storage default 'cache' does not match any backend name in "
            "[[storage.backends]]; declared: local");
  EXPECT_EQ(refused_as_is("[storage]\ndefault = \"cache\"\nbackends = []\n"),
            "config.toml:2: storage.default: default = \"cache\" names no backend: [[storage.backends]] declares "
            "none");
  EXPECT_EQ(refused_as_is("[storage]\ndefault = \"a\"\n[[storage.backends]]\ntype = \"filesystem\"\npath = \"/x\"\n"),
            "config.toml:3: storage.backends[0].name: name is required for every [[storage.backends]] entry: "
            "default and a registry's storage select by it");
  EXPECT_EQ(refused_as_is("[storage]\ndefault = \"a\"\n[[storage.backends]]\nname = \"a\"\npath = \"/x\"\n"),
            "config.toml:3: storage.backends[0].type: type is required for every [[storage.backends]] entry "
            "(filesystem or s3; in_memory for tests)");
  EXPECT_EQ(refused_as_is("[storage]\ndefault = \"a\"\n[[storage.backends]]\nname = \"a\"\ntype = \"s3\"\nbucket = "
                          "\"bkt\"\n"),
            "config.toml:3: storage.backends[0].region: region is required for an s3 backend (the signing region, "
            "e.g. \"us-east-1\"; upstream has no default)");
  EXPECT_EQ(refused_as_is("[[storage.backends]]\nname = \"a\"\ntype = \"filesystem\"\npath = \"/x\"\n"),
            "config.toml:1: storage.backends: default is required with [[storage.backends]]: the name of the "
            "backend used when a registry names none");
  EXPECT_EQ(refused_as_is("[storage]\npath = \"/x\"\n"),
            "config.toml:1: storage: [storage] is neither of upstream's two shapes: give it type = \"filesystem\" "
            "or \"s3\" with that type's keys (one backend), or default = \"<name>\" with [[storage.backends]] "
            "entries");
}

TEST(Storage, ThisWorkersOldSpellingIsRefusedWithWhatReplacedIt) {
  EXPECT_EQ(refused_as_is("[storage]\ndefault = \"a\"\n[storage.backends.a]\ntype = \"filesystem\"\npath = \"/x\"\n"),
            "config.toml:3: storage.backends: backends is a table here; upstream's is an array of tables: write each "
            "backend as [[storage.backends]] with name = \"<name>\" (the [storage.backends.<name>] spelling was this "
            "worker's own)");
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"s3\"\nendpoint = \"http://m:9000\"\nbucket = \"bkt\"\nregion = "
                          "\"us-east-1\"\n"),
            "config.toml:3: storage.endpoint: 'endpoint' is not a key of upstream's [storage]; use endpoint_url");
  EXPECT_NE(refused_as_is("[storage]\ntype = \"s3\"\nbucket = \"bkt\"\nregion = \"us-east-1\"\naccess_key_id = "
                          "\"AK\"\n")
                .find("storage.access_key_id: 'access_key_id' is not a key of upstream's [storage]; use the AWS "
                      "default credential chain"),
            std::string::npos);
}

TEST(Storage, AnUnknownKeyIsIgnoredAsUpstreamIgnoresItAndSaidWithItsLine) {
  auto l = load_as_is("[storage]\ntype = \"s3\"\nbucket = \"bkt\"\nregion = \"us-east-1\"\nforce_path_styl = true\n");
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_FALSE(l->config.storage.backends[0].force_path_style);
  ASSERT_EQ(l->warnings.size(), 1u);
  EXPECT_EQ(l->warnings[0],
            "config.toml:5: storage.force_path_styl: unknown key 'force_path_styl' in [storage] (an s3 backend) (did "
            "you mean 'force_path_style'?); upstream ignores it, and so does this worker");
}

TEST(Storage, TypeWithBackendsIsTheSingleShapeAndTheBackendsAreSaidToBeIgnored) {
  auto l = load_as_is(
      "[storage]\ntype = \"filesystem\"\npath = \"/x\"\ndefault = \"b\"\n[[storage.backends]]\nname "
      "= \"b\"\ntype = \"filesystem\"\npath = \"/y\"\n");
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.storage.shape, StorageShape::kSingle);
  ASSERT_EQ(l->config.storage.backends.size(), 1u);
  EXPECT_EQ(l->config.storage.backends[0].path, "/x");
  ASSERT_EQ(l->warnings.size(), 2u);
  EXPECT_NE(l->warnings[0].find("config.toml:4: storage.default: ignored: [storage] has type"), std::string::npos)
      << l->warnings[0];
  EXPECT_NE(l->warnings[1].find("config.toml:5: storage.backends: ignored"), std::string::npos) << l->warnings[1];
}

TEST(Storage, ADuplicateNameKeepsTheLaterEntryAsUpstreamDoesAndSaysSo) {
  auto l = load_as_is(
      "[storage]\ndefault = \"a\"\n[[storage.backends]]\nname = \"a\"\ntype = \"filesystem\"\npath "
      "= \"/first\"\n[[storage.backends]]\nname = \"a\"\ntype = \"filesystem\"\npath = \"/second\"\n");
  ASSERT_TRUE(l) << l.error().describe();
  ASSERT_EQ(l->config.storage.backends.size(), 1u);
  EXPECT_EQ(l->config.storage.backends[0].path, "/second");
  ASSERT_EQ(l->warnings.size(), 1u);
  EXPECT_EQ(l->warnings[0],
            "config.toml:7: storage.backends[1].name: a second backend named 'a' replaces the first, as upstream "
            "does; give each its own name");
}

TEST(Storage, ARegistrysStorageMustNameADeclaredBackend) {
  constexpr std::string_view kMulti =
      "[storage]\ndefault = \"local\"\n[[storage.backends]]\nname = \"local\"\ntype = \"filesystem\"\npath = "
      "\"/x\"\n[[storage.backends]]\nname = \"objects\"\ntype = \"in_memory\"\n";
  auto l = load_as_is(std::string(kMulti) + "[[registries]]\nname = \"npm\"\ntype = \"npm\"\nstorage = \"objects\"\n");
  ASSERT_TRUE(l) << l.error().describe();
  ASSERT_EQ(l->config.registries.size(), 1u);
  EXPECT_EQ(l->config.registries[0].storage, "objects");
  EXPECT_EQ(l->config.registries[0].type, "npm");
  EXPECT_EQ(refused_as_is(std::string(kMulti) + "[[registries]]\nname = \"npm\"\nstorage = \"cold\"\n"),
            "config.toml:12: registries[0].storage: registry 'npm': 'storage = \"cold\"' does not match any backend "
            "name in [[storage.backends]]; declared: local, objects");
  constexpr std::string_view kSingle = "[storage]\ntype = \"filesystem\"\npath = \"/x\"\n";
  EXPECT_TRUE(load_as_is(std::string(kSingle) + "[[registries]]\nname = \"npm\"\nstorage = \"default\"\n"));
  EXPECT_EQ(refused_as_is(std::string(kSingle) + "[[registries]]\nname = \"npm\"\nstorage = \"objects\"\n"),
            "config.toml:6: registries[0].storage: registry 'npm': 'storage = \"objects\"' requires a multi-backend "
            "[[storage.backends]] configuration; single-backend storage has no named backends to select");
}

// ---------------------------------------------------------------------------------------
// ${VAR} and PROXY_CACHE__… (A.5, B.1)

TEST(Expansion, EveryPlaceholderOutsideACommentIsTheVariablesValue) {
  const Env env =
      env_of({{"DATABASE_URL", "postgres://u@127.0.0.1/db"}, {"CACHE_DIR", "/srv/cache"}, {"PORT", "9090"}});
  auto l = load_as_is(
      "[database]\nurl = \"${DATABASE_URL}\"  # ${NOT_SET} in a comment is left alone\n[server]\nport = ${PORT}\n"
      "[storage]\ntype = 'filesystem'\npath = '${CACHE_DIR}/npm'\n",
      env);
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.database.url, "postgres://u@127.0.0.1/db");
  EXPECT_EQ(l->config.server.port, 9090);
  EXPECT_EQ(l->config.storage.backends[0].path, "/srv/cache/npm");
}

TEST(Expansion, AnUnsetVariableIsRefusedWithItsNameAndLine) {
  EXPECT_EQ(refused_as_is("[storage]\ntype = \"filesystem\"\npath = \"${CACHE_DIR}\"\n"),
            "config.toml:3: ${CACHE_DIR} names an environment variable that is not set");
}

TEST(Expansion, DoubledDollarIsTheLiteralPlaceholder) {
  auto l = load_as_is("[storage]\ntype = \"filesystem\"\npath = \"/x/$${NOT_SET}\"\n");
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.storage.backends[0].path, "/x/${NOT_SET}");
}

TEST(Expansion, AHashInsideAStringDoesNotStartAComment) {
  const Env env = env_of({{"B", "bkt"}});
  auto l = load_as_is(
      "[storage]\ntype = \"s3\"\nregion = \"us-east-1\"\nbucket = \"${B}\"\nprefix = \"a#${B}/\"\n"
      "# a comment: ${UNSET} \"\nendpoint_url = 'http://127.0.0.1:9' # '${UNSET}'\n",
      env);
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.storage.backends[0].prefix, "a#bkt/");
  // In a multi-line string a '#' is text too; a placeholder there is expanded.
  auto m = load_as_is("[storage]\ntype = \"filesystem\"\npath = \"\"\"/a#\n${B}\"\"\"\n", env);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(m->config.storage.backends[0].path, "/a#\nbkt");
}

TEST(Overrides, TheDatabaseUrlAndTheSingleShapesLocationKeys) {
  const Env env = env_of({{"PROXY_CACHE__DATABASE__URL", "postgres://o@127.0.0.1/q"},
                          {"PROXY_CACHE__STORAGE__BUCKET", "over-bucket"},
                          {"PROXY_CACHE__STORAGE__REGION", "eu-west-3"},
                          {"PROXY_CACHE__STORAGE__ENDPOINT_URL", "http://127.0.0.1:7"},
                          {"PROXY_CACHE__STORAGE__PATH", "/ignored-for-s3"}});
  auto l = load_as_is(
      "[database]\nurl = \"postgres://f@127.0.0.1/f\"\n[storage]\ntype = \"s3\"\nbucket = "
      "\"file-bucket\"\nregion = \"us-east-1\"\n",
      env);
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.database.url, "postgres://o@127.0.0.1/q");
  const StorageBackendConfig& b = l->config.storage.backends[0];
  EXPECT_EQ(b.bucket, "over-bucket");
  EXPECT_EQ(b.region, "eu-west-3");
  EXPECT_EQ(b.endpoint_url, "http://127.0.0.1:7");
  EXPECT_EQ(b.path, "");  // a variable for the other type is ignored
  EXPECT_EQ(l->overrides, (std::vector<std::string>{"database.url from PROXY_CACHE__DATABASE__URL",
                                                    "storage.bucket from PROXY_CACHE__STORAGE__BUCKET",
                                                    "storage.region from PROXY_CACHE__STORAGE__REGION",
                                                    "storage.endpoint_url from PROXY_CACHE__STORAGE__ENDPOINT_URL"}));
  // The overridden value is validated as if the file held it.
  EXPECT_NE(refused_as_is("[storage]\ntype = \"s3\"\nbucket = \"bkt\"\nregion = \"us-east-1\"\n",
                          env_of({{"PROXY_CACHE__STORAGE__BUCKET", "Not_A_Bucket"}}))
                .find("bucket = \"Not_A_Bucket\" is not an S3 bucket name"),
            std::string::npos);
}

TEST(Overrides, TheMultiShapeIgnoresTheStorageOnes) {
  auto l = load_as_is(
      "[storage]\ndefault = \"a\"\n[[storage.backends]]\nname = \"a\"\ntype = \"filesystem\"\npath "
      "= \"/x\"\n",
      env_of({{"PROXY_CACHE__STORAGE__PATH", "/over"}}));
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.storage.backends[0].path, "/x");
  EXPECT_TRUE(l->overrides.empty());
  auto f = load_as_is("[storage]\ntype = \"filesystem\"\npath = \"/x\"\n",
                      env_of({{"PROXY_CACHE__STORAGE__PATH", "/over"}}));
  ASSERT_TRUE(f) << f.error().describe();
  EXPECT_EQ(f->config.storage.backends[0].path, "/over");
}

TEST(Roles, ServerRolesAreReadAsUpstreamReadsThem) {
  auto l = load_as_is("[server]\nroles = [\"worker\"]\n[storage]\ntype = \"filesystem\"\npath = \"/x\"\n");
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.server.roles, std::vector<std::string>{"worker"});
  EXPECT_EQ(refused_as_is("[server]\nroles = []\n[storage]\ntype = \"filesystem\"\npath = \"/x\"\n"),
            "config.toml:2: server.roles: roles = [] names no role; upstream refuses it too (proxy, worker, or both)");
  EXPECT_EQ(refused_as_is("[server]\nroles = [\"scanner\"]\n[storage]\ntype = \"filesystem\"\npath = \"/x\"\n"),
            "config.toml:2: server.roles: roles[0] = \"scanner\" is not a role: proxy or worker");
}

TEST(ConfigPath, FlagThenBatlehubConfigThenConfigToml) {
  EXPECT_EQ(config_path(std::string("/a.toml"), env_of({{"BATLEHUB_CONFIG", "/b.toml"}})), "/a.toml");
  EXPECT_EQ(config_path(std::nullopt, env_of({{"BATLEHUB_CONFIG", "/b.toml"}})), "/b.toml");
}

}  // namespace storage_tests

// ---------------------------------------------------------------------------------------
// tests/config/upstream/: files written for upstream, loaded as upstream loads them

namespace corpus_tests {

const std::string kCorpus = kFixtures + "/../upstream";

Env corpus_env(const std::string& file) {
  std::map<std::string, std::string, std::less<>> vars = {{"DATABASE_URL", "postgres://env@127.0.0.1:5432/env"},
                                                          {"S3_BUCKET", "from-the-environment"},
                                                          {"CACHE_DIR", "/srv/batlehub"}};
  if (file == "env-overrides.toml") {
    vars.emplace("PROXY_CACHE__DATABASE__URL", "postgres://override@127.0.0.1:5432/override");
    vars.emplace("PROXY_CACHE__STORAGE__BUCKET", "override-bucket");
    vars.emplace("PROXY_CACHE__STORAGE__REGION", "ap-southeast-2");
    vars.emplace("PROXY_CACHE__STORAGE__ENDPOINT_URL", "http://127.0.0.1:9001");
    vars.emplace("PROXY_CACHE__STORAGE__PATH", "/not/for/s3");
  }
  return env_of(std::move(vars));
}

std::vector<std::string> tomls_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".toml") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Loaded load_corpus(const std::string& name) {
  auto r = load_file(kCorpus + "/" + name, corpus_env(name));
  EXPECT_TRUE(r) << name << ": " << (r ? "" : r.error().describe());
  Loaded out;
  if (r) out = std::move(*r);
  return out;
}

TEST(UpstreamCorpus, EveryFileLoads) {
  const auto files = tomls_in(kCorpus);
  EXPECT_GE(files.size(), 7u);
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    auto r = load_file(kCorpus + "/" + f, corpus_env(f));
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
  }
}

TEST(UpstreamCorpus, EachWrongFileIsRefusedWithItsLine) {
  const auto files = tomls_in(kCorpus + "/refused");
  EXPECT_GE(files.size(), 10u);
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const std::string path = kCorpus + "/refused/" + f;
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    ASSERT_TRUE(first.starts_with("# refused: ")) << first;
    std::string want = first.substr(11);
    want.replace(want.find("FILE"), 4, path);
    auto r = load_file(path, corpus_env(f));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().describe(), want);
  }
}

TEST(UpstreamCorpus, TheSingleShapes) {
  Loaded fs = load_corpus("single-filesystem.toml");
  EXPECT_EQ(fs.config.storage.shape, StorageShape::kSingle);
  EXPECT_EQ(fs.config.storage.backends.at(0).type, StorageType::kFilesystem);
  EXPECT_EQ(fs.config.server.roles, std::vector<std::string>{"worker"});
  EXPECT_EQ(fs.config.database.url, "postgresql://batlehub@127.0.0.1:5432/batlehub");
  EXPECT_TRUE(fs.warnings.empty());
  EXPECT_TRUE(fs.proxy_only.empty());

  Loaded s3 = load_corpus("single-s3.toml");
  const StorageBackendConfig& b = s3.config.storage.backends.at(0);
  EXPECT_EQ(b.name, "default");
  EXPECT_EQ(b.bucket, "batlehub-cache");
  EXPECT_EQ(b.region, "eu-central-1");
  EXPECT_EQ(b.prefix, "batlehub/");
  EXPECT_EQ(b.endpoint_url, "http://127.0.0.1:9000");
  EXPECT_TRUE(b.force_path_style);
  ASSERT_EQ(s3.config.registries.size(), 2u);
  EXPECT_EQ(s3.config.registries[0].storage, "default");
  EXPECT_EQ(s3.config.registries[1].type, "pypi");
}

TEST(UpstreamCorpus, TheMultiShapeRoutesARegistryToANamedBackend) {
  Loaded l = load_corpus("multi-backends.toml");
  const StorageConfig& st = l.config.storage;
  EXPECT_EQ(st.shape, StorageShape::kMulti);
  EXPECT_EQ(st.default_backend, "local");
  ASSERT_EQ(st.backends.size(), 2u);
  EXPECT_EQ(st.backends[1].name, "objects");
  EXPECT_EQ(l.config.registries.at(0).storage, "objects");
  EXPECT_EQ(l.config.registries.at(1).storage, "");
  EXPECT_EQ(l.origin.line_of("registries[0].storage"), 23);
}

TEST(UpstreamCorpus, VariablesAreExpandedAndCommentsLeftAlone) {
  Loaded l = load_corpus("env-expansion.toml");
  EXPECT_EQ(l.config.database.url, "postgres://env@127.0.0.1:5432/env");
  EXPECT_EQ(l.config.storage.backends.at(0).bucket, "from-the-environment");
  EXPECT_EQ(l.config.storage.backends.at(0).prefix, "literal-${NOT_SET}/");
  EXPECT_EQ(l.config.worker.state_dir, "/srv/batlehub/state");
}

TEST(UpstreamCorpus, TheOverridesReplaceTheFilesValues) {
  Loaded l = load_corpus("env-overrides.toml");
  EXPECT_EQ(l.config.database.url, "postgres://override@127.0.0.1:5432/override");
  const StorageBackendConfig& b = l.config.storage.backends.at(0);
  EXPECT_EQ(b.bucket, "override-bucket");
  EXPECT_EQ(b.region, "ap-southeast-2");
  EXPECT_EQ(b.endpoint_url, "http://127.0.0.1:9001");
  EXPECT_EQ(b.path, "");
  EXPECT_EQ(l.overrides.size(), 4u);
}

TEST(UpstreamCorpus, TheProxysSectionsAreNamedNotRefused) {
  Loaded l = load_corpus("proxy-and-worker.toml");
  EXPECT_EQ(l.config.server.roles, (std::vector<std::string>{"proxy", "worker"}));
  EXPECT_EQ(l.proxy_only, (std::vector<std::string>{"log_level", "server.tls", "database.max_connections", "[cache]",
                                                    "[stats]", "[auth]", "[upstream_audit]", "[notifications]"}));
  EXPECT_TRUE(l.warnings.empty()) << l.warnings.front();
}

}  // namespace corpus_tests

}  // namespace
}  // namespace batlehub::config
