// bench_extract: how fast, and in how much memory, the agent extracts a package-sized
// .tar.gz, beside the anchor `bsdtar -xzf` of the same archive on the same tmpfs.
//
//   bench_extract [--agent PATH] [--bsdtar PATH] [--dir DIR] [--reps N] [--warmup N]
//                 [--files N] [--mib N] [--regenerate]
//
// One run:
//   1. generates (once; cached by name and size) a deterministic npm-shaped .tar.gz of at
//      least --files files and --mib MiB of extracted bytes, in DIR (default
//      $BATLEHUB_BENCH_DIR, else /dev/shm);
//   2. times, alternating, --reps runs of the agent binary on a manifest with that archive
//      as one `archive` entry and argv ["true"], each in a fresh work dir, and --reps runs
//      of `bsdtar -xzf ARCHIVE -C FRESHDIR`: wall clock from fork to wait4, peak RSS from
//      wait4's rusage, and for the agent its own timings_ms from result.json. For
//      reference, not for the aim, also bsdtar with -m --no-same-owner
//      --no-same-permissions: as root, plain bsdtar also chowns, chmods and sets times on
//      every entry, which the agent never does;
//   3. checks every extraction against the archive's counts (a mismatch is a failure,
//      exit 1) and prints the table, with the aims marked PASS or MISS (a miss is not a
//      failure: a benchmark never fails a build on timing).
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.h"
#include "wire/caps.h"

namespace {

namespace fs = std::filesystem;
// Named one by one: this bench measures its processes its own way (peak RSS, user and sys
// apart), so its ProcResult and run_process are not bench_support.h's.
using batlehub::bench::Args;
using batlehub::bench::Clock;
using batlehub::bench::default_bench_dir;
using batlehub::bench::describe_status;
using batlehub::bench::die;
using batlehub::bench::find_on_path;
using batlehub::bench::kAgentBin;
using batlehub::bench::load_now;
using batlehub::bench::machine_line;
using batlehub::bench::median;
using batlehub::bench::on_failure;
using batlehub::bench::on_tmpfs;
using batlehub::bench::read_file;
using batlehub::bench::remove_stale_runs;
using batlehub::bench::tv_ms;

constexpr int kFormatVersion = 1;  // bump when the generator changes: it names the cache
constexpr std::uint64_t kSeed = 0x6261746c65687562ULL;  // "batlehub"
constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::time_t kMtime = 1764633600;  // 2025-12-02T00:00:00Z, every entry

// ---------------------------------------------------------------------------------------
// Deterministic randomness: xoshiro256** seeded by splitmix64. No <random> distributions,
// whose output the standard leaves to the implementation.

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // [0, n)
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
  // [lo, hi]
  std::uint64_t range(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename C>
  const auto& pick(const C& c) {
    return c[below(c.size())];
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// ---------------------------------------------------------------------------------------
// Vocabulary for text that compresses the way source code does (about 4:1 under gzip).

constexpr std::array<std::string_view, 48> kSyllables = {
    "re",   "act", "lo",  "dash", "ex",   "press", "web", "pack", "ba",  "bel",  "core", "util",
    "is",   "ar",  "ray", "str",  "ing",  "fs",    "path", "glob", "mini", "match", "chalk", "de",
    "bug",  "ms",  "sem", "ver",  "yarg", "uu",    "id",  "cross", "spawn", "to",  "fast", "json",
    "safe", "buf", "fer", "stream", "async", "co", "mime", "type", "query", "parse", "node", "es"};
constexpr std::array<std::string_view, 16> kScopes = {"@types", "@babel", "@aws-sdk", "@jest",  "@smithy", "@esbuild",
                                                      "@eslint", "@vue",  "@angular", "@sentry", "@octokit", "@npmcli",
                                                      "@rollup", "@swc",  "@nodelib", "@tsconfig"};
constexpr std::array<std::string_view, 14> kSubdirs = {"utils",  "internal", "helpers", "parsers", "core",    "compat", "types",
                                                       "plugins", "adapters", "esm",    "cjs",     "streams", "node",   "browser"};
constexpr std::array<std::string_view, 64> kWords = {
    "the",     "a",      "of",      "to",       "is",     "and",      "in",       "that",    "for",    "this",
    "value",   "return", "returns", "object",   "array",  "string",   "function", "callback", "option", "options",
    "default", "when",   "if",      "not",      "be",     "will",     "with",     "as",      "used",   "by",
    "an",      "error",  "throws",  "undefined", "null",  "number",   "key",      "keys",    "property", "module",
    "should",  "can",    "may",     "we",       "it",     "from",     "each",     "element", "given",  "into",
    "new",     "create", "instance", "node",    "browser", "support", "legacy",   "compat",  "fast",   "path",
    "see",     "note",   "only",    "also"};
constexpr std::array<std::string_view, 20> kKeywords = {
    "const", "let", "var", "return", "if", "else", "for", "while", "new", "typeof",
    "this",  "null", "undefined", "true", "false", "function", "async", "await", "throw", "in"};
constexpr std::array<std::string_view, 12> kOps = {" = ", " === ", " !== ", " + ", " || ", " && ", " ? ", " : ", " < ", " >= ", " - ", " * "};

struct Vocab {
  std::vector<std::string> idents;  // camelCase identifiers shared by every file
};

Vocab make_vocab() {
  Rng r(kSeed ^ 0x766f636162ULL);
  Vocab v;
  std::set<std::string> seen;
  while (v.idents.size() < 600) {
    std::string id(r.pick(kSyllables));
    int more = static_cast<int>(r.range(1, 3));
    for (int i = 0; i < more; ++i) {
      std::string s(r.pick(kSyllables));
      s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
      id += s;
    }
    if (seen.insert(id).second) v.idents.push_back(id);
  }
  return v;
}

// The few identifiers one file uses, drawn from the shared pool.
std::vector<std::string_view> local_idents(Rng& r, const Vocab& v, std::size_t n) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(r.pick(v.idents));
  return out;
}

void words(Rng& r, std::string& out, int n) {
  for (int i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += r.pick(kWords);
  }
}

void gen_js(Rng& r, const Vocab& v, std::string& out, std::size_t size, bool minified, bool typings) {
  auto ids = local_idents(r, v, minified ? 60 : 28);
  const char* nl = minified ? ";" : "\n";
  if (!minified) out += typings ? "// Type definitions\n" : "'use strict';\n\n";
  int depth = 0;
  while (out.size() < size) {
    auto indent = [&] {
      if (!minified) out.append(static_cast<std::size_t>(2 * depth), ' ');
    };
    unsigned k = static_cast<unsigned>(r.below(100));
    if (k < 8 && !minified) {
      indent();
      out += "// ";
      words(r, out, static_cast<int>(r.range(3, 12)));
      out += '\n';
    } else if (k < 14 && !minified && depth == 0) {
      out += "/**\n * ";
      words(r, out, static_cast<int>(r.range(5, 14)));
      out += "\n * @param {";
      out += r.pick(kWords);
      out += "} ";
      out += r.pick(ids);
      out += "\n */\n";
    } else if (k < 24 && depth < 4) {
      indent();
      if (typings) {
        out += "export declare function ";
      } else {
        out += r.chance(30) ? "async function " : "function ";
      }
      out += r.pick(ids);
      out += '(';
      int args = static_cast<int>(r.below(4));
      for (int i = 0; i < args; ++i) {
        if (i) out += ", ";
        out += r.pick(ids);
        if (typings) out += ": string";
      }
      out += typings ? "): void;" : ") {";
      out += minified ? "" : "\n";
      if (!typings) ++depth;
    } else if (k < 32 && depth > 0) {
      --depth;
      indent();
      out += '}';
      out += minified ? "" : "\n";
    } else if (k < 40) {
      indent();
      out += "if (";
      out += r.pick(ids);
      out += r.pick(kOps);
      out += r.chance(50) ? std::string(r.pick(kKeywords)) : std::to_string(r.below(1000));
      out += ") return ";
      out += r.pick(ids);
      out += nl;
    } else if (k < 46) {
      indent();
      out += "const ";
      out += r.pick(ids);
      out += " = require('";
      out += r.pick(ids);
      out += "')";
      out += nl;
    } else {
      indent();
      out += r.pick(kKeywords);
      out += ' ';
      out += r.pick(ids);
      out += '.';
      out += r.pick(ids);
      out += r.pick(kOps);
      out += r.pick(ids);
      out += '(';
      if (r.chance(40)) {
        out += '\'';
        words(r, out, static_cast<int>(r.range(1, 4)));
        out += '\'';
      } else {
        out += r.pick(ids);
      }
      out += ')';
      out += nl;
    }
  }
}

void gen_markdown(Rng& r, const Vocab& v, std::string& out, std::size_t size, std::string_view title) {
  out += "# ";
  out += title;
  out += "\n\n";
  while (out.size() < size) {
    unsigned k = static_cast<unsigned>(r.below(10));
    if (k == 0) {
      out += "## ";
      words(r, out, static_cast<int>(r.range(1, 4)));
      out += "\n\n";
    } else if (k == 1) {
      out += "```js\nconst ";
      out += r.pick(v.idents);
      out += " = require('";
      out += title;
      out += "');\n";
      out += r.pick(v.idents);
      out += "(";
      out += r.pick(v.idents);
      out += ");\n```\n\n";
    } else {
      words(r, out, static_cast<int>(r.range(10, 60)));
      out += ".\n\n";
    }
  }
}

void gen_package_json(Rng& r, std::string& out, std::string_view name, const std::vector<std::string>& others) {
  out += "{\n  \"name\": \"";
  out += name;
  out += "\",\n  \"version\": \"" + std::to_string(r.below(20)) + "." + std::to_string(r.below(30)) + "." +
         std::to_string(r.below(15)) + "\",\n  \"description\": \"";
  words(r, out, static_cast<int>(r.range(4, 12)));
  out += "\",\n  \"main\": \"lib/index.js\",\n  \"license\": \"MIT\",\n  \"scripts\": {\n    \"test\": \"node test\"\n  },\n";
  out += "  \"dependencies\": {";
  int deps = others.empty() ? 0 : static_cast<int>(r.below(8));
  for (int i = 0; i < deps; ++i) {
    out += i ? ",\n    \"" : "\n    \"";
    out += r.pick(others);
    out += "\": \"^" + std::to_string(r.below(10)) + "." + std::to_string(r.below(10)) + ".0\"";
  }
  out += deps ? "\n  }\n}\n" : "}\n}\n";
}

constexpr std::string_view kLicenseText =
    "MIT License\n\nCopyright (c) the contributors\n\nPermission is hereby granted, free of charge, to any person "
    "obtaining a copy\nof this software and associated documentation files (the \"Software\"), to deal\nin the "
    "Software without restriction, including without limitation the rights\nto use, copy, modify, merge, publish, "
    "distribute, sublicense, and/or sell\ncopies of the Software, and to permit persons to whom the Software is\n"
    "furnished to do so, subject to the following conditions:\n\nThe above copyright notice and this permission "
    "notice shall be included in all\ncopies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED "
    "\"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\nIMPLIED.\n";

// ---------------------------------------------------------------------------------------
// The archive's plan: every entry, its size and how its bytes are made. Computing it is
// cheap and needs no I/O, so the counts are known whether or not the archive is cached.

enum class Kind { kDir, kJs, kMinJs, kTypings, kMarkdown, kPackageJson, kLicense, kBinary };

struct Item {
  std::string path;
  Kind kind = Kind::kDir;
  std::uint64_t size = 0;  // exact, for files
  std::uint64_t seed = 0;
  std::string title;  // package name, for README and package.json
};

struct Plan {
  std::vector<Item> items;  // in archive order: each directory before its contents
  std::vector<std::string> packages;
  std::uint64_t files = 0, dirs = 0, bytes = 0, binary_bytes = 0;
};

// Log-uniform-ish: most source files are small, a few are large.
std::uint64_t source_size(Rng& r) {
  std::uint64_t b = 1ULL << r.range(8, 14);
  return b + r.below(b);
}

Plan make_plan(std::uint64_t min_files, std::uint64_t min_bytes) {
  Rng r(kSeed);
  Plan plan;
  std::set<std::string> dirs_seen;
  std::set<std::string> names;
  std::vector<std::string> top_level;

  auto add_dir_chain = [&](const std::string& path) {
    // Every missing ancestor, outermost first.
    std::vector<std::string> chain;
    for (std::string p = path; !p.empty() && !dirs_seen.contains(p);) {
      chain.push_back(p);
      auto slash = p.rfind('/');
      p = slash == std::string::npos ? std::string() : p.substr(0, slash);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      dirs_seen.insert(*it);
      plan.items.push_back(Item{*it, Kind::kDir, 0, 0, {}});
      ++plan.dirs;
    }
  };
  auto add_file = [&](const std::string& path, Kind kind, std::uint64_t size, const std::string& title = {}) {
    add_dir_chain(path.substr(0, path.rfind('/')));
    plan.items.push_back(Item{path, kind, size, r.next(), title});
    ++plan.files;
    plan.bytes += size;
    if (kind == Kind::kBinary) plan.binary_bytes += size;
  };

  add_dir_chain("package");
  add_file("package/package.json", Kind::kPackageJson, 0, "bench-app");
  while (plan.files < min_files || plan.bytes < min_bytes) {
    // A unique package name, sometimes scoped.
    std::string name;
    do {
      name = std::string(r.pick(kSyllables));
      int more = static_cast<int>(r.below(3));
      for (int i = 0; i < more; ++i) name += (r.chance(50) ? "-" : "") + std::string(r.pick(kSyllables));
      if (r.chance(12)) name = std::string(r.pick(kScopes)) + "/" + name;
    } while (!names.insert(name).second);

    std::string base = "package/node_modules/";
    if (!top_level.empty() && r.chance(20)) base += r.pick(top_level) + "/node_modules/";
    else top_level.push_back(name);
    base += name;
    plan.packages.push_back(name);

    add_file(base + "/package.json", Kind::kPackageJson, 0, name);
    add_file(base + "/README.md", Kind::kMarkdown, r.range(600, 12000), name);
    add_file(base + "/LICENSE", Kind::kLicense, kLicenseText.size());
    if (r.chance(35)) add_file(base + "/CHANGELOG.md", Kind::kMarkdown, r.range(1000, 9000), name);
    if (r.chance(70)) add_file(base + "/index.js", Kind::kJs, r.range(100, 800));

    int lib = static_cast<int>(1 + r.below(6) + (r.chance(25) ? r.below(40) : 0));
    bool typed = r.chance(40);
    // A package's lib/ has a few subdirectories of its own, one or two levels deep.
    std::array<std::string_view, 3> subdirs = {r.pick(kSubdirs), r.pick(kSubdirs), r.pick(kSubdirs)};
    for (int i = 0; i < lib; ++i) {
      std::string dir = base + "/lib";
      unsigned where = static_cast<unsigned>(r.below(10));
      if (where >= 6) dir += "/" + std::string(subdirs[where % 2]);
      if (where == 9) dir += "/" + std::string(subdirs[2]);
      std::string stem = std::string(r.pick(kSyllables)) + std::string(r.pick(kSyllables)) + std::to_string(i);
      add_file(dir + "/" + stem + ".js", Kind::kJs, source_size(r));
      if (typed && r.chance(50)) add_file(dir + "/" + stem + ".d.ts", Kind::kTypings, r.range(200, 6000));
    }
    if (r.chance(25)) {
      std::string leaf = name.substr(name.rfind('/') + 1);
      add_file(base + "/dist/" + leaf + ".min.js", Kind::kMinJs, r.range(20'000, 400'000));
    }
    if (r.chance(6)) {
      // Native addons, wasm, images: incompressible.
      std::string leaf = name.substr(name.rfind('/') + 1);
      switch (r.below(3)) {
        case 0: add_file(base + "/build/Release/" + leaf + ".node", Kind::kBinary, r.range(64 * 1024, 1024 * 1024)); break;
        case 1: add_file(base + "/dist/" + leaf + ".wasm", Kind::kBinary, r.range(64 * 1024, 1024 * 1024)); break;
        default: add_file(base + "/assets/logo.png", Kind::kBinary, r.range(8 * 1024, 256 * 1024)); break;
      }
    }
  }
  return plan;
}

// The bytes of one file. Sizes of package.json are whatever it comes to; every other size
// is the plan's exactly.
void render(const Item& it, const Vocab& v, const Plan& plan, std::string& out) {
  out.clear();
  Rng r(it.seed);
  switch (it.kind) {
    case Kind::kDir: return;
    case Kind::kJs: gen_js(r, v, out, it.size, false, false); break;
    case Kind::kMinJs: gen_js(r, v, out, it.size, true, false); break;
    case Kind::kTypings: gen_js(r, v, out, it.size, false, true); break;
    case Kind::kMarkdown: gen_markdown(r, v, out, it.size, it.title); break;
    case Kind::kLicense: out = kLicenseText; break;
    case Kind::kPackageJson: gen_package_json(r, out, it.title, plan.packages); return;
    case Kind::kBinary: {
      out.resize((it.size + 7) / 8 * 8);
      for (std::size_t i = 0; i < out.size(); i += 8) {
        std::uint64_t w = r.next();
        std::memcpy(out.data() + i, &w, 8);
      }
      break;
    }
  }
  out.resize(it.size);
  if (!out.empty() && it.kind != Kind::kBinary) out.back() = '\n';
}

// package.json sizes are only known once rendered; fixes them in the plan (cheap).
void size_package_jsons(Plan& plan, const Vocab& v) {
  std::string buf;
  for (Item& it : plan.items) {
    if (it.kind != Kind::kPackageJson) continue;
    render(it, v, plan, buf);
    it.size = buf.size();
    plan.bytes += it.size;
  }
}

struct ArchiveWriteDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

void write_archive(const Plan& plan, const Vocab& v, const std::string& path) {
  std::unique_ptr<archive, ArchiveWriteDeleter> a(archive_write_new());
  auto check = [&](int rc, const char* what) {
    if (rc != ARCHIVE_OK) die(std::string("writing the archive: ") + what + ": " + archive_error_string(a.get()));
  };
  check(archive_write_set_format_pax_restricted(a.get()), "format");
  check(archive_write_add_filter_gzip(a.get()), "gzip");
  // No timestamp in the gzip header: the same plan always makes the same bytes.
  check(archive_write_set_options(a.get(), "gzip:!timestamp,gzip:compression-level=6"), "options");
  check(archive_write_open_filename(a.get(), path.c_str()), "open");
  archive_entry* e = archive_entry_new();
  std::string buf;
  for (const Item& it : plan.items) {
    archive_entry_clear(e);
    archive_entry_set_pathname(e, it.kind == Kind::kDir ? (it.path + "/").c_str() : it.path.c_str());
    archive_entry_set_mtime(e, kMtime, 0);
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    if (it.kind == Kind::kDir) {
      archive_entry_set_filetype(e, AE_IFDIR);
      archive_entry_set_perm(e, 0755);
      archive_entry_set_size(e, 0);
      check(archive_write_header(a.get(), e), "header");
      continue;
    }
    render(it, v, plan, buf);
    if (buf.size() != it.size) die("internal: " + it.path + " rendered to the wrong size");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(buf.size()));
    check(archive_write_header(a.get(), e), "header");
    if (archive_write_data(a.get(), buf.data(), buf.size()) != static_cast<la_ssize_t>(buf.size())) {
      die("writing the archive: data: " + std::string(archive_error_string(a.get())));
    }
  }
  archive_entry_free(e);
  check(archive_write_close(a.get()), "close");
}

// ---------------------------------------------------------------------------------------
// Processes, trees, statistics.

struct ProcResult {
  double wall_ms = 0;
  long maxrss_kib = 0;
  double user_ms = 0, sys_ms = 0;
  int status = 0;
};

// fork, chdir, execve; wall clock from just before fork to just after wait4.
ProcResult run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path) {
  std::vector<char*> av;
  for (const auto& s : argv) av.push_back(const_cast<char*>(s.c_str()));
  av.push_back(nullptr);
  static char path_env[] = "PATH=/usr/local/bin:/usr/bin:/bin";
  char* envp[] = {path_env, nullptr};
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null < 0) die("cannot open " + log_path + " or /dev/null: " + std::strerror(errno));

  ProcResult res;
  auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) die(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execve(av[0], av.data(), envp);
    ::_exit(127);
  }
  rusage ru{};
  int status = 0;
  while (::wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) die(std::string("wait4: ") + std::strerror(errno));
  }
  auto t1 = Clock::now();
  ::close(log);
  ::close(null);
  res.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  res.maxrss_kib = ru.ru_maxrss;
  res.user_ms = tv_ms(ru.ru_utime);
  res.sys_ms = tv_ms(ru.ru_stime);
  res.status = status;
  return res;
}

void write_file(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) die("cannot write " + path);
}

struct TreeCount {
  std::uint64_t files = 0, dirs = 0, bytes = 0, other = 0;
};

TreeCount g_tree;
int count_one(const char*, const struct stat* st, int flag, FTW*) {
  if (flag == FTW_F && S_ISREG(st->st_mode)) {
    ++g_tree.files;
    g_tree.bytes += static_cast<std::uint64_t>(st->st_size);
  } else if (flag == FTW_D) {
    ++g_tree.dirs;
  } else {
    ++g_tree.other;
  }
  return 0;
}

// Regular files, bytes and directories beneath `root` (not counting `root` itself).
TreeCount count_tree(const std::string& root) {
  g_tree = {};
  if (::nftw(root.c_str(), count_one, 64, FTW_PHYS) != 0) die("walking " + root + ": " + std::strerror(errno));
  if (g_tree.dirs > 0) --g_tree.dirs;
  return g_tree;
}

// out.tar's first entry: a 512-byte ustar header naming result.json, then its bytes.
std::string result_json_from_out_tar(const std::string& tar) {
  if (tar.size() < 512) die("out.tar is " + std::to_string(tar.size()) + " bytes, shorter than one header");
  std::string name(tar.data(), strnlen(tar.data(), 100));
  if (name != "result.json") die("out.tar's first entry is '" + name + "', not result.json");
  std::string size_field(tar.data() + 124, strnlen(tar.data() + 124, 12));
  std::uint64_t size = std::strtoull(size_field.c_str(), nullptr, 8);
  if (512 + size > tar.size()) die("out.tar's result.json runs past the end of out.tar");
  return tar.substr(512, size);
}

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

std::string thousands(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

struct Options {
  std::string agent = kAgentBin;
  std::string bsdtar;
  std::string dir = default_bench_dir();
  int reps = 5;
  int warmup = 1;
  std::uint64_t files = 10'000;
  std::uint64_t mib = 100;
  bool regenerate = false;
};

constexpr const char* kUsage =
    "usage: bench_extract [--agent PATH] [--bsdtar PATH] [--dir DIR] [--reps N] [--warmup N]\n"
    "                     [--files N] [--mib N] [--regenerate]\n";

Options parse_args(int argc, char** argv) {
  Options o;
  Args args(argc, argv, kUsage);
  // This bench's numbers have never had an upper bound: --files and --mib size the archive.
  constexpr auto kUnbounded = std::numeric_limits<std::uint64_t>::max();
  while (args.next()) {
    const std::string& a = args.flag();
    if (args.value_into({{"--agent", &o.agent}, {"--bsdtar", &o.bsdtar}, {"--dir", &o.dir}})) continue;
    if (a == "--reps") o.reps = static_cast<int>(args.number(1, kUnbounded));
    else if (a == "--warmup") o.warmup = static_cast<int>(args.number(0, kUnbounded));
    else if (a == "--files") o.files = args.number(1, kUnbounded);
    else if (a == "--mib") o.mib = args.number(1, kUnbounded);
    else if (a == "--regenerate") o.regenerate = true;
    else args.unknown();
  }
  if (o.agent.empty()) args.fail("--agent PATH is required");
  if (o.bsdtar.empty()) {
    auto b = find_on_path("bsdtar");
    if (!b) die("bsdtar is not on PATH (apt-get install libarchive-tools), or pass --bsdtar");
    o.bsdtar = *b;
  }
  o.agent = fs::absolute(o.agent).string();
  o.dir = fs::absolute(o.dir).string();
  if (::access(o.agent.c_str(), X_OK) != 0) die("the agent " + o.agent + " is not executable");
  return o;
}

struct AgentSample {
  ProcResult proc;
  double extract_ms = 0, fetch_ms = 0, run_ms = 0;
};

void bench(int argc, char** argv) {
  Options opt = parse_args(argc, argv);

  bool tmpfs = on_tmpfs(opt.dir, "bench_extract");

  // 1. The archive.
  std::string root = opt.dir + "/batlehub-bench";
  fs::create_directories(root);
  Vocab vocab = make_vocab();
  Plan plan = make_plan(opt.files, opt.mib * kMiB);
  size_package_jsons(plan, vocab);
  std::string stem = root + "/npm-v" + std::to_string(kFormatVersion) + "-" + std::to_string(opt.files) + "f-" +
                     std::to_string(opt.mib) + "m";
  std::string archive_path = stem + ".tgz";
  std::string meta_path = stem + ".meta";
  // Beside the archive: the plan's counts and the archive's size, written once it is whole.
  std::string expect_meta =
      thousands(plan.files) + " " + thousands(plan.dirs) + " " + thousands(plan.bytes);
  bool cached = false;
  {
    std::string meta = read_file(meta_path);
    struct stat st{};
    if (!opt.regenerate && ::stat(archive_path.c_str(), &st) == 0 &&
        meta == expect_meta + " " + std::to_string(st.st_size) + "\n") {
      cached = true;
    }
  }
  double gen_s = 0;
  if (!cached) {
    std::fprintf(stderr, "bench_extract: generating %s (%s files, %s bytes)...\n", archive_path.c_str(),
                 thousands(plan.files).c_str(), thousands(plan.bytes).c_str());
    auto t = Clock::now();
    ::unlink(meta_path.c_str());
    std::string tmp = archive_path + ".partial";
    write_archive(plan, vocab, tmp);
    if (::rename(tmp.c_str(), archive_path.c_str()) != 0) die("rename " + tmp + ": " + std::strerror(errno));
    struct stat st{};
    ::stat(archive_path.c_str(), &st);
    write_file(meta_path, expect_meta + " " + std::to_string(st.st_size) + "\n");
    gen_s = std::chrono::duration<double>(Clock::now() - t).count();
  }
  struct stat ast{};
  if (::stat(archive_path.c_str(), &ast) != 0) die("cannot stat " + archive_path);
  auto archive_size = static_cast<std::uint64_t>(ast.st_size);

  // 2. The runs: a private directory, removed at the end.
  std::string load_before = load_now();
  remove_stale_runs(root, "run-");
  std::string run = root + "/run-" + std::to_string(::getpid());
  fs::remove_all(run);
  fs::create_directories(run);
  // It holds extracted trees of 100 MiB on tmpfs, which is memory: a failure removes it too.
  on_failure().cleanup = [run] {
    std::error_code ec;
    fs::remove_all(run, ec);
  };
  std::string manifest_path = run + "/manifest.json";
  std::string out_path = run + "/out.tar";
  {
    nlohmann::json m = {
        {"wire", batlehub::wire::kWireVersion},  // the agent refuses any other
        {"argv", {"true"}},
        {"network", false},
        {"limits", {{"memory_limit_mb", 1024}, {"cpu_seconds", 60}}},
        {"timeout_ms", 120000},
        // The wire's defaults (src/wire/extract_policy.h): what a real run gets.
        {"extract_policy", {{"max_entries", 50000}, {"max_extracted_bytes", 512 * kMiB}, {"max_ratio", 100}}},
        {"entries",
         {{{"kind", "archive"},
           {"path", "tree"},
           {"url", "file://" + archive_path},
           {"size", archive_size},
           {"strip_wrapper", false}}}},
    };
    write_file(manifest_path, m.dump(2));
  }

  auto expect_tree = [&](const std::string& who, const std::string& dir) {
    TreeCount c = count_tree(dir);
    if (c.files != plan.files || c.bytes != plan.bytes || c.dirs != plan.dirs || c.other != 0) {
      die(who + " extracted " + thousands(c.files) + " files, " + thousands(c.bytes) + " bytes, " +
          thousands(c.dirs) + " dirs, " + thousands(c.other) + " others; the archive has " + thousands(plan.files) +
          " files, " + thousands(plan.bytes) + " bytes, " + thousands(plan.dirs) + " dirs");
    }
  };

  auto agent_once = [&](int i) {
    std::string work = run + "/agent-work-" + std::to_string(i);
    fs::create_directories(work);
    ::unlink(out_path.c_str());
    ProcResult p = run_process({opt.agent, "--in", "file://" + manifest_path, "--out", "file://" + out_path}, work,
                               run + "/agent.log");
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
      die("the agent ended with " + describe_status(p.status) + "; its output: " + read_file(run + "/agent.log"));
    }
    std::string rj = result_json_from_out_tar(read_file(out_path));
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(rj);
    } catch (const std::exception& e) {
      die(std::string("result.json does not parse: ") + e.what());
    }
    if (j.contains("failure") && !j["failure"].is_null()) die("the agent reported a failure: " + j["failure"].dump());
    if (!j.value("ran", false) || j.value("exit_code", -1) != 0) die("the scanner did not run to exit 0: " + rj);
    AgentSample s;
    s.proc = p;
    const auto& t = j.at("timings_ms");
    s.extract_ms = t.at("extract").get<double>();
    s.fetch_ms = t.at("fetch").get<double>();
    s.run_ms = t.at("run").get<double>();
    const auto& x = j.at("extract");
    auto files = x.at("files").get<std::uint64_t>(), bytes = x.at("bytes").get<std::uint64_t>(),
         dirs = x.at("directories").get<std::uint64_t>();
    if (files != plan.files || bytes != plan.bytes || dirs != plan.dirs) {
      die("the agent's result.json reports " + thousands(files) + " files, " + thousands(bytes) + " bytes, " +
          thousands(dirs) + " dirs; the archive has " + thousands(plan.files) + " files, " + thousands(plan.bytes) +
          " bytes, " + thousands(plan.dirs) + " dirs");
    }
    expect_tree("the agent", work + "/tree");
    fs::remove_all(work);
    return s;
  };
  // `lean` adds the flags that make bsdtar do what the agent does as root: no chown, no
  // chmod beyond the umask, no utimes. Reference only; the anchor is the plain command.
  auto bsdtar_once = [&](int i, bool lean) {
    std::string dest = run + (lean ? "/bsdtar-lean-" : "/bsdtar-") + std::to_string(i);
    fs::create_directories(dest);
    std::vector<std::string> cmd = {opt.bsdtar, "-xzf", archive_path, "-C", dest};
    if (lean) cmd.insert(cmd.begin() + 1, {"--no-same-owner", "--no-same-permissions", "-m"});
    ProcResult p = run_process(cmd, run, run + "/bsdtar.log");
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
      die("bsdtar ended with " + describe_status(p.status) + "; its output: " + read_file(run + "/bsdtar.log"));
    }
    expect_tree("bsdtar", dest);
    fs::remove_all(dest);
    return p;
  };

  for (int i = 0; i < opt.warmup; ++i) {
    agent_once(-1 - i);
    bsdtar_once(-1 - i, false);
    bsdtar_once(-1 - i, true);
  }
  std::vector<AgentSample> agent;
  std::vector<ProcResult> bsdtar, lean;
  for (int i = 0; i < opt.reps; ++i) {
    agent.push_back(agent_once(i));
    bsdtar.push_back(bsdtar_once(i, false));
    lean.push_back(bsdtar_once(i, true));
  }
  fs::remove_all(run);
  on_failure().cleanup = nullptr;

  // 3. The table.
  auto col = [](auto get, const auto& v) {
    std::vector<double> out;
    for (const auto& x : v) out.push_back(get(x));
    return out;
  };
  std::vector<ProcResult> agent_proc;
  for (const auto& a : agent) agent_proc.push_back(a.proc);
  struct Stats {
    double med = 0, min = 0, user = 0, sys = 0, rss_mib = 0;
  };
  auto stats = [&](const std::vector<ProcResult>& v) {
    Stats st;
    auto wall = col([](const ProcResult& p) { return p.wall_ms; }, v);
    st.med = median(wall);
    st.min = minimum(wall);
    st.user = median(col([](const ProcResult& p) { return p.user_ms; }, v));
    st.sys = median(col([](const ProcResult& p) { return p.sys_ms; }, v));
    long rss = 0;
    for (const auto& p : v) rss = std::max(rss, p.maxrss_kib);
    st.rss_mib = static_cast<double>(rss) / 1024;
    return st;
  };
  Stats a = stats(agent_proc), b = stats(bsdtar), l = stats(lean);
  auto a_ext = col([](const AgentSample& x) { return x.extract_ms; }, agent);
  auto a_fetch = col([](const AgentSample& x) { return x.fetch_ms; }, agent);
  auto a_run = col([](const AgentSample& x) { return x.run_ms; }, agent);
  double ratio = a.med / b.med;

  std::printf("bench_extract: the agent's extraction vs bsdtar -xzf, same archive, same tmpfs\n\n");
  std::fputs(machine_line(opt.dir, tmpfs).c_str(), stdout);
  // Wall clock is only as good as the machine is quiet: other load shows here first.
  std::printf("           load average %s before the runs\n", load_before.c_str());
  std::printf("  archive  %s (%s)\n", archive_path.c_str(),
              cached ? "cached" : fmt("generated in %.1f s", gen_s).c_str());
  std::printf("           %s files + %s dirs, %s bytes (%.1f MiB, %.0f%% of it incompressible)\n",
              thousands(plan.files).c_str(), thousands(plan.dirs).c_str(), thousands(plan.bytes).c_str(),
              static_cast<double>(plan.bytes) / kMiB,
              100.0 * static_cast<double>(plan.binary_bytes) / static_cast<double>(plan.bytes));
  std::printf("           from %.1f MiB of gzip: ratio %.1f:1\n", static_cast<double>(archive_size) / kMiB,
              static_cast<double>(plan.bytes) / static_cast<double>(archive_size));
  std::printf("  runs     %d of each, alternating, after %d untimed warm-up round%s; a fresh dir each time\n\n",
              opt.reps, opt.warmup, opt.warmup == 1 ? "" : "s");

  const char* row = "  %-40s %7.0f ms %7.0f ms %6.1f MiB %6.0f + %3.0f ms\n";
  const char* sub = "  %-40s %7.0f ms %7.0f ms\n";
  std::printf("  %-40s %10s %10s %10s %15s\n", "wall clock, fork to wait4", "median", "min", "peak RSS",
              "user + sys, med");
  std::printf(row, "agent (whole process)", a.med, a.min, a.rss_mib, a.user, a.sys);
  std::printf(sub, "  its timings_ms.extract", median(a_ext), minimum(a_ext));
  std::printf(sub, "  its timings_ms.fetch + .run", median(a_fetch) + median(a_run), minimum(a_fetch) + minimum(a_run));
  std::printf(row, "bsdtar -xzf (the anchor)", b.med, b.min, b.rss_mib, b.user, b.sys);
  std::printf(row, "bsdtar -xzf -m --no-same-{owner,perms}", l.med, l.min, l.rss_mib, l.user, l.sys);
  std::printf("  %-40s %9.2fx %9.2fx\n", "ratio agent / bsdtar (the anchor)", ratio, a.min / b.min);
  std::printf("  %-40s %9.2fx %9.2fx\n\n", "ratio agent / bsdtar -m --no-same-*", a.med / l.med, a.min / l.min);

  std::printf("  every run extracted %s files, %s bytes, %s dirs, as the archive holds\n",
              thousands(plan.files).c_str(), thousands(plan.bytes).c_str(), thousands(plan.dirs).c_str());
  std::printf("  (the agent: by its result.json and by the tree; bsdtar: by the tree)\n\n");

  // Issue 32's aim, once the gzip layer became igzip's (src/agent/gunzip.h); RFC 0022's was 1.0.
  std::printf("  aim: ratio <= 0.5               %6.2f      %s\n", ratio, ratio <= 0.5 ? "PASS" : "MISS");
  std::printf("  aim: agent peak RSS <= 32 MiB   %6.1f MiB  %s\n", a.rss_mib, a.rss_mib <= 32.0 ? "PASS" : "MISS");
}

}  // namespace

int main(int argc, char** argv) { return batlehub::bench::bench_main("bench_extract", bench, argc, argv); }
