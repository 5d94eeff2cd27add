#!/usr/bin/env bash
# bench/bench_worker.sh BUILD_DIR: jobs per minute through `batlehub worker` (bwrap, SQLite)
# on the sample packages (examples/), with the derived sandbox pool beside one slot — the
# anchor, measured in the same run: upstream's loop runs one job, and one scanner, at a time.
# Real scanners, real rooms (GuardDog and YARA when GuardDog is installed, else YARA alone).
# Then the derived pool once more with the detonation (`behavior`) beside them, and its jobs
# per minute as a ratio of the pool's without it (issue 47): what turning it on costs.
#
#   BENCH_WORKER_COPIES  versions of each of the four samples (default 8: 32 jobs)
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
batlehub=$build/src/server/batlehub
agent=$build/src/agent/batlehub-sandbox
copies=${BENCH_WORKER_COPIES:-8}
base=${BATLEHUB_BENCH_DIR:-/dev/shm}
dir=$(mktemp -d "$base/batlehub-bench-worker.XXXXXX")
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"

scanners=(yara)
[ -x /opt/batlehub/guarddog/bin/guarddog ] && scanners=(guarddog yara)
mkdir -p "$dir/rooms"
for s in "${scanners[@]}"; do
  python3 "$here/scripts/build-room.py" --definition "$here/rooms/$s.toml" --agent "$agent" --out "$dir/rooms/$s" >/dev/null
done
behavior=$build/src/behavior/batlehub-behavior
if [ -x "$behavior" ]; then
  python3 "$here/scripts/build-room.py" --definition "$here/rooms/behavior.toml" \
    --binary "$behavior:/usr/local/bin/batlehub-behavior" --agent "$agent" --out "$dir/rooms/behavior" >/dev/null
fi
python3 "$here/examples/make-samples.py" "$dir/samples" >/dev/null
mkdir -p "$dir/npm" "$dir/pypi"
for i in $(seq 1 "$copies"); do
  cp "$dir/samples/tiny-benign-1.0.0.tgz" "$dir/npm/tiny-benign-1.0.$i.tgz"
  cp "$dir/samples/evil-pad-1.3.1.tgz" "$dir/npm/evil-pad-1.3.$i.tgz"
  cp "$dir/samples/tiny_benign-1.0.0.tar.gz" "$dir/pypi/tiny_benign-1.0.$i.tar.gz"
  cp "$dir/samples/evil_setup-0.1.0.tar.gz" "$dir/pypi/evil_setup-0.1.$i.tar.gz"
done
jobs=$((4 * copies))

# One measured run: a fresh queue, every job submitted, then the worker from ready to the
# last verdict. Prints the jobs per minute and the pool's slots. A third argument "behavior"
# adds the detonation to the scanners.
run() {
  local name=$1 worker_keys=$2 with=${3:-}
  local state=$dir/state-$name
  mkdir -p "$dir/tmp-$name" && chmod 1777 "$dir/tmp-$name"
  {
    printf '[server]\nhost = "127.0.0.1"\nport = 0\n[worker]\nstate_dir = "%s"\njob_timeout_secs = 300\n%s\n' "$state" "$worker_keys"
    printf '[storage]\ntype = "filesystem"\npath = "%s/cache"\n' "$state"
    printf '[worker.sandbox]\nrooms_dir = "%s"\nprobe_canaries = ["127.0.0.1:9"]\n' "$dir/rooms"
    for s in "${scanners[@]}"; do
      if [ "$s" = yara ]; then
        printf '[scanners.yara]\ntype = "yara"\ncommand = "yara"\nrules = "%s"\n' "$here/rooms/rules/batlehub-default.yar"
      else
        printf '[scanners.guarddog]\ntype = "guarddog"\ncommand = "guarddog"\n'
      fi
    done
    if [ "$with" = behavior ]; then
      printf '[scanners.behavior]\ntype = "behavior"\ncommand = "batlehub-behavior"\n'
    fi
  } > "$dir/$name.toml"
  # An npm tarball's file name cannot tell @scope/name from scope-name: each is named.
  local f base
  for f in "$dir"/npm/*.tgz; do
    base=$(basename "$f" .tgz)
    "$batlehub" submit --config "$dir/$name.toml" --kind npm --name "${base%-*}" --version "${base##*-}" "$f" >/dev/null
  done
  "$batlehub" submit --config "$dir/$name.toml" --kind pypi "$dir"/pypi/*.tar.gz >/dev/null
  TMPDIR=$dir/tmp-$name "$batlehub" worker --config "$dir/$name.toml" >/dev/null 2>"$dir/$name.log" &
  local pid=$!
  until grep -q 'INFO security worker: ready (' "$dir/$name.log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$dir/$name.log" >&2; exit 1; }
    sleep 0.05
  done
  local t0 t1 done_jobs
  t0=$(date +%s.%N)
  until [ "$(grep -c 'INFO span: job job=' "$dir/$name.log")" -ge "$jobs" ]; do sleep 0.05; done
  t1=$(date +%s.%N)
  kill -TERM "$pid"
  wait "$pid" || true
  done_jobs=$(grep -c 'INFO span: job job=.* outcome=\(allowed\|warned\|quarantined\|denied\)' "$dir/$name.log")
  [ "$done_jobs" -eq "$jobs" ] || { echo "$name: $done_jobs of $jobs jobs got a verdict" >&2; exit 1; }
  local slots
  slots=$(grep -o 'ready ([0-9]* slots' "$dir/$name.log" | grep -o '[0-9]*')
  python3 -c "print(f'{$jobs * 60 / ($t1 - $t0):.1f} $slots')"
}

echo "jobs: $jobs (4 samples × $copies versions), scanners: ${scanners[*]}, runtime bwrap, queue SQLite"
read -r one _ < <(run one "max_concurrent = 1
pool_slots = 1")
read -r pool slots < <(run pool "max_concurrent = 64")
printf '  %-66s %8s jobs/min\n' "one slot (upstream's loop: one job, one scanner at a time)" "$one"
printf '  %-66s %8s jobs/min   %s× the anchor\n' "derived pool ($slots slots, max_concurrent 64)" "$pool" \
  "$(python3 -c "print(f'{$pool / $one:.2f}')")"
grep -o 'pool: .*' "$dir/pool.log" | head -1 | sed 's/^/  /'
if [ -x "$behavior" ]; then
  read -r det det_slots < <(run pool-behavior "max_concurrent = 64" behavior)
  printf '  %-66s %8s jobs/min   %s× the pool without it\n' \
    "derived pool with behavior ($det_slots slots, ${scanners[*]} behavior)" "$det" \
    "$(python3 -c "print(f'{$det / $pool:.2f}')")"
else
  echo "  behavior: skipped: no $behavior (cmake --build --preset release --target batlehub-behavior)"
fi
