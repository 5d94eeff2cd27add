#include "adapters/sandbox/launcher.h"

#include "base/utf8.h"
#include "wire/caps.h"

namespace batlehub::adapters {

std::string stderr_tail_of(const std::string& raw) {
  std::string tail = base::lossy_utf8_tail(raw, wire::kStderrTailChars);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  return tail;
}

Expected<Launched, core::SandboxError> launch(const std::string& name, const base::SpawnSpec& spec) {
  base::SpawnResult r = base::spawn_and_wait(spec);
  if (!r.started) {
    return Unexpected(core::SandboxError{core::SandboxError::Kind::kCrashed,
                                         "could not start " + spec.program + ": " + r.start_error});
  }
  Launched l;
  l.timed_out = r.timed_out;
  l.exit_code = r.exit_code;
  l.how = r.exit_code ? name + " exited " + std::to_string(*r.exit_code)
                      : name + " was killed by signal " + std::to_string(r.signal.value_or(0));
  l.stderr_tail = stderr_tail_of(r.stderr_raw);
  return l;
}

}  // namespace batlehub::adapters
