#include "adapters/scanners/guarddog.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "adapters/scanners/finding_model.h"
#include "adapters/scanners/subprocess.h"

namespace batlehub::adapters {

using core::Finding;
using core::FindingKind;
using core::PackageKind;
using core::ReasonCode;
using core::ScannerError;
using core::Severity;
using nlohmann::json;

namespace {

std::string string_or_empty(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// Three distinct threats at medium or above make one high finding of their own.
constexpr std::size_t kThreatsTogether = 3;

struct Family {
  FindingKind kind;
  ReasonCode code;
  Severity severity;
};

// Names GuardDog 3.x does not use (upstream's mapping, kept for older GuardDogs).
Family legacy_family(const std::string& lower) {
  auto has = [&](std::string_view w) { return lower.find(w) != std::string::npos; };
  if (has("install") || has("exec-base64") || has("cmd-overwrite")) {
    return {FindingKind::kInstallHook, ReasonCode::kInstallHook, Severity::kHigh};
  }
  if (has("typosquat")) return {FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect, Severity::kMedium};
  if (has("exfiltrat") || has("steganography") || has("shady")) {
    return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kHigh};
  }
  return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kMedium};
}

// An npm lifecycle script that `npm install` runs: preinstall, install, postinstall. GuardDog's
// hook rules also match prepare, prepack and the rest, which installing a tarball never runs.
bool npm_install_script(std::string_view text) {
  static const std::regex re(R"re("(pre|post)?install"\s*:)re");
  return std::regex_search(text.begin(), text.end(), re);
}

// Programs an install hook uses to fetch or run something of its own (GuardDog's LOLBAS list,
// less `node`: a hook that runs the package's own script with node is a hook, not a tool).
bool lolbas(std::string_view text) {
  static const std::regex re(
      R"(\b(curl|wget|powershell|pwsh|bash|sh|zsh|certutil|bitsadmin|mshta|nc|ncat|python3?|perl|ruby|nslookup|dig)\b)");
  return std::regex_search(text.begin(), text.end(), re);
}

// GuardDog's http-dependency rule matches any URL value in package.json; one under a key
// that names a person's or a project's page ("url", "homepage") is not a dependency. The
// key is read from the hit's context line that holds the match.
bool page_url(std::string_view code, std::string_view match) {
  if (match.empty()) return false;
  auto at = code.find(match);
  if (at == std::string_view::npos) return false;
  auto start = code.rfind('\n', at);
  start = start == std::string_view::npos ? 0 : start + 1;
  static const std::regex key(R"re(^\s*"(url|homepage|home-page|homePage|testURL)"\s*$)re");
  std::string_view before = code.substr(start, at - start);
  // A key and its indentation are short; the context is the package's bytes, and libstdc++'s
  // regex recurses per character.
  if (before.size() > 256) return false;
  return std::regex_match(before.begin(), before.end(), key);
}

bool loopback_url(std::string_view text) {
  return text.find("localhost") != std::string_view::npos || text.find("127.") != std::string_view::npos ||
         text.find("[::1]") != std::string_view::npos;
}

// One hit of a rule, where it sits: the finding's kind, code and severity (docs/verdicts.md).
Family classify(std::string_view rule, std::string_view match, finding_model::Place place, std::string_view code) {
  std::string lower(rule);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto base = finding_model::guarddog_base(lower);
  if (!base) return legacy_family(lower);
  const bool hook_script = npm_install_script(match);
  if (lower == "capability-process-hooks" || lower == "threat-process-hooks") {
    // A hook npm runs at install is upstream's INSTALL_HOOK, which deny_install_hooks judges:
    // high when it fetches or shells out, medium when it runs the package's own script. A
    // setup.py's cmdclass override runs at install too; GuardDog's threat rule has already
    // found a LOLBAS tool in the code it runs (the match is only the cmdclass line), where
    // its npm twin also counts `node`, which is why npm's match is read again here.
    const bool python_hook = match.find("cmdclass") != std::string_view::npos;
    if (hook_script || python_hook) {
      const bool tool = lower == "threat-process-hooks" && (python_hook || lolbas(match));
      return {FindingKind::kInstallHook, ReasonCode::kInstallHook, tool ? Severity::kHigh : Severity::kMedium};
    }
    return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kLow};
  }
  if (lower == "threat-npm-preinstall-script") return {FindingKind::kInstallHook, ReasonCode::kInstallHook, *base};
  Severity s = *base;
  if (lower == "threat-npm-http-dependency" && (loopback_url(match) || page_url(code, match))) s = Severity::kLow;
  // A rule GuardDog itself rates unspecific is not raised in setup.py: ordinary packages
  // match it there as anywhere (a comment naming ~/.pypirc, a setup.py that fetches a build
  // dependency and compiles, a forensics tool's description of process memory).
  if (place == finding_model::Place::kInstallTime && finding_model::unspecific_to_guarddog(lower))
    return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, s};
  return {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, finding_model::at(s, place)};
}

// The `results` map of one report object: at its top level (GuardDog 3.2.0's local scan)
// or under `result` (upstream's expectation; `verify` nests each dependency's report so).
const json* results_of(const json& obj) {
  if (!obj.is_object()) return nullptr;
  if (auto it = obj.find("results"); it != obj.end() && it->is_object()) return &*it;
  if (auto r = obj.find("result"); r != obj.end() && r->is_object()) {
    if (auto it = r->find("results"); it != r->end() && it->is_object()) return &*it;
  }
  return nullptr;
}

// A rule's value as hits: a list of hits (source-code rules), a message string (metadata
// rules), nothing for null, false, {} or []; any other value is one hit as it stands.
std::vector<json> hits_of(const json& v) {
  if (v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_structured() && v.empty())) return {};
  if (v.is_array()) return std::vector<json>(v.begin(), v.end());
  return {v};
}

}  // namespace

std::optional<std::string_view> GuardDogScanner::ecosystem_of(PackageKind k) {
  switch (k) {
    case PackageKind::kNpm:
      return "npm";
    case PackageKind::kPypi:
      return "pypi";
    case PackageKind::kGoproxy:
      return "go";
    default:
      return std::nullopt;
  }
}

bool GuardDogScanner::supports(PackageKind k) const {
  auto eco = ecosystem_of(k);
  if (!eco) return false;
  return options_.ecosystems.empty() ||
         std::find(options_.ecosystems.begin(), options_.ecosystems.end(), *eco) != options_.ecosystems.end();
}

Expected<std::vector<core::RunSpec>, ScannerError> GuardDogScanner::plan(const core::ScanInput& in) const {
  if (!supports(in.package.kind)) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kUnsupported,
                     "guarddog does not scan " + std::string(core::to_string(in.package.kind)) + " here"});
  }
  if (!in.artifact) return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "no artifact to scan"});
  core::RunSpec spec;
  spec.bundle.entries = {core::BundleEntry::archive(*wire::RelPath::parse("package"), in.artifact, false)};
  spec.argv = {
      options_.command, std::string(*ecosystem_of(in.package.kind)), "scan", "package", "--output-format", "json"};
  spec.network = false;
  spec.limits = options_.limits;
  spec.timeout = options_.timeout;
  spec.label.scanner = options_.name;
  return std::vector<core::RunSpec>{std::move(spec)};
}

Expected<std::vector<Finding>, ScannerError> GuardDogScanner::map(const json& doc) const {
  std::vector<const json*> maps;
  if (doc.is_array()) {
    for (const json& o : doc) {
      if (const json* r = results_of(o)) maps.push_back(r);
    }
  } else if (const json* r = results_of(doc)) {
    maps.push_back(r);
  }
  if (maps.empty()) {
    return Unexpected(ScannerError{ScannerError::Kind::kOutput,
                                   "guarddog output carried no `results` object (neither at the top level nor as "
                                   "`result.results`)"});
  }
  // batlehub's own findings, weighed from several hits: high malware signals.
  auto combined = [this](std::string reference, std::string summary, const json& raw) {
    Finding f;
    f.scanner = options_.name;
    f.kind = FindingKind::kMalwareSignal;
    f.code = ReasonCode::kMalwareSignal;
    f.severity = Severity::kHigh;
    f.reference = std::move(reference);
    f.summary = std::move(summary);
    f.raw = compact(raw);
    return f;
  };
  std::vector<Finding> out;
  std::set<std::string> threats;  // distinct threat rules at medium or above, where they count
  // What each file that runs at install or import does, by GuardDog's hits in it.
  struct FileBehaviour {
    bool install = false;  // the file runs at install (setup.py, *.pth), else at import
    unsigned set = 0;      // finding_model::Behaviour bits
  };
  std::map<std::string, FileBehaviour> behaviour;
  for (const json* results : maps) {
    for (const auto& [rule, value] : results->items()) {
      for (const json& hit : hits_of(value)) {
        std::string message = hit.is_string() ? hit.get<std::string>() : string_or_empty(hit, "message");
        std::string location = string_or_empty(hit, "location");
        const finding_model::Place place = finding_model::place_of(location);
        Family fam = classify(rule, string_or_empty(hit, "match"), place, string_or_empty(hit, "code"));
        if (rule.starts_with("threat-") && fam.code == ReasonCode::kMalwareSignal &&
            fam.severity >= Severity::kMedium && !finding_model::unspecific(rule)) {
          threats.insert(rule);
        }
        const bool install = place == finding_model::Place::kInstallTime;
        if (!location.empty() &&
            (install || (place == finding_model::Place::kRuntime && finding_model::runs_at_import(location)))) {
          FileBehaviour& b = behaviour[std::string(finding_model::file_of(location))];
          b.install = install;
          b.set |= finding_model::behaviour_of(rule);
        }
        Finding f;
        f.scanner = options_.name;
        f.kind = fam.kind;
        f.code = fam.code;
        f.severity = fam.severity;
        f.reference = rule;
        f.summary = printable(rule);
        if (!message.empty()) f.summary += ": " + printable(message);
        if (!location.empty()) f.summary += " (" + printable(location) + ")";
        f.raw = compact(hit);
        out.push_back(std::move(f));
      }
    }
  }
  // Together they say more than each alone: three distinct specific threats in code that
  // installs or runs are what a malicious package looks like. The unspecific ones (a file
  // read, a download, base64 next to exec) are left out: a big library — huggingface-hub,
  // notebook's bundled front end, transformers — trips three of those.
  if (threats.size() >= kThreatsTogether) {
    std::string names;
    for (const auto& t : threats) names += (names.empty() ? "" : ", ") + t;
    out.push_back(
        combined("batlehub-threats-together",
                 std::to_string(threats.size()) + " distinct GuardDog threats in installed code: " + printable(names),
                 json{{"threats", std::vector<std::string>(threats.begin(), threats.end())}}));
  }
  // A file that runs on every machine that installs or imports the package, and fetches,
  // sends or names the network and executes, collects or conceals — or only connects, but
  // collects or conceals: a library's __init__ imports, a dropper's runs. A connection and
  // a process alone are a client with plugins (sphinx, pytest-rerunfailures, pyperclip), the
  // held-out halves showed. Each hit alone stays as GuardDog's table says.
  using finding_model::Behaviour;
  for (const auto& [file, b] : behaviour) {
    const unsigned set = b.set;
    const bool gathers_or_hides = (set & (Behaviour::kCollect | Behaviour::kConceal)) != 0;
    const bool reaches = ((set & Behaviour::kNetwork) != 0 && ((set & Behaviour::kExecute) != 0 || gathers_or_hides)) ||
                         ((set & Behaviour::kConnect) != 0 && gathers_or_hides);
    if (!reaches) continue;
    const bool install = b.install;
    out.push_back(combined("batlehub-behaviour-at-install-or-import",
                           printable(file) + (install ? " runs at install" : " runs at import") +
                               " and its code does all of: " + finding_model::behaviour_names(set),
                           json{{"location", file},
                                {"when", install ? "install" : "import"},
                                {"behaviour", finding_model::behaviour_names(set)}}));
  }
  return out;
}

Expected<std::vector<Finding>, ScannerError> GuardDogScanner::parse(
    const core::ScanInput&, const std::vector<core::RunOutcome>& results) const {
  if (results.size() != 1) {
    return Unexpected(
        ScannerError{ScannerError::Kind::kOther, "guarddog: expected one run, got " + std::to_string(results.size())});
  }
  const core::RunOutcome& r = results.front();
  if (!r) return Unexpected(core::to_scanner_error(r.error()));
  const int status = r->status;
  if (status != 0 && status != 1) {
    return Unexpected(ScannerError{ScannerError::Kind::kCrashed,
                                   "guarddog exited " + std::to_string(status) + ": " + trimmed_tail(r->stderr_tail)});
  }
  // GuardDog 3.2.0 exits 1 with nothing on stdout when it fails before reporting (its own
  // sandbox unavailable, an unreadable target): the stderr tail says why.
  if (r->stdout_bytes.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Unexpected(ScannerError{
        ScannerError::Kind::kOutput,
        "guarddog exited " + std::to_string(status) + " and printed no report: " + trimmed_tail(r->stderr_tail)});
  }
  auto doc = parse_json(r->stdout_bytes);
  if (!doc) return Unexpected(doc.error());
  return map(*doc);
}

}  // namespace batlehub::adapters
