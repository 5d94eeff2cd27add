// What flows where in a Python file, followed as far as a reader follows it at a glance:
// through names assigned on one line and read on another, never through calls, attributes
// of objects or control flow.
//
//  - code fetched from the network handed to exec/eval/compile — `exec(requests.get(u).text)`,
//    or `code = requests.get(u).text` … `threading.Thread(target=exec, args=(code,))`: a
//    package that runs what a server sends it runs whatever that server's owner wants,
//    whoever wrote the package;
//  - a socket joined to a shell — a connection made, and a shell program (sh, bash, cmd.exe,
//    powershell) started with its input piped or the socket's descriptors dup2'ed over its
//    own: a reverse shell written in Python rather than in a command line (shell.h reads
//    those);
//  - a program fetched from a fixed address, written to a file and started —
//    `r = requests.get(URL)`, `open(name, 'wb').write(r.content)`, `subprocess.run([name])`,
//    or `urlretrieve(URL, 'x.exe')` then `os.startfile('x.exe')`: the dropper's three steps in
//    Python rather than in a command line (shell.h reads those);
//  - a wallet's private key or seed phrase sent to a fixed address — `requests.post('https://…',
//    json={'private_key': private_key})`, or the key put in a dict, a list or an encoding
//    first and the dict sent: a function that takes a key and posts it to an address its
//    author wrote down steals every wallet it is called with, whenever it is called. A key
//    that only goes into a call that derives from it (an address, a signature) is not sent.
//
// A dataflow engine over an AST (CodeQL, Semgrep's taint mode) would follow more, but needs
// a parser and an interpreter of the language's semantics inside the room; what droppers
// write is this short, and a lexer's view (lex.h) reads it linearly, valid Python or not.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "signals/lex.h"

namespace batlehub::signals {

// How far back on a line a reader of this scanner looks from a string or a call for what
// precedes it (a process call before a shell's name, the name a string is assigned to): a
// line of 200,000 strings must cost one reading, not one per string.
constexpr std::size_t kMaxLookBackBytes = 4096;

struct Flow {
  enum class Kind { kFetchedCodeExecuted, kSocketShell, kKeySent, kFetchedFileRun };
  Kind kind;
  std::size_t offset = 0;  // where it lands: the exec call, the shell's start
  std::string detail;      // the evidence: the line of the sink
  std::string name;        // kKeySent: the key's name as the code reads it (private_key, mnemonic)
};

// The flows of one Python file (lexed: code with literals blanked, and its literals).
std::vector<Flow> python_flows(std::string_view source, const Lexed& lexed);

}  // namespace batlehub::signals
