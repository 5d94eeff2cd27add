#include "adapters/network_scanners/api_call.h"

#include <algorithm>

#include "adapters/scanners/subprocess.h"

namespace batlehub::adapters::net {

using core::ScannerError;

Expected<http::Response, ScannerError> call_api(const http::Client& client, const ApiOptions& o, http::Request r,
                                                std::chrono::steady_clock::time_point deadline,
                                                std::initializer_list<long> also_ok) {
  const auto now = std::chrono::steady_clock::now();
  if (now >= deadline) {
    return Unexpected(ScannerError{ScannerError::Kind::kTimeout,
                                   o.name + ": " + http::describe(r) + ": the job's time ran out before the request"});
  }
  // No request outlives the job: its own timeout is cut to what is left.
  r.timeout = std::min(o.timeout, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
  http::RetryPolicy policy;
  policy.max_attempts = o.max_attempts;
  policy.base_delay = o.base_delay;
  policy.deadline = deadline;
  auto got = client.send(r, policy);
  if (!got) {
    // An answer over its cap is an answer this scanner will not read (upstream's Output).
    const auto kind = got.error().kind == http::ErrorKind::kTimeout    ? ScannerError::Kind::kTimeout
                      : got.error().kind == http::ErrorKind::kTooLarge ? ScannerError::Kind::kOutput
                                                                       : ScannerError::Kind::kUpstream;
    return Unexpected(ScannerError{kind, o.name + ": " + got.error().message});
  }
  const long status = got->status;
  if ((status >= 200 && status < 300) || std::find(also_ok.begin(), also_ok.end(), status) != also_ok.end()) {
    return std::move(*got);
  }
  std::string why = "HTTP " + std::to_string(status);
  if (status == 429) {
    why += " (rate limited";
    if (auto after = got->header("retry-after")) why += "; Retry-After: " + printable(after->substr(0, 64));
    why += ")";
  } else if (!got->body.empty()) {
    why += ": " + printable(got->body.substr(0, 200));
  }
  return Unexpected(ScannerError{ScannerError::Kind::kUpstream, o.name + ": " + http::describe(r) + ": " + why});
}

ScannerError unreadable(const ApiOptions& o, const http::Request& r, const std::string& why) {
  return ScannerError{ScannerError::Kind::kOutput,
                      o.name + ": " + http::describe(r) + ": the answer is not what the API documents: " + why};
}

}  // namespace batlehub::adapters::net
