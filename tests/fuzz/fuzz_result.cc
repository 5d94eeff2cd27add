// fuzz_result: parse_result must never crash on any bytes, and whatever it accepts must
// survive serialize() -> parse_result() unchanged (a round-trip oracle). Accepted input is
// valid UTF-8, so serialize()'s error_handler_t::replace never has anything to replace.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "wire/run_result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = batlehub::wire::parse_result(text);
  if (!r) return 0;

  std::string again = batlehub::wire::serialize(*r);
  auto r2 = batlehub::wire::parse_result(again);
  if (!r2) {
    std::fprintf(stderr, "fuzz_result: serialize() output was refused: %s\n--- serialized ---\n%s\n",
                 r2.error().describe("result").c_str(), again.c_str());
    __builtin_trap();
  }
  if (!(*r2 == *r)) {
    std::fprintf(stderr, "fuzz_result: round trip changed the result\n--- serialized ---\n%s\n--- reserialized ---\n%s\n",
                 again.c_str(), batlehub::wire::serialize(*r2).c_str());
    __builtin_trap();
  }
  return 0;
}
