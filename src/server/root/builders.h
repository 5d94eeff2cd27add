// Wiring the configuration to implementations. The runtime is looked up by name among the
// registered ones (adapters/sandbox/registry.h): RFC 0022 §6.4's one match arm is a line
// of adapters/sandbox/runtimes.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/storage/bundle.h"
#include "adapters/storage/router.h"
#include "config/config.h"
#include "core/queue.h"
#include "core/sandbox.h"
#include "core/verdict.h"
#include "server/service/scan_service.h"

namespace batlehub::server {

// [storage]'s backends behind the router, in file order: how the storage transport finds
// where an artifact's blob lies. Each S3 backend takes its credentials from the AWS chain and
// is asked for its bucket (HeadBucket) now, as upstream does at start: no credentials, a
// bucket that does not answer, or an endpoint out of reach is an error naming the backend,
// the endpoint and the S3 error.
Expected<std::shared_ptr<adapters::StorageRouter>, std::string> build_storage(const config::Config& c,
                                                                              const config::Env& env);
// The storage transport's bundle module on the leaf backend bundle_backend names (else the
// default), with `worker` (worker_label) in every key it stages.
Expected<std::shared_ptr<adapters::BundleStore>, std::string> build_bundle_store(const config::Config& c,
                                                                                 const config::Env& env,
                                                                                 const std::string& worker);

// The runtime [worker.sandbox] names. A runtime that cannot be built (kubernetes without
// credentials, an S3-less storage transport) is an error, never a fallback to another.
Expected<std::unique_ptr<core::SandboxRuntime>, std::string> build_sandbox_runtime(const config::Config& c,
                                                                                   const config::Env& env);

// What the probe must prove: on bwrap, one room per sandboxed scanner the config names (its
// command resolved inside the room); on the image runtimes, one target per distinct image
// (config::image_for), named after its scanners ("guarddog+yara") and stating all their
// commands; with no scanner configured, every room that exists under rooms_dir.
std::vector<core::ProbeTarget> probe_targets(const config::Config& c, const config::Env& env);

core::Limits limits_of(const config::SandboxConfig& s);

// Where a package whose file name does not name it is identified (scan_service.h): the room
// of the first configured scanner whose room exists under rooms_dir — a room the probe has
// just proven, and every room holds the agent (scripts/build-room.py puts it on the room's
// PATH) — else the first probe target. No room is built for identification alone: it would
// be one more room to prove, holding nothing the others lack. On the image runtimes: the
// image of the first sandboxed scanner.
IdentifyPlace identify_place(const config::Config& c, const config::Env& env);

// The file at `path` loaded and validated (its warnings logged), or the built-in defaults
// when there is none. The error is ConfigError::describe()'s line.
Expected<config::Config, std::string> load_config(const std::optional<std::string>& path, const config::Env& env);

// "storage: one s3 backend (bucket …, region …, endpoint …)" or "storage: default 'a'; a
// (filesystem /srv), b (s3 …)": what the file's [storage] became, one line.
void describe_storage(const config::StorageConfig& s, std::ostream& out);
// "not read by this worker (the proxy's): [auth], [stats], server.tls": one line.
std::string proxy_only_line(const std::vector<std::string>& proxy_only);

// The queue [database] names: PostgreSQL for a URL, else SQLite at <state_dir>/queue.sqlite3
// (the directory made, 0700, when missing). The worker and `batlehub submit / wait / why`
// given the same file open the same queue.
Expected<std::unique_ptr<core::ScanQueue>, std::string> open_queue(const config::Config& c);

// <state_dir>/spool: where the worker makes its verified copy of a job's artifact (each
// unlinked as soon as it is open).
std::string spool_dir(const config::Config& c);

// The policy a registry's verdicts are judged by: its `[registries.security]` table from
// upstream's defaults, with each configured scanner's escalation. nullopt when the registry
// has no security table (a registry of this worker's own, judged by `fallback`).
std::optional<core::SecurityPolicy> registry_policy(const config::Config& c, const std::string& registry);

// Whether upstream drops this registry's jobs: a `[[registries]]` entry with no security
// table has no verdicts upstream would read (its API answers 404), so nothing is scanned.
bool drops_jobs(const config::Config& c, const std::string& registry);

// What in a registry's policy this worker cannot honour: a required scanner no table
// declares (osv excepted: upstream's exists implicitly), or require_provenance with no
// sigstore scanner to check it. "" when none.
std::string unservable_because(const config::Config& c, const config::RegistrySecurity& r);

// Which registries this worker serves — `[worker] registries`, or every registry when that
// is empty — said in one line ("serving npmjs (npm; requires guarddog, yara), …"); the
// error, naming the registry and why, when one it would serve is one it cannot (its
// versions would be held for ever rather than left to upstream's worker).
Expected<std::string, std::string> served_registries(const config::Config& c);

}  // namespace batlehub::server
