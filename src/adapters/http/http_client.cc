#include "adapters/http/http_client.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "base/fd.h"

namespace batlehub::http {

namespace {

using std::chrono::milliseconds;

bool is_2xx(long status) {
  return status >= 200 && status < 300;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

bool parse_u64(std::string_view s, std::uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  std::uint64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  *out = v;
  return true;
}

void global_init_once() {
  // curl_global_init is not thread-safe in every libcurl: once, before any handle.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Slist {
  curl_slist* list = nullptr;
  Slist() = default;
  Slist(const Slist&) = delete;
  Slist& operator=(const Slist&) = delete;
  ~Slist() { curl_slist_free_all(list); }
  bool add(const std::string& line) {
    curl_slist* next = curl_slist_append(list, line.c_str());
    if (next == nullptr) return false;
    list = next;
    return true;
  }
};

// What an answer's status line and headers may hold together (every interim answer's too).
constexpr std::size_t kMaxHeaderBytes = 256 * 1024;

// Everything one attempt's callbacks share.
struct Attempt {
  const Request* req = nullptr;
  Response response;
  bool head = false;
  // What stopped the transfer from our side; checked before curl's code.
  bool too_large = false;
  std::uint64_t declared = 0;  // the Content-Length that was refused, when it was one
  std::size_t header_bytes = 0;
  bool headers_too_large = false;
  int sink_errno = 0;
  bool sink_failed = false;
  // The request body: a string or a descriptor.
  std::size_t body_sent = 0;
  std::uint64_t fd_left = 0;
  bool source_short = false;
  int source_errno = 0;

  // An answer outside 2xx whose body is only kept, up to max_error_body.
  bool error_body_mode() const { return req->max_error_body.has_value() && !is_2xx(response.status); }
};

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* a = static_cast<Attempt*>(user);
  const std::size_t len = size * n;
  const std::string_view line(data, len);
  // Headers are kept whole: a server that sends them without end is refused.
  a->header_bytes += len;
  if (a->header_bytes > kMaxHeaderBytes) {
    a->headers_too_large = true;
    return 0;
  }
  if (line.starts_with("HTTP/")) {
    // A new status line (after a 100 Continue, say): what came before was another answer.
    a->response.headers.clear();
    a->response.body.clear();
    a->response.body_size = 0;
    const std::size_t sp = line.find(' ');
    std::uint64_t status = 0;
    if (sp != std::string_view::npos) parse_u64(line.substr(sp + 1, 3), &status);
    a->response.status = static_cast<long>(status);
    return len;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return len;  // the blank line that ends the headers
  std::string name = lower(trim(line.substr(0, colon)));
  std::string value(trim(line.substr(colon + 1)));
  if (name == "content-length") {
    // Refused before one byte of the body is kept, when a body will follow.
    const long st = a->response.status;
    const bool bodyless = a->head || st < 200 || st == 204 || st == 304;
    std::uint64_t declared = 0;
    if (!bodyless && !a->req->on_chunk && !a->error_body_mode() && parse_u64(value, &declared) &&
        declared > a->req->max_body) {
      a->too_large = true;
      a->declared = declared;
      return 0;
    }
  }
  a->response.headers.emplace_back(std::move(name), std::move(value));
  return len;
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* a = static_cast<Attempt*>(user);
  const std::size_t len = size * n;
  const Request& r = *a->req;
  Response& resp = a->response;
  resp.body_size += len;
  if (a->error_body_mode()) {
    const std::size_t cap = *r.max_error_body;
    if (resp.body.size() < cap) resp.body.append(data, std::min(len, cap - resp.body.size()));
    return len;
  }
  if (r.on_chunk) {
    if (!r.on_chunk(std::string_view(data, len))) {
      resp.stopped = true;
      return 0;
    }
    return len;
  }
  // A body without Content-Length, or longer than it said, is cut off here.
  if (resp.body_size > r.max_body) {
    a->too_large = true;
    return 0;
  }
  if (r.sink_fd >= 0) {
    if (!base::write_all(r.sink_fd, std::string_view(data, len))) {
      a->sink_failed = true;
      a->sink_errno = errno;
      return 0;
    }
    return len;
  }
  resp.body.append(data, len);
  return len;
}

std::size_t read_string(char* out, std::size_t size, std::size_t n, void* user) {
  auto* a = static_cast<Attempt*>(user);
  const std::string& body = a->req->body;
  const std::size_t len = std::min(size * n, body.size() - a->body_sent);
  std::memcpy(out, body.data() + a->body_sent, len);
  a->body_sent += len;
  return len;
}

std::size_t read_fd(char* out, std::size_t size, std::size_t n, void* user) {
  auto* a = static_cast<Attempt*>(user);
  if (a->fd_left == 0) return 0;
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size * n, a->fd_left));
  for (;;) {
    const ssize_t got = ::read(a->req->body_fd, out, want);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      // Fewer bytes than the Content-Length already sent: the request cannot end well.
      a->source_short = true;
      a->source_errno = got < 0 ? errno : 0;
      return CURL_READFUNC_ABORT;
    }
    a->fd_left -= static_cast<std::uint64_t>(got);
    return static_cast<std::size_t>(got);
  }
}

ErrorKind kind_of(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
      return ErrorKind::kConnect;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return ErrorKind::kTls;
    case CURLE_OPERATION_TIMEDOUT:
      return ErrorKind::kTimeout;
    case CURLE_PARTIAL_FILE:
      return ErrorKind::kTruncated;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return ErrorKind::kBadUrl;
    default:
      return ErrorKind::kOther;
  }
}

Error make_error(const Request& r, ErrorKind kind, std::string detail, int err = 0) {
  Error e;
  e.kind = kind;
  e.message = describe(r) + ": " + detail;
  e.detail = std::move(detail);
  e.err = err;
  return e;
}

bool has_line_break(std::string_view s) {
  return s.find_first_of("\r\n") != std::string_view::npos || s.find('\0') != std::string_view::npos;
}

bool is_method(std::string_view m) {
  return !m.empty() && m.size() <= 16 && std::all_of(m.begin(), m.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool retryable(ErrorKind k) {
  return k == ErrorKind::kConnect || k == ErrorKind::kTimeout || k == ErrorKind::kTruncated || k == ErrorKind::kOther;
}

bool retryable(long status) {
  return status == 429 || (status >= 500 && status <= 599);
}

milliseconds backoff(const RetryPolicy& p, int attempt) {
  // base_delay * 2^(attempt-1), capped; then up to 25% more, still within max_delay.
  milliseconds d = p.base_delay;
  for (int i = 1; i < attempt && d < p.max_delay; ++i) d *= 2;
  d = std::min(d, p.max_delay);
  if (d.count() <= 0) return milliseconds(0);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<milliseconds::rep> jitter(0, d.count() / 4);
  return std::min(p.max_delay, d + milliseconds(jitter(rng)));
}

}  // namespace

std::string_view to_string(ErrorKind k) {
  switch (k) {
    case ErrorKind::kBadUrl:
      return "bad_url";
    case ErrorKind::kConnect:
      return "connect";
    case ErrorKind::kTls:
      return "tls";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kTooLarge:
      return "too_large";
    case ErrorKind::kTruncated:
      return "truncated";
    case ErrorKind::kSink:
      return "sink";
    case ErrorKind::kSource:
      return "source";
    case ErrorKind::kOther:
      break;
  }
  return "other";
}

std::optional<std::string> Response::header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> Response::content_length() const {
  std::uint64_t v = 0;
  if (auto h = header("content-length"); h && parse_u64(*h, &v)) return v;
  return std::nullopt;
}

std::string describe(const Request& r) {
  std::string_view url = r.url;
  url = url.substr(0, url.find_first_of("?#"));
  // Credentials in the authority (user:password@) are not for messages either.
  std::string out = r.method + " ";
  const std::size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    const std::size_t authority = scheme + 3;
    const std::size_t path = url.find('/', authority);
    const std::size_t at = url.substr(0, path).find('@', authority);
    if (at != std::string_view::npos) {
      out += std::string(url.substr(0, authority)) + std::string(url.substr(at + 1));
      return out;
    }
  }
  out += url;
  return out;
}

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view value) {
  value = trim(value);
  // A date names a weekday or a month: a value without letters is not one (curl_getdate
  // would read "1" as a day of this month).
  if (value.empty() || value.size() > 64 ||
      !std::any_of(value.begin(), value.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  const std::string text(value);
  const time_t t = curl_getdate(text.c_str(), nullptr);
  if (t == -1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // delta-seconds; anything above a day is a day (it is past every max_delay anyway).
    std::uint64_t secs = 0;
    if (!parse_u64(value, &secs) || secs > 86'400) secs = 86'400;
    return std::chrono::milliseconds(static_cast<std::int64_t>(secs) * 1000);
  }
  const auto when = parse_http_date(value);
  if (!when) return std::nullopt;
  if (*when <= now) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(*when - now);
}

Client::Client(Tls tls, std::string user_agent) : tls_(std::move(tls)), user_agent_(std::move(user_agent)) {
  global_init_once();
}

Expected<Response, Error> Client::send(const Request& r) const {
  return attempt(r, r.timeout);
}

Expected<Response, Error> Client::attempt(const Request& r, milliseconds timeout) const {
  if (!r.url.starts_with("http://") && !r.url.starts_with("https://")) {
    return Unexpected(make_error(r, ErrorKind::kBadUrl, "not an http:// or https:// URL"));
  }
  if (!is_method(r.method)) return Unexpected(make_error(r, ErrorKind::kOther, "not an HTTP method"));
  if (r.body_fd >= 0 && !r.body.empty()) {
    return Unexpected(make_error(r, ErrorKind::kOther, "a body and a body descriptor at once"));
  }
  if (r.method == "HEAD" && (r.body_fd >= 0 || !r.body.empty())) {
    return Unexpected(make_error(r, ErrorKind::kOther, "a HEAD with a body"));
  }
  if (tls_.client_cert_pem.empty() != tls_.client_key_pem.empty()) {
    return Unexpected(make_error(r, ErrorKind::kTls, "a client certificate without its key, or a key without it"));
  }
  // A line break in a header would be a second header (or a second request).
  Slist headers;
  for (const auto& [name, value] : r.headers) {
    if (name.empty() || has_line_break(name) || name.find(':') != std::string::npos || has_line_break(value)) {
      return Unexpected(make_error(r, ErrorKind::kOther, "a request header that is not one line"));
    }
    if (!headers.add(name + ": " + value)) return Unexpected(make_error(r, ErrorKind::kOther, "out of memory"));
  }
  // No "Expect: 100-continue" round trip: the body follows at once.
  if (!headers.add("Expect:")) return Unexpected(make_error(r, ErrorKind::kOther, "out of memory"));

  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> h(curl_easy_init(), curl_easy_cleanup);
  if (!h) return Unexpected(make_error(r, ErrorKind::kOther, "curl_easy_init failed"));
  CURL* e = h.get();

  Attempt a;
  a.req = &r;
  a.head = r.method == "HEAD";
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_blob ca{}, cert{}, key{};

  curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for name resolution
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  // Roots given are the only roots: the build's CA directory is not searched beside them.
  // The PEMs in memory are handed over as blobs (a kubeconfig's CA never touches a file).
  if (!tls_.ca_pem.empty()) {
    ca = {const_cast<char*>(tls_.ca_pem.data()), tls_.ca_pem.size(), CURL_BLOB_NOCOPY};
    curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<char*>(nullptr));
  } else if (!tls_.ca_file.empty()) {
    curl_easy_setopt(e, CURLOPT_CAINFO, tls_.ca_file.c_str());
    curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<char*>(nullptr));
  }
  if (!tls_.client_cert_pem.empty()) {
    cert = {const_cast<char*>(tls_.client_cert_pem.data()), tls_.client_cert_pem.size(), CURL_BLOB_NOCOPY};
    key = {const_cast<char*>(tls_.client_key_pem.data()), tls_.client_key_pem.size(), CURL_BLOB_NOCOPY};
    curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!user_agent_.empty()) curl_easy_setopt(e, CURLOPT_USERAGENT, user_agent_.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.list);
  // curl reads 0 as "no limit": the smallest timeout it is given is 1 ms.
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::max<milliseconds::rep>(1, std::min(r.connect_timeout, timeout).count())));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<milliseconds::rep>(1, timeout.count())));
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &a);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &a);

  const bool has_body = r.body_fd >= 0 || !r.body.empty();
  const auto body_size = static_cast<curl_off_t>(r.body_fd >= 0 ? r.body_fd_size : r.body.size());
  if (r.body_fd >= 0) a.fd_left = r.body_fd_size;
  if (a.head) {
    curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT") {
    // Always with a Content-Length, 0 for an empty body (S3 refuses a PUT without one).
    curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(e, CURLOPT_READDATA, &a);
    curl_easy_setopt(e, CURLOPT_READFUNCTION, r.body_fd >= 0 ? read_fd : read_string);
    curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, body_size);
  } else if (r.method == "POST" || has_body) {
    // A POST, or another method with a body (a DELETE with its DeleteOptions).
    if (r.body_fd >= 0) {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_READDATA, &a);
      curl_easy_setopt(e, CURLOPT_READFUNCTION, read_fd);
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, body_size);
    } else {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.c_str());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, body_size);
    }
    if (r.method != "POST") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  } else if (r.method != "GET") {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }

  const CURLcode rc = curl_easy_perform(e);
  if (a.too_large) {
    std::string why = "the answer is larger than the " + std::to_string(r.max_body) + " bytes allowed";
    if (a.declared > 0) why += " (its Content-Length is " + std::to_string(a.declared) + ")";
    return Unexpected(make_error(r, ErrorKind::kTooLarge, why));
  }
  if (a.headers_too_large) {
    return Unexpected(make_error(r, ErrorKind::kTooLarge,
                                 "the answer's headers are larger than " + std::to_string(kMaxHeaderBytes) + " bytes"));
  }
  if (a.sink_failed) {
    return Unexpected(make_error(r, ErrorKind::kSink,
                                 std::string("writing the answer out: ") + std::strerror(a.sink_errno), a.sink_errno));
  }
  if (a.source_short) {
    std::string why = "the request body's descriptor gave fewer than its " + std::to_string(r.body_fd_size) + " bytes";
    if (a.source_errno != 0) why += std::string(": ") + std::strerror(a.source_errno);
    return Unexpected(make_error(r, ErrorKind::kSource, why, a.source_errno));
  }
  if (a.response.stopped) return std::move(a.response);
  if (rc != CURLE_OK) {
    std::string why = curl_easy_strerror(rc);
    if (errbuf[0] != '\0') why += std::string(": ") + errbuf;
    return Unexpected(make_error(r, kind_of(rc), why));
  }
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  if (status != 0) a.response.status = status;
  return std::move(a.response);
}

Expected<Response, Error> Client::send(
    const Request& r, const RetryPolicy& policy,
    const std::function<void(int attempt, const std::string& why, std::chrono::milliseconds wait)>& on_retry) const {
  const int attempts = std::max(1, policy.max_attempts);
  if (attempts > 1 && (r.body_fd >= 0 || r.on_chunk || r.sink_fd >= 0)) {
    return Unexpected(make_error(r, ErrorKind::kOther,
                                 "a request that cannot be sent twice (a body descriptor, a sink or a stream) "
                                 "under a policy of " +
                                     std::to_string(attempts) + " attempts"));
  }
  using Clock = std::chrono::steady_clock;
  std::optional<Expected<Response, Error>> last;
  for (int n = 1;; ++n) {
    milliseconds timeout = r.timeout;
    if (policy.deadline) {
      const auto left = std::chrono::floor<milliseconds>(*policy.deadline - Clock::now());
      if (left.count() <= 0) {
        if (last) return std::move(*last);
        return Unexpected(make_error(r, ErrorKind::kTimeout, "the deadline passed before the first attempt"));
      }
      timeout = std::min(timeout, left);
    }
    Expected<Response, Error> got = attempt(r, timeout);
    std::string why;
    std::optional<milliseconds> asked;  // the server's Retry-After
    if (got) {
      if (!retryable(got->status)) return got;
      why = "HTTP " + std::to_string(got->status);
      if (auto ra = got->header("retry-after")) {
        asked = parse_retry_after(*ra, std::chrono::system_clock::now());
        if (asked) why += " (Retry-After: " + *ra + ")";
      }
    } else {
      if (!retryable(got.error().kind)) return got;
      why = got.error().message;
    }
    if (n >= attempts) return got;
    // A server that asks for longer than we would ever wait: its answer is the answer.
    if (asked && *asked > policy.max_delay) return got;
    const milliseconds wait = asked ? *asked : backoff(policy, n);
    if (policy.deadline && Clock::now() + wait >= *policy.deadline) return got;
    if (on_retry) on_retry(n, why, wait);
    last.emplace(std::move(got));
    std::this_thread::sleep_for(wait);
  }
}

}  // namespace batlehub::http
