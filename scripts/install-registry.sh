#!/usr/bin/env bash
# Builds the CNCF Distribution registry, the OCI registry the tests push images to and every
# engine pulls from by digest (scripts/registry-peer.sh runs it on loopback), from the Go
# module proxy. As root; cached by version outside the tree, written whole or not at all;
# idempotent.
#
#   github.com/distribution/distribution/v3 v3.1.2, package ./cmd/registry
#       -> /opt/batlehub/peers/registry-3.1.2/registry
#
# Why this one: it is the reference implementation of the OCI distribution spec (what Docker
# Hub, GHCR and Harbor speak), Apache-2.0, and the newest release the proxy serves here. Debian
# 12's docker-registry is the same project at 2.8.2 (2023), and its package enables a service
# listening on every address at :5000; the tests want a server they start on 127.0.0.1 and
# throw away.
#
# Built from a copy of the module with its own go.sum, static (CGO_ENABLED=0). Cold build on
# 2 cores: a few minutes. Environment: GO (default: `go` on PATH, else /usr/local/go/bin/go).
set -euo pipefail
prefix=/opt/batlehub/peers
MODULE=github.com/distribution/distribution/v3
VERSION=3.1.2
# `go mod download -json github.com/distribution/distribution/v3@v3.1.2` .Sum (also checked by the checksum database).
SUM=h1:/Bv2YIqqSR00HiO49FT93hovy6r9IlrzwUDsJjCN5qg=
dir="$prefix/registry-$VERSION"
bin="$dir/registry"

say() { echo "install-registry: $*"; }
die() { echo "install-registry: $*" >&2; exit 1; }

if [ -x "$bin" ]; then
  say "installed: registry $VERSION $bin"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root to install the registry into $dir"
. "$(dirname "${BASH_SOURCE[0]}")/go-module-build.sh"
find_go registry

t0=$(date +%s)
mkdir -p "$prefix"
scratch="$(mktemp -d "$prefix/.registry-build.XXXXXX")"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
say "building $MODULE@v$VERSION ./cmd/registry with $("$go_bin" version)"
go_module_source "$MODULE" "v$VERSION" "$SUM" "$scratch/src"
cd "$scratch/src"
CGO_ENABLED=0 GOFLAGS=-mod=mod "$go_bin" build -p 2 -trimpath \
  -ldflags "-s -w -X $MODULE/version.version=v$VERSION" \
  -o "$scratch/registry" ./cmd/registry
"$scratch/registry" --version 2>&1 | grep -q "v$VERSION" || die "the built registry does not say v$VERSION (--version)"
cd /
install_whole "$scratch/registry" "$dir" registry
say "built in $(( $(date +%s) - t0 ))s"
say "installed: registry $VERSION $bin"
