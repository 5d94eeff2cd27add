#include "behavior/trace.h"

#include <nlohmann/json.hpp>

namespace batlehub::behavior {

std::string to_string(EventKind k) {
  switch (k) {
    case EventKind::kExec:
      return "exec";
    case EventKind::kConnect:
      return "connect";
    case EventKind::kDnsQuery:
      return "dns";
    case EventKind::kStream:
      return "stream";
    case EventKind::kDatagram:
      return "datagram";
    case EventKind::kDecoyOpen:
      return "decoy-open";
    case EventKind::kWrite:
      return "write";
    case EventKind::kLeftRunning:
      return "left-running";
    case EventKind::kLimit:
      return "limit";
  }
  return "?";
}

namespace {

nlohmann::json event_json(const Event& e) {
  nlohmann::json j{{"kind", to_string(e.kind)}, {"phase", e.phase}};
  if (e.pid != 0) j["pid"] = e.pid;
  auto put = [&](const char* key, const std::string& v) {
    if (!v.empty()) j[key] = v;
  };
  put("path", e.path);
  put("resolved", e.resolved);
  if (!e.argv.empty()) j["argv"] = e.argv;
  put("family", e.family);
  put("address", e.address);
  if (e.port != 0) j["port"] = e.port;
  put("host", e.host);
  put("qtype", e.qtype);
  put("protocol", e.protocol);
  put("request_line", e.request_line);
  put("head", e.head);
  if (e.kind == EventKind::kStream) j["bytes"] = e.bytes;
  if (e.stream) j["stream"] = *e.stream;
  put("decoy", e.decoy);
  if (e.write) j["write"] = true;
  if (e.canary) j["canary"] = true;
  if (e.identity) j["identity"] = true;
  if (e.written) j["written"] = true;
  if (e.kind == EventKind::kLeftRunning || e.kind == EventKind::kLimit) j["count"] = e.count;
  put("what", e.what);
  put("view", e.view);
  put("stdin", e.stdin_kind);
  return j;
}

}  // namespace

std::string to_json(const Trace& t) {
  nlohmann::json phases = nlohmann::json::array();
  for (const PhaseRecord& p : t.phases) {
    nlohmann::json j{
        {"phase", p.phase}, {"argv", p.argv}, {"started", p.started}, {"timed_out", p.timed_out}, {"ms", p.ms}};
    if (p.exit_code) j["exit_code"] = *p.exit_code;
    if (p.signal) j["signal"] = *p.signal;
    if (!p.output_tail.empty()) j["output_tail"] = p.output_tail;
    if (!p.error.empty()) j["error"] = p.error;
    if (!p.view.empty()) j["view"] = p.view;
    phases.push_back(std::move(j));
  }
  nlohmann::json events = nlohmann::json::array();
  for (const Event& e : t.events) events.push_back(event_json(e));
  nlohmann::json doc{
      {"behavior", 1}, {"ecosystem", t.ecosystem}, {"phases", std::move(phases)}, {"events", std::move(events)}};
  // The strings are a package's bytes: invalid UTF-8 becomes U+FFFD rather than an exception.
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace batlehub::behavior
