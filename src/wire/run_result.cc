#include "wire/run_result.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include "base/names.h"
#include "wire/caps.h"
#include "wire/json_reader.h"

namespace batlehub::wire {

using nlohmann::json;
using detail::ObjectReader;
using detail::refuse;
using detail::refuse_version;

namespace {

using base::Names;
using base::name_of;
using base::value_of;

constexpr Names<FailureKind, 14> kFailureNames{{
    {FailureKind::kManifestInvalid, "manifest_invalid"},
    {FailureKind::kWireVersion, "wire_version"},
    {FailureKind::kFetch, "fetch"},
    {FailureKind::kInputSize, "input_size"},
    {FailureKind::kWrite, "write"},
    {FailureKind::kTraversal, "traversal"},
    {FailureKind::kTooManyEntries, "too_many_entries"},
    {FailureKind::kTooLarge, "too_large"},
    {FailureKind::kBomb, "bomb"},
    {FailureKind::kUnrecognised, "unrecognised"},
    {FailureKind::kMalformed, "malformed"},
    {FailureKind::kCommandNotFound, "command_not_found"},
    {FailureKind::kSpawn, "spawn"},
    {FailureKind::kInternal, "internal"},
}};

constexpr Names<Check, 19> kCheckNames{{
    {Check::kNoNetwork, "no_network"},
    {Check::kReadOnlyRoot, "read_only_root"},
    {Check::kOneWritableDir, "one_writable_dir"},
    {Check::kEmptyEnvironment, "empty_environment"},
    {Check::kUnprivileged, "unprivileged"},
    {Check::kNoCredentials, "no_credentials"},
    {Check::kNoShell, "no_shell"},
    {Check::kCommandsExist, "commands_exist"},
    {Check::kWireVersion, "wire_version"},
    {Check::kPidNamespace, "pid_namespace"},
    {Check::kSeccompFilter, "seccomp_filter"},
    {Check::kNoNewPrivs, "no_new_privs"},
    {Check::kCanarySyscall, "canary_syscall"},
    {Check::kClone3Enosys, "clone3_enosys"},
    {Check::kRlimits, "rlimits"},
    {Check::kMemoryBounded, "memory_bounded"},
    {Check::kPidsBounded, "pids_bounded"},
    {Check::kAgentUnreachable, "agent_unreachable"},
    {Check::kLandlock, "landlock"},
}};

constexpr Names<AssertionVerdict, 3> kVerdictNames{{
    {AssertionVerdict::kPass, "pass"},
    {AssertionVerdict::kFail, "fail"},
    {AssertionVerdict::kWarn, "warn"},
}};

template <class E, std::size_t N>
E read_enum(const Names<E, N>& names, ObjectReader& r, std::string_view key) {
  std::string s = r.string(key, 64);
  auto v = value_of(names, s);
  if (!v) refuse(r.path(key), "'" + s + "' is not a value this wire version knows");
  return *v;
}

// Bytes, not characters: 2000 characters of UTF-8 are at most 8000 bytes.
constexpr std::size_t kStderrTailMaxBytes = kStderrTailChars * 4;
constexpr std::size_t kEvidenceMaxBytes = 4096;
// uname's four fields are at most 65 bytes each (struct utsname), with three spaces.
constexpr std::size_t kKernelMaxBytes = 4 * 65 + 3;
constexpr std::size_t kMessageMaxBytes = 8192;
constexpr std::size_t kMaxLoweredRlimits = std::size(kRlimitNames);

RunResult read_result(const json& doc) {
  ObjectReader r(doc, "");
  RunResult out;
  const json& wire = r.required("wire");
  if (!wire.is_number_integer()) refuse("/wire", "expected an integer");
  if (wire.get<std::int64_t>() != kWireVersion) {
    refuse_version("the worker speaks wire version " + std::to_string(kWireVersion) + ", the agent answered in " +
                   wire.dump());
  }
  out.wire = kWireVersion;
  out.agent_version = r.string("agent_version", 64);
  out.ran = r.boolean("ran");
  if (const json* v = r.optional("exit_code")) {
    if (!v->is_number_integer()) refuse("/exit_code", "expected an integer");
    auto c = v->get<std::int64_t>();
    if (c < 0 || c > 255) refuse("/exit_code", "must be 0..255");
    out.exit_code = static_cast<int>(c);
  }
  if (const json* v = r.optional("signal")) {
    out.signal = static_cast<int>(detail::as_u64(*v, "/signal", 64));
    if (*out.signal == 0) refuse("/signal", "must be 1..64");
  }
  if (out.exit_code && out.signal) refuse("/signal", "a process that exited was not also killed");
  out.timed_out = r.boolean("timed_out");
  out.stdout_bytes = r.u64("stdout_bytes", kStdoutCapBytes);
  out.stdout_over_cap = r.boolean("stdout_over_cap");
  if (const json* v = r.optional("oom_kills")) out.oom_kills = detail::as_u64(*v, "/oom_kills", UINT32_MAX);
  out.stderr_tail = r.string("stderr_tail", kStderrTailMaxBytes);
  if (r.optional("rlimits_lowered") != nullptr) {
    const json& ls = r.array("rlimits_lowered", kMaxLoweredRlimits);
    for (std::size_t i = 0; i < ls.size(); ++i) {
      ObjectReader lr(ls[i], "/rlimits_lowered/" + std::to_string(i));
      LoweredRlimit l;
      l.resource = lr.string("resource", 32);
      if (std::find_if(std::begin(kRlimitNames), std::end(kRlimitNames),
                       [&](const char* n) { return l.resource == n; }) == std::end(kRlimitNames)) {
        refuse(lr.path("resource"), "'" + l.resource + "' is not a limit this wire version knows");
      }
      l.asked = lr.u64("asked", UINT64_MAX);
      l.applied = lr.u64("applied", UINT64_MAX);
      if (l.applied >= l.asked)
        refuse(lr.path("applied"), "must be below what was asked (a limit is only ever lowered)");
      lr.finish();
      out.rlimits_lowered.push_back(std::move(l));
    }
  }
  {
    ObjectReader e(r.object("extract"), "/extract");
    out.extract.files = e.u64("files", UINT64_MAX);
    out.extract.directories = e.u64("directories", UINT64_MAX);
    out.extract.bytes = e.u64("bytes", UINT64_MAX);
    out.extract.refused_by_type = e.u64("refused_by_type", UINT64_MAX);
    out.extract.nested_archives = e.u64("nested_archives", UINT64_MAX);
    e.finish();
  }
  {
    ObjectReader t(r.object("timings_ms"), "/timings_ms");
    out.timings.fetch_ms = t.u64("fetch", UINT64_MAX);
    out.timings.extract_ms = t.u64("extract", UINT64_MAX);
    out.timings.run_ms = t.u64("run", UINT64_MAX);
    t.finish();
  }
  if (const json* f = r.optional("failure")) {
    ObjectReader fr(*f, "/failure");
    Failure fail;
    fail.kind = read_enum(kFailureNames, fr, "kind");
    fail.message = fr.string("message", kMessageMaxBytes);
    fr.finish();
    out.failure = std::move(fail);
  }
  if (const json* p = r.optional("probe")) {
    ObjectReader pr(*p, "/probe");
    AgentProbeReport report;
    const json& as = pr.array("assertions", 64);
    for (std::size_t i = 0; i < as.size(); ++i) {
      ObjectReader ar(as[i], "/probe/assertions/" + std::to_string(i));
      Assertion a;
      a.check = read_enum(kCheckNames, ar, "check");
      a.verdict = read_enum(kVerdictNames, ar, "verdict");
      a.evidence = ar.string("evidence", kEvidenceMaxBytes);
      ar.finish();
      report.assertions.push_back(std::move(a));
    }
    const json& cs = pr.array("commands", kMaxProbeCommands);
    for (std::size_t i = 0; i < cs.size(); ++i) {
      ObjectReader cr(cs[i], "/probe/commands/" + std::to_string(i));
      CommandDigest c;
      c.path = cr.string("path", 4096);
      c.sha256 = cr.string("sha256", 64);
      c.size = cr.u64("size", UINT64_MAX);
      cr.finish();
      report.commands.push_back(std::move(c));
    }
    report.kernel = pr.string("kernel", kKernelMaxBytes);
    pr.finish();
    out.probe = std::move(report);
  }
  r.finish();
  return out;
}

}  // namespace

std::string_view to_string(FailureKind k) { return name_of(kFailureNames, k); }
std::string_view to_string(Check c) { return name_of(kCheckNames, c); }
std::string_view to_string(AssertionVerdict v) { return name_of(kVerdictNames, v); }
std::optional<Check> check_from_string(std::string_view s) { return value_of(kCheckNames, s); }

std::vector<Check> every_check() {
  std::vector<Check> out;
  for (const auto& [c, name] : kCheckNames) out.push_back(c);
  return out;
}

Expected<RunResult, WireError> parse_result(std::string_view text) {
  auto doc = detail::parse_bounded(text, kResultMaxBytes, kMaxJsonDepth);
  if (!doc) return Unexpected(std::move(doc).error());
  try {
    return read_result(*doc);
  } catch (const detail::Refusal& r) {
    return Unexpected(r.error);
  }
}

std::string serialize(const RunResult& r) {
  json doc = {
      {"wire", r.wire},
      {"agent_version", r.agent_version},
      {"ran", r.ran},
      {"exit_code", r.exit_code ? json(*r.exit_code) : json(nullptr)},
      {"signal", r.signal ? json(*r.signal) : json(nullptr)},
      {"timed_out", r.timed_out},
      {"stdout_bytes", r.stdout_bytes},
      {"stdout_over_cap", r.stdout_over_cap},
      {"oom_kills", r.oom_kills},
      {"stderr_tail", r.stderr_tail},
      {"extract",
       {{"files", r.extract.files},
        {"directories", r.extract.directories},
        {"bytes", r.extract.bytes},
        {"refused_by_type", r.extract.refused_by_type},
        {"nested_archives", r.extract.nested_archives}}},
      {"timings_ms", {{"fetch", r.timings.fetch_ms}, {"extract", r.timings.extract_ms}, {"run", r.timings.run_ms}}},
      {"failure", r.failure ? json{{"kind", to_string(r.failure->kind)}, {"message", r.failure->message}}
                            : json(nullptr)},
  };
  // Only when some limit was lowered: a result without is what a reader from before this key
  // reads (docs/wire-format.md).
  if (!r.rlimits_lowered.empty()) {
    json ls = json::array();
    for (const auto& l : r.rlimits_lowered) {
      ls.push_back({{"resource", l.resource}, {"asked", l.asked}, {"applied", l.applied}});
    }
    doc["rlimits_lowered"] = std::move(ls);
  }
  if (r.probe) {
    json as = json::array();
    for (const auto& a : r.probe->assertions) {
      as.push_back({{"check", to_string(a.check)}, {"verdict", to_string(a.verdict)}, {"evidence", a.evidence}});
    }
    json cs = json::array();
    for (const auto& c : r.probe->commands) cs.push_back({{"path", c.path}, {"sha256", c.sha256}, {"size", c.size}});
    doc["probe"] = {{"assertions", std::move(as)}, {"commands", std::move(cs)}, {"kernel", r.probe->kernel}};
  } else {
    doc["probe"] = nullptr;
  }
  // Invalid UTF-8 (a scanner's stderr, a hostile environment value) is replaced, not fatal.
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace batlehub::wire
