#include "adapters/scanners/postmortem.h"

#include <algorithm>
#include <array>
#include <cctype>

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

std::string replace_all(std::string_view s, char from, char to) {
  std::string out(s);
  std::replace(out.begin(), out.end(), from, to);
  return out;
}

const std::string* string_at(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

const json* array_at(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return nullptr;
  return &*it;
}

// The last three '/'-separated segments, empty ones included (upstream's
// `rsplit('/').take(3)`, reversed and joined).
std::string last_three_segments(std::string_view location) {
  std::size_t end = location.size();
  for (int i = 0; i < 3 && end > 0; ++i) {
    std::size_t slash = location.rfind('/', end - 1);
    if (slash == std::string_view::npos) break;
    if (i == 2) return std::string(location.substr(slash + 1));
    end = slash;
  }
  return std::string(location);
}

// The first `n` characters (code points; the JSON parser has already refused invalid UTF-8).
std::string first_chars(const std::string& s, std::size_t n) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (chars == n) return s.substr(0, i);
    ++chars;
  }
  return s;
}

std::string trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  std::size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

ScannerError unsupported(std::string m) { return {ScannerError::Kind::kUnsupported, std::move(m)}; }

// postmortem's `Category` (src/model.rs: a closed serde enum, snake_case on the wire), each
// mapped by name to what the finding model has for it. `outdated` is not here: see
// map_category.
struct CategoryRow {
  std::string_view category;
  FindingKind kind;
  ReasonCode code;
};
constexpr std::array<CategoryRow, 11> kCategories{{
    // What the package's code does or carries.
    {"ioc", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
    {"obfuscation", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
    {"sensitive_api", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
    // It installs something that runs on its own afterwards (a service, a cron entry, a Run key).
    {"persistence", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
    // A set-id or world-writable file on an execution path: a dropper's trait, not a library's.
    {"weak_acl", FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
    {"install_hook", FindingKind::kInstallHook, ReasonCode::kInstallHook},
    // Upstream batlehub's mapping; no postmortem build read here emits it, a report that does
    // still means what it says.
    {"typosquat", FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect},
    // No valid signature, or a download never verified against one.
    {"unsigned", FindingKind::kSignature, ReasonCode::kSignatureMissing},
    // From outside the curated set: a tap, the AUR, a PPA, a custom source.
    {"third_party_source", FindingKind::kPublisher, ReasonCode::kUntrustedPublisher},
    // What is on disk no longer matches what was recorded for it.
    {"tamper", FindingKind::kProvenance, ReasonCode::kProvenanceInvalid},
    // The trust configuration is weakened or unverifiable (relaxed signature checking).
    {"policy", FindingKind::kProvenance, ReasonCode::kProvenanceUnverifiable},
}};

// postmortem's `Severity`: info, low, medium, high, critical (src/model.rs). `info` is below
// `low` in its own order and counts in none of its verdicts; the finding model's level below
// low is `unknown`, which no `max_severity` above it ever reaches. Anything else unreadable
// or absent is medium, as upstream.
Severity map_severity(const std::string* s) {
  if (!s) return Severity::kMedium;
  std::string lower = *s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "info") return Severity::kUnknown;
  return core::parse_severity(lower).value_or(Severity::kMedium);
}

// What stderr says when `scan` found no ecosystem at its path (src/cmd/scan.rs: ui.note,
// an unconditional eprintln, then exit 2).
constexpr std::string_view kNoEcosystem = "no supported ecosystem detected";

}  // namespace

std::optional<PostmortemLayout> postmortem_layout(PackageKind kind, std::string_view name_sv,
                                                  std::string_view version_sv) {
  const std::string name(name_sv);
  const std::string version(version_sv);
  PostmortemLayout l;
  switch (kind) {
    case PackageKind::kNpm: {
      l.dir = "node_modules/" + name;
      l.lockfile_name = "package-lock.json";
      json lock = {{"name", "batlehub-scan"},
                   {"version", "0.0.0"},
                   {"lockfileVersion", 3},
                   {"requires", true},
                   {"packages",
                    {{"", {{"name", "batlehub-scan"}, {"version", "0.0.0"}, {"dependencies", {{name, version}}}}},
                     {"node_modules/" + name, {{"version", version}}}}}};
      l.lockfile = compact(lock);
      l.manifest_name = "package.json";
      l.manifest = compact(json{{"name", "batlehub-scan"}, {"version", "0.0.0"}, {"dependencies", {{name, version}}}});
      return l;
    }
    case PackageKind::kPypi:
      l.dir = "site-packages/" + replace_all(name, '-', '_');
      l.lockfile_name = "requirements.txt";
      l.lockfile = name + "==" + version + "\n";
      return l;
    case PackageKind::kCargo:
      // postmortem reads a Rust project's own `<root>/src` and nothing else (its analyze
      // plan: dependencies live in ~/.cargo/registry, never walked), so the crate goes
      // under src/ — upstream's vendor/ left postmortem nothing to read.
      l.dir = "src/" + name + "-" + version;
      l.lockfile_name = "Cargo.lock";
      l.lockfile = "# This file is automatically @generated by Cargo.\nversion = 4\n\n[[package]]\nname = \"" + name +
                   "\"\nversion = \"" + version + "\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
      l.manifest_name = "Cargo.toml";
      l.manifest = "[package]\nname = \"batlehub-scan\"\nversion = \"0.0.0\"\n\n[dependencies]\n" + name + " = \"=" +
                   version + "\"\n";
      return l;
    case PackageKind::kRubygems:
      // A .gem is a plain tar of metadata.gz, data.tar.gz and checksums.yaml.gz. Upstream
      // extracted data.tar.gz in place; here the agent does, named by the bundle entry's
      // `descend` (PostmortemScanner::plan), and postmortem walks the root for Ruby.
      l.dir = "vendor/bundle/gems/" + name + "-" + version;
      l.lockfile_name = "Gemfile.lock";
      l.lockfile = "GEM\n  remote: https://rubygems.org/\n  specs:\n    " + name + " (" + version +
                   ")\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  " + name + "\n";
      l.manifest_name = "Gemfile";
      l.manifest = "source \"https://rubygems.org\"\ngem \"" + name + "\", \"" + version + "\"\n";
      return l;
    case PackageKind::kComposer:
      l.dir = "vendor/" + name;
      l.lockfile_name = "composer.lock";
      l.lockfile = compact(json{{"packages", json::array({{{"name", name}, {"version", version}}})},
                                {"packages-dev", json::array()}});
      l.manifest_name = "composer.json";
      l.manifest = compact(json{{"require", {{name, version}}}});
      return l;
    case PackageKind::kGoproxy:
      l.dir = "vendor/" + name;
      l.lockfile_name = "go.sum";
      l.lockfile = name + " " + version + " h1:" + std::string(43, 'A') + "=\n";
      l.manifest_name = "go.mod";
      l.manifest = "module batlehub-scan\n\ngo 1.22\n\nrequire " + name + " " + version + "\n";
      return l;
    case PackageKind::kMaven: {
      l.dir = "target/dependency/" + replace_all(name, ':', '-');
      l.lockfile_name = "pom.xml";
      std::size_t colon = name.find(':');
      std::string group = colon == std::string::npos ? "unknown" : name.substr(0, colon);
      std::string artifact = colon == std::string::npos ? name : name.substr(colon + 1);
      l.lockfile =
          "<project><modelVersion>4.0.0</modelVersion><groupId>batlehub</groupId><artifactId>scan</artifactId>"
          "<version>0.0.0</version><dependencies><dependency><groupId>" +
          group + "</groupId><artifactId>" + artifact + "</artifactId><version>" + version +
          "</version></dependency></dependencies></project>\n";
      return l;
    }
    case PackageKind::kNuget:
    case PackageKind::kConda: return std::nullopt;
  }
  return std::nullopt;
}

bool PostmortemScanner::supports(PackageKind k) const {
  switch (k) {
    case PackageKind::kNpm:
    case PackageKind::kPypi:
    case PackageKind::kCargo:
    case PackageKind::kRubygems:
    case PackageKind::kComposer:
    case PackageKind::kGoproxy:
    case PackageKind::kMaven: return true;
    case PackageKind::kNuget:
    case PackageKind::kConda: return false;
  }
  return false;
}

Expected<std::vector<core::RunSpec>, ScannerError> PostmortemScanner::plan(const core::ScanInput& in) const {
  const core::Package& p = in.package;
  auto layout = supports(p.kind) ? postmortem_layout(p.kind, p.name, p.version) : std::nullopt;
  if (!layout) return Unexpected(unsupported("postmortem has no project layout for " + std::string(core::to_string(p.kind))));
  if (!in.artifact) return Unexpected(unsupported("postmortem needs the artifact bytes and none were provided"));
  auto dir = wire::RelPath::parse(layout->dir);
  if (!dir) return Unexpected(unsupported("postmortem cannot lay out " + p.coordinate() + ": " + dir.error()));

  core::RunSpec scan;
  scan.label.scanner = options_.name;
  scan.limits = options_.limits;
  scan.timeout = options_.timeout;
  scan.network = options_.online;
  // The artifact where the ecosystem keeps a dependency, its single wrapper directory
  // (`package/`, `<name>-<version>/`) stripped, as upstream's materialise did; for a gem,
  // data.tar.gz extracted in its place and removed, as upstream did too — by the agent,
  // under the same budget as the gem (wire 2's `descend`).
  scan.bundle.entries.push_back(
      core::BundleEntry::archive(std::move(*dir), in.artifact, /*strip_wrapper=*/true, sources_member(p.kind)));
  scan.bundle.entries.push_back(
      core::BundleEntry::inline_file(*wire::RelPath::parse(layout->lockfile_name), std::move(layout->lockfile)));
  if (layout->manifest_name) {
    scan.bundle.entries.push_back(
        core::BundleEntry::inline_file(*wire::RelPath::parse(*layout->manifest_name), std::move(layout->manifest)));
  }
  scan.argv = {options_.command, "scan", ".", "--json", "-o", "-", "--no-config", "--no-progress", "--severity", "critical"};
  if (options_.online) scan.argv.emplace_back("--enrich");

  std::vector<core::RunSpec> runs;
  // A name that would read as an option is not handed to `timeline` (npm names cannot
  // start with '-'; a registry that let one through gets no timeline, not an injected flag).
  bool timeline = options_.timeline && p.kind == PackageKind::kNpm && !p.name.starts_with('-');
  if (timeline) {
    // RFC 0022 §4.2: its own run, an empty bundle, the network on. It queries the registry
    // by name and never shares a filesystem with the artifact.
    core::RunSpec t;
    t.label = scan.label;
    t.limits = options_.limits;
    t.timeout = options_.timeout;
    t.network = true;
    t.argv = {options_.command, "timeline", p.name, "--json", "-o", "-", "--no-progress"};
    runs.push_back(std::move(scan));
    runs.push_back(std::move(t));
  } else {
    runs.push_back(std::move(scan));
  }
  return runs;
}

Expected<std::vector<Finding>, ScannerError> PostmortemScanner::parse(const core::ScanInput& in,
                                                                     const std::vector<core::RunOutcome>& results) const {
  if (results.empty()) return Unexpected(ScannerError{ScannerError::Kind::kOther, "postmortem: no run came back"});
  const core::RunOutcome& scan = results[0];
  if (!scan) return Unexpected(core::to_scanner_error(scan.error()));
  switch (scan->status) {
    case 0:  // nothing at or above --severity
      break;
    case 1:
      // The gate tripped (the report is on stdout, written before the exit) — or main()
      // returned an error: anyhow prints "Error: …" on stderr and the process exits 1 with
      // nothing on stdout. Only the first is an answer.
      if (trim(scan->stdout_bytes).empty()) {
        return Unexpected(ScannerError{ScannerError::Kind::kCrashed,
                                       "postmortem failed (exit 1, nothing on stdout): " + trim(scan->stderr_tail)});
      }
      break;
    case 2:
      // Exit 2 is also clap refusing the command line (a postmortem that does not know a
      // flag this adapter passes): only postmortem's own words make it "no ecosystem".
      if (scan->stderr_tail.find(kNoEcosystem) != std::string::npos) {
        return Unexpected(unsupported("postmortem recognised no ecosystem in the materialised project (" +
                                      trim(scan->stderr_tail) + ")"));
      }
      return Unexpected(
          ScannerError{ScannerError::Kind::kOther,
                       "postmortem refused to scan (exit 2, not a missing ecosystem; its command line?): " +
                           trim(scan->stderr_tail)});
    default:
      return Unexpected(ScannerError{ScannerError::Kind::kCrashed, "postmortem exited " + std::to_string(scan->status) +
                                                                       ": " + trim(scan->stderr_tail)});
  }
  auto doc = parse_json(scan->stdout_bytes);
  if (!doc) return Unexpected(doc.error());
  std::vector<Finding> findings = map_scan(*doc);

  if (results.size() > 1) {
    const core::RunOutcome& t = results[1];
    // Only an exit 0 is an answer. The registry unreachable, the package not on npmjs.org,
    // a sandbox that failed: the timeline is skipped and the scan's findings stand.
    if (t && t->status == 0) {
      auto tdoc = parse_json(t->stdout_bytes);
      if (!tdoc) return Unexpected(tdoc.error());  // as upstream: an unreadable answer fails the scan
      auto transitions = map_timeline(*tdoc, in.package.version);
      findings.insert(findings.end(), std::make_move_iterator(transitions.begin()),
                      std::make_move_iterator(transitions.end()));
    }
  }
  return findings;
}

std::vector<Finding> PostmortemScanner::map_scan(const json& doc) const {
  std::vector<Finding> out;
  const json* findings = array_at(doc, "findings");
  if (!findings) return out;  // a missing array is zero findings, not an error
  for (const json& f : *findings) {
    const std::string* cat = string_at(f, "category");
    const std::string category = cat ? *cat : "";
    // `outdated` says a newer version exists: nothing about this version's contents (what
    // an old version lacks is the vulnerability scanners' question). Not a finding.
    if (category == "outdated") continue;
    Finding x;
    x.scanner = options_.name;
    x.severity = map_severity(string_at(f, "severity"));
    const std::string* detail = string_at(f, "detail");
    const std::string* loc = string_at(f, "location");
    std::string location = loc ? last_three_segments(*loc) : "";
    x.summary = detail ? *detail : category;
    if (!location.empty()) x.summary += " (" + location + ")";
    auto row = std::find_if(kCategories.begin(), kCategories.end(),
                            [&](const CategoryRow& r) { return r.category == category; });
    if (row != kCategories.end()) {
      x.kind = row->kind;
      x.code = row->code;
    } else {
      // A category postmortem's closed enum did not have when this was written: a build
      // the adapter does not speak. Naming it MALWARE_SIGNAL would invent its meaning and
      // dropping it would hide a detection; as a scanner error it goes through the
      // operator's scanner_error policy (quarantine by default) beside the run's other
      // findings, and says which category to map.
      x.kind = FindingKind::kScannerError;
      x.code = ReasonCode::kScannerError;
      x.severity = Severity::kHigh;
      x.summary = "postmortem reported a category this adapter does not know ('" + first_chars(category, 64) + "')";
      if (detail) x.summary += ": " + *detail;
      if (!location.empty()) x.summary += " (" + location + ")";
    }
    if (const std::string* evidence = string_at(f, "evidence")) x.reference = first_chars(*evidence, 120);
    x.raw = compact(f);
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> PostmortemScanner::map_timeline(const json& doc, std::string_view version) const {
  std::vector<Finding> out;
  const json* releases = array_at(doc, "releases");
  if (!releases) return out;
  const json* release = nullptr;
  for (const json& r : *releases) {
    const std::string* v = string_at(r, "version");
    if (v && *v == version) {
      release = &r;
      break;
    }
  }
  if (!release) {
    // The registry no longer lists it: the strongest transition of all.
    Finding x;
    x.scanner = options_.name;
    x.kind = FindingKind::kTransition;
    x.code = ReasonCode::kUnpublishedUpstream;
    x.severity = Severity::kHigh;
    x.summary = "version " + std::string(version) + " is not in the registry's release history";
    out.push_back(std::move(x));
    return out;
  }
  const json* events = array_at(*release, "events");
  if (!events) return out;
  for (const json& e : *events) {
    const std::string* k = string_at(e, "kind");
    const std::string kind = k ? *k : "";
    ReasonCode code;
    if (kind == "publisher_changed" || kind == "maintainer_changed") {
      code = ReasonCode::kPublisherChanged;
    } else if (kind == "script_added" || kind == "install_script_added" || kind == "install_hook_added") {
      code = ReasonCode::kInstallHookAdded;
    } else if (kind == "repo_changed" || kind == "repository_changed" || kind == "repository_moved") {
      code = ReasonCode::kRepositoryMoved;
    } else if (kind == "dormancy" || kind == "dormant" || kind == "dormant_release") {
      code = ReasonCode::kDormantRelease;
    } else if (kind == "provenance_removed" || kind == "attestation_removed") {
      code = ReasonCode::kProvenanceRemoved;
    } else {
      continue;  // first_release, deprecated and the like: history, not a transition
    }
    const std::string* detail = string_at(e, "detail");
    Finding x;
    x.scanner = options_.name;
    x.kind = FindingKind::kTransition;
    x.code = code;
    x.severity = Severity::kMedium;
    x.summary = (detail ? *detail : kind) + " (at " + std::string(version) + ")";
    x.raw = compact(e);
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace batlehub::adapters
