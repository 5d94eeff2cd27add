// batlehub-sandbox as a library: the whole of one run, from two URLs to a written result.
#pragma once

#include <string>
#include <string_view>

#include "wire/manifest.h"
#include "wire/run_result.h"
#include "wire/sandbox_layout.h"

namespace batlehub::agent {

// Exit codes of the agent binary, and what run() returns.
enum class AgentExit : int {
  kResultWritten = 0,  // a result is at --out, whatever the scanner did
  kUsage = 2,          // argv was not exactly --in URL --out URL
  kNoResult = 3,       // no result could be written
};

struct AgentOptions {
  // Where inputs are placed and the scanner runs; also its HOME. The binary uses its
  // working directory ("/work" in every room).
  std::string work_dir;
  // The scanner's PATH, and where a bare argv[0] is looked up.
  std::string scanner_path = std::string(wire::kSandboxPath);
  // The agent is the whole process (the binary, single-threaded, with no other child): it
  // supervises the scanner itself rather than through a keeper process
  // (base::Supervisor::kThisProcess). Off in a worker (the `none` runtime).
  bool own_process = false;
  // Where the result goes when --out is a file:// URL, "" otherwise: the one file outside the
  // work dirs the agent itself writes, which the probe's one_writable_dir names apart.
  std::string out_path;
};

// The work dir of every room: where the agent binary finds itself in a sandbox (bwrap, oci,
// kubernetes), whose "/" is then the scanner's room (landlock::RootIs::kRoom).
inline constexpr std::string_view kRoomWorkDir = "/work";

// The result of one run before it is written: the document and the scanner's stdout.
struct AgentRun {
  wire::RunResult result;
  std::string stdout_bytes;
};

// Runs the manifest at `in_url`, writes out.tar to `out_url`. Never throws.
AgentExit run(std::string_view in_url, std::string_view out_url, const AgentOptions& options);
// The same with the current working directory as the work dir.
AgentExit run(std::string_view in_url, std::string_view out_url);
// What the binary does: run() in its working directory, as a process of its own.
AgentExit run_as_binary(std::string_view in_url, std::string_view out_url);

// The part of run() between fetching the manifest and writing the result.
AgentRun execute(const wire::Manifest& manifest, const AgentOptions& options);

}  // namespace batlehub::agent
