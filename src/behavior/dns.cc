#include "behavior/dns.h"

#include <cstdio>

namespace batlehub::behavior {

namespace {

constexpr std::size_t kHeader = 12;
constexpr std::size_t kMaxName = 255;  // RFC 1035 §2.3.4, on the wire

std::uint16_t be16(std::string_view s, std::size_t at) {
  return static_cast<std::uint16_t>((static_cast<unsigned char>(s[at]) << 8) | static_cast<unsigned char>(s[at + 1]));
}

void put16(std::string& out, std::uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v & 0xff));
}

bool plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

}  // namespace

Expected<DnsQuery, std::string> parse_query(std::string_view m) {
  if (m.size() < kHeader)
    return Unexpected("DNS message of " + std::to_string(m.size()) + " bytes: shorter than a header");
  DnsQuery q;
  q.id = be16(m, 0);
  if ((static_cast<unsigned char>(m[2]) & 0x80) != 0)
    return Unexpected(std::string("DNS message is a response, not a query"));
  if (be16(m, 4) != 1) return Unexpected("DNS query with " + std::to_string(be16(m, 4)) + " questions, not 1");
  std::size_t at = kHeader;
  std::size_t wire_len = 0;
  for (;;) {
    if (at >= m.size()) return Unexpected("DNS name runs past the message at byte " + std::to_string(at));
    const auto len = static_cast<unsigned char>(m[at]);
    if (len == 0) {
      ++at;
      break;
    }
    if ((len & 0xc0) != 0)
      return Unexpected("DNS name with a compression pointer or reserved label type at byte " + std::to_string(at));
    wire_len += 1 + len;
    if (wire_len + 1 > kMaxName) return Unexpected(std::string("DNS name longer than 255 bytes"));
    if (at + 1 + len > m.size()) return Unexpected("DNS label runs past the message at byte " + std::to_string(at));
    if (!q.name.empty()) q.name.push_back('.');
    for (std::size_t i = at + 1; i < at + 1 + len; ++i) {
      auto c = static_cast<unsigned char>(m[i]);
      if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
      if (plain(c)) {
        q.name.push_back(static_cast<char>(c));
      } else {
        char esc[5];
        std::snprintf(esc, sizeof esc, "\\%03u", c);
        q.name += esc;
      }
    }
    at += 1 + len;
  }
  if (at + 4 > m.size()) return Unexpected(std::string("DNS question without its type and class"));
  q.qtype = be16(m, at);
  q.question_end = at + 4;
  return q;
}

std::string answer(std::string_view m, const DnsQuery& q, std::array<std::uint8_t, 4> address) {
  const bool a = q.qtype == 1;
  std::string out;
  out.reserve(q.question_end + 16);
  put16(out, q.id);
  // QR, the query's opcode and RD, RA; RCODE 0.
  out.push_back(static_cast<char>(0x80 | (static_cast<unsigned char>(m[2]) & 0x79)));
  out.push_back(static_cast<char>(0x80));
  put16(out, 1);
  put16(out, a ? 1 : 0);
  put16(out, 0);
  put16(out, 0);
  out.append(m.substr(kHeader, q.question_end - kHeader));
  if (a) {
    put16(out, 0xc00c);  // the name: a pointer to the question's
    put16(out, 1);
    put16(out, 1);
    out.append("\0\0\0\x3c", 4);  // TTL 60
    put16(out, 4);
    for (std::uint8_t b : address) out.push_back(static_cast<char>(b));
  }
  return out;
}

std::string_view qtype_name(std::uint16_t t) {
  switch (t) {
    case 1:
      return "A";
    case 28:
      return "AAAA";
    case 16:
      return "TXT";
    case 5:
      return "CNAME";
    case 15:
      return "MX";
    case 33:
      return "SRV";
    case 12:
      return "PTR";
    case 65:
      return "HTTPS";
    default:
      return "other";
  }
}

}  // namespace batlehub::behavior
