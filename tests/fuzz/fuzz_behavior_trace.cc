// fuzz_behavior_trace: the worker's reading of batlehub-behavior's stdout
// (adapters/scanners/behavior.h), which a detonated package shares a sandbox with: never a
// crash; a trace is refused or read within its bounds, and weighed into bounded findings.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "adapters/scanners/behavior.h"

namespace ad = batlehub::adapters;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto t = ad::parse_behavior_output(in);
  if (!t) return 0;
  if (t->events.size() > ad::kBehaviorMaxEvents) {
    std::fprintf(stderr, "fuzz_behavior_trace: more events than the bound\n");
    __builtin_trap();
  }
  for (const auto& e : t->events) {
    if (e.host.size() > ad::kBehaviorMaxField || e.head.size() > ad::kBehaviorMaxField || e.argv.size() > 64) {
      std::fprintf(stderr, "fuzz_behavior_trace: a field over its bound\n");
      __builtin_trap();
    }
  }
  if (ad::weigh_behavior(*t, "behavior").size() > 64) {
    std::fprintf(stderr, "fuzz_behavior_trace: more findings than the bound\n");
    __builtin_trap();
  }
  return 0;
}
