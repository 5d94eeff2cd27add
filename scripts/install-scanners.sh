#!/usr/bin/env bash
# Installs the real scanners the tests and the demo run (as root, on Debian 12), each at
# the version upstream pins, and says what is installed. Idempotent, and fast when
# everything is already there (each step checks before it works):
#
#   YARA 4.2.3      Debian's `yara` (scripts/deps.txt; install-deps.sh installs it)
#   GuardDog 3.2.0  a virtualenv at /opt/batlehub/guarddog on Debian's /usr/bin/python3.11,
#                   exactly the tree in scripts/guarddog-requirements.txt (hashes checked)
#   Trivy 0.74.0    built from the Go module proxy into /opt/batlehub/bin/trivy, static
#                   (CGO_ENABLED=0), its version stamped in
#   YARA rules      rooms/rules/batlehub-default.yar -> /usr/local/share/batlehub/rules/default.yar
#
# The rooms (scripts/build-room.py, rooms/<scanner>.toml) copy from these paths.
# Environment: GO (default: `go` on PATH, else /usr/local/go/bin/go) — Trivy 0.74.0 needs
# Go >= 1.26 and GOEXPERIMENT=jsonv2, which Debian 12's golang (1.19) is not.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix=/opt/batlehub

GUARDDOG_VERSION=3.2.0
TRIVY_VERSION=0.74.0
TRIVY_MODULE=github.com/aquasecurity/trivy
guarddog_venv="$prefix/guarddog"
guarddog_reqs="$here/guarddog-requirements.txt"
guarddog_stamp="$guarddog_venv/.batlehub-requirements.sha256"
trivy_bin="$prefix/bin/trivy"
rules_src="$here/../rooms/rules/batlehub-default.yar"
rules_dst=/usr/local/share/batlehub/rules/default.yar

say() { echo "install-scanners: $*"; }
die() { echo "install-scanners: $*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

if [ "$(id -u)" -ne 0 ]; then
  # Nothing to do is fine as any user; anything to install needs root.
  need_root=1
else
  need_root=0
fi
as_root() { [ "$need_root" -eq 0 ] || die "must run as root to install $1"; }

# --- Debian packages: yara, python3-venv (and the rest of deps.txt) ----------------------
if ! command -v yara >/dev/null 2>&1 || ! /usr/bin/python3.11 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  as_root "yara and python3-venv"
  "$here/install-deps.sh"
fi

# --- GuardDog ---------------------------------------------------------------------------
# The installed distribution's version (`guarddog --version` would first try to refresh its
# typosquatting lists from the network).
guarddog_version() {
  "$guarddog_venv/bin/python" -c 'import importlib.metadata as m; print(m.version("guarddog"))' 2>/dev/null || true
}
want_sum="$(sha256sum "$guarddog_reqs" | cut -d' ' -f1)"
if [ -x "$guarddog_venv/bin/guarddog" ] && [ "$(cat "$guarddog_stamp" 2>/dev/null)" = "$want_sum" ]; then
  :
else
  as_root "GuardDog"
  t0=$(date +%s)
  say "GuardDog $GUARDDOG_VERSION into $guarddog_venv (Debian's python3.11)"
  rm -rf "$guarddog_venv"
  /usr/bin/python3.11 -m venv "$guarddog_venv"
  # --no-deps: the requirements file is the whole resolved tree; --require-hashes: exactly
  # those wheels; --only-binary: no build step, no compiler, no setup.py of a dependency.
  "$guarddog_venv/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check \
    --require-hashes --no-deps --only-binary :all: -r "$guarddog_reqs"
  "$guarddog_venv/bin/pip" check >/dev/null
  got="$(guarddog_version)"
  [ "$got" = "$GUARDDOG_VERSION" ] || die "guarddog --version printed '$got', expected $GUARDDOG_VERSION"
  # Readable by the sandbox user (uid 65532) once copied into a room.
  chmod -R a+rX "$guarddog_venv"
  echo "$want_sum" > "$guarddog_stamp"
  say "GuardDog installed in $(elapsed "$t0")"
fi

# --- Trivy ------------------------------------------------------------------------------
trivy_version() { "$trivy_bin" --version 2>/dev/null | sed -n 's/^Version: //p' | head -n1; }
if [ -x "$trivy_bin" ] && [ "$(trivy_version)" = "$TRIVY_VERSION" ]; then
  :
else
  as_root "Trivy"
  go_bin="${GO:-}"
  if [ -z "$go_bin" ]; then
    if command -v go >/dev/null 2>&1; then go_bin="$(command -v go)"; else go_bin=/usr/local/go/bin/go; fi
  fi
  [ -x "$go_bin" ] || die "Trivy $TRIVY_VERSION is built from the Go module proxy and needs Go >= 1.26; no 'go' found (set GO=/path/to/go)"
  t0=$(date +%s)
  say "Trivy $TRIVY_VERSION: building $TRIVY_MODULE/cmd/trivy@v$TRIVY_VERSION with $("$go_bin" version) (10-20 minutes on 2 cores)"
  mkdir -p "$prefix/bin"
  # jsonv2: trivy 0.74.0 imports encoding/json/v2, behind that experiment in Go 1.26.
  # CGO_ENABLED=0: a static binary, so its room needs no library closure.
  # -X …app.ver: `go install` does not stamp trivy's version (it would say "dev").
  CGO_ENABLED=0 GOEXPERIMENT=jsonv2 GOFLAGS=-mod=mod GOBIN="$prefix/bin" \
    "$go_bin" install -trimpath \
    -ldflags "-s -w -X $TRIVY_MODULE/pkg/version/app.ver=$TRIVY_VERSION" \
    "$TRIVY_MODULE/cmd/trivy@v$TRIVY_VERSION"
  got="$(trivy_version)"
  [ "$got" = "$TRIVY_VERSION" ] || die "trivy --version says '$got', expected $TRIVY_VERSION"
  if ldd "$trivy_bin" >/dev/null 2>&1; then die "$trivy_bin is dynamically linked; expected a static binary"; fi
  say "Trivy built in $(elapsed "$t0")"
fi

# --- The YARA rules ------------------------------------------------------------------------
if ! cmp -s "$rules_src" "$rules_dst" 2>/dev/null; then
  as_root "the YARA rules"
  install -D -m 0644 "$rules_src" "$rules_dst"
fi

# --- What is installed ------------------------------------------------------------------
say "installed:"
printf '  %-9s %-8s %s\n' yara "$(yara --version)" "$(command -v yara)"
printf '  %-9s %-8s %s\n' guarddog "$(guarddog_version)" "$guarddog_venv/bin/guarddog (python $(/usr/bin/python3.11 -c 'import platform; print(platform.python_version())'))"
printf '  %-9s %-8s %s\n' trivy "$(trivy_version)" "$trivy_bin (static)"
printf '  %-9s %-8s %s\n' rules batlehub "$rules_dst"
