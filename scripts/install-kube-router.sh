#!/usr/bin/env bash
# Builds kube-router, the NetworkPolicy engine of the test cluster (scripts/k8s-peer.sh runs it
# firewall-only: iptables and ipset, no routing, no service proxy), from the Go module proxy.
# As root; cached by version outside the tree, written whole or not at all; idempotent.
#
#   github.com/cloudnativelabs/kube-router/v2 v2.1.0, package ./cmd/kube-router
#       -> /opt/batlehub/peers/kube-router-2.1.0/kube-router
#
# Why kube-router, and why 2.1.0: this machine's kernel (6.18, everything built in, no modules)
# lacks CONFIG_NFT_QUEUE, so kube-network-policies, which queues packets with nft `queue`, cannot
# run (`nft add rule inet t c meta l4proto tcp queue num 100 bypass`: "Error: Could not process
# rule: No such file or directory"); kube-router's firewall is iptables (filter, xt_set,
# conntrack, comment, physdev, NFLOG) and ipset, all of which this kernel has. The Go module
# proxy here serves v2.1.0 of it and refuses newer versions (403). Security advisories exist for
# 2.1.0; it runs here only inside the tests' throwaway cluster, on loopback and a pod bridge that
# never leaves the machine.
#
# Built from a copy of the module with its own go.sum (the versions kube-router pinned), static
# (CGO_ENABLED=0). Cold build on 2 cores: ~4 min. Environment: GO (default: `go` on PATH, else
# /usr/local/go/bin/go).
set -euo pipefail
prefix=/opt/batlehub/peers
MODULE=github.com/cloudnativelabs/kube-router/v2
VERSION=2.1.0
# `go mod download -json github.com/cloudnativelabs/kube-router/v2@v2.1.0` .Sum (also checked by the checksum database).
SUM=h1:xWsptKtmZ44L+NjwFKoFAFlVdxCz8fka9A/eYJe95Ok=
dir="$prefix/kube-router-$VERSION"
bin="$dir/kube-router"

say() { echo "install-kube-router: $*"; }
die() { echo "install-kube-router: $*" >&2; exit 1; }

if [ -x "$bin" ]; then
  say "installed: kube-router $VERSION $bin"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root to install kube-router into $dir"
. "$(dirname "${BASH_SOURCE[0]}")/go-module-build.sh"
find_go kube-router

t0=$(date +%s)
mkdir -p "$prefix"
scratch="$(mktemp -d "$prefix/.kube-router-build.XXXXXX")"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
say "building $MODULE@v$VERSION ./cmd/kube-router with $("$go_bin" version)"
go_module_source "$MODULE" "v$VERSION" "$SUM" "$scratch/src"
cd "$scratch/src"
CGO_ENABLED=0 GOFLAGS=-mod=mod "$go_bin" build -p 2 -trimpath \
  -ldflags "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=v$VERSION" \
  -o "$scratch/kube-router" ./cmd/kube-router
"$scratch/kube-router" --version >/dev/null 2>&1 || die "the built kube-router does not run (--version)"
cd /
install_whole "$scratch/kube-router" "$dir" kube-router
say "built in $(( $(date +%s) - t0 ))s"
say "installed: kube-router $VERSION $bin"
