#include "adapters/sandbox/probe_support.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>

#include "wire/caps.h"

namespace batlehub::adapters {

using core::SandboxError;

CanaryListener::CanaryListener() {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0) return;
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
}

CanaryListener::~CanaryListener() {
  if (fd_ >= 0) ::close(fd_);
}

std::string image_hint(wire::Check failed, std::string_view table) {
  if (failed == wire::Check::kNoShell) {
    return "the image holds a shell: rebuild it from its room's definition (scripts/build-image.py); never base a "
           "scanner's image on a distribution's image.";
  }
  return "the scanner's command is missing from its image, or not executable there: add it to the room's "
         "definition and rebuild the image (scripts/build-image.py), or point the scanner's [scanners.<name>] "
         "image (or " +
         std::string(table) + " image, for every scanner without one) at an image that holds it.";
}

std::vector<std::string> canaries_for(int port, const std::vector<std::string>& configured) {
  std::vector<std::string> c;
  if (port > 0) {
    c.push_back("127.0.0.1:" + std::to_string(port));
    ifaddrs* ifs = nullptr;
    if (::getifaddrs(&ifs) == 0) {
      for (ifaddrs* i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        auto* sin = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
        if ((ntohl(sin->sin_addr.s_addr) >> 24) == 127) continue;
        char buf[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf);
        c.push_back(std::string(buf) + ":" + std::to_string(port));
        break;
      }
      ::freeifaddrs(ifs);
    }
  }
  c.insert(c.end(), configured.begin(), configured.end());
  return c;
}

wire::Manifest probe_manifest(const core::ProbeTarget& target, std::vector<std::string> canaries) {
  wire::Manifest m;
  m.wire = wire::kWireVersion;
  m.network = false;
  m.limits = target.limits.rlimits();
  m.timeout_ms = 30'000;
  m.extract_policy = target.limits.extract_policy();
  m.probe = wire::ProbeSpec{std::move(canaries), target.commands};
  return m;
}

void fill_probe_report(core::ProbeReport& rep, Expected<wire::RunResult, SandboxError> result, const std::string& how,
                       const std::string& stderr_tail) {
  if (!result) {
    const std::string& why = result.error().message;
    if (result.error().reason == SandboxError::Reason::kOtherWireVersion) {
      // A result came back, in a version this worker does not speak.
      rep.result_at_all = true;
      rep.agent.assertions.push_back({wire::Check::kWireVersion, wire::AssertionVerdict::kFail, why});
      return;
    }
    rep.no_result_reason = result.error().reason == SandboxError::Reason::kNoResult
                               ? how + " and no result came back: \"" + stderr_tail + "\""
                               : why + " (" + how + ")";
    return;
  }
  rep.result_at_all = true;
  rep.agent_version = result->agent_version;
  if (result->failure) {
    rep.agent.assertions.push_back(
        {result->failure->kind == wire::FailureKind::kWireVersion ? wire::Check::kWireVersion : wire::Check::kCommandsExist,
         wire::AssertionVerdict::kFail, result->failure->message});
  }
  if (result->probe) {
    for (auto& a : result->probe->assertions) rep.agent.assertions.push_back(std::move(a));
    rep.agent.commands = std::move(result->probe->commands);
    rep.agent.kernel = std::move(result->probe->kernel);
  } else if (!result->failure) {
    rep.agent.assertions.push_back(
        {wire::Check::kWireVersion, wire::AssertionVerdict::kFail, "the agent answered a probe with no probe report"});
  }
}

}  // namespace batlehub::adapters
