#!/usr/bin/env python3
"""Packs the sample packages under examples/packages into the archives the demo scans.

Deterministic (fixed mtimes, owners and order), so the same sources give the same bytes:
  npm-tiny-benign  -> tiny-benign-1.0.0.tgz      (an npm tarball: package/…)
  npm-evil-pad     -> evil-pad-1.3.1.tgz
  pypi-tiny-benign -> tiny_benign-1.0.0.tar.gz   (a PyPI sdist: name-version/…)
  pypi-evil-setup  -> evil_setup-0.1.0.tar.gz
Usage: make-samples.py OUT_DIR
"""
import gzip
import io
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = [
    ("npm-tiny-benign", "tiny-benign-1.0.0.tgz", None),
    ("npm-evil-pad", "evil-pad-1.3.1.tgz", None),
    ("pypi-tiny-benign", "tiny_benign-1.0.0.tar.gz", "tiny_benign-1.0.0"),
    ("pypi-evil-setup", "evil_setup-0.1.0.tar.gz", "evil_setup-0.1.0"),
]


def pack(src, out, prefix):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for root, dirs, files in os.walk(src):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src)
                arc = rel if prefix is None else os.path.join(prefix, rel)
                info = tarfile.TarInfo(arc)
                with open(path, "rb") as f:
                    data = f.read()
                info.size = len(data)
                info.mode = 0o644
                info.mtime = 1700000000
                info.uname = info.gname = "batlehub"
                tar.addfile(info, io.BytesIO(data))
    with open(out, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=1700000000) as gz:
            gz.write(buf.getvalue())


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    for src, name, prefix in SAMPLES:
        pack(os.path.join(HERE, "packages", src), os.path.join(out_dir, name), prefix)
        print(os.path.join(out_dir, name))


if __name__ == "__main__":
    main()
