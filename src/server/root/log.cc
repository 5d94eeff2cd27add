#include "server/root/log.h"

#include <mutex>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace batlehub::server {

std::shared_ptr<spdlog::logger> logger(std::string_view name) {
  // spdlog's registry throws when a second logger of one name is registered: two threads
  // asking for the same new logger at once (the first span of two runs that end together)
  // would race to register it. One lock makes get-or-create a single step.
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::string n(name);
  if (auto l = spdlog::get(n)) return l;
  auto l = spdlog::stderr_logger_mt(n);
  l->set_pattern("%l %n: %v");
  return l;
}

}  // namespace batlehub::server
