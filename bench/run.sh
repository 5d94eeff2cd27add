#!/usr/bin/env bash
# bench/run.sh BUILD_DIR: runs the benchmarks a build produced, each beside its anchor.
# Builds nothing (`make bench` builds first). Timing misses are printed, never an exit code;
# a non-zero exit means a benchmark could not run or its output was wrong.
#
#   BATLEHUB_BENCH_DIR  a tmpfs directory for the archive and the runs (default /dev/shm)
#   BENCH_REPS          repetitions of each measured command of bench_extract (default 5)
#   BENCH_RUNTIME_REPS  repetitions of each measured run of bench_runtimes (default 30)
#   BENCH_OCI_REPS      repetitions of each measured run of bench_oci (default 10; a container
#                       run takes 0.3-1 s)
#   BENCH_STORAGE_REPS  repetitions of each measured run of bench_storage (default 10)
#   BENCH_K8S_REPS      repetitions of each measured pod of bench_kubernetes (default 10; a
#                       pod takes 2-3 s, a round three pods)
#   BENCH_SCAN_REPS     repetitions of each measured run of bench_scan (default 5; a round is
#                       two GuardDog scans of botocore, a probe and an extraction: ~15 s)
#   BENCH_DETONATION_ARCHIVES  archives of each ecosystem bench_detonation detonates beside
#                       GuardDog's scan (default 20; from /var/cache/batlehub-corpus/benign)
#   BENCH_REGISTRY_REPS  repetitions of each push and pull of bench_registry (default 3)
#   BENCH_SOAK_JOBS     jobs of the soak, last (bench/soak/soak.py; default 10,000: hours on
#                       2 cores; 0 leaves it out)
#
# bench_scan (a script) reads botocore's sdist from /var/cache/batlehub-corpus/scan, which a
# separate, explicit step fetches (bench/scan-package.tsv says how); it skips, saying so, when
# the file or GuardDog is missing.
#
# bench_oci and bench_storage run as root (skipped with the reason otherwise): on podman
# always, and on docker through a throwaway daemon (scripts/docker-peer.sh) in a temporary
# directory, stopped on the way out; docker is skipped, with the reason, when that daemon
# cannot start. bench_storage starts its own S3 server (versitygw) on a loopback port.
#
# bench_kubernetes also runs as root (it says it skipped, and why, otherwise, or when a binary
# of the cluster is missing): it starts its own S3 server and the single-node cluster of
# scripts/k8s-peer.sh in a temporary directory, and stops both on the way out. One cluster
# runs per machine: while another runs (someone's tests), it waits up to 10 minutes for it.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$1
bench=$build/bench/bench_extract
runtimes=$build/bench/bench_runtimes
oci=$build/bench/bench_oci
storage=$build/bench/bench_storage
k8s=$build/bench/bench_kubernetes
agent=$build/src/agent/batlehub-sandbox
scripts=$(cd "$(dirname "$0")/../scripts" && pwd)
for f in "$bench" "$runtimes" "$oci" "$storage" "$k8s" "$agent"; do
  if [[ ! -x $f ]]; then
    echo "$0: $f is missing; build first (cmake --build --preset release, or make bench)" >&2
    exit 1
  fi
done

echo "== bench_extract ($(date -u +%Y-%m-%dT%H:%MZ))"
"$bench" --agent "$agent" --reps "${BENCH_REPS:-5}"

echo
echo "== bench_runtimes ($(date -u +%Y-%m-%dT%H:%MZ))"
"$runtimes" --agent "$agent" --reps "${BENCH_RUNTIME_REPS:-30}"

echo
echo "== bench_scan ($(date -u +%Y-%m-%dT%H:%MZ))"
python3 "$(dirname "$0")/bench_scan.py" "$build" --reps "${BENCH_SCAN_REPS:-5}"

echo
echo "== bench_detonation ($(date -u +%Y-%m-%dT%H:%MZ))"
"$build/bench/bench_detonation" --agent "$agent" --per-ecosystem "${BENCH_DETONATION_ARCHIVES:-20}"

echo
echo "== bench_oci ($(date -u +%Y-%m-%dT%H:%MZ))"
if [[ $(id -u) -ne 0 ]]; then
  echo "bench_oci: skipped: it runs as root (docker's bundle dir is a mount; podman's --userns auto is root's)"
  echo
  echo "== bench_storage ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo "bench_storage: skipped: it runs as root (as bench_oci, and its relay enters a container's netns)"
else
  oci_args=(--agent "$agent" --reps "${BENCH_OCI_REPS:-10}" --engine podman)
  storage_args=(--agent "$agent" --reps "${BENCH_STORAGE_REPS:-10}" --engine podman)
  # The docker daemon is a throwaway one: its own data root and socket in a fresh directory
  # (short: the socket's path must fit a sockaddr_un), gone with everything in it on exit.
  docker_dir=$(mktemp -d /tmp/batlehub-bench-docker.XXXXXX)
  stop_docker() {
    "$scripts/docker-peer.sh" stop "$docker_dir" >/dev/null 2>&1 || true
    rm -rf -- "$docker_dir"
  }
  trap stop_docker EXIT
  if docker_host=$("$scripts/docker-peer.sh" start "$docker_dir" 2>"$docker_dir/start.err"); then
    oci_args+=(--engine docker --docker-host "$docker_host")
    storage_args+=(--engine docker --docker-host "$docker_host")
  else
    # Its first line says why; the last lines are dockerd's log, when it got that far.
    echo "bench_oci, bench_storage: docker skipped: scripts/docker-peer.sh could not start a daemon:"
    { head -n 1 "$docker_dir/start.err"; tail -n +2 "$docker_dir/start.err" | tail -n 3; } | sed 's/^/  /'
  fi
  "$oci" "${oci_args[@]}"
  echo
  echo "== bench_storage ($(date -u +%Y-%m-%dT%H:%MZ))"
  "$storage" "${storage_args[@]}"
  stop_docker
  trap - EXIT
fi

echo
echo "== bench_registry ($(date -u +%Y-%m-%dT%H:%MZ))"
python3 "$(dirname "$0")/bench_registry.py" "$build" --reps "${BENCH_REGISTRY_REPS:-3}"

echo
echo "== bench_kubernetes ($(date -u +%Y-%m-%dT%H:%MZ))"
"$k8s" --agent "$agent" --reps "${BENCH_K8S_REPS:-10}"

echo
echo "== bench_worker ($(date -u +%Y-%m-%dT%H:%MZ))"
"$(dirname "$0")/bench_worker.sh" "$build"

soak_jobs=${BENCH_SOAK_JOBS:-10000}
if [[ $soak_jobs != 0 ]]; then
  echo
  echo "== soak ($(date -u +%Y-%m-%dT%H:%MZ))"
  python3 "$(dirname "$0")/soak/soak.py" "$build" --jobs "$soak_jobs"
fi
