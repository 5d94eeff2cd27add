// How the network scanners make a request: through the worker's one HTTP client, under the
// job's deadline, and with every failure turned into a ScannerError that names the scanner,
// the URL (never its query: it may carry a name or a key) and what went wrong.
#pragma once

#include <chrono>
#include <string>

#include "adapters/http/http_client.h"
#include "core/sandbox.h"

namespace batlehub::adapters::net {

// What every network scanner is given besides its own keys.
struct ApiOptions {
  std::string name;                           // the [scanners.<name>] name: findings and errors carry it
  std::string api_url;                        // no trailing slash
  http::Tls tls;                              // the system's roots unless [scanners.<name>] ca_file names others
  std::chrono::milliseconds timeout{30'000};  // one request
  int max_attempts = 3;                       // retries on 429, 5xx and lost connections
  std::chrono::milliseconds base_delay{500};
};

// `r` sent under `o`'s retries, no attempt past `deadline`. A 2xx answer (or a status in
// `also_ok`, e.g. Rekor's 404 for "no such entry") is returned; any other status is an
// Upstream error ("HTTP 503", with a Retry-After or the body's start when there is one), a
// timeout is Timeout, any other transport failure Upstream.
Expected<http::Response, core::ScannerError> call_api(const http::Client& client, const ApiOptions& o, http::Request r,
                                                      std::chrono::steady_clock::time_point deadline,
                                                      std::initializer_list<long> also_ok = {});

// The ScannerError for an answer its parser refused: Output, "<name>: <METHOD URL>: the
// answer is not what the API documents: <where>: <what>".
core::ScannerError unreadable(const ApiOptions& o, const http::Request& r, const std::string& why);

}  // namespace batlehub::adapters::net
