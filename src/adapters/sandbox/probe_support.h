// What every local runtime's probe shares: a listener the sandbox must not reach, the
// canary addresses that point at it, and the agent's result read into a ProbeReport.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/sandbox.h"

namespace batlehub::adapters {

// A real listener for the probe's canaries, on every IPv4 address of the worker's host:
// known to be up, so only a sandbox that shares the worker's network can connect to it.
class CanaryListener {
 public:
  CanaryListener();
  ~CanaryListener();
  CanaryListener(const CanaryListener&) = delete;
  CanaryListener& operator=(const CanaryListener&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// The worker's own listener, on loopback and on the host's first non-loopback IPv4 address
// (found now, never written down), then the configured ones.
// The image runtimes' hint when an image fails no_shell or commands_exist: what is wrong with
// the image is the same on oci and kubernetes; `table` names where the runtime's own default
// image is set.
std::string image_hint(wire::Check failed, std::string_view table);

std::vector<std::string> canaries_for(int port, const std::vector<std::string>& configured);

// The probe's bundle: a manifest with no argv and no input, the target's limits and
// extraction policy, the canaries to try and the commands to stat.
wire::Manifest probe_manifest(const core::ProbeTarget& target, std::vector<std::string> canaries);

// The probe's result (read_result's) into `rep`: no result at all (with what the sandbox's
// program said: `how`, `stderr_tail`), a result of another wire version, an agent failure,
// or the agent's assertions and command hashes.
void fill_probe_report(core::ProbeReport& rep, Expected<wire::RunResult, core::SandboxError> result,
                       const std::string& how, const std::string& stderr_tail);

}  // namespace batlehub::adapters
