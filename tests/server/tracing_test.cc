// The worker's spans as data: the OTLP/JSON request (the shape an OpenTelemetry Collector's
// otlp receiver reads; worker_cli_test sends them to a real one) and the OTEL_* variables.
#include "server/service/tracing.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace batlehub::server {
namespace {

TEST(Tracing, ids_are_lower_hex_of_otlps_lengths_and_differ) {
  const std::string t = new_trace_id();
  const std::string s = new_span_id();
  EXPECT_EQ(t.size(), 32u);
  EXPECT_EQ(s.size(), 16u);
  EXPECT_EQ(t.find_first_not_of("0123456789abcdef"), std::string::npos) << t;
  EXPECT_EQ(s.find_first_not_of("0123456789abcdef"), std::string::npos) << s;
  EXPECT_NE(t, new_trace_id());
  EXPECT_NE(s, new_span_id());
}

TEST(Tracing, a_run_span_is_written_as_an_otlp_json_export_request) {
  Span run;
  run.trace_id = "0af7651916cd43dd8448eb211c80319c";
  run.span_id = "b7ad6b7169203331";
  run.parent_span_id = "00f067aa0ba902b7";
  run.name = "run";
  run.start = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  run.end = run.start + std::chrono::milliseconds(1500);
  run.attributes = {{"batlehub.runtime", "bwrap", std::nullopt}, {"batlehub.phase.run_seconds", "", 1.25}};
  run.error = true;
  run.status_message = "the scanner timed out";
  Span job;
  job.trace_id = run.trace_id;
  job.span_id = run.parent_span_id;
  job.name = "job";
  job.start = run.start;
  job.end = run.end;

  auto j = nlohmann::json::parse(otlp_traces_json("batlehub-worker", "123@host", {run, job}));
  const auto& rs = j["resourceSpans"][0];
  EXPECT_EQ(rs["resource"]["attributes"][0],
            (nlohmann::json{{"key", "service.name"}, {"value", {{"stringValue", "batlehub-worker"}}}}));
  EXPECT_EQ(rs["resource"]["attributes"][1]["value"]["stringValue"], "123@host");
  EXPECT_EQ(rs["scopeSpans"][0]["scope"]["name"], "batlehub");
  const auto& spans = rs["scopeSpans"][0]["spans"];
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0]["traceId"], run.trace_id);
  EXPECT_EQ(spans[0]["spanId"], run.span_id);
  EXPECT_EQ(spans[0]["parentSpanId"], run.parent_span_id);
  EXPECT_EQ(spans[0]["name"], "run");
  // 64-bit integers are strings in OTLP/JSON.
  EXPECT_EQ(spans[0]["startTimeUnixNano"], "1700000000000000000");
  EXPECT_EQ(spans[0]["endTimeUnixNano"], "1700000001500000000");
  EXPECT_EQ(spans[0]["attributes"][0],
            (nlohmann::json{{"key", "batlehub.runtime"}, {"value", {{"stringValue", "bwrap"}}}}));
  EXPECT_EQ(spans[0]["attributes"][1]["value"]["doubleValue"], 1.25);
  EXPECT_EQ(spans[0]["status"], (nlohmann::json{{"code", 2}, {"message", "the scanner timed out"}}));
  EXPECT_FALSE(spans[1].contains("parentSpanId"));  // the job's span is the trace's root
  EXPECT_EQ(spans[1]["status"], (nlohmann::json{{"code", 1}}));
}

TEST(Tracing, a_name_that_is_not_utf8_does_not_stop_the_export) {
  Span s;
  s.trace_id = new_trace_id();
  s.span_id = new_span_id();
  s.name = "run";
  s.attributes = {{"batlehub.scanner", std::string("bad\xff", 4), std::nullopt}};
  auto j = nlohmann::json::parse(otlp_traces_json("w", "i", {s}));
  EXPECT_EQ(j["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"][0]["value"]["stringValue"],
            "bad\xEF\xBF\xBD");
}

TEST(Tracing, the_standard_variables_say_where_spans_go_and_none_means_off) {
  std::string error;
  EXPECT_FALSE(trace_export_from(config::env_of({}), &error));
  EXPECT_EQ(error, "");

  auto base = trace_export_from(config::env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}}), &error);
  ASSERT_TRUE(base);
  EXPECT_EQ(base->url, "http://127.0.0.1:4318/v1/traces");
  EXPECT_EQ(base->service_name, "batlehub-worker");

  auto full = trace_export_from(config::env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1/"},
                                                {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://127.0.0.1:4318/x"},
                                                {"OTEL_SERVICE_NAME", "scan-worker-a"}}),
                                &error);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->url, "https://127.0.0.1:4318/x");  // the signal's own endpoint is taken as it is
  EXPECT_EQ(full->service_name, "scan-worker-a");

  EXPECT_FALSE(trace_export_from(
      config::env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}, {"OTEL_TRACES_EXPORTER", "none"}}),
      &error));
  EXPECT_EQ(error, "");

  EXPECT_FALSE(trace_export_from(config::env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "127.0.0.1:4317"}}), &error));
  EXPECT_EQ(error,
            "OTEL_EXPORTER_OTLP_ENDPOINT = \"127.0.0.1:4317\" is not an http(s):// URL (OTLP/HTTP "
            "is the one exporter)");
  EXPECT_FALSE(trace_export_from(
      config::env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"}, {"OTEL_TRACES_EXPORTER", "zipkin"}}),
      &error));
  EXPECT_EQ(error, "OTEL_TRACES_EXPORTER = \"zipkin\": only otlp (or none) is spoken");
}

}  // namespace
}  // namespace batlehub::server
