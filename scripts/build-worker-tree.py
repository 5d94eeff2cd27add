#!/usr/bin/env python3
"""Builds the worker image's tree: `batlehub` and bwrap with their library closures, and
every scanner's room under /opt/sandbox/<scanner>, built from the same definitions
(rooms/<scanner>.toml) by scripts/build-room.py. Nothing is downloaded: `FROM scratch` +
`COPY . /` (Containerfile.worker) makes the image offline.

  build-worker-tree.py --batlehub build/release/src/server/batlehub \
      --agent build/release/src/agent/batlehub-sandbox --room yara --room guarddog --out DIR
  podman build -f Containerfile.worker -t batlehub-worker DIR

The worker image holds no shell either: the worker starts bwrap and nothing else. A room
that cannot be built on this machine (its scanner is not installed) is refused, not left
out: an image that lacks a room its configuration names would fail its probe at start.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("build_room", os.path.join(HERE, "build-room.py"))
build_room = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_room)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batlehub", required=True, help="the batlehub binary")
    ap.add_argument("--agent", required=True, help="the static batlehub-sandbox")
    ap.add_argument("--bwrap", default="/usr/bin/bwrap")
    ap.add_argument("--room", action="append", default=[], help="a scanner whose rooms/<scanner>.toml to build")
    ap.add_argument("--room-binary", action="append", default=[],
                    help="NAME=SRC:DEST: a room built from one binary (tests' stand-in scanners)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    out = os.path.abspath(args.out)
    tmp = out + ".building"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for d in ["tmp", "var/lib/batlehub", "etc/batlehub", "opt/sandbox", "proc", "dev", "sys"]:
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    os.chmod(os.path.join(tmp, "tmp"), 0o1777)
    build_room.add_binary(args.batlehub, tmp, "/usr/local/bin/batlehub")
    build_room.add_binary(args.bwrap, tmp, "/usr/bin/bwrap")
    # bwrap and the libraries of both, recorded as a room's are (distroless's status.d).
    build_room.record_packages(tmp)
    # The sandbox user (65532) by name, for bwrap and for ps in a debugging session.
    with open(os.path.join(tmp, "etc/passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/nonexistent\nsandbox:x:65532:65532:batlehub sandbox:/work:/nonexistent\n")
    with open(os.path.join(tmp, "etc/group"), "w") as f:
        f.write("root:x:0:\nsandbox:x:65532:\n")

    build = os.path.join(HERE, "build-room.py")
    rooms = []
    for name in args.room:
        definition = os.path.join(HERE, "..", "rooms", name + ".toml")
        rooms.append([sys.executable, build, "--definition", definition, "--agent", args.agent,
                      "--out", os.path.join(tmp, "opt/sandbox", name)])
    for r in args.room_binary:
        name, _, binary = r.partition("=")
        rooms.append([sys.executable, build, "--name", name, "--binary", binary, "--agent", args.agent,
                      "--out", os.path.join(tmp, "opt/sandbox", name)])
    for cmd in rooms:
        r = subprocess.run(cmd)
        if r.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            build_room.fail("a room could not be built: " + " ".join(cmd))

    for d in build_room.BIN_DIRS:
        p = os.path.join(tmp, d)
        for n in os.listdir(p) if os.path.isdir(p) else []:
            if n in {"sh", "bash", "dash", "busybox"}:
                shutil.rmtree(tmp, ignore_errors=True)
                build_room.fail(f"/{d}/{n} is in the worker's tree (no shell)")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print(out)


if __name__ == "__main__":
    main()
