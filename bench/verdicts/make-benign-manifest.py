#!/usr/bin/env python3
"""Writes bench/verdicts/benign.tsv: the benign half of the verdict corpus.

The list below is the whole choice: widely used npm and PyPI packages at pinned versions.
For each entry this asks the registry's own JSON API where the archive lives and what its
digest is, and writes one row: ecosystem, name, version, file, sha256, url.

  - npm: https://registry.npmjs.org/<name>/<version> gives dist.tarball and dist.integrity
    (sha512). The registry publishes no sha256, so the tarball is downloaded (into memory),
    checked against dist.integrity, and hashed.
  - PyPI: https://pypi.org/pypi/<name>/json lists every release's files with their sha256
    (under "releases"; the per-version URL .../<name>/<version>/json is used when the
    whole-project answer lacks the version). kind "sdist" takes the source distribution; kind "wheel" takes the pure-Python
    wheel (py3-none-any / py2.py3-none-any).

Only this script and fetch-benign.py touch the network, and only when run by hand; the bench
reads the archives from a directory. Standard library only.

    bench/verdicts/make-benign-manifest.py [--out bench/verdicts/benign.tsv]
"""
import argparse
import base64
import concurrent.futures
import hashlib
import json
import os
import re
import sys
import urllib.parse
import urllib.request

NPM_API = "https://registry.npmjs.org"
PYPI_API = "https://pypi.org/pypi"
ALLOWED_HOSTS = {"registry.npmjs.org", "files.pythonhosted.org", "pypi.org"}

# (name, version) — npm tarballs.
NPM = [
    ("lodash", "4.18.1"), ("react", "19.3.1"), ("react-dom", "19.3.1"), ("express", "5.3.0"),
    ("chalk", "6.0.1"), ("commander", "15.1.0"), ("debug", "4.4.3"), ("axios", "1.21.1"),
    ("moment", "2.31.0"), ("uuid", "14.0.3"), ("semver", "7.8.6"), ("tslib", "2.9.1"),
    ("glob", "14.0.6"), ("minimatch", "11.0.10"), ("yargs", "18.2.0"), ("ms", "2.1.3"),
    ("async", "3.2.6"), ("fs-extra", "11.4.1"), ("mkdirp", "3.0.1"), ("rimraf", "6.1.4"),
    ("dotenv", "18.0.10"), ("bluebird", "3.7.2"), ("underscore", "1.13.8"),
    ("classnames", "2.5.1"), ("prop-types", "15.8.1"), ("body-parser", "2.4.0"),
    ("cookie", "2.0.2"), ("qs", "6.17.1"), ("ws", "8.23.1"), ("inherits", "2.0.4"),
    ("safe-buffer", "5.2.1"), ("readable-stream", "4.8.0"), ("string-width", "9.0.0"),
    ("strip-ansi", "7.2.0"), ("ansi-styles", "7.0.0"), ("supports-color", "11.0.0"),
    ("escape-string-regexp", "5.0.0"), ("source-map", "0.8.0"), ("picomatch", "4.0.7"),
    ("micromatch", "4.0.8"), ("braces", "3.0.3"), ("js-yaml", "5.5.0"), ("yaml", "2.9.1"),
    ("minimist", "1.2.8"), ("json5", "2.2.3"), ("webpack", "5.113.0"),
    ("@babel/core", "8.1.3"), ("@babel/parser", "8.1.3"), ("@types/node", "26.6.11"),
    ("rxjs", "7.8.2"), ("zod", "4.6.7"), ("node-fetch", "3.3.2"), ("iconv-lite", "0.7.3"),
    ("mime-types", "3.0.2"), ("cross-spawn", "7.1.2"), ("which", "7.0.0"),
    ("signal-exit", "4.1.0"), ("wrap-ansi", "10.0.2"), ("postcss", "8.5.34"),
    ("nanoid", "6.0.2"), ("dayjs", "1.11.23"),
    ("core-js", "3.51.0"),   # a real postinstall hook (a funding banner)
    ("esbuild", "0.28.2"),   # a real postinstall hook (install.js picks the platform binary)
    ("eslint", "10.16.0"), ("prettier", "3.10.1"),
]

# (name, version, kinds) — PyPI sdists and pure-Python wheels.
PYPI = [
    # both forms
    ("requests", "2.34.2", "sdist wheel"), ("urllib3", "2.8.0", "sdist wheel"),
    ("six", "1.17.0", "sdist wheel"), ("idna", "3.20", "sdist wheel"),
    ("python-dateutil", "4.0.0", "sdist wheel"), ("click", "8.5.1", "sdist wheel"),
    ("jinja2", "3.1.6", "sdist wheel"), ("packaging", "26.4", "sdist wheel"),
    ("attrs", "26.1.0", "sdist wheel"), ("typing-extensions", "4.16.0", "sdist wheel"),
    ("boto3", "1.44.8", "sdist wheel"), ("pyasn1", "0.6.5", "sdist wheel"),
    ("rsa", "4.9.1", "sdist wheel"), ("jmespath", "1.1.0", "sdist wheel"),
    ("pytest", "9.2.0", "sdist wheel"), ("colorama", "0.4.6", "sdist wheel"),
    ("flask", "3.1.3", "sdist wheel"), ("werkzeug", "3.1.9", "sdist wheel"),
    ("tqdm", "4.70.1", "sdist wheel"), ("python-dotenv", "1.2.4", "sdist wheel"),
    # sdist only (their wheels are platform builds)
    ("pyyaml", "6.0.4", "sdist"), ("markupsafe", "3.0.4", "sdist"),
    ("cryptography", "50.0.2", "sdist"), ("cffi", "2.1.1", "sdist"), ("psutil", "7.2.2", "sdist"),
    ("multidict", "7.2.1", "sdist"), ("frozenlist", "1.8.0", "sdist"), ("wrapt", "2.5.2", "sdist"),
    ("charset-normalizer", "3.5.3", "sdist"), ("aiohttp", "3.14.5", "sdist"),
    ("docutils", "0.23", "sdist"), ("setuptools", "84.2.1", "sdist"),
    # wheel only
    ("certifi", "2026.10.19.post1", "wheel"), ("botocore", "1.44.8", "wheel"),
    ("pip", "26.3", "wheel"), ("wheel", "0.48.0", "wheel"), ("s3transfer", "0.19.3", "wheel"),
    ("pycparser", "3.12", "wheel"), ("pytz", "2026.6", "wheel"), ("filelock", "4.3.1", "wheel"),
    ("platformdirs", "4.14.9", "wheel"), ("importlib-metadata", "10.2.0", "wheel"),
    ("zipp", "4.1.2", "wheel"), ("pluggy", "1.7.0", "wheel"), ("iniconfig", "2.3.1", "wheel"),
    ("tomli", "2.5.0", "wheel"), ("decorator", "5.3.1", "wheel"), ("oauthlib", "4.0.1", "wheel"),
    ("pyjwt", "2.15.1", "wheel"), ("pydantic", "2.14.4", "wheel"),
    ("annotated-types", "0.8.0", "wheel"), ("yarl", "1.25.1", "wheel"), ("rich", "15.0.0", "wheel"),
    ("pygments", "2.21.0", "wheel"), ("httpx", "0.29.0", "wheel"), ("h11", "0.16.0", "wheel"),
    ("anyio", "4.16.0", "wheel"), ("sniffio", "1.3.1", "wheel"), ("fsspec", "2026.9.0", "wheel"),
]

HEADER = ["ecosystem", "name", "version", "file", "sha256", "url"]


def get(url, timeout=120):
    host = urllib.parse.urlsplit(url).hostname
    if host not in ALLOWED_HOSTS:
        raise RuntimeError(f"{url}: host {host} is not a registry this corpus uses")
    req = urllib.request.Request(url, headers={"User-Agent": "batlehub-bench-manifest"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def npm_file_name(name, version):
    # "@scope/x" -> "scope-x-<version>.tgz"; the manifest keeps the real name.
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def npm_row(name, version):
    meta = json.loads(get(f"{NPM_API}/{urllib.parse.quote(name, safe='@')}/{version}"))
    if meta.get("version") != version:
        raise RuntimeError(f"npm {name}@{version}: registry answered version {meta.get('version')}")
    dist = meta["dist"]
    url = dist["tarball"]
    data = get(url)
    integrity = dist.get("integrity", "")
    if integrity.startswith("sha512-"):
        if base64.b64decode(integrity[7:]) != hashlib.sha512(data).digest():
            raise RuntimeError(f"npm {name}@{version}: tarball does not match dist.integrity")
    elif dist.get("shasum"):
        if hashlib.sha1(data).hexdigest() != dist["shasum"]:
            raise RuntimeError(f"npm {name}@{version}: tarball does not match dist.shasum")
    else:
        raise RuntimeError(f"npm {name}@{version}: registry gives no digest")
    return [["npm", name, version, npm_file_name(name, version), hashlib.sha256(data).hexdigest(), url]]


def pypi_file_url(f):
    # The canonical download URL is files.pythonhosted.org/packages/<aa>/<bb>/<blake2b>/<file>;
    # some mirrors of the JSON API answer with a relative path ending in the same four parts.
    m = re.search(r"/packages/([0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/[^/]+)$", f["url"])
    if not m or not m.group(1).endswith("/" + f["filename"]):
        raise RuntimeError(f"pypi {f['filename']}: unexpected download URL {f['url']}")
    return "https://files.pythonhosted.org/packages/" + m.group(1)


def pypi_rows(name, version, kinds):
    meta = json.loads(get(f"{PYPI_API}/{name}/json"))
    files = meta.get("releases", {}).get(version)
    if not files:
        files = json.loads(get(f"{PYPI_API}/{name}/{version}/json"))["urls"]
    rows = []
    for kind in kinds.split():
        if kind == "sdist":
            pick = [f for f in files if f["packagetype"] == "sdist" and f["filename"].endswith(".tar.gz")]
        elif kind == "wheel":
            pick = [f for f in files if f["packagetype"] == "bdist_wheel"
                    and f["filename"].endswith("-none-any.whl")]
        else:
            raise RuntimeError(f"pypi {name}: unknown kind {kind}")
        if len(pick) != 1:
            raise RuntimeError(f"pypi {name}=={version}: {len(pick)} candidate {kind} files")
        f = pick[0]
        if f.get("yanked"):
            raise RuntimeError(f"pypi {name}=={version}: {f['filename']} is yanked")
        rows.append(["pypi", name, version, f["filename"], f["digests"]["sha256"], pypi_file_url(f)])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "benign.tsv"))
    ap.add_argument("--jobs", type=int, default=6)
    args = ap.parse_args()

    jobs = [(npm_row, n, v) for n, v in NPM] + [(pypi_rows, n, v, k) for n, v, k in PYPI]
    rows, errors = [], []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(j[0], *j[1:]): j for j in jobs}
        for fut in concurrent.futures.as_completed(futs):
            try:
                rows.extend(fut.result())
            except Exception as e:  # report every failure, write nothing
                errors.append(f"{futs[fut][1]}: {e}")
    if errors:
        for e in sorted(errors):
            print(f"error: {e}", file=sys.stderr)
        return 1
    rows.sort(key=lambda r: (r[0], r[1].lower(), r[3]))
    files = [r[3] for r in rows]
    dup = {f for f in files if files.count(f) > 1}
    if dup:
        print(f"error: duplicate file names {sorted(dup)}", file=sys.stderr)
        return 1
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(HEADER) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    n_npm = sum(r[0] == "npm" for r in rows)
    n_sd = sum(r[0] == "pypi" and r[3].endswith(".tar.gz") for r in rows)
    n_wh = sum(r[0] == "pypi" and r[3].endswith(".whl") for r in rows)
    print(f"wrote {args.out}: {len(rows)} archives (npm {n_npm}; pypi sdist {n_sd}, wheel {n_wh})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
