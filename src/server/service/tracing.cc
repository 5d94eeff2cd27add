#include "server/service/tracing.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "adapters/http/http_client.h"
#include "server/root/log.h"

namespace batlehub::server {

namespace {

std::string random_hex(std::size_t bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  unsigned char raw[16];
  do {
    std::size_t got = 0;
    while (got < bytes) {
      const ssize_t n = ::getrandom(raw + got, bytes - got, 0);
      if (n > 0) {
        got += static_cast<std::size_t>(n);
      } else if (n < 0 && errno != EINTR) {
        // Ids are for finding a trace, not secrets: a kernel that refuses getrandom(2) gets
        // ids from the clock and the address of a local, logged once.
        static std::once_flag once;
        std::call_once(once,
                       [] { logger("trace")->warn("getrandom: {}: span ids from the clock", std::strerror(errno)); });
        const auto t = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                       reinterpret_cast<std::uintptr_t>(&out);
        for (std::size_t i = got; i < bytes; ++i) raw[i] = static_cast<unsigned char>(t >> ((i % 8) * 8));
        got = bytes;
      }
    }
    out.clear();
    for (std::size_t i = 0; i < bytes; ++i) {
      out += kHex[raw[i] >> 4];
      out += kHex[raw[i] & 0xf];
    }
  } while (out.find_first_not_of('0') == std::string::npos);
  return out;
}

std::string nanos(std::chrono::system_clock::time_point t) {
  // OTLP/JSON writes 64-bit integers as strings.
  return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

nlohmann::json string_attribute(const std::string& key, const std::string& value) {
  return {{"key", key}, {"value", {{"stringValue", value}}}};
}

}  // namespace

std::string new_trace_id() {
  return random_hex(16);
}
std::string new_span_id() {
  return random_hex(8);
}

std::string otlp_traces_json(const std::string& service_name, const std::string& instance,
                             const std::vector<Span>& spans) {
  nlohmann::json out_spans = nlohmann::json::array();
  for (const Span& s : spans) {
    nlohmann::json attributes = nlohmann::json::array();
    for (const SpanAttribute& a : s.attributes) {
      if (a.number) {
        attributes.push_back({{"key", a.key}, {"value", {{"doubleValue", *a.number}}}});
      } else {
        attributes.push_back(string_attribute(a.key, a.text));
      }
    }
    nlohmann::json span = {{"traceId", s.trace_id},
                           {"spanId", s.span_id},
                           {"name", s.name},
                           {"kind", 1},  // SPAN_KIND_INTERNAL
                           {"startTimeUnixNano", nanos(s.start)},
                           {"endTimeUnixNano", nanos(s.end)},
                           {"attributes", std::move(attributes)}};
    if (!s.parent_span_id.empty()) span["parentSpanId"] = s.parent_span_id;
    // STATUS_CODE_OK = 1, STATUS_CODE_ERROR = 2.
    span["status"] = s.error ? nlohmann::json{{"code", 2}, {"message", s.status_message}} : nlohmann::json{{"code", 1}};
    out_spans.push_back(std::move(span));
  }
  nlohmann::json resource = {
      {"attributes",
       {string_attribute("service.name", service_name), string_attribute("service.instance.id", instance)}}};
  nlohmann::json request = {
      {"resourceSpans",
       {{{"resource", std::move(resource)},
         {"scopeSpans", {{{"scope", {{"name", "batlehub"}}}, {"spans", std::move(out_spans)}}}}}}}};
  // Span fields hold names from the configuration and the queue: never let one stop the dump.
  return request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<TraceExport> trace_export_from(const core::Env& env, std::string* error) {
  auto get = [&](const char* k) { return env ? env(k).value_or("") : std::string(); };
  const std::string exporter = get("OTEL_TRACES_EXPORTER");
  if (exporter == "none") return std::nullopt;
  TraceExport out;
  std::string from = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
  std::string given = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  out.url = given;
  if (given.empty()) {
    // The signal-less endpoint is a base: the SDKs append the signal's path to it.
    from = "OTEL_EXPORTER_OTLP_ENDPOINT";
    given = get("OTEL_EXPORTER_OTLP_ENDPOINT");
    if (given.empty()) return std::nullopt;
    out.url = given + (given.ends_with('/') ? "" : "/") + "v1/traces";
  }
  if (!given.starts_with("http://") && !given.starts_with("https://")) {
    if (error != nullptr)
      *error = from + " = \"" + given + "\" is not an http(s):// URL (OTLP/HTTP is the one exporter)";
    return std::nullopt;
  }
  if (!exporter.empty() && exporter != "otlp") {
    if (error != nullptr) *error = "OTEL_TRACES_EXPORTER = \"" + exporter + "\": only otlp (or none) is spoken";
    return std::nullopt;
  }
  if (const std::string name = get("OTEL_SERVICE_NAME"); !name.empty()) out.service_name = name;
  return out;
}

SpanExporter::SpanExporter(TraceExport where, std::string instance)
    : where_(std::move(where)), instance_(std::move(instance)), thread_([this](std::stop_token st) { loop(st); }) {}

SpanExporter::~SpanExporter() {
  thread_.request_stop();
  wake_.notify_all();
  thread_.join();
}

void SpanExporter::add(Span span) {
  {
    std::lock_guard lock(mu_);
    if (queued_.size() >= kMaxQueued) {
      ++dropped_;
      return;
    }
    queued_.push_back(std::move(span));
    if (queued_.size() < kBatch) return;
  }
  wake_.notify_all();
}

std::uint64_t SpanExporter::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void SpanExporter::loop(std::stop_token stop) {
  while (true) {
    std::vector<Span> batch;
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, stop, std::chrono::seconds(1), [&] { return queued_.size() >= kBatch; });
      const std::size_t n = std::min(queued_.size(), kBatch);
      for (std::size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queued_.front()));
        queued_.pop_front();
      }
      // On stop, what is left goes out in as many batches as it takes, then the thread ends;
      // unless the collector is not answering, when one try each would hold the worker's exit
      // for a timeout per batch: what is left is dropped, and said.
      if (stop.stop_requested() && failing_ && !batch.empty()) {
        const std::size_t left = batch.size() + queued_.size();
        dropped_ += left;
        queued_.clear();
        logger("trace")->warn("{} span(s) dropped at exit: the collector is not answering", left);
        return;
      }
      if (batch.empty() && stop.stop_requested()) return;
    }
    if (!batch.empty()) send(std::move(batch));
  }
}

void SpanExporter::send(std::vector<Span> batch) {
  static const http::Client client;
  http::Request r;
  r.method = "POST";
  r.url = where_.url;
  r.headers = {{"Content-Type", "application/json"}};
  r.body = otlp_traces_json(where_.service_name, instance_, batch);
  r.timeout = std::chrono::seconds(10);
  r.connect_timeout = std::chrono::seconds(5);
  r.max_body = 64 * 1024;  // an ExportTraceServiceResponse: a partial-success note at most
  r.max_error_body = 1024;
  auto answer = client.send(r);
  std::string why;
  if (!answer) {
    why = answer.error().message;
  } else if (answer->status < 200 || answer->status > 299) {
    why = "POST " + where_.url + ": HTTP " + std::to_string(answer->status) + " " + answer->body.substr(0, 200);
  }
  if (why.empty()) {
    if (failing_) logger("trace")->info("spans reach {} again", where_.url);
    failing_ = false;
    return;
  }
  if (!failing_) {
    logger("trace")->warn("{} span(s) not exported (logged once until an export succeeds): {}", batch.size(), why);
  }
  failing_ = true;
}

}  // namespace batlehub::server
