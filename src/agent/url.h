// The two URL shapes the agent speaks: file:///abs/path and http(s)://authority/target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/expected.h"

namespace batlehub::agent {

struct Url {
  enum class Scheme { kFile, kHttp, kHttps };
  Scheme scheme = Scheme::kFile;
  std::string path;       // kFile: the decoded absolute path
  std::string host;       // http(s): the host, without brackets for IPv6
  std::string authority;  // http(s): exactly as written (the Host header a signature covers)
  std::uint16_t port = 0;
  std::string target;  // http(s): path and query, as written (never re-encoded: it is signed)
};

Expected<Url, std::string> parse_url(std::string_view text);

}  // namespace batlehub::agent
