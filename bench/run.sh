#!/usr/bin/env bash
# bench/run.sh BUILD_DIR: runs the benchmarks a build produced, each beside its anchor.
# Builds nothing (`make bench` builds first). Timing misses are printed, never an exit code;
# a non-zero exit means a benchmark could not run or its output was wrong.
#
#   BATLEHUB_BENCH_DIR  a tmpfs directory for the archive and the runs (default /dev/shm)
#   BENCH_REPS          repetitions of each measured command of bench_extract (default 5)
#   BENCH_RUNTIME_REPS  repetitions of each measured run of bench_runtimes (default 30)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$1
bench=$build/bench/bench_extract
runtimes=$build/bench/bench_runtimes
agent=$build/src/agent/batlehub-sandbox
for f in "$bench" "$runtimes" "$agent"; do
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
echo "== bench_worker ($(date -u +%Y-%m-%dT%H:%MZ))"
"$(dirname "$0")/bench_worker.sh" "$build"
