#include "behavior/tls_sink.h"

#include <arpa/inet.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/oid.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace batlehub::behavior {

namespace {

std::string mbed_error(const char* what, int rc) {
  char buf[160];
  mbedtls_strerror(rc, buf, sizeof buf);
  char code[16];
  std::snprintf(code, sizeof code, "-0x%04x", static_cast<unsigned>(-rc));
  return std::string(what) + ": " + buf + " (" + code + ")";
}

// DER's length octets, for the short values written here (a name of at most 253 bytes).
std::string der_length(std::size_t n) {
  if (n < 0x80) return std::string(1, static_cast<char>(n));
  return std::string{static_cast<char>(0x81), static_cast<char>(n)};
}

std::string der(unsigned char tag, const std::string& value) {
  return std::string(1, static_cast<char>(tag)) + der_length(value.size()) + value;
}

// subjectAltName: one dNSName, or one iPAddress when the name is an IPv4 address (a client
// that connected to an address checks the address).
std::string subject_alt_name(const std::string& name) {
  in_addr a{};
  if (::inet_pton(AF_INET, name.c_str(), &a) == 1) {
    return der(0x30, der(0x87, std::string(reinterpret_cast<const char*>(&a), sizeof a)));
  }
  return der(0x30, der(0x82, name));
}

// "YYYYMMDDhhmmss", UTC, `days` from now.
std::string validity(long days) {
  const std::time_t t = std::time(nullptr) + days * 86400;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return buf;
}

}  // namespace

std::string certificate_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return "";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || c == '*';
    if (!ok) return "";
  }
  return std::string(name);
}

struct TlsAuthority::Impl {
  mbedtls_entropy_context entropy;
  mbedtls_ctr_drbg_context drbg;
  mbedtls_pk_context ca_key;
  mbedtls_pk_context leaf_key;  // one key for every leaf of the run: minting is a signature
  std::string ca_pem;
  std::string ca_subject = "CN=Build Services Root CA,O=Build Services";

  Impl() {
    mbedtls_entropy_init(&entropy);
    mbedtls_ctr_drbg_init(&drbg);
    mbedtls_pk_init(&ca_key);
    mbedtls_pk_init(&leaf_key);
  }
  ~Impl() {
    mbedtls_pk_free(&leaf_key);
    mbedtls_pk_free(&ca_key);
    mbedtls_ctr_drbg_free(&drbg);
    mbedtls_entropy_free(&entropy);
  }

  Expected<Ok, std::string> new_key(mbedtls_pk_context& pk) {
    if (int rc = mbedtls_pk_setup(&pk, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY)); rc != 0) {
      return Unexpected(mbed_error("mbedtls_pk_setup", rc));
    }
    if (int rc = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(pk), mbedtls_ctr_drbg_random, &drbg);
        rc != 0) {
      return Unexpected(mbed_error("mbedtls_ecp_gen_key", rc));
    }
    return Ok{};
  }

  // A certificate, PEM: the authority's own (self-signed, CA) or a leaf for `name`.
  Expected<std::string, std::string> certificate(bool ca, const std::string& name) {
    mbedtls_x509write_cert w;
    mbedtls_x509write_crt_init(&w);
    mbedtls_mpi serial;
    mbedtls_mpi_init(&serial);
    struct Free {
      mbedtls_x509write_cert* w;
      mbedtls_mpi* s;
      ~Free() {
        mbedtls_x509write_crt_free(w);
        mbedtls_mpi_free(s);
      }
    } free_them{&w, &serial};
    mbedtls_x509write_crt_set_version(&w, MBEDTLS_X509_CRT_VERSION_3);
    mbedtls_x509write_crt_set_md_alg(&w, MBEDTLS_MD_SHA256);
    mbedtls_x509write_crt_set_subject_key(&w, ca ? &ca_key : &leaf_key);
    mbedtls_x509write_crt_set_issuer_key(&w, &ca_key);
    int rc = mbedtls_mpi_fill_random(&serial, 16, mbedtls_ctr_drbg_random, &drbg);
    if (rc == 0) rc = mbedtls_mpi_set_bit(&serial, 127, 0);  // positive, as RFC 5280 asks
    if (rc == 0) rc = mbedtls_x509write_crt_set_serial(&w, &serial);
    if (rc == 0) rc = mbedtls_x509write_crt_set_issuer_name(&w, ca_subject.c_str());
    if (rc == 0) rc = mbedtls_x509write_crt_set_subject_name(&w, ca ? ca_subject.c_str() : ("CN=" + name).c_str());
    if (rc == 0) rc = mbedtls_x509write_crt_set_validity(&w, validity(-2).c_str(), validity(ca ? 30 : 7).c_str());
    if (rc == 0) rc = mbedtls_x509write_crt_set_basic_constraints(&w, ca ? 1 : 0, ca ? 0 : -1);
    if (rc == 0) rc = mbedtls_x509write_crt_set_subject_key_identifier(&w);
    if (rc == 0) rc = mbedtls_x509write_crt_set_authority_key_identifier(&w);
    if (rc == 0) {
      rc = mbedtls_x509write_crt_set_key_usage(
          &w, ca ? MBEDTLS_X509_KU_KEY_CERT_SIGN | MBEDTLS_X509_KU_CRL_SIGN : MBEDTLS_X509_KU_DIGITAL_SIGNATURE);
    }
    if (rc == 0 && !ca) {
      const std::string san = subject_alt_name(name);
      rc = mbedtls_x509write_crt_set_extension(&w, MBEDTLS_OID_SUBJECT_ALT_NAME,
                                               MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME), 0,
                                               reinterpret_cast<const unsigned char*>(san.data()), san.size());
      if (rc == 0) {
        const std::string eku =
            der(0x30, der(0x06, std::string(MBEDTLS_OID_SERVER_AUTH, MBEDTLS_OID_SIZE(MBEDTLS_OID_SERVER_AUTH))));
        rc = mbedtls_x509write_crt_set_extension(&w, MBEDTLS_OID_EXTENDED_KEY_USAGE,
                                                 MBEDTLS_OID_SIZE(MBEDTLS_OID_EXTENDED_KEY_USAGE), 0,
                                                 reinterpret_cast<const unsigned char*>(eku.data()), eku.size());
      }
    }
    if (rc != 0) return Unexpected(mbed_error("writing a certificate", rc));
    std::array<unsigned char, 4096> pem{};
    rc = mbedtls_x509write_crt_pem(&w, pem.data(), pem.size(), mbedtls_ctr_drbg_random, &drbg);
    if (rc != 0) return Unexpected(mbed_error("mbedtls_x509write_crt_pem", rc));
    return std::string(reinterpret_cast<const char*>(pem.data()));
  }
};

TlsAuthority::TlsAuthority() : impl_(std::make_unique<Impl>()) {}
TlsAuthority::~TlsAuthority() = default;

const std::string& TlsAuthority::ca_pem() const {
  return impl_->ca_pem;
}

Expected<std::unique_ptr<TlsAuthority>, std::string> TlsAuthority::create() {
  std::unique_ptr<TlsAuthority> a(new TlsAuthority());
  Impl& im = *a->impl_;
  static constexpr unsigned char kPersonal[] = "batlehub-behavior sink";
  if (int rc = mbedtls_ctr_drbg_seed(&im.drbg, mbedtls_entropy_func, &im.entropy, kPersonal, sizeof kPersonal);
      rc != 0) {
    return Unexpected(mbed_error("seeding the TLS sink's random generator", rc));
  }
  if (auto ok = im.new_key(im.ca_key); !ok) return Unexpected("the sink's CA key: " + ok.error());
  if (auto ok = im.new_key(im.leaf_key); !ok) return Unexpected("the sink's leaf key: " + ok.error());
  auto pem = im.certificate(true, "");
  if (!pem) return Unexpected("the sink's CA certificate: " + pem.error());
  im.ca_pem = std::move(*pem);
  return a;
}

struct TlsSession::Impl {
  TlsAuthority::Impl* authority = nullptr;
  int fd = -1;
  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  mbedtls_x509_crt chain;  // the leaf, then the authority's certificate
  std::string inbox;       // what the package sent that the session has not read yet
  State state = State::kHandshaking;
  std::string error;

  Impl() {
    mbedtls_ssl_config_init(&conf);
    mbedtls_ssl_init(&ssl);
    mbedtls_x509_crt_init(&chain);
  }
  ~Impl() {
    mbedtls_ssl_free(&ssl);
    mbedtls_ssl_config_free(&conf);
    mbedtls_x509_crt_free(&chain);
  }

  // The package's bytes come from the observer's reads (feed), never from the descriptor: one
  // reader of the stream, which also records it.
  static int receive(void* ctx, unsigned char* buf, std::size_t len) {
    auto* im = static_cast<Impl*>(ctx);
    if (im->inbox.empty()) return MBEDTLS_ERR_SSL_WANT_READ;
    const std::size_t n = std::min(len, im->inbox.size());
    std::memcpy(buf, im->inbox.data(), n);
    im->inbox.erase(0, n);
    return static_cast<int>(n);
  }
  static int send(void* ctx, const unsigned char* buf, std::size_t len) {
    auto* im = static_cast<Impl*>(ctx);
    const ssize_t n = ::send(im->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return MBEDTLS_ERR_SSL_WANT_WRITE;
    return MBEDTLS_ERR_NET_SEND_FAILED;
  }
};

TlsSession::TlsSession() : impl_(std::make_unique<Impl>()) {}
TlsSession::~TlsSession() = default;

Expected<std::unique_ptr<TlsSession>, std::string> TlsSession::create(TlsAuthority& authority, int fd,
                                                                      const std::string& name) {
  std::unique_ptr<TlsSession> s(new TlsSession());
  Impl& im = *s->impl_;
  im.authority = authority.impl_.get();
  im.fd = fd;
  std::string subject = certificate_name(name);
  if (subject.empty()) subject = "invalid.name.batlehub.test";
  auto leaf = im.authority->certificate(false, subject);
  if (!leaf) return Unexpected(leaf.error());
  const std::string both = *leaf + authority.ca_pem();
  if (int rc = mbedtls_x509_crt_parse(&im.chain, reinterpret_cast<const unsigned char*>(both.c_str()), both.size() + 1);
      rc != 0) {
    return Unexpected(mbed_error("parsing the minted certificate", rc));
  }
  int rc = mbedtls_ssl_config_defaults(&im.conf, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
                                       MBEDTLS_SSL_PRESET_DEFAULT);
  if (rc != 0) return Unexpected(mbed_error("mbedtls_ssl_config_defaults", rc));
  mbedtls_ssl_conf_rng(&im.conf, mbedtls_ctr_drbg_random, &im.authority->drbg);
  if (rc = mbedtls_ssl_conf_own_cert(&im.conf, &im.chain, &im.authority->leaf_key); rc != 0) {
    return Unexpected(mbed_error("mbedtls_ssl_conf_own_cert", rc));
  }
  if (rc = mbedtls_ssl_setup(&im.ssl, &im.conf); rc != 0) return Unexpected(mbed_error("mbedtls_ssl_setup", rc));
  mbedtls_ssl_set_bio(&im.ssl, &im, &Impl::send, &Impl::receive, nullptr);
  return s;
}

std::string TlsSession::feed(std::string_view bytes) {
  Impl& im = *impl_;
  std::string plain;
  im.inbox.append(bytes);
  if (im.state == State::kHandshaking) {
    const int rc = mbedtls_ssl_handshake(&im.ssl);
    if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) return plain;
    if (rc != 0) {
      im.state = State::kFailed;
      im.error = mbed_error("the handshake", rc);
      return plain;
    }
    im.state = State::kOpen;
  }
  while (im.state == State::kOpen) {
    std::array<unsigned char, 16384> buf{};
    const int rc = mbedtls_ssl_read(&im.ssl, buf.data(), buf.size());
    if (rc > 0) {
      plain.append(reinterpret_cast<const char*>(buf.data()), static_cast<std::size_t>(rc));
    } else if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) {
      break;
    } else {
      im.state = State::kClosed;  // close_notify, the end of the stream, or an error: over
    }
  }
  return plain;
}

void TlsSession::answer_and_close(std::string_view plain) {
  Impl& im = *impl_;
  if (im.state != State::kOpen) return;
  std::size_t done = 0;
  for (int tries = 0; done < plain.size() && tries < 16; ++tries) {
    const int rc =
        mbedtls_ssl_write(&im.ssl, reinterpret_cast<const unsigned char*>(plain.data()) + done, plain.size() - done);
    if (rc > 0) {
      done += static_cast<std::size_t>(rc);
    } else if (rc != MBEDTLS_ERR_SSL_WANT_WRITE && rc != MBEDTLS_ERR_SSL_WANT_READ) {
      break;
    }
  }
  (void)mbedtls_ssl_close_notify(&im.ssl);
  im.state = State::kClosed;
}

TlsSession::State TlsSession::state() const {
  return impl_->state;
}

const std::string& TlsSession::error() const {
  return impl_->error;
}

}  // namespace batlehub::behavior
