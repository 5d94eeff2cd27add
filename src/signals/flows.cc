#include "signals/flows.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "signals/ascii.h"

namespace batlehub::signals {

namespace {

constexpr std::size_t kMaxNames = 64;
constexpr std::size_t kMaxFlows = 16;
constexpr std::size_t kMaxLineBytes = 4096;  // an assignment longer than this is data, not a step
constexpr std::size_t kMaxArgsBytes = 64 * 1024;
constexpr int kRounds = 3;  // assignments followed: fetched → response → text → code
// Each call's arguments are read at most 64 KiB far, and at most this many calls of one
// token: a file of 200,000 unclosed `urlopen(` must not cost 200,000 × 64 KiB.
constexpr std::size_t kMaxCallsRead = 256;

// Calls that bring bytes from the network.
constexpr std::array<std::string_view, 9> kFetch{"requests.get(", "requests.post(",   "requests.request(",
                                                 "urlopen(",      "httpx.get(",       "httpx.post(",
                                                 "session.get(",  "urllib3.request(", "urlretrieve("};
// Calls that start a program from a file.
constexpr std::array<std::string_view, 9> kRunFile{"subprocess.run(", "subprocess.call(", "Popen(",
                                                   "check_call(",     "check_output(",    "os.system(",
                                                   "startfile(",      "os.popen(",        "os.execv("};
// Calls that run a string as Python.
constexpr std::array<std::string_view, 3> kRun{"exec(", "eval(", "compile("};
// Shell programs, as a process call names them.
constexpr std::array<std::string_view, 12> kShells{"sh",         "/bin/sh",        "bash", "/bin/bash",
                                                   "zsh",        "/bin/zsh",       "cmd",  "cmd.exe",
                                                   "powershell", "powershell.exe", "pwsh", "/bin/dash"};

// `token` at k starts a name there: nothing of a name before it (".urlopen(" is allowed).
bool starts_name(std::string_view code, std::size_t k) {
  return k == 0 || !name_char(code[k - 1]);
}

template <std::size_t N>
bool calls_any(std::string_view text, const std::array<std::string_view, N>& tokens) {
  for (std::string_view t : tokens) {
    for (std::size_t k = text.find(t); k != std::string_view::npos; k = text.find(t, k + 1)) {
      if (starts_name(text, k) || text[k - 1] == '.') return true;
    }
  }
  return false;
}

// The names read in `text` that are in `names`.
bool reads_any(std::string_view text, const std::set<std::string, std::less<>>& names) {
  std::size_t k = 0;
  while (k < text.size()) {
    if (!name_start(text[k]) || (k > 0 && (name_char(text[k - 1]) || text[k - 1] == '.'))) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < text.size() && name_char(text[e])) ++e;
    if (names.contains(text.substr(k, e - k))) return true;
    k = e;
  }
  return false;
}

struct Line {
  std::size_t begin;
  std::string_view text;
};

std::vector<Line> lines_of(std::string_view code) {
  std::vector<Line> out;
  std::size_t b = 0;
  while (b <= code.size()) {
    std::size_t e = code.find('\n', b);
    if (e == std::string_view::npos) e = code.size();
    out.push_back({b, code.substr(b, e - b)});
    b = e + 1;
  }
  return out;
}

// The names a line assigns and what it assigns them: `a, b = rhs`, `a = rhs`, `with rhs as a:`.
// Empty names for any other line.
std::pair<std::vector<std::string_view>, std::string_view> assignment(std::string_view line) {
  std::size_t k = line.find_first_not_of(" \t");
  if (k == std::string_view::npos || line.size() > kMaxLineBytes) return {};
  if (line.substr(k).starts_with("with ")) {
    const std::size_t as = line.rfind(" as ");
    if (as == std::string_view::npos) return {};
    std::size_t b = as + 4;
    std::size_t e = b;
    while (e < line.size() && name_char(line[e])) ++e;
    if (e == b) return {};
    return {{line.substr(b, e - b)}, line.substr(k + 5, as - k - 5)};
  }
  std::vector<std::string_view> names;
  while (k < line.size() && name_start(line[k])) {
    std::size_t e = k;
    while (e < line.size() && name_char(line[e])) ++e;
    names.push_back(line.substr(k, e - k));
    k = line.find_first_not_of(" \t", e);
    if (k == std::string_view::npos) return {};
    if (line[k] != ',') break;
    k = line.find_first_not_of(" \t", k + 1);
    if (k == std::string_view::npos) return {};
  }
  // `=`, not `==`: an assignment, not a comparison.
  if (names.empty() || line[k] != '=' || (k + 1 < line.size() && line[k + 1] == '=')) return {};
  return {names, line.substr(k + 1)};
}

// Words in a name that holds a wallet's secret: the key itself, or the phrase it derives from.
constexpr std::array<std::string_view, 9> kKeyWords{"private_key", "privatekey",      "privkey",
                                                    "priv_key",    "mnemonic",        "seed_phrase",
                                                    "seedphrase",  "recovery_phrase", "secret_phrase"};
// Calls that send to the address in their first argument (any object's .post: a session, a
// client). Not requests.request, whose first argument is the method.
constexpr std::array<std::string_view, 6> kSendTo{".post(", ".put(", ".patch(", ".get(", "urlopen(", "Request("};
// Calls a key goes through and is still the key: encodings, containers, text. Anything else
// (from_key, Keypair, sign, derive) makes something else of it — an address, a signature —
// which a wallet library sends all day.
constexpr std::array<std::string_view, 20> kCarriers{"encode",    "decode",    "b64encode", "urlsafe_b64encode",
                                                     "b32encode", "b16encode", "hexlify",   "hex",
                                                     "str",       "bytes",     "dumps",     "format",
                                                     "join",      "strip",     "lower",     "upper",
                                                     "dict",      "list",      "tuple",     "quote"};
// How many name readings the key's flow looks at in one file (each reads back at most one
// call's arguments): a file of 100,000 `private_key` must cost this many, not one each.
constexpr std::size_t kMaxKeyReadings = 512;

template <std::size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// The host of a URL written in the file, when it is fixed and not this machine's: what the
// author chose to send to. A host built from a placeholder (f"http://{host}/") is the caller's.
bool a_fixed_remote_address(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view host = url.substr(scheme + 3);
  host = host.substr(0, host.find_first_of("/?#"));
  if (const std::size_t at = host.rfind('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
  if (host.empty() || host.find('{') != std::string_view::npos) return false;
  if (host.front() != '[') host = host.substr(0, host.find(':'));
  const std::string h = lower(host);
  return !h.empty() && h != "localhost" && !h.starts_with("127.") && h != "0.0.0.0" && h != "[::1]" &&
         !h.ends_with(".localhost");
}

// The first literal at or after `at`.
const Literal* literal_at(const Lexed& lexed, std::size_t at) {
  auto it = literal_from(lexed, at);
  return it != lexed.literals.end() ? &*it : nullptr;
}

// The literal that is an assignment's value (`rhs`, a part of the lexed code): it opens where
// the value does, after at most a two-letter prefix (f"…", rb'…'); nullptr for any other value.
const Literal* value_literal(const Lexed& lexed, std::string_view rhs) {
  const std::size_t q = rhs.find_first_not_of(" \t");
  if (q == std::string_view::npos) return nullptr;
  const std::size_t at = static_cast<std::size_t>(rhs.data() - lexed.code.data()) + q;
  const Literal* lit = literal_at(lexed, at);
  return lit != nullptr && lit->begin - at <= 2 ? lit : nullptr;
}

// Where the call whose parenthesis opens at `open` closes, read at most kMaxArgsBytes far.
std::size_t call_close(std::string_view code, std::size_t open) {
  return matching_close(code.substr(0, std::min(code.size(), open + kMaxArgsBytes)), open);
}

// Where the first argument of the call whose parenthesis opens at `open` ends: the first
// comma at the call's own depth, or the call's closing parenthesis.
std::size_t first_argument_end(std::string_view code, std::size_t open, std::size_t close) {
  std::size_t end = open + 1;
  for (int depth = 0; end + 1 < close; ++end) {
    const char c = code[end];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) break;
  }
  return end;
}

// The line `at` falls on.
const Line& line_at(const std::vector<Line>& lines, std::size_t at) {
  auto it = std::upper_bound(lines.begin(), lines.end(), at, [](std::size_t a, const Line& l) { return a < l.begin; });
  return *(it - 1);
}

// Where what a line assigns ends: the line's end, or, when a bracket opened on it stays
// open (a dict written over lines), where that bracket closes (read at most kMaxArgsBytes).
// `budget` is what the file's lines may read past their ends, all together: 100,000 lines
// of `x = (` never closed must cost one bounded reading, not 100,000 of 64 KiB.
std::size_t value_end(std::string_view code, std::size_t rhs_begin, std::size_t line_end, std::size_t& budget) {
  int depth = 0;
  std::size_t outer = std::string_view::npos;
  for (std::size_t k = rhs_begin; k < line_end; ++k) {
    const char c = code[k];
    if (c == '(' || c == '[' || c == '{') {
      if (depth++ == 0) outer = k;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  if (depth == 0 || outer == std::string_view::npos || budget == 0) return line_end;
  const std::size_t reach = std::min({kMaxArgsBytes, budget, code.size() - outer});
  const std::size_t end = matching_close(code.substr(0, outer + reach), outer);
  budget -= std::min(budget, end - outer);
  return std::max(end, line_end);
}

// Whether `text` (a part of the lexed code) hands on one of `names` as itself: the name read,
// and every call around it within `text`, and a method called on it, one of kCarriers.
// `names` maps each tainted name to the key it carries; the key's name is returned.
std::optional<std::string> carries(std::string_view text, const std::map<std::string, std::string, std::less<>>& names,
                                   std::size_t& readings) {
  std::size_t k = 0;
  while (k < text.size() && readings < kMaxKeyReadings) {
    if (!name_start(text[k]) || (k > 0 && (name_char(text[k - 1]) || text[k - 1] == '.'))) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < text.size() && name_char(text[e])) ++e;
    const auto it = names.find(text.substr(k, e - k));
    const std::size_t at = k;
    k = e;
    if (it == names.end()) continue;
    ++readings;
    // A method called on it: key.encode() is the key, key.public_key() is not.
    if (e + 1 < text.size() && text[e] == '.') {
      std::size_t m = e + 1;
      while (m < text.size() && name_char(text[m])) ++m;
      if (m < text.size() && text[m] == '(' && !one_of(text.substr(e + 1, m - e - 1), kCarriers)) continue;
    }
    // The calls around it, innermost first.
    bool as_itself = true;
    int depth = 0;
    for (std::size_t b = at; b-- > 0 && as_itself;) {
      const char c = text[b];
      if (c == ')' || c == ']' || c == '}') {
        ++depth;
      } else if (c == '(' || c == '[' || c == '{') {
        if (depth > 0) {
          --depth;
          continue;
        }
        if (c != '(') continue;
        std::size_t n = b;
        while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t')) --n;
        std::size_t f = n;
        while (f > 0 && name_char(text[f - 1])) --f;
        const std::string_view callee = text.substr(f, n - f);
        if (!callee.empty() && !one_of(callee, kCarriers)) as_itself = false;  // (…) alone groups
      }
    }
    if (as_itself) return it->second;
  }
  return std::nullopt;
}

std::string shown(std::string_view source, const Line& l) {
  std::string_view s = source.substr(l.begin, std::min(l.text.size(), std::size_t{200}));
  const std::size_t b = s.find_first_not_of(" \t");
  return std::string(b == std::string_view::npos ? s : s.substr(b));
}

// A wallet's private key or seed phrase sent to a fixed address (flows.h).
void key_sent(std::string_view source, const Lexed& lexed, const std::vector<Line>& lines, std::vector<Flow>& out) {
  const std::string_view code = lexed.code;
  // The names that hold a key: any name in the code with one of kKeyWords in it. The code is
  // lowered once and searched for the words; only the names around a hit are read.
  const std::string lowered = lower(code);
  std::map<std::string, std::string, std::less<>> tainted;
  for (std::string_view w : kKeyWords) {
    for (std::size_t at = lowered.find(w); at != std::string::npos && tainted.size() < kMaxNames;
         at = lowered.find(w, at + w.size())) {
      std::size_t b = at;
      while (b > 0 && name_char(code[b - 1])) --b;
      std::size_t e = at + w.size();
      while (e < code.size() && name_char(code[e])) ++e;
      if (e - b <= 64 && name_start(code[b])) tainted.emplace(code.substr(b, e - b), code.substr(b, e - b));
    }
  }
  if (tainted.empty()) return;
  // Names assigned a fixed remote address; each assignment's names and value, read once.
  struct Assigned {
    std::vector<std::string_view> names;
    std::string_view value;
  };
  std::vector<Assigned> assigned;
  std::set<std::string, std::less<>> addresses;
  std::size_t past_line_budget = 4 * kMaxArgsBytes;
  for (const Line& l : lines) {
    auto [names, rhs] = assignment(l.text);
    if (names.empty()) continue;
    const std::size_t b = static_cast<std::size_t>(rhs.data() - code.data());
    if (names.size() == 1) {
      const Literal* lit = value_literal(lexed, rhs);
      if (lit != nullptr && a_fixed_remote_address(lit->value)) addresses.emplace(names.front());
    }
    const std::size_t e = value_end(code, b, l.begin + l.text.size(), past_line_budget);
    assigned.push_back({std::move(names), code.substr(b, e - b)});
  }
  // Names assigned what carries a key, followed kRounds deep.
  std::size_t readings = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::size_t before = tainted.size();
    for (const Assigned& a : assigned) {
      if (tainted.size() >= kMaxNames || readings >= kMaxKeyReadings) break;
      if (auto key = carries(a.value, tainted, readings)) {
        for (std::string_view n : a.names) tainted.emplace(n, *key);
      }
    }
    if (tainted.size() == before) break;
  }
  for (std::string_view t : kSendTo) {
    std::size_t read = 0;
    for (std::size_t k = code.find(t); k != std::string_view::npos && out.size() < kMaxFlows && read < kMaxCallsRead;
         k = code.find(t, k + 1)) {
      if (t.front() == '.' ? (k == 0 || !name_char(code[k - 1])) : (!starts_name(code, k) && code[k - 1] != '.'))
        continue;
      ++read;
      const std::size_t open = k + t.size() - 1;
      const std::size_t close = call_close(code, open);
      const std::size_t first_end = first_argument_end(code, open, close);
      const std::string_view first = code.substr(open + 1, first_end - open - 1);
      const Literal* lit = literal_at(lexed, open + 1);
      const bool url_literal = lit != nullptr && lit->begin < first_end;
      const bool fixed = (url_literal && a_fixed_remote_address(lit->value)) || reads_any(first, addresses);
      if (!fixed) continue;
      std::optional<std::string> key;
      // In the address itself: f"https://…/{private_key}".
      if (url_literal) {
        for (const auto& [n, root] : tainted) {
          const std::size_t p = lit->value.find("{" + n);
          if (p != std::string::npos &&
              (p + n.size() + 1 >= lit->value.size() || !name_char(lit->value[p + n.size() + 1]))) {
            key = root;
            break;
          }
        }
      }
      if (!key && first_end < close) key = carries(code.substr(first_end, close - first_end), tainted, readings);
      if (key) out.push_back({Flow::Kind::kKeySent, k, shown(source, line_at(lines, k)), *key});
    }
  }
}

// The last component of a path, either separator.
std::string_view file_name_of(std::string_view p) {
  const std::size_t s = p.find_last_of("/\\");
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

// A program fetched from a fixed address, written to a file and started (flows.h): the
// file is `open(X, 'wb')` on the line of a .write( of what was fetched or up to three lines
// above it, or urlretrieve's second argument; the start is a process call that names X —
// the same variable, or a string with the same file name.
void fetched_file_run(std::string_view source, const Lexed& lexed, const std::vector<Line>& lines,
                      const std::vector<std::size_t>& fixed_fetches, const std::set<std::string, std::less<>>& fetched,
                      std::vector<Flow>& out) {
  const std::string_view code = lexed.code;
  std::set<std::string, std::less<>> file_names;  // names that hold a written file's path
  std::set<std::string, std::less<>> file_paths;  // file names written as strings
  auto target = [&](std::string_view arg, std::size_t at) {
    const Literal* lit = literal_at(lexed, at);
    if (lit != nullptr && lit->begin < at + arg.size() && !file_name_of(lit->value).empty()) {
      if (file_paths.size() < kMaxNames) file_paths.emplace(file_name_of(lit->value));
      return;
    }
    // A name alone (`filename`), not an expression: os.path.join(d, n) names os and d too,
    // which every process call reads.
    const std::size_t b = arg.find_first_not_of(" \t\n");
    if (b == std::string_view::npos || !name_start(arg[b])) return;
    std::size_t e = b;
    while (e < arg.size() && name_char(arg[e])) ++e;
    if (arg.find_first_not_of(" \t\n", e) == std::string_view::npos && file_names.size() < kMaxNames)
      file_names.emplace(arg.substr(b, e - b));
  };
  for (std::size_t f : fixed_fetches) {
    if (code.substr(f, 12) != "urlretrieve(") continue;
    const std::size_t open = f + 11;
    const std::size_t close = call_close(code, open);
    const std::size_t first_end = first_argument_end(code, open, close);
    if (first_end + 1 < close) {
      const std::size_t b = first_end + 1;
      const std::size_t e = first_argument_end(code, first_end, close);
      target(code.substr(b, e - b), b);
    }
  }
  auto fetched_in = [&](std::string_view args) {
    const auto b = static_cast<std::size_t>(args.data() - code.data());
    auto it = std::lower_bound(fixed_fetches.begin(), fixed_fetches.end(), b);
    return (it != fixed_fetches.end() && *it < b + args.size()) || reads_any(args, fetched);
  };
  std::size_t read = 0;
  for (std::size_t k = code.find(".write("); k != std::string_view::npos && read < kMaxCallsRead;
       k = code.find(".write(", k + 1)) {
    ++read;
    const std::size_t open = k + 6;
    if (!fetched_in(code.substr(open, call_close(code, open) - open))) continue;
    // The open( that made the file: on this line or up to three above.
    const Line& here = line_at(lines, k);
    std::size_t from = here.begin;
    for (int up = 0; up < 3 && from > 0; ++up) from = line_at(lines, from - 1).begin;
    const std::size_t o = code.substr(from, k - from).rfind("open(");
    if (o == std::string_view::npos) continue;
    const std::size_t oo = from + o + 4;
    const std::size_t oc = call_close(code, oo);
    target(code.substr(oo + 1, first_argument_end(code, oo, oc) - oo - 1), oo + 1);
  }
  if (file_names.empty() && file_paths.empty()) return;
  for (std::string_view t : kRunFile) {
    std::size_t calls = 0;
    for (std::size_t k = code.find(t); k != std::string_view::npos && out.size() < kMaxFlows && calls < kMaxCallsRead;
         k = code.find(t, k + 1)) {
      if (!starts_name(code, k) && code[k - 1] != '.') continue;
      ++calls;
      const std::size_t open = k + t.size() - 1;
      const std::size_t close = call_close(code, open);
      bool names_it = reads_any(code.substr(open, close - open), file_names);
      for (auto l = literal_from(lexed, open); !names_it && l != lexed.literals.end() && l->begin < close; ++l) {
        // The program, or a word of a command line: 'C:/x.exe', 'chmod +x x && ./x'.
        for (std::size_t w = 0; w < l->value.size() && !names_it;) {
          const std::size_t e = std::min(l->value.find(' ', w), l->value.size());
          names_it = file_paths.contains(file_name_of(std::string_view(l->value).substr(w, e - w)));
          w = e + 1;
        }
      }
      if (names_it) out.push_back({Flow::Kind::kFetchedFileRun, k, shown(source, line_at(lines, k)), {}});
    }
  }
}

}  // namespace

std::vector<Flow> python_flows(std::string_view source, const Lexed& lexed) {
  const std::string_view code = lexed.code;
  std::vector<Flow> out;
  const std::vector<Line> lines = lines_of(code);

  // --- code fetched and run ---------------------------------------------------------------
  // Only a fetch of a fixed address counts: a URL written in the file, or a name assigned
  // one. A fetch of a URL the caller gives is a feature that runs what its user points it
  // at (dask's preload scripts); a fixed one runs what the address's owner serves.
  auto an_address = [](const Literal* l) { return l != nullptr && l->value.find("://") != std::string::npos; };
  std::set<std::string, std::less<>> addresses;  // names assigned a URL written in the file
  std::vector<std::size_t> fixed_fetches;        // offsets of fetch calls of a fixed address
  const bool runs_code = calls_any(code, kRun) || code.find("target=exec") != std::string_view::npos ||
                         code.find("target = exec") != std::string_view::npos;
  const bool runs_files = calls_any(code, kRunFile) && (code.find(".write(") != std::string_view::npos ||
                                                        code.find("urlretrieve(") != std::string_view::npos);
  if (calls_any(code, kFetch) && (runs_code || runs_files)) {
    for (const Line& l : lines) {
      auto [names, rhs] = assignment(l.text);
      if (names.size() == 1 && an_address(value_literal(lexed, rhs))) addresses.emplace(names.front());
    }
    for (std::string_view t : kFetch) {
      std::size_t read = 0;
      for (std::size_t k = code.find(t);
           k != std::string_view::npos && fixed_fetches.size() < kMaxNames && read < kMaxCallsRead;
           k = code.find(t, k + 1)) {
        if (!starts_name(code, k) && code[k - 1] != '.') continue;
        ++read;
        const std::size_t open = k + t.size() - 1;
        const std::size_t close = call_close(code, open);
        const std::size_t end = first_argument_end(code, open, close);
        const std::string_view first = code.substr(open + 1, end - open - 1);
        const Literal* lit = literal_at(lexed, open + 1);
        if ((lit != nullptr && lit->begin < end && an_address(lit)) || reads_any(first, addresses)) {
          fixed_fetches.push_back(k);
        }
      }
    }
    std::sort(fixed_fetches.begin(), fixed_fetches.end());
  }
  auto fetches_in = [&](std::string_view part) {
    const auto b = static_cast<std::size_t>(part.data() - code.data());
    auto it = std::lower_bound(fixed_fetches.begin(), fixed_fetches.end(), b);
    return it != fixed_fetches.end() && *it < b + part.size();
  };
  if (!fixed_fetches.empty()) {
    std::set<std::string, std::less<>> fetched;  // names that hold what the network sent
    for (int round = 0; round < kRounds && fetched.size() < kMaxNames; ++round) {
      const std::size_t before = fetched.size();
      for (const Line& l : lines) {
        auto [names, rhs] = assignment(l.text);
        if (names.empty() || !(fetches_in(rhs) || reads_any(rhs, fetched))) continue;
        for (std::string_view n : names) {
          if (fetched.size() < kMaxNames) fetched.emplace(n);
        }
      }
      if (fetched.size() == before) break;
    }
    auto lands = [&](std::string_view args) { return fetches_in(args) || reads_any(args, fetched); };
    for (std::string_view run : kRun) {
      std::size_t read = 0;
      for (std::size_t k = code.find(run);
           k != std::string_view::npos && out.size() < kMaxFlows && read < kMaxCallsRead; k = code.find(run, k + 1)) {
        if (!starts_name(code, k) || (k > 0 && code[k - 1] == '.')) continue;  // re.compile(, obj.eval(
        ++read;
        const std::size_t open = k + run.size() - 1;
        const std::size_t close = call_close(code, open);
        if (lands(code.substr(open, close - open))) {
          out.push_back({Flow::Kind::kFetchedCodeExecuted, k, shown(source, line_at(lines, k))});
        }
      }
    }
    if (runs_files) fetched_file_run(source, lexed, lines, fixed_fetches, fetched, out);
    // exec handed to a thread or a pool with its arguments: target=exec, args=(code, …).
    for (std::string_view target : {std::string_view("target=exec"), std::string_view("target = exec")}) {
      std::size_t read = 0;
      for (std::size_t k = code.find(target);
           k != std::string_view::npos && out.size() < kMaxFlows && read++ < kMaxCallsRead;
           k = code.find(target, k + 1)) {
        const std::size_t args = code.find("args", k);
        if (args == std::string_view::npos || args - k > 400) continue;
        const std::size_t open = code.find_first_of("([", args);
        if (open == std::string_view::npos || open - args > 8) continue;
        const std::size_t close = call_close(code, open);
        if (lands(code.substr(open, close - open))) {
          out.push_back({Flow::Kind::kFetchedCodeExecuted, k, shown(source, line_at(lines, k))});
        }
      }
    }
  }

  // --- a wallet's key sent to a fixed address -------------------------------------------------
  key_sent(source, lexed, lines, out);

  // --- a socket joined to a shell -----------------------------------------------------------
  const bool connects =
      code.find(".connect((") != std::string_view::npos || code.find("create_connection(") != std::string_view::npos;
  const bool joins =
      code.find("dup2(") != std::string_view::npos || code.find("stdin=subprocess.PIPE") != std::string_view::npos ||
      code.find("stdin=PIPE") != std::string_view::npos || code.find(".fileno()") != std::string_view::npos;
  if (connects && joins) {
    std::size_t read = 0;
    for (const Literal& l : lexed.literals) {
      if (out.size() >= kMaxFlows || read >= kMaxCallsRead) break;
      if (std::find(kShells.begin(), kShells.end(), l.value) == kShells.end()) continue;
      ++read;
      // The shell is a process call's program: a Popen/call/run/spawn opened before it on its
      // line, within the 4 KiB before it.
      const Line& line = line_at(lines, l.begin);
      const std::size_t from = std::max(line.begin, l.begin > kMaxLookBackBytes ? l.begin - kMaxLookBackBytes : 0);
      const std::string_view head = code.substr(from, l.begin - from);
      const bool started =
          head.find("Popen(") != std::string_view::npos || head.find("call(") != std::string_view::npos ||
          head.find("run(") != std::string_view::npos || head.find("spawn(") != std::string_view::npos ||
          head.find("os.exec") != std::string_view::npos || head.find("check_output(") != std::string_view::npos;
      // Or the line alone names it, a Popen( on the line before (a call written over lines).
      bool started_above = false;
      if (!started && line.begin > 0) {
        const Line& above = line_at(lines, line.begin - 1);
        const std::string_view tail =
            above.text.substr(above.text.size() > kMaxLookBackBytes ? above.text.size() - kMaxLookBackBytes : 0);
        started_above = tail.find("Popen(") != std::string_view::npos;
      }
      if (started || started_above) out.push_back({Flow::Kind::kSocketShell, l.begin, shown(source, line)});
    }
  }
  return out;
}

}  // namespace batlehub::signals
