#include "adapters/scanners/behavior.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "adapters/scanners/subprocess.h"
#include "signals/shell.h"

namespace batlehub::adapters {

using core::Finding;
using core::ScannerError;
using core::Severity;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxFindings = 64;
constexpr std::size_t kSummaryItems = 5;

ScannerError output_error(std::string what) {
  return ScannerError{ScannerError::Kind::kOutput, "batlehub-behavior output: " + std::move(what)};
}

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return "";
  std::string s = it->get<std::string>();
  if (s.size() > kBehaviorMaxField) s.resize(kBehaviorMaxField);
  return s;
}

bool flag(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

std::uint64_t number(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

// A decoy whose reading is a stealer's work: no tool reads them for the package's user.
// The rest (cloud, registry, git, docker, kube credentials) are read by the tools a build
// script may run (npm reads ~/.npmrc), so reading them alone says less.
constexpr std::array<std::string_view, 9> kTokenStores = {
    "ssh-key",        "browser-logins",      "browser-cookies",  "browser-local-state",
    "firefox-logins", "discord-token-store", "telegram-session", "wallet",
    "shell-history"};

bool token_store(std::string_view decoy) {
  return std::find(kTokenStores.begin(), kTokenStores.end(), decoy) != kTokenStores.end();
}

bool counts(const BehaviorEvent& e) {
  return e.phase == "install" || e.phase == "import" || e.phase == "execute";
}

// What a function does when the detonation calls it with stand-in arguments (the execute
// phase) is what a library does for its caller — a cookie reader reads cookies, a deploy tool
// starts a shell — so it weighs a step less than the same at install or import; only a
// decoy's canary sent stays a block, whoever asked for it.
Severity in_phase(Severity s, const std::string& phase) {
  if (phase != "execute") return s;
  switch (s) {
    case Severity::kCritical:
      return Severity::kHigh;
    case Severity::kHigh:
      return Severity::kMedium;
    case Severity::kMedium:
      return Severity::kLow;
    default:
      return s;
  }
}

std::string basename_of(std::string_view p) {
  const std::size_t slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

// A place a program started at every login, every boot or every Python start reads.
bool persistence_place(std::string_view resolved, std::string_view home) {
  if (resolved.starts_with("/etc/") || resolved.starts_with("/var/spool/cron") ||
      resolved.starts_with("/lib/systemd/") || resolved.starts_with("/usr/lib/systemd/") ||
      resolved.ends_with(".pth")) {
    return true;
  }
  if (home.empty() || !resolved.starts_with(home) || resolved.size() <= home.size() + 1 ||
      resolved[home.size()] != '/') {
    return false;
  }
  const std::string_view rel = resolved.substr(home.size() + 1);
  for (std::string_view rc : {".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile",
                              ".ssh/authorized_keys", ".config/fish/config.fish"}) {
    if (rel == rc) return true;
  }
  for (std::string_view dir : {".config/autostart/", ".config/systemd/", ".local/share/systemd/", ".kde/Autostart/"}) {
    if (rel.starts_with(dir)) return true;
  }
  return false;
}

std::string destination(const BehaviorEvent& e) {
  std::string where = e.host.empty() ? e.address : e.host;
  if (e.port != 0) where += ":" + std::to_string(e.port);
  return printable(where);
}

// The command line an exec ran, as the shell would have written it: what judge_shell reads.
std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    if (!line.empty()) line += ' ';
    if (a.find_first_of(" \t\n'\"\\$`;&|<>()") == std::string::npos && !a.empty()) {
      line += a;
    } else {
      line += '\'';
      for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += '\'';
    }
  }
  return line;
}

bool is_shell(std::string_view name) {
  return name == "sh" || name == "bash" || name == "dash" || name == "zsh" || name == "ksh" || name == "busybox";
}

// A shell given nothing to run — no -c, no script — reads its commands from its input: what
// a reverse shell (pty.spawn("/bin/sh"), `sh -i`) starts, never what a build step does.
// A reverse shell's shell: one made interactive (-i: no build script asks for it), or one that
// reads its commands from its input (no -c, no script, or -s) when that input is a connection
// or a terminal the package made (pty.spawn). A shell fed a script through a pipe — autoconf's
// configure does it — reads its input too, from a pipe: not a finding.
bool interactive(const BehaviorEvent& e) {
  const std::vector<std::string>& argv = e.argv;
  bool reads_input = true;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-i") return true;
    if (argv[i] == "-c" || argv[i] == "-s" || argv[i].empty() || argv[i][0] != '-') {
      reads_input = argv[i] == "-s";
      break;
    }
  }
  return reads_input && (e.stdin_kind == "socket" || e.stdin_kind == "terminal");
}

bool is_downloader(std::string_view name) {
  for (std::string_view d : {"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp", "aria2c"}) {
    if (name == d) return true;
  }
  return false;
}

json raw_of(const BehaviorEvent& e) {
  json j = {{"kind", e.kind}, {"phase", e.phase}};
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) j[k] = v;
  };
  put("path", e.path);
  put("resolved", e.resolved);
  put("stdin", e.stdin_kind);
  if (!e.argv.empty()) j["argv"] = e.argv;
  put("address", e.address);
  if (e.port != 0) j["port"] = e.port;
  put("host", e.host);
  put("protocol", e.protocol);
  put("request_line", e.request_line);
  put("head", e.head.substr(0, 512));
  put("decoy", e.decoy);
  if (e.canary) j["canary"] = true;
  if (e.identity) j["identity"] = true;
  if (e.written) j["written"] = true;
  return j;
}

}  // namespace

Expected<BehaviorTrace, ScannerError> parse_behavior_output(std::string_view out) {
  if (out.size() > kBehaviorMaxBytes) {
    return Unexpected(
        output_error(std::to_string(out.size()) + " bytes, over the bound of " + std::to_string(kBehaviorMaxBytes)));
  }
  auto doc = parse_json(out);
  if (!doc) return Unexpected(doc.error());
  const json& d = *doc;
  auto version = d.is_object() ? d.find("behavior") : d.end();
  if (!d.is_object() || version == d.end() || !version->is_number_integer() || version->get<std::int64_t>() != 1) {
    return Unexpected(output_error("not a trace of version 1 (no \"behavior\": 1)"));
  }
  auto phases = d.find("phases");
  auto events = d.find("events");
  if (phases == d.end() || !phases->is_array() || events == d.end() || !events->is_array()) {
    return Unexpected(output_error("\"phases\" and \"events\" must be arrays"));
  }
  if (events->size() > kBehaviorMaxEvents) {
    return Unexpected(output_error(std::to_string(events->size()) + " events, over the bound of " +
                                   std::to_string(kBehaviorMaxEvents)));
  }
  BehaviorTrace t;
  t.ecosystem = str(d, "ecosystem");
  t.home = str(d, "home");
  for (std::size_t i = 0; i < phases->size() && i < 256; ++i) {
    const json& p = (*phases)[i];
    if (!p.is_object()) return Unexpected(output_error("phase " + std::to_string(i) + " is not an object"));
    BehaviorPhase bp;
    bp.phase = str(p, "phase");
    bp.started = flag(p, "started");
    bp.timed_out = flag(p, "timed_out");
    if (auto c = p.find("exit_code"); c != p.end() && c->is_number_integer()) bp.exit_code = c->get<int>();
    bp.output_tail = str(p, "output_tail");
    t.phases.push_back(std::move(bp));
  }
  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    if (!e.is_object() || !e.contains("kind") || !e["kind"].is_string()) {
      return Unexpected(output_error("event " + std::to_string(i) + " is not an object with a kind"));
    }
    BehaviorEvent be;
    be.kind = str(e, "kind");
    be.phase = str(e, "phase");
    for (auto [field, key] : {std::pair{&be.path, "path"},
                              {&be.resolved, "resolved"},
                              {&be.family, "family"},
                              {&be.address, "address"},
                              {&be.host, "host"},
                              {&be.qtype, "qtype"},
                              {&be.protocol, "protocol"},
                              {&be.request_line, "request_line"},
                              {&be.head, "head"},
                              {&be.decoy, "decoy"},
                              {&be.what, "what"},
                              {&be.view, "view"},
                              {&be.stdin_kind, "stdin"}}) {
      *field = str(e, key);
    }
    if (auto a = e.find("argv"); a != e.end() && a->is_array()) {
      for (std::size_t k = 0; k < a->size() && k < 64; ++k) {
        if ((*a)[k].is_string()) be.argv.push_back((*a)[k].get<std::string>().substr(0, kBehaviorMaxField));
      }
    }
    const std::uint64_t port = number(e, "port");
    be.port = port <= 65535 ? static_cast<std::uint16_t>(port) : 0;
    be.write = flag(e, "write");
    be.canary = flag(e, "canary");
    be.identity = flag(e, "identity");
    be.written = flag(e, "written");
    be.bytes = number(e, "bytes");
    be.count = number(e, "count");
    t.events.push_back(std::move(be));
  }
  return t;
}

std::vector<Finding> weigh_behavior(const BehaviorTrace& t, const std::string& scanner) {
  std::vector<Finding> out;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  auto add = [&](const BehaviorEvent& e, const std::string& rule, Severity s, const std::string& key,
                 std::string summary, json raw) {
    if (out.size() >= kMaxFindings || !seen.emplace(rule, e.phase, key).second) return;
    Finding f;
    f.scanner = scanner;
    f.kind = core::FindingKind::kMalwareSignal;
    f.code = core::ReasonCode::kMalwareSignal;
    f.severity = in_phase(s, e.phase);
    f.reference = rule;
    f.summary = "at " + e.phase + (e.view == "windows" ? " as Windows" : "") + ", " + std::move(summary);
    f.raw = compact(raw);
    out.push_back(std::move(f));
  };
  const std::string& home = t.home;
  bool downloaded = false;
  for (const BehaviorEvent& e : t.events) {
    if (counts(e) && e.kind == "stream" && e.bytes > 0) downloaded = true;
  }

  std::map<std::string, std::vector<const BehaviorEvent*>> network;  // by phase
  for (const BehaviorEvent& e : t.events) {
    if (!counts(e)) continue;
    const bool sends = e.kind == "stream" || e.kind == "dns" || e.kind == "datagram";
    if (sends && e.canary) {
      add(e, "behavior-canary-sent", Severity::kCritical, destination(e),
          "sent a decoy credential's canary to " + destination(e) +
              (e.request_line.empty() ? " (" + printable(e.kind == "dns" ? "a DNS name" : e.protocol) + ")"
                                      : " (" + printable(e.request_line) + ")"),
          raw_of(e));
    } else if (sends && e.identity) {
      add(e, "behavior-identity-sent", Severity::kHigh, destination(e),
          "sent the host's identity (its name, the user's, HOME) to " + destination(e) +
              (e.kind == "dns" ? " in a DNS name: " + printable(e.host) : ""),
          raw_of(e));
    }
    if (e.kind == "decoy-open") {
      if (e.write && persistence_place(e.resolved, home)) {
        add(e, "behavior-persistence-written", Severity::kHigh, e.resolved,
            "wrote where a program starts at every login: " + printable(e.resolved), raw_of(e));
      } else if (token_store(e.decoy)) {
        add(e, "behavior-token-store-read", Severity::kHigh, e.decoy,
            "read a decoy " + printable(e.decoy) + " (" + printable(e.resolved) + ")", raw_of(e));
      } else {
        add(e, "behavior-credential-file-read", Severity::kMedium, e.decoy,
            "read a decoy " + printable(e.decoy) + " (" + printable(e.resolved) + ")", raw_of(e));
      }
    } else if (e.kind == "write" && persistence_place(e.resolved, home)) {
      add(e, "behavior-persistence-written", Severity::kHigh, e.resolved,
          "wrote where a program starts at every login, boot or interpreter start: " + printable(e.resolved),
          raw_of(e));
    } else if (e.kind == "exec" && e.what != "phase") {
      const std::string name = basename_of(e.argv.empty() ? e.path : e.argv[0]);
      if (e.written && !e.resolved.starts_with("/work/venv/bin/")) {
        add(e, downloaded ? "behavior-downloaded-program-run" : "behavior-written-program-run",
            downloaded ? Severity::kHigh : Severity::kMedium, e.resolved,
            std::string(downloaded ? "ran a program it had fetched: " : "ran a program it had written: ") +
                printable(command_line(e.argv)),
            raw_of(e));
      }
      if (is_shell(name) && interactive(e)) {
        add(e, "behavior-interactive-shell", Severity::kHigh, name,
            "started an interactive shell (a reverse shell's): " + printable(command_line(e.argv)), raw_of(e));
      }
      if (is_downloader(name)) {
        add(e, "behavior-downloader-started", Severity::kMedium, name,
            "started a downloader: " + printable(command_line(e.argv)), raw_of(e));
      }
      // The line as the shell reads it: a script handed to `sh -c`, or the exec's own argv.
      std::string line = command_line(e.argv);
      if (is_shell(name)) {
        auto c = std::find(e.argv.begin(), e.argv.end(), "-c");
        if (c != e.argv.end() && c + 1 != e.argv.end()) line = *(c + 1);
      }
      if (signals::mentions_shell(line)) {
        for (const signals::ShellFinding& s : signals::judge_shell(signals::parse_shell(line))) {
          if (s.what == signals::ShellSignal::kStartedDetached) continue;  // left-running says it, if it stayed
          const std::string what(signals::shell_signal_name(s.what));
          add(e, "behavior-shell-" + what, Severity::kHigh, line.substr(0, 200),
              "started " + printable(what) + ": " + printable(s.detail), raw_of(e));
        }
      }
    } else if (e.kind == "left-running") {
      add(e, "behavior-left-running", Severity::kMedium, "",
          "left " + std::to_string(e.count) + " process(es) running when it ended", raw_of(e));
    } else if (e.kind == "limit") {
      add(e, "behavior-bounded", Severity::kLow, e.what,
          "reached the detonation's bound on " + printable(e.what) + " (" + std::to_string(e.count) + " over)",
          raw_of(e));
    }
    // A connection to a name, or to an address not on this host's loopback, and the names
    // asked: network at install or import. A package's own local server is not network.
    const bool loopback = e.address.starts_with("127.") && !e.address.starts_with("127.77.");
    if ((e.kind == "connect" && (e.family == "inet" || e.family == "inet6") && (!loopback || !e.host.empty())) ||
        e.kind == "dns") {
      network[e.phase].push_back(&e);
    }
  }
  for (const auto& [phase, es] : network) {
    std::set<std::string> where;
    json raw = json::array();
    for (const BehaviorEvent* e : es) {
      where.insert(e->kind == "dns" ? printable(e->host) : destination(*e));
      if (raw.size() < 16) raw.push_back(raw_of(*e));
    }
    std::string list;
    std::size_t n = 0;
    for (const std::string& w : where) {
      if (n++ == kSummaryItems) {
        list += ", … (" + std::to_string(where.size()) + " in all)";
        break;
      }
      list += (list.empty() ? "" : ", ") + w;
    }
    add(*es.front(), "behavior-network-at-" + phase, Severity::kMedium, "", "reached for the network: " + list,
        json{{"events", raw}});
  }
  return out;
}

core::RunSpec self_test_run(const BehaviorOptions& o) {
  core::RunSpec spec;
  spec.argv = {o.command, "self-test"};
  spec.network = false;
  spec.limits = o.limits;
  spec.timeout = std::chrono::seconds(60);
  spec.label.scanner = o.name;
  spec.label.job = "probe";
  return spec;
}

std::optional<std::string> judge_self_test(const core::RunOutcome& r) {
  if (!r) return "the self-test run failed: " + r.error().message;
  if (r->status != 0) {
    return "batlehub-behavior self-test exited " + std::to_string(r->status) + ": " + trimmed_tail(r->stderr_tail);
  }
  auto t = parse_behavior_output(r->stdout_bytes);
  if (!t) return t.error().message;
  constexpr std::string_view kHost = "observer.self-test.batlehub.test";
  bool shell = false, decoy = false, dns = false, connect = false, canary = false, tls = false;
  for (const BehaviorEvent& e : t->events) {
    shell = shell || (e.kind == "exec" && e.what != "phase" && !e.argv.empty() && e.argv[0] == "sh");
    decoy = decoy || (e.kind == "decoy-open" && e.decoy == "ssh-key");
    dns = dns || (e.kind == "dns" && e.host == kHost);
    connect = connect || (e.kind == "connect" && e.host == kHost && e.port == 80);
    canary = canary || (e.kind == "stream" && e.host == kHost && e.protocol == "http" && e.canary);
    tls = tls || (e.kind == "stream" && e.host == kHost && e.protocol == "https" && e.canary);
  }
  std::string missed;
  for (auto [seen, what] : {std::pair{shell, "the shell it started"},
                            {decoy, "its read of the decoy SSH key"},
                            {dns, "the name it asked"},
                            {connect, "its connection"},
                            {canary, "the key's canary in what it sent"},
                            {tls, "the canary in what it sent over HTTPS"}}) {
    if (!seen) missed += (missed.empty() ? "" : ", ") + std::string(what);
  }
  if (missed.empty()) return std::nullopt;
  return "the detonation's observer did not see " + missed +
         " (a helper's exec, decoy read, DNS query and "
         "connection, in the room)";
}

Expected<std::vector<core::RunSpec>, ScannerError> BehaviorScanner::plan(const core::ScanInput& in) const {
  if (!in.artifact) return Unexpected(ScannerError{ScannerError::Kind::kUnsupported, "no artifact to detonate"});
  core::RunSpec spec;
  if (in.package.kind == core::PackageKind::kNpm) {
    spec.bundle.entries = {core::BundleEntry::archive(*wire::RelPath::parse("pkg"), in.artifact, true)};
    spec.argv = {options_.command, "npm", "pkg"};
  } else if (in.package.kind == core::PackageKind::kPypi) {
    spec.bundle.entries = {core::BundleEntry::file(*wire::RelPath::parse("in/artifact"), in.artifact)};
    spec.argv = {options_.command, "pypi", "in/artifact"};
  } else {
    return Unexpected(ScannerError{
        ScannerError::Kind::kUnsupported,
        "behavior detonates npm and PyPI packages only, not " + std::string(core::to_string(in.package.kind))});
  }
  spec.argv.insert(spec.argv.end(), {"--install-timeout-ms", std::to_string(options_.install_timeout.count()),
                                     "--import-timeout-ms", std::to_string(options_.import_timeout.count())});
  spec.network = false;
  spec.limits = options_.limits;
  spec.timeout = options_.timeout;
  spec.label.scanner = options_.name;
  return std::vector<core::RunSpec>{std::move(spec)};
}

Expected<std::vector<Finding>, ScannerError> BehaviorScanner::parse(
    const core::ScanInput&, const std::vector<core::RunOutcome>& results) const {
  auto r = one_clean_run(results, "batlehub-behavior");
  if (!r) return Unexpected(r.error());
  auto trace = parse_behavior_output((*r)->stdout_bytes);
  if (!trace) return Unexpected(trace.error());
  return weigh_behavior(*trace, options_.name);
}

}  // namespace batlehub::adapters
