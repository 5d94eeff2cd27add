#include "adapters/sandbox/run_frame.h"

#include <unistd.h>

#include <cstdint>

namespace batlehub::adapters {

std::string worker_hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string this_worker_label() { return std::to_string(::getpid()) + "@" + worker_hostname(); }

Expected<Ok, core::SandboxError> sweep_bundles(BundleStore* bundles, std::chrono::seconds older_than,
                                               core::Swept& swept) {
  if (bundles == nullptr) return Ok{};
  auto n = bundles->sweep(older_than);
  if (!n)
    return Unexpected(core::SandboxError{core::SandboxError::Kind::kIo, "sweeping bundle keys: " + n.error().message});
  swept.add(core::OrphanKind::kBundle, *n);
  return Ok{};
}

std::optional<core::SandboxError> refuse_run(const core::RunSpec& spec) {
  if (spec.argv.empty()) return core::SandboxError{core::SandboxError::Kind::kConfig, "a run needs an argv"};
  return std::nullopt;
}

std::chrono::milliseconds run_deadline(const core::RunSpec& spec, std::chrono::seconds start_timeout) {
  return spec.timeout + std::chrono::duration_cast<std::chrono::milliseconds>(start_timeout);
}

ProbeInProgress::ProbeInProgress(std::string_view runtime, const core::ProbeTarget& target)
    : started_(std::chrono::steady_clock::now()) {
  report_.runtime = std::string(runtime);
  report_.room = target.room;
}

core::ProbeReport ProbeInProgress::finish() {
  report_.elapsed_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_).count());
  return std::move(report_);
}

}  // namespace batlehub::adapters
