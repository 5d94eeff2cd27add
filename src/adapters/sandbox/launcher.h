// The local runtimes' launcher — bwrap, `podman run`, `docker run` — run to its end and
// described in the words every message uses.
#pragma once

#include <optional>
#include <string>

#include "base/expected.h"
#include "base/spawn.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

// How a launcher ended. A launcher that ends says little: the agent inside writes the
// result, and what the launcher printed matters only when there is none.
struct Launched {
  bool timed_out = false;
  std::optional<int> exit_code;  // none when a signal ended it
  std::string how;          // "bwrap exited 1", "docker was killed by signal 9"
  std::string stderr_tail;  // its last kStderrTailChars, valid UTF-8, without the final newline
};

// Runs `spec` (bounded by its timeout) and describes its end under `name`; an error only
// when it could not be started at all.
Expected<Launched, core::SandboxError> launch(const std::string& name, const base::SpawnSpec& spec);

// The last kStderrTailChars of a process's stderr as valid UTF-8, without trailing newlines.
std::string stderr_tail_of(const std::string& raw);

}  // namespace batlehub::adapters
