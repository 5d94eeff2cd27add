// fuzz_behavior_tls: the detonation sink's TLS server (behavior/tls_sink.h) fed what a package
// sends: its first byte says how long the name the package asked for is (SNI, hostile), the
// name follows, and the rest is the stream, fed in pieces of the lengths its own bytes say.
// Never a crash or a leak; the name minted for is always a host name or nothing; nothing is
// read in the clear that was not sent (plaintext is never longer than the input); the
// server writes its flight to a socket pair no one reads, so a full buffer is met too.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "behavior/tls_sink.h"

namespace bh = batlehub::behavior;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One authority for the process, as for a run: making a key per input would be all the
  // fuzzer did.
  static std::unique_ptr<bh::TlsAuthority> authority = [] {
    auto a = bh::TlsAuthority::create();
    if (!a) {
      std::fprintf(stderr, "fuzz_behavior_tls: %s\n", a.error().c_str());
      __builtin_trap();
    }
    return std::move(*a);
  }();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  const std::size_t n = std::min<std::size_t>(static_cast<unsigned char>(in[0]), in.size() - 1);
  const std::string_view asked = in.substr(1, n);
  std::string_view rest = in.substr(1 + n);
  const std::string name = bh::certificate_name(asked);
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || c == '*';
    if (!ok || name.size() > 253) {
      std::fprintf(stderr, "fuzz_behavior_tls: a certificate name that is not a host name\n");
      __builtin_trap();
    }
  }
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) return 0;
  {
    auto session = bh::TlsSession::create(*authority, sv[0], std::string(asked));
    if (session) {
      std::size_t plain = 0;
      std::size_t piece = 1;
      while (!rest.empty() && (*session)->state() != bh::TlsSession::State::kFailed &&
             (*session)->state() != bh::TlsSession::State::kClosed) {
        piece = 1 + (static_cast<unsigned char>(rest[0]) % 512);
        const std::string_view chunk = rest.substr(0, piece);
        rest.remove_prefix(chunk.size());
        plain += (*session)->feed(chunk).size();
      }
      if (plain > size) {
        std::fprintf(stderr, "fuzz_behavior_tls: more read in the clear than was sent\n");
        __builtin_trap();
      }
      (*session)->answer_and_close("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    }
  }
  ::close(sv[0]);
  ::close(sv[1]);
  return 0;
}
