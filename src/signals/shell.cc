#include "signals/shell.h"

#include "signals/ascii.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace batlehub::signals {

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
bool ends_word(char c) {
  return blank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
}

class Parser {
 public:
  Parser(std::string_view s, int depth, std::size_t& words)
      : s_(s.substr(0, kShellMaxBytes)), depth_(depth), words_(words) {}

  Script parse() {
    Script sc;
    Pipeline p;
    Command c;
    auto end_command = [&] {
      if (!c.argv.empty() || !c.redirects.empty()) p.commands.push_back(std::move(c));
      c = Command{};
    };
    auto end_pipeline = [&] {
      end_command();
      if (!p.commands.empty()) sc.pipelines.push_back(std::move(p));
      p = Pipeline{};
    };
    while (i_ < s_.size() && words_ < kShellMaxWords) {
      const char ch = s_[i_];
      if (blank(ch)) {
        ++i_;
        continue;
      }
      if (ch == '#') {  // a word that starts with '#' starts a comment, wherever it is
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        continue;
      }
      if (ch == '\n' || ch == ';' || ch == '(' || ch == ')') {
        end_pipeline();
        ++i_;
        continue;
      }
      if (ch == '&') {
        if (at("&&")) {
          end_pipeline();
          i_ += 2;
        } else if (at("&>")) {
          c.redirects.push_back(redirect());
        } else {
          end_pipeline();
          ++i_;
        }
        continue;
      }
      if (ch == '|') {
        if (at("||")) {
          end_pipeline();
          i_ += 2;
        } else {
          end_command();
          ++i_;
        }
        continue;
      }
      if (at("<(")) {
        c.argv.push_back(substitution(sc, 2, ')'));
        continue;
      }
      if (ch == '<' || ch == '>' || (ch >= '0' && ch <= '9' && redirect_follows())) {
        c.redirects.push_back(redirect());
        continue;
      }
      c.argv.push_back(word(sc));
      ++words_;
    }
    end_pipeline();
    return sc;
  }

 private:
  bool at(std::string_view t) const { return s_.substr(i_, t.size()) == t; }

  bool redirect_follows() const {
    std::size_t k = i_;
    while (k < s_.size() && s_[k] >= '0' && s_[k] <= '9') ++k;
    return k < s_.size() && (s_[k] == '<' || s_[k] == '>');
  }

  // "2>&1", ">& /dev/tcp/h/1", ">>log", "&> f": the operator and its target as one string.
  // The operator is [digits] then < or > (doubled, or <>) then an optional &, or &> / &>>.
  std::string redirect() {
    std::string r;
    if (at("&>")) {
      r = "&>";
      i_ += 2;
    } else {
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') r.push_back(s_[i_++]);
    }
    for (int k = 0; k < 2 && i_ < s_.size() && (s_[i_] == '<' || s_[i_] == '>'); ++k) r.push_back(s_[i_++]);
    if (r.back() != '&' && i_ < s_.size() && s_[i_] == '&') {
      r.push_back(s_[i_++]);
      // A descriptor duplicated or closed (2>&1, >&2, <&-) names no file: no word follows.
      const std::size_t digits = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') r.push_back(s_[i_++]);
      if (i_ > digits) return r;
      if (i_ < s_.size() && s_[i_] == '-') {
        r.push_back(s_[i_++]);
        return r;
      }
    }
    while (i_ < s_.size() && blank(s_[i_])) ++i_;
    Script ignored;
    if (i_ < s_.size() && !ends_word(s_[i_])) r += word(ignored);
    return r;
  }

  // From i_ (at the opening text of a substitution, `open` bytes long) to its `close`,
  // parsed as a script of its own and kept in sc.substitutions; returns its text.
  std::string substitution(Script& sc, std::size_t open, char close) {
    const std::size_t b = i_;
    i_ += open;
    const std::size_t body = i_;
    int depth = 1;
    while (i_ < s_.size()) {
      const char ch = s_[i_];
      if (ch == '\\') {
        i_ += 2;
        continue;
      }
      if (close == ')' && ch == '(') ++depth;
      if (ch == close && --depth == 0) break;
      ++i_;
    }
    const std::size_t e = std::min(i_, s_.size());
    if (depth_ + 1 < kShellMaxDepth) {
      sc.substitutions.push_back(Parser(s_.substr(body, e - body), depth_ + 1, words_).parse());
    }
    i_ = std::min(e + 1, s_.size());
    return std::string(s_.substr(b, i_ - b));
  }

  std::string word(Script& sc) {
    std::string w;
    while (i_ < s_.size() && !ends_word(s_[i_])) {
      const char ch = s_[i_];
      if (ch == '\'') {
        const std::size_t e = s_.find('\'', i_ + 1);
        const std::size_t stop = e == std::string_view::npos ? s_.size() : e;
        w.append(s_.substr(i_ + 1, stop - i_ - 1));
        i_ = std::min(stop + 1, s_.size());
      } else if (ch == '"') {
        ++i_;
        while (i_ < s_.size() && s_[i_] != '"') {
          if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
            const char n = s_[i_ + 1];
            if (n == '"' || n == '\\' || n == '$' || n == '`') {
              w.push_back(n);
              i_ += 2;
              continue;
            }
          }
          if (at("$(")) {
            w += substitution(sc, 2, ')');
            continue;
          }
          if (s_[i_] == '`') {
            w += substitution(sc, 1, '`');
            continue;
          }
          w.push_back(s_[i_++]);
        }
        ++i_;
      } else if (ch == '\\') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] != '\n') w.push_back(s_[i_ + 1]);
        i_ += 2;
      } else if (at("$(")) {
        w += substitution(sc, 2, ')');
      } else if (ch == '`') {
        w += substitution(sc, 1, '`');
      } else {
        w.push_back(ch);
        ++i_;
      }
    }
    if (i_ > s_.size()) i_ = s_.size();
    return w;
  }

  std::string_view s_;
  int depth_;
  std::size_t& words_;
  std::size_t i_ = 0;
};

// A command's name as the shell finds it: the last path component, lowercase, without
// Windows' ".exe".
std::string base_name(std::string_view argv0) {
  const std::size_t slash = argv0.find_last_of("/\\");
  std::string b = lower(slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1));
  if (b.ends_with(".exe")) b.resize(b.size() - 4);
  return b;
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool is_downloader(std::string_view b) {
  return one_of(b, {"curl", "wget", "fetch", "aria2c", "certutil", "bitsadmin", "invoke-webrequest", "iwr",
                    "invoke-restmethod", "irm", "tftp", "ftp"});
}
// Commands that reach another host with what they are given in their arguments: a URL's
// path or form, a DNS name.
bool is_sender(std::string_view b) {
  return one_of(b, {"curl", "wget", "nslookup", "dig", "host", "ping", "nc", "ncat", "netcat", "telnet",
                    "invoke-webrequest", "iwr", "invoke-restmethod", "irm"});
}

// What a command prints that is the host's or the user's, not the package's.
std::string collector_of(const Command& c, std::size_t k) {
  const std::string b = base_name(c.argv[k]);
  // Not uname (an installer names its platform: compose-$(uname -s)) nor pwd (a directory).
  if (one_of(b, {"hostname", "whoami", "id", "env", "printenv", "ifconfig", "ipconfig", "groups"})) return b;
  if (one_of(b, {"cat", "base64", "head", "tail", "xxd", "find", "ls"})) {
    for (std::size_t a = k + 1; a < c.argv.size(); ++a) {
      const std::string l = lower(c.argv[a]);
      for (std::string_view secret : {".ssh", ".aws", ".npmrc", ".pypirc", ".netrc", ".git-credentials", "/etc/passwd",
                                      "/etc/shadow", ".docker/config", ".kube/config", ".bash_history"}) {
        if (l.find(secret) != std::string::npos) return b + " " + c.argv[a];
      }
    }
  }
  return "";
}

bool is_interpreter(std::string_view b) {
  return one_of(b, {"sh",         "bash",    "dash",   "zsh",  "ksh",  "ash", "busybox", "python",
                    "python2",    "python3", "perl",   "ruby", "node", "php", "iex",     "invoke-expression",
                    "powershell", "pwsh",    "source", "eval", "."});
}

// A word of the form NAME=value before a command: an assignment in its environment
// (`BUILD_ID=x nohup node update.js`), not the command.
bool assignment_word(std::string_view w) {
  const auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0 || !name_start(w[0])) return false;
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), [](char ch) { return name_char(ch); });
}

// The command the shell runs when argv starts with a wrapper that runs its arguments.
std::size_t skip_wrappers(const std::vector<std::string>& argv) {
  std::size_t k = 0;
  while (k < argv.size()) {
    const std::string b = base_name(argv[k]);
    if (assignment_word(argv[k])) {
      ++k;
    } else if (one_of(b, {"nohup", "setsid", "sudo", "exec", "nice", "command", "start", "doas", "stdbuf"})) {
      ++k;
      while (k < argv.size() && argv[k].starts_with("-")) ++k;
    } else if (b == "timeout") {
      k += 2;
    } else if (b == "env") {
      ++k;
      while (k < argv.size() && (argv[k].find('=') != std::string::npos || argv[k].starts_with("-"))) ++k;
    } else {
      break;
    }
  }
  return k;
}

std::string url_basename(std::string_view url) {
  std::string_view u = url.substr(0, url.find_first_of("?#"));
  const std::size_t slash = u.find_last_of('/');
  return std::string(slash == std::string_view::npos ? u : u.substr(slash + 1));
}

// The file a download writes, when the command says (curl -o F / -O, wget -O F or the
// URL's name, certutil's last argument, bitsadmin's last).
std::string download_output(const std::vector<std::string>& argv, const std::vector<std::string>& redirects,
                            std::size_t at) {
  const std::string b = base_name(argv[at]);
  std::string url;
  std::string out;
  bool remote_name = false;
  for (std::size_t k = at + 1; k < argv.size(); ++k) {
    const std::string& a = argv[k];
    if (a.find("://") != std::string::npos && url.empty()) url = a;
    if ((a == "-o" || a == "--output" || a == "-O" || a == "--output-document" || a == "-OutFile" || a == "-outfile") &&
        k + 1 < argv.size()) {
      if (b == "curl" && a == "-O") {
        remote_name = true;
        continue;
      }
      out = argv[++k];
    } else if (a.starts_with("--output-document=")) {
      out = a.substr(18);
    } else if (b == "curl" && (a == "-O" || a == "--remote-name")) {
      remote_name = true;
    }
  }
  if (out.empty() && (b == "certutil" || b == "bitsadmin") && argv.size() > at + 1) out = argv.back();
  if (out.empty()) {
    for (const std::string& r : redirects) {
      // ">f" or ">>f"; a bare ">" at the end of a line names nothing.
      const std::size_t target = r.find_first_not_of('>');
      if (r.starts_with(">") && !r.starts_with(">&") && target != std::string::npos) out = r.substr(target);
    }
  }
  if (out.empty() && (b == "wget" || remote_name) && !url.empty()) out = url_basename(url);
  return out;
}

bool chmod_executable(std::string_view mode) {
  // Symbolic: an x among the permissions some clause adds (+x, a+rx, u=rwx).
  for (std::size_t k = 0; k < mode.size(); ++k) {
    if (mode[k] != '+' && mode[k] != '=') continue;
    for (std::size_t j = k + 1; j < mode.size() && mode[j] != ','; ++j) {
      if (mode[j] == 'x') return true;
    }
  }
  if (mode.empty() || mode.size() > 4) return false;
  for (char ch : mode) {
    if (ch < '0' || ch > '7') return false;
  }
  // An octal mode with an execute bit for anyone.
  for (char ch : mode.substr(mode.size() >= 3 ? mode.size() - 3 : 0)) {
    if ((ch - '0') & 1) return true;
  }
  return false;
}

bool same_file(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  auto tail = [](std::string_view p) {
    const std::size_t s = p.find_last_of("/\\");
    return s == std::string_view::npos ? p : p.substr(s + 1);
  };
  return tail(a) == tail(b) && !tail(a).empty();
}

std::string shorten(std::string s) {
  constexpr std::size_t kMax = 160;
  if (s.size() > kMax) {
    s.resize(kMax);
    s += "…";
  }
  return s;
}

std::string joined(const Command& c) {
  std::string out;
  for (const std::string& a : c.argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  for (const std::string& r : c.redirects) {
    if (!out.empty()) out += ' ';
    out += r;
  }
  return out;
}

bool wallet_like(std::string_view w) {
  // A Monero address (95 characters from 4 or 8) or an Ethereum one (0x and 40 hex digits).
  if (w.size() == 95 && (w[0] == '4' || w[0] == '8')) {
    return std::all_of(w.begin(), w.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); });
  }
  if (w.size() == 42 && w.starts_with("0x")) {
    return std::all_of(w.begin() + 2, w.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); });
  }
  return false;
}

// Whether the command before argv[k] (its wrappers) holds nohup or setsid, and a
// redirection sends its output to /dev/null.
bool detaches(const Command& c, std::size_t k) {
  bool let_go = false;
  for (std::size_t a = 0; a < k && a < c.argv.size(); ++a) {
    if (one_of(base_name(c.argv[a]), {"nohup", "setsid"})) let_go = true;
  }
  if (!let_go) return false;
  return std::any_of(c.redirects.begin(), c.redirects.end(), [](const std::string& r) {
    return r.find("/dev/null") != std::string::npos && !r.starts_with("2");
  });
}

// curl --unix-socket talks to a local daemon (moto asks Docker's socket about its own
// container by $HOSTNAME): nothing it sends leaves the host.
bool to_local_socket(const Command& c) {
  return std::any_of(c.argv.begin(), c.argv.end(), [](const std::string& w) {
    return w.starts_with("--unix-socket") || w.starts_with("--abstract-unix-socket");
  });
}

void judge_into(const Script& sc, std::vector<ShellFinding>& out, int depth) {
  auto add = [&](ShellSignal what, std::string detail) {
    ShellFinding f{what, shorten(std::move(detail))};
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(std::move(f));
  };
  std::vector<std::string> fetched;  // files a download wrote
  std::string fetch_text;
  bool substitution_fetches = false;
  for (const Script& sub : sc.substitutions) {
    for (const Pipeline& p : sub.pipelines) {
      for (const Command& c : p.commands) {
        const std::size_t k = skip_wrappers(c.argv);
        if (k < c.argv.size() && is_downloader(base_name(c.argv[k]))) substitution_fetches = true;
      }
    }
  }
  // What the script's substitutions collect ($(hostname), `whoami`, $(cat ~/.ssh/id_rsa)),
  // and the variables assigned from them (a=$(cat …)).
  std::string collected;
  for (const Script& sub : sc.substitutions) {
    for (const Pipeline& p : sub.pipelines) {
      for (const Command& c : p.commands) {
        const std::size_t k = skip_wrappers(c.argv);
        if (k < c.argv.size() && collected.empty()) collected = collector_of(c, k);
      }
    }
  }
  bool fifo = false;
  for (const Pipeline& p : sc.pipelines) {
    for (std::size_t ci = 0; ci < p.commands.size(); ++ci) {
      const Command& c = p.commands[ci];
      const std::size_t k = skip_wrappers(c.argv);
      if (k >= c.argv.size()) continue;
      const std::string b = base_name(c.argv[k]);
      std::string all = lower(joined(c));

      // A program started under nohup or setsid with its output thrown away: let go, to
      // outlive whatever started it (commander-js's postinstall: `nohup node update.js
      // >/dev/null 2>&1 &`). The adapter weighs it by where it runs.
      if (detaches(c, k)) add(ShellSignal::kStartedDetached, joined(c));

      // Reverse shells.
      for (const std::string& r : c.redirects) {
        if (r.find("/dev/tcp/") != std::string::npos || r.find("/dev/udp/") != std::string::npos)
          add(ShellSignal::kReverseShell, joined(c));
      }
      if (one_of(b, {"nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"})) {
        for (std::size_t a = k + 1; a < c.argv.size(); ++a) {
          if (c.argv[a] == "-e" || c.argv[a] == "-c" || c.argv[a].starts_with("--exec") || c.argv[a] == "--sh-exec")
            add(ShellSignal::kReverseShell, joined(c));
        }
        if (fifo) add(ShellSignal::kReverseShell, "mkfifo, then " + joined(c));
      }
      if (b == "mkfifo" || b == "mknod") fifo = true;
      if (b == "socat" && all.find("exec:") != std::string::npos && all.find("tcp") != std::string::npos)
        add(ShellSignal::kReverseShell, joined(c));
      if (b == "telnet" && ci + 1 < p.commands.size()) {
        const Command& next = p.commands[ci + 1];
        const std::size_t nk = skip_wrappers(next.argv);
        if (nk < next.argv.size() && is_interpreter(base_name(next.argv[nk])))
          add(ShellSignal::kReverseShell, joined(c) + " | " + joined(next));
      }

      // Miners.
      bool pool = false;
      bool user_wallet = false;
      bool miner_flag = false;
      for (std::size_t a = k; a < c.argv.size(); ++a) {
        const std::string la = lower(c.argv[a]);
        if (la.find("stratum+tcp://") != std::string::npos || la.find("stratum+ssl://") != std::string::npos ||
            la.find("stratum://") != std::string::npos)
          pool = true;
        if (la.starts_with("--donate-level") || la == "--cpu-max-threads-hint" || la.starts_with("--randomx"))
          miner_flag = true;
        if ((la == "-u" || la == "--user") && a + 1 < c.argv.size() && wallet_like(c.argv[a + 1])) user_wallet = true;
      }
      const bool miner_name = b.find("xmrig") != std::string::npos || b.find("xmr-stak") != std::string::npos ||
                              b.find("cpuminer") != std::string::npos || b == "minerd" ||
                              b.find("ethminer") != std::string::npos || b.find("lolminer") != std::string::npos ||
                              b.find("nbminer") != std::string::npos || b.find("t-rex") != std::string::npos;
      if (pool || miner_flag || user_wallet || (miner_name && all.find(" -o ") != std::string::npos))
        add(ShellSignal::kMiner, joined(c));

      // What was collected, handed to a sender: in a substitution among its arguments, or
      // in a variable ($a, $USER, $HOSTNAME, $HOME).
      if (is_sender(b) && !to_local_socket(c)) {
        bool carries = false;
        for (std::size_t a = k + 1; a < c.argv.size() && !carries; ++a) {
          const std::string& w = c.argv[a];
          const bool substituted = w.find("$(") != std::string::npos || w.find('`') != std::string::npos;
          carries = (substituted && !collected.empty()) || (w.find('$') != std::string::npos && !collected.empty()) ||
                    w.find("$USER") != std::string::npos || w.find("$HOSTNAME") != std::string::npos ||
                    w.find("${USER}") != std::string::npos || w.find("${HOSTNAME}") != std::string::npos;
        }
        if (carries) add(ShellSignal::kCollectedAndSent, (collected.empty() ? "" : collected + "; ") + joined(c));
      }
      // A collector piped into a sender: hostname | curl -d @- …
      if (ci + 1 < p.commands.size() && !collector_of(c, k).empty()) {
        const Command& next = p.commands[ci + 1];
        const std::size_t nk = skip_wrappers(next.argv);
        if (nk < next.argv.size() && is_sender(base_name(next.argv[nk])))
          add(ShellSignal::kCollectedAndSent, joined(c) + " | " + joined(next));
      }

      // Downloads, and what is done with them.
      if (is_downloader(b)) {
        if (!fetch_text.empty()) fetch_text += "; ";
        fetch_text += joined(c);
        if (std::string o = download_output(c.argv, c.redirects, k); !o.empty()) fetched.push_back(o);
        for (std::size_t n = ci + 1; n < p.commands.size(); ++n) {
          const Command& next = p.commands[n];
          const std::size_t nk = skip_wrappers(next.argv);
          if (nk < next.argv.size() && is_interpreter(base_name(next.argv[nk]))) {
            add(ShellSignal::kDownloadPipedToShell, joined(c) + " | " + joined(next));
          }
        }
      }
      if ((b == "powershell" || b == "pwsh" || b == "iex" || b == "invoke-expression") &&
          (all.find("downloadstring") != std::string::npos || all.find("downloaddata") != std::string::npos) &&
          (all.find("iex") != std::string::npos || all.find("invoke-expression") != std::string::npos))
        add(ShellSignal::kDownloadPipedToShell, joined(c));
      if ((b == "powershell" || b == "pwsh") &&
          (all.find("downloadfile") != std::string::npos || all.find("invoke-webrequest") != std::string::npos ||
           all.find("iwr ") != std::string::npos) &&
          (all.find("start-process") != std::string::npos || all.find(".exe") != std::string::npos))
        add(ShellSignal::kDownloadExecuted, joined(c));
      if (is_interpreter(b) && substitution_fetches &&
          (all.find("$(") != std::string::npos || all.find('`') != std::string::npos ||
           all.find("<(") != std::string::npos))
        add(ShellSignal::kDownloadPipedToShell, joined(c));
      if (b == "chmod") {
        bool exec_mode = false;
        for (std::size_t a = k + 1; a < c.argv.size(); ++a) {
          if (chmod_executable(c.argv[a])) {
            exec_mode = true;
            continue;
          }
          if (!exec_mode) continue;
          for (const std::string& f : fetched) {
            if (same_file(c.argv[a], f)) add(ShellSignal::kDownloadExecuted, fetch_text + "; " + joined(c));
          }
        }
      }
      // Running a fetched file: by its path, or as an interpreter's script.
      if (!is_downloader(b) && b != "chmod") {
        for (const std::string& f : fetched) {
          const bool direct = same_file(c.argv[k], f) && c.argv[k] != "-";
          const bool as_script = is_interpreter(b) && k + 1 < c.argv.size() && same_file(c.argv[k + 1], f);
          if (direct || as_script) add(ShellSignal::kDownloadExecuted, fetch_text + "; " + joined(c));
        }
      }
    }
  }
  if (depth + 1 < kShellMaxDepth) {
    for (const Script& sub : sc.substitutions) judge_into(sub, out, depth + 1);
  }
}

}  // namespace

Script parse_shell(std::string_view line) {
  std::size_t words = 0;
  return Parser(line, 0, words).parse();
}

std::string_view shell_signal_name(ShellSignal s) {
  switch (s) {
    case ShellSignal::kDownloadExecuted:
      return "download-executed";
    case ShellSignal::kDownloadPipedToShell:
      return "download-piped-to-shell";
    case ShellSignal::kReverseShell:
      return "reverse-shell";
    case ShellSignal::kMiner:
      return "miner";
    case ShellSignal::kCollectedAndSent:
      return "collected-and-sent";
    case ShellSignal::kStartedDetached:
      return "program-started-detached";
  }
  return "?";
}

std::vector<ShellFinding> judge_shell(const Script& script) {
  std::vector<ShellFinding> out;
  judge_into(script, out, 0);
  return out;
}

bool mentions_shell(std::string_view text) {
  const std::string l = lower(text.substr(0, kShellMaxBytes));
  static constexpr std::array<std::string_view, 30> kWords{
      "curl",       "wget",   "chmod",    "/dev/tcp/", "/dev/udp/", "nc ",
      "ncat",       "netcat", "socat",    "stratum",   "xmrig",     "--donate-level",
      "powershell", "pwsh",   "certutil", "bitsadmin", "iwr ",      "invoke-webrequest",
      "mkfifo",     "telnet", "minerd",   "-u 4",      "nslookup",  "dig ",
      "hostname",   "whoami", "$user",    "ping ",     "nohup",     "setsid"};
  for (std::string_view w : kWords) {
    if (l.find(w) != std::string::npos) return true;
  }
  return false;
}

}  // namespace batlehub::signals
