// The sandbox's resolver: a DNS query a package sends, read, and the answer that points its
// name at the sink (RFC 1035 §4). The bytes are the package's, so every length is checked
// before it is used; compression pointers, which a query never needs, are refused.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/expected.h"

namespace batlehub::behavior {

struct DnsQuery {
  std::uint16_t id = 0;
  std::string name;              // lower case, labels joined by '.', no trailing dot
  std::uint16_t qtype = 0;       // 1 A, 28 AAAA, 16 TXT...
  std::size_t question_end = 0;  // offset just past the question, for the answer's copy
};

// The one question of a query message (QR = 0, QDCOUNT = 1). Labels are kept as their bytes
// would print: a byte outside [A-Za-z0-9_-] is written \DDD, so a name never carries a dot
// or a control byte that was not a label boundary.
Expected<DnsQuery, std::string> parse_query(std::string_view message);

// The response to `q` (taken from `message`): for A, one record pointing at `address`; for
// every other type, no record (NOERROR), so a resolver asks for A next.
std::string answer(std::string_view message, const DnsQuery& q, std::array<std::uint8_t, 4> address);

std::string_view qtype_name(std::uint16_t qtype);

}  // namespace batlehub::behavior
