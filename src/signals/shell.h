// A shell command line read as the shell would split it, and judged for what a dropper,
// a reverse shell or a miner writes: a download made executable and run, a download piped
// into an interpreter, a shell whose standard streams are a TCP socket, a miner pointed at
// a pool. The lines come from a package's strings handed to a process (subprocess,
// os.system, child_process), from the strings it decodes, and from npm's lifecycle scripts.
//
// POSIX sh's word splitting, quoting ('…', "…", backslash), its control operators (; & &&
// || | and newlines), redirections and command substitution ($(…), `…`, bash's <(…)), with
// PowerShell's few downloader idioms named by word. No expansion is performed: a variable
// stays a word. Bounded: at most kMaxBytes read, kMaxWords words, kMaxDepth nested
// substitutions; past them the rest is not read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::signals {

struct Command {
  std::vector<std::string> argv;
  std::vector<std::string> redirects;  // each as written: ">&/dev/tcp/h/1", "2>&1", ">out"
};

struct Pipeline {
  std::vector<Command> commands;  // a | b | c
};

struct Script {
  std::vector<Pipeline> pipelines;    // in order, whatever operator joined them
  std::vector<Script> substitutions;  // $(…), `…`, <(…) found inside its words
};

constexpr std::size_t kShellMaxBytes = 64 * 1024;
constexpr std::size_t kShellMaxWords = 4096;
constexpr int kShellMaxDepth = 3;

Script parse_shell(std::string_view line);

enum class ShellSignal {
  kDownloadExecuted,      // a file fetched, then made executable or run
  kDownloadPipedToShell,  // a fetch whose output an interpreter runs (curl … | sh, IEX of a download)
  kReverseShell,          // a shell or a process bound to a TCP socket (/dev/tcp, nc -e, socat exec)
  kMiner,                 // a miner: a stratum pool, a miner's own flags, a wallet as its user
  kCollectedAndSent,  // what a collector prints (hostname, whoami, env, a key file) handed to a sender (curl, nslookup)
  kStartedDetached,   // a program started under nohup or setsid with its output sent to /dev/null
};
std::string_view shell_signal_name(ShellSignal s);

struct ShellFinding {
  ShellSignal what;
  std::string detail;  // the commands that show it, shortened
  bool operator==(const ShellFinding&) const = default;
};

std::vector<ShellFinding> judge_shell(const Script& script);

// Does this line name a command at all (a downloader, a shell, chmod, a miner's pool)? The
// cheap test before parsing a string as shell.
bool mentions_shell(std::string_view text);

}  // namespace batlehub::signals
