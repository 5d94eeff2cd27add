#include "agent/http.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/fd.h"
#include "agent/version.h"

namespace batlehub::agent {

namespace {

constexpr int kConnectTimeoutMs = 30'000;
constexpr int kIoTimeoutSec = 120;
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::uint64_t kMaxPutResponseBody = 64 * 1024;

Unexpected<HttpError> err(std::string m, bool too_long = false) { return Unexpected(HttpError{std::move(m), too_long}); }

std::string openssl_error() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

// One connection, plain or TLS.
class Conn {
 public:
  ~Conn() {
    if (ssl_) SSL_free(ssl_);
    if (ctx_) SSL_CTX_free(ctx_);
  }

  Expected<Ok, HttpError> open(const Url& url) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* res = nullptr;
    std::string port = std::to_string(url.port);
    int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &res);
    if (rc != 0) return err("cannot resolve '" + url.host + "': " + gai_strerror(rc));
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
    std::string last = "no address";
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      base::Fd s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
      if (!s.valid()) {
        last = std::strerror(errno);
        continue;
      }
      if (::connect(s.get(), ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        last = std::strerror(errno);
        continue;
      }
      pollfd p{s.get(), POLLOUT, 0};
      if (::poll(&p, 1, kConnectTimeoutMs) != 1) {
        last = "connect timed out";
        continue;
      }
      int so = 0;
      socklen_t len = sizeof so;
      ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &so, &len);
      if (so != 0) {
        last = std::strerror(so);
        continue;
      }
      int flags = ::fcntl(s.get(), F_GETFL);
      ::fcntl(s.get(), F_SETFL, flags & ~O_NONBLOCK);
      timeval tv{kIoTimeoutSec, 0};
      ::setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      int one = 1;
      ::setsockopt(s.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fd_ = std::move(s);
      break;
    }
    if (!fd_.valid()) return err("cannot connect to " + url.authority + ": " + last);
    if (url.scheme == Url::Scheme::kHttps) return start_tls(url.host);
    return Ok{};
  }

  Expected<Ok, HttpError> write_all(std::string_view data) {
    while (!data.empty()) {
      ssize_t w;
      if (ssl_) {
        w = SSL_write(ssl_, data.data(), static_cast<int>(std::min<std::size_t>(data.size(), 1 << 30)));
        if (w <= 0) return err("TLS write failed: " + openssl_error());
      } else {
        w = ::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
        if (w < 0) {
          if (errno == EINTR) continue;
          return err(std::string("send: ") + std::strerror(errno));
        }
      }
      data.remove_prefix(static_cast<std::size_t>(w));
    }
    return Ok{};
  }

  // 0 at end of stream.
  Expected<std::size_t, HttpError> read_some(char* buf, std::size_t n) {
    if (ssl_) {
      int r = SSL_read(ssl_, buf, static_cast<int>(n));
      if (r > 0) return static_cast<std::size_t>(r);
      int e = SSL_get_error(ssl_, r);
      if (e == SSL_ERROR_ZERO_RETURN) return std::size_t{0};
      // A peer that closes without close_notify ends the stream as plain TCP would.
      if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && errno == 0) return std::size_t{0};
      return err("TLS read failed: " + openssl_error());
    }
    for (;;) {
      ssize_t r = ::recv(fd_.get(), buf, n, 0);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      return err(std::string("recv: ") + std::strerror(errno));
    }
  }

 private:
  Expected<Ok, HttpError> start_tls(const std::string& host) {
    OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr);
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (!ctx_) return err("TLS: " + openssl_error());
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
    // Only the roots compiled into this binary: no file, no environment variable.
    X509_STORE* store = SSL_CTX_get_cert_store(ctx_);
    std::string_view pem = tls_roots_pem();
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
    int loaded = 0;
    while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
      if (X509_STORE_add_cert(store, cert) == 1) ++loaded;
      X509_free(cert);
    }
    ERR_clear_error();
    if (loaded == 0) return err("TLS: no root certificate is compiled into this agent");
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(ctx_);
    if (!ssl_) return err("TLS: " + openssl_error());
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    in6_addr a6{};
    in_addr a4{};
    bool is_ip = inet_pton(AF_INET, host.c_str(), &a4) == 1 || inet_pton(AF_INET6, host.c_str(), &a6) == 1;
    if (is_ip) {
      X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl_, host.c_str());
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    }
    SSL_set_fd(ssl_, fd_.get());
    if (SSL_connect(ssl_) != 1) {
      long v = SSL_get_verify_result(ssl_);
      if (v != X509_V_OK) return err(std::string("TLS: the server's certificate is refused: ") + X509_verify_cert_error_string(v));
      return err("TLS handshake failed: " + openssl_error());
    }
    return Ok{};
  }

  base::Fd fd_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

// Buffered reading of a response.
class Reader {
 public:
  explicit Reader(Conn& c) : c_(c) {}

  Expected<std::string, HttpError> head() {
    for (;;) {
      auto end = buf_.find("\r\n\r\n");
      if (end != std::string::npos) {
        std::string h = buf_.substr(0, end + 2);
        buf_.erase(0, end + 4);
        return h;
      }
      if (buf_.size() > kMaxHeaderBytes) return err("response headers exceed " + std::to_string(kMaxHeaderBytes) + " bytes");
      auto more = fill();
      if (!more) return Unexpected(std::move(more).error());
      if (*more == 0) return err("connection closed before the response headers ended");
    }
  }

  Expected<std::string, HttpError> line(std::size_t max) {
    for (;;) {
      auto end = buf_.find("\r\n");
      if (end != std::string::npos) {
        std::string l = buf_.substr(0, end);
        buf_.erase(0, end + 2);
        return l;
      }
      if (buf_.size() > max) return err("chunk header too long");
      auto more = fill();
      if (!more) return Unexpected(std::move(more).error());
      if (*more == 0) return err("connection closed inside a chunked body");
    }
  }

  // Up to `n` bytes, or 0 at end of stream.
  Expected<std::size_t, HttpError> take(char* out, std::size_t n) {
    if (buf_.empty()) {
      auto more = fill();
      if (!more) return Unexpected(std::move(more).error());
      if (*more == 0) return std::size_t{0};
    }
    std::size_t k = std::min(n, buf_.size());
    std::memcpy(out, buf_.data(), k);
    buf_.erase(0, k);
    return k;
  }

 private:
  Expected<std::size_t, HttpError> fill() {
    char tmp[16384];
    auto r = c_.read_some(tmp, sizeof tmp);
    if (r) buf_.append(tmp, *r);
    return r;
  }
  Conn& c_;
  std::string buf_;
};

struct ResponseHead {
  int status = 0;
  bool chunked = false;
  bool has_length = false;
  std::uint64_t length = 0;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

Expected<std::uint64_t, HttpError> parse_u64(std::string_view s, int base, const char* what) {
  if (s.empty() || s.size() > 19) return err(std::string("bad ") + what);
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return err(std::string("bad ") + what);
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
  }
  return v;
}

Expected<ResponseHead, HttpError> parse_head(const std::string& h) {
  ResponseHead out;
  auto eol = h.find("\r\n");
  std::string status_line = h.substr(0, eol);
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12) return err("not an HTTP/1.x response");
  auto code = parse_u64(std::string_view(status_line).substr(9, 3), 10, "status code");
  if (!code) return Unexpected(std::move(code).error());
  out.status = static_cast<int>(*code);
  std::size_t pos = eol + 2;
  while (pos < h.size()) {
    auto e = h.find("\r\n", pos);
    if (e == std::string::npos) e = h.size();
    std::string_view l(h.data() + pos, e - pos);
    pos = e + 2;
    auto colon = l.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = lower(std::string(l.substr(0, colon)));
    std::string value = trim(l.substr(colon + 1));
    if (name == "content-length") {
      auto n = parse_u64(value, 10, "Content-Length");
      if (!n) return Unexpected(std::move(n).error());
      if (out.has_length && out.length != *n) return err("conflicting Content-Length headers");
      out.has_length = true;
      out.length = *n;
    } else if (name == "transfer-encoding") {
      if (lower(value) != "chunked") return err("unsupported Transfer-Encoding '" + value + "'");
      out.chunked = true;
    }
  }
  return out;
}

// Reads the body per `head`, handing at most `max` bytes to `sink`.
Expected<std::uint64_t, HttpError> read_body(Reader& r, const ResponseHead& head, std::uint64_t max,
                                             const BodySink& sink) {
  std::uint64_t total = 0;
  char buf[65536];
  auto pump = [&](std::uint64_t limit, bool until_eof) -> Expected<Ok, HttpError> {
    std::uint64_t left = limit;
    while (until_eof || left > 0) {
      std::size_t want = until_eof ? sizeof buf : static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof buf));
      auto n = r.take(buf, want);
      if (!n) return Unexpected(std::move(n).error());
      if (*n == 0) {
        if (until_eof) return Ok{};
        return err("connection closed " + std::to_string(left) + " bytes before the body ended");
      }
      if (total + *n > max) return err("the body is longer than the " + std::to_string(max) + " bytes allowed", true);
      total += *n;
      if (!until_eof) left -= *n;
      if (!sink(buf, *n)) return err("the body could not be stored");
    }
    return Ok{};
  };
  if (head.chunked) {
    for (;;) {
      auto l = r.line(1024);
      if (!l) return Unexpected(std::move(l).error());
      std::string size_text = trim(l->substr(0, l->find(';')));
      auto size = parse_u64(size_text, 16, "chunk size");
      if (!size) return Unexpected(std::move(size).error());
      if (*size == 0) break;
      if (total + *size > max) return err("the body is longer than the " + std::to_string(max) + " bytes allowed", true);
      if (auto p = pump(*size, false); !p) return Unexpected(std::move(p).error());
      auto crlf = r.line(2);
      if (!crlf || !crlf->empty()) return err("malformed chunk terminator");
    }
    return total;
  }
  if (head.has_length) {
    if (head.length > max) {
      return err("the server declares " + std::to_string(head.length) + " bytes, more than the " + std::to_string(max) +
                     " allowed",
                 true);
    }
    if (auto p = pump(head.length, false); !p) return Unexpected(std::move(p).error());
    return total;
  }
  if (auto p = pump(0, true); !p) return Unexpected(std::move(p).error());
  return total;
}

std::string request_head(const char* method, const Url& url, const std::string* content_length) {
  std::string h = std::string(method) + " " + url.target + " HTTP/1.1\r\nHost: " + url.authority +
                  "\r\nUser-Agent: batlehub-sandbox/" + std::string(kAgentVersion) +
                  "\r\nAccept-Encoding: identity\r\nConnection: close\r\n";
  if (content_length) h += "Content-Length: " + *content_length + "\r\n";
  h += "\r\n";
  return h;
}

}  // namespace

Expected<std::uint64_t, HttpError> http_get(const Url& url, std::uint64_t max_body, const BodySink& sink) {
  Conn c;
  if (auto o = c.open(url); !o) return Unexpected(std::move(o).error());
  if (auto w = c.write_all(request_head("GET", url, nullptr)); !w) return Unexpected(std::move(w).error());
  Reader r(c);
  auto h = r.head();
  if (!h) return Unexpected(std::move(h).error());
  auto head = parse_head(*h);
  if (!head) return Unexpected(std::move(head).error());
  if (head->status != 200) return err("GET answered " + std::to_string(head->status));
  return read_body(r, *head, max_body, sink);
}

Expected<Ok, HttpError> http_put(const Url& url, std::string_view body) {
  Conn c;
  if (auto o = c.open(url); !o) return Unexpected(std::move(o).error());
  std::string len = std::to_string(body.size());
  if (auto w = c.write_all(request_head("PUT", url, &len)); !w) return Unexpected(std::move(w).error());
  if (auto w = c.write_all(body); !w) return Unexpected(std::move(w).error());
  Reader r(c);
  auto h = r.head();
  if (!h) return Unexpected(std::move(h).error());
  auto head = parse_head(*h);
  if (!head) return Unexpected(std::move(head).error());
  std::string answer;
  auto b = read_body(r, *head, kMaxPutResponseBody, [&](const char* p, std::size_t n) {
    answer.append(p, n);
    return true;
  });
  if (head->status < 200 || head->status > 299) {
    return err("PUT answered " + std::to_string(head->status) + (answer.empty() ? "" : ": " + answer.substr(0, 200)));
  }
  return Ok{};
}

}  // namespace batlehub::agent
