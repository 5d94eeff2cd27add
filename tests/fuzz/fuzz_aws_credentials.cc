// fuzz_aws_credentials: what an STS endpoint, a container credentials endpoint or a shared
// credentials file hands the worker (adapters/storage/aws_credentials.h). The first byte
// picks the reader. None may crash or leak; keys that parse are pieces of the input (never
// longer than it), and an expiration that parses is a real instant.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "adapters/storage/aws_credentials.h"

namespace aws = batlehub::adapters::aws;

namespace {
void check_keys(const aws::TimedCredentials& c, std::size_t size) {
  if (c.keys.access_key_id.size() > size || c.keys.secret_access_key.size() > size ||
      c.keys.session_token.size() > size) {
    std::fprintf(stderr, "fuzz_aws_credentials: a key longer than the answer it came from\n");
    __builtin_trap();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      if (auto c = aws::parse_sts_response(text)) check_keys(*c, text.size());
      break;
    case 1:
      if (auto c = aws::parse_container_response(text)) check_keys(*c, text.size());
      break;
    case 2: {
      aws::ProfileSet set;
      (void)aws::parse_profile_file(text, "credentials", aws::ProfileFile::kCredentials, set);
      (void)aws::parse_profile_file(text, "config", aws::ProfileFile::kConfig, set);
      break;
    }
    default:
      (void)aws::parse_iso8601(text);
      break;
  }
  return 0;
}
