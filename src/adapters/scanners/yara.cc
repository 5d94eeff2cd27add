#include "adapters/scanners/yara.h"

#include "adapters/scanners/finding_model.h"
#include "adapters/scanners/subprocess.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "base/utf8.h"
#include "wire/caps.h"

namespace batlehub::adapters {

using core::Finding;
using core::ScannerError;
using core::Severity;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxIdentifier = 128;  // yara's own limit on identifiers

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One line of `--print-tags --print-meta` output, strictly; nullopt when it is not one.
class LineParser {
 public:
  LineParser(std::string_view line, std::string_view root, const std::set<std::string>& rules)
      : s_(line), root_(root), rules_(rules) {}

  std::optional<YaraMatch> parse() {
    YaraMatch m;
    auto rule = identifier();
    if (!rule || (!rules_.empty() && !rules_.contains(*rule))) return std::nullopt;
    m.rule = std::move(*rule);
    if (!eat(' ') || !eat('[')) return std::nullopt;
    if (!eat(']')) {
      do {
        auto tag = identifier();
        if (!tag) return std::nullopt;
        m.tags.push_back(std::move(*tag));
      } while (eat(','));
      if (!eat(']')) return std::nullopt;
    }
    if (!eat(' ') || !eat('[')) return std::nullopt;
    if (!eat(']')) {
      do {
        auto key = identifier();
        if (!key) return std::nullopt;
        eat(' ');  // yara 4.2.3 prints an integer as `KEY =INT`
        if (!eat('=')) return std::nullopt;
        auto value = meta_value();
        if (!value) return std::nullopt;
        m.meta.emplace_back(std::move(*key), std::move(*value));
      } while (eat(','));
      if (!eat(']')) return std::nullopt;
    }
    if (!eat(' ')) return std::nullopt;
    std::string_view path = s_.substr(i_);
    // yara was given a directory: every path it prints is beneath it.
    bool under_root = path.size() > root_.size() && path.starts_with(root_) && path[root_.size()] == '/';
    if (!under_root) return std::nullopt;
    m.path = std::string(path);
    return m;
  }

 private:
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  std::optional<std::string> identifier() {
    if (i_ >= s_.size() || !ident_start(s_[i_])) return std::nullopt;
    std::size_t b = i_;
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
    if (i_ - b > kMaxIdentifier) return std::nullopt;
    return std::string(s_.substr(b, i_ - b));
  }

  std::optional<json> meta_value() {
    if (eat('"')) return quoted();
    if (s_.substr(i_).starts_with("true")) {
      i_ += 4;
      return json(true);
    }
    if (s_.substr(i_).starts_with("false")) {
      i_ += 5;
      return json(false);
    }
    std::int64_t v = 0;
    const char* b = s_.data() + i_;
    const char* e = s_.data() + s_.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p == b) return std::nullopt;
    i_ += static_cast<std::size_t>(p - b);
    return json(v);
  }

  // After the opening quote: up to the closing one, decoding yara's escapes (\" \\ \'
  // \n \t \r \xNN and octal \NNN); any other backslash pair is kept as printed.
  std::optional<json> quoted() {
    std::string out;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return json(base::lossy_utf8_tail(out, std::string::npos));
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return std::nullopt;
      char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '\'':
          out.push_back(e);
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'x': {
          int hi = i_ < s_.size() ? hex_value(s_[i_]) : -1;
          int lo = i_ + 1 < s_.size() ? hex_value(s_[i_ + 1]) : -1;
          if (hi < 0 || lo < 0) {
            out += "\\x";
            break;
          }
          out.push_back(static_cast<char>(hi * 16 + lo));
          i_ += 2;
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int k = 0; k < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k)
              v = v * 8 + (s_[i_++] - '0');
            out.push_back(static_cast<char>(v & 0xff));
          } else {
            out.push_back('\\');
            out.push_back(e);
          }
      }
    }
    return std::nullopt;  // no closing quote on this line
  }

  std::string_view s_;
  std::string_view root_;
  const std::set<std::string>& rules_;
  std::size_t i_ = 0;
};

Severity severity_of(const YaraMatch& m) {
  for (const auto& [k, v] : m.meta) {
    if (k != "severity") continue;
    if (v.is_string()) {
      if (auto s = core::parse_severity(v.get<std::string>())) return *s;
    }
    break;
  }
  return Severity::kHigh;
}

// The path inside the artifact: yara's path without "scan/tree/".
std::string_view in_artifact(std::string_view path) {
  for (std::string_view prefix : {std::string_view("scan/tree/"), std::string_view("scan/")}) {
    if (path.starts_with(prefix)) return path.substr(prefix.size());
  }
  return path;
}

}  // namespace

std::set<std::string> yara_rule_names(std::string_view text) {
  std::set<std::string> names;
  std::size_t i = 0;
  while ((i = text.find("rule", i)) != std::string_view::npos) {
    bool starts_word = i == 0 || !ident_char(text[i - 1]);
    std::size_t j = i + 4;
    i = j;
    if (!starts_word || j >= text.size() || (text[j] != ' ' && text[j] != '\t' && text[j] != '\n' && text[j] != '\r'))
      continue;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
    std::size_t b = j;
    if (j >= text.size() || !ident_start(text[j])) continue;
    while (j < text.size() && ident_char(text[j])) ++j;
    names.emplace(text.substr(b, j - b));
  }
  return names;
}

Expected<std::vector<YaraMatch>, ScannerError> parse_yara_output(std::string_view out, std::string_view scan_root,
                                                                 const std::set<std::string>& rules) {
  std::vector<YaraMatch> matches;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t nl = out.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? out.size() : nl;
    std::string_view line = out.substr(start, end - start);
    start = end + 1;
    if (auto m = LineParser(line, scan_root, rules).parse()) {
      matches.push_back(std::move(*m));
    } else if (!matches.empty()) {
      // A newline in the matched file's name: the line is the rest of its path.
      matches.back().path += '\n';
      matches.back().path += line;
    } else {
      return Unexpected(ScannerError{ScannerError::Kind::kOutput,
                                     "yara printed a line that is not a match: \"" +
                                         printable(line.substr(0, std::min<std::size_t>(line.size(), 200))) + "\""});
    }
  }
  return matches;
}

Expected<std::vector<core::RunSpec>, ScannerError> YaraScanner::plan(const core::ScanInput& in) const {
  if (!in.artifact) return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "no artifact to scan"});
  if (options_.rules.empty()) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kOther,
                     "yara has no rules: the rules file is empty (it would match nothing and read as clean)"});
  }
  if (options_.rules.size() > wire::kInlineEntryMaxBytes) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kOther, "yara's rules file is " + std::to_string(options_.rules.size()) +
                                                     " bytes; a bundle carries at most " +
                                                     std::to_string(wire::kInlineEntryMaxBytes) + " inline"});
  }
  core::RunSpec spec;
  spec.bundle.entries = {
      core::BundleEntry::inline_file(*wire::RelPath::parse("rules.yar"), options_.rules),
      // A gem's files are in its data.tar.gz: the agent extracts it in place (wire 2).
      core::BundleEntry::archive(*wire::RelPath::parse("scan/tree"), in.artifact, false,
                                 sources_member(in.package.kind)),
  };
  spec.argv = {options_.command,       "--recursive", "--print-tags", "--print-meta",
               "--no-follow-symlinks", "rules.yar",   "scan"};
  spec.network = false;
  spec.limits = options_.limits;
  spec.timeout = options_.timeout;
  spec.label.scanner = options_.name;
  return std::vector<core::RunSpec>{std::move(spec)};
}

Expected<std::vector<Finding>, ScannerError> YaraScanner::findings(std::string_view stdout_bytes) const {
  auto matches = parse_yara_output(stdout_bytes, "scan", rule_names_);
  if (!matches) return Unexpected(matches.error());
  std::sort(matches->begin(), matches->end(),
            [](const YaraMatch& a, const YaraMatch& b) { return std::tie(a.path, a.rule) < std::tie(b.path, b.rule); });
  matches->erase(
      std::unique(matches->begin(), matches->end(),
                  [](const YaraMatch& a, const YaraMatch& b) { return a.path == b.path && a.rule == b.rule; }),
      matches->end());
  std::vector<Finding> out;
  std::size_t listed = matches->size() > kMaxFindings ? kMaxFindings - 1 : matches->size();
  for (std::size_t i = 0; i < listed; ++i) {
    const YaraMatch& m = (*matches)[i];
    Finding f;
    f.scanner = options_.name;
    f.kind = core::FindingKind::kMalwareSignal;
    f.code = core::ReasonCode::kMalwareSignal;
    // A rule's severity where the file sits: nothing in a package's tests or docs runs.
    // batlehub's rules are narrow enough that a match means the same in a vendored copy: only
    // GuardDog's broad patterns are weighed down there.
    auto place = finding_model::place_of(in_artifact(m.path));
    if (place == finding_model::Place::kBundled) place = finding_model::Place::kRuntime;
    f.severity = finding_model::at(severity_of(m), place);
    f.reference = m.rule;
    f.summary = m.rule + " matched " + printable(in_artifact(m.path));
    json raw = {{"rule", m.rule},
                {"tags", m.tags},
                {"meta", json::object()},
                {"path", base::lossy_utf8_tail(m.path, std::string::npos)}};
    for (const auto& [k, v] : m.meta) raw["meta"][k] = v;
    f.raw = compact(raw);
    out.push_back(std::move(f));
  }
  if (listed < matches->size()) {
    Severity worst = Severity::kUnknown;
    for (std::size_t i = listed; i < matches->size(); ++i) worst = std::max(worst, severity_of((*matches)[i]));
    std::size_t more = matches->size() - listed;
    Finding f;
    f.scanner = options_.name;
    f.kind = core::FindingKind::kMalwareSignal;
    f.code = core::ReasonCode::kMalwareSignal;
    f.severity = worst;
    f.summary = "and " + std::to_string(more) + " more yara matches, not listed";
    f.raw = compact(json{{"more_matches", more}});
    out.push_back(std::move(f));
  }
  return out;
}

Expected<std::vector<Finding>, ScannerError> YaraScanner::parse(const core::ScanInput&,
                                                                const std::vector<core::RunOutcome>& results) const {
  if (results.size() != 1) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kOther, "yara: expected one run, got " + std::to_string(results.size())});
  }
  const core::RunOutcome& r = results.front();
  if (!r) return Unexpected(core::to_scanner_error(r.error()));
  if (r->status != 0) {
    return Unexpected(ScannerError{ScannerError::Kind::kCrashed,
                                   "yara exited " + std::to_string(r->status) + ": " + trimmed_tail(r->stderr_tail)});
  }
  return findings(r->stdout_bytes);
}

}  // namespace batlehub::adapters
