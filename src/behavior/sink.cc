#include "behavior/sink.h"

#include <array>
#include <cstdint>

namespace batlehub::behavior {

namespace {

constexpr std::size_t kLineMax = 512;
constexpr std::size_t kBodyHeadMax = 2048;
constexpr std::size_t kHeadersMax = 16 * 1024;

constexpr std::array<std::string_view, 9> kMethods = {"GET ",    "POST ",    "PUT ",     "HEAD ", "PATCH ",
                                                      "DELETE ", "OPTIONS ", "CONNECT ", "TRACE "};

bool starts_with_method(std::string_view s) {
  for (std::string_view m : kMethods) {
    if (s.substr(0, m.size()) == m) return true;
  }
  return false;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The value of header `name` in `headers` (the lines after the request line), or nullopt.
std::optional<std::string_view> header(std::string_view headers, std::string_view name) {
  while (!headers.empty()) {
    std::size_t nl = headers.find('\n');
    std::string_view line = headers.substr(0, nl);
    headers = nl == std::string_view::npos ? std::string_view{} : headers.substr(nl + 1);
    std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && iequals(trim(line.substr(0, colon)), name)) {
      return trim(line.substr(colon + 1));
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> parse_size(std::string_view s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  return v;
}

std::uint32_t be(std::string_view s, std::size_t at, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

// The server_name of a ClientHello record (RFC 8446 §4.1.2, RFC 6066 §3), walking each
// length-prefixed field and giving up at the first that runs past what was received.
std::optional<std::string> sni(std::string_view s) {
  // record header (5), handshake header (4), version (2), random (32)
  std::size_t at = 5 + 4 + 2 + 32;
  auto skip = [&](std::size_t len_bytes) {
    if (at + len_bytes > s.size()) return false;
    std::size_t len = be(s, at, len_bytes);
    at += len_bytes + len;
    return at <= s.size();
  };
  if (s.size() < at || static_cast<unsigned char>(s[5]) != 1) return std::nullopt;
  if (!skip(1) || !skip(2) || !skip(1)) return std::nullopt;  // session id, cipher suites, compression
  if (at + 2 > s.size()) return std::nullopt;
  const std::size_t end = std::min(s.size(), at + 2 + be(s, at, 2));
  at += 2;
  while (at + 4 <= end) {
    const std::uint32_t type = be(s, at, 2);
    const std::size_t len = be(s, at + 2, 2);
    at += 4;
    if (at + len > end) return std::nullopt;
    if (type == 0 && len >= 5) {
      // server_name_list length (2), name type (1), host name length (2), name
      const std::size_t name_len = be(s, at + 3, 2);
      if (static_cast<unsigned char>(s[at + 2]) != 0 || 5 + name_len > len) return std::nullopt;
      return std::string(s.substr(at + 5, std::min(name_len, kLineMax)));
    }
    at += len;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> http_request_end(std::string_view r) {
  if (!starts_with_method(r)) return std::nullopt;
  std::size_t head_end = r.substr(0, kHeadersMax).find("\r\n\r\n");
  std::size_t sep = 4;
  if (head_end == std::string_view::npos) {
    head_end = r.substr(0, kHeadersMax).find("\n\n");
    sep = 2;
  }
  if (head_end == std::string_view::npos) return std::nullopt;
  std::size_t body = 0;
  if (auto cl = header(r.substr(0, head_end), "content-length")) {
    auto n = parse_size(*cl);
    if (!n) return std::nullopt;
    body = *n;
  }
  const std::size_t end = head_end + sep + body;
  if (end < head_end || end > r.size()) return std::nullopt;
  return end;
}

StreamSummary summarize(std::string_view b) {
  StreamSummary s;
  if (starts_with_method(b)) {
    s.protocol = StreamProtocol::kHttp;
    std::size_t nl = b.find('\n');
    s.request_line = std::string(trim(b.substr(0, std::min(nl, kLineMax))));
    std::size_t head_end = b.find("\r\n\r\n");
    std::size_t sep = 4;
    if (head_end == std::string_view::npos) {
      head_end = b.find("\n\n");
      sep = 2;
    }
    std::string_view headers;
    if (nl != std::string_view::npos) {
      headers = b.substr(nl + 1);
      if (head_end != std::string_view::npos) headers = head_end > nl ? b.substr(nl + 1, head_end - nl - 1) : "";
    }
    if (auto h = header(headers, "host")) s.host = std::string(h->substr(0, kLineMax));
    if (head_end != std::string_view::npos) s.body_head = std::string(b.substr(head_end + sep, kBodyHeadMax));
    return s;
  }
  // A TLS handshake record (content type 22, major version 3) carrying a ClientHello.
  if (b.size() >= 6 && static_cast<unsigned char>(b[0]) == 22 && static_cast<unsigned char>(b[1]) == 3) {
    s.protocol = StreamProtocol::kTls;
    if (auto name = sni(b)) s.host = std::move(*name);
  }
  return s;
}

std::string_view to_string(StreamProtocol p) {
  switch (p) {
    case StreamProtocol::kHttp:
      return "http";
    case StreamProtocol::kTls:
      return "tls";
    case StreamProtocol::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace batlehub::behavior
