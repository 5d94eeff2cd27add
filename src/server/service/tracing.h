// The worker's spans (RFC 0022 §6.6: "one per run, with the runtime, the scanner, the image and
// the pod or container name as fields, so a stuck pod is found from a trace"), exported over
// OTLP/HTTP with the JSON encoding to whatever the operator's environment names the way every
// OpenTelemetry SDK reads it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL), else
// OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces"; OTEL_SERVICE_NAME; OTEL_TRACES_EXPORTER=none turns
// it off. Off unless configured: no variable, no exporter, nothing sent.
//
// Debian packages no OpenTelemetry C++ SDK, and what a worker sends is one request shape: the
// JSON is written here with nlohmann-json and POSTed through the worker's one HTTP client. A
// job is a trace: its span is the root, each of its runs a child. The trace id is in the log
// lines (`trace_id=`), so a line leads to its trace and back.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/env.h"

namespace batlehub::server {

// 32 and 16 lower-case hex digits from the kernel's random source, never all zero (OTLP's
// "invalid" id).
std::string new_trace_id();
std::string new_span_id();

struct SpanAttribute {
  std::string key;
  // One of the two: OTLP's stringValue or doubleValue.
  std::string text;
  std::optional<double> number;
};

struct Span {
  std::string trace_id;
  std::string span_id;
  std::string parent_span_id;  // "" = a root span
  std::string name;            // "job", "run"
  std::chrono::system_clock::time_point start;
  std::chrono::system_clock::time_point end;
  std::vector<SpanAttribute> attributes;
  bool error = false;  // OTLP's STATUS_CODE_ERROR, with `status_message`; else STATUS_CODE_OK
  std::string status_message;
};

// An ExportTraceServiceRequest in OTLP/JSON: one resource (service.name, the worker's id as
// service.instance.id), one scope ("batlehub"), the spans. A pure function, tested as data.
std::string otlp_traces_json(const std::string& service_name, const std::string& instance,
                             const std::vector<Span>& spans);

// Where spans go, as the OTEL_* variables say; nullopt = tracing off.
struct TraceExport {
  std::string url;  // http(s)://…/v1/traces
  std::string service_name = "batlehub-worker";
};
// The standard variables, read the standard way. An endpoint that is not http(s):// is an
// error naming the variable (a worker that was asked to trace and cannot is not started
// silently without).
std::optional<TraceExport> trace_export_from(const core::Env& env, std::string* error);

// Spans queued by the worker's threads and sent by one of its own, in batches (every second,
// or at kBatch spans), so that a run never waits on the collector. The queue is bounded: past
// kMaxQueued a span is dropped and counted, never a reason to block or to grow. A failed
// POST is logged once per failing streak and its batch dropped. Destruction sends what is
// queued, unless the last POST failed: then it is dropped (and said), so that a collector
// that does not answer never holds the worker's exit for a timeout per batch.
class SpanExporter {
 public:
  static constexpr std::size_t kBatch = 256;
  static constexpr std::size_t kMaxQueued = 4096;

  SpanExporter(TraceExport where, std::string instance);
  ~SpanExporter();
  SpanExporter(const SpanExporter&) = delete;
  SpanExporter& operator=(const SpanExporter&) = delete;

  void add(Span span);
  const TraceExport& where() const { return where_; }
  std::uint64_t dropped() const;

 private:
  void loop(std::stop_token stop);
  void send(std::vector<Span> batch);

  TraceExport where_;
  std::string instance_;
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  std::deque<Span> queued_;
  std::uint64_t dropped_ = 0;
  bool failing_ = false;
  std::jthread thread_;
};

}  // namespace batlehub::server
