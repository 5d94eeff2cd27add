// The worker's one HTTP client: every request the worker makes (the S3 backend and its
// credential chain, the Kubernetes API, the network scanners) goes through here, so that
// timeouts, TLS verification, the size cap on an answer and retries are decided once.
//
// libcurl underneath (Debian's libcurl4-openssl-dev): one easy handle per request, no
// shared state but curl_global_init, done once. TLS is always verified (peer and host);
// the roots are the system's, a PEM file, or PEM bytes in memory (a kubeconfig's CA never
// touches a file). Redirects are never followed: an API that moves is an answer to read,
// not a place to go. Only http and https are spoken.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/expected.h"

namespace batlehub::http {

// Who the server must be, and who we are to it.
struct Tls {
  // Roots given (either way) are the only roots: the system's are not searched beside them.
  std::string ca_file;          // PEM roots on disk; "" (and no ca_pem) = the system's roots
  std::string ca_pem;           // PEM roots in memory (wins over ca_file)
  std::string client_cert_pem;  // mutual TLS, both or neither
  std::string client_key_pem;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// What an answer's body may be before it is refused: checked against Content-Length before
// a byte is kept, and again as bytes arrive (a server may send more than it declared).
inline constexpr std::size_t kDefaultMaxBody = 16 * 1024 * 1024;

struct Request {
  std::string method = "GET";  // GET, HEAD, POST, PUT, DELETE (another upper-case token is sent as it is)
  std::string url;             // http(s)://host[:port]/path?query, already encoded
  Headers headers;
  // Sent as-is with its length (POST, PUT, or another method: a DELETE's options); empty = no
  // body (a PUT and a POST still say Content-Length: 0).
  std::string body;
  // A body streamed from a descriptor instead (PUT of a blob through a pipe): exactly
  // body_fd_size bytes are read from it; fewer is an error of kind kSource.
  int body_fd = -1;
  std::uint64_t body_fd_size = 0;
  // The answer's body written to this descriptor instead of kept (S3's get_to_fd); the cap
  // still applies.
  int sink_fd = -1;
  // The answer's body handed over as it arrives instead of kept (a watch's stream); return
  // false to stop the transfer (the result is then the status and headers, body empty, and
  // stopped = true). The cap does not apply: the callback bounds what it keeps.
  std::function<bool(std::string_view chunk)> on_chunk;
  std::size_t max_body = kDefaultMaxBody;
  // Set: an answer outside 2xx (an API's error document) keeps at most this many bytes of its
  // body, the rest read and dropped (not refused), and never goes to sink_fd or on_chunk:
  // max_body, sink_fd and on_chunk are then for a success's body only. Unset: every answer's
  // body is treated alike.
  std::optional<std::size_t> max_error_body;
  std::chrono::milliseconds timeout{30'000};          // the whole transfer
  std::chrono::milliseconds connect_timeout{10'000};  // TCP and TLS handshake
};

struct Response {
  long status = 0;
  Headers headers;  // names lower-cased, in the order received (the last response's only)
  std::string body;
  bool stopped = false;  // on_chunk returned false
  // The body's bytes as they arrived, whether kept, written to sink_fd, handed to on_chunk
  // or dropped past max_error_body.
  std::uint64_t body_size = 0;
  // The first header of that (lower-case) name.
  std::optional<std::string> header(std::string_view lower_name) const;
  // Content-Length as declared (1 to 19 ASCII digits), if it is there and reads as one.
  std::optional<std::uint64_t> content_length() const;
};

enum class ErrorKind {
  kBadUrl,     // not http(s)://…, or curl refused the URL
  kConnect,    // name resolution, connection refused or reset
  kTls,        // the handshake failed: an unknown CA, a certificate for another name…
  kTimeout,    // timeout or connect_timeout passed
  kTooLarge,   // the body is larger than max_body (declared or sent), or the headers past 256 KiB
  kTruncated,  // the connection closed before the declared body was all there
  kSink,       // writing to sink_fd failed
  kSource,     // reading body_fd failed or came short
  kOther,
};
std::string_view to_string(ErrorKind k);

struct Error {
  ErrorKind kind = ErrorKind::kOther;
  std::string message;  // "GET https://host/path: <what>": the URL without its query
  std::string detail;   // <what> alone, for a caller that names the request in its own words
  int err = 0;          // kSink, kSource: the errno of the call that failed, when one did
};

// Retries for an idempotent request: on a transport failure other than kBadUrl/kTls/
// kTooLarge/kSink/kSource (a certificate that failed will not pass a second time), and on
// 429 and 5xx answers. A Retry-After (seconds or an HTTP date) is honoured; one that asks
// for more than max_delay is not waited for (the answer is returned). Otherwise the wait
// doubles from base_delay up to max_delay, with up to 25% jitter. No attempt starts, and no
// wait is begun, that would end past `deadline`: the last answer or error is returned
// instead (the job's budget bounds everything); an attempt's timeout is cut to what is left.
struct RetryPolicy {
  int max_attempts = 3;
  std::chrono::milliseconds base_delay{250};
  std::chrono::milliseconds max_delay{8'000};
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

class Client {
 public:
  explicit Client(Tls tls = {}, std::string user_agent = "batlehub-worker");

  // One attempt. An answer of any status is a Response; only a transfer that failed is an Error.
  Expected<Response, Error> send(const Request& r) const;
  // Attempts under `policy` (Request must be replayable: no body_fd, no on_chunk, no sink_fd —
  // a retried transfer would write after a first one's partial body; with max_attempts > 1
  // such a request is refused, kOther, before any attempt).
  // `on_retry` is told each attempt that will be retried and the wait before the next.
  Expected<Response, Error> send(const Request& r, const RetryPolicy& policy,
                                 const std::function<void(int attempt, const std::string& why,
                                                          std::chrono::milliseconds wait)>& on_retry = {}) const;

  const Tls& tls() const { return tls_; }

 private:
  // One attempt of `r` with its timeout cut to `timeout` (a retry policy's deadline).
  Expected<Response, Error> attempt(const Request& r, std::chrono::milliseconds timeout) const;

  Tls tls_;
  std::string user_agent_;
};

// "GET https://host/path" (the query left out: it may carry a name or a key; so is any
// user:password@ in the authority).
std::string describe(const Request& r);

// An HTTP date (IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT", or the obsolete forms), as
// Last-Modified and Retry-After carry it; nullopt when it does not parse.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view value);

// The wait a Retry-After value asks for (delta-seconds or an IMF-fixdate), if it parses.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now);

}  // namespace batlehub::http
