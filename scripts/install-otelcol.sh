#!/usr/bin/env bash
# Builds the tests' OpenTelemetry Collector (Apache-2.0), the peer the worker's spans are sent
# to (src/server/service/tracing.h: OTLP/HTTP, JSON encoding, POST …/v1/traces): a real OTLP
# implementation that parses what the worker sends and prints it, rather than a stand-in that
# only echoes what we think OTLP is. Debian packages no collector and its release binaries are
# downloads these machines cannot reach, so the distribution is ours and minimal, built from
# the Go module proxy's collector modules: tests/peers/otelcol (main.go,
# go.mod, go.sum): receiver `otlp`, exporter `debug`, config from a file or inline YAML
# (confmap providers file and yaml), the telemetry factory otelcol requires, nothing else.
# As root; cached by version outside the tree, written whole or not at all; idempotent.
#
#   go.opentelemetry.io/collector v0.165.0 (its v1.x modules: v1.71.0), tests/peers/otelcol
#       -> /opt/batlehub/peers/otelcol-0.165.0/otelcol
#
# Every module comes from the Go module proxy at the version go.mod names and is checked
# against go.sum (-mod=readonly: a missing or different hash fails the build; the checksum
# database checks each download too). To move to another release, change every collector
# module in go.mod together (one release: v0.N.0 goes with one v1.M.0), `go mod tidy`, and
# VERSION here and in main.go; the directory is named by VERSION, so a change to main.go at
# the same release also needs a new VERSION (or the directory removed) to be rebuilt.
#
# Static (CGO_ENABLED=0), -trimpath. Module and build caches: go's defaults (root's
# ~/go/pkg/mod and ~/.cache/go-build), as for the other peers; GOMODCACHE and GOCACHE are
# honoured. Cold build on 2 cores: ~2.5 min (182 modules from the proxy, 134 MB of zips, ~490 MB
# in the module cache, ~600 MB of build cache), a 36 MB binary. Most of those modules come with
# otelconftelemetry (otelconf's resource detectors: AWS, k8s client), linked but never run: a
# config that names no detector starts none. Environment: GO (default: `go` on PATH, else
# /usr/local/go/bin/go).
set -euo pipefail
prefix=/opt/batlehub/peers
VERSION=0.165.0
dir="$prefix/otelcol-$VERSION"
bin="$dir/otelcol"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/../tests/peers/otelcol"

say() { echo "install-otelcol: $*"; }
die() { echo "install-otelcol: $*" >&2; exit 1; }

if [ -x "$bin" ]; then
  say "installed: otelcol $VERSION $bin"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root to install otelcol into $dir"
. "$here/go-module-build.sh"
find_go otelcol

# The release named here is the one go.mod pins and main.go reports.
grep -qE "^[[:space:]]go\.opentelemetry\.io/collector/otelcol v$VERSION\$" "$src/go.mod" ||
  die "$src/go.mod does not require go.opentelemetry.io/collector/otelcol v$VERSION"
grep -qF "const version = \"$VERSION\"" "$src/main.go" ||
  die "$src/main.go does not say version $VERSION"

t0=$(date +%s)
mkdir -p "$prefix"
scratch="$(mktemp -d "$prefix/.otelcol-build.XXXXXX")"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
say "building tests/peers/otelcol (collector v$VERSION) with $("$go_bin" version)"
# A copy of exactly the three files: the build sees no work tree, no VCS, nothing else.
mkdir "$scratch/src"
cp "$src/main.go" "$src/go.mod" "$src/go.sum" "$scratch/src/"
cd "$scratch/src"
CGO_ENABLED=0 GOFLAGS=-mod=readonly GOTOOLCHAIN=local "$go_bin" build -p 2 -trimpath -buildvcs=false \
  -ldflags "-s -w" -o "$scratch/otelcol" .
got="$("$scratch/otelcol" --version 2>&1)" || die "the built otelcol does not run (--version): $got"
[ "$got" = "otelcol version $VERSION" ] || die "the built otelcol says '$got', expected 'otelcol version $VERSION'"
cd /
install_whole "$scratch/otelcol" "$dir" otelcol
say "built in $(( $(date +%s) - t0 ))s"
say "installed: otelcol $VERSION $bin"
