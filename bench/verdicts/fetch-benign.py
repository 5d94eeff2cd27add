#!/usr/bin/env python3
"""Fetches the benign half of the verdict corpus with the package managers' own clients.

Reads bench/verdicts/benign.tsv (ecosystem, name, version, file, sha256, source) and brings
each archive into DIR (default /var/cache/batlehub-corpus/benign) with the client its
`source` column names, by package name and version, as the machine configures that client:

  npm pack NAME@VERSION   npm pack --ignore-scripts (the tarball as published; scripts never run)
  pip sdist               pip download --no-deps --no-binary NAME NAME==VERSION
  pip wheel               pip download --no-deps --only-binary :all: --platform any
                          --implementation py --abi none NAME==VERSION (pure-Python wheels only)
  cargo                   cargo fetch in a throwaway project that depends on NAME = "=VERSION";
                          the .crate is taken from cargo's download cache and checked against
                          the checksum cargo wrote in Cargo.lock
  maven                   mvn dependency:copy -Dartifact=GROUP:ARTIFACT:VERSION
                          -Dtransitive=false; the jar is checked against the .sha1 that Maven
                          keeps beside it in the local repository

Then it checks the file's sha256 against the manifest. A file already in DIR with the right
sha256 is kept and not fetched again. A fetched file whose sha256 differs from the manifest is
refused: it is not kept, and the run exits 1. It prints a summary and exits non-zero on any
failure. Nothing is installed, imported or run from the archives (pip still prepares an
sdist's metadata, as `pip download` always does, in its own isolated build environment).

The clients are the only network users, and only when this script is run by hand: the bench
itself reads DIR and never touches the network. Standard library only.

    bench/verdicts/fetch-benign.py [DIR] [--manifest bench/verdicts/benign.tsv] [--jobs N]
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

DEFAULT_DIR = "/var/cache/batlehub-corpus/benign"
COLUMNS = ["ecosystem", "name", "version", "file", "sha256", "source"]
ECOSYSTEMS = ("npm", "pypi", "cargo", "maven")


class FetchError(RuntimeError):
    pass


def run(argv, cwd, env=None):
    p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        tail = " | ".join(l.strip() for l in p.stdout.strip().splitlines()[-4:])
        raise FetchError(f"{' '.join(argv[:3])} ... exited {p.returncode}: {tail}")
    return p.stdout


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def only_file(d):
    names = [n for n in os.listdir(d) if not n.startswith(".")]
    if len(names) != 1:
        raise FetchError(f"expected one file from the client, got {sorted(names)}")
    return os.path.join(d, names[0])


# ---- one function per client; each leaves one archive in `out` (an empty directory) and
# ---- returns its path.

def npm_source(name, version):
    return f"npm pack {name}@{version}"


def npm_file_name(name, version):
    # "@scope/x" -> "scope-x-<version>.tgz", as npm pack names it; the manifest keeps the real name.
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def fetch_npm(name, version, out):
    work = tempfile.mkdtemp(prefix="npm-pack-")  # npm pack of a spec must not see a package.json
    try:
        res = json.loads(run(["npm", "pack", f"{name}@{version}", "--ignore-scripts", "--json",
                              "--pack-destination", out], cwd=work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if len(res) != 1 or res[0].get("name") != name or res[0].get("version") != version:
        raise FetchError(f"npm pack {name}@{version} answered {[(r.get('name'), r.get('version')) for r in res]}")
    return only_file(out)


def pip_download(name, version, form, out, max_bytes=None, timeout=None):
    """form 'sdist' or 'wheel'. With max_bytes, a download pip announces as larger is
    stopped before it starts and FetchError('too large: ...') is raised; with timeout, pip
    (and the build of an sdist's metadata it runs) is stopped after that many seconds."""
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--progress-bar", "off", "-d", out]
    if form == "sdist":
        argv += ["--no-binary", name]
    elif form == "wheel":
        argv += ["--only-binary", ":all:", "--platform", "any", "--implementation", "py", "--abi", "none"]
    else:
        raise FetchError(f"unknown pip form {form!r}")
    argv.append(f"{name}=={version}")
    p = subprocess.Popen(argv, cwd=out, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    stopped = []

    def stop():  # pip and the build it started
        stopped.append(True)
        os.killpg(p.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, stop) if timeout else None
    if timer:
        timer.start()
    lines = []
    try:
        for line in p.stdout:
            lines.append(line)
            m = re.search(r"Downloading (\S+) \(([\d.]+) (kB|MB|GB)\)", line)
            if max_bytes and m and float(m.group(2)) * {"kB": 1e3, "MB": 1e6, "GB": 1e9}[m.group(3)] > max_bytes:
                stop()
                p.wait()
                raise FetchError(f"too large: {m.group(1)} is {m.group(2)} {m.group(3)}")
        p.wait()
    finally:
        if timer:
            timer.cancel()
    if stopped:
        raise FetchError(f"too slow: pip download {form} {name}=={version} ran over {timeout} s")
    if p.returncode != 0:
        text = "".join(lines)
        # pip's own answer starts a line; the same words indented come from a build subprocess
        # (a build dependency it could not find), which is a failure, not a missing form.
        if re.search(r"^ERROR: No matching distribution found for ", text, re.M):
            raise FetchError(f"no {form}: pip finds no {form} of {name}=={version}")
        tail = " | ".join(l.strip() for l in lines[-4:])
        raise FetchError(f"pip download {form} {name}=={version} exited {p.returncode}: {tail}")
    path = only_file(out)
    f = os.path.basename(path)
    if form == "wheel" and not f.endswith("-none-any.whl"):
        raise FetchError(f"pip gave {f}, not a pure-Python wheel")
    if form == "sdist" and not (f.endswith(".tar.gz") or f.endswith(".zip")):
        raise FetchError(f"pip gave {f}, not an sdist")
    return path


def cargo_home():
    return os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")


def fetch_cargo(crates, out):
    """crates: [(name, version)]. One throwaway project depends on all of them at exact
    versions; `cargo fetch` downloads them. Returns {(name, version): path in out}."""
    work = tempfile.mkdtemp(prefix="cargo-fetch-")
    try:
        with open(os.path.join(work, "Cargo.toml"), "w") as f:
            f.write('[package]\nname = "batlehub-corpus-fetch"\nversion = "0.0.0"\nedition = "2021"\n'
                    'publish = false\n\n[dependencies]\n')
            for name, version in crates:
                f.write(f'{name} = "={version}"\n')
        os.mkdir(os.path.join(work, "src"))
        open(os.path.join(work, "src", "lib.rs"), "w").close()
        run(["cargo", "fetch", "--quiet"], cwd=work)
        with open(os.path.join(work, "Cargo.lock")) as f:
            lock = f.read()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checksums = {}
    for block in lock.split("[[package]]")[1:]:
        fields = dict(re.findall(r'^(\w+) = "([^"]*)"', block, re.M))
        if "checksum" in fields:
            checksums[(fields["name"], fields["version"])] = fields["checksum"]
    got = {}
    for name, version in crates:
        want = checksums.get((name, version))
        if not want:
            raise FetchError(f"cargo: Cargo.lock has no checksum for {name} {version}")
        cached = glob.glob(os.path.join(cargo_home(), "registry", "cache", "*", f"{name}-{version}.crate"))
        cached = [c for c in cached if sha256_file(c) == want]
        if not cached:
            raise FetchError(f"cargo: no {name}-{version}.crate in cargo's cache with the Cargo.lock checksum")
        dest = os.path.join(out, f"{name}-{version}.crate")
        shutil.copyfile(cached[0], dest)
        got[(name, version)] = dest
    return got


def m2_repository():
    return os.path.join(os.path.expanduser("~"), ".m2", "repository")


def fetch_maven(name, version, out):
    group, artifact = name.split(":")
    run(["mvn", "-q", "-B", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy",
         f"-Dartifact={group}:{artifact}:{version}:jar", f"-DoutputDirectory={out}",
         "-Dtransitive=false", "-Dmdep.overWriteReleases=true"], cwd=out)
    path = only_file(out)
    if os.path.basename(path) != f"{artifact}-{version}.jar":
        raise FetchError(f"mvn gave {os.path.basename(path)}")
    sha1_file = os.path.join(m2_repository(), *group.split("."), artifact, version, f"{artifact}-{version}.jar.sha1")
    try:
        with open(sha1_file) as f:
            want = f.read().split()[0].lower()
    except (OSError, IndexError):
        raise FetchError(f"maven: no {artifact}-{version}.jar.sha1 in the local repository")
    with open(path, "rb") as f:
        got = hashlib.file_digest(f, "sha1").hexdigest()
    if got != want:
        raise FetchError(f"maven: {artifact}-{version}.jar sha1 {got}, the repository's .sha1 says {want}")
    return path


def maven_file_name(name, version, prefix_group=False):
    group, artifact = name.split(":")
    return f"{group + '-' if prefix_group else ''}{artifact}-{version}.jar"


# ---- the manifest

def expected_source(row):
    eco = row["ecosystem"]
    if eco == "npm":
        return {npm_source(row["name"], row["version"])}
    if eco == "pypi":
        return {"pip wheel"} if row["file"].endswith(".whl") else {"pip sdist"}
    return {eco}


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
            if row["ecosystem"] not in ECOSYSTEMS:
                sys.exit(f"{path}:{n}: unknown ecosystem {row['ecosystem']!r}")
            f_ = row["file"]
            if not f_ or "/" in f_ or f_.startswith(".") or "\\" in f_:
                sys.exit(f"{path}:{n}: bad file name {f_!r}")
            if row["source"] not in expected_source(row):
                sys.exit(f"{path}:{n}: source {row['source']!r} does not fit the row "
                         f"(expected {' or '.join(sorted(expected_source(row)))})")
            if not re.fullmatch(r"[0-9a-f]{64}", row["sha256"]):
                sys.exit(f"{path}:{n}: bad sha256 {row['sha256']!r}")
            rows.append(row)
    return rows


def place(row, fetched, outdir):
    """Checks a fetched file against the row and moves it to outdir/row['file']."""
    got = sha256_file(fetched)
    if got != row["sha256"]:
        return f"MISMATCH: got sha256 {got}, manifest says {row['sha256']}; not kept", 0
    dest = os.path.join(outdir, row["file"])
    os.chmod(fetched, 0o644)
    shutil.move(fetched, dest)
    return "fetched", os.path.getsize(dest)


def fetch_one(row, outdir):
    """Returns (status, bytes): status is 'present', 'fetched' or 'MISMATCH ...'."""
    dest = os.path.join(outdir, row["file"])
    if os.path.isfile(dest) and sha256_file(dest) == row["sha256"]:
        return "present", os.path.getsize(dest)
    tmp = tempfile.mkdtemp(dir=outdir, prefix=".part-")
    try:
        eco = row["ecosystem"]
        if eco == "npm":
            path = fetch_npm(row["name"], row["version"], tmp)
        elif eco == "pypi":
            path = pip_download(row["name"], row["version"], row["source"].split()[1], tmp)
        elif eco == "maven":
            path = fetch_maven(row["name"], row["version"], tmp)
        else:
            raise FetchError(f"{eco} rows are fetched together")
        return place(row, path, outdir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fetch_cargo_rows(rows, outdir):
    """All cargo rows in one `cargo fetch`; one by one if that fails. Yields (row, status, bytes)."""
    todo = []
    for r in rows:
        dest = os.path.join(outdir, r["file"])
        if os.path.isfile(dest) and sha256_file(dest) == r["sha256"]:
            yield r, "present", os.path.getsize(dest)
        else:
            todo.append(r)
    groups = [todo] if todo else []
    while groups:
        group = groups.pop(0)
        tmp = tempfile.mkdtemp(dir=outdir, prefix=".part-")
        try:
            got = fetch_cargo([(r["name"], r["version"]) for r in group], tmp)
            for r in group:
                yield (r, *place(r, got[(r["name"], r["version"])], outdir))
        except FetchError as e:
            if len(group) == 1:
                yield group[0], f"FAILED: {e}", 0
            else:  # one crate's constraints may spoil the batch: fetch each alone
                groups.extend([r] for r in group)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def form_of(row):
    return {"npm": "npm tgz", "cargo": "cargo crate", "maven": "maven jar"}.get(row["ecosystem"]) or (
        "pypi wheel" if row["file"].endswith(".whl") else "pypi sdist")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=DEFAULT_DIR)
    ap.add_argument("--manifest", default=os.path.join(here, "benign.tsv"))
    ap.add_argument("--jobs", type=int, default=3)
    args = ap.parse_args()

    rows = read_manifest(args.manifest)
    os.makedirs(args.dir, exist_ok=True)
    counts = {"present": 0, "fetched": 0}
    failed, total, per_form = [], 0, {}

    def note(r, status, size):
        nonlocal total
        if status in counts:
            counts[status] += 1
            total += size
            per_form[form_of(r)] = per_form.get(form_of(r), 0) + 1
        else:
            failed.append((r, status))
            print(f"{r['file']}: {status}", file=sys.stderr)

    for r, status, size in fetch_cargo_rows([r for r in rows if r["ecosystem"] == "cargo"], args.dir):
        note(r, status, size)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(fetch_one, r, args.dir): r for r in rows if r["ecosystem"] != "cargo"}
        for fut in concurrent.futures.as_completed(futs):
            try:
                status, size = fut.result()
            except Exception as e:
                status, size = f"FAILED: {e}", 0
            note(futs[fut], status, size)
    print(f"fetch-benign: {len(rows)} archives in {args.dir}: {counts['fetched']} fetched, "
          f"{counts['present']} already present, {len(failed)} failed; {total} bytes verified")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(per_form.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
