#!/usr/bin/env bash
# The fence around the agent (architecture.md §2): what batlehub-sandbox may include, link
# and read, and that the binary is static and runs in a room holding nothing but itself.
# Usage: scripts/check-fence.sh BUILD_DIR   (a release build: the sanitizer build is dynamic)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: check-fence.sh BUILD_DIR}"
agent="$build/src/agent/batlehub-sandbox"
fail=0
pass=0
ok() { echo "fence: ok   $*"; pass=$((pass + 1)); }
bad() { echo "fence: FAIL $*"; fail=$((fail + 1)); }

# 1. Includes: the agent and the wire include only themselves, the C/C++ libraries and the
#    agent's own third parties — never core, config, adapters or server, nor the worker's
#    libraries (OpenSSL among them: the agent's TLS is mbedTLS's).
forbidden_ours='#include "(core|config|adapters|server)/'
forbidden_libs='#include <(CLI/|spdlog/|toml\+\+/|sqlite3|libpq|postgresql/|prometheus/|openssl/)'
if grep -rEn "$forbidden_ours|$forbidden_libs" src/agent src/wire src/base; then
  bad "the agent's sources include something outside the fence (above)"
else
  ok "src/agent, src/wire and src/base include nothing of core, config, adapters, server, CLI11, spdlog, toml++, SQLite, libpq, prometheus, OpenSSL"
fi
if grep -rEn '#include "' src/wire | grep -vE '#include "(wire|base)/'; then
  bad "the wire library includes something other than itself and the base (above)"
else
  ok "src/wire includes only itself and src/base"
fi
# The base is the floor: nothing of ours above it, and no third-party library at all.
if grep -rEn '#include "' src/base | grep -vE '#include "base/' ||
   grep -rEn '#include <(archive|seccomp|openssl/|mbedtls/|nlohmann/|toml|CLI/|spdlog/)' src/base; then
  bad "src/base includes something above the floor or a third-party library (above)"
else
  ok "src/base includes only itself, the C and C++ libraries and the kernel's headers"
fi

# 1b. The agent's public face: outside src/agent, only agent/agent.h (run, execute) and
#     agent/out_tar.h (the result's reader) are included — and never by a scanner.
if grep -rEn '#include "agent/' src --include=*.h --include=*.cc | grep -v '^src/agent/' |
   grep -vE '#include "agent/(agent|out_tar)\.h"'; then
  bad "an agent internal is included outside src/agent (above)"
else
  ok "outside src/agent only the agent's public face is included (agent/agent.h, agent/out_tar.h)"
fi
if grep -rEn '#include "agent/' src/adapters/scanners src/core src/config; then
  bad "a scanner, the core or the configuration reaches into the agent (above)"
else
  ok "the scanners, the core and the configuration include nothing of the agent"
fi

# 2. No environment, ever: the agent's own code never asks for a variable.
if grep -rEn '\b(secure_)?getenv\s*\(' src/agent src/wire; then
  bad "the agent reads the environment (above)"
else
  ok "no getenv in src/agent or src/wire"
fi

# 3. The link line holds only what the fence allows: our four archives, libarchive and the
#    decoders its readers reference, ISA-L's igzip (the gzip inflater, src/agent/gunzip.h;
#    the static archive scripts/install-isal.sh builds, named by its Debian version),
#    libseccomp, and mbedTLS (TLS and SHA-256; never OpenSSL, whose static libcrypto alone
#    was 2.9 MiB of the agent: src/agent/http.cc).
allowed='^(src/agent/libbatlehub_agent\.a|/opt/batlehub/isal-[0-9.]+-[0-9]+/lib/libisal\.a|src/agent/libbatlehub_agent_roots_(system|test)\.a|src/wire/libbatlehub_wire\.a|src/base/libbatlehub_base\.a|-l(archive|z|bz2|lzma|zstd|nettle|seccomp|mbedtls|mbedx509|mbedcrypto))$'
line=$(awk '/^build src\/agent\/batlehub-sandbox: /{f=1} f&&/LINK_LIBRARIES/{print; exit}' "$build/build.ninja" | sed 's/^ *LINK_LIBRARIES = //')
if [ -z "$line" ]; then
  bad "cannot find batlehub-sandbox's link line in $build/build.ninja"
else
  extra=$(for w in $line; do echo "$w"; done | grep -vE "$allowed" || true)
  if [ -n "$extra" ]; then
    bad "batlehub-sandbox links what the fence does not allow: $(echo $extra)"
  else
    ok "link line: $(echo $line)"
  fi
fi

# 3b. The scanners link neither the agent nor its libraries, nor OpenSSL: a scanner
#     describes a bundle and reads stdout, it never opens an archive, compiles a filter or
#     speaks TLS. Read off the link line of tests/scanners/scanners_alone_test, which links
#     batlehub_scanners alone.
alone=$(awk '/^build tests\/scanners\/scanners_alone_test[ :]/{f=1} f&&/LINK_LIBRARIES/{print; exit}' "$build/build.ninja" | sed 's/^ *LINK_LIBRARIES = //')
if [ -z "$alone" ]; then
  bad "cannot find scanners_alone_test's link line in $build/build.ninja"
elif grep -qE 'libbatlehub_agent|libbatlehub_sandboxes|libisal|-l(archive|seccomp|mbedtls|mbedx509|mbedcrypto|ssl|crypto)\b' <<<"$alone"; then
  bad "the scanners link the agent or its libraries: $alone"
else
  ok "the scanners link: $(for w in $alone; do case $w in src/*) echo -n "$w ";; esac; done)(no agent, libarchive, ISA-L, libseccomp, mbedTLS or OpenSSL)"
fi

# 3c. Our own scanners, the other programs of ours inside the walls (architecture.md,
#     departure 26): each includes nothing of the worker and links its own archive, the
#     base and what its fence names — no agent, no libarchive, no TLS.
#     batlehub-signals: zlib and mbedTLS's crypto (AES and HMAC, for Fernet tokens; the
#     observer's own crypto library). batlehub-behavior (the detonation's observer): the wire (base64),
#     libseccomp (its watch filter), mbedTLS (its sink's TLS server, the agent's TLS library)
#     and nothing else.
own_scanner_fence() {
  local name=$1 dir=$2 allowed=$3
  if grep -rEn "$forbidden_ours|$forbidden_libs|#include \"agent/" "src/$dir"; then
    bad "$name includes something outside its fence (above)"
  else
    ok "src/$dir includes nothing of the agent, core, config, adapters, server or the worker's libraries"
  fi
  local bin="$build/src/$dir/$name" line extra bin_ldd
  line=$(awk "/^build src\/$dir\/$name: /{f=1} f&&/LINK_LIBRARIES/{print; exit}" "$build/build.ninja" | sed 's/^ *LINK_LIBRARIES = //')
  if [ -z "$line" ]; then
    bad "cannot find $name's link line in $build/build.ninja"
  elif extra=$(for w in $line; do echo "$w"; done | grep -vE "$allowed"); then
    bad "$name links what its fence does not allow: $(echo $extra)"
  else
    ok "$name's link line: $(echo $line)"
  fi
  bin_ldd=$(ldd "$bin" 2>&1 || true)
  if grep -q "not a dynamic executable" <<<"$bin_ldd" && ! readelf -lW "$bin" | grep -q INTERP; then
    ok "$name is static ($(stat -c %s "$bin") bytes)"
  else
    bad "$name is not a static executable"
  fi
}
own_scanner_fence batlehub-signals signals '^(src/signals/libbatlehub_signals(_shell)?\.a|src/base/libbatlehub_base\.a|-lz|-lmbedcrypto)$'
own_scanner_fence batlehub-behavior behavior \
  '^(src/behavior/libbatlehub_behavior\.a|src/wire/libbatlehub_wire\.a|src/base/libbatlehub_base\.a|-lseccomp|-lmbedtls|-lmbedx509|-lmbedcrypto)$'

# 4. Static and stripped.
ldd_out=$(ldd "$agent" 2>&1 || true)
if echo "$ldd_out" | grep -q "not a dynamic executable"; then
  ok "ldd: not a dynamic executable"
else
  bad "ldd says the agent is dynamic: $(echo "$ldd_out" | head -3)"
fi
if readelf -lW "$agent" | grep -q INTERP; then bad "the agent has a program interpreter"; else ok "no PT_INTERP"; fi
if readelf -SW "$agent" | grep -q '\.symtab'; then bad "the agent is not stripped"; else ok "stripped ($(stat -c %s "$agent") bytes)"; fi

# 5. It runs in a room holding nothing but itself and the mount points.
if command -v bwrap >/dev/null; then
  room=$(mktemp -d)
  work=$(mktemp -d)
  trap 'rm -rf "$room" "$work"' EXIT
  mkdir -p "$room"/{proc,dev,work,tmp}
  cp "$agent" "$room/batlehub-sandbox"
  cat > "$work/manifest.json" <<'JSON'
{"wire":3,"argv":["no-such-scanner"],"network":false,"limits":{"memory_limit_mb":64,"cpu_seconds":5},
 "timeout_ms":5000,"extract_policy":{"max_entries":10,"max_extracted_bytes":1024,"max_ratio":10},"entries":[]}
JSON
  set +e
  bwrap --unshare-all --die-with-parent --ro-bind "$room" / --proc /proc --dev /dev --bind "$work" /work \
    --chdir /work --clearenv -- /batlehub-sandbox --in file:///work/manifest.json --out file:///work/out.tar
  rc=$?
  set -e
  if [ "$rc" -eq 0 ] && tar -xOf "$work/out.tar" result.json | grep -q '"command_not_found"'; then
    ok "runs in an empty room under bwrap and writes its result (rc $rc)"
  else
    bad "in an empty room the agent exited $rc without the expected result"
  fi
else
  echo "fence: skip the empty-room run: bwrap is not installed"
fi

echo "fence: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
