#!/usr/bin/env bash
# Installs the test peers that are not Debian packages (as root, on Debian 12), each at a
# pinned version, cached by version outside the tree. Idempotent, and fast when everything
# is already there:
#
#   versitygw 1.8.0   an S3 server (Apache-2.0) the storage tests run on loopback
#                     (scripts/s3-peer.sh), built from the Go module proxy into
#                     /opt/batlehub/peers/versitygw-1.8.0/versitygw
#   SARIF Multitool 5.7.0
#                     the official SARIF validator (MIT, @microsoft/sarif-multitool-linux
#                     from the npm registry, its tarball checked against the integrity hash
#                     pinned here), which the SARIF test runs on `batlehub scan --format sarif`:
#                     /opt/batlehub/peers/sarif-multitool-5.7.0/Sarif.Multitool
#   kube-router 2.1.0 the test cluster's NetworkPolicy engine (scripts/install-kube-router.sh):
#                     /opt/batlehub/peers/kube-router-2.1.0/kube-router
#   containerd-shim-runsc-v1 (gVisor v0.0.0-20221203005347-703fd9b7fbc0)
#                     the test cluster's RuntimeClass gvisor (scripts/install-gvisor-shim.sh):
#                     /opt/batlehub/peers/gvisor-shim-20221203005347-703fd9b7fbc0-bh1/
#   registry 3.1.2    the CNCF Distribution registry, the OCI registry the tests push images to
#                     and every engine pulls them from by digest (scripts/install-registry.sh,
#                     scripts/registry-peer.sh): /opt/batlehub/peers/registry-3.1.2/registry
#   otelcol 0.165.0   an OpenTelemetry Collector (Apache-2.0; otlp receiver, debug exporter) that
#                     the worker's OTLP/HTTP spans are sent to (scripts/install-otelcol.sh, from
#                     tests/peers/otelcol): /opt/batlehub/peers/otelcol-0.165.0/otelcol
#
# Environment: GO (default: `go` on PATH, else /usr/local/go/bin/go); NPM (default: `npm`).
set -euo pipefail
prefix=/opt/batlehub/peers

VERSITYGW_VERSION=1.8.0
VERSITYGW_MODULE=github.com/versity/versitygw
versitygw_dir="$prefix/versitygw-$VERSITYGW_VERSION"
versitygw_bin="$versitygw_dir/versitygw"

SARIF_MULTITOOL_VERSION=5.7.0
SARIF_MULTITOOL_PACKAGE=@microsoft/sarif-multitool-linux
# `npm view @microsoft/sarif-multitool-linux@5.7.0 dist.integrity`
SARIF_MULTITOOL_INTEGRITY=sha512-NxUbpq6ISCWoTQ/NfOYEwEDKq1Heka/rMoJ5R5LMydcAZQX/X7g5mWHcgxDub+0M07LC96tZ5LZHvF1Qy3gjTA==
sarif_dir="$prefix/sarif-multitool-$SARIF_MULTITOOL_VERSION"
sarif_bin="$sarif_dir/Sarif.Multitool"

scratches=()
cleanup() { rm -rf "${scratches[@]}"; }
trap cleanup EXIT

say() { echo "install-peers: $*"; }
die() { echo "install-peers: $*" >&2; exit 1; }

# A version-named directory is written whole or not at all: the build goes to a scratch
# directory and is renamed into place, so an interrupted build never looks installed.
if [ ! -x "$versitygw_bin" ]; then
  [ "$(id -u)" -eq 0 ] || die "must run as root to install versitygw $VERSITYGW_VERSION into $versitygw_dir"
  go_bin="${GO:-}"
  if [ -z "$go_bin" ]; then
    if command -v go >/dev/null 2>&1; then go_bin="$(command -v go)"; else go_bin=/usr/local/go/bin/go; fi
  fi
  [ -x "$go_bin" ] || die "versitygw is built from the Go module proxy; no 'go' found (set GO=/path/to/go)"
  t0=$(date +%s)
  say "versitygw $VERSITYGW_VERSION: building $VERSITYGW_MODULE/cmd/versitygw@v$VERSITYGW_VERSION with $("$go_bin" version)"
  mkdir -p "$prefix"
  scratch="$(mktemp -d "$prefix/.versitygw-build.XXXXXX")"
  scratches+=("$scratch")
  CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$scratch" \
    "$go_bin" install -trimpath -ldflags "-s -w" "$VERSITYGW_MODULE/cmd/versitygw@v$VERSITYGW_VERSION"
  [ -x "$scratch/versitygw" ] || die "go install left no versitygw binary"
  rm -rf "$versitygw_dir"
  mkdir -p "$versitygw_dir"
  mv "$scratch/versitygw" "$versitygw_bin"
  chmod 0755 "$versitygw_dir" "$versitygw_bin"
  say "versitygw built in $(( $(date +%s) - t0 ))s"
fi

# The validator is a self-contained .NET program in one file (no runtime to install); run
# with DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 it needs no ICU either. The tarball is
# fetched with npm (`npm pack`, the registry npm is configured for), its sha512 compared with
# the pinned integrity before anything is unpacked, and its package/ renamed into place
# whole. npm's install scripts are not run (the package's only one is a chmod, done here).
if [ ! -x "$sarif_bin" ]; then
  [ "$(id -u)" -eq 0 ] || die "must run as root to install the SARIF Multitool $SARIF_MULTITOOL_VERSION into $sarif_dir"
  npm_bin="${NPM:-npm}"
  command -v "$npm_bin" >/dev/null 2>&1 ||
    die "the SARIF Multitool comes from the npm registry; no 'npm' found (install Node.js's npm, or set NPM=/path/to/npm)"
  t0=$(date +%s)
  say "SARIF Multitool $SARIF_MULTITOOL_VERSION: npm pack $SARIF_MULTITOOL_PACKAGE@$SARIF_MULTITOOL_VERSION"
  mkdir -p "$prefix"
  scratch="$(mktemp -d "$prefix/.sarif-multitool.XXXXXX")"
  scratches+=("$scratch")
  tgz="$(cd "$scratch" && "$npm_bin" pack --silent --ignore-scripts "$SARIF_MULTITOOL_PACKAGE@$SARIF_MULTITOOL_VERSION" | tail -n1)"
  [ -f "$scratch/$tgz" ] || die "npm pack left no tarball for $SARIF_MULTITOOL_PACKAGE@$SARIF_MULTITOOL_VERSION"
  got="sha512-$(openssl dgst -sha512 -binary "$scratch/$tgz" | base64 -w0)"
  [ "$got" = "$SARIF_MULTITOOL_INTEGRITY" ] ||
    die "$SARIF_MULTITOOL_PACKAGE@$SARIF_MULTITOOL_VERSION: integrity $got, expected $SARIF_MULTITOOL_INTEGRITY"
  mkdir "$scratch/unpacked"
  tar -xzf "$scratch/$tgz" -C "$scratch/unpacked" --no-same-owner
  [ -f "$scratch/unpacked/package/Sarif.Multitool" ] || die "the tarball has no package/Sarif.Multitool"
  chmod -R u=rwX,go=rX "$scratch/unpacked/package"
  chmod 0755 "$scratch/unpacked/package/Sarif.Multitool"
  got="$(DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$scratch/unpacked/package/Sarif.Multitool" --version 2>&1 | head -n1)"
  case "$got" in
    "SARIF Multitool $SARIF_MULTITOOL_VERSION"*) ;;
    *) die "Sarif.Multitool --version printed '$got', expected SARIF Multitool $SARIF_MULTITOOL_VERSION" ;;
  esac
  rm -rf "$sarif_dir"
  mv "$scratch/unpacked/package" "$sarif_dir"
  say "SARIF Multitool installed in $(( $(date +%s) - t0 ))s"
fi

# The test cluster's pieces that are built, each by its own script (pinned, cached by version).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/install-kube-router.sh"
"$here/install-gvisor-shim.sh"
# The tests' OCI registry (scripts/registry-peer.sh), from the Go module proxy.
"$here/install-registry.sh"
# The tracing tests' OTLP peer, built from tests/peers/otelcol (pinned by go.mod and go.sum).
"$here/install-otelcol.sh"

say "installed:"
printf '  %-15s %-8s %s\n' versitygw "$VERSITYGW_VERSION" "$versitygw_bin"
printf '  %-15s %-8s %s\n' sarif-multitool "$SARIF_MULTITOOL_VERSION" "$sarif_bin"
