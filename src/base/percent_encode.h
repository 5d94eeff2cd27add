// RFC 3986 percent-encoding, the one the S3 signer, the Kubernetes API's paths and queries
// and the SARIF report's relative URIs all need: A-Za-z0-9 - _ . ~ kept, every other byte
// %XX in upper-case hex (AWS's SigV4 canonical URI asks for exactly this set).
#pragma once

#include <string>
#include <string_view>

namespace batlehub::base {

// '/' is kept too when `keep_slash`: a path whose segments are encoded once, as a whole.
std::string percent_encode(std::string_view s, bool keep_slash);

// The value of one hex digit of a %XX escape (either case), or -1: what every decoder of
// percent-encoding here reads (the agent's URL parser, the storage port's key rule).
constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace batlehub::base
