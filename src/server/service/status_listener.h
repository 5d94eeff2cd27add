// The worker-only process's HTTP listener (upstream-today.md §6, "/livez listener"): it
// serves exactly
//
//   GET /livez    200 "ok\n"                 the process is up; the chart's liveness probe
//   GET /metrics  200 text/plain 0.0.4       Metrics::scrape()
//
// and nothing else: any other path is 404, any other method on those two paths is 405. It
// never serves files. A worker's health is its heartbeat row, so there is no /healthz.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/expected.h"

struct mg_context;
struct mg_connection;

namespace batlehub::server {

class Metrics;

class StatusListener {
 public:
  // Listens on host:port, host a numeric IPv4 address (IPv6 "[::1]" only where the
  // system's civetweb was built with IPv6) and never anything else: no name is resolved
  // and no wildcard is added. Port 0 lets the kernel choose; port() says which it chose.
  // The error, on one line: "cannot listen on 127.0.0.1:8080: Address already in use".
  // `metrics` must outlive the listener.
  static Expected<std::unique_ptr<StatusListener>, std::string> start(const std::string& host, std::uint16_t port,
                                                                      const Metrics& metrics);

  // Stops listening and waits for the requests in flight: up to about two seconds, the
  // interval at which civetweb's accept loop notices it was told to stop.
  ~StatusListener();
  StatusListener(const StatusListener&) = delete;
  StatusListener& operator=(const StatusListener&) = delete;

  std::uint16_t port() const { return port_; }

 private:
  explicit StatusListener(const Metrics& metrics) : metrics_(metrics) {}

  static int handle(mg_connection* conn, void* self);
  static int log_message(const mg_connection* conn, const char* message);

  const Metrics& metrics_;
  mg_context* ctx_ = nullptr;
  std::uint16_t port_ = 0;

  // What civetweb said while starting, for the error; written on the starting thread only
  // while `starting_`, but civetweb's own threads may log too, hence the mutex.
  std::mutex start_mutex_;
  bool starting_ = true;
  std::string start_error_;
};

}  // namespace batlehub::server
