// The agent's HTTP client: one GET, PUT or form POST per connection, HTTP/1.1, plain or TLS.
//
// Written here rather than taken from a library because the agent must link statically and
// Debian ships neither a static cpp-httplib (only its shared build) nor a libcurl.a whose
// dependencies (krb5, ldap, rtmp, ssh2, psl…) exist as static archives. What the agent
// needs is small: two verbs, Content-Length or chunked bodies, bounded reads, no redirects,
// no cookies, no proxies, no compression.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "agent/url.h"
#include "base/expected.h"

namespace batlehub::agent {

struct HttpError {
  std::string message;
  bool too_long = false;  // the body exceeded what the caller allowed
  // What a second attempt may not meet: no connection (refused, reset, unreachable, not
  // made in 10 s), a connection dropped before the answer was whole, a 5xx or 429. Never an
  // answer that stopped coming for 120 s (the deadline is spent), a refusal (4xx), a
  // certificate, or a body over its cap.
  bool transient = false;
};

// Receives the body in pieces; the total never exceeds the `max_body` it was called with.
using BodySink = std::function<bool(const char*, std::size_t)>;

// GET `url`; the body goes to `sink`. A status other than 200, a declared or actual body
// over `max_body`, a redirect, or a TLS certificate the compiled-in roots do not vouch for
// is an error.
Expected<std::uint64_t, HttpError> http_get(const Url& url, std::uint64_t max_body, const BodySink& sink);

// PUT `body` to `url` with a Content-Length; any 2xx is success.
Expected<Ok, HttpError> http_put(const Url& url, std::string_view body);

// POST a post+ URL's form (url.form, in order) with `file` last as the field "file"
// (filename out.tar), multipart/form-data with a Content-Length; any 2xx is success. A
// server that refuses the size (S3's EntityTooLarge, 400) is a refusal, not retried.
Expected<Ok, HttpError> http_post_form(const Url& url, std::string_view file);

// The PEM roots HTTPS verifies against, linked in from one of the roots libraries.
std::string_view tls_roots_pem();

}  // namespace batlehub::agent
