// fuzz_manifest: parse_manifest must never crash on any bytes, and whatever it accepts
// must survive serialize() -> parse_manifest() unchanged (a round-trip oracle).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "wire/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = batlehub::wire::parse_manifest(text);
  if (!m) return 0;

  std::string again = batlehub::wire::serialize(*m);
  auto m2 = batlehub::wire::parse_manifest(again);
  if (!m2) {
    std::fprintf(stderr, "fuzz_manifest: serialize() output was refused: %s\n--- serialized ---\n%s\n",
                 m2.error().describe("manifest").c_str(), again.c_str());
    __builtin_trap();
  }
  if (!(*m2 == *m)) {
    std::fprintf(stderr, "fuzz_manifest: round trip changed the manifest\n--- serialized ---\n%s\n--- reserialized ---\n%s\n",
                 again.c_str(), batlehub::wire::serialize(*m2).c_str());
    __builtin_trap();
  }
  return 0;
}
