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
    *) echo "usage: $0 [--agent PATH] [--signals PATH] [--behavior PATH] [--rooms DIR] [--sboms DIR] [--batlehub PATH]" >&2; exit 2 ;;
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
    python3 scripts/build-worker-image.py --batlehub "$batlehub" --agent "$agent" --engine "$e" \
      "${rooms_args[@]}" "${sbom_args[@]}"
  done
else
  say "no batlehub at $batlehub: no worker image (cmake --build --preset release --target batlehub)"
fi
say "${scanners[*]} for ${engines[*]}"
