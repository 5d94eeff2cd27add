// The `oci` runtime: one container per run, through the engine's CLI — podman or docker —
// never its socket (RFC 0022 §5.3, §7). Its walls: the engine's namespaces with no network
// (unless the run needs it), the image read-only as /, a memory-backed /work and /tmp, the
// per-run directory bound at /bundle, every capability dropped, no_new_privs, the engine's
// default seccomp profile under the agent's own filter, uid 65532, an environment of HOME
// and PATH, memory, pids and CPU bounded by the engine's cgroup, the agent as the command.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adapters/sandbox/launcher.h"
#include "adapters/storage/bundle.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

enum class OciEngineKind { kPodman, kDocker };
// How a run's bundle reaches its container: a host directory bound at /bundle, or presigned
// URLs on the storage backend (RFC 0022 §5.2).
enum class OciTransport { kMount, kStorage };

// [worker.sandbox.oci], read and checked by oci_registration (docs/configuration.md).
struct OciTable {
  static constexpr std::string_view kName = "oci";
  OciEngineKind engine = OciEngineKind::kPodman;
  // When the key is absent the registration sets it to the engine's name ("podman", "docker").
  std::string binary = "podman";
  std::string image;  // "" = BATLEHUB_IMAGE's, else none (config::image_for)
  OciTransport transport = OciTransport::kMount;
  // transport = "storage": the engine network a run without network joins, whose only
  // destination is the storage endpoint (`--network <this>`); required there, and neither
  // "none" (the fetch could not happen) nor "host" (no wall at all).
  std::string storage_network;
  std::vector<std::string> extra_args;  // appended verbatim to `<binary> run`
  bool operator==(const OciTable&) const = default;
};

struct RuntimeRegistration;
RuntimeRegistration oci_registration();

// Labels every container carries, so that a sweep can tell whose it is and when it is due.
inline constexpr const char* kOciWorkerLabel = "io.batlehub.worker";
inline constexpr const char* kOciJobLabel = "io.batlehub.job";
inline constexpr const char* kOciDeadlineLabel = "io.batlehub.deadline";

struct OciArgvInput {
  OciEngineKind engine = OciEngineKind::kPodman;
  std::string binary = "podman";
  std::string name;    // batlehub-sbx-<job>-<scanner>-<attempt>-<unique>
  std::string worker;  // "<pid>@<host>": the sweep's way to tell a dead worker's containers
  std::string job;
  std::int64_t deadline_epoch = 0;  // seconds since the epoch after which the run is overdue
  std::string bundle_dir;           // the host directory bound at /bundle; "" with the storage transport
  // transport = "storage": the agent's two presigned URLs instead of /bundle's files, and the
  // network a run without network joins instead of none — one whose only destination is the
  // storage endpoint (docs/operations/oci.md), which the probe proves from inside.
  std::string in_url;
  std::string out_url;
  std::string storage_network;
  bool network = false;
  std::uint64_t memory_mb = 2048;
  std::uint64_t work_mb = 512;  // /work's and /tmp's tmpfs size (max_extracted_mb)
  std::uint64_t pids = 256;
  std::string cpus = "1";
  std::vector<std::string> extra_args;  // [worker.sandbox.oci] extra_args, verbatim
  std::string image;
};

// Whether [worker.sandbox.oci] extra_args run the containers under gVisor: a `--runtime`
// (podman's path or docker's registered name) whose last component is runsc. The argv then
// says what runsc needs of podman (oci_argv), and the probe's `kernel` shows it took effect.
bool oci_runs_gvisor(const std::vector<std::string>& extra_args);

// The whole argv, program first, the agent's argv last. A pure function: tested as data,
// and used by the runtime.
std::vector<std::string> oci_argv(const OciArgvInput& in);

// A container's name from its run's label: the RFC's batlehub-sbx-<job>-<scanner>-<attempt>
// with every character an engine refuses in a name replaced by '_', and a suffix that keeps
// two runs of one label (a probe and a run, a retry in the same second) apart.
std::string oci_container_name(const core::RunLabel& label, const std::string& unique);

// The directory a run's container sees at /bundle: <run_dir>/bundle, inside the run's
// private directory (0700, the worker's), so that no other user of this host reaches it
// however open it is. The sandbox user writes out.tar there as whichever host uid the
// engine maps it to — a subordinate uid under podman's --userns auto, the remap base +
// 65532 under a docker daemon with userns-remap, 65532 itself under one without — and the
// worker reads it back. No engine says which uid, so the directory is open to every uid
// (0777) and the agent writes out.tar 0644 (podman's `U` bind option would chown it to the
// mapped uid, which a rootless worker could not read). For docker, which refuses
// nosuid,nodev in -v, the directory is also bound onto itself with those flags, which the
// container's bind inherits; undone on destruction.
class OciBundleDir {
 public:
  static Expected<OciBundleDir, core::SandboxError> make(const std::string& run_dir, OciEngineKind engine);
  OciBundleDir(OciBundleDir&& o) noexcept : path_(std::move(o.path_)), mounted_(o.mounted_) { o.mounted_ = false; }
  OciBundleDir& operator=(OciBundleDir&&) = delete;
  OciBundleDir(const OciBundleDir&) = delete;
  ~OciBundleDir();
  const std::string& path() const { return path_; }

 private:
  explicit OciBundleDir(std::string p) : path_(std::move(p)) {}
  std::string path_;
  bool mounted_ = false;
};

struct OciOptions {
  OciEngineKind engine = OciEngineKind::kPodman;
  std::string binary = "podman";
  // The image of each scanner (config::image_for), and of anything else (a probe of a room
  // no scanner names, an identify run): "" refuses the run.
  std::map<std::string, std::string> images;
  std::string default_image;
  std::vector<std::string> extra_args;
  std::string scratch_dir = "/tmp";
  std::chrono::seconds start_timeout{120};
  std::vector<std::string> probe_canaries;
  // The engine CLI's own environment (never the container's): PATH, and what the worker's
  // environment says of the engine (DOCKER_HOST, CONTAINERS_CONF, XDG_RUNTIME_DIR, HOME).
  std::vector<std::string> engine_env;
  // A container still there this long past its deadline label is an orphan, whoever ran it
  // ([worker.sandbox.kubernetes] orphan_after_secs, the RFC's knob for pods, read through
  // config::shared_integer).
  std::chrono::seconds orphan_after{900};
  // transport = "storage" when set: every run's bundle goes through presigned URLs on this
  // store's leaf backend, and runs without network join `storage_network`.
  std::shared_ptr<BundleStore> bundles;
  std::string storage_network;
};

class OciRuntime final : public core::SandboxRuntime {
 public:
  explicit OciRuntime(OciOptions o);

  std::string_view name() const override { return "oci"; }
  std::string where() const override;
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override;
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override;
  // Removes the containers (labelled io.batlehub.worker) whose worker on this host is gone,
  // and any whose deadline passed more than `older_than` (or orphan_after) ago, then the run
  // directories dead workers left.
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds older_than) override;
  void close_job(const std::string& job) override;
  std::string hint(std::optional<wire::Check> failed) const override;

  // This process's worker label: "<pid>@<hostname>".
  const std::string& worker_label() const { return worker_; }

 private:
  // One container from `image`, named after `label`, its per-run directory `dir` (bundle
  // written) bound at /bundle, bounded by `deadline`, and gone however it ended.
  // `staged` instead of `dir` with the storage transport.
  Expected<Launched, core::SandboxError> contain(const core::RunLabel& label, const std::string& dir,
                                                 const std::string& image, bool network, const core::Limits& limits,
                                                 std::chrono::milliseconds deadline, const StagedRun* staged = nullptr,
                                                 core::RunTrace* trace = nullptr);
  Expected<core::RunOutput, core::SandboxError> run_through_storage(const core::RunSpec& spec,
                                                                    const std::string& image);
  // What a contained run came to on either transport (`collect_result` reads its result).
  Expected<core::RunOutput, core::SandboxError> outcome(
      const core::RunSpec& spec, const Expected<Launched, core::SandboxError>& ran, std::chrono::milliseconds deadline,
      const std::function<Expected<core::RunOutput, core::SandboxError>()>& collect_result) const;
  // `<binary> <args…>` with the engine's environment, bounded; its exit code and output.
  struct Engine {
    std::optional<int> exit_code;
    std::string out;
    std::string err;
  };
  Engine engine(const std::vector<std::string>& args, std::chrono::seconds timeout) const;
  void remove(const std::string& container) const;

  friend class OciRuntimePeer;
  std::function<void(std::vector<std::string>&)> edit_argv_for_tests_;

  OciOptions options_;
  std::string binary_;  // resolved on the worker's PATH
  std::string worker_;
};

}  // namespace batlehub::adapters
