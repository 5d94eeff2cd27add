#include "agent/http.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/oid.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/fd.h"
#include "agent/version.h"

namespace batlehub::agent {

namespace {

// A connection not made in 10 s is given up and, nothing having been sent, tried again
// (transport.cc): four attempts take at most ~44 s of a run's deadline, where one 30 s wait
// for a SYN that a relay or a firewall dropped while it was rewritten used to be the end of
// the run.
constexpr int kConnectTimeoutMs = 10'000;
constexpr int kIoTimeoutSec = 120;
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::uint64_t kMaxPutResponseBody = 64 * 1024;

Unexpected<HttpError> err(std::string m, bool too_long = false) { return Unexpected(HttpError{std::move(m), too_long}); }
Unexpected<HttpError> transient_err(std::string m) {
  return Unexpected(HttpError{std::move(m), false, true});
}

// A connection that failed this way may be had on the next attempt: a firewall's or a
// relay's refusal while its rules are rewritten, a server restarting, a reset under load.
bool transient_errno(int e) {
  return e == ECONNREFUSED || e == ECONNRESET || e == EPIPE || e == ECONNABORTED || e == ENETUNREACH ||
         e == EHOSTUNREACH || e == ENETDOWN || e == ETIMEDOUT;
}
Unexpected<HttpError> errno_err(std::string what, int e) {
  return Unexpected(HttpError{std::move(what) + std::strerror(e), false, transient_errno(e)});
}

// Why mbedTLS and not OpenSSL: size. The agent's whole TLS need is one client handshake per
// presigned URL, verified against the roots compiled in; OpenSSL 3's provider tables pull
// every algorithm it has into a static link (libcrypto 2,921 KiB + libssl 413 KiB of a
// 7,442,056-byte stripped agent, by the link map). mbedTLS 2.28 links what is called:
// 546 KiB of it (crypto 321, tls 147, x509 78); the move took the stripped agent from
// 7,442,056 to 4,113,000 bytes.
// Debian 12's libmbedtls 2.28 speaks TLS 1.2 only (its TLS 1.3 is an experimental option
// the package leaves off), so the agent offers and requires 1.2: an endpoint that speaks
// only TLS 1.3 is refused at the handshake.
std::string mbedtls_error(int rc) {
  char buf[160];
  mbedtls_strerror(rc, buf, sizeof buf);
  return buf;
}

// Only the roots compiled into this binary: no file, no environment variable. Parsed once
// per thread, not per connection: the 144 of the system bundle take ~7 ms of CPU to parse,
// and a run over the storage hop opens three connections. Per thread rather than per
// process, because verifying a chain writes into its root's key (mbedtls_rsa_public keeps
// the Montgomery constant it computes on first use in the RSA context), so one parsed chain
// must not serve two handshakes at once: the agent binary has one thread, and under the
// `none` runtime each worker thread parses its own. The parser wants the NUL in the length;
// a bundle where some certificates do not parse keeps the ones that did (a positive return
// counts the failures), as OpenSSL's loop did. nullptr when none parsed.
mbedtls_x509_crt* compiled_roots() {
  struct Roots {
    mbedtls_x509_crt crt;
    bool loaded = false;
    Roots() {
      mbedtls_x509_crt_init(&crt);
      std::string_view pem = tls_roots_pem();
      std::string text(pem);
      int parsed = mbedtls_x509_crt_parse(&crt, reinterpret_cast<const unsigned char*>(text.c_str()), text.size() + 1);
      loaded = parsed >= 0 && crt.raw.p != nullptr;
    }
    ~Roots() { mbedtls_x509_crt_free(&crt); }
    Roots(const Roots&) = delete;
    Roots& operator=(const Roots&) = delete;
  };
  thread_local Roots roots;
  return roots.loaded ? &roots.crt : nullptr;
}

// mbedtls_x509_crt_verify_info writes one line per flag; one line of them, "; "-joined.
std::string verify_reason(std::uint32_t flags) {
  char buf[512];
  int n = mbedtls_x509_crt_verify_info(buf, sizeof buf, "", flags);
  std::string out;
  std::string_view text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty()) {
    auto eol = text.find('\n');
    std::string_view l = text.substr(0, eol);
    if (!l.empty()) out += (out.empty() ? "" : "; ") + std::string(l);
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  if (out.empty()) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%#x", static_cast<unsigned>(flags));
    out = std::string("verification failed (flags ") + hex + ")";
  }
  return out;
}

// One connection, plain or TLS.
class Conn {
 public:
  Conn() = default;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn() {
    if (tls_) {
      mbedtls_ssl_free(&tls_->ssl);
      mbedtls_ssl_config_free(&tls_->conf);
      mbedtls_ctr_drbg_free(&tls_->drbg);
      mbedtls_entropy_free(&tls_->entropy);
    }
  }

  Expected<Ok, HttpError> open(const Url& url) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* res = nullptr;
    std::string port = std::to_string(url.port);
    int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &res);
    if (rc != 0) {
      std::string why = "cannot resolve '" + url.host + "': " + gai_strerror(rc);
      return rc == EAI_AGAIN ? transient_err(std::move(why)) : err(std::move(why));
    }
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
    std::string last = "no address";
    int last_errno = 0;
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      base::Fd s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
      if (!s.valid()) {
        last = std::strerror(errno);
        continue;
      }
      if (::connect(s.get(), ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        last_errno = errno;
        last = std::strerror(errno);
        continue;
      }
      pollfd p{s.get(), POLLOUT, 0};
      if (::poll(&p, 1, kConnectTimeoutMs) != 1) {
        last_errno = ETIMEDOUT;
        last = "connect timed out";
        continue;
      }
      int so = 0;
      socklen_t len = sizeof so;
      ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &so, &len);
      if (so != 0) {
        last_errno = so;
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
    if (!fd_.valid()) {
      return Unexpected(
          HttpError{"cannot connect to " + url.authority + ": " + last, false, transient_errno(last_errno)});
    }
    if (url.scheme == Url::Scheme::kHttps) return start_tls(url.host);
    return Ok{};
  }

  Expected<Ok, HttpError> write_all(std::string_view data) {
    if (!tls_) {
      if (!base::send_all(fd_.get(), data)) return errno_err("send: ", errno);
      return Ok{};
    }
    while (!data.empty()) {
      int r = mbedtls_ssl_write(&tls_->ssl, reinterpret_cast<const unsigned char*>(data.data()), data.size());
      if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) continue;
      if (r < 0) return tls_io_err("TLS write failed: ", r);
      data.remove_prefix(static_cast<std::size_t>(r));
    }
    return Ok{};
  }

  // 0 at end of stream.
  Expected<std::size_t, HttpError> read_some(char* buf, std::size_t n) {
    if (tls_) {
      for (;;) {
        int r = mbedtls_ssl_read(&tls_->ssl, reinterpret_cast<unsigned char*>(buf), n);
        if (r > 0) return static_cast<std::size_t>(r);
        if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) continue;
        // close_notify, or a peer that closes without it: the end of the stream, as plain
        // TCP's would be (a body cut short is caught by its Content-Length or chunking).
        if (r == 0 || r == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || r == MBEDTLS_ERR_SSL_CONN_EOF) return std::size_t{0};
        return tls_io_err("TLS read failed: ", r);
      }
    }
    for (;;) {
      ssize_t r = ::recv(fd_.get(), buf, n, 0);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      return errno_err("recv: ", errno);
    }
  }

 private:
  struct Tls {
    mbedtls_entropy_context entropy;
    mbedtls_ctr_drbg_context drbg;
    mbedtls_ssl_config conf;
    mbedtls_ssl_context ssl;
    // The address the certificate must name when the URL's host is an IP literal.
    unsigned char ip[16];
    std::size_t ip_len = 0;
    int io_errno = 0;  // the errno behind the last failed send or recv
  };

  // mbedTLS's I/O over the connected socket, blocking with the SO_SNDTIMEO/SO_RCVTIMEO set in
  // open(): a timeout (EAGAIN) is an error, as it is on the plain path, never "try again".
  static int tls_send(void* p, const unsigned char* buf, std::size_t len) {
    auto* c = static_cast<Conn*>(p);
    for (;;) {
      ssize_t w = ::send(c->fd_.get(), buf, len, MSG_NOSIGNAL);
      if (w >= 0) return static_cast<int>(w);
      if (errno == EINTR) continue;
      c->tls_->io_errno = errno;
      return errno == EPIPE || errno == ECONNRESET ? MBEDTLS_ERR_NET_CONN_RESET : MBEDTLS_ERR_NET_SEND_FAILED;
    }
  }
  static int tls_recv(void* p, unsigned char* buf, std::size_t len) {
    auto* c = static_cast<Conn*>(p);
    for (;;) {
      ssize_t r = ::recv(c->fd_.get(), buf, len, 0);
      if (r >= 0) return static_cast<int>(r);
      if (errno == EINTR) continue;
      c->tls_->io_errno = errno;
      return errno == ECONNRESET ? MBEDTLS_ERR_NET_CONN_RESET : MBEDTLS_ERR_NET_RECV_FAILED;
    }
  }

  // mbedTLS 2.28 matches the name given to mbedtls_ssl_set_hostname against dNSName SANs
  // (or the CN) only: it compares an IP literal's text with an iPAddress SAN's raw bytes, so
  // it could never accept a certificate for 127.0.0.1. For an IP host the leaf's iPAddress
  // SANs are compared here, byte for byte, as OpenSSL's X509_VERIFY_PARAM_set1_ip_asc did
  // (the CN is never consulted for an address); a miss is a name mismatch, reported with
  // the chain's other flags.
  static int verify_ip(void* p, mbedtls_x509_crt* crt, int depth, std::uint32_t* flags) {
    auto* t = static_cast<Tls*>(p);
    if (depth != 0 || t->ip_len == 0) return 0;
    bool found = false;
    if (crt->ext_types & MBEDTLS_X509_EXT_SUBJECT_ALT_NAME) {
      for (const mbedtls_x509_sequence* s = &crt->subject_alt_names; s != nullptr && !found; s = s->next) {
        found = s->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7) && s->buf.len == t->ip_len &&
                std::memcmp(s->buf.p, t->ip, t->ip_len) == 0;
      }
    }
    if (!found) *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
    return 0;
  }

  std::string io_reason(int rc) const {
    if ((rc == MBEDTLS_ERR_NET_RECV_FAILED || rc == MBEDTLS_ERR_NET_SEND_FAILED || rc == MBEDTLS_ERR_NET_CONN_RESET) &&
        tls_->io_errno != 0) {
      if (tls_->io_errno == EAGAIN || tls_->io_errno == EWOULDBLOCK) {
        return "no progress in " + std::to_string(kIoTimeoutSec) + " s";
      }
      return std::strerror(tls_->io_errno);
    }
    return mbedtls_error(rc);
  }

  // A failed TLS read, write or handshake is as transient as the socket error under it (a
  // peer's alert, `note`, is none).
  Unexpected<HttpError> tls_io_err(const char* what, int rc, const std::string& note = "") const {
    const bool socket =
        rc == MBEDTLS_ERR_NET_RECV_FAILED || rc == MBEDTLS_ERR_NET_SEND_FAILED || rc == MBEDTLS_ERR_NET_CONN_RESET;
    return Unexpected(HttpError{what + io_reason(rc) + note, false, socket && transient_errno(tls_->io_errno)});
  }

  // The alert a peer refused the handshake with, where it says something to act on.
  std::string alert_note(int rc) const {
    if (rc != MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE || tls_->ssl.in_msg == nullptr) return "";
    int alert = tls_->ssl.in_msg[1];
    if (alert == MBEDTLS_SSL_ALERT_MSG_PROTOCOL_VERSION) {
      return " (protocol_version: the server does not accept TLS 1.2, the only version this agent speaks)";
    }
    if (alert == MBEDTLS_SSL_ALERT_MSG_HANDSHAKE_FAILURE) return " (handshake_failure: no cipher suite in common)";
    return " (alert " + std::to_string(alert) + ")";
  }

  Expected<Ok, HttpError> start_tls(const std::string& host) {
    tls_ = std::make_unique<Tls>();
    Tls& t = *tls_;
    mbedtls_entropy_init(&t.entropy);
    mbedtls_ctr_drbg_init(&t.drbg);
    mbedtls_ssl_config_init(&t.conf);
    mbedtls_ssl_init(&t.ssl);
    // The entropy source is getrandom(2) (/dev/urandom where the kernel lacks it); the
    // agent itself never runs under the scanner's seccomp filter, which allows it anyway.
    static constexpr unsigned char kPersonal[] = "batlehub-sandbox";
    if (int rc = mbedtls_ctr_drbg_seed(&t.drbg, mbedtls_entropy_func, &t.entropy, kPersonal, sizeof kPersonal - 1);
        rc != 0) {
      return err("TLS: seeding the random generator: " + mbedtls_error(rc));
    }
    mbedtls_x509_crt* roots = compiled_roots();
    if (roots == nullptr) return err("TLS: no root certificate is compiled into this agent");
    if (int rc = mbedtls_ssl_config_defaults(&t.conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                             MBEDTLS_SSL_PRESET_DEFAULT);
        rc != 0) {
      return err("TLS: " + mbedtls_error(rc));
    }
    mbedtls_ssl_conf_min_version(&t.conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);  // TLS 1.2
    mbedtls_ssl_conf_authmode(&t.conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_ca_chain(&t.conf, roots, nullptr);
    mbedtls_ssl_conf_rng(&t.conf, mbedtls_ctr_drbg_random, &t.drbg);
    if (int rc = mbedtls_ssl_setup(&t.ssl, &t.conf); rc != 0) return err("TLS: " + mbedtls_error(rc));
    in_addr a4{};
    in6_addr a6{};
    if (inet_pton(AF_INET, host.c_str(), &a4) == 1) {
      t.ip_len = sizeof a4;
      std::memcpy(t.ip, &a4, t.ip_len);
    } else if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) {
      t.ip_len = sizeof a6;
      std::memcpy(t.ip, &a6, t.ip_len);
    }
    if (t.ip_len != 0) {
      // No SNI for an address (RFC 6066 §3 forbids it), and no name for mbedTLS to check:
      // verify_ip does.
      mbedtls_ssl_set_verify(&t.ssl, verify_ip, &t);
    } else {
      // SNI, and the name checked against the certificate: its dNSName SANs (its CN only when
      // it has no SAN at all), a wildcard only as a whole leftmost label ("*.example.com",
      // never "f*.example.com": OpenSSL's X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, built in).
      if (int rc = mbedtls_ssl_set_hostname(&t.ssl, host.c_str()); rc != 0) return err("TLS: " + mbedtls_error(rc));
    }
    mbedtls_ssl_set_bio(&t.ssl, this, tls_send, tls_recv, nullptr);
    for (;;) {
      int rc = mbedtls_ssl_handshake(&t.ssl);
      if (rc == 0) break;
      if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) continue;
      std::uint32_t v = mbedtls_ssl_get_verify_result(&t.ssl);
      if (rc == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED || (v != 0 && v != static_cast<std::uint32_t>(-1))) {
        return err("TLS: the server's certificate is refused: " + verify_reason(v));
      }
      return tls_io_err("TLS handshake failed: ", rc, alert_note(rc));
    }
    return Ok{};
  }

  base::Fd fd_;
  std::unique_ptr<Tls> tls_;
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
      if (*more == 0) return transient_err("connection closed before the response headers ended");
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
      if (*more == 0) return transient_err("connection closed inside a chunked body");
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
        return transient_err("connection closed " + std::to_string(left) + " bytes before the body ended");
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

// A server's refusal: worth another attempt when it says it is busy or broken (5xx, 429:
// S3's SlowDown and InternalError), never when it says no (a signature past its expiry, a
// key that is not there).
// The server's own words go into one line (result.json's failure, the agent's stderr line,
// a pod's termination message): control characters and runs of blanks become one space,
// and at most 200 bytes of it are kept.
Unexpected<HttpError> status_err(const char* method, int status, std::string_view answer) {
  std::string words;
  for (char c : answer) {
    const bool blank = static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
    if (blank && (words.empty() || words.back() == ' ')) continue;
    words += blank ? ' ' : c;
    if (words.size() >= 200) break;
  }
  while (!words.empty() && words.back() == ' ') words.pop_back();
  return Unexpected(
      HttpError{std::string(method) + " answered " + std::to_string(status) + (words.empty() ? "" : ": " + words),
                false, status >= 500 || status == 429});
}

std::string request_head(const char* method, const Url& url, const std::string* content_length,
                         const std::string* content_type = nullptr) {
  std::string h = std::string(method) + " " + url.target + " HTTP/1.1\r\nHost: " + url.authority +
                  "\r\nUser-Agent: batlehub-sandbox/" + std::string(kAgentVersion) +
                  "\r\nAccept-Encoding: identity\r\nConnection: close\r\n";
  if (content_type) h += "Content-Type: " + *content_type + "\r\n";
  if (content_length) h += "Content-Length: " + *content_length + "\r\n";
  h += "\r\n";
  return h;
}

// The answer to a request whose body has been sent: any 2xx is success.
Expected<Ok, HttpError> read_answer(Conn& c, const char* method) {
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
  if (head->status < 200 || head->status > 299) return status_err(method, head->status, answer);
  return Ok{};
}

// A multipart boundary the body does not contain: 32 random hex digits, drawn again in the
// one-in-2^128 case that the result happens to hold them (a scanner's output is in it).
Expected<std::string, HttpError> boundary_not_in(const Url& url, std::string_view file) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned char raw[16];
    if (::getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
      return Unexpected(HttpError{std::string("getrandom: ") + std::strerror(errno)});
    }
    std::string b = "batlehub-";
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char x : raw) {
      b += kHex[x >> 4];
      b += kHex[x & 15];
    }
    bool clash = file.find(b) != std::string_view::npos;
    for (const auto& [name, value] : url.form) clash |= value.find(b) != std::string::npos;
    if (!clash) return b;
  }
  return Unexpected(HttpError{"no multipart boundary the result does not contain"});
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
  if (head->status != 200) return status_err("GET", head->status, "");
  return read_body(r, *head, max_body, sink);
}

Expected<Ok, HttpError> http_put(const Url& url, std::string_view body) {
  Conn c;
  if (auto o = c.open(url); !o) return Unexpected(std::move(o).error());
  std::string len = std::to_string(body.size());
  if (auto w = c.write_all(request_head("PUT", url, &len)); !w) return Unexpected(std::move(w).error());
  if (auto w = c.write_all(body); !w) return Unexpected(std::move(w).error());
  return read_answer(c, "PUT");
}

Expected<Ok, HttpError> http_post_form(const Url& url, std::string_view file) {
  auto boundary = boundary_not_in(url, file);
  if (!boundary) return Unexpected(std::move(boundary).error());
  const std::string dash = "--" + *boundary;
  std::string before;
  for (const auto& [name, value] : url.form) {
    before += dash + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
  }
  before += dash + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"out.tar\"\r\n" +
            "Content-Type: application/x-tar\r\n\r\n";
  const std::string after = "\r\n" + dash + "--\r\n";
  // The result is sent from where it lies, never copied into the body.
  std::string len = std::to_string(before.size() + file.size() + after.size());
  std::string type = "multipart/form-data; boundary=" + *boundary;
  Conn c;
  if (auto o = c.open(url); !o) return Unexpected(std::move(o).error());
  if (auto w = c.write_all(request_head("POST", url, &len, &type)); !w) return Unexpected(std::move(w).error());
  for (std::string_view part : {std::string_view(before), file, std::string_view(after)}) {
    if (auto w = c.write_all(part); !w) return Unexpected(std::move(w).error());
  }
  return read_answer(c, "POST");
}

}  // namespace batlehub::agent
