// result.json: what one run did (RFC 0022 §5.2, §4.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wire/error.h"
#include "base/expected.h"
#include "wire/extract_policy.h"

namespace batlehub::wire {

// Why the scanner did not run (or its output is not the whole story).
enum class FailureKind {
  kManifestInvalid,
  kWireVersion,
  kFetch,           // an input could not be fetched
  kInputSize,       // an input was longer (or shorter) than the manifest declared
  kWrite,           // an input could not be written into the work dir
  kTraversal,       // extraction: an entry escapes the extraction root
  kTooManyEntries,  // extraction: more than max_entries
  kTooLarge,        // extraction: more than max_extracted_bytes
  kBomb,            // extraction: decompression ratio over max_ratio
  kUnrecognised,    // extraction: not a gzip tar, a zip or a tar
  kMalformed,       // extraction: the archive is corrupt
  kCommandNotFound,
  kSpawn,
  kInternal,
};

struct Failure {
  FailureKind kind = FailureKind::kInternal;
  std::string message;
  bool operator==(const Failure&) const = default;
};

struct Timings {
  std::uint64_t fetch_ms = 0;
  std::uint64_t extract_ms = 0;
  std::uint64_t run_ms = 0;
  bool operator==(const Timings&) const = default;
};

// The probe's assertions (RFC 0022 §4.3 and the architecture's §7 additions), as the
// agent makes them from inside. "a result at all" is the worker's, not the agent's.
enum class Check {
  kNoNetwork,
  kReadOnlyRoot,
  kOneWritableDir,
  kEmptyEnvironment,
  kUnprivileged,
  kNoCredentials,
  kNoShell,
  kCommandsExist,
  kWireVersion,
  kPidNamespace,
  kSeccompFilter,
  kNoNewPrivs,
  kCanarySyscall,
  kClone3Enosys,
  kRlimits,
  kMemoryBounded,     // the run's cgroup bounds its memory as a whole, not per process
  kPidsBounded,       // the run's cgroup bounds its processes as a whole
  kAgentUnreachable,  // the scanner cannot open the agent's memory, environment or descriptors
  kLandlock,          // the agent's Landlock ruleset is on the scanner (a warning without Landlock)
};

enum class AssertionVerdict { kPass, kFail, kWarn };

struct Assertion {
  Check check = Check::kNoNetwork;
  AssertionVerdict verdict = AssertionVerdict::kFail;
  std::string evidence;
  bool operator==(const Assertion&) const = default;
};

struct CommandDigest {
  std::string path;
  std::string sha256;  // lower-case hex; empty when the file could not be read
  std::uint64_t size = 0;
  bool operator==(const CommandDigest&) const = default;
};

struct AgentProbeReport {
  std::vector<Assertion> assertions;
  std::vector<CommandDigest> commands;
  // The kernel the probe ran on, as uname(2) answered inside: "<sysname> <release> <version>
  // <machine>". gVisor answers with its own ("Linux 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST
  // 2016 x86_64"), so the worker can say whether a runtime class or an engine's --runtime
  // took effect, which nothing outside the sandbox shows as plainly. Wire 3.
  std::string kernel;
  bool operator==(const AgentProbeReport&) const = default;
};

// A limit the host would not let the agent raise to what the manifest asked: rlimits are
// best-effort (RFC 0022 §4.2), so the scanner ran under the host's hard limit instead — never
// looser than asked, only tighter.
struct LoweredRlimit {
  std::string resource;  // "RLIMIT_NPROC", "RLIMIT_CPU", … (kRlimitNames)
  std::uint64_t asked = 0;
  std::uint64_t applied = 0;  // the host's hard limit, below `asked`
  bool operator==(const LoweredRlimit&) const = default;
};

// The names a LoweredRlimit's resource may take.
inline constexpr const char* kRlimitNames[] = {"RLIMIT_DATA",  "RLIMIT_CPU",    "RLIMIT_CORE", "RLIMIT_AS",
                                               "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE"};

struct RunResult {
  int wire = 0;
  std::string agent_version;
  // The scanner was started (execve reached). False when a failure came first.
  bool ran = false;
  std::optional<int> exit_code;  // set when the scanner exited
  std::optional<int> signal;     // set when it was killed by a signal
  bool timed_out = false;        // the agent killed it (and its tree) at the deadline
  std::uint64_t stdout_bytes = 0;  // bytes of stdout kept in out.tar (≤ the cap)
  bool stdout_over_cap = false;    // it printed more than kStdoutCapBytes and was stopped
  // Processes the kernel's OOM killer ended in the agent's memory cgroup while the scanner
  // ran: where the sandbox's memory bound is the cgroup of the whole sandbox (a container,
  // a pod), only the inside can tell a scanner killed for memory from one that crashed.
  std::uint64_t oom_kills = 0;
  std::string stderr_tail;         // the last kStderrTailChars characters
  // The limits the scanner (or the probe's walled child) ran under below what was asked,
  // because the host's hard limit is lower. Empty, and absent from result.json, when none was.
  std::vector<LoweredRlimit> rlimits_lowered;
  ExtractReport extract;
  Timings timings;
  std::optional<Failure> failure;
  std::optional<AgentProbeReport> probe;

  bool operator==(const RunResult&) const = default;
};

// Refuses a document over kResultMaxBytes, and a result of another wire version.
Expected<RunResult, WireError> parse_result(std::string_view json);
std::string serialize(const RunResult& r);

std::string_view to_string(FailureKind k);
std::string_view to_string(Check c);
std::string_view to_string(AssertionVerdict v);
std::optional<Check> check_from_string(std::string_view s);
// Every assertion this wire version knows, in the order the agent makes them.
std::vector<Check> every_check();

}  // namespace batlehub::wire
