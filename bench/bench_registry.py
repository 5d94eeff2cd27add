#!/usr/bin/env python3
"""bench_registry: each scanner's image through an OCI registry, beside the side-load it replaces.

  bench/bench_registry.py BUILD_DIR [--reps N] [--port P]

For every installed scanner whose room can be built here (YARA, GuardDog, Trivy, and our own
batlehub-signals), the room is built once (scripts/build-room.py) and then, N times each:

  push    scripts/build-image.py --registry: the room's layer written, gzip'd and uploaded by
          skopeo, the manifest put (a fresh tag each time, so the manifest is new; the layer
          blob is already there after the first push, as on any registry that held the last
          release)
  pull    podman pulls that reference by digest into an empty image store (a store of its
          own under a temporary --root, so that nothing is found locally), what a new node does
  anchor  `podman load` of the same image as a docker archive from local disk into an empty
          store: the side-load the registry replaces, bytes already on the machine

and prints each median beside the anchor's, as a ratio (pull / load). The registry is the
tests' (the CNCF Distribution registry, scripts/registry-peer.sh) on a loopback port, in a
temporary directory, stopped on the way out. As root (podman's rootful store, the rooms copy
root-owned trees). Skips, saying why, when the registry, skopeo or podman is missing.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGISTRY_BIN = "/opt/batlehub/peers/registry-3.1.2/registry"
SCANNERS = [("yara", "/usr/bin/yara", []), ("guarddog", "/opt/batlehub/guarddog/bin/guarddog", []),
            ("trivy", "/opt/batlehub/bin/trivy", []), ("signals", None, ["signals"])]


def sh(*argv, **kw):
    r = subprocess.run(list(argv), capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"bench_registry: {' '.join(argv[:4])} … failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-600:]}")
    return r.stdout


def timed(fn):
    t0 = time.monotonic()
    fn()
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--port", type=int, default=55479)
    a = ap.parse_args()
    for what, path in [("the registry", REGISTRY_BIN), ("skopeo", shutil.which("skopeo") or ""),
                       ("podman", shutil.which("podman") or "")]:
        if not path or not os.access(path, os.X_OK):
            print(f"bench_registry: skipped: {what} is not installed (scripts/install-peers.sh, scripts/deps.txt)")
            return
    if os.geteuid() != 0:
        print("bench_registry: skipped: it runs as root (podman's rootful store; rooms copy root-owned trees)")
        return
    agent = os.path.join(a.build, "src/agent/batlehub-sandbox")
    signals = os.path.join(a.build, "src/signals/batlehub-signals")
    registry = f"127.0.0.1:{a.port}"
    with tempfile.TemporaryDirectory(prefix="bench-registry-") as tmp:
        peer = os.path.join(tmp, "registry")
        env = dict(os.environ, REGISTRY=REGISTRY_BIN)
        sh(os.path.join(ROOT, "scripts/registry-peer.sh"), "start", peer, str(a.port), env=env)
        try:
            print(f"registry {registry} (CNCF Distribution 3.1.2, filesystem driver, loopback); {a.reps} reps, medians")
            print(f"{'image':<26} {'MB':>6} {'push s':>7} {'pull s':>7} {'load s':>7} {'pull/load':>9}")
            for name, binary, _ in SCANNERS:
                extra = []
                if name == "signals":
                    if not os.access(signals, os.X_OK):
                        print(f"{name}: skipped: no {signals}")
                        continue
                    extra = ["--binary", f"{signals}:/usr/local/bin/batlehub-signals"]
                elif not os.access(binary, os.X_OK):
                    print(f"{name}: skipped: not installed ({binary})")
                    continue
                room = os.path.join(tmp, "rooms", name)
                sh(sys.executable, os.path.join(ROOT, "scripts/build-room.py"), "--definition",
                   os.path.join(ROOT, f"rooms/{name}.toml"), *extra, "--agent", agent, "--out", room)
                size = int(sh("du", "-sm", room).split()[0])
                pushes, pulls, loads = [], [], []
                for i in range(a.reps):
                    tag = f"localhost/bench-{name}:{os.getpid()}-{i}"
                    ref_file = os.path.join(tmp, "ref")
                    pushes.append(timed(lambda: sh(sys.executable, os.path.join(ROOT, "scripts/build-image.py"),
                                                   "--room", room, "--definition", os.path.join(ROOT, f"rooms/{name}.toml"),
                                                   "--registry", registry, "--tag", tag, "--digest-file", ref_file)))
                    ref = open(ref_file).read().strip()
                    store = os.path.join(tmp, f"store-{i}")
                    iso = ["podman", "--root", os.path.join(store, "root"), "--runroot", os.path.join(store, "run")]
                    pulls.append(timed(lambda: sh(*iso, "pull", "--quiet", "--tls-verify=false", ref)))
                    archive = os.path.join(tmp, "image.tar")
                    sh("skopeo", "copy", "--quiet", "--src-tls-verify=false", f"docker://{ref}",
                       f"docker-archive:{archive}:{tag}")
                    store2 = os.path.join(tmp, f"store-load-{i}")
                    iso2 = ["podman", "--root", os.path.join(store2, "root"), "--runroot", os.path.join(store2, "run")]
                    loads.append(timed(lambda: sh(*iso2, "load", "--quiet", "-i", archive)))
                    for s, cli in ((store, iso), (store2, iso2)):
                        subprocess.run(cli + ["system", "reset", "--force"], capture_output=True)
                        shutil.rmtree(s, ignore_errors=True)
                    os.unlink(archive)
                p, q, l = (statistics.median(x) for x in (pushes, pulls, loads))
                print(f"batlehub-sandbox-{name:<9} {size:>6} {p:>7.2f} {q:>7.2f} {l:>7.2f} {q / l:>9.2f}")
        finally:
            subprocess.run([os.path.join(ROOT, "scripts/registry-peer.sh"), "stop", peer], capture_output=True)


if __name__ == "__main__":
    main()
