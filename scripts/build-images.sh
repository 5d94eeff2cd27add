#!/usr/bin/env bash
# Builds the room of every installed scanner and, from each room, its sandbox image for the
# `oci` runtime: for podman always, for docker when a daemon answers at $DOCKER_HOST (the
# CLI's default socket when unset). Offline: rooms copy from this machine
# (scripts/build-room.py), images are imported from them (scripts/build-image.py), nothing is
# pulled. As root (podman's rootful store; the rooms copy root-owned trees).
#
#   scripts/build-images.sh [--agent PATH] [--signals PATH] [--behavior PATH] [--rooms DIR]
#
#   --agent  the static batlehub-sandbox (default: build/release/src/agent/batlehub-sandbox;
#            `make images` builds it)
#   --signals  the static batlehub-signals, our own scanner (default:
#            build/release/src/signals/batlehub-signals; `make images` builds it)
#   --behavior  the static batlehub-behavior, the detonation (default:
#            build/release/src/behavior/batlehub-behavior; `make images` builds it). Its room
#            holds /bin/sh, which its definition allows ([room] shell): each image is built
#            with its definition (scripts/build-image.py --definition).
#   --rooms  where the rooms are built (default: build/rooms), one directory per scanner
#   --sboms  where each image's SBOM is written, <scanner>.spdx.json (default: build/sboms)
#   --registry HOST[:PORT]  also push every image built here to that OCI registry
#            (build-image.py --registry, build-worker-image.py --registry; `make images
#            REGISTRY=…`), and write what was pushed where the chart reads it:
#            build/images/values.yaml (imageRegistry, and imageDigests by image name: `helm
#            install -f build/images/values.yaml` pins every image by digest) and
#            build/images/pushed.tsv (image name, reference by digest)
#   --batlehub  the worker's binary, for the worker's image, batlehub-worker:<version>
#            (default: build/release/src/server/batlehub; `make images` builds it). Without
#            it no worker image is built, and the script says so.
#
# The SBOM (SPDX 2.3 JSON) is Trivy's (`trivy rootfs`, the Trivy scanner's own binary,
# /opt/batlehub/bin/trivy; scripts/build-image.py write_sbom) over the room the image is made of: the Debian packages the room
# records (scripts/build-room.py, /var/lib/dpkg/status.d) and the Python packages of a venv,
# each with its purl. It reads the tree only; nothing is fetched. Without Trivy installed no
# SBOM is written, and the script says so.
#
# A scanner is installed when its room's sources are (scripts/install-scanners.sh): YARA
# (/usr/bin/yara), GuardDog (/opt/batlehub/guarddog), Trivy (/opt/batlehub/bin/trivy).
# Images are tagged batlehub-sandbox-<scanner>:<project version>. Idempotent: an image whose
# room did not change is left as it is ("up to date"). Prints what it built.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
agent="$root/build/release/src/agent/batlehub-sandbox"
signals="$root/build/release/src/signals/batlehub-signals"
behavior="$root/build/release/src/behavior/batlehub-behavior"
rooms="$root/build/rooms"
sboms="$root/build/sboms"
batlehub="$root/build/release/src/server/batlehub"
registry=""
pushed_dir="$root/build/images"
trivy=/opt/batlehub/bin/trivy

say() { echo "build-images: $*"; }
die() { echo "build-images: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --agent) agent=$2; shift 2 ;;
    --signals) signals=$2; shift 2 ;;
    --behavior) behavior=$2; shift 2 ;;
    --rooms) rooms=$2; shift 2 ;;
    --sboms) sboms=$2; shift 2 ;;
    --batlehub) batlehub=$2; shift 2 ;;
    --registry) registry=$2; shift 2 ;;
    *) echo "usage: $0 [--agent PATH] [--signals PATH] [--behavior PATH] [--rooms DIR] [--sboms DIR] [--batlehub PATH] [--registry HOST[:PORT]]" >&2; exit 2 ;;
  esac
done
[ -x "$agent" ] || die "no agent at $agent (cmake --build --preset release --target batlehub-sandbox)"
command -v podman >/dev/null || die "podman is not installed (scripts/install-deps.sh installs it)"

scanners=()
[ -x /usr/bin/yara ] && scanners+=(yara)
[ -x /opt/batlehub/guarddog/bin/guarddog ] && scanners+=(guarddog)
[ -x /opt/batlehub/bin/trivy ] && scanners+=(trivy)
[ -x "$signals" ] && scanners+=(signals)
[ -x "$behavior" ] && scanners+=(behavior)
[ ${#scanners[@]} -gt 0 ] || die "no scanner installed (scripts/install-scanners.sh)"

engines=(podman)
docker_at=${DOCKER_HOST:-unix:///var/run/docker.sock}
if command -v docker >/dev/null && timeout 10 docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; then
  engines+=(docker)
else
  say "docker: no daemon answers at $docker_at; no docker images"
fi

if [ -n "$registry" ]; then
  command -v skopeo >/dev/null || die "--registry pushes with skopeo, which is not installed (scripts/install-deps.sh installs it)"
  rm -rf "$pushed_dir"
  mkdir -p "$pushed_dir"
fi

mkdir -p "$rooms"
for s in "${scanners[@]}"; do
  extra=()
  [ "$s" = signals ] && extra=(--binary "$signals:/usr/local/bin/batlehub-signals")
  [ "$s" = behavior ] && extra=(--binary "$behavior:/usr/local/bin/batlehub-behavior")
  python3 scripts/build-room.py --definition "rooms/$s.toml" "${extra[@]}" --agent "$agent" --out "$rooms/$s"
  for e in "${engines[@]}"; do
    sbom_args=()
    [ -x "$trivy" ] && [ "$e" = podman ] && sbom_args=(--trivy "$trivy" --sbom "$sboms/$s.spdx.json")
    python3 scripts/build-image.py --room "$rooms/$s" --engine "$e" --definition "rooms/$s.toml" "${sbom_args[@]}"
  done
  if [ -n "$registry" ]; then
    python3 scripts/build-image.py --room "$rooms/$s" --definition "rooms/$s.toml" --registry "$registry" \
      --digest-file "$pushed_dir/batlehub-sandbox-$s.ref"
  fi
  [ -x "$trivy" ] && say "$s: SBOM $sboms/$s.spdx.json"
done
[ -x "$trivy" ] || say "no Trivy at $trivy (scripts/install-scanners.sh): no SBOM written"

# The worker's own image (Containerfile.worker over scripts/build-worker-tree.py's tree), with
# every installed scanner's room, for each engine; its SBOM beside the scanners'.
if [ -x "$batlehub" ]; then
  rooms_args=()
  for s in "${scanners[@]}"; do
    case $s in
      signals) rooms_args+=(--room-binary "signals=$signals:/usr/local/bin/batlehub-signals") ;;
      # The detonation's room is built with its observer given (--binary), which
      # build-worker-tree.py does not pass yet: the worker's image has no behavior room.
      behavior) ;;
      *) rooms_args+=(--room "$s") ;;
    esac
  done
  for e in "${engines[@]}"; do
    sbom_args=()
    [ -x "$trivy" ] && [ "$e" = podman ] && sbom_args=(--trivy "$trivy" --sbom "$sboms/worker.spdx.json")
    push_args=()
    [ -n "$registry" ] && [ "$e" = podman ] && push_args=(--registry "$registry" --digest-file "$pushed_dir/batlehub-worker.ref")
    python3 scripts/build-worker-image.py --batlehub "$batlehub" --agent "$agent" --engine "$e" \
      "${rooms_args[@]}" "${sbom_args[@]}" "${push_args[@]}"
  done
else
  say "no batlehub at $batlehub: no worker image (cmake --build --preset release --target batlehub)"
fi
# What was pushed, where the chart and an operator read it: the values file pins every image
# by digest (the chart's imageRegistry and imageDigests), the table lists the references.
if [ -n "$registry" ]; then
  python3 - "$registry" "$pushed_dir" <<'EOF'
import json, os, sys
registry, d = sys.argv[1], sys.argv[2]
refs = {}
for n in sorted(os.listdir(d)):
    if n.endswith(".ref"):
        with open(os.path.join(d, n)) as f:
            refs[n[:-4]] = f.read().strip()
with open(os.path.join(d, "pushed.tsv"), "w") as f:
    f.write("image\treference\n" + "".join(f"{k}\t{v}\n" for k, v in refs.items()))
with open(os.path.join(d, "values.yaml"), "w") as f:
    f.write("# Written by scripts/build-images.sh --registry: every image by digest (helm install -f this file).\n")
    f.write(f"imageRegistry: {json.dumps(registry)}\n")
    f.write("imageDigests:\n" + "".join(f"  {k}: {json.dumps(v.rsplit('@', 1)[1])}\n" for k, v in refs.items()))
EOF
  rm -f "$pushed_dir"/*.ref
  say "pushed to $registry: $pushed_dir/pushed.tsv, $pushed_dir/values.yaml"
fi
say "${scanners[*]} for ${engines[*]}"
