#include "signals/flows.h"

#include <algorithm>
#include <array>
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
constexpr std::array<std::string_view, 8> kFetch{"requests.get(", "requests.post(",  "requests.request(",
                                                 "urlopen(",      "httpx.get(",      "httpx.post(",
                                                 "session.get(",  "urllib3.request("};
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

std::string shown(std::string_view source, const Line& l) {
  std::string_view s = source.substr(l.begin, std::min(l.text.size(), std::size_t{200}));
  const std::size_t b = s.find_first_not_of(" \t");
  return std::string(b == std::string_view::npos ? s : s.substr(b));
}

}  // namespace

std::vector<Flow> python_flows(std::string_view source, const Lexed& lexed) {
  const std::string_view code = lexed.code;
  // Where the call whose parenthesis opens at `open` closes, read at most kMaxArgsBytes far.
  auto close_of = [&](std::size_t open) {
    return matching_close(code.substr(0, std::min(code.size(), open + kMaxArgsBytes)), open);
  };
  std::vector<Flow> out;
  const std::vector<Line> lines = lines_of(code);
  auto line_at_offset = [&](std::size_t at) -> const Line& {
    auto it =
        std::upper_bound(lines.begin(), lines.end(), at, [](std::size_t a, const Line& l) { return a < l.begin; });
    return *(it - 1);
  };

  // --- code fetched and run ---------------------------------------------------------------
  // Only a fetch of a fixed address counts: a URL written in the file, or a name assigned
  // one. A fetch of a URL the caller gives is a feature that runs what its user points it
  // at (dask's preload scripts); a fixed one runs what the address's owner serves.
  auto literal_at = [&](std::size_t at) -> const Literal* {
    auto it = std::lower_bound(lexed.literals.begin(), lexed.literals.end(), at,
                               [](const Literal& l, std::size_t a) { return l.begin < a; });
    return it != lexed.literals.end() ? &*it : nullptr;
  };
  auto an_address = [](const Literal* l) { return l != nullptr && l->value.find("://") != std::string::npos; };
  std::set<std::string, std::less<>> addresses;  // names assigned a URL written in the file
  std::vector<std::size_t> fixed_fetches;        // offsets of fetch calls of a fixed address
  if (calls_any(code, kFetch) && (calls_any(code, kRun) || code.find("target=exec") != std::string_view::npos ||
                                  code.find("target = exec") != std::string_view::npos)) {
    for (const Line& l : lines) {
      auto [names, rhs] = assignment(l.text);
      if (names.size() != 1) continue;
      std::size_t q = rhs.find_first_not_of(" \t");
      if (q == std::string_view::npos) continue;
      const std::size_t at = static_cast<std::size_t>(rhs.data() - code.data()) + q;
      const Literal* lit = literal_at(at);
      // The literal starts where the value does, after at most a two-letter prefix (f"…", rb'…').
      if (lit != nullptr && lit->begin - at <= 2 && an_address(lit)) addresses.emplace(names.front());
    }
    for (std::string_view t : kFetch) {
      std::size_t read = 0;
      for (std::size_t k = code.find(t);
           k != std::string_view::npos && fixed_fetches.size() < kMaxNames && read < kMaxCallsRead;
           k = code.find(t, k + 1)) {
        if (!starts_name(code, k) && code[k - 1] != '.') continue;
        ++read;
        const std::size_t open = k + t.size() - 1;
        const std::size_t close = close_of(open);
        // The first argument: up to the first comma at the call's own depth.
        std::size_t end = open + 1;
        for (int depth = 0; end + 1 < close; ++end) {
          const char c = code[end];
          if (c == '(' || c == '[' || c == '{') ++depth;
          if (c == ')' || c == ']' || c == '}') --depth;
          if (c == ',' && depth == 0) break;
        }
        const std::string_view first = code.substr(open + 1, end - open - 1);
        const Literal* lit = literal_at(open + 1);
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
        const std::size_t close = close_of(open);
        if (lands(code.substr(open, close - open))) {
          out.push_back({Flow::Kind::kFetchedCodeExecuted, k, shown(source, line_at_offset(k))});
        }
      }
    }
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
        const std::size_t close = close_of(open);
        if (lands(code.substr(open, close - open))) {
          out.push_back({Flow::Kind::kFetchedCodeExecuted, k, shown(source, line_at_offset(k))});
        }
      }
    }
  }

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
      const Line& line = line_at_offset(l.begin);
      const std::size_t from = std::max(line.begin, l.begin > kMaxLookBackBytes ? l.begin - kMaxLookBackBytes : 0);
      const std::string_view head = code.substr(from, l.begin - from);
      const bool started =
          head.find("Popen(") != std::string_view::npos || head.find("call(") != std::string_view::npos ||
          head.find("run(") != std::string_view::npos || head.find("spawn(") != std::string_view::npos ||
          head.find("os.exec") != std::string_view::npos || head.find("check_output(") != std::string_view::npos;
      // Or the line alone names it, a Popen( on the line before (a call written over lines).
      bool started_above = false;
      if (!started && line.begin > 0) {
        const Line& above = line_at_offset(line.begin - 1);
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
