#include "signals/signals.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>

#include "base/utf8.h"
#include "signals/ascii.h"
#include "signals/disguise.h"
#include "signals/flows.h"
#include "signals/shell.h"

namespace batlehub::signals {

std::string_view fact_name(FactKind k) {
  switch (k) {
    case FactKind::kDecodedExecuted:
      return "decoded-executed";
    case FactKind::kDecodedCode:
      return "decoded-code";
    case FactKind::kDecodingBomb:
      return "decoding-bomb";
    case FactKind::kShell:
      return "shell";
    case FactKind::kCollect:
      return "collect";
    case FactKind::kSend:
      return "send";
    case FactKind::kRunsAtInstall:
      return "runs-at-install";
    case FactKind::kRunsAtRequire:
      return "runs-at-require";
    case FactKind::kGenerated:
      return "generated";
    case FactKind::kDisguisedName:
      return "disguised-name";
    case FactKind::kFetchedExecuted:
      return "fetched-executed";
    case FactKind::kHiddenAddress:
      return "hidden-address";
    case FactKind::kPersist:
      return "persist";
    case FactKind::kKeySent:
      return "key-sent";
  }
  return "?";
}

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kUnknown:
      return "";
    case Phase::kInstall:
      return "install";
    case Phase::kRequire:
      return "require";
  }
  return "";
}

bool language_of(std::string_view path, Language& lang) {
  auto ends = [&](std::string_view s) { return path.size() > s.size() && path.ends_with(s); };
  if (ends(".py") || ends(".pth") || ends(".pyw")) {
    lang = Language::kPython;
    return true;
  }
  if (ends(".js") || ends(".cjs") || ends(".mjs")) {
    lang = Language::kJavaScript;
    return true;
  }
  return false;
}

std::string excerpt(std::string_view text, std::size_t max) {
  std::string out;
  out.reserve(std::min(text.size(), max) + 4);
  std::size_t k = 0;
  while (k < text.size() && out.size() < max) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c < 0x80) {
      out.push_back(c < 0x20 || c == 0x7F ? ' ' : static_cast<char>(c));
      ++k;
      continue;
    }
    const std::size_t n = base::utf8_sequence_length(text, k);
    if (n == 0) {
      out.push_back('?');
      ++k;
      continue;
    }
    if (out.size() + n > max) break;
    out.append(text.substr(k, n));
    k += n;
  }
  if (k < text.size()) out += "…";
  return out;
}

namespace {

bool ident_char(char c) {
  return name_char(c) || c == '$';
}

// Offsets of `token` in `code` where it starts a name (no identifier character before it,
// unless the token itself starts with '.').
std::vector<std::size_t> occurrences(std::string_view code, std::string_view token, std::size_t max = 64) {
  std::vector<std::size_t> at;
  std::size_t k = 0;
  while (at.size() < max && (k = code.find(token, k)) != std::string_view::npos) {
    if (token.front() == '.' || k == 0 || !ident_char(code[k - 1])) at.push_back(k);
    k += token.size();
  }
  return at;
}

bool has(std::string_view code, std::string_view token) {
  return !occurrences(code, token, 1).empty();
}

template <std::size_t N>
bool has_any(std::string_view code, const std::array<std::string_view, N>& tokens) {
  return std::any_of(tokens.begin(), tokens.end(), [&](std::string_view t) { return has(code, t); });
}

// The calls that run a string as code.
constexpr std::array<std::string_view, 6> kPyEval{"exec(", "eval(", "compile(", "execfile(", "runpy.", "exec ("};
constexpr std::array<std::string_view, 7> kJsEval{
    "eval(", "Function(", "runInNewContext(", "runInThisContext(", "runInContext(", "vm.Script(", "new Script("};
constexpr std::array<std::string_view, 6> kPyEvalAliased{"=exec\n",  "= exec\n", "=eval\n",
                                                         "= eval\n", "=exec;",   "= exec;"};
// The calls that hand a string to a process.
constexpr std::array<std::string_view, 15> kPyProcess{
    "os.system(", "os.popen(", "subprocess.", "Popen(", "check_output(", "check_call(",      "getoutput(", "os.execv",
    "os.execl",   "os.spawn",  "pty.spawn(",  "call(",  "run(",          "getstatusoutput(", "startfile("};
constexpr std::array<std::string_view, 7> kJsProcess{".exec(",     ".execSync(",     ".spawn(",  ".spawnSync(",
                                                     ".execFile(", ".execFileSync(", "execSync("};

struct Sinks {
  bool evaluates = false;                  // runs a string as code
  bool processes = false;                  // hands a string to a process
  std::vector<std::size_t> process_calls;  // offsets of the '(' of each process call
};

Sinks sinks_of(const Lexed& lexed, Language lang) {
  const std::string_view code = lexed.code;
  const bool names_child_process = std::any_of(lexed.literals.begin(), lexed.literals.end(), [](const Literal& l) {
    return l.value == "child_process" || l.value == "node:child_process";
  });
  Sinks s;
  if (lang == Language::kPython) {
    // exec given another name first (`a = exec` … `a(payload)`) runs strings all the same.
    s.evaluates = has_any(code, kPyEval) ||
                  std::any_of(kPyEvalAliased.begin(), kPyEvalAliased.end(),
                              [&](std::string_view t) { return code.find(t) != std::string_view::npos; });
    const bool imports_process = has(code, "subprocess") || has(code, "os.") || has(code, "pty") ||
                                 has(code, "commands") || has(code, "system(") || has(code, "popen(");
    if (imports_process) {
      for (std::string_view t : kPyProcess) {
        // call( and run( count only with subprocess imported: they are every library's names.
        if ((t == "call(" || t == "run(") && !has(code, "subprocess")) continue;
        for (std::size_t at : occurrences(code, t)) s.process_calls.push_back(at + t.size() - 1);
      }
    }
  } else {
    s.evaluates = has_any(code, kJsEval);
    // .exec( is RegExp's too: a JavaScript file spawns only when it reaches child_process,
    // which it names in a string: require('child_process'), import … from 'node:child_process'.
    if (has(code, "child_process") || names_child_process) {
      for (std::string_view t : kJsProcess) {
        for (std::size_t at : occurrences(code, t)) s.process_calls.push_back(at + t.size() - 1);
      }
      // Destructured: const { spawn } = require('child_process').
      for (std::string_view t : {"exec(", "spawn(", "spawnSync(", "execFile(", "execFileSync(", "fork("}) {
        for (std::size_t at : occurrences(code, t)) {
          if (at > 0 && code[at - 1] == '.') continue;  // already counted with its object
          s.process_calls.push_back(at + t.size() - 1);
        }
      }
    }
  }
  std::sort(s.process_calls.begin(), s.process_calls.end());
  s.process_calls.erase(std::unique(s.process_calls.begin(), s.process_calls.end()), s.process_calls.end());
  // Each call's arguments are read once (below): a bound on calls bounds that work.
  constexpr std::size_t kMaxProcessCalls = 64;
  if (s.process_calls.size() > kMaxProcessCalls) s.process_calls.resize(kMaxProcessCalls);
  s.processes = !s.process_calls.empty();
  return s;
}

// `powershell -EncodedCommand …`, as an argument of its own ("-EncodedCommand", "-enc",
// "-ec") or inside a command line: one pass over the literals, each lowered once (its first
// 4 KiB: a flag sits at a command line's start).
bool names_an_encoded_command(const Lexed& lexed) {
  return std::any_of(lexed.literals.begin(), lexed.literals.end(), [](const Literal& l) {
    const std::string v = lower(std::string_view(l.value).substr(0, 4096));
    return v == "-encodedcommand" || v == "-enc" || v == "-ec" || v.find("-encodedcommand ") != std::string::npos ||
           v.find("powershell -enc ") != std::string::npos || v.find("powershell.exe -enc ") != std::string::npos;
  });
}

// Which decoders the file itself calls: a string is decoded only the ways its file does.
Steps decoders_of(std::string_view code, const Lexed& lexed, Language lang) {
  Steps steps = 0;
  auto any_literal = [&](std::string_view v) {
    return std::any_of(lexed.literals.begin(), lexed.literals.end(),
                       [&](const Literal& l) { return lower(l.value) == v; });
  };
  if (has(code, "b64decode") || has(code, "decodebytes") || has(code, "decodestring") || has(code, "a2b_base64") ||
      has(code, "atob(") || has(code, "b32decode") || (lang == Language::kJavaScript && any_literal("base64")) ||
      any_literal("base64") || has(code, "base64"))
    steps |= step_bit(Step::kBase64);
  // PowerShell's encoded command is base64 of UTF-16LE text: a file that names one decodes
  // its strings so even without a decoder call. Asked only when base64 is not on already.
  if (!(steps & step_bit(Step::kBase64)) && names_an_encoded_command(lexed)) steps |= step_bit(Step::kBase64);
  if (steps & step_bit(Step::kBase64)) steps |= step_bit(Step::kUtf16);
  if (has(code, "fromhex") || has(code, "unhexlify") || has(code, "a2b_hex") || any_literal("hex"))
    steps |= step_bit(Step::kHex);
  if (has(code, "decompress") || has(code, "inflateSync") || has(code, "gunzipSync") || has(code, "inflate(") ||
      has(code, "unzipSync") || has(code, "zlib"))
    steps |= step_bit(Step::kInflate);
  if (any_literal("rot13") || any_literal("rot_13") || has(code, "rot13")) steps |= step_bit(Step::kRot13);
  if ((has(code, "chr(") && has(code, "ord(")) || (has(code, "fromCharCode") && has(code, "charCodeAt")))
    steps |= step_bit(Step::kShift);
  if (code.find("[::-1]") != std::string_view::npos || has(code, ".reverse()") || has(code, "reversed("))
    steps |= step_bit(Step::kReversed);
  if (has(code, "maketrans") || has(code, ".translate(") || has(code, ".get(")) steps |= step_bit(Step::kSubstitution);
  if (code.find('^') != std::string_view::npos && (has(code, "ord(") || has(code, "charCodeAt")))
    steps |= step_bit(Step::kXor);
  return steps;
}

// The Fernet keys (44 URL-safe base64 characters, the last '=', between quotes) and tokens
// ("gAAAAA", the version byte 0x80 and a timestamp's first zero bytes, then URL-safe base64)
// in a file's text. At most 8 keys and 16 tokens of at most 1 MiB, so a file costs at most
// 128 HMACs and 16 decryptions.
struct FernetMaterial {
  std::vector<std::string_view> keys;
  std::vector<std::pair<std::size_t, std::string_view>> tokens;  // offset, token
};
FernetMaterial fernet_material(std::string_view text) {
  constexpr std::size_t kMaxKeys = 8;
  constexpr std::size_t kMaxTokens = 16;
  constexpr std::size_t kKeyChars = 44;
  constexpr std::size_t kMinTokenChars = 100;  // 73 bytes: header, one block, the HMAC
  auto url_b64 = [](char c) { return name_char(c) || c == '-' || c == '='; };
  FernetMaterial m;
  for (std::size_t at = text.find("gAAAAA"); at != std::string_view::npos && m.tokens.size() < kMaxTokens;) {
    std::size_t end = at;
    while (end < text.size() && url_b64(text[end]) && end - at <= Budget::kStepMaxBytes) ++end;
    if (end - at >= kMinTokenChars && (at == 0 || !url_b64(text[at - 1])))
      m.tokens.emplace_back(at, text.substr(at, end - at));
    at = text.find("gAAAAA", end);
  }
  for (std::size_t q = text.find_first_of("'\""); q != std::string_view::npos && m.keys.size() < kMaxKeys;
       q = text.find_first_of("'\"", q + 1)) {
    if (q + kKeyChars + 1 >= text.size() || text[q + kKeyChars + 1] != text[q] || text[q + kKeyChars] != '=') continue;
    const std::string_view key = text.substr(q + 1, kKeyChars);
    if (std::all_of(key.begin(), key.end() - 1, [&](char c) { return url_b64(c) && c != '='; }) &&
        std::find(m.keys.begin(), m.keys.end(), key) == m.keys.end())
      m.keys.push_back(key);
  }
  return m;
}

// A file's XOR keys: the strings in the 4 KiB before each `^` (nearest first; the key is
// written just above the loop that applies it), and a small number right after one
// (`ord(c) ^ 42`). At most 8, so a file costs at most 8 XORs of each string.
std::vector<std::string> xor_keys_of(const Lexed& lexed) {
  constexpr std::size_t kMaxKeys = 8;
  constexpr std::size_t kMaxKeyBytes = 256;
  const std::string_view code = lexed.code;
  std::vector<std::string> keys;
  auto keep = [&](std::string key) {
    if (keys.size() < kMaxKeys && std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(std::move(key));
  };
  std::size_t carets = 0;
  for (std::size_t at = code.find('^'); at != std::string_view::npos && carets < 16 && keys.size() < kMaxKeys;
       at = code.find('^', at + 1), ++carets) {
    std::size_t n = at + 1;
    while (n < code.size() && code[n] == ' ') ++n;
    unsigned long v = 0;
    const bool hex_number = code.substr(n, 2) == "0x" || code.substr(n, 2) == "0X";
    std::size_t d = hex_number ? n + 2 : n;
    const std::size_t digits = d;
    for (; d < code.size() && d - digits < 3 && std::isxdigit(static_cast<unsigned char>(code[d])) != 0 &&
           (hex_number || std::isdigit(static_cast<unsigned char>(code[d])) != 0);
         ++d) {
      v = v * (hex_number ? 16 : 10) + static_cast<unsigned long>(std::isdigit(static_cast<unsigned char>(code[d]))
                                                                      ? code[d] - '0'
                                                                      : (code[d] | 0x20) - 'a' + 10);
    }
    if (d > digits && v > 0 && v < 256 && (d == code.size() || !ident_char(code[d])))
      keep(std::string(1, static_cast<char>(v)));
    const std::size_t floor = at > kMaxLookBackBytes ? at - kMaxLookBackBytes : 0;
    auto it = literal_from(lexed, at);
    while (it != lexed.literals.begin() && keys.size() < kMaxKeys) {
      --it;
      if (it->end <= floor) break;
      if (!it->value.empty() && it->value.size() <= kMaxKeyBytes) keep(it->value);
    }
  }
  return keys;
}

// Only base64's letters (either alphabet) and its padding: a piece of a cut payload.
bool base64_alphabet(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
           c == '-' || c == '_' || c == '=';
  });
}

// What a process call's program sends by, when it is a sender: its first word's base name.
// DNS tools and netcat: curl's and wget's command lines are the shell reader's (shell.h),
// which sees what they are handed.
std::string_view sender_program(std::string_view line) {
  std::string_view program = line.substr(0, line.find(' '));
  if (const std::size_t slash = program.find_last_of("/\\"); slash != std::string_view::npos)
    program.remove_prefix(slash + 1);
  if (program == "dig" || program == "nslookup" || program == "host" || program == "ping") return "dns";
  if (program == "nc" || program == "ncat" || program == "netcat") return "socket";
  return {};
}

// The file's own character tables: str.maketrans('…', '…') with two literals, and dict or
// object literals of at least eight single-character pairs ({'a': 'n', …}); and its XOR keys.
Tables tables_of(const Lexed& lexed, Steps steps) {
  Tables t;
  if (steps & step_bit(Step::kXor)) t.xor_keys = xor_keys_of(lexed);
  if (!(steps & step_bit(Step::kSubstitution))) return t;
  const std::string_view code = lexed.code;
  for (std::size_t at : occurrences(code, "maketrans(", 8)) {
    const std::size_t open = at + 9;
    const std::size_t close = matching_close(code, open);
    std::vector<const Literal*> args;
    for (const Literal& l : lexed.literals) {
      if (l.begin > open && l.end <= close) args.push_back(&l);
    }
    if (args.size() >= 2) {
      if (auto s = substitution(args[0]->value, args[1]->value)) t.substitutions.push_back(*s);
    }
  }
  // Runs of 'x': 'y' pairs.
  std::string from;
  std::string to;
  auto flush = [&] {
    if (from.size() >= 8) {
      if (auto s = substitution(from, to)) t.substitutions.push_back(*s);
    }
    from.clear();
    to.clear();
  };
  for (std::size_t k = 0; k + 1 < lexed.literals.size() && t.substitutions.size() < 8; ++k) {
    const Literal& a = lexed.literals[k];
    const Literal& b = lexed.literals[k + 1];
    const std::string_view between = code.substr(a.end, b.begin - a.end);
    const bool pair = a.value.size() == 1 && b.value.size() == 1 &&
                      between.find_first_not_of(" \t\n\r") != std::string_view::npos &&
                      between.substr(between.find_first_not_of(" \t\n\r"), 1) == ":";
    if (pair) {
      from += a.value;
      to += b.value;
      ++k;
      continue;
    }
    flush();
  }
  flush();
  return t;
}

// Lists of at least eight character codes in the code (chr(104)+chr(101)…, [104, 101, …],
// String.fromCharCode(104, 101, …), bytes([…])): the text they spell.
std::vector<std::pair<std::size_t, std::string>> char_code_texts(std::string_view code) {
  std::vector<std::pair<std::size_t, std::string>> out;
  std::size_t k = 0;
  while (k < code.size() && out.size() < 64) {
    if (code[k] < '0' || code[k] > '9' || (k > 0 && (ident_char(code[k - 1]) || code[k - 1] == '.'))) {
      ++k;
      continue;
    }
    // A run of numbers separated by commas, or by ")+chr(" joints.
    const std::size_t start = k;
    std::string text;
    std::size_t count = 0;
    std::size_t j = k;
    while (j < code.size()) {
      std::size_t n = j;
      unsigned long v = 0;
      bool hex_number = false;
      if (code.substr(n, 2) == "0x" || code.substr(n, 2) == "0X") {
        hex_number = true;
        n += 2;
      }
      const std::size_t digits_at = n;
      while (n < code.size() && n - digits_at < 8 &&
             ((code[n] >= '0' && code[n] <= '9') ||
              (hex_number && ((code[n] >= 'a' && code[n] <= 'f') || (code[n] >= 'A' && code[n] <= 'F'))))) {
        const char c = code[n];
        const unsigned d = c <= '9' ? static_cast<unsigned>(c - '0') : static_cast<unsigned>((c | 0x20) - 'a' + 10);
        v = v * (hex_number ? 16 : 10) + d;
        ++n;
      }
      if (n == digits_at || v == 0 || v > 0x10FFFF || (n < code.size() && (ident_char(code[n]) || code[n] == '.')))
        break;
      if (v < 0x80) {
        text.push_back(static_cast<char>(v));
      } else {
        text.push_back('?');
      }
      ++count;
      j = n;
      // The joint to the next number.
      std::size_t m = j;
      while (m < code.size() && (code[m] == ' ' || code[m] == '\n' || code[m] == '\t' || code[m] == '\r')) ++m;
      if (m < code.size() && code[m] == ',') {
        j = m + 1;
      } else if (code.substr(m, 6) == ")+chr(" || code.substr(m, 8) == ") + chr(") {
        j = m + (code[m + 1] == '+' ? 6 : 8);
      } else {
        break;
      }
      while (j < code.size() && (code[j] == ' ' || code[j] == '\n' || code[j] == '\t' || code[j] == '\r')) ++j;
    }
    if (count >= 8) out.emplace_back(start, std::move(text));
    k = std::max(j, k + 1);
  }
  return out;
}

// The name a string is the value of, when its line assigns it (`cmd = "…"`, `let s = c ?
// '…' : "…"`, `x: str = '…'`); empty when the string is an argument, an element or anything
// else. `at` is the string's opening quote in `code` (a Lexed::code).
std::string_view assigned_name(std::string_view code, std::size_t at) {
  // Read back at most kMaxLookBackBytes: a line of 200,000 strings must not be read once per
  // string. A line's start further back than that is not found, and the string counts as it
  // did before names were asked (a command).
  const std::size_t floor = at > kMaxLookBackBytes ? at - kMaxLookBackBytes : 0;
  const std::size_t line = at == 0 ? std::string_view::npos : code.substr(floor, at - floor).rfind('\n');
  if (line == std::string_view::npos && floor > 0) return {};
  const std::size_t b = line == std::string_view::npos ? 0 : floor + line + 1;
  std::string_view head = code.substr(b, at - b);
  const std::size_t eq = head.find('=');
  if (eq == std::string_view::npos || (eq + 1 < head.size() && head[eq + 1] == '=') ||
      (eq > 0 && (head[eq - 1] == '!' || head[eq - 1] == '<' || head[eq - 1] == '>' || head[eq - 1] == '=')))
    return {};
  // Between '=' and the string: no call or grouping opened, no statement ended.
  if (head.substr(eq + 1).find_first_of("(;[{") != std::string_view::npos) return {};
  std::string_view left = head.substr(0, eq);
  const std::size_t colon = left.find(':');  // a Python annotation
  if (colon != std::string_view::npos) left = left.substr(0, colon);
  while (!left.empty() && (left.back() == ' ' || left.back() == '\t')) left.remove_suffix(1);
  std::size_t n = left.size();
  while (n > 0 && ident_char(left[n - 1])) --n;
  const std::string_view name = left.substr(n);
  // Only `name =` or `let|const|var name =` at the line's start: not an attribute or an index.
  std::string_view before = left.substr(0, n);
  while (!before.empty() && (before.front() == ' ' || before.front() == '\t')) before.remove_prefix(1);
  if (!before.empty() && before != "let " && before != "const " && before != "var ") return {};
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return {};
  return name;
}

// Adds the names read in `args` (a process call's arguments) to `names`.
void add_names(std::string_view args, std::set<std::string, std::less<>>& names) {
  std::size_t k = 0;
  while (k < args.size()) {
    if (!ident_char(args[k]) || (k > 0 && ident_char(args[k - 1]))) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < args.size() && ident_char(args[e])) ++e;
    names.emplace(args.substr(k, e - k));
    k = e;
  }
}

// What the code collects.
struct Probe {
  std::string_view what;
  std::string_view token;
};
// The whole environment, not one variable, handed over whole: `env=os.environ` or
// `os.environ.copy()` for a child process is every build script, and is not listed.
constexpr std::array<Probe, 18> kPyCollect{{
    {"host", "gethostname("},
    {"host", "platform.node("},
    {"host", "getuser("},
    {"host", "getlogin("},
    {"host", "os.uname("},
    {"host", "platform.uname("},
    {"host", "getfqdn("},
    {"host", "uuid.getnode("},
    {"environment", "dict(os.environ)"},
    {"environment", "os.environ.items("},
    {"environment", "str(os.environ)"},
    {"environment", "dumps(os.environ"},
    {"environment", "environ.items("},
    {"environment", "os.environ.keys("},
    {"host", "whoami"},
    {"host", "ipconfig"},
    {"host", "ifconfig"},
    {"host", "getpass.getuser"},
}};
// Not os.homedir(): where a program keeps its cache (every prebuilt-binary installer asks
// it), not who the host is; a stealer that sends it also sends a hostname or a user.
constexpr std::array<Probe, 12> kJsCollect{{
    {"host", "os.hostname("},
    {"host", "os.userInfo("},
    {"host", "os.networkInterfaces("},
    {"host", "env.USER"},
    {"host", "env.USERNAME"},
    {"host", "env.HOSTNAME"},
    {"host", "env.COMPUTERNAME"},
    {"host", ".hostname()"},
    {"host", ".userInfo()"},
    {"environment", "stringify(process.env"},
    {"environment", "entries(process.env"},
    {"environment", "keys(process.env"},
}};

// Strings that name a token store or a credential file (matched lowercased, '\\' as '/').
constexpr std::array<Probe, 27> kStores{{
    {"token-store", "discord"},
    {"token-store", "local storage/leveldb"},
    {"token-store", "login data"},
    {"token-store", "/user data/default/cookies"},
    {"token-store", "/network/cookies"},
    {"token-store", "wallet.dat"},
    {"token-store", "exodus"},
    {"token-store", "electrum"},
    {"token-store", "metamask"},
    {"token-store", "nkbihfbeogaeaoehlefnkodbefgpgknn"},
    {"token-store", "ethereum/keystore"},
    {"token-store", "telegram desktop/tdata"},
    // A whole component (os.path.join(appdata, 'Telegram Desktop', 'tdata'), '…/tdata/…'),
    // never a part of one ('/tdatabase').
    {"token-store", "tdata"},
    {"token-store", "key4.db"},
    {"token-store", "logins.json"},
    {"credential-file", ".aws/credentials"},
    {"credential-file", ".npmrc"},
    {"credential-file", ".pypirc"},
    {"credential-file", ".ssh/id_"},
    {"credential-file", ".git-credentials"},
    {"credential-file", ".docker/config.json"},
    {"credential-file", ".kube/config"},
    {"credential-file", "/etc/passwd"},
    {"credential-file", "/etc/shadow"},
    {"credential-file", ".bash_history"},
    {"credential-file", ".netrc"},
    {"credential-file", ".config/gcloud"},
}};

// Places that start a program at every login (matched lowercased, '\\' as '/'). Not
// ~/.bashrc or ~/.profile, which an installer's message tells users to edit, nor cron's
// directories, which every scheduler library and its tests name (ansible's cron module).
constexpr std::array<Probe, 4> kAutostart{{
    {"autostart", "start menu/programs/startup"},
    {"autostart", "microsoft/windows/currentversion/run"},
    {"autostart", "library/launchagents"},
    {"autostart", "/.config/autostart"},
}};

// How the code sends.
constexpr std::array<Probe, 27> kPySend{{
    {"http", "requests.post("},
    {"http", "requests.get("},
    {"http", "requests.put("},
    {"http", "requests.request("},
    {"http", "urlopen("},
    {"http", "urllib.request.Request("},
    {"http", "httpx."},
    {"http", "HTTPSConnection("},
    {"http", "HTTPConnection("},
    {"http", "ClientSession("},
    {"http", "PoolManager("},
    {"socket", "socket.socket("},
    {"socket", ".sendto("},
    {"socket", "create_connection("},
    {"dns", "dns.resolver"},
    {"dns", "gethostbyname("},
    {"mail", "smtplib.SMTP"},
    {"ftp", "ftplib.FTP"},
    {"http", "pycurl"},
    {"http", "session.post("},
    // `from requests import post`, then a bare `post(`.
    {"http", "from requests import"},
    // A Telegram bot library's client: it sends to api.telegram.org with the token it is
    // given, so the file need not write the address.
    {"telegram-bot", "TeleBot("},
    {"telegram-bot", "telegram.Bot("},
    {"telegram-bot", "from telegram import"},
    {"telegram-bot", "from telegram.ext import"},
    {"telegram-bot", "from aiogram import"},
    {"telegram-bot", "from pyrogram import"},
}};
constexpr std::array<Probe, 17> kJsSend{{
    {"http", "https.request("},
    {"http", "http.request("},
    {"http", "https.get("},
    {"http", "http.get("},
    {"http", "fetch("},
    {"http", "axios"},
    {"http", "XMLHttpRequest"},
    {"socket", "net.connect("},
    {"socket", "createConnection("},
    {"socket", "net.Socket("},
    {"socket", "dgram"},
    {"dns", "dns.lookup("},
    {"dns", "dns.resolve"},
    {"dns", "resolve4("},
    {"http", "needle("},
    {"http", "superagent"},
    {"http", "node-fetch"},
}};
// Where it sends, in strings: chat webhooks, paste and capture services.
constexpr std::array<Probe, 27> kChannels{{
    {"webhook", "discord.com/api/webhooks"},
    {"webhook", "discordapp.com/api/webhooks"},
    {"telegram", "api.telegram.org/bot"},
    {"paste", "pastebin.com"},
    {"paste", "hastebin"},
    {"paste", "transfer.sh"},
    {"capture", "webhook.site"},
    {"capture", "pipedream.net"},
    {"capture", "requestbin"},
    {"capture", "burpcollaborator"},
    {"capture", "oastify.com"},
    {"capture", "interact.sh"},
    // interactsh's public servers (ProjectDiscovery's default list).
    {"capture", ".oast.fun"},
    {"capture", ".oast.pro"},
    {"capture", ".oast.live"},
    {"capture", ".oast.site"},
    {"capture", ".oast.online"},
    {"capture", ".oast.me"},
    {"capture", "canarytokens"},
    {"capture", "dnslog.cn"},
    {"capture", "ngrok.io"},
    {"capture", "ngrok-free.app"},
    {"capture", "pabbly.com/workflow/sendwebhookdata"},
    {"capture", "requestcatcher.com"},
    {"capture", "beeceptor.com"},
    {"capture", "hookdeck.com"},
    {"capture", "dnshook.site"},
}};

struct Hit {
  std::string what;
  std::size_t offset = 0;
  std::string token;
};

template <std::size_t N>
void probe_code(std::string_view code, const std::array<Probe, N>& probes, std::vector<Hit>& hits) {
  for (const Probe& p : probes) {
    const auto at = occurrences(code, p.token, 1);
    if (!at.empty()) hits.push_back({std::string(p.what), at.front(), std::string(p.token)});
  }
}

// Whether a lowered literal names the probe's token. A store's name without a slash is a
// file's or a directory's own name ("login data", Chromium's password store; "exodus", a
// wallet's folder) and also a word of English or of a package's name (a docstring's "the
// login data for a secure login", minecraft-launcher-lib; jsdom's "@exodus/bytes"): with
// `components`, it counts only as a whole component of a path, or as the whole string.
bool named(std::string_view v, std::string_view token, bool components) {
  const bool file_name = components && token.find('/') == std::string_view::npos;
  for (auto at = v.find(token); at != std::string_view::npos; at = v.find(token, at + 1)) {
    if (!file_name) return true;
    const auto end = at + token.size();
    if ((at == 0 || v[at - 1] == '/') && (end == v.size() || v[end] == '/')) return true;
  }
  return false;
}

template <std::size_t N>
void probe_literals(const Lexed& lexed, const std::array<Probe, N>& probes, std::vector<Hit>& hits,
                    bool components = false) {
  for (const Literal& l : lexed.literals) {
    if (l.value.size() > 4096) continue;
    std::string v = lower(l.value);
    std::replace(v.begin(), v.end(), '\\', '/');
    for (const Probe& p : probes) {
      if (named(v, p.token, components)) hits.push_back({std::string(p.what), l.begin, std::string(p.token)});
    }
  }
}

bool windows_program(std::string_view s) {
  std::string l = lower(s.substr(s.size() > 260 ? s.size() - 260 : 0));
  for (std::string_view ext : {".exe", ".scr", ".bat", ".cmd", ".ps1", ".vbs", ".msi"}) {
    if (l.size() > ext.size() && l.ends_with(ext)) return true;
  }
  return false;
}

// The code lets a child go: node's detached and unref(), Windows' creation flags.
bool detaches(std::string_view code) {
  return has(code, "detached") || code.find(".unref(") != std::string_view::npos || has(code, "DETACHED_PROCESS") ||
         has(code, "CREATE_NO_WINDOW") || has(code, "startfile(") || has(code, "DEVNULL");
}

class FileAnalysis {
 public:
  FileAnalysis(std::string_view file, std::string_view source, Language lang, Phase phase, Budget& budget, int depth)
      : file_(file),
        source_(source),
        lang_(lang),
        phase_(phase),
        budget_(budget),
        depth_(depth),
        lexed_(lex(source, lang)) {
    for (std::size_t k = 0; k < source_.size(); ++k) {
      if (source_[k] == '\n') newlines_.push_back(k);
    }
  }

  std::vector<Fact> run() {
    // Python reads `ℯ𝓍ℯ𝒸` as exec: each disguised name is a fact, and the file is read as
    // Python reads it.
    // Once: the text read again is never mapped again, whatever its lexing finds (a letter
    // mapped in front of a quote becomes a string prefix), so a file costs two readings at
    // most, not one per look-alike.
    if (lang_ == Language::kPython && !undisguised_) {
      if (auto u = undisguise(source_, lexed_.code)) {
        for (const DisguisedName& n : u->names) {
          add(FactKind::kDisguisedName, n.name, line_of(n.offset), n.written + " reads as " + n.name);
        }
        FileAnalysis as_read(file_, u->text, lang_, phase_, budget_, depth_);
        as_read.undisguised_ = true;
        for (Fact& f : as_read.run()) {
          if (facts_.size() < kMaxFacts) facts_.push_back(std::move(f));
        }
        return std::move(facts_);
      }
    }
    const Sinks sinks = sinks_of(lexed_, lang_);
    decoded(sinks);
    commands(sinks);
    if (lang_ == Language::kPython) {
      for (const Flow& f : python_flows(source_, lexed_)) {
        switch (f.kind) {
          case Flow::Kind::kFetchedCodeExecuted:
            add(FactKind::kFetchedExecuted, "python", line_of(f.offset), f.detail);
            break;
          case Flow::Kind::kSocketShell:
            add(FactKind::kShell, "reverse-shell", line_of(f.offset), f.detail);
            break;
          case Flow::Kind::kFetchedFileRun:
            add(FactKind::kShell, "download-executed", line_of(f.offset), f.detail);
            break;
          case Flow::Kind::kKeySent:
            add(FactKind::kKeySent, f.name, line_of(f.offset), f.detail);
            break;
        }
      }
    }
    collected_and_sent(sinks);
    autostart();
    generated();
    return std::move(facts_);
  }

 private:
  void add(FactKind kind, std::string what, std::size_t line, std::string_view detail) {
    if (facts_.size() >= kMaxFacts) return;
    std::string shown = excerpt(detail);
    for (const Fact& f : facts_) {
      if (f.kind == kind && f.what == what && f.detail == shown) return;
    }
    facts_.push_back({kind, std::move(what), std::string(file_), line, phase_, std::move(shown)});
  }

  // By the file's newlines, found once: a file with many decoded strings must not count its
  // lines from the top for each.
  std::size_t line_of(std::size_t offset) const {
    return 1 +
           static_cast<std::size_t>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin());
  }

  // A decoding bomb is said once, by the outermost file, at the line of the string whose
  // decoding set it off (the budget, and so the flag, is shared with the payloads inside).
  template <typename F>
  void watching_for_a_bomb(std::size_t offset, F&& decode) {
    const bool before = budget_.bomb;
    decode();
    if (depth_ == 0 && !before && budget_.bomb) {
      add(FactKind::kDecodingBomb, "zlib", line_of(offset),
          "a compressed string inflates past 1 MiB from under 10 KiB");
    }
  }

  void decoded(const Sinks& sinks) {
    const Steps steps = decoders_of(lexed_.code, lexed_, lang_);
    const bool char_codes = has(lexed_.code, "chr(") || has(lexed_.code, "fromCharCode") || has(lexed_.code, "bytes(");
    const Tables tables = tables_of(lexed_, steps);
    auto judge = [&](const std::string& text, const std::vector<Step>& chain, std::size_t offset) {
      std::string how;
      for (Step s : chain) {
        if (!how.empty()) how += " → ";
        how += step_name(s);
      }
      // The decoded text, read as code where it would run; its own facts come back with it,
      // at the line of the string they were decoded from.
      const std::size_t line = line_of(offset);
      std::vector<Fact> inner;
      if (depth_ < 2) {
        inner = analyze_source(file_, text, lang_, phase_, budget_, depth_ + 1);
        for (Fact& f : inner) {
          if (f.kind == FactKind::kRunsAtInstall || f.kind == FactKind::kRunsAtRequire ||
              f.kind == FactKind::kGenerated)
            continue;
          f.line = line;
          f.detail = excerpt("decoded (" + how + "): " + f.detail);
          if (facts_.size() < kMaxFacts) facts_.push_back(std::move(f));
        }
      }
      // A bare host name under one encoding is also how an OAuth client id is kept from
      // secret scanners (clawdbot's `….apps.googleusercontent.com`): a name counts when it
      // was hidden under two encodings or more (cipherbcrypt reverses, base64-decodes and
      // inflates its host); a URL or an IP address is a place to connect to at any depth.
      if (const Address a = address_in(text);
          a == Address::kUrl || a == Address::kIpv4 || (a == Address::kHostName && chain.size() >= 2))
        add(FactKind::kHiddenAddress, how, line, how + ": " + text);
      if (!looks_like_code(text) && inner.empty()) return;
      const std::string detail = how + ": " + text;
      if (sinks.evaluates || sinks.processes) {
        add(FactKind::kDecodedExecuted, how, line, detail);
      } else {
        add(FactKind::kDecodedCode, how, line, detail);
      }
    };
    if (steps != 0) {
      for (const Literal& l : lexed_.literals) {
        if (l.value.size() < 16 || budget_.exhausted) continue;
        watching_for_a_bomb(l.begin, [&] {
          for (const Decoded& d : decode_all(l.value, steps, tables, budget_)) judge(d.text, d.chain, l.begin);
        });
      }
    }
    // A payload cut into strings that are joined before decoding (three functions each
    // returning a third of it, `b64decode(a + b + c)`): the file's base64-looking strings
    // of 16 bytes or more, in order, decoded once as one.
    if ((steps & step_bit(Step::kBase64)) && !budget_.exhausted) {
      std::string joined;
      std::size_t pieces = 0;
      std::size_t first = 0;
      for (const Literal& l : lexed_.literals) {
        if (l.value.size() < 16 || !base64_alphabet(l.value)) continue;
        if (joined.size() + l.value.size() > Budget::kStepMaxBytes) break;
        if (pieces++ == 0) first = l.begin;
        joined += l.value;
      }
      if (pieces >= 2) {
        watching_for_a_bomb(first, [&] {
          for (const Decoded& d : decode_all(joined, steps, tables, budget_)) {
            std::vector<Step> chain = d.chain;
            judge(d.text, chain, first);
          }
        });
      }
    }
    // Fernet tokens and keys anywhere in the file's text, in code or inside a string of code
    // the file writes out to run (pipsqlite3liberyV2 writes `exec(Fernet(key).decrypt(token))`
    // to a file and starts it): each token tried with each key, decrypted when the key's
    // HMAC holds.
    if (source_.find("Fernet") != std::string_view::npos) {
      const auto [keys, tokens] = fernet_material(source_);
      for (const auto& [offset, token] : tokens) {
        for (const std::string_view key : keys) {
          if (budget_.exhausted || !budget_.take(token.size())) break;
          if (auto text = fernet_decrypt(token, key); text && looks_like_text(*text)) {
            judge(*text, {Step::kFernet}, offset);
            break;
          }
        }
      }
    }
    if (char_codes) {
      for (const auto& spelled : char_code_texts(lexed_.code)) {
        // Named, not bound: clang 14 cannot capture a structured binding in a lambda.
        const std::size_t offset = spelled.first;
        const std::string& text = spelled.second;
        std::vector<Step> chain{Step::kCharCodes};
        if (looks_like_text(text)) judge(text, chain, offset);
        // Character codes that spell an encoding in turn (a base64 payload as numbers).
        watching_for_a_bomb(offset, [&] {
          for (const Decoded& d : decode_all(text, steps, tables, budget_)) {
            std::vector<Step> longer = chain;
            longer.insert(longer.end(), d.chain.begin(), d.chain.end());
            judge(d.text, longer, offset);
          }
        });
      }
    }
  }

  void shell_line(std::string_view text, std::size_t line) {
    if (!mentions_shell(text)) return;
    for (const ShellFinding& f : judge_shell(parse_shell(text))) {
      add(FactKind::kShell, std::string(shell_signal_name(f.what)), line, f.detail);
    }
  }

  void commands(const Sinks& sinks) {
    const std::string_view code = lexed_.code;
    std::set<std::string, std::less<>> handed;  // the names read in the process calls' arguments
    std::string all_calls;                      // every call's line, in order, one per line
    std::set<std::string, std::less<>> lines;
    // The strings a process call is handed, joined as the shell would read them (a list
    // form ["wget", url, "-O", f] reads as "wget url -O f" with the variable left out).
    for (std::size_t open : sinks.process_calls) {
      // A call's arguments end at its closing parenthesis, read at most 64 KiB far.
      const std::size_t close = matching_close(code.substr(0, std::min(code.size(), open + kShellMaxBytes)), open);
      add_names(code.substr(open, close - open), handed);
      auto first = std::lower_bound(lexed_.literals.begin(), lexed_.literals.end(), open,
                                    [](const Literal& l, std::size_t at) { return l.begin <= at; });
      std::string line;
      std::string program;  // a Windows program the call names
      for (auto l = first; l != lexed_.literals.end() && l->end <= close && line.size() <= kShellMaxBytes; ++l) {
        if (!line.empty()) line += ' ';
        line += l->value;
        if (program.empty() && windows_program(l->value)) program = l->value;
      }
      shell_line(line, line_of(open));
      // A sender started as a program (["dig", "+short", f"{data}.x.example"]): a send, as
      // requests.post( is one.
      if (auto what = sender_program(line); !what.empty() && process_sends_.size() < 16)
        process_sends_.push_back({std::string(what), open, line.substr(0, line.find(' '))});
      // Once each: `subprocess.` and `Popen(` of one call both open it.
      if (all_calls.size() + line.size() < kShellMaxBytes && lines.insert(line).second) all_calls += line + "\n";
      // A program started in the background and let go: a dropper's last step. The
      // adapter weighs it by where it runs (medium in a library, high at install).
      if (!program.empty() && detaches(code)) {
        add(FactKind::kShell, "program-started-detached", line_of(open), "starts " + program + ", detached");
      }
    }
    // A download in one call run by another (Popen(['curl … -o dark.exe']), then
    // Popen(['C:/dark.exe'])): the calls read as one script, in the order written, for that
    // alone — each call's own findings are said above.
    if (sinks.process_calls.size() > 1 && mentions_shell(all_calls)) {
      for (const ShellFinding& f : judge_shell(parse_shell(all_calls))) {
        if (f.what == ShellSignal::kDownloadExecuted)
          add(FactKind::kShell, std::string(shell_signal_name(f.what)), line_of(sinks.process_calls.back()), f.detail);
      }
    }
    // A command written to a variable first and run later: every string of a file that
    // starts processes, and every string of a decoded payload. A string given to a name
    // that no process call is handed is a message, not a command (bun's postinstall keeps
    // `curl … | bash` in installScript for an Error's text).
    if (sinks.processes || depth_ > 0) {
      for (const Literal& l : lexed_.literals) {
        if (depth_ == 0) {
          const std::string_view name = assigned_name(code, l.begin);
          if (!name.empty() && !handed.contains(name)) continue;
        }
        shell_line(l.value, l.line);
      }
    }
    // A decoded payload that is itself a command line, not code.
    if (depth_ > 0 && lexed_.literals.empty()) shell_line(source_, 1);
  }

  // A bundler's output (esbuild's __commonJS/__toESM helpers, webpack's
  // __webpack_require__, rollup's commonjsGlobal), or a minifier's, carries other projects'
  // code, copied in whole: a broad fact in it is weighed as in a vendored copy, unless the file runs at
  // install or import (adapters/scanners/signals.cc). Said only of a file that has facts,
  // and only of the file as written, not of a decoded payload inside it.
  void generated() {
    if (depth_ > 0 || lang_ != Language::kJavaScript || facts_.empty()) return;
    static constexpr std::array<std::string_view, 4> kHelpers{"__commonJS(", "__toESM(", "__webpack_require__",
                                                              "commonjsGlobal"};
    for (std::string_view helper : kHelpers) {
      const std::size_t at = lexed_.code.find(helper);
      if (at == std::string_view::npos) continue;
      add(FactKind::kGenerated, "bundle", line_of(at), helper);
      return;
    }
    // A minifier's output: a line of more than 20,000 bytes (cdktf's bin is 89 lines, one of
    // 244,047 bytes); the helpers' names are minified away with the rest.
    std::size_t begin = 0;
    std::size_t line = 1;
    for (std::size_t k = 0; k <= newlines_.size(); ++k, ++line) {
      const std::size_t end = k < newlines_.size() ? newlines_[k] : source_.size();
      if (end - begin > kMinifiedLineBytes) {
        add(FactKind::kGenerated, "minified", line, "a line of " + std::to_string(end - begin) + " bytes");
        return;
      }
      begin = end + 1;
    }
  }
  static constexpr std::size_t kMinifiedLineBytes = 20000;

  // A path of an autostart place in the code's strings: what a stealer or a dropper writes
  // to stay. The adapter weighs it by where it runs (an auto-launch library writes there
  // when asked; an install hook has no reason to).
  void autostart() {
    std::vector<Hit> hits;
    probe_literals(lexed_, kAutostart, hits);
    for (const Hit& h : hits) add(FactKind::kPersist, h.what, line_of(h.offset), h.token);
    // A browser's shortcuts rewritten to load an extension (`--load-extension=` set on the
    // .lnk files of chrome.exe, msedge.exe, brave.exe): the extension comes back at every
    // start of the browser. A test runner passes the flag on a command line it starts; it
    // does not edit the user's shortcuts.
    const bool shortcuts = has(lexed_.code, "CreateShortcut") ||
                           std::any_of(lexed_.literals.begin(), lexed_.literals.end(),
                                       [](const Literal& l) { return lower(l.value).ends_with(".lnk"); });
    if (!shortcuts) return;
    for (const Literal& l : lexed_.literals) {
      if (l.value.size() < 4096 && l.value.find("--load-extension") != std::string::npos) {
        add(FactKind::kPersist, "browser-extension", line_of(l.begin), excerpt(l.value, 120));
        return;
      }
    }
  }

  void collected_and_sent(const Sinks& sinks) {
    const std::string_view code = lexed_.code;
    std::vector<Hit> collect;
    std::vector<Hit> send;
    if (lang_ == Language::kPython) {
      probe_code(code, kPyCollect, collect);
      probe_code(code, kPySend, send);
    } else {
      probe_code(code, kJsCollect, collect);
      probe_code(code, kJsSend, send);
      // require('https') / require("node:http") and friends count as a send only with a call.
    }
    probe_literals(lexed_, kStores, collect, /*components=*/true);
    probe_literals(lexed_, kChannels, send);
    send.insert(send.end(), process_sends_.begin(), process_sends_.end());
    // whoami, hostname and friends run as commands, in a file that starts processes: a
    // string "hostname" elsewhere is a URL's or a config's key (core-js-bundle's URL polyfill).
    if (sinks.processes) {
      for (const Literal& l : lexed_.literals) {
        if (l.value == "whoami" || l.value == "hostname" || l.value.starts_with("whoami ") ||
            l.value.starts_with("hostname "))
          collect.push_back({"host", l.begin, l.value});
      }
    }
    if (lang_ == Language::kJavaScript) form_secrets(collect);
    device_files(collect);
    // A Discord store needs its leveldb beside it: "discord" alone is every bot library.
    const bool discord_store =
        std::any_of(collect.begin(), collect.end(), [](const Hit& h) { return h.token == "local storage/leveldb"; });
    std::set<std::string> said;
    // One call is one hit: `.hostname()` inside `os.hostname()` is the same call.
    auto inside_another = [&](const Hit& h) {
      return std::any_of(collect.begin(), collect.end(), [&](const Hit& o) {
        return &o != &h && o.what == h.what && o.offset < h.offset && h.offset < o.offset + o.token.size();
      });
    };
    for (const Hit& h : collect) {
      if (h.token == "discord" && !discord_store) continue;
      if (inside_another(h)) continue;
      if (!said.insert(h.what + "\x1f" + h.token).second) continue;
      add(FactKind::kCollect, h.what, line_of(h.offset), h.token);
    }
    for (const Hit& h : send) {
      if (!said.insert(h.what + "\x1f" + h.token).second) continue;
      add(FactKind::kSend, h.what, line_of(h.offset), h.token);
    }
  }

  // A phone's shared storage walked: every photo, download and document an Android user
  // keeps (blackspammerbd-termux walks /sdcard and posts each file to a Telegram bot). Only
  // as the root of a walk or a listing: a device-automation library names /sdcard/… paths
  // of files it pushes, and walks nothing there.
  void device_files(std::vector<Hit>& collect) const {
    const std::string_view code = lexed_.code;
    if (!has(code, "walk(") && !has(code, "listdir(") && !has(code, "scandir(") && !has(code, "glob(") &&
        !has(code, "readdirSync(") && !has(code, "readdir("))
      return;
    for (const Literal& l : lexed_.literals) {
      std::string_view v = l.value;
      if (v.size() > 1 && v.back() == '/') v.remove_suffix(1);
      if (v == "/sdcard" || v == "/storage/emulated/0" || v == "/storage/emulated") {
        collect.push_back({"device-files", l.begin, std::string(v)});
        return;
      }
    }
  }

  // A page's secret form fields read on submit, in script that walks every form of the page:
  // a card or password skimmer injected into a browser bundle (device-mqtt, npm malware).
  // A sign-in or payment widget reads its own form, not document.forms.
  void form_secrets(std::vector<Hit>& collect) const {
    const std::size_t at = lexed_.code.find("document.forms");
    if (at == std::string_view::npos) return;
    bool secret = false;
    bool submit = false;
    for (const Literal& l : lexed_.literals) {
      const std::string v = lower(l.value);
      secret = secret || v == "password" || v == "cardnumber" || v == "card-number" || v == "cc-number" || v == "cvc" ||
               v == "cvv" || v == "cc-csc";
      submit = submit || v == "submit";
    }
    if (secret && submit) collect.push_back({"form-secrets", at, "document.forms"});
  }

  std::string_view file_;
  std::string_view source_;
  Language lang_;
  Phase phase_;
  Budget& budget_;
  int depth_;
  Lexed lexed_;
  static constexpr std::size_t kMaxFacts = 64;  // per file: more of the same says nothing new
  std::vector<std::size_t> newlines_;
  std::vector<Fact> facts_;
  std::vector<Hit> process_sends_;  // process calls whose program sends: dig, nslookup, nc…
  bool undisguised_ = false;        // this text is a file as Python reads it (look-alikes mapped)
};

}  // namespace

std::vector<Fact> analyze_source(std::string_view file, std::string_view source, Language lang, Phase phase,
                                 Budget& budget, int depth) {
  return FileAnalysis(file, source, lang, phase, budget, depth).run();
}

std::vector<Fact> analyze_command(std::string_view file, std::size_t line, std::string_view command, Phase phase) {
  std::vector<Fact> out;
  if (!mentions_shell(command)) return out;
  for (const ShellFinding& f : judge_shell(parse_shell(command))) {
    out.push_back(
        {FactKind::kShell, std::string(shell_signal_name(f.what)), std::string(file), line, phase, excerpt(f.detail)});
  }
  return out;
}

}  // namespace batlehub::signals
