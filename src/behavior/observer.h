// The observer: runs one phase of a detonation (an install, an import) under the watch
// filter (notify_filter.h) and records what the phase's processes do (trace.h), from outside
// their reach — a parent they cannot ptrace (the agent's deny filter), whose memory they
// cannot open (it is undumpable), whose stdout they do not share (theirs is a pipe).
//
// It is also the sandbox's network, all of it inside the sandbox: every TCP socket a phase
// opens is one end of a Unix socket pair whose other end the observer reads (the sink), so
// a connect goes nowhere whatever its address, the agent's Landlock rule against TCP holds
// for the observer too, and what the package sends is read with its payload. The resolver
// it answers for (DNS over TCP: the room's resolv.conf says `options use-vc`) gives every
// name an address of its own in 127.77.0.0/16, so that a connect says which name it was for.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/expected.h"
#include "base/spawn.h"
#include "behavior/trace.h"

namespace batlehub::behavior {

struct ObserverOptions {
  std::string home;    // the decoy home (decoys.h), planted
  std::string canary;  // what the decoys and the bait environment carry
  // Where a phase's processes may write without a `write` event: its install tree, its
  // temporary directory. /dev's harmless files and /proc are added.
  std::vector<std::string> write_roots;
};

struct PhaseSpec {
  std::string phase;    // "install", "import"
  std::string program;  // absolute
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  std::chrono::milliseconds timeout{0};
  std::string view;  // "windows": recorded on the phase and its events (detonate.h)
};

// Bounds on what one run records: a package that floods is cut there, and says so (a
// `limit` event).
inline constexpr std::size_t kMaxEvents = 4000;
inline constexpr std::size_t kMaxStreams = 256;
inline constexpr std::size_t kMaxNames = 4096;
inline constexpr std::size_t kStreamKeepBytes = 16 * 1024;
// What the recorded strings of one run may add up to: well under the adapter's 16 MiB and the
// agent's stdout cap, whatever argv a package gives the programs it starts.
inline constexpr std::size_t kMaxTraceBytes = 8 * 1024 * 1024;
inline constexpr std::size_t kMaxCreated = 65536;  // files remembered as created, for an exec's `written`

// Whether this build installs the watch filter on a phase (watch_as_built.cc: always). The
// seam is the link, never an input: only a test-only binary is built blind.
bool installs_watch_filter();

// What names this host and its user to a package that looks (os.hostname(),
// os.userInfo(), HOME): found in what a package sends, it is host identity sent.
std::vector<std::string> identity_tokens(const std::string& home);
bool carries_identity(std::string_view bytes, const std::vector<std::string>& tokens);
// For a DNS name: a token among its labels, and a domain of two labels or more beside them —
// "builder.vm.exfil.test" sends who and where to exfil.test, while "vm" (or "vm.lan") is the
// host looking itself up, which gethostbyname(gethostname()) does in any library.
bool name_carries_identity(std::string_view name, const std::vector<std::string>& tokens);

class Observer {
 public:
  // Makes this process the subreaper of everything a phase leaves behind and undumpable;
  // compiles the watch filter.
  static Expected<std::unique_ptr<Observer>, std::string> create(ObserverOptions options);
  ~Observer();

  // Runs `spec` to its end or its timeout; every process it started is gone on return.
  PhaseRecord run(const PhaseSpec& spec);

  Trace& trace() { return trace_; }

  // The certificate of this run's TLS authority (tls_sink.h), PEM: what the phases' clients are
  // given to trust, so that the sink reads HTTPS in the clear.
  const std::string& tls_ca_pem() const;

  struct Impl;

 private:
  Observer() = default;
  std::unique_ptr<Impl> impl_;
  Trace trace_;
};

}  // namespace batlehub::behavior
