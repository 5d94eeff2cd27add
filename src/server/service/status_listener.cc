#include "server/service/status_listener.h"

#include <arpa/inet.h>
#include <civetweb.h>

#include <exception>
#include <mutex>
#include <string_view>
#include <utility>

#include "server/service/metrics.h"

namespace batlehub::server {

namespace {

constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kTextContentType = "text/plain; charset=utf-8";

void init_civetweb_once() {
  // mg_start would initialise the library itself on first use, but not thread-safely;
  // features 0: no TLS, so civetweb never loads OpenSSL on our behalf.
  static std::once_flag once;
  std::call_once(once, [] { mg_init_library(0); });
}

bool is_ipv4(const std::string& s) {
  in_addr a{};
  return ::inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool is_bracketed_ipv6(const std::string& s) {
  if (s.size() < 3 || s.front() != '[' || s.back() != ']') return false;
  in6_addr a{};
  return ::inet_pton(AF_INET6, s.substr(1, s.size() - 2).c_str(), &a) == 1;
}

// Why host cannot be given to civetweb as is, or "" when it can. Only a numeric address:
// a name would be resolved (to who knows what), an empty host would mean every interface,
// and civetweb reads ',' and a trailing 's' or 'r' as more of its own syntax.
std::string refuse_host(const std::string& host) {
  if (is_ipv4(host)) return "";
  if (is_bracketed_ipv6(host)) {
    return mg_check_feature(MG_FEATURES_IPV6) != 0 ? "" : "this system's civetweb was built without IPv6";
  }
  return "not a numeric IPv4 address or a bracketed IPv6 address";
}

// civetweb says "cannot bind to 127.0.0.1:8080: 98 (Address already in use)"; the
// address is in our own prefix already, so keep only the reason.
std::string reason_from(const std::string& civetweb_message) {
  if (civetweb_message.empty()) return "civetweb could not start";
  const auto open = civetweb_message.rfind('(');
  if (civetweb_message.starts_with("cannot bind to") && open != std::string::npos && civetweb_message.back() == ')') {
    return civetweb_message.substr(open + 1, civetweb_message.size() - open - 2);
  }
  return civetweb_message;
}

int reply(mg_connection* conn, int status, std::string_view content_type, std::string_view body,
          const char* allow = nullptr) {
  mg_response_header_start(conn, status);
  mg_response_header_add(conn, "Content-Type", content_type.data(), static_cast<int>(content_type.size()));
  const std::string length = std::to_string(body.size());
  mg_response_header_add(conn, "Content-Length", length.c_str(), -1);
  if (allow != nullptr) mg_response_header_add(conn, "Allow", allow, -1);
  mg_response_header_send(conn);
  // A HEAD response carries the GET's headers and no body (RFC 9110 §9.3.2).
  const char* method = mg_get_request_info(conn)->request_method;
  if (method == nullptr || std::string_view(method) != "HEAD") mg_write(conn, body.data(), body.size());
  return status;
}

}  // namespace

Expected<std::unique_ptr<StatusListener>, std::string> StatusListener::start(const std::string& host,
                                                                             std::uint16_t port,
                                                                             const Metrics& metrics) {
  const std::string where = host + ":" + std::to_string(port);
  const auto fail = [&where](const std::string& reason) {
    return Unexpected("cannot listen on " + where + ": " + reason);
  };
  if (const std::string refused = refuse_host(host); !refused.empty()) return fail(refused);

  init_civetweb_once();
  std::unique_ptr<StatusListener> self(new StatusListener(metrics));
  // No document_root: civetweb serves no file, no directory, no CGI. Keep-alive off and a
  // short request timeout: the clients are a probe and a scraper, and two threads suffice
  // for them without letting a slow client hold the worker's liveness probe for long.
  // clang-format off
  const char* options[] = {
      "listening_ports",             where.c_str(),
      "num_threads",                 "2",
      "request_timeout_ms",          "10000",
      "enable_keep_alive",           "no",
      "enable_directory_listing",    "no",
      "access_control_allow_origin", "",
      nullptr};
  // clang-format on
  mg_callbacks callbacks{};
  // begin_request rather than mg_set_request_handler: it is in place before the first
  // connection is accepted, and it comes before civetweb's own handling (CORS preflight,
  // files), so every request is answered here.
  callbacks.begin_request = [](mg_connection* conn) { return handle(conn, mg_get_request_info(conn)->user_data); };
  callbacks.log_message = &StatusListener::log_message;

  self->ctx_ = mg_start(&callbacks, self.get(), options);
  {
    std::lock_guard lock(self->start_mutex_);
    self->starting_ = false;
  }
  if (self->ctx_ == nullptr) return fail(reason_from(self->start_error_));

  mg_server_port ports[2]{};
  if (mg_get_server_ports(self->ctx_, 2, ports) < 1) return fail("civetweb reports no listening port");
  self->port_ = static_cast<std::uint16_t>(ports[0].port);
  return self;
}

StatusListener::~StatusListener() {
  if (ctx_ != nullptr) mg_stop(ctx_);
}

int StatusListener::handle(mg_connection* conn, void* self_ptr) {
  const auto* self = static_cast<const StatusListener*>(self_ptr);
  const mg_request_info* req = mg_get_request_info(conn);
  const std::string_view path = req->local_uri != nullptr ? req->local_uri : "";
  const std::string_view method = req->request_method != nullptr ? req->request_method : "";

  const bool livez = path == "/livez";
  const bool metrics = path == "/metrics";
  if (!livez && !metrics) return reply(conn, 404, kTextContentType, "not found\n");
  if (method != "GET") return reply(conn, 405, kTextContentType, "method not allowed\n", "GET");
  if (livez) return reply(conn, 200, kTextContentType, "ok\n");
  try {
    return reply(conn, 200, kMetricsContentType, self->metrics_.scrape());
  } catch (const std::exception&) {
    // This runs on a civetweb thread, where an exception would end the process.
    return reply(conn, 500, kTextContentType, "metrics unavailable\n");
  }
}

int StatusListener::log_message(const mg_connection* conn, const char* message) {
  if (conn == nullptr || message == nullptr) return 1;
  auto* self = static_cast<StatusListener*>(mg_get_user_data(mg_get_context(conn)));
  if (self == nullptr) return 1;
  std::lock_guard lock(self->start_mutex_);
  // The first message is the cause ("cannot bind to …"); civetweb's summary follows it.
  if (self->starting_ && self->start_error_.empty()) self->start_error_ = message;
  // 1 = handled: civetweb would otherwise print to stderr. After start, what it logs is a
  // client's broken connection, which nobody acts on.
  return 1;
}

}  // namespace batlehub::server
