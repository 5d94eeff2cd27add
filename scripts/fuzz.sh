#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each, starting from the committed seed corpus.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS        (make fuzz: SECONDS=60; make fuzz-long: 3600)
#
#   FUZZ_JOBS  targets fuzzed at once (default: the machine's cores, nproc). Each libFuzzer
#              run is one process on one core: two cores fuzz two targets in the time of one,
#              each still for its full SECONDS.
#
# BUILD_DIR is a build of the `fuzz` preset (build/fuzz). Each target fuzzes a throwaway
# copy of tests/fuzz/corpus/<target>/ (the committed corpus is never written to); a crash,
# a sanitizer report, an oracle's __builtin_trap(), a leak or a timeout leaves its input in
# tests/fuzz/artifacts/<target>-* and the run's log beside it, and fails the script.
set -euo pipefail

targets=(fuzz_manifest fuzz_result fuzz_extract fuzz_out_tar fuzz_cgroup fuzz_metadata fuzz_s3_xml fuzz_pod_state fuzz_config fuzz_aws_credentials fuzz_queue_rows
  fuzz_osv fuzz_socket_ndjson fuzz_sigstore_bundle fuzz_mlab fuzz_signals fuzz_behavior_sent fuzz_behavior_tls fuzz_behavior_trace)

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
if [ ! -d "$1" ]; then
  echo "fuzz: no build directory '$1'; build the fuzz preset first" >&2
  echo "      (cmake --preset fuzz && cmake --build --preset fuzz -j 2)" >&2
  exit 2
fi
build_dir="$(cd "$1" && pwd)"
seconds="$2"
case "$seconds" in
  '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;;
esac

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
artifacts="tests/fuzz/artifacts"
mkdir -p "$artifacts"

for t in "${targets[@]}"; do
  if [ ! -x "$build_dir/tests/fuzz/$t" ]; then
    echo "fuzz: $build_dir/tests/fuzz/$t is missing; build the fuzz preset first" >&2
    echo "      (cmake --preset fuzz && cmake --build --preset fuzz -j 2)" >&2
    exit 2
  fi
  if [ ! -d "tests/fuzz/corpus/$t" ]; then
    echo "fuzz: tests/fuzz/corpus/$t is missing (python3 tests/fuzz/make_corpus.py makes it)" >&2
    exit 2
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/batlehub-fuzz.XXXXXX")"
# fuzz_extract's scratch space: in memory when /dev/shm is there, and removed here even
# when a crash skipped the target's own clean-up.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  scratch="$(mktemp -d /dev/shm/batlehub-fuzz.XXXXXX)"
else
  scratch="$work/scratch"
  mkdir -p "$scratch"
fi
trap 'rm -rf "$work" "$scratch"' EXIT
export BATLEHUB_FUZZ_SCRATCH="$scratch"

# UBSan only reports by default; make undefined behaviour a crash libFuzzer saves. Leaks
# count (libFuzzer's -detect_leaks is on by default under ASan).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}"

# One final-stats value from a libFuzzer log ("stat::number_of_executed_units: 1234").
stat_of() {
  sed -n "s/^stat::$2: *\([0-9][0-9]*\).*/\1/p" "$1" | tail -n 1
}

jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
case "$jobs" in
  '' | *[!0-9]* | 0) echo "fuzz: FUZZ_JOBS must be a positive whole number, not '$jobs'" >&2; exit 2 ;;
esac
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time, from $build_dir"

# One target: its exit code and seconds go to $work/<target>.rc and .elapsed.
fuzz_one() {
  local t=$1 corpus="$work/$1-corpus" log="$work/$1.log" start rc
  start=$(date +%s)
  if "$build_dir/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
       -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$corpus" >"$log" 2>&1; then
    rc=0
  else
    rc=$?
  fi
  echo "$rc" >"$work/$t.rc"
  echo $(($(date +%s) - start)) >"$work/$t.elapsed"
}

running=0
for t in "${targets[@]}"; do
  corpus="$work/$t-corpus"
  mkdir -p "$corpus"
  cp -R "tests/fuzz/corpus/$t/." "$corpus/"
  seeds=$(find "$corpus" -type f | wc -l)
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  printf 'fuzz: %-14s running (%d seeds)...\n' "$t" "$seeds"
  fuzz_one "$t" &
  running=$((running + 1))
done
wait || true

passed=0
failed=0
failed_names=()
summary=()
for t in "${targets[@]}"; do
  corpus="$work/$t-corpus"
  log="$work/$t.log"
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo 125)
  elapsed=$(cat "$work/$t.elapsed" 2>/dev/null || echo '?')
  execs=$(stat_of "$log" number_of_executed_units)
  new_units=$(stat_of "$log" new_units_added)
  rss=$(stat_of "$log" peak_rss_mb)
  line=$(printf '%-14s %-6s %10s execs  %5s new units  %5s MB peak  %4ss' \
    "$t" "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)" "${execs:-?}" "${new_units:-?}" "${rss:-?}" "$elapsed")
  summary+=("$line")

  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_names+=("$t")
    cp "$log" "$artifacts/$t.log" 2>/dev/null || true
    echo "fuzz: $t FAILED (exit $rc); the end of its log:" >&2
    tail -n 60 "$log" 2>/dev/null | sed 's/^/    | /' >&2
    found=$(find "$artifacts" -maxdepth 1 -type f -name "$t-*" -newer "$corpus" | sort)
    if [ -n "$found" ]; then
      echo "fuzz: reproduce with: $build_dir/tests/fuzz/$t <artifact>; artifacts:" >&2
      echo "$found" | sed 's/^/    /' >&2
    fi
    echo "fuzz: full log: $artifacts/$t.log" >&2
  fi
done

echo
echo "fuzz: summary"
for line in "${summary[@]}"; do
  echo "  $line"
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: failed: ${failed_names[*]}"
fi
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
