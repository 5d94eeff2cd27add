#include "adapters/scanners/subprocess.h"

#include <sys/stat.h>

#include "base/command_path.h"
#include "base/utf8.h"

namespace batlehub::adapters {

namespace {
bool is_regular(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
struct TooDeep {};
}  // namespace

bool command_exists(std::string_view command, std::string_view path) {
  if (command.empty()) return false;
  if (command.find('/') != std::string_view::npos) return is_regular(std::string(command));
  return base::resolve_command(command, path, "", base::Found::kRegularFile).has_value();
}

Expected<nlohmann::json, core::ScannerError> parse_json(std::string_view bytes) {
  using nlohmann::json;
  json::parser_callback_t cb = [](int depth, json::parse_event_t e, json&) {
    if ((e == json::parse_event_t::object_start || e == json::parse_event_t::array_start) && depth >= 128)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(bytes.begin(), bytes.end(), cb);
  } catch (const TooDeep&) {
    return Unexpected(
        core::ScannerError{core::ScannerError::Kind::kOutput, "scanner output is not JSON: nested deeper than 128"});
  } catch (const json::exception& e) {
    return Unexpected(
        core::ScannerError{core::ScannerError::Kind::kOutput, std::string("scanner output is not JSON: ") + e.what()});
  }
}

std::string compact(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string trimmed_tail(const std::string& tail) {
  const char* ws = " \t\r\n";
  std::size_t b = tail.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return tail.substr(b, tail.find_last_not_of(ws) - b + 1);
}

std::string printable(std::string_view bytes) {
  std::string utf8 = base::lossy_utf8_tail(bytes, std::string::npos);
  std::string out;
  out.reserve(utf8.size());
  for (char c : utf8) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<wire::RelPath> sources_member(core::PackageKind kind) {
  if (kind == core::PackageKind::kRubygems) return wire::RelPath::parse("data.tar.gz").value();
  return std::nullopt;
}

Expected<const core::RunOutput*, core::ScannerError> one_clean_run(
    const std::vector<Expected<core::RunOutput, core::SandboxError>>& results, std::string_view program) {
  using core::ScannerError;
  if (results.size() != 1) {
    return Unexpected(ScannerError{ScannerError::Kind::kOther,
                                   std::string(program) + ": expected one run, got " + std::to_string(results.size())});
  }
  const auto& r = results.front();
  if (!r) return Unexpected(core::to_scanner_error(r.error()));
  if (r->status != 0) {
    return Unexpected(ScannerError{
        ScannerError::Kind::kCrashed,
        std::string(program) + " exited " + std::to_string(r->status) + ": " + trimmed_tail(r->stderr_tail)});
  }
  return &*r;
}

}  // namespace batlehub::adapters
