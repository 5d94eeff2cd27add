#include "server/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace batlehub::server {

std::shared_ptr<spdlog::logger> logger(std::string_view name) {
  std::string n(name);
  if (auto l = spdlog::get(n)) return l;
  auto l = spdlog::stderr_logger_mt(n);
  l->set_pattern("%l %n: %v");
  return l;
}

}  // namespace batlehub::server
