#!/usr/bin/env bash
# Installs the test peers that are not Debian packages (as root, on Debian 12), each at a
# pinned version, cached by version outside the tree. Idempotent, and fast when everything
# is already there:
#
#   versitygw 1.8.0   an S3 server (Apache-2.0) the storage tests run on loopback
#                     (scripts/s3-peer.sh), built from the Go module proxy into
#                     /opt/batlehub/peers/versitygw-1.8.0/versitygw
#
# Environment: GO (default: `go` on PATH, else /usr/local/go/bin/go).
set -euo pipefail
prefix=/opt/batlehub/peers

VERSITYGW_VERSION=1.8.0
VERSITYGW_MODULE=github.com/versity/versitygw
versitygw_dir="$prefix/versitygw-$VERSITYGW_VERSION"
versitygw_bin="$versitygw_dir/versitygw"

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
  trap 'rm -rf "$scratch"' EXIT
  CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$scratch" \
    "$go_bin" install -trimpath -ldflags "-s -w" "$VERSITYGW_MODULE/cmd/versitygw@v$VERSITYGW_VERSION"
  [ -x "$scratch/versitygw" ] || die "go install left no versitygw binary"
  rm -rf "$versitygw_dir"
  mkdir -p "$versitygw_dir"
  mv "$scratch/versitygw" "$versitygw_bin"
  chmod 0755 "$versitygw_dir" "$versitygw_bin"
  say "versitygw built in $(( $(date +%s) - t0 ))s"
fi

say "installed:"
printf '  %-9s %-8s %s\n' versitygw "$VERSITYGW_VERSION" "$versitygw_bin"
