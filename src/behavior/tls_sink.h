// The sink's TLS server: a package that sends what it collected over HTTPS (a webhook, an
// API) is read in the clear, as one that sends it over HTTP is. Each detonation makes its own
// certificate authority — an ECDSA P-256 key that lives only in the observer's memory (it is
// undumpable) — whose certificate the room's clients are given to trust (detonate.cc: the
// file <work>/tls/ca.pem, named by SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE and
// NODE_EXTRA_CA_CERTS, and the room's /etc/ssl/certs/ca-certificates.crt, a link to it). A
// connection gets a certificate minted for the name it asked for (SNI), or for the address it
// connected to. A client that brings its own trust (a pinned key, its own bundle) refuses the
// handshake; the stream then says so, with the name it asked for, and nothing more is read.
//
// mbedTLS 2.28, the agent's TLS library (static, no provider tables): TLS 1.2, which every
// client in the room offers. Nothing here touches a network: the session's descriptor is the
// observer's end of the package's socket pair.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/expected.h"

namespace batlehub::behavior {

class TlsAuthority {
 public:
  static Expected<std::unique_ptr<TlsAuthority>, std::string> create();
  ~TlsAuthority();
  TlsAuthority(const TlsAuthority&) = delete;
  TlsAuthority& operator=(const TlsAuthority&) = delete;

  // The authority's certificate, PEM: what the room's clients trust for this run.
  const std::string& ca_pem() const;

  struct Impl;

 private:
  friend class TlsSession;
  TlsAuthority();
  std::unique_ptr<Impl> impl_;
};

// The server side of one connection, over the observer's non-blocking end of it. The observer
// reads the descriptor and hands the session what it read (feed); the session writes its
// handshake and the answer to the descriptor itself.
class TlsSession {
 public:
  // `name`: the server name the client asked for, else the address it connected to; what the
  // certificate is minted for. A name that is not a host name gets a certificate no client
  // accepts, and the handshake fails as it would against a stranger.
  static Expected<std::unique_ptr<TlsSession>, std::string> create(TlsAuthority& authority, int fd,
                                                                   const std::string& name);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  enum class State { kHandshaking, kOpen, kClosed, kFailed };

  // Takes bytes the package sent; returns what they carried in the clear (nothing while the
  // handshake goes on).
  std::string feed(std::string_view bytes);
  // Sends `plain` to the package over the session, then close_notify: the sink's answer.
  void answer_and_close(std::string_view plain);
  State state() const;
  // Why kFailed: mbedTLS's words for what ended the handshake (a client that refused the
  // certificate sends an alert: "SSL - A fatal alert message was received from our peer").
  const std::string& error() const;

  struct Impl;

 private:
  TlsSession();
  std::unique_ptr<Impl> impl_;
};

// A name fit for a certificate's subject: letters, digits, '-', '.', '_' and '*', at most
// 253 bytes; anything else (a package's name is hostile bytes) is refused with "".
std::string certificate_name(std::string_view name);

}  // namespace batlehub::behavior
