#include "adapters/sandbox/none.h"

#include "adapters/sandbox/registry.h"
#include "adapters/sandbox/run_dir.h"
#include "adapters/sandbox/run_frame.h"
#include "agent/agent.h"

namespace batlehub::adapters {

using core::SandboxError;

namespace {
constexpr const char* kNoneRefused =
    "[worker.sandbox] runtime = \"none\" is refused outside tests unless BATLEHUB_UNSAFE_NO_SANDBOX=1 is set";
}  // namespace

RuntimeRegistration none_registration() {
  RuntimeRegistration r;
  r.schema.name = "none";
  // RFC 0018's rule, applied always (docs/configuration.md says why).
  r.schema.check_in_use = [](const config::SandboxConfig&, config::TableCheck& check) {
    const std::optional<std::string> unsafe = check.env() ? check.env()("BATLEHUB_UNSAFE_NO_SANDBOX") : std::nullopt;
    if (!unsafe || *unsafe != "1") check.refuse("worker.sandbox.runtime", kNoneRefused);
    check.warn("worker.sandbox.runtime",
               "runtime = \"none\": scanners run in the worker's own process, with no sandbox around them "
               "(BATLEHUB_UNSAFE_NO_SANDBOX=1 is set)");
  };
  r.build = [](const RuntimeContext& ctx) -> Expected<std::unique_ptr<core::SandboxRuntime>, std::string> {
    NoneOptions o;
    o.scratch_dir = ctx.scratch_dir;
    auto made = NoneRuntime::create(o, ctx.env);
    if (!made) return Unexpected(made.error().message);
    return std::unique_ptr<core::SandboxRuntime>(std::move(made).value());
  };
  r.hint = "none needs BATLEHUB_UNSAFE_NO_SANDBOX=1 in the worker's environment, and belongs in tests only";
  return r;
}

Expected<std::unique_ptr<NoneRuntime>, SandboxError> NoneRuntime::create(NoneOptions options, const core::Env& env) {
  auto v = env("BATLEHUB_UNSAFE_NO_SANDBOX");
  if (!v || *v != "1") {
    return Unexpected(SandboxError{SandboxError::Kind::kConfig, kNoneRefused});
  }
  return std::unique_ptr<NoneRuntime>(new NoneRuntime(std::move(options)));
}

Expected<core::RunOutput, SandboxError> NoneRuntime::run(const core::RunSpec& spec) {
  if (auto refused = refuse_run(spec)) return Unexpected(std::move(*refused));
  auto dir = TempDir::create(options_.scratch_dir, "batlehub-" + (spec.label.scanner.empty() ? "run" : spec.label.scanner));
  if (!dir) return Unexpected(SandboxError{SandboxError::Kind::kIo, dir.error()});
  core::trace_sandbox(spec.trace, dir->path());
  auto m = write_bundle(spec, RunDirView{dir->path(), dir->path()});
  if (!m) return Unexpected(m.error());
  agent::AgentOptions o;
  o.work_dir = dir->path();
  o.scanner_path = options_.scanner_path;
  auto rc = agent::run("file://" + dir->path() + "/manifest.json", "file://" + dir->path() + "/out.tar", o);
  core::trace_ended(spec.trace);
  if (rc != agent::AgentExit::kResultWritten) {
    return Unexpected(SandboxError{SandboxError::Kind::kCrashed, "the agent wrote no result (exit " + std::to_string(static_cast<int>(rc)) + ")"});
  }
  return collect(dir->path(), spec.argv[0]);
}

Expected<core::ProbeReport, SandboxError> NoneRuntime::probe(const core::ProbeTarget& target) {
  core::ProbeReport r;
  r.runtime = "none";
  r.room = target.room;
  r.skipped = true;
  return r;
}

std::string NoneRuntime::hint(std::optional<wire::Check> /*failed*/) const {
  return "runtime \"none\" has no walls and skips the probe; it is for tests only (BATLEHUB_UNSAFE_NO_SANDBOX=1)";
}

}  // namespace batlehub::adapters
