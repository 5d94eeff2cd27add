#include "adapters/scanners/subprocess.h"

#include <sys/stat.h>

namespace batlehub::adapters {

namespace {
bool is_regular(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
struct TooDeep {};
}  // namespace

bool command_exists(std::string_view command, std::string_view path) {
  if (command.empty()) return false;
  if (command.find('/') != std::string_view::npos) return is_regular(std::string(command));
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start && is_regular(std::string(path.substr(start, end - start)) + "/" + std::string(command))) return true;
    start = end + 1;
  }
  return false;
}

Expected<nlohmann::json, core::ScannerError> parse_json(std::string_view bytes) {
  using nlohmann::json;
  json::parser_callback_t cb = [](int depth, json::parse_event_t e, json&) {
    if ((e == json::parse_event_t::object_start || e == json::parse_event_t::array_start) && depth >= 128) throw TooDeep{};
    return true;
  };
  try {
    return json::parse(bytes.begin(), bytes.end(), cb);
  } catch (const TooDeep&) {
    return Unexpected(core::ScannerError{core::ScannerError::Kind::kOutput, "scanner output is not JSON: nested deeper than 128"});
  } catch (const json::exception& e) {
    return Unexpected(core::ScannerError{core::ScannerError::Kind::kOutput, std::string("scanner output is not JSON: ") + e.what()});
  }
}

}  // namespace batlehub::adapters
