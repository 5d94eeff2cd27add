// fuzz_out_tar: read_out_tar must never crash on any bytes, and whatever it accepts must
// survive build_out_tar() -> read_out_tar() with both entries byte-for-byte unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "agent/out_tar.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto got = batlehub::agent::read_out_tar(bytes);
  if (!got) return 0;

  // read_out_tar enforces the same caps build_out_tar does, so building cannot fail.
  auto built = batlehub::agent::build_out_tar(got->result_json, got->stdout_bytes);
  if (!built) {
    std::fprintf(stderr, "fuzz_out_tar: build_out_tar refused what read_out_tar accepted: %s\n", built.error().c_str());
    __builtin_trap();
  }
  auto again = batlehub::agent::read_out_tar(*built);
  if (!again) {
    std::fprintf(stderr, "fuzz_out_tar: read_out_tar refused build_out_tar's output: %s\n", again.error().c_str());
    __builtin_trap();
  }
  if (again->result_json != got->result_json || again->stdout_bytes != got->stdout_bytes) {
    std::fprintf(stderr, "fuzz_out_tar: round trip changed an entry (result.json %zu -> %zu bytes, stdout %zu -> %zu)\n",
                 got->result_json.size(), again->result_json.size(), got->stdout_bytes.size(),
                 again->stdout_bytes.size());
    __builtin_trap();
  }
  return 0;
}
