#!/usr/bin/env python3
"""Downloads the benign half of the verdict corpus from the registries.

Reads bench/verdicts/benign.tsv (ecosystem, name, version, file, sha256, url), downloads each
archive from its registry URL into DIR (default /var/cache/batlehub-corpus/benign), checks
its sha256, and prints a summary. A file already in DIR with the right sha256 is kept and
not downloaded again; one with another digest is downloaded anew. A download whose sha256
differs from the manifest is refused: it is not kept, and the run exits 1.

Only registry.npmjs.org and files.pythonhosted.org / pypi.org are contacted, and only when
this script is run by hand: the bench itself reads DIR and never touches the network.
Standard library only.

    bench/verdicts/fetch-benign.py [DIR] [--manifest bench/verdicts/benign.tsv]
"""
import argparse
import concurrent.futures
import hashlib
import os
import sys
import tempfile
import urllib.parse
import urllib.request

DEFAULT_DIR = "/var/cache/batlehub-corpus/benign"
ALLOWED_HOSTS = {"registry.npmjs.org", "files.pythonhosted.org", "pypi.org"}
COLUMNS = ["ecosystem", "name", "version", "file", "sha256", "url"]


def read_manifest(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if cols == COLUMNS:
                continue
            if len(cols) != len(COLUMNS):
                sys.exit(f"{path}:{n}: expected {len(COLUMNS)} tab-separated columns, got {len(cols)}")
            row = dict(zip(COLUMNS, cols))
            if row["ecosystem"] not in ("npm", "pypi"):
                sys.exit(f"{path}:{n}: unknown ecosystem {row['ecosystem']!r}")
            f_ = row["file"]
            if not f_ or "/" in f_ or f_.startswith(".") or "\\" in f_:
                sys.exit(f"{path}:{n}: bad file name {f_!r}")
            u = urllib.parse.urlsplit(row["url"])
            if u.scheme != "https" or u.hostname not in ALLOWED_HOSTS:
                sys.exit(f"{path}:{n}: {row['url']} is not an https URL of an allowed registry")
            rows.append(row)
    return rows


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def fetch(row, outdir):
    """Returns (status, bytes): status is 'present', 'downloaded' or 'MISMATCH ...'."""
    dest = os.path.join(outdir, row["file"])
    if os.path.isfile(dest) and sha256_file(dest) == row["sha256"]:
        return "present", os.path.getsize(dest)
    req = urllib.request.Request(row["url"], headers={"User-Agent": "batlehub-bench-fetch"})
    h = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=outdir, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(req, timeout=300) as r:
            final = urllib.parse.urlsplit(r.geturl()).hostname
            if final not in ALLOWED_HOSTS:
                raise RuntimeError(f"redirected to {final}, not an allowed registry")
            for chunk in iter(lambda: r.read(1 << 20), b""):
                h.update(chunk)
                out.write(chunk)
        got = h.hexdigest()
        if got != row["sha256"]:
            return f"MISMATCH: got sha256 {got}, manifest says {row['sha256']}; not kept", 0
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
        tmp = None
        return "downloaded", os.path.getsize(dest)
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=DEFAULT_DIR)
    ap.add_argument("--manifest", default=os.path.join(here, "benign.tsv"))
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args()

    rows = read_manifest(args.manifest)
    os.makedirs(args.dir, exist_ok=True)
    counts = {"present": 0, "downloaded": 0}
    failed = []
    total = 0
    per_kind = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(fetch, r, args.dir): r for r in rows}
        for fut in concurrent.futures.as_completed(futs):
            r = futs[fut]
            try:
                status, size = fut.result()
            except Exception as e:
                status, size = f"FAILED: {e}", 0
            if status in counts:
                counts[status] += 1
                total += size
                kind = "npm tgz" if r["ecosystem"] == "npm" else (
                    "pypi wheel" if r["file"].endswith(".whl") else "pypi sdist")
                per_kind[kind] = per_kind.get(kind, 0) + 1
            else:
                failed.append((r, status))
                print(f"{r['file']}: {status}", file=sys.stderr)
    print(f"fetch-benign: {len(rows)} archives in {args.dir}: {counts['downloaded']} downloaded, "
          f"{counts['present']} already present, {len(failed)} failed; {total} bytes verified")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(per_kind.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
