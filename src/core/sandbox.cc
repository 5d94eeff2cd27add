#include "core/sandbox.h"

#include "base/names.h"
#include "wire/caps.h"

namespace batlehub::core {

Expected<wire::Manifest, SandboxError> manifest_for(const RunSpec& spec, const InputUrl& url_of) {
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.argv = spec.argv;
  m.network = spec.network;
  m.limits = spec.limits.rlimits();
  m.timeout_ms = static_cast<std::uint64_t>(spec.timeout.count());
  m.extract_policy = spec.limits.extract_policy();
  int n = 0;
  for (const BundleEntry& e : spec.bundle.entries) {
    wire::Entry w;
    w.kind = e.kind;
    w.path = e.path;
    if (e.kind == wire::EntryKind::kInline) {
      w.bytes = e.bytes;
    } else {
      if (!e.blob)
        return Unexpected(SandboxError{SandboxError::Kind::kConfig, "entry '" + e.path.str() + "' has no blob"});
      auto url = url_of(e, n++);
      if (!url) return Unexpected(url.error());
      w.url = std::move(*url);
      w.size = e.blob->size();
      w.strip_wrapper = e.strip_wrapper;
      if (e.kind == wire::EntryKind::kArchive) w.descend = e.descend;
    }
    m.entries.push_back(std::move(w));
  }
  return m;
}

BundleEntry BundleEntry::inline_file(wire::RelPath p, std::string b) {
  BundleEntry e;
  e.kind = wire::EntryKind::kInline;
  e.path = std::move(p);
  e.bytes = std::move(b);
  return e;
}

BundleEntry BundleEntry::file(wire::RelPath p, std::shared_ptr<const Blob> blob) {
  BundleEntry e;
  e.kind = wire::EntryKind::kFile;
  e.path = std::move(p);
  e.blob = std::move(blob);
  return e;
}

BundleEntry BundleEntry::archive(wire::RelPath p, std::shared_ptr<const Blob> blob, bool strip_wrapper,
                                 std::optional<wire::RelPath> descend) {
  BundleEntry e;
  e.kind = wire::EntryKind::kArchive;
  e.path = std::move(p);
  e.blob = std::move(blob);
  e.strip_wrapper = strip_wrapper;
  e.descend = std::move(descend);
  return e;
}

namespace {

constexpr base::Names<SandboxError::Kind, 9> kSandboxErrorNames{{{SandboxError::Kind::kStartTimeout, "start_timeout"},
                                                                 {SandboxError::Kind::kRunTimeout, "run_timeout"},
                                                                 {SandboxError::Kind::kCrashed, "crashed"},
                                                                 {SandboxError::Kind::kOutOfMemory, "out_of_memory"},
                                                                 {SandboxError::Kind::kResultInvalid, "result_invalid"},
                                                                 {SandboxError::Kind::kBundleRefused, "bundle_refused"},
                                                                 {SandboxError::Kind::kUnsupported, "unsupported"},
                                                                 {SandboxError::Kind::kConfig, "config"},
                                                                 {SandboxError::Kind::kIo, "io"}}};
constexpr base::Names<OrphanKind, 5> kOrphanKindNames{{{OrphanKind::kPod, "pod"},
                                                       {OrphanKind::kContainer, "container"},
                                                       {OrphanKind::kBundle, "bundle"},
                                                       {OrphanKind::kRunDir, "run_dir"},
                                                       {OrphanKind::kCgroup, "cgroup"}}};
constexpr base::Names<ScannerError::Kind, 6> kScannerErrorNames{{{ScannerError::Kind::kTimeout, "Timeout"},
                                                                 {ScannerError::Kind::kCrashed, "Crashed"},
                                                                 {ScannerError::Kind::kOutput, "Output"},
                                                                 {ScannerError::Kind::kUnsupported, "Unsupported"},
                                                                 {ScannerError::Kind::kUpstream, "Upstream"},
                                                                 {ScannerError::Kind::kOther, "Other"}}};

}  // namespace

std::string_view to_string(SandboxError::Kind k) {
  return base::name_of(kSandboxErrorNames, k);
}

std::string_view to_string(OrphanKind k) {
  return base::name_of(kOrphanKindNames, k);
}

std::size_t Swept::of(OrphanKind k) const {
  auto it = removed.find(k);
  return it == removed.end() ? 0 : it->second;
}

std::size_t Swept::total() const {
  std::size_t n = 0;
  for (const auto& [k, v] : removed) n += v;
  return n;
}

std::string Swept::describe() const {
  std::string s;
  for (const auto& [k, v] : removed) {
    if (v == 0) continue;
    if (!s.empty()) s += ", ";
    s += std::to_string(v) + " " + std::string(to_string(k));
    if (v > 1) s += "s";
  }
  return s.empty() ? "nothing" : s;
}

void trace_sandbox(RunTrace* trace, std::string sandbox, std::string image) {
  if (trace == nullptr) return;
  trace->sandbox = std::move(sandbox);
  trace->image = std::move(image);
}

void trace_ended(RunTrace* trace) {
  if (trace != nullptr) trace->ended = std::chrono::steady_clock::now();
}

std::string_view outcome_label(const Expected<RunOutput, SandboxError>& r) {
  if (r) return "ok";
  switch (r.error().kind) {
    case SandboxError::Kind::kStartTimeout:
      return "start_timeout";
    case SandboxError::Kind::kRunTimeout:
      return "run_timeout";
    case SandboxError::Kind::kResultInvalid:
      return "result_invalid";
    case SandboxError::Kind::kOutOfMemory:
      return "out_of_memory";
    default:
      return "crashed";
  }
}

std::string_view to_string(ScannerError::Kind k) {
  return base::name_of(kScannerErrorNames, k);
}

std::string_view error_class(ScannerError::Kind k) {
  switch (k) {
    case ScannerError::Kind::kTimeout:
      return "timeout";
    case ScannerError::Kind::kCrashed:
      return "crashed";
    case ScannerError::Kind::kOutput:
      return "output";
    case ScannerError::Kind::kUnsupported:
      return "unsupported";
    case ScannerError::Kind::kUpstream:
      return "upstream";
    case ScannerError::Kind::kOther:
      return "other";
  }
  return "other";
}

ScannerError to_scanner_error(const SandboxError& e) {
  using K = SandboxError::Kind;
  using S = ScannerError::Kind;
  using R = SandboxError::Reason;
  if (e.reason == R::kTransport || (e.kind == K::kCrashed && e.reason == R::kNoResult)) {
    return {e.kind == K::kCrashed ? S::kCrashed : S::kOther, e.message, true};
  }
  switch (e.kind) {
    case K::kStartTimeout:
    case K::kRunTimeout:
      return {S::kTimeout, e.message};
    case K::kCrashed:
    case K::kOutOfMemory:
      return {S::kCrashed, e.message};
    case K::kResultInvalid:
    case K::kBundleRefused:
      return {S::kOutput, e.message};
    case K::kUnsupported:
      return {S::kUnsupported, e.message};
    case K::kConfig:
    case K::kIo:
      return {S::kOther, e.message};
  }
  return {S::kOther, e.message};
}

std::optional<ProbeReport::Failure> ProbeReport::failure() const {
  using What = Failure::What;
  if (skipped) return std::nullopt;
  if (!result_at_all) return Failure{What::kNoResult, std::nullopt, no_result_reason};
  for (const auto& a : agent.assertions) {
    if (a.verdict == wire::AssertionVerdict::kFail) return Failure{What::kAssertionFailed, a.check, a.evidence};
  }
  // An assertion the agent did not make is not a wall it proved: an agent from before
  // memory_bounded existed must not pass a probe that asks for it.
  for (wire::Check c : wire::every_check()) {
    bool made = false;
    for (const auto& a : agent.assertions) made = made || a.check == c;
    if (!made) {
      return Failure{What::kAssertionMissing, c,
                     "the agent did not report it (an agent of an older release? rebuild the room with this "
                     "release's agent)"};
    }
  }
  return std::nullopt;
}

void hold_to_target(ProbeReport& report, const ProbeTarget& target) {
  if (target.shell_expected) {
    for (auto& a : report.agent.assertions) {
      if (a.check != wire::Check::kNoShell || a.verdict != wire::AssertionVerdict::kFail) continue;
      // The agent's words for a room whose one forbidden name is the detonation's /bin/sh.
      if (a.evidence == "found /bin/sh") {
        a.verdict = wire::AssertionVerdict::kPass;
        a.evidence +=
            ", the detonation room's one shell (npm's install scripts run with it); no bash, busybox "
            "or batlehub";
      }
    }
  }
  if (!target.require_landlock) return;
  for (auto& a : report.agent.assertions) {
    if (a.check != wire::Check::kLandlock || a.verdict != wire::AssertionVerdict::kWarn) continue;
    a.verdict = wire::AssertionVerdict::kFail;
    a.evidence += " (refused: [worker.sandbox] require_landlock = true)";
  }
}

std::string ProbeReport::Failure::describe() const {
  if (what == What::kNoResult || !check) return "a result at all: " + evidence;
  return std::string(wire::to_string(*check)) + ": " + evidence;
}

std::optional<std::string> ProbeReport::first_failure() const {
  auto f = failure();
  if (!f) return std::nullopt;
  return f->describe();
}

}  // namespace batlehub::core
