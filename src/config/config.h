// The worker's configuration: [worker], [worker.sandbox] and its runtime tables,
// [scanners.<name>], upstream's [storage] in both its shapes, and the few keys of [server],
// [database] and [registries] the worker needs (RFC 0022 §4.1; upstream-storage-and-queue.md
// Part A), as a value type, with a loader that reads an upstream file as upstream reads it
// (${VAR}, PROXY_CACHE__… overrides) and refuses what it does not understand, and a
// validator that applies every rule of RFC 0022 §4.3. docs/configuration.md is the reference.
//
// Everything else in a batlehub config file ([stats], [cache], [auth], the rest of
// [server], [database] and [registries], …) is the proxy's: named once at start, never
// applied, never refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "config/runtime_table.h"
#include "core/env.h"
#include "core/findings.h"

namespace batlehub::config {

// ---------------------------------------------------------------------------------------
// Enumerations. Each has to_string (the spelling in the file) and a parse that accepts
// exactly those spellings.

// Whether runs of the runtime named `runtime` are opened from an image, /work memory-backed
// (its registration says: config/runtime_table.h). false for a name nothing registered.
bool is_image_runtime(std::string_view runtime);

// Every scanner type of upstream's [scanners.<name>] (upstream-today.md §5.2), so that an
// upstream file loads unchanged (RFC 0022 §9).
// signals and behavior are ours, not upstream's.
enum class ScannerType { kPostmortem, kGuarddog, kTrivy, kYara, kSignals, kBehavior, kOsv, kMlab, kSigstore, kSocket };
std::string_view to_string(ScannerType t);
std::optional<ScannerType> parse_scanner_type(std::string_view s);
// The binary scanners (postmortem, guarddog, trivy, yara, signals, behavior) run in the sandbox. The network
// scanners (osv, mlab, sigstore, socket) run no artifact-derived code and make HTTP calls
// from the worker; RFC 0022 §3 leaves them outside the sandbox (adapters/network_scanners).
bool runs_in_sandbox(ScannerType t);

// An escalation's `from`/`to` are the findings' own severities (one type for the concept);
// the loader accepts low, medium, high and critical, never "unknown".
using core::Severity;

enum class StorageType { kFilesystem, kS3, kInMemory };
std::string_view to_string(StorageType t);
// Only an S3-compatible backend can hand out presigned URLs (RFC 0022 §5.2).
bool can_presign(StorageType t);

// ---------------------------------------------------------------------------------------
// [worker.sandbox]. Its runtime tables are the runtimes' own (config/runtime_table.h).

struct SandboxConfig {
  // A registered runtime's name (config/runtime_table.h); the loader refuses any other.
  std::string runtime = "bwrap";
  std::int64_t memory_limit_mb = 2048;
  std::int64_t cpu_seconds = 300;
  std::int64_t max_extracted_mb = 512;
  std::int64_t max_entries = 50000;
  std::int64_t start_timeout_secs = 120;
  std::int64_t probe_interval_secs = 600;
  // Addresses ("a.b.c.d:port", "[v6]:port") the probe's no_network assertion tries to reach
  // from inside, on top of the worker's own listener on loopback and on its own address,
  // which every runtime adds by itself. The RFC's 1.1.1.1:53 by default: a host out there
  // that answers. Tests and air-gapped sites set addresses of their own (docs/configuration.md).
  std::vector<std::string> probe_canaries = {"1.1.1.1:53"};
  // Ours: when the host gives the worker no cgroup to bound a run as a whole, run anyway
  // with per-process limits (rlimits) only — the probe then warns on memory_bounded and
  // pids_bounded instead of failing. Off: such a worker refuses to start.
  bool accept_per_process_limits = false;
  // Ours: a kernel without Landlock (the agent's own filesystem, network and signal wall on
  // the scanner) fails the probe instead of warning on `landlock`.
  bool require_landlock = false;
  std::string bundle_backend;  // "" = [storage] default
  std::string bundle_prefix = "sandbox/";
  std::int64_t bundle_ttl_secs = 60;
  // Ours, not the RFC's: where bwrap finds each scanner's read-only root,
  // <rooms_dir>/<scanner name> (RFC 0022 §5.3 hard-codes /opt/sandbox).
  std::string rooms_dir = "/opt/sandbox";

  // [worker.sandbox.<runtime>] of each runtime the file has a table for, each read by its
  // registration and opaque here: `tables.get<adapters::OciTable>()`. A table for another
  // runtime than the one chosen is inert, and validate warns about it.
  RuntimeTables tables;

  bool operator==(const SandboxConfig&) const = default;
};

struct WorkerConfig {
  std::int64_t max_concurrent = 4;
  std::int64_t job_timeout_secs = 600;
  std::int64_t max_attempts = 3;
  std::vector<std::string> registries;  // empty = every registry
  // Ours: where `batlehub worker` keeps what it owns on this host — the SQLite queue
  // (queue.sqlite3) when [database] names no PostgreSQL, and spool/, where each job's
  // artifact is copied and verified.
  std::string state_dir = "/var/lib/batlehub";
  // Ours: how many runs may be in flight. 0 = the RFC's ⌊budget ÷ (memory_limit_mb +
  // max_extracted_mb)⌋; a number lowers that (it never raises it past the budget).
  std::int64_t pool_slots = 0;
  // Ours: on SIGTERM, how long running scans may take to finish before they are released.
  std::int64_t shutdown_grace_secs = 30;
  SandboxConfig sandbox;
  bool operator==(const WorkerConfig&) const = default;
};

// [server]: where the worker-only process listens for /livez and /metrics, and upstream's
// `roles`. Its other keys belong to the proxy and are named, not read.
struct ServerConfig {
  std::string host = "127.0.0.1";
  std::int64_t port = 8080;  // 0 = a port the kernel chooses (tests)
  // Upstream's default: both. `batlehub --roles …` overrides it; this build runs "worker"
  // alone and refuses a start that asks for "proxy".
  std::vector<std::string> roles = {"proxy", "worker"};
  bool operator==(const ServerConfig&) const = default;
};

// [database]: the queue. url = "" keeps it in SQLite under [worker] state_dir; a
// "postgresql://…" or "postgres://…" URL (or a libpq "key=value" string) names a PostgreSQL
// database, shared by many workers on many hosts. Its other keys are not read here.
struct DatabaseConfig {
  std::string url;
  bool operator==(const DatabaseConfig&) const = default;
};

// ---------------------------------------------------------------------------------------
// [scanners.<name>]

// `escalation = {kinds = [...], count = N, from = "sev", to = "sev"}`: raise the severity
// to `to` when `count` findings of those kinds at `from` or above come from this scanner.
struct Escalation {
  std::vector<std::string> kinds;  // finding kinds, snake_case (vulnerability, malware_signal, …)
  std::int64_t count = 1;
  Severity from = Severity::kHigh;
  Severity to = Severity::kCritical;
  bool operator==(const Escalation&) const = default;
};

// One flat struct for every type; each field says which types read it. The loader
// refuses a key that the scanner's type does not have, so a field that its type does
// not read is always at its default.
struct ScannerConfig {
  std::string name;  // the table's name: [scanners.<name>]
  ScannerType type = ScannerType::kOsv;

  // postmortem, guarddog: required. trivy: "trivy". yara: "yara". signals (ours):
  // "batlehub-signals". behavior (ours): "batlehub-behavior". osv: unused ("").
  std::string command;
  // Every type but osv. "" = the runtime's image, else the worker's own. Refused when
  // set under the none and bwrap runtimes.
  std::string image;

  // postmortem
  bool online = false;
  bool timeline = true;
  // guarddog: among npm, pypi, go
  std::vector<std::string> ecosystems;
  // trivy: the server to ask ("" = a local database, downloaded into /work)
  std::string endpoint;
  // trivy: the OCI repository its vulnerability database is pulled from ("" = Trivy's own
  // default): a mirror of the operator's, or, in tests, a port on loopback.
  std::string db_repository;
  // behavior (ours): how long one install phase (pip install, an npm hook) and one import may
  // take, each; the scanner's whole run is still bounded by the job's timeout.
  std::int64_t install_timeout_secs = 120;
  std::int64_t import_timeout_secs = 20;
  // trivy: how long its server may take (upstream's key, 60). Ours for osv, mlab, sigstore
  // and socket: how long one request may take (30; the job's own budget bounds them all).
  std::int64_t timeout_secs = 60;
  // yara: an absolute path on the worker host to a rules file; the worker ships its
  // bytes in the bundle, the sandbox never sees the host path.
  std::string rules;
  // yara, upstream's key (exactly one of rules and rules_dir): an absolute directory on the
  // worker host whose *.yar and *.yara files, in name order, are shipped as one rules text.
  std::string rules_dir;
  // osv, mlab, socket: the API to ask ("" = the service's public one)
  std::string api_url;
  // Ours, osv, mlab, sigstore, socket: PEM roots their APIs' certificates must chain to
  // ("" = the system's): an operator's mirror or internal proxy under its own CA.
  std::string ca_file;
  // Ours, osv: what an outage is. "clean" (upstream's: a failed query is no advisory,
  // logged and counted) or "error" (the scanner's error: SCANNER_ERROR, judged by the
  // registry's scanner_error).
  std::string on_outage = "clean";
  // mlab, socket (required for socket, as upstream validates it)
  std::string api_key;
  // sigstore: the Rekor transparency log ("" = the public one), and what a signature is
  // required for
  std::string rekor_url;
  std::vector<std::string> require_for;

  std::optional<Escalation> escalation;

  bool operator==(const ScannerConfig&) const = default;
};

// ---------------------------------------------------------------------------------------
// [storage], in upstream's two shapes (upstream-storage-and-queue.md A.1-A.3): one backend
// described by [storage] itself (`type` and its keys; its name is "default"), or
// `default = "<name>"` with `[[storage.backends]]`, each with a `name`. The keys and their
// defaults are upstream's; what this project adds is marked "ours" and never needed by an
// upstream file.

enum class StorageShape { kSingle, kMulti };

struct StorageBackendConfig {
  std::string name;  // "default" in the single shape; the entry's `name` in the multi shape
  StorageType type = StorageType::kFilesystem;
  // filesystem
  std::string path;
  // s3. Credentials are never in the file: the AWS default chain (adapters/storage/
  // aws_credentials.h) provides them, as upstream's SDK does.
  std::string bucket;
  std::string region;        // required, as upstream: the signing region
  std::string prefix;        // prepended verbatim to every object key
  std::string endpoint_url;  // "" = AWS's own endpoint for the region
  bool force_path_style = false;
  std::string ca_file;  // ours: PEM roots for an https endpoint; "" = the system's roots
  bool operator==(const StorageBackendConfig&) const = default;
};

struct StorageConfig {
  StorageShape shape = StorageShape::kSingle;
  // The backend used when nothing names one: "default" in the single shape. The multi
  // shape's TOML key is `default`.
  std::string default_backend = "default";
  // In file order. A Config built in code (no file: `batlehub scan`, `probe`) has one
  // filesystem backend; a file must have [storage], as upstream's must.
  std::vector<StorageBackendConfig> backends = {
      StorageBackendConfig{.name = "default", .type = StorageType::kFilesystem, .path = "/var/cache/batlehub"}};

  const StorageBackendConfig* find(std::string_view name) const;
  bool operator==(const StorageConfig&) const = default;
};

// Where the i-th backend's keys sit in the file: "storage" in the single shape,
// "storage.backends[i]" in the multi shape.
std::string backend_key(const StorageConfig& s, std::size_t i);

// ---------------------------------------------------------------------------------------
// [registries]: the proxy's. Only what this worker needs is read — which scanners a
// registry's verdicts wait for, its kind, its storage and its upstreams — never refused.

// One `[[registries]]` entry, as far as this worker reads it: its name, its kind and the
// storage backend its artifacts are routed to ("" = the default backend).
struct RegistryEntry {
  std::string name;
  std::string type;
  std::string storage;
  // Upstream's: where the proxy fetches from, in order ([] = the type's public registry).
  // The sigstore scanner asks the first for a version's document and attestations.
  std::vector<std::string> upstreams;
  std::string key;  // "registries[0]"
  bool operator==(const RegistryEntry&) const = default;
};

// One registry's security table: upstream's `[[registries]]` element followed by
// `[registries.security]`, or a `[registries.<name>.security]` table.
struct RegistrySecurity {
  std::string registry;  // its `name`, else the table's name
  std::string key;       // the security table's dotted key, e.g. "registries[0].security"
  // Upstream's defaults (upstream-today.md §5.3): osv, which exists implicitly.
  std::vector<std::string> scanners = {"osv"};
  std::vector<std::string> required_scanners = {"osv"};
  // A quarantine whose only cause is SCAN_PENDING is warned once the version is this old;
  // 0 = never.
  std::int64_t mature_age_secs = 86400;
  // The rest of upstream's keys a verdict reads, at upstream's defaults, spelled as the file
  // spells them (the table is the proxy's: read, never refused; server/root/builders.cc turns it
  // into core::SecurityPolicy, and validate warns about a spelling upstream would refuse).
  std::string mode = "block";         // block | warn
  std::int64_t min_age_secs = 86400;  // floor 3600, as upstream
  bool hold_missing_timestamp = true;
  std::string max_severity = "high";
  bool require_provenance = false;
  std::string deny_install_hooks = "warn";   // deny | warn | ignore
  std::string scanner_error = "quarantine";  // quarantine | warn | ignore
  bool operator==(const RegistrySecurity&) const = default;
};

// ---------------------------------------------------------------------------------------

struct Config {
  WorkerConfig worker;
  ServerConfig server;
  DatabaseConfig database;
  std::vector<ScannerConfig> scanners;  // in file order
  StorageConfig storage;
  // Whether any [registries.<name>.security] table exists. Recorded for completeness: the
  // none rule applies whether or not one does (docs/configuration.md).
  bool has_security_registry = false;
  // Each registry's security table, in file order.
  std::vector<RegistrySecurity> security_registries;
  // Each `[[registries]]` entry (or `[registries.<name>]` table), in file order.
  std::vector<RegistryEntry> registries;

  const ScannerConfig* find_scanner(std::string_view name) const;
  // The `[[registries]]` entry named `name`, and the security table of registry `name`; of
  // two with one name, the later, as a later table replaces an earlier one. nullptr: none.
  const RegistryEntry* find_registry(std::string_view name) const;
  const RegistrySecurity* find_security(std::string_view registry) const;
  bool operator==(const Config&) const = default;
};

// Every value at its default: what an empty file loads to.
Config defaults();

// The backend bundles go through: bundle_backend, else [storage] default. nullptr when
// that name is not declared (validate refuses such a config).
const StorageBackendConfig* bundle_backend(const Config& c);
// Whether runs move their bundles through presigned URLs: kubernetes, or oci with
// transport = "storage".
bool uses_storage_transport(const SandboxConfig& s);

// ---------------------------------------------------------------------------------------
// The environment, as a function, so that tests pass a fake.

using core::Env;
// Reads the real environment (the worker side; the agent never does).
Env process_env();
// A fixed set of variables; everything else is unset.
Env env_of(std::map<std::string, std::string, std::less<>> vars);

// The image a run of this scanner is opened from on the image runtimes: the scanner's
// `image`, else the runtime table's `image`, else env BATLEHUB_IMAGE's (an image made like a
// room; never the worker's own, which holds batlehub: docs/architecture.md, departure 20).
// "" when none of the three is set, and always "" under none and bwrap.
std::string image_for(const Config& c, const ScannerConfig& s, const Env& env);
// What image_for gives a scanner that names no image of its own: the runtime table's `image`,
// else BATLEHUB_IMAGE's; "" under a runtime that runs no images. A run of a room no scanner
// names (a probe, an identify run) is opened from it too.
std::string default_image(const Config& c, const Env& env);

// ---------------------------------------------------------------------------------------
// Errors and where keys came from.

struct ConfigError {
  std::string file;
  int line = 0;     // 1-based; 0 when there is none
  std::string key;  // dotted, e.g. "worker.sandbox.runtime"; "" for the whole file
  std::string message;

  // `config.toml:12: worker.sandbox.runtime: runtime = "firecracker" is not one of none,
  // bwrap, oci, kubernetes` (the line and the key are left out when there are none).
  std::string describe() const;
};

// The line each dotted key (and each table) was read from.
struct Origin {
  std::string file;
  std::map<std::string, int, std::less<>> lines;
  // The key's line; else that of its nearest recorded parent; else 0.
  int line_of(std::string_view key) const;
};

// ---------------------------------------------------------------------------------------
// Loading and validation.

inline constexpr std::size_t kMaxConfigBytes = std::size_t{1024} * 1024;

struct Loaded {
  Config config;
  // Each formatted like ConfigError::describe().
  std::vector<std::string> warnings;
  // What the file holds for the proxy and this worker does not read ("[auth]",
  // "server.tls", …), in file order: named once at start, never applied, never refused.
  std::vector<std::string> proxy_only;
  // Each PROXY_CACHE__… variable that replaced a value of the file: "storage.bucket from
  // PROXY_CACHE__STORAGE__BUCKET".
  std::vector<std::string> overrides;
  Origin origin;
};

// Expands ${VAR}, parses, applies upstream's PROXY_CACHE__… overrides, then validates.
// Refuses: a file over kMaxConfigBytes or not a regular file, an unset ${VAR}, a TOML
// syntax error, a file without [storage], an unknown key or a value of the wrong type anywhere under [worker],
// [scanners] or [storage], a string outside its set, and whatever validate() refuses.
Expected<Loaded, ConfigError> load_file(const std::string& path, const Env& env);
Expected<Loaded, ConfigError> load_string(std::string_view toml, std::string_view source_name, const Env& env);

// Which file to read, as upstream chooses it: `--config`, else BATLEHUB_CONFIG, else
// ./config.toml when it exists; nullopt when none of the three names a file.
std::optional<std::string> config_path(const std::optional<std::string>& flag, const Env& env);

// Every value rule and every rule of RFC 0022 §4.3, in a fixed order; the first refusal
// is returned. On success, the warnings (inert runtime tables, the none runtime in use, a
// security table's misspelt value, mlab made a required scanner).
// `origin` only gives refusals their line; a Config built in code validates without one.
Expected<std::vector<std::string>, ConfigError> validate(const Config& c, const Env& env, const Origin& origin = {});

}  // namespace batlehub::config
