// The worker's log lines: `INFO sandbox: probing runtime "bwrap" …`, as RFC 0022 writes them.
#pragma once

#include <memory>
#include <string_view>

// spdlog's level names are lower-case; the RFC's lines are upper-case. spdlog reads this
// macro wherever it is first included, so every include of spdlog goes through here.
#define SPDLOG_LEVEL_NAMES \
  { "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "CRITICAL", "OFF" }
#include <spdlog/logger.h>

namespace batlehub::server {

// A logger named `name` writing to stderr as "LEVEL name: message".
std::shared_ptr<spdlog::logger> logger(std::string_view name);

}  // namespace batlehub::server
