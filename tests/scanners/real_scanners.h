// What the GuardDog, Trivy and YARA tests share: the fixtures, the samples packed as the
// registries ship them, and the two runtimes the real scanners run under — `none` on the
// host and `bwrap` in a room built by scripts/build-room.py from the scanner's definition.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/sandbox/blob.h"
#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/none.h"
#include "adapters/scanners/trivy.h"
#include "archive_builder.h"
#include "core/scanner.h"
#include "rooms.h"
#include "scratch.h"

// In a TEST_F whose fixture has need_bwrap(): skip (or fail) the whole test, not only the
// helper (GTEST_SKIP returns from the function it is written in).
#define BATLEHUB_NEED_BWRAP()                                                       \
  do {                                                                              \
    need_bwrap();                                                                   \
    if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure()) return; \
  } while (0)

namespace batlehub::testing {

inline const std::string kSource = BATLEHUB_SOURCE_DIR;

// Why this test binary has no network namespace of its own, or "" (own_network_main.cc).
extern std::string own_network_error;
inline std::string own_network_missing() {
  return own_network_error.empty() ? ""
                                   : "no network namespace of the test's own (" + own_network_error +
                                         "): a real scanner would run on the host's network";
}
inline const std::string kFixtures = kSource + "/tests/fixtures/";

// Where scripts/install-scanners.sh puts them.
inline constexpr const char* kGuardDogVenvBin = "/opt/batlehub/guarddog/bin";
inline constexpr const char* kBatlehubBin = "/opt/batlehub/bin";

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A sample directory (tests/fixtures/guarddog/samples/<name>) as a .tgz whose entries are
// the paths under it: `package/…` for npm, `<name>-<version>/…` for an sdist.
inline std::string pack_dir(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<TestEntry> entries;
  for (const fs::path& f : files) entries.push_back(file(fs::relative(f, root).string(), slurp(f.string())));
  return make_tgz(entries);
}
inline std::string pack_sample(const std::string& name) {
  return pack_dir(kFixtures + "guarddog/samples/" + name);
}

// The four samples under tests/fixtures/guarddog/samples, each as its registry ships it.
struct Sample {
  core::PackageKind kind;
  const char* name;
};
inline constexpr Sample kSamples[] = {{core::PackageKind::kNpm, "npm-benign"},
                                      {core::PackageKind::kNpm, "npm-malicious"},
                                      {core::PackageKind::kPypi, "pypi-benign"},
                                      {core::PackageKind::kPypi, "pypi-malicious"}};

inline core::ScanInput sample_input(core::PackageKind kind, const std::string& sample) {
  core::ScanInput in;
  in.package = core::Package{kind, sample, "1.0.0", "test"};
  in.artifact = adapters::memory_blob(pack_sample(sample), sample + ".tgz");
  return in;
}

inline bool executable(const std::string& p) {
  return ::access(p.c_str(), X_OK) == 0;
}

// The `none` runtime with the installed scanners on its PATH (the venv's bin for guarddog,
// /opt/batlehub/bin for trivy).
inline std::unique_ptr<adapters::NoneRuntime> none_runtime(const Scratch& s) {
  adapters::NoneOptions o;
  o.scratch_dir = s.work().string();
  o.scanner_path = std::string(kGuardDogVenvBin) + ":" + kBatlehubBin + ":/usr/local/bin:/usr/bin:/bin";
  auto r = adapters::NoneRuntime::create(o, [](std::string_view) { return std::optional<std::string>("1"); });
  return std::move(r).value();
}

inline std::unique_ptr<adapters::BwrapRuntime> bwrap_runtime(const Scratch& s, const fs::path& rooms) {
  adapters::BwrapOptions o;
  o.rooms_dir = rooms.string();
  o.scratch_dir = s.work().string();
  o.start_timeout = std::chrono::seconds(60);
  return std::make_unique<adapters::BwrapRuntime>(o);
}

// Builds <rooms>/<name> from rooms/<definition>.toml (plus `extra` build-room.py
// arguments). "" on success, else the tool's words.
inline std::string build_room_from(const fs::path& rooms, const std::string& definition, const std::string& name,
                                   const std::string& extra = "") {
  fs::create_directories(rooms);
  fs::path err = rooms / (name + ".err");
  std::string cmd = "python3 " + kSource + "/scripts/build-room.py --definition " + kSource + "/rooms/" + definition +
                    ".toml --agent " + BATLEHUB_AGENT_BIN + " " + extra + " --out " + (rooms / name).string() +
                    " >/dev/null 2>" + err.string();
  if (std::system(cmd.c_str()) == 0) return "";
  return "build-room.py failed: " + Scratch::read(err);
}

// --- trivy, for real -----------------------------------------------------------------------

// What the real runs use: a database repository on a loopback port nothing listens on. A
// trivy that needs its database asks this machine, is refused at once, and says so — it
// never looks up or dials the public registry Trivy defaults to.
inline constexpr const char* kLoopbackDbRepository = "127.0.0.1:9/batlehub/trivy-db";

inline adapters::TrivyScanner local_scanner(std::string endpoint = "") {
  adapters::TrivyOptions o;
  o.endpoint = std::move(endpoint);
  o.db_repository = kLoopbackDbRepository;
  return adapters::TrivyScanner(o);
}

// The npm sample with the CycloneDX SBOM of lodash 4.17.15 beside it.
inline core::ScanInput with_sbom() {
  core::ScanInput in = sample_input(core::PackageKind::kNpm, "npm-benign");
  in.sbom = slurp(kFixtures + "trivy/lodash-4.17.15.cdx.json");
  return in;
}

// The npm sample that ships a lockfile (tests/fixtures/trivy/samples/npm-locked): lodash
// 4.17.15, which the one-advisory database knows a vulnerability in.
inline core::ScanInput locked_sample() {
  core::ScanInput in;
  in.package = core::Package{core::PackageKind::kNpm, "lodash-user", "1.0.0", "test"};
  in.artifact = adapters::memory_blob(pack_dir(kFixtures + "trivy/samples/npm-locked"), "lodash-user-1.0.0.tgz");
  return in;
}

// With a database in its cache (tests/fixtures/trivy/<db>: the EMPTY one, or the one holding
// a single advisory; trivy finds neither stale before 2100), trivy runs its whole scan
// offline — under the agent's filter, and in its room — and answers: the report of a real run.
inline core::RunOutcome run_trivy_with_db(const adapters::TrivyScanner& s, core::SandboxRuntime& rt,
                                          const core::ScanInput& in, const std::string& db) {
  auto plan = s.plan(in);
  EXPECT_TRUE(plan);
  if (!plan) return Unexpected(core::SandboxError{core::SandboxError::Kind::kConfig, "no plan"});
  core::RunSpec spec = plan->front();
  for (const char* f : {"trivy.db", "metadata.json"}) {
    spec.bundle.entries.push_back(core::BundleEntry::inline_file(*wire::RelPath::parse(std::string(".trivy/db/") + f),
                                                                 slurp(kFixtures + "trivy/" + db + "/" + f)));
  }
  return rt.run(spec);
}
inline core::RunOutcome run_trivy_with_empty_db(const adapters::TrivyScanner& s, core::SandboxRuntime& rt,
                                                const core::ScanInput& in) {
  return run_trivy_with_db(s, rt, in, "empty-db");
}

// The findings as comparable text, one per line (scanner kind code severity reference summary).
inline std::string describe(const std::vector<core::Finding>& fs) {
  std::string out;
  for (const auto& f : fs) {
    out += f.scanner + " " + std::string(core::to_string(f.kind)) + " " + std::string(core::to_string(f.code)) + " " +
           std::string(core::to_string(f.severity)) + " [" + f.reference.value_or("") + "] " + f.summary + "\n";
  }
  return out;
}

inline core::RunOutcome answered(int status, std::string out, std::string err = "") {
  core::RunOutput o;
  o.status = status;
  o.stdout_bytes = std::move(out);
  o.stderr_tail = std::move(err);
  return o;
}

inline core::RunOutcome failed(core::SandboxError::Kind k, std::string m) {
  return Unexpected(core::SandboxError{k, std::move(m)});
}

// A stand-in scanner for the failure tests: a Python script (Debian's python3), run as the
// scanner's command under the real runtimes. `body` is the script after the shebang.
inline fs::path fake_scanner(const fs::path& dir, const std::string& name, const std::string& body) {
  fs::path p = dir / name;
  Scratch::write(p, "#!/usr/bin/python3\n" + body);
  fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                         fs::perms::others_exec);
  return p;
}

// The fakes every adapter must turn into a ScannerError.
inline const char* kFakeHang = "import time\ntime.sleep(3600)\n";
inline const char* kFakeSegv = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n";
inline const char* kFakeGarbage = "print('this is { not what the scanner prints')\n";
inline const char* kFakeExit2 = "import sys\nsys.stderr.write('fake: cannot go on\\n')\nsys.exit(2)\n";

// A room (python-example.toml: CPython, no shell) with the fakes at /usr/bin/fake-*.
inline std::string build_fake_room(const fs::path& rooms, const std::string& name, const fs::path& fakes_dir) {
  std::string extra;
  for (const char* f : {"fake-hang", "fake-segv", "fake-garbage", "fake-exit2"}) {
    extra += " --binary " + (fakes_dir / f).string() + ":/usr/bin/" + f;
  }
  return build_room_from(rooms, "python-example", name, extra);
}

inline void write_fakes(const fs::path& dir) {
  fake_scanner(dir, "fake-hang", kFakeHang);
  fake_scanner(dir, "fake-segv", kFakeSegv);
  fake_scanner(dir, "fake-garbage", kFakeGarbage);
  fake_scanner(dir, "fake-exit2", kFakeExit2);
}

}  // namespace batlehub::testing
