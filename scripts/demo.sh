#!/usr/bin/env bash
# The main job: real scanners, behind bwrap, on the sample packages in examples/.
# As root on a fresh Debian 12: installs what it needs, builds, builds the rooms, scans.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
demo="$root/build/demo"

./scripts/install-deps.sh
./scripts/install-scanners.sh
cmake --preset release >/dev/null
cmake --build --preset release -j 2 --target batlehub batlehub-sandbox batlehub-signals
agent="$root/build/release/src/agent/batlehub-sandbox"
signals="$root/build/release/src/signals/batlehub-signals"
batlehub="$root/build/release/src/server/batlehub"

echo "== rooms (the read-only trees the scanners run in: no shell, no batlehub)"
mkdir -p "$demo/rooms"
for scanner in guarddog yara; do
  python3 scripts/build-room.py --definition "rooms/$scanner.toml" --agent "$agent" --out "$demo/rooms/$scanner"
done
# batlehub-signals is the build's own binary: its room definition names no host path.
python3 scripts/build-room.py --definition rooms/signals.toml --binary "$signals:/usr/local/bin/batlehub-signals" \
  --agent "$agent" --out "$demo/rooms/signals"
chmod 755 "$root/build" "$demo" "$demo/rooms"

echo "== samples"
python3 examples/make-samples.py "$demo/samples"

rm -rf "$demo/state"
sed -e "s|@ROOMS@|$demo/rooms|" -e "s|@RULES@|$root/rooms/rules/batlehub-default.yar|" -e "s|@STATE@|$demo/state|" \
  examples/demo.toml.in > "$demo/demo.toml"

echo "== the walls"
"$batlehub" probe --config "$demo/demo.toml"

declare -A expect=(
  [tiny-benign-1.0.0.tgz]="allowed"
  [evil-pad-1.3.1.tgz]="held"
  [tiny_benign-1.0.0.tar.gz]="allowed"
  [evil_setup-0.1.0.tar.gz]="held"
)
declare -A kind=(
  [tiny-benign-1.0.0.tgz]=npm [evil-pad-1.3.1.tgz]=npm
  [tiny_benign-1.0.0.tar.gz]=pypi [evil_setup-0.1.0.tar.gz]=pypi
)
summary=()
wrong=0
for sample in tiny-benign-1.0.0.tgz evil-pad-1.3.1.tgz tiny_benign-1.0.0.tar.gz evil_setup-0.1.0.tar.gz; do
  echo
  echo "== batlehub scan $sample"
  set +e
  "$batlehub" scan --config "$demo/demo.toml" --kind "${kind[$sample]}" "$demo/samples/$sample"
  rc=$?
  set -e
  case $rc in
    0) got=allowed ;; 10) got=warned ;; 20) got=quarantined ;; 30) got=denied ;; *) got="error (exit $rc)" ;;
  esac
  want=${expect[$sample]}
  ok=yes
  if [ "$want" = held ] && [ "$got" != quarantined ] && [ "$got" != denied ]; then ok=no; fi
  if [ "$want" = allowed ] && [ "$got" != allowed ]; then ok=no; fi
  [ "$ok" = yes ] || wrong=$((wrong + 1))
  summary+=("$(printf '  %-28s %-12s expected %-8s %s' "$sample" "$got" "$want" "$([ "$ok" = yes ] && echo ok || echo WRONG)")")
done
echo
echo "== the same samples through the worker: batlehub worker, submit, wait, why"
"$batlehub" worker --config "$demo/demo.toml" 2>"$demo/worker.log" &
worker=$!
trap 'kill -TERM $worker 2>/dev/null || true' EXIT
until grep -q 'INFO security worker: ready (' "$demo/worker.log"; do
  kill -0 "$worker" 2>/dev/null || { cat "$demo/worker.log"; exit 1; }
  sleep 0.2
done
grep -E 'listening for|pool:|ready \(' "$demo/worker.log"
# submit opens no sandbox, so a dashed npm file name (maybe a scope's) needs its --name
"$batlehub" submit --config "$demo/demo.toml" --name tiny-benign "$demo/samples/tiny-benign-1.0.0.tgz"
"$batlehub" submit --config "$demo/demo.toml" --name evil-pad "$demo/samples/evil-pad-1.3.1.tgz"
"$batlehub" submit --config "$demo/demo.toml" --kind pypi "$demo/samples/tiny_benign-1.0.0.tar.gz" \
  "$demo/samples/evil_setup-0.1.0.tar.gz"
for coord in local:tiny-benign@1.0.0 local:evil-pad@1.3.1 local:tiny_benign@1.0.0 local:evil_setup@0.1.0; do
  set +e
  "$batlehub" wait --config "$demo/demo.toml" --timeout 10m --interval 500ms "$coord"
  rc=$?
  set -e
  case $coord:$rc in
    *tiny*:0 | *evil*:1) ;;
    *) echo "  WRONG: batlehub wait $coord exited $rc"; wrong=$((wrong + 1)) ;;
  esac
done
echo
"$batlehub" why --config "$demo/demo.toml" local:evil-pad@1.3.1
kill -TERM "$worker"
wait "$worker" || true
trap - EXIT

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
[ "$wrong" -eq 0 ]
