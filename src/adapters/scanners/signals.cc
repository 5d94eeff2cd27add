#include "adapters/scanners/signals.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <tuple>

#include "adapters/scanners/finding_model.h"
#include "adapters/scanners/subprocess.h"

namespace batlehub::adapters {

using core::Finding;
using core::ScannerError;
using core::Severity;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxFindings = 200;

ScannerError output_error(std::string what) {
  return ScannerError{ScannerError::Kind::kOutput, "batlehub-signals output: " + std::move(what)};
}

std::string string_field(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

bool at_install(const SignalsFact& f) {
  return f.phase == "install" || finding_model::place_of(f.file) == finding_model::Place::kInstallTime;
}

bool at_install_or_import(const SignalsFact& f) {
  return at_install(f) || f.phase == "require" || finding_model::runs_at_import(f.file);
}

// The severity of a fact's finding where its file sits; an npm hook's script is install
// code wherever it lies. A bundler's output (`generated`: the scanner saw its helpers) holds
// other projects' code copied in, and weighs as a vendored copy unless it runs at install or
// is the entry point (docs/verdicts.md: a broad signal never blocks alone in bundled code).
Severity placed(Severity base, const SignalsFact& f, bool generated) {
  auto place = finding_model::place_of(f.file);
  if (generated && place == finding_model::Place::kRuntime) place = finding_model::Place::kBundled;
  if (f.phase == "install") place = finding_model::Place::kInstallTime;
  if (f.phase == "require" && place == finding_model::Place::kBundled) place = finding_model::Place::kRuntime;
  return finding_model::at(base, place);
}

std::string where(const SignalsFact& f) {
  return printable(f.file) + (f.line > 0 ? ":" + std::to_string(f.line) : "");
}

// A send fact's kind that only names where data would go (a URL of a capture, paste or chat
// service in a string), as against one that sends (an HTTP client, a socket, a DNS look-up).
bool names_a_channel(const std::string& kind) {
  return kind == "capture" || kind == "paste" || kind == "webhook" || kind == "telegram";
}

bool makes_a_send(const std::set<std::string>& kinds) {
  return !std::all_of(kinds.begin(), kinds.end(), names_a_channel);
}

json raw_of(const SignalsFact& f) {
  json j = {{"fact", f.fact}, {"what", f.what}, {"file", f.file}, {"line", f.line}, {"detail", f.detail}};
  if (!f.phase.empty()) j["phase"] = f.phase;
  return j;
}

}  // namespace

Expected<std::vector<SignalsFact>, ScannerError> parse_signals_output(std::string_view out) {
  std::vector<SignalsFact> facts;
  bool done = false;
  std::size_t n = 0;
  std::size_t k = 0;
  while (k < out.size()) {
    std::size_t e = out.find('\n', k);
    if (e == std::string_view::npos) e = out.size();
    const std::string_view line = out.substr(k, e - k);
    k = e + 1;
    ++n;
    if (line.empty()) continue;
    if (done) return Unexpected(output_error("line " + std::to_string(n) + " follows the done line"));
    if (n > kSignalsMaxLines)
      return Unexpected(output_error("more than " + std::to_string(kSignalsMaxLines) + " lines"));
    if (line.size() > kSignalsMaxLineBytes) {
      return Unexpected(output_error("line " + std::to_string(n) + " is " + std::to_string(line.size()) +
                                     " bytes, over " + std::to_string(kSignalsMaxLineBytes)));
    }
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return Unexpected(output_error("line " + std::to_string(n) + " is not a JSON object"));
    if (j.contains("done")) {
      done = true;
      continue;
    }
    SignalsFact f;
    f.fact = string_field(j, "fact");
    f.what = string_field(j, "what");
    f.file = string_field(j, "file");
    f.phase = string_field(j, "phase");
    f.detail = string_field(j, "detail");
    if (auto l = j.find("line"); l != j.end() && l->is_number_unsigned()) f.line = l->get<std::size_t>();
    if (f.fact.empty() || f.file.empty()) {
      return Unexpected(output_error("line " + std::to_string(n) + " has no \"fact\" or no \"file\""));
    }
    facts.push_back(std::move(f));
  }
  if (!done) return Unexpected(output_error("no done line: the scan was cut short"));
  return facts;
}

std::vector<Finding> weigh_signals(const std::vector<SignalsFact>& facts, const std::string& scanner) {
  std::vector<Finding> out;
  std::set<std::string, std::less<>> generated;
  for (const SignalsFact& f : facts) {
    if (f.fact == "generated") generated.insert(f.file);
  }
  std::set<std::tuple<std::string, std::string, std::size_t>> seen;
  auto add = [&](const SignalsFact& f, std::string rule, Severity base, std::string summary, json raw) {
    if (out.size() >= kMaxFindings || !seen.emplace(rule, f.file, f.line).second) return;
    Finding x;
    x.scanner = scanner;
    x.kind = core::FindingKind::kMalwareSignal;
    x.code = core::ReasonCode::kMalwareSignal;
    x.severity = placed(base, f, generated.contains(f.file));
    x.reference = std::move(rule);
    x.summary = where(f) + " " + std::move(summary);
    x.raw = compact(raw);
    out.push_back(std::move(x));
  };
  struct Gathered {
    std::set<std::string> collected;
    std::set<std::string> sent;
    std::vector<const SignalsFact*> facts;
  };
  std::map<std::string, Gathered> by_file;
  std::vector<const SignalsFact*> hidden;
  for (const SignalsFact& f : facts) {
    if (f.fact == "decoded-executed") {
      add(f, "signals-decoded-payload-executed", Severity::kHigh,
          "decodes a string (" + printable(f.what) + ") that reads as code and runs it: " + printable(f.detail),
          raw_of(f));
    } else if (f.fact == "decoded-code") {
      add(f, "signals-decoded-code", Severity::kMedium,
          "decodes a string (" + printable(f.what) + ") that reads as code: " + printable(f.detail), raw_of(f));
    } else if (f.fact == "fetched-executed") {
      add(f, "signals-fetched-code-executed", Severity::kHigh,
          "runs code the network sends it (exec/eval of a download): " + printable(f.detail), raw_of(f));
    } else if (f.fact == "key-sent") {
      // Wherever it runs: a function that posts the key it is given to its author's address
      // steals each wallet it is called with, and is called only when it is used.
      add(f, "signals-wallet-key-sent", Severity::kHigh,
          "sends a wallet's private key or seed phrase (" + printable(f.what) +
              ") to an address written in the package: " + printable(f.detail),
          raw_of(f));
    } else if (f.fact == "disguised-name") {
      // Python reads look-alike letters as ASCII (PEP 3131): a runner written so is hidden
      // on purpose; any other name so written is an oddity worth a warning.
      static const std::set<std::string, std::less<>> kRunners{
          "exec",  "eval",      "compile",      "__import__", "getattr", "globals", "system",
          "popen", "b64decode", "loads",        "decompress", "open",    "urlopen", "Popen",
          "run",   "call",      "check_output", "startfile",  "spawn"};
      add(f, "signals-disguised-name", kRunners.contains(f.what) ? Severity::kHigh : Severity::kMedium,
          "writes a name in look-alike letters that Python reads as " + printable(f.what) + ": " + printable(f.detail),
          raw_of(f));
    } else if (f.fact == "persist" && f.what == "browser-extension") {
      // No library edits the user's browser shortcuts: high wherever it lies.
      add(f, "signals-browser-shortcut-hijacked", Severity::kHigh,
          "rewrites a browser's shortcuts to load an extension at every start: " + printable(f.detail), raw_of(f));
    } else if (f.fact == "persist") {
      // Medium where it lies (an auto-launch library's job), high in install code.
      add(f, "signals-autostart-written", Severity::kMedium,
          "names an autostart place (a program started at every login): " + printable(f.detail), raw_of(f));
    } else if (f.fact == "decoding-bomb") {
      add(f, "signals-decoding-bomb", Severity::kMedium, "holds a decoding bomb: " + printable(f.detail), raw_of(f));
    } else if (f.fact == "shell") {
      static const std::map<std::string, std::string, std::less<>> kSays{
          {"download-executed", "downloads a program and runs it"},
          {"download-piped-to-shell", "pipes a download into an interpreter"},
          {"reverse-shell", "binds a shell to a network connection (a reverse shell)"},
          {"miner", "starts a cryptocurrency miner"},
          {"collected-and-sent", "sends what it collects from the host"},
          {"program-started-detached", "starts a program in the background and lets it go"}};
      auto says = kSays.find(f.what);
      if (says == kSays.end()) continue;
      // A detached program is every launcher in a library; at install it is a dropper's. A
      // vendor's installer piped to sh is what a CLI offers to run when asked (@dotenvx/dotenvx,
      // held-out-6; @railway/cli, held-out-7), and on the 2,187 archives scored 2026-12-06 it
      // decided no malicious one alone: high at install or import, medium elsewhere.
      // A downloaded program run is the same (pymongo's CI script under .evergreen; on the
      // tuning half of 2026-12-07 it hit no malicious archive at all).
      const bool by_place =
          f.what == "program-started-detached" ||
          ((f.what == "download-piped-to-shell" || f.what == "download-executed") && !at_install_or_import(f));
      const Severity base = by_place ? Severity::kMedium : Severity::kHigh;
      add(f, "signals-shell-" + f.what, base, says->second + ": " + printable(f.detail), raw_of(f));
    } else if (f.fact == "hidden-address") {
      hidden.push_back(&f);
    } else if (f.fact == "collect" || f.fact == "send") {
      Gathered& g = by_file[f.file];
      (f.fact == "collect" ? g.collected : g.sent).insert(f.what);
      g.facts.push_back(&f);
    }
  }
  // An address decoded at run time from a string that hides it, in a file that sends: the
  // endpoint was hidden from a reader on purpose (a library writes its own in clear), so the
  // sending goes where nobody was meant to see. High wherever it lies, as a key sent is: the
  // function that sends may be called only when it is used. Without a send in the file it
  // is an oddity worth a line in `batlehub why`.
  for (const SignalsFact* f : hidden) {
    auto g = by_file.find(f->file);
    const bool sends = g != by_file.end() && !g->second.sent.empty();
    if (sends) {
      add(*f, "signals-hidden-address-sent", Severity::kHigh,
          "sends to an address it hides (" + printable(f->what) + "): " + printable(f->detail), raw_of(*f));
    } else {
      add(*f, "signals-hidden-address", Severity::kMedium,
          "hides an address (" + printable(f->what) + "): " + printable(f->detail), raw_of(*f));
    }
  }
  for (const auto& [file, g] : by_file) {
    // A request-capture service (webhook.site, pipedream, interactsh, dnshook) sent to from
    // code that runs at install or import: a dependency-confusion probe's beacon, whatever it
    // carries (dell-recovery posts its working directory). A library has no capture service
    // in its import path; a chat webhook or a paste site named there is a notifier's.
    const bool beacon = g.sent.contains("capture") && makes_a_send(g.sent);
    const auto early_send =
        std::find_if(g.facts.begin(), g.facts.end(), [](const SignalsFact* f) { return at_install_or_import(*f); });
    if (beacon && g.collected.empty() && early_send != g.facts.end()) {
      const SignalsFact* capture = *early_send;
      for (const SignalsFact* f : g.facts) {
        if (f->what == "capture") capture = f;
      }
      SignalsFact at = *capture;
      at.phase = (*early_send)->phase;
      add(at, "signals-capture-service-at-install-or-import", Severity::kHigh,
          "sends to a request-capture service (" + printable(capture->detail) +
              ") from code that runs at install or import: a probe's beacon",
          raw_of(*capture));
    }
    if (g.collected.empty() || g.sent.empty()) continue;
    const SignalsFact& first = *g.facts.front();
    const bool early =
        std::any_of(g.facts.begin(), g.facts.end(), [](const SignalsFact* f) { return at_install_or_import(*f); });
    auto join = [](const std::set<std::string>& s) {
      std::string o;
      for (const auto& x : s) o += (o.empty() ? "" : ", ") + printable(x);  // the scanner's words: untrusted
      return o;
    };
    std::string evidence;
    json raw = json::array();
    for (const SignalsFact* f : g.facts) {
      if (evidence.size() < 300)
        evidence += (evidence.empty() ? "" : "; ") + printable(f->detail) + " (line " + std::to_string(f->line) + ")";
      if (raw.size() < 16) raw.push_back(raw_of(*f));
    }
    const std::string what = "collects " + join(g.collected) + " and sends (" + join(g.sent) + ")";
    // A channel named, and a send made: a string naming webhook.site in a docstring's example
    // or a pentest tool's settings (huggingface_hub, sqlmap) sends nothing by itself.
    const bool sends = makes_a_send(g.sent);
    // A Telegram bot library's client sends to a chat service as its URL would.
    const bool to_a_channel = sends && std::any_of(g.sent.begin(), g.sent.end(), [](const std::string& k) {
                                return names_a_channel(k) || k == "telegram-bot";
                              });
    // Where the collecting is: the first collect fact's line.
    const SignalsFact* at = &first;
    for (const SignalsFact* f : g.facts) {
      if (f->fact == "collect") {
        at = f;
        break;
      }
    }
    SignalsFact placed_at = *at;
    if (std::any_of(g.facts.begin(), g.facts.end(), [](const SignalsFact* f) { return f->phase == "install"; }))
      placed_at.phase = "install";
    else if (std::any_of(g.facts.begin(), g.facts.end(), [](const SignalsFact* f) { return f->phase == "require"; }))
      placed_at.phase = "require";
    if (g.collected.contains("form-secrets")) {
      add(placed_at, "signals-form-secrets-sent", Severity::kHigh,
          what + ": a page's password or card fields read on submit and sent: " + evidence, json{{"facts", raw}});
    } else if (g.collected.contains("token-store")) {
      add(placed_at, "signals-token-store-sent", Severity::kHigh, what + ": a token store read and sent: " + evidence,
          json{{"facts", raw}});
    } else if ((to_a_channel && (g.collected.contains("credential-file") || g.collected.contains("environment") ||
                                 g.collected.contains("device-files"))) ||
               (sends && g.sent.contains("capture") && g.collected.contains("host"))) {
      // A capture, paste or chat service is an address nobody reads their own keys back
      // from: credentials or the whole environment sent there are stolen, in whatever
      // function (ase-jreq's CLI posts ~/.aws/credentials to pipedream), and so are a
      // phone's files (blackspammerbd-termux walks /sdcard into a Telegram bot). Host identity to a
      // chat webhook is not (a notifier posts its hostname when a job ends); to a
      // request-capture service (pipedream, webhook.site, interactsh) it is a probe's beacon.
      add(placed_at, "signals-secrets-sent-to-a-channel", Severity::kHigh,
          what + ": credentials, the environment or the host's identity sent to a capture, paste or chat service: " +
              evidence,
          json{{"facts", raw}});
    } else if (early) {
      add(placed_at, "signals-collected-and-sent-at-install-or-import", Severity::kHigh,
          what + (at_install(placed_at) ? ", at install: " : ", at import: ") + evidence, json{{"facts", raw}});
    }
  }
  return out;
}

Expected<std::vector<core::RunSpec>, ScannerError> SignalsScanner::plan(const core::ScanInput& in) const {
  if (!in.artifact) return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "no artifact to scan"});
  core::RunSpec spec;
  spec.bundle.entries = {core::BundleEntry::archive(*wire::RelPath::parse("scan/tree"), in.artifact, false,
                                                    sources_member(in.package.kind))};
  spec.argv = {options_.command, "scan/tree"};
  spec.network = false;
  spec.limits = options_.limits;
  spec.timeout = options_.timeout;
  spec.label.scanner = options_.name;
  return std::vector<core::RunSpec>{std::move(spec)};
}

Expected<std::vector<Finding>, ScannerError> SignalsScanner::parse(const core::ScanInput&,
                                                                   const std::vector<core::RunOutcome>& results) const {
  auto r = one_clean_run(results, "batlehub-signals");
  if (!r) return Unexpected(r.error());
  auto facts = parse_signals_output((*r)->stdout_bytes);
  if (!facts) return Unexpected(facts.error());
  return weigh_signals(*facts, options_.name);
}

}  // namespace batlehub::adapters
