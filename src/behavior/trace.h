// What the observer saw a package do, as data: one event per thing done, each with the phase
// and the process it happened in. Serialized as the scanner's stdout (one JSON document),
// which the worker's adapter reads back as hostile bytes (adapters/scanners/behavior.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace batlehub::behavior {

enum class EventKind {
  kExec,         // a program started: path, argv
  kConnect,      // a connection tried: family, address, port, host (the name the sink gave it)
  kDnsQuery,     // a name asked of the resolver: host, qtype
  kStream,       // what a connection to the sink carried: protocol, request line, host, body head
  kDatagram,     // a datagram sent with an address that is not a DNS query: address, port, head
  kDecoyOpen,    // a decoy (decoys.h) or its store's directory opened: path, decoy
  kWrite,        // a file opened for writing outside the phase's own trees: path
  kLeftRunning,  // processes still running when the phase's own process ended: count
  kLimit,        // a bound reached (events, streams, names): what
};

struct Event {
  EventKind kind = EventKind::kExec;
  std::string phase;
  int pid = 0;
  std::string path;               // exec (as asked), decoy-open, write
  std::string resolved;           // exec, decoy-open, write: the path with symlinks resolved
  std::vector<std::string> argv;  // exec
  std::string family;             // connect, datagram: "inet", "inet6", "unix"
  std::string address;            // connect, datagram
  std::uint16_t port = 0;         // connect, datagram
  std::string host;               // connect (the name the address was given for), dns, stream
  std::string qtype;              // dns
  std::string protocol;           // stream: "http", "tls", "dns", "unknown"
  std::string request_line;       // stream (http)
  std::string head;               // stream: the body's head (http) or the first bytes; datagram
  std::uint64_t bytes = 0;        // stream: bytes received
  std::optional<int> stream;      // connect, stream: the sink stream's number
  std::string decoy;              // decoy-open: its kind
  bool write = false;             // decoy-open: opened for writing
  bool canary = false;            // stream, dns, datagram: carries the run's canary
  bool identity = false;          // stream, dns, datagram: carries the host's name, the user's or HOME
  bool written = false;           // exec: the program is a file a process of the run created
  std::uint64_t count = 0;        // left-running, limit
  std::string what;               // limit: what was bounded; exec: "phase" for the phase's own program
  std::string view;               // "windows": in a phase run with the Windows view (detonate.h)
  std::string stdin_kind;         // exec: "socket" or "terminal" when the program's input is one
};

struct PhaseRecord {
  std::string phase;
  std::vector<std::string> argv;
  bool started = false;
  std::optional<int> exit_code;
  std::optional<int> signal;
  bool timed_out = false;
  std::uint64_t ms = 0;
  std::string output_tail;  // the last bytes of its stdout and stderr, for a failed build's reason
  std::string error;        // why it did not start
  std::string view;         // "windows": the package's own code read Windows' answers (detonate.h)
};

struct Trace {
  std::string ecosystem;
  std::string home;  // the decoy home the phases ran with
  std::vector<PhaseRecord> phases;
  std::vector<Event> events;
};

std::string to_string(EventKind k);
std::string to_json(const Trace& t);

}  // namespace batlehub::behavior
