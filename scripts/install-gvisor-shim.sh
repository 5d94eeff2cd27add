#!/usr/bin/env bash
# Builds gVisor's containerd shim, `containerd-shim-runsc-v1`, which the test cluster's
# containerd needs for the RuntimeClass `gvisor` (scripts/k8s-peer.sh) and which Debian's
# package `runsc` (0.0~20221219.0, /usr/bin/runsc, the runtime itself) does not ship. As
# root; cached by version outside the tree, written whole or not at all; idempotent.
#
#   gvisor.dev/gvisor v0.0.0-20221203005347-703fd9b7fbc0, package ./shim
#       -> /opt/batlehub/peers/gvisor-shim-20221203005347-703fd9b7fbc0-bh1/containerd-shim-runsc-v1
#
# Why that version: the shim drives the runsc binary through its command line, so it should be
# of the runsc it drives (Debian's, from gVisor's release-20221219.0). gVisor tags no semver
# releases, so the Go module proxy serves pseudo-versions of its `go` branch only, and here
# only some of them: v0.0.0-20221220191351-8ea7ab01ea4e answers 403 ("This module version is
# not available"), as do `@go` and `@master`; v0.0.0-20221203005347-703fd9b7fbc0 (16 days
# before Debian's runsc) is served and is the nearest. The newest shim (v0.0.0-20260905035102-
# 160fafc42237) builds but speaks the shim bootstrap protocol of containerd 1.7+: Debian's
# containerd 1.6 fails it with `dial unix {"version":2,"address":…}: connect: invalid argument`.
#
# Three patches, each checked to have applied (the build fails closed otherwise), all to make
# a 2022 source build and run with this machine's Go (1.26) and without CAP_SYS_RESOURCE:
#  1. pkg/sync, pkg/gohacks, pkg/goid carry `!go1.21` build constraints (they reach into the Go
#     runtime by go:linkname and were only vetted up to Go 1.20), which leave those packages
#     empty on Go 1.26. The constraints are lifted and the link runs with -checklinkname=0;
#     pkg/sync's amd64 wake-suppression (a hard-coded offset into the runtime's scheduler) is
#     left out instead (its portable fallback is built). The shim itself never parks a
#     goroutine through these (they serve the sentry, which is not in this binary's path);
#     the goroutine id offset (152 on amd64) is the same on Go 1.26 as on 1.20.
#  2. The shim sets its own oom_score_adj to -999 and fails when it cannot: lowering a score
#     needs CAP_SYS_RESOURCE, which root lacks on these machines ("failed to set OOM Score on
#     shim: write /proc/PID/oom_score_adj: permission denied"). It calls containerd's
#     AdjustOOMScore instead (containerd's score + 1, only ever raising it), as containerd's
#     own runc shim does.
#  3. The shim runs `runsc create` with its output captured into a buffer, and the sandbox and
#     gofer that `runsc create` leaves running inherit that pipe, so os/exec's Wait waits for
#     an EOF that never comes (seen: the shim stuck in exec.(*Cmd).awaitGoroutines under
#     runsc.cmdOutput from Create, every pod stuck in ContainerCreating). The command gets a
#     WaitDelay of 200 ms (Go 1.20+): the exit status comes from the shim's reaper; the delay
#     only bounds the wait for output already written.
#
# Cold build on 2 cores: ~1 min (the module and its dependencies from the Go module proxy, then
# ~110 gVisor packages). Environment: GO (default: `go` on PATH, else /usr/local/go/bin/go).
set -euo pipefail
prefix=/opt/batlehub/peers
GVISOR_MODULE=gvisor.dev/gvisor
GVISOR_VERSION=v0.0.0-20221203005347-703fd9b7fbc0
# `go mod download -json gvisor.dev/gvisor@$GVISOR_VERSION` .Sum (also checked by the checksum database).
GVISOR_SUM=h1:Wobr37noukisGxpKo5jAsLREcpj61RxrWYzD8uwveOY=
PATCH_LEVEL=bh1  # bump when the patches below change: a new directory, a new build
shim_dir="$prefix/gvisor-shim-${GVISOR_VERSION#v0.0.0-}-$PATCH_LEVEL"
shim_bin="$shim_dir/containerd-shim-runsc-v1"

say() { echo "install-gvisor-shim: $*"; }
die() { echo "install-gvisor-shim: $*" >&2; exit 1; }

if [ -x "$shim_bin" ]; then
  say "installed: containerd-shim-runsc-v1 ($GVISOR_MODULE $GVISOR_VERSION, patches $PATCH_LEVEL) $shim_bin"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root to install the gVisor shim into $shim_dir"
. "$(dirname "${BASH_SOURCE[0]}")/go-module-build.sh"
find_go "the gVisor shim"

t0=$(date +%s)
mkdir -p "$prefix"
scratch="$(mktemp -d "$prefix/.gvisor-shim-build.XXXXXX")"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
say "building $GVISOR_MODULE@$GVISOR_VERSION ./shim with $("$go_bin" version)"

go_module_source "$GVISOR_MODULE" "$GVISOR_VERSION" "$GVISOR_SUM" "$scratch/src"
cd "$scratch/src"

# patch FILE SED-EXPRESSION GREP-PATTERN: apply, then require the pattern in the result.
patch_file() {
  local f=$1 expr=$2 want=$3
  [ -f "$f" ] || die "patch: $f is not in $GVISOR_VERSION"
  sed -i -e "$expr" "$f"
  grep -qF -- "$want" "$f" || die "patch: $f did not take '$expr'"
}
# 1. Go 1.21+ may build the runtime-reaching files; amd64 takes the portable wake path.
for f in pkg/sync/runtime_unsafe.go pkg/gohacks/gohacks_unsafe.go pkg/goid/goid.go; do
  patch_file "$f" 's/ \&\& !go1\.21//; s/,!go1\.21//' '//go:build go1.1'
  ! grep -q '!go1\.21' "$f" || die "patch: $f still excludes go1.21"
done
grep -q '^//go:build amd64 && go1.8 && !go1.21' pkg/sync/runtime_amd64.go ||
  die "patch: pkg/sync/runtime_amd64.go is not gated on !go1.21 as expected"
patch_file pkg/sync/runtime_other.go 's|^//go:build !amd64$|//go:build !amd64 \|\| go1.21|; s|^// +build !amd64$|// +build !amd64 go1.21|' \
  '//go:build !amd64 || go1.21'
# 2. Raise the shim's OOM score relative to containerd's instead of lowering it to -999.
patch_file pkg/shim/service.go 's/shim\.SetScore(cmd\.Process\.Pid)/shim.AdjustOOMScore(cmd.Process.Pid)/' \
  'shim.AdjustOOMScore(cmd.Process.Pid)'
# 3. Bound the wait for the captured output of a runsc command whose children keep the pipe.
patch_file pkg/shim/runsc/runsc.go \
  's/^func cmdOutput(cmd \*exec.Cmd, combined bool) (\[\]byte, \[\]byte, error) {$/&\n\tcmd.WaitDelay = 200 * time.Millisecond \/\/ batlehub: the sandbox and gofer keep the pipe/' \
  'cmd.WaitDelay = 200 * time.Millisecond'

CGO_ENABLED=0 GOFLAGS=-mod=mod "$go_bin" build -p 2 -trimpath -ldflags "-s -w -checklinkname=0" \
  -o "$scratch/containerd-shim-runsc-v1" ./shim
"$scratch/containerd-shim-runsc-v1" -v >/dev/null 2>&1 || die "the built shim does not run (-v)"
cd /
install_whole "$scratch/containerd-shim-runsc-v1" "$shim_dir" containerd-shim-runsc-v1
say "built in $(( $(date +%s) - t0 ))s"
say "installed: containerd-shim-runsc-v1 ($GVISOR_MODULE $GVISOR_VERSION, patches $PATCH_LEVEL) $shim_bin"
