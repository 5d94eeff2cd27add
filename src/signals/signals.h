// What a package's source says it does, as facts a reader would point at: a string that is
// decoded and then executed, a command line that downloads and runs, a reverse shell, a
// miner, what the code collects (host identity, the whole environment, token stores,
// credential files) and how it sends (HTTP, DNS, sockets, chat webhooks, paste sites).
//
// `batlehub-signals` reports facts, not verdicts: how they weigh, where they sit (a test
// file, setup.py, an import-time __init__.py, a file an npm hook runs) and what together
// decides, is the worker's (adapters/scanners/signals.h, docs/verdicts.md). The facts are
// the scanner's output, read by the worker as untrusted bytes like any scanner's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "signals/decode.h"
#include "signals/lex.h"

namespace batlehub::signals {

enum class FactKind {
  kDecodedExecuted,  // a decoded string that reads as code, in a file that executes or evaluates
  kDecodedCode,      // a decoded string that reads as code, in a file that does not visibly run it
  kDecodingBomb,     // a compressed string that inflates past the cap from a tiny input
  kShell,            // a command line a dropper, a reverse shell or a miner writes (detail: which)
  kCollect,          // reads what is not its own (what: host, environment, token-store, credential-file,
                     // form-secrets, device-files)
  kSend,             // sends: http, dns, socket, webhook, paste, telegram, telegram-bot (what)
  kRunsAtInstall,    // npm: a lifecycle hook npm runs at install (preinstall, install, postinstall)
  kRunsAtRequire,    // npm: the package's entry point
  kGenerated,        // a bundler's output (detail: the bundler's helper seen), said once for a file with facts
  kDisguisedName,    // Python: a name written in look-alike letters (what: the name Python reads; disguise.h)
  kFetchedExecuted,  // Python: what the network sent handed to exec/eval/compile (flows.h)
  kPersist,          // names an autostart place: a Startup folder, a Run key, LaunchAgents, cron (what: autostart)
  kKeySent,          // Python: a wallet's private key or seed phrase sent to a fixed address (what: its name; flows.h)
  kHiddenAddress,    // a decoded string that is a network address and nothing else (what: the decoding; decode.h)
};
std::string_view fact_name(FactKind k);

enum class Phase { kUnknown, kInstall, kRequire };
std::string_view phase_name(Phase p);

struct Fact {
  FactKind kind;
  std::string what;  // the fact's class: "download-executed", "host", "http", "base64 → zlib"…
  std::string file;  // relative to the scanned tree
  std::size_t line = 0;
  Phase phase = Phase::kUnknown;
  std::string detail;  // the evidence, shortened
};

// The facts of one source file. `depth` is how many decodings deep this text is (a decoded
// payload is analysed again, at most twice); `budget` bounds the decoding of the file.
std::vector<Fact> analyze_source(std::string_view file, std::string_view source, Language lang, Phase phase,
                                 Budget& budget, int depth = 0);

// The facts of one command line (an npm lifecycle script) found in `file` at `line`.
std::vector<Fact> analyze_command(std::string_view file, std::size_t line, std::string_view command, Phase phase);

// The language a file name says, if any: .py and .pth are Python, .js/.cjs/.mjs are
// JavaScript.
bool language_of(std::string_view path, Language& lang);

// A short, printable excerpt of untrusted text: control bytes as spaces, at most `max`
// bytes, cut on a UTF-8 boundary.
std::string excerpt(std::string_view text, std::size_t max = 200);

}  // namespace batlehub::signals
