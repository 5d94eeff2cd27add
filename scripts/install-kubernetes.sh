#!/usr/bin/env bash
# Builds the local Kubernetes the `kubernetes` runtime's tests will run on (issue 14), and
# helm, from the Go module proxy, cached by version outside the tree. Idempotent: a kept
# machine never rebuilds.
#
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kubectl  v1.37.2
#       k8s.io/kubernetes at that tag, each of its k8s.io/* staging modules (its go.mod's
#       `=> ./staging/...` lines) replaced by the published v0.37.2, built static
#       (CGO_ENABLED=0) into /opt/batlehub/peers/kubernetes-1.37.2/bin
#   helm v3.21.4  into /opt/batlehub/peers/helm-3.21.4/helm
#
# Cold, on 2 cores: kube-apiserver ~17 min, then the other four ~5 min (a shared build
# cache), helm ~2 min. `make peers` (and so `make test`) runs it.
# Environment: GO (default: `go` on PATH, else /usr/local/go/bin/go).
set -euo pipefail
prefix=/opt/batlehub/peers
K8S_VERSION=1.37.2
HELM_VERSION=3.21.4
k8s_dir="$prefix/kubernetes-$K8S_VERSION"
helm_dir="$prefix/helm-$HELM_VERSION"
commands=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)

say() { echo "install-kubernetes: $*"; }
die() { echo "install-kubernetes: $*" >&2; exit 1; }

go_bin="${GO:-}"
if [ -z "$go_bin" ]; then
  if command -v go >/dev/null 2>&1; then go_bin="$(command -v go)"; else go_bin=/usr/local/go/bin/go; fi
fi

missing=()
for c in "${commands[@]}"; do [ -x "$k8s_dir/bin/$c" ] || missing+=("$c"); done

# Each binary is written whole or not at all: it is built in a scratch directory and
# renamed into place, so an interrupted build never looks installed.
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || die "must run as root to install Kubernetes $K8S_VERSION into $k8s_dir"
  [ -x "$go_bin" ] || die "Kubernetes is built from the Go module proxy; no 'go' found (set GO=/path/to/go)"
  mkdir -p "$prefix"
  scratch="$(mktemp -d "$prefix/.kubernetes-build.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
  cd "$scratch"
  export GOFLAGS=-mod=mod CGO_ENABLED=0
  gomod="$("$go_bin" mod download -json "k8s.io/kubernetes@v$K8S_VERSION" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["GoMod"])')"
  staging="v0.${K8S_VERSION#1.}"
  {
    echo "module local/batlehub-k8s"
    echo
    echo "go $(awk '/^go /{print $2}' "$gomod")"
    echo
    echo "require k8s.io/kubernetes v$K8S_VERSION"
    echo
    echo "replace ("
    grep -E '=> \./staging' "$gomod" | awk -v v="$staging" '{print "\t" $1 " => " $1 " " v}'
    echo ")"
  } > go.mod
  {
    echo "//go:build tools"
    echo
    echo "package tools"
    echo
    echo "import ("
    for c in "${commands[@]}"; do echo "	_ \"k8s.io/kubernetes/cmd/$c\""; done
    echo ")"
  } > tools.go
  "$go_bin" mod tidy
  mkdir -p bin "$k8s_dir/bin"
  for c in "${missing[@]}"; do
    t0=$(date +%s)
    "$go_bin" build -trimpath -ldflags "-s -w" -o "bin/$c" "k8s.io/kubernetes/cmd/$c"
    chmod a+rx "bin/$c"
    mv "bin/$c" "$k8s_dir/bin/$c"
    say "$c $K8S_VERSION built in $(( $(date +%s) - t0 ))s"
  done
  chmod -R a+rX "$k8s_dir"
  cd /
fi

if [ ! -x "$helm_dir/helm" ]; then
  [ "$(id -u)" -eq 0 ] || die "must run as root to install helm $HELM_VERSION into $helm_dir"
  t0=$(date +%s)
  scratch_helm="$(mktemp -d "$prefix/.helm-build.XXXXXX")"
  CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$scratch_helm" \
    "$go_bin" install -trimpath -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION"
  rm -rf "$helm_dir"
  mkdir -p "$helm_dir"
  mv "$scratch_helm/helm" "$helm_dir/helm"
  rm -rf "$scratch_helm"
  say "helm $HELM_VERSION built in $(( $(date +%s) - t0 ))s"
fi

say "installed:"
for c in "${commands[@]}"; do printf '  %-24s %-8s %s\n' "$c" "$K8S_VERSION" "$k8s_dir/bin/$c"; done
printf '  %-24s %-8s %s\n' helm "$HELM_VERSION" "$helm_dir/helm"
