// fuzz_signals: batlehub-signals' reading of a package's source (src/signals) on any bytes.
// The first byte chooses what the rest is (by its value modulo 4, so the seeds start with a
// readable '0'…'3'):
//
//   0  Python source        analyze_source (Python), at depth 0, with a fresh Budget
//   1  JavaScript source    analyze_source (JavaScript)
//   2  a shell command line parse_shell, judge_shell, mentions_shell, analyze_command
//   3  a decoded string     decode_all with every step; the first line, when there is one,
//                           is "FROM TO FROM TO …": the file's substitution tables, each
//                           token of an odd count's last one also an XOR key
//
// Oracles (a broken one is a __builtin_trap()):
//   - every Fact's detail is an excerpt: at most 200 bytes plus "…", no control byte, each
//     byte from 0x80 in a sequence led by C2–F4 with its continuation bytes (excerpt's
//     contract, signals.h); every Fact names the file and phase it was given and a line ≥ 1;
//   - at most 64 facts per file (FileAnalysis::add's and judge's bound);
//   - Budget::bytes_left never grows past where it started (no underflow);
//   - Python: undisguise never grows the text or moves a line, and names at most 64 names
//     of at most 64 bytes each;
//   - parse_shell keeps to its bounds: substitutions nested at most kShellMaxDepth deep,
//     at most kShellMaxWords words (plus one per level and per "<(" , which it does not
//     count), every word made of the line's own bytes; a ShellFinding's detail is at most
//     160 bytes plus "…";
//   - decode_all gives at most 8 results, each with a chain of 1 to Budget::kMaxDepth steps,
//     text that looks_like_text, at most kStepMaxBytes long, and paid for from the budget.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "signals/decode.h"
#include "signals/disguise.h"
#include "signals/lex.h"
#include "signals/shell.h"
#include "signals/signals.h"

namespace {

using namespace batlehub::signals;

constexpr std::size_t kExcerptMax = 200;
constexpr std::size_t kEllipsis = sizeof("…") - 1;
constexpr std::size_t kShellDetailMax = 160;
constexpr std::size_t kMaxFacts = 64;
constexpr std::size_t kMaxResults = 8;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_signals: %s\n--- detail (%zu bytes) ---\n%.*s\n", what, detail.size(),
               static_cast<int>(detail.size() < 4096 ? detail.size() : 4096), detail.data());
  __builtin_trap();
}

// What excerpt() promises: control bytes as spaces, and bytes from 0x80 only in sequences a
// lead byte C2–F4 announces (excerpt replaces anything else with '?').
bool excerpt_shaped(std::string_view s) {
  std::size_t k = 0;
  while (k < s.size()) {
    const auto c = static_cast<unsigned char>(s[k]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return false;
      ++k;
      continue;
    }
    const std::size_t n = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
    if (n == 0 || k + n >= s.size()) return false;
    for (std::size_t j = 1; j <= n; ++j) {
      if ((static_cast<unsigned char>(s[k + j]) & 0xC0) != 0x80) return false;
    }
    k += n + 1;
  }
  return true;
}

void check_fact(const Fact& f, std::string_view file, Phase phase) {
  if (f.detail.size() > kExcerptMax + kEllipsis) fail("a fact's detail is longer than an excerpt", f.detail);
  if (!excerpt_shaped(f.detail)) fail("a fact's detail is not an excerpt (control byte or broken UTF-8)", f.detail);
  if (f.what.empty()) fail("a fact says no `what`", f.detail);
  if (f.file != file) fail("a fact names another file", f.file);
  if (f.phase != phase) fail("a fact has another phase", f.detail);
  if (f.line == 0) fail("a fact of a source file is at line 0", f.detail);
}

void source(std::string_view text, Language lang) {
  const std::string_view file = lang == Language::kPython ? "pkg/setup.py" : "package/index.js";
  Budget budget;
  const std::vector<Fact> facts = analyze_source(file, text, lang, Phase::kInstall, budget);
  if (facts.size() > kMaxFacts) fail("more than 64 facts for one file", std::to_string(facts.size()));
  for (const Fact& f : facts) check_fact(f, file, Phase::kInstall);
  if (budget.bytes_left > Budget::kFileMaxBytes) fail("the file budget underflowed", std::to_string(budget.bytes_left));

  // The same file with almost no budget: every decoding refused, nothing underflows.
  Budget poor;
  poor.bytes_left = text.size() % 64;
  const std::size_t start = poor.bytes_left;
  const std::vector<Fact> again = analyze_source(file, text, lang, Phase::kInstall, poor);
  if (again.size() > kMaxFacts) fail("more than 64 facts for one file (small budget)", std::to_string(again.size()));
  if (poor.bytes_left > start) fail("a small budget underflowed", std::to_string(poor.bytes_left));

  // Look-alike letters (disguise.h): each becomes at most as many bytes as it was written
  // with, lines stay where they were, and every name is bounded and ASCII where it was mapped.
  if (lang == Language::kPython) {
    const Lexed lexed = lex(text, lang);
    if (auto u = undisguise(text, lexed.code)) {
      if (u->text.size() > text.size()) fail("undisguise grew the text", std::to_string(u->text.size()));
      if (std::count(u->text.begin(), u->text.end(), '\n') != std::count(text.begin(), text.end(), '\n'))
        fail("undisguise moved a line", "");
      if (u->names.empty() || u->names.size() > 64) fail("undisguise named no name or too many", "");
      for (const DisguisedName& n : u->names) {
        if (n.name.empty() || n.name.size() > 64 || n.written.size() > 64 || n.offset >= text.size())
          fail("a disguised name out of its bounds", n.name);
      }
    }
  }
}

struct ShellBounds {
  std::size_t words = 0;
  int depth = 0;
};

void walk(const Script& s, int level, ShellBounds& b, std::string_view line) {
  if (level > b.depth) b.depth = level;
  for (const Pipeline& p : s.pipelines) {
    if (p.commands.empty()) fail("parse_shell kept an empty pipeline", line);
    for (const Command& c : p.commands) {
      if (c.argv.empty() && c.redirects.empty()) fail("parse_shell kept an empty command", line);
      b.words += c.argv.size();
      for (const std::string& w : c.argv) {
        if (w.size() > line.size()) fail("a shell word is longer than its line", w);
      }
      for (const std::string& r : c.redirects) {
        if (r.size() > line.size()) fail("a redirect is longer than its line", r);
      }
    }
  }
  for (const Script& sub : s.substitutions) walk(sub, level + 1, b, line);
}

std::size_t count_of(std::string_view hay, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t k = hay.find(needle); k != std::string_view::npos; k = hay.find(needle, k + 1)) ++n;
  return n;
}

void shell(std::string_view line) {
  const Script s = parse_shell(line);
  ShellBounds b;
  walk(s, 1, b, line.substr(0, kShellMaxBytes));
  if (b.depth > kShellMaxDepth) fail("substitutions nested past kShellMaxDepth", line);
  const std::size_t word_bound =
      kShellMaxWords + static_cast<std::size_t>(kShellMaxDepth) + count_of(line.substr(0, kShellMaxBytes), "<(");
  if (b.words > word_bound) fail("parse_shell kept more words than its bound", std::to_string(b.words));

  for (const ShellFinding& f : judge_shell(s)) {
    if (f.detail.size() > kShellDetailMax + kEllipsis) fail("a shell finding's detail is not shortened", f.detail);
    if (shell_signal_name(f.what) == "?") fail("a shell finding of no known kind", f.detail);
  }
  (void)mentions_shell(line);
  for (const Fact& f : analyze_command("package.json", 0, line, Phase::kInstall)) {
    if (f.kind != FactKind::kShell) fail("analyze_command gave a fact that is not a shell fact", f.detail);
    if (f.detail.size() > kExcerptMax + kEllipsis || !excerpt_shaped(f.detail))
      fail("a command fact's detail is not an excerpt", f.detail);
    if (f.file != "package.json" || f.line != 0 || f.phase != Phase::kInstall)
      fail("a command fact names another place", f.detail);
  }
}

constexpr Steps kAllSteps = step_bit(Step::kBase64) | step_bit(Step::kHex) | step_bit(Step::kInflate) |
                            step_bit(Step::kRot13) | step_bit(Step::kShift) | step_bit(Step::kReversed) |
                            step_bit(Step::kSubstitution) | step_bit(Step::kCharCodes) | step_bit(Step::kXor);

void decode(std::string_view data) {
  // "FROM TO FROM TO …\n" then the literal; no newline: no tables, all of it the literal.
  Tables tables;
  std::string_view literal = data;
  if (const std::size_t nl = data.find('\n'); nl != std::string_view::npos) {
    std::string_view head = data.substr(0, nl);
    literal = data.substr(nl + 1);
    std::vector<std::string_view> tokens;
    while (!head.empty() && tokens.size() < 32) {
      const std::size_t sp = head.find(' ');
      tokens.push_back(head.substr(0, sp));
      head = sp == std::string_view::npos ? std::string_view() : head.substr(sp + 1);
    }
    for (std::size_t k = 0; k + 1 < tokens.size(); k += 2) {
      if (auto t = substitution(tokens[k], tokens[k + 1])) {
        if (t->pairs < 8) fail("substitution() made a table of fewer than 8 moved characters", tokens[k]);
        if (t->apply(literal).size() != literal.size()) fail("a substitution changed the length", tokens[k]);
        tables.substitutions.push_back(*t);
      }
    }
    if (tokens.size() % 2 == 1) {
      const std::string_view key = tokens.back();
      if (xor_with(literal, key).size() != literal.size()) fail("an XOR changed the length", key);
      if (!key.empty() && xor_with(xor_with(literal, key), key) != literal) fail("XOR twice is not the input", key);
      tables.xor_keys.emplace_back(key);
    }
  }

  Budget budget;
  const std::vector<Decoded> results = decode_all(literal, kAllSteps, tables, budget);
  if (results.size() > kMaxResults) fail("decode_all gave more than 8 results", std::to_string(results.size()));
  std::size_t produced = 0;
  for (const Decoded& d : results) {
    if (d.chain.empty() || d.chain.size() > static_cast<std::size_t>(Budget::kMaxDepth))
      fail("a decoded chain is empty or longer than kMaxDepth", d.text);
    if (d.text.size() > Budget::kStepMaxBytes) fail("a decoded text is longer than one step may produce", "");
    if (!looks_like_text(d.text)) fail("decode_all gave a result that is not text", d.text);
    produced += d.text.size();
  }
  if (budget.bytes_left > Budget::kFileMaxBytes)
    fail("the decoding budget underflowed", std::to_string(budget.bytes_left));
  if (produced > Budget::kFileMaxBytes - budget.bytes_left)
    fail("decode_all gave more bytes than its budget paid for", std::to_string(produced));

  // The same search on a small budget never spends more than it had.
  Budget poor;
  poor.bytes_left = literal.size() / 2;
  const std::size_t start = poor.bytes_left;
  const std::vector<Decoded> few = decode_all(literal, kAllSteps, tables, poor);
  if (poor.bytes_left > start) fail("a small decoding budget underflowed", std::to_string(poor.bytes_left));
  for (const Decoded& d : few) {
    if (d.text.size() > start) fail("a decoded text is larger than the whole small budget", d.text);
  }

  // The decoders alone: what each may produce from its input.
  if (auto b = base64(literal); b && b->size() > literal.size() / 4 * 3 + 3) fail("base64 grew", *b);
  if (auto h = hex(literal); h && h->size() > literal.size() / 2) fail("hex grew", *h);
  if (auto z = inflate(literal, 4096); z && z->bytes.size() > 4096) fail("inflate passed its cap", "");
  if (shift_letters(literal, static_cast<int>(literal.size())).size() != literal.size())
    fail("a shift changed the length", "");
  if (address_in(literal) != Address::kNone &&
      (literal.size() > 2048 || literal.find_first_of(" \t\r\n") != std::string_view::npos))
    fail("an address with a space in it or over 2 KiB", literal);
  const std::string e = excerpt(literal, literal.size() % 257);
  if (e.size() > literal.size() % 257 + kEllipsis || !excerpt_shaped(e)) fail("excerpt broke its contract", e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      source(rest, Language::kPython);
      break;
    case 1:
      source(rest, Language::kJavaScript);
      break;
    case 2:
      shell(rest);
      break;
    default:
      decode(rest);
      break;
  }
  return 0;
}
