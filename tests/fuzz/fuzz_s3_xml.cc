// fuzz_s3_xml: the S3 backend's XML readers (adapters/storage/s3_xml.h) face whatever an
// endpoint sends. They must never crash, leak or expand an entity; an accepted page's keys
// and tokens are bounded by the input, and a truncated page always carries a token (else the
// backend would ask for the first page again, forever). The first byte picks the reader.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "adapters/storage/s3_xml.h"

namespace s3 = batlehub::adapters::s3;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view xml(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    const std::string code = s3::parse_error_code(xml);
    if (code.size() > xml.size()) {
      std::fprintf(stderr, "fuzz_s3_xml: an error Code longer than its body\n");
      __builtin_trap();
    }
    return 0;
  }
  auto page = s3::parse_list_objects(xml);
  if (!page) return 0;
  if (page->truncated && page->next_continuation_token.empty()) {
    std::fprintf(stderr, "fuzz_s3_xml: a truncated page without a token\n");
    __builtin_trap();
  }
  // Entities are refused, so no text is longer than the document that holds it.
  std::size_t total = page->next_continuation_token.size();
  for (const auto& o : page->objects) total += o.key.size();
  if (total > xml.size()) {
    std::fprintf(stderr, "fuzz_s3_xml: more text out than came in\n");
    __builtin_trap();
  }
  return 0;
}
