// batlehub-signals DIR: the facts of the package tree at DIR, as JSON lines on stdout
// (tree.h). Run inside the walls by the agent like any scanner: it reads DIR, writes
// stdout, and touches nothing else. Exit 0 with the "done" line; 2 on a usage error.
#include <cstdio>
#include <cstring>
#include <string>

#include "signals/tree.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::fputs("batlehub-signals 1\n", stdout);
    return 0;
  }
  if (argc != 2) {
    std::fputs("usage: batlehub-signals DIR\n", stderr);
    return 2;
  }
  const std::string out = batlehub::signals::to_json_lines(batlehub::signals::scan_tree(argv[1]));
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    std::perror("batlehub-signals: writing stdout");
    return 1;
  }
  return 0;
}
