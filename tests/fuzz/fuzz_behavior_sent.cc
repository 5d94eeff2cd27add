// fuzz_behavior_sent: what a detonated package sends the sandbox's sink — a DNS query
// (behavior/dns.h), the first bytes of a connection (behavior/sink.h) — and the canary search
// over them (behavior/decoys.h). Never a crash or a read past the input; an answer always
// carries the question it answers; a summary keeps only bounded pieces of what was sent.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "behavior/decoys.h"
#include "behavior/dns.h"
#include "behavior/sink.h"

namespace bh = batlehub::behavior;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto q = bh::parse_query(in)) {
    if (q->question_end > in.size() || q->name.size() > 255 * 4) {
      std::fprintf(stderr, "fuzz_behavior_sent: a question past the message or a name over its bound\n");
      __builtin_trap();
    }
    const std::string a = bh::answer(in, *q, {127, 77, 0, 1});
    if (a.size() < q->question_end || a.compare(12, q->question_end - 12, in.substr(12, q->question_end - 12)) != 0) {
      std::fprintf(stderr, "fuzz_behavior_sent: an answer that does not carry its question\n");
      __builtin_trap();
    }
  }
  const bh::StreamSummary s = bh::summarize(in);
  if (s.request_line.size() > 512 || s.host.size() > 512 || s.body_head.size() > 2048) {
    std::fprintf(stderr, "fuzz_behavior_sent: a summary piece over its bound\n");
    __builtin_trap();
  }
  if (auto end = bh::http_request_end(in); end && *end > in.size()) {
    std::fprintf(stderr, "fuzz_behavior_sent: a request said to end past what was received\n");
    __builtin_trap();
  }
  (void)bh::carries_canary(in, "k3j9x0qpl2m8z7wq1a5b6c4d");
  return 0;
}
