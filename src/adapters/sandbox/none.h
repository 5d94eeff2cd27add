// The `none` runtime: the agent as a library, in the worker's process, on a TempDir. The
// scanner still gets the agent's rlimits and seccomp filter; there are no other walls, so
// it is refused unless BATLEHUB_UNSAFE_NO_SANDBOX is exactly "1" (RFC 0022 §4.1).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/env.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

struct NoneOptions {
  std::string scratch_dir = "/tmp";
  // The scanner's PATH (and where a bare argv[0] is looked up), on the worker's host.
  std::string scanner_path = "/usr/local/bin:/usr/bin:/bin";
};

struct RuntimeRegistration;
// runtime = "none": no table; refused unless BATLEHUB_UNSAFE_NO_SANDBOX=1 (registry.h).
RuntimeRegistration none_registration();

class NoneRuntime final : public core::SandboxRuntime {
 public:
  static Expected<std::unique_ptr<NoneRuntime>, core::SandboxError> create(NoneOptions options, const core::Env& env);

  std::string_view name() const override { return "none"; }
  std::string where() const override { return "no walls: the scanner runs on this host as the worker"; }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override;
  // Skips: there are no walls to prove. The report says so; the caller logs it.
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override;
  // Nothing of a run outlives it: its scratch directory goes with the process that made it.
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds) override { return core::Swept{}; }
  std::string hint(std::optional<wire::Check> failed) const override;

 private:
  explicit NoneRuntime(NoneOptions o) : options_(std::move(o)) {}
  NoneOptions options_;
};

}  // namespace batlehub::adapters
