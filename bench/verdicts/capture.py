#!/usr/bin/env python3
"""Records what GuardDog and YARA print for every archive of the corpus, behind the same
walls as a scan (the agent extracts the archive inside bwrap, in the scanner's room, with no
network), so that the severity model (docs/verdicts.md) can be studied and re-derived from
the scanners' own words without scanning again.

  bench/verdicts/capture.py --build build/release --corpus /var/cache/batlehub-corpus --out DIR

Writes DIR/<truth>/<ecosystem>/<file>.<scanner>.json (the scanner's stdout). Nothing of the
archive is opened on the host: bytes are copied into the run directory and the agent does
the rest inside the sandbox.
"""
import argparse
import base64
import concurrent.futures
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_manifest(name):
    with open(os.path.join(HERE, name), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def run_in_room(room, work, argv, artifact, extra_entries=()):
    shutil.copyfile(artifact, os.path.join(work, "artifact"))
    manifest = {
        "wire": 3, "argv": argv, "network": False,
        "limits": {"memory_limit_mb": 2048, "cpu_seconds": 300}, "timeout_ms": 600000,
        "extract_policy": {"max_entries": 50000, "max_extracted_bytes": 536870912, "max_ratio": 100},
        "entries": [{"kind": "archive", "path": "package", "url": "file:///work/artifact",
                     "size": os.path.getsize(artifact), "strip_wrapper": False}, *extra_entries],
    }
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    os.chown(work, 65532, 65532)
    for n in os.listdir(work):
        os.chown(os.path.join(work, n), 65532, 65532)
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--uid", "65532", "--gid", "65532",
           "--ro-bind", room, "/", "--proc", "/proc", "--dev", "/dev", "--bind", work, "/work", "--chdir", "/work",
           "--clearenv", "--setenv", "HOME", "/work", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--",
           "/usr/local/bin/batlehub-sandbox", "--in", "file:///work/manifest.json", "--out", "file:///work/out.tar"]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   preexec_fn=lambda: (os.setgid(65532), os.setuid(65532)))
    out = os.path.join(work, "out.tar")
    if not os.path.exists(out):
        return None
    with tarfile.open(out) as t:
        return t.extractfile("stdout").read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build/release"))
    ap.add_argument("--corpus", default="/var/cache/batlehub-corpus")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="only the first N archives of each half (a trial)")
    ap.add_argument("--scanners", default="guarddog,yara", help="which of guarddog, yara")
    ap.add_argument("--rules", default=os.path.join(ROOT, "rooms/rules/batlehub-default.yar"))
    args = ap.parse_args()
    agent = os.path.join(args.build, "src/agent/batlehub-sandbox")
    scanners = args.scanners.split(",")
    with open(args.rules, "rb") as f:
        rules_b64 = base64.b64encode(f.read()).decode()

    tmp = tempfile.mkdtemp(prefix="batlehub-capture-")
    os.chmod(tmp, 0o755)
    rooms = {}
    for s in scanners:
        rooms[s] = os.path.join(tmp, "rooms", s)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/build-room.py"), "--definition",
                        os.path.join(ROOT, "rooms", s + ".toml"), "--agent", agent, "--out", rooms[s]],
                       check=True, stdout=subprocess.DEVNULL)

    benign = read_manifest("benign.tsv")
    malicious = read_manifest("malicious.tsv")
    if args.limit:
        benign, malicious = benign[:args.limit], malicious[:args.limit]
    jobs = [("benign", r, os.path.join(args.corpus, "benign", r["file"])) for r in benign]
    jobs += [("malicious", r, os.path.join(args.corpus, "malicious", r["ecosystem"], r["file"])) for r in malicious]

    def one(job):
        truth, row, path = job
        dest = os.path.join(args.out, truth, row["ecosystem"])
        os.makedirs(dest, exist_ok=True)
        for scanner in scanners:
            target = os.path.join(dest, row["file"] + "." + scanner + ".json")
            if os.path.exists(target):
                continue
            work = tempfile.mkdtemp(dir=tmp)
            if scanner == "guarddog":
                argv = ["guarddog", row["ecosystem"], "scan", "package", "--output-format", "json"]
                extra = ()
            else:
                # As the adapter runs it (src/adapters/scanners/yara.cc).
                argv = ["yara", "--recursive", "--print-tags", "--print-meta", "--no-follow-symlinks", "rules.yar",
                        "package"]
                extra = ({"kind": "inline", "path": "rules.yar", "base64": rules_b64},)
            out = run_in_room(rooms[scanner], work, argv, path, extra)
            shutil.rmtree(work, ignore_errors=True)
            with open(target, "wb") as f:
                f.write(out if out is not None else b"")
        return row["file"]

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for n, name in enumerate(pool.map(one, jobs), 1):
            if n % 20 == 0:
                print(f"capture: {n}/{len(jobs)}", file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
