// batlehub-behavior pypi ARCHIVE | npm DIR [--install-timeout-ms N] [--import-timeout-ms N],
// or batlehub-behavior self-test (the observer's own check, detonate.h):
// detonates the package in the working directory (detonate.h) and prints what it did as one
// JSON document on stdout (trace.h). Run by the agent like any scanner, inside its walls,
// from the behavior room. Exit 0 with a trace; 1 when a step of its own failed; 2 on usage.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "behavior/detonate.h"

namespace {

int usage() {
  std::fputs("usage: batlehub-behavior (pypi ARCHIVE | npm DIR) [--install-timeout-ms N] [--import-timeout-ms N]\n",
             stderr);
  return 2;
}

bool parse_ms(const char* s, std::chrono::milliseconds& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v == 0 || v > 3'600'000) return false;
  out = std::chrono::milliseconds(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using batlehub::behavior::Ecosystem;
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::fputs("batlehub-behavior 1\n", stdout);
    return 0;
  }
  batlehub::behavior::DetonationOptions o;
  if (argc == 2 && std::strcmp(argv[1], "self-test") == 0) {
    char here[PATH_MAX];
    if (::getcwd(here, sizeof here) == nullptr) return 1;
    o.work_dir = here;
    auto t = batlehub::behavior::self_test(o);
    if (!t) {
      std::fprintf(stderr, "batlehub-behavior: %s\n", t.error().c_str());
      return 1;
    }
    const std::string out = batlehub::behavior::to_json(*t);
    return std::fwrite(out.data(), 1, out.size(), stdout) == out.size() && std::fflush(stdout) == 0 ? 0 : 1;
  }
  if (argc < 3) return usage();
  if (std::strcmp(argv[1], "pypi") == 0) {
    o.ecosystem = Ecosystem::kPyPI;
  } else if (std::strcmp(argv[1], "npm") == 0) {
    o.ecosystem = Ecosystem::kNpm;
  } else {
    return usage();
  }
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) {
    std::perror("batlehub-behavior: getcwd");
    return 1;
  }
  o.work_dir = cwd;
  o.package = argv[2][0] == '/' ? std::string(argv[2]) : o.work_dir + "/" + argv[2];
  for (int i = 3; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    if (std::strcmp(argv[i], "--install-timeout-ms") == 0) {
      if (!parse_ms(argv[i + 1], o.install_timeout)) return usage();
    } else if (std::strcmp(argv[i], "--import-timeout-ms") == 0) {
      if (!parse_ms(argv[i + 1], o.import_timeout)) return usage();
    } else {
      return usage();
    }
  }
  auto trace = batlehub::behavior::detonate(o);
  if (!trace) {
    std::fprintf(stderr, "batlehub-behavior: %s\n", trace.error().c_str());
    return 1;
  }
  const std::string out = batlehub::behavior::to_json(*trace);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    std::perror("batlehub-behavior: writing stdout");
    return 1;
  }
  return 0;
}
