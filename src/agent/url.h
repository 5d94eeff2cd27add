// The URL shapes the agent speaks: file:///abs/path, http(s)://authority/target, and for the
// result post+http(s)://authority/target?field=value&… (wire/post_form.h: a form to POST).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  // post+http(s): the form's fields, decoded, in order; `target` is then the path alone.
  bool post_form = false;
  std::vector<std::pair<std::string, std::string>> form;
};

Expected<Url, std::string> parse_url(std::string_view text);

}  // namespace batlehub::agent
