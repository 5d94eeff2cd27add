// What a package sent down a connection to the sink, read from its first bytes: an HTTP
// request (its line, Host, the head of its body), a TLS ClientHello (the name it asked
// for, SNI), or bytes of no protocol we read. The bytes are the package's: every length
// is checked against what was received before it is used.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace batlehub::behavior {

enum class StreamProtocol { kUnknown, kHttp, kTls };

struct StreamSummary {
  StreamProtocol protocol = StreamProtocol::kUnknown;
  std::string request_line;  // HTTP: "POST /collect HTTP/1.1"
  std::string host;          // HTTP: the Host header; TLS: the server name it asked for
  std::string body_head;     // HTTP: the first bytes of the body received
};

// What the first bytes of a stream say.
StreamSummary summarize(std::string_view first_bytes);

// For HTTP: the offset just past the whole request (headers and a Content-Length body),
// once it has all been received; nullopt until then, or when it is not HTTP. The sink
// answers a request only once it is whole, so that the body is seen.
std::optional<std::size_t> http_request_end(std::string_view received);

std::string_view to_string(StreamProtocol p);

}  // namespace batlehub::behavior
