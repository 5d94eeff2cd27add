// batlehub-sandbox --in URL --out URL
// batlehub-sandbox identify DIR [KIND]   (run by the agent itself as a scanner: identify_tree.h)
//
// The only program of ours inside the walls. It reads no environment variable, no stdin,
// no configuration file; its diagnostics travel in result.json, and only when no result could
// be written does it say why, in one line on stderr; its exit code says only whether a
// result was written.
#include <sys/prctl.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "agent/agent.h"
#include "agent/identify_tree.h"

int main(int argc, char** argv) {
  using batlehub::agent::AgentExit;
  // The identify mode is the scanner of an identify run: it is already under the walls
  // (rlimits, seccomp) that the agent's spawner put on it, and reads only the tree it is given.
  if (argc >= 2 && std::strcmp(argv[1], "identify") == 0) return batlehub::agent::identify_main(argc, argv);
  // Exactly four words, in this order: two flags do not need an option parser.
  if (argc != 5 || std::strcmp(argv[1], "--in") != 0 || std::strcmp(argv[3], "--out") != 0) {
    static constexpr char kUsage[] = "usage: batlehub-sandbox --in URL --out URL\n";
    ssize_t ignored = write(2, kUsage, sizeof kUsage - 1);
    (void)ignored;
    return static_cast<int>(AgentExit::kUsage);
  }
  // Orphans of the scanner's tree come back to us rather than to init, so none outlives
  // the run: the agent supervises its scanner itself (run_as_binary: no keeper process).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  return static_cast<int>(batlehub::agent::run_as_binary(argv[2], argv[4]));
}
