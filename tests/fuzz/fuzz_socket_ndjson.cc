// fuzz_socket_ndjson: what Socket's POST /v0/purl streams back to the socket scanner
// (adapters/network_scanners/socket_answer.h), newline-delimited JSON. None may crash or
// leak; every finding is upstream's shape (a "socket: " summary in printable text, a raw
// that is a JSON object, a printable reference of at most 120 characters before escaping);
// a refusal names the answer and says it in printable text.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "adapters/network_scanners/socket_answer.h"
#include "answer_checks.h"

namespace net = batlehub::adapters::net;

namespace {

[[noreturn]] void fail(const char* why) {
  batlehub::fuzzing::fail("fuzz_socket_ndjson", why);
}

using batlehub::fuzzing::printable_text;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fs = net::parse_socket_ndjson(text, "socket");
  if (!fs) {
    batlehub::fuzzing::check_refusal("fuzz_socket_ndjson", fs.error(), "socket purl");
    return 0;
  }
  for (const auto& f : *fs) {
    if (f.scanner != "socket") fail("a finding of another scanner");
    if (f.summary.rfind("socket: ", 0) != 0 || !printable_text(f.summary)) fail("a summary not upstream's");
    if (f.reference && (!printable_text(*f.reference) || f.reference->empty())) fail("an unprintable reference");
    auto raw = nlohmann::json::parse(f.raw, nullptr, /*allow_exceptions=*/false);
    if (raw.is_discarded() || !raw.is_object() || !raw.contains("type")) fail("a raw that is not the alert");
  }
  return 0;
}
