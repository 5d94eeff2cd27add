// What every fuzzer of a network answer checks of a refusal (tests/fuzz/fuzz_osv.cc,
// fuzz_socket_ndjson.cc, fuzz_sigstore_bundle.cc, fuzz_mlab.cc): one copy of the trap and of
// "printable", so that the four say the same thing the same way.
#pragma once

#include <cstdio>
#include <string_view>

#include "adapters/network_scanners/answers.h"

namespace batlehub::fuzzing {

// Stops the run on an invariant broken (libFuzzer keeps the input that did it).
[[noreturn]] inline void fail(const char* target, const char* why) {
  std::fprintf(stderr, "%s: %s\n", target, why);
  __builtin_trap();
}

// No control character: what a refusal shown to an operator may contain.
inline bool printable_text(std::string_view s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

// A refusal names the answer it refused (`where` begins with `answer`) in printable text.
inline void check_refusal(const char* target, const adapters::net::AnswerError& e, std::string_view answer) {
  if (e.where.rfind(answer, 0) != 0) fail(target, "a refusal that does not name the answer");
  if (!printable_text(e.describe())) fail(target, "a refusal with control characters");
}

}  // namespace batlehub::fuzzing
