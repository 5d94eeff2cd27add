#!/usr/bin/env python3
"""Regenerates bench/verdicts/malicious.tsv: keeps the hand-chosen rows, gives every row its
name family, adds every npm sample of the two npm datasets, and draws PyPI samples, one per
name family, by a seeded random choice. Offline; reads the local dataset mirrors only.

Nothing here executes, installs, imports or extracts a sample. PyPI archives are only read
as bytes from git to take their sha256; an npm .tgz is opened in memory to list its members
and parse its package.json (metadata, as JSON); nothing is written but the manifest.

    bench/verdicts/draw-malicious.py [--manifest FILE] [--dataset OWNER/NAME=PATH ...] [--check]

--check recomputes everything and exits 1 if the manifest on disk differs (it writes nothing).

Name family (column `family`)
-----------------------------
PyPI: the key of a dataset name (its top-level directory in lxyeternal/pypi_malregistry) is

  1. the name normalised by PEP 503: lowercase, every run of - _ . as one "-";
  2. minus trailing "-"-separated tokens that look like a random hash (6 or more hex digits,
     at least one of them a digit), so artifact-lab-3-package-4c04b1a2 loses 4c04b1a2;
  3. minus every run of decimal digits (leading, trailing and inside), then runs of "-"
     collapsed and "-" stripped at both ends. So 10Cent10, 11cent, 12cent ... are all "cent";
     boogishell, boogishell2 ... are "boogishell"; p8llow, p9llow, pllow are "pllow";
     req7ests, req8ests are "reqests";
  4. if nothing is left (a name of digits only, like 282828282828282828), the PEP 503 name.

Then keys are clustered: two keys of 6 or more letters (not counting "-") are joined when
deleting at most one character from each (ignoring "-") gives the same string, i.e. they
differ by one substituted, inserted, deleted or moved character (baeutifulsoup,
bautifulsoup, beautifulsoop, ...). Clusters are the connected components (union-find, so
chains join), computed over every top-level name of the dataset at its commit. A cluster's
family is the member key carrying the most dataset names, ties broken by the smaller key.
This is deliberately coarse: a mass typosquat campaign (a hundred misspellings of requests)
becomes one family, and chains may join two targets that are close in spelling; it only
costs variety, never lets two samples of one campaign land in different families by
spelling alone. Payload similarity is not looked at: two families can still share code.

npm: the package name, lowercase, runs of - _ . as one "-" (no digit stripping, no
clustering; there are few), except where the samples share their payload byte for byte:
electorn, lodashs, loadyaml and loadyml ship the same update.js, so they are one family,
"electorn" (SAME_PAYLOAD). PyPI and npm families are separate namespaces in principle
(key them by ecosystem and family).

The PyPI draw
-------------
SEED = 20260614, TARGET_PYPI = 2040 archives in all (hand-chosen rows count): 420 in the
first draw, 210 more on 2026-12-04, 210 more on 2026-12-05, 150 more on 2026-12-06
(held-out-4) and 150 more twice later that day (held-out-5, held-out-6), and 150 more on
2026-12-07 (held-out-8), 150 more later that day (held-out-9), 150 more in a second
session that day (held-out-10), 150 more after its fourth round of rules (held-out-11) and
150 more on 2026-12-07 (third session) after the fifth round (held-out-12), each time for a
fresh held-out set (bench/verdicts/README.md).

  1. List every blob of lxyeternal/pypi_malregistry at COMMIT_PYPI with its size
     (git ls-tree -r -l). A candidate is a blob at NAME/VERSION/FILE (exactly three path
     parts) whose FILE ends in .tar.gz, .tgz, .zip or .whl (case-insensitively), of at most
     MAX_SAMPLE (5 MiB) bytes, present in the mirror (the mirror leaves out some of the
     largest blobs; ls-tree prints BAD for them), whose path holds no whitespace, control
     character, quote or backslash, whose row text (name, version, file, path) holds no
     address literal that scripts/check-addresses.py would refuse (a version of four numeric
     parts reads as an IPv4 address), and whose FILE is not already the file of a
     hand-chosen row. .egg, .exe, loose setup.py files and unpacked directories are not
     candidates.
  2. The families of the hand-chosen PyPI rows (rows whose note does not start with
     "seeded draw") are taken. The remaining families (of every top-level name, candidate
     or not) are sorted, and random.Random(SEED).shuffle() orders them.
  3. Walking that order: a family with no candidate is skipped (and counted); otherwise the
     same Random picks one of the family's candidates, sorted by path, by rng.choice() —
     uniformly over every archive of every name and version in the family. Stop when the
     manifest holds TARGET_PYPI PyPI rows.
  4. Each drawn row: name and version are the first two parts of the dataset path (a
     version part spelt NAME-VERSION, as three directories are, gives its VERSION; a part
     that is still no PEP 440 version, as pytz3-dev/dev/ is, gives way to the Version: of
     the archive's own PKG-INFO or METADATA), file is the third, form `archive`, note
     "seeded draw (seed 20260614); not read". Nobody hand-read these samples: the
     dataset's authors say each one is malicious.

Rerunning gives the same rows: the seeded rows are dropped and drawn again from the same
start. Raising the target extends the walk (the rows drawn before stay, the same Random
goes on); changing the seed redraws them all.

npm
---
Every sample of both npm datasets, except what is said here:

  spaceraccoon/npm-zoo @ COMMIT_ZOO: each directory packages/NAME/DIR holding a
    package.json is a sample, form `repack:npm` (a row already present keeps its exclude=;
    a new one includes every file, and says so). Its packages/NAME/README.md is the
    dataset's description.
  jnicastro-Sonatype/Malicious-NPM-Packages @ COMMIT_SONATYPE: each .tgz blob is a sample,
    form `archive`; name and version come from its package/package.json (and must match the
    file name). Left out: a tarball without package/package.json (not a package), npm's
    "0.0.1-security" holding placeholders, and a tarball byte for byte equal to one already
    in the manifest. The unpacked package/ directories beside the tarballs are the
    curators' unpacking of the same tarball, not further samples.
"""
import argparse
import collections
import hashlib
import importlib.util
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from split import pep503  # noqa: E402  (the corpus scripts' one PEP 503)
MIRROR_ROOT = "/work/.mirror"

SEED = 20260614
TARGET_PYPI = 2040
MAX_SAMPLE = 5 * 1024 * 1024
SEEDED_NOTE = f"seeded draw (seed {SEED}); not read"

PYPI = "lxyeternal/pypi_malregistry"
COMMIT_PYPI = "b11283f05ebce901fe9fc5cd1a8e84d8f54bd937"
ZOO = "spaceraccoon/npm-zoo"
COMMIT_ZOO = "699bd3fb91f53f332f538bf3fa22bbf94a55f3a6"
SONATYPE = "jnicastro-Sonatype/Malicious-NPM-Packages"
COMMIT_SONATYPE = "a7f1a7619422ba631a8b5d0d35d69c992b65f476"

EXTS = (".tar.gz", ".tgz", ".zip", ".whl")
BAD_CHARS = re.compile(r"[\s\"'\\\x00-\x1f\x7f]")


def load(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(HERE if name.startswith("fetch") else os.path.join(ROOT, "scripts"), name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


fetch = load("fetch-malicious")
guard = load("check-addresses")
COLUMNS = fetch.COLUMNS


# ---------------------------------------------------------------- families



def name_key(name):
    """Steps 1-4 of the docstring's rule."""
    n = pep503(name)
    while True:
        m = re.fullmatch(r"(.+)-([0-9a-f]{6,})", n)
        if m and re.search(r"[0-9]", m.group(2)):
            n = m.group(1)
            continue
        break
    k = re.sub(r"-+", "-", re.sub(r"[0-9]+", "", n)).strip("-")
    return k or pep503(name)


def pypi_families(names):
    """{dataset name: family} over every top-level name: keys, then one-edit clusters."""
    key_of = {n: name_key(n) for n in names}
    weight = collections.Counter(key_of.values())
    keys = sorted(weight)
    parent = {k: k for k in keys}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    variants = collections.defaultdict(list)
    for k in keys:
        s = k.replace("-", "")
        if len(s) < 6:
            continue
        for v in {s} | {s[:i] + s[i + 1:] for i in range(len(s))}:
            variants[v].append(k)
    for ks in variants.values():
        for k in ks[1:]:
            a, b = find(ks[0]), find(k)
            if a != b:
                parent[max(a, b)] = min(a, b)
    members = collections.defaultdict(list)
    for k in keys:
        members[find(k)].append(k)
    label = {}
    for ms in members.values():
        best = min(ms, key=lambda k: (-weight[k], k))
        for k in ms:
            label[k] = best
    return {n: label[key_of[n]] for n in names}


# npm names whose samples carry one payload byte for byte: one campaign, one family.
SAME_PAYLOAD = {"lodashs": "electorn", "loadyaml": "electorn", "loadyml": "electorn"}


def npm_family(name):
    fam = pep503(name)
    return SAME_PAYLOAD.get(fam, fam)


# ---------------------------------------------------------------- git

class Repo(fetch.Dataset):
    """A dataset mirror as fetch-malicious.py reads it, and what the draw needs besides."""

    def tree(self, commit):
        """[(path, sha, size)] of every blob."""
        out = []
        for ent in self._git("ls-tree", "-r", "-l", "-z", commit).split(b"\0"):
            if not ent:
                continue
            meta, path = ent.split(b"\t", 1)
            mode, typ, sha, size = meta.decode().split()
            if typ == "blob" and mode != "120000":
                # ls-tree prints BAD for a blob the mirror does not hold (its largest files)
                out.append((path.decode("utf-8", "surrogateescape"), sha, int(size) if size.isdigit() else -1))
        return out

    def present(self, sha):
        return subprocess.run(["git", "--git-dir", self.git, "cat-file", "-e", sha],
                              capture_output=True).returncode == 0

    def blob(self, sha):
        return self._git("cat-file", "blob", sha)


def address_free(*texts):
    for t in texts:
        for _, addr in guard.literals(t):
            if not guard.on_this_machine(addr):
                return False
    return True


def clean_path(path):
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not BAD_CHARS.search(path)


# ---------------------------------------------------------------- npm

def npm_rows(repos, old_by_key, report):
    rows = []
    old_sha = {r["sha256"] for r in old_by_key.values()}

    zoo = repos[ZOO]
    tree = zoo.tree(COMMIT_ZOO)
    dirs = sorted({"/".join(p.split("/")[:3]) for p, _, _ in tree
                   if p.startswith("packages/") and p.count("/") >= 3 and p.split("/", 3)[3] == "package.json"})
    for d in dirs:
        key = (ZOO, d)
        if key in old_by_key:
            rows.append(dict(old_by_key[key]))
            report["npm-zoo kept"].append(d)
            continue
        files = zoo.listdir(COMMIT_ZOO, d)
        pj = json.loads({rel: b for rel, _, b in files}["package.json"])  # metadata, as JSON
        data = fetch.repack_npm(files, set())
        sha = hashlib.sha256(data).hexdigest()
        if sha in old_sha:
            report["skipped: byte-identical to a manifest sample"].append(f"{ZOO}:{d}")
            continue
        desc = f"packages/{d.split('/')[1]}/README.md"
        note = "all files of the directory included; dataset description not paraphrased yet"
        rows.append(dict(ecosystem="npm", name=pj["name"], version=pj["version"],
                         file=f"{pj['name']}-{pj['version']}.tgz", sha256=sha, dataset=ZOO,
                         commit=COMMIT_ZOO, path=d, form="repack:npm", note=note + f" ({desc})"))
        report["npm-zoo new"].append(d)

    son = repos[SONATYPE]
    docx_note = {  # paraphrase of the dataset's electorn/README.docx
        "electorn": "the dataset's electorn/README.docx: Sonatype caught electorn 10.0.0; this "
                    "earlier version is in Sonatype's data too, removed from npm by its author; not read",
    }
    for path, sha1, size in son.tree(COMMIT_SONATYPE):
        if not path.endswith(".tgz"):
            continue
        key = (SONATYPE, path)
        if key in old_by_key:
            rows.append(dict(old_by_key[key]))
            report["sonatype kept"].append(path)
            continue
        data = son.blob(sha1)
        sha = hashlib.sha256(data).hexdigest()
        if sha in old_sha:
            report["skipped: byte-identical to a manifest sample"].append(f"{SONATYPE}:{path}")
            continue
        if size > MAX_SAMPLE:
            report["skipped: over MAX_SAMPLE"].append(f"{SONATYPE}:{path}")
            continue
        fetch.check_npm_tarball(data)  # lists it in memory; raises on anything odd
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tf:
            try:
                pj = json.loads(tf.extractfile("package/package.json").read())  # read into memory
            except KeyError:
                report["skipped: not a package (no package.json)"].append(f"{SONATYPE}:{path}")
                continue
        if pj.get("version", "").endswith("-security") or pj.get("description") == "security holding package":
            report["skipped: npm security placeholder"].append(f"{SONATYPE}:{path}")
            continue
        fname = path.rsplit("/", 1)[1]
        if fname != f"{pj['name']}-{pj['version']}.tgz":
            raise RuntimeError(f"{path}: package.json says {pj['name']} {pj['version']}")
        note = docx_note.get(pj["name"], "no description in the dataset; not read")
        rows.append(dict(ecosystem="npm", name=pj["name"], version=pj["version"], file=fname,
                         sha256=sha, dataset=SONATYPE, commit=COMMIT_SONATYPE, path=path,
                         form="archive", note=note))
        report["sonatype new"].append(path)
    for r in rows:
        r["family"] = npm_family(r["name"])
    return rows


# ---------------------------------------------------------------- PyPI

def pypi_rows(repo, old_rows, used_files, report):
    tree = repo.tree(COMMIT_PYPI)
    names = sorted({p.split("/")[0] for p, _, _ in tree if "/" in p})
    fam_of = pypi_families(names)

    hand = [r for r in old_rows if r["ecosystem"] == "pypi" and not r["note"].startswith("seeded draw")]
    for r in hand:
        r["family"] = fam_of[r["path"].split("/")[0]]
    taken = {r["family"] for r in hand}
    dup = collections.Counter(r["family"] for r in hand)
    report["hand-chosen PyPI rows sharing a family"] = sorted(
        f"{f}: " + ", ".join(r["name"] for r in hand if r["family"] == f) for f, c in dup.items() if c > 1)

    cands = collections.defaultdict(list)
    why_not = collections.Counter()
    for path, sha, size in tree:
        parts = path.split("/")
        if len(parts) != 3:
            continue
        name, version, fname = parts
        low = fname.lower()
        if not low.endswith(EXTS):
            why_not["extension (" + (low.rsplit(".", 1)[-1] if "." in low else "none") + ")"] += 1
            continue
        if size < 0:
            why_not["blob absent from the mirror"] += 1
            continue
        if size > MAX_SAMPLE:
            why_not["over 5 MiB"] += 1
            continue
        if not clean_path(path) or fname.startswith("."):
            why_not["odd characters in path"] += 1
            continue
        if not address_free(name, version, fname, path):
            why_not["address literal (dotted-quad version)"] += 1
            continue
        if fname in used_files:
            why_not["file name taken by another row"] += 1
            continue
        cands[fam_of[name]].append((path, sha))
    report["PyPI blobs not candidates, by reason"] = dict(sorted(why_not.items()))

    families = sorted(set(fam_of.values()) - taken)
    report["PyPI families"] = len(set(fam_of.values()))
    report["PyPI dataset names"] = len(names)
    rng = random.Random(SEED)
    rng.shuffle(families)
    need = TARGET_PYPI - len(hand)
    drawn, no_cand = [], []
    for fam in families:
        if len(drawn) >= need:
            break
        cs = sorted(c for c in cands.get(fam, []) if c[0].rsplit("/", 1)[1] not in used_files)
        if not cs:
            no_cand.append(fam)
            continue
        path, sha = rng.choice(cs)
        if not repo.present(sha):
            no_cand.append(fam + " (blob absent from mirror)")
            continue
        data = repo.blob(sha)
        name, version, fname = path.split("/")
        version = path_version(name, version)
        if not PEP440.fullmatch(version):
            version = archive_version(fname, data) or version
        drawn.append(dict(ecosystem="pypi", name=name, version=version, family=fam, file=fname,
                          sha256=hashlib.sha256(data).hexdigest(), dataset=PYPI, commit=COMMIT_PYPI,
                          path=path, form="archive", note=SEEDED_NOTE))
        used_files.add(fname)
    if len(drawn) < need:
        sys.exit(f"only {len(drawn)} of {need} families had a candidate")
    report["PyPI families walked with no candidate (skipped)"] = no_cand
    report["PyPI drawn"] = len(drawn)
    report["PyPI drawn whose file name lacks the path's version"] = [
        r["path"] for r in drawn if r["version"] not in r["file"]]
    return hand + drawn


# ---------------------------------------------------------------- main

def path_version(name, version):
    """The version of a dataset path's second part. A few directories are named
    NAME-VERSION (deepmountains_lrce-0.0.1/), which no scanner takes for a version (batlehub
    scan refuses a --version that is not PEP 440): the part after the name, spelt any PEP 503
    way, is the version then."""
    m = re.fullmatch(r"(.+?)-(\d[^-]*)", version)
    if m and pep503(m.group(1)) == pep503(name):
        return m.group(2)
    return version


# PEP 440's own pattern (its appendix B), for a public version.
PEP440 = re.compile(r"v?(?:\d+!)?\d+(?:\.\d+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?"
                    r"(?:-\d+|[-_.]?(?:post|rev|r)[-_.]?\d*)?(?:[-_.]?dev[-_.]?\d*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?",
                    re.IGNORECASE)


def archive_version(fname, data):
    """The Version: header of an archive's own metadata (an sdist's top PKG-INFO, a wheel's
    .dist-info/METADATA), when the dataset's directory names no PEP 440 version
    (pytz3-dev/dev/pytz3-dev.tar.gz says 2018.7 inside): the version PyPI served it under."""
    meta = None
    try:
        if fname.endswith(".whl"):
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for n in zf.namelist():
                    if n.count("/") == 1 and n.endswith(".dist-info/METADATA"):
                        meta = zf.read(n)[:65536]
                        break
        else:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
                for m in tf:
                    if m.isfile() and m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"):
                        meta = tf.extractfile(m).read(65536)
                        break
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError):
        return None
    for line in (meta or b"").decode("utf-8", "replace").splitlines():
        if not line.strip():
            break
        if line.lower().startswith("version:"):
            v = line.split(":", 1)[1].strip()
            return v if PEP440.fullmatch(v) else None
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", default=os.path.join(HERE, "malicious.tsv"))
    ap.add_argument("--dataset", action="append", default=[], metavar="OWNER/NAME=PATH")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--report", help="write what was skipped, and why, here (JSON)")
    args = ap.parse_args()
    paths = dict(s.split("=", 1) for s in args.dataset)
    repos = {d: Repo(paths.get(d, os.path.join(MIRROR_ROOT, d.replace("/", "+"), "repo")))
             for d in (PYPI, ZOO, SONATYPE)}

    # The manifest as it is, read leniently: an older one has no family column.
    old = []
    with open(args.manifest, encoding="utf-8") as f:
        header = None
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if header is None:
                header = cols
                continue
            row = dict(zip(header, cols))
            row.setdefault("family", "")
            old.append(row)

    report = collections.defaultdict(list)
    npm_old = {(r["dataset"], r["path"]): r for r in old if r["ecosystem"] == "npm"}
    npm = npm_rows(repos, npm_old, report)
    lost = set(npm_old) - {(r["dataset"], r["path"]) for r in npm}
    if lost:
        sys.exit(f"npm rows of the manifest no longer found in the datasets: {sorted(lost)}")
    hand_files = {r["file"] for r in old if r["ecosystem"] == "pypi" and not r["note"].startswith("seeded draw")}
    pypi = pypi_rows(repos[PYPI], old, hand_files, report)

    rows = sorted(npm + pypi, key=lambda r: (r["ecosystem"], r["name"].lower(), r["version"], r["file"]))
    for r in rows:
        for c in COLUMNS:
            if "\t" in r[c] or "\n" in r[c]:
                sys.exit(f"{r['file']}: tab or newline in {c}")
    files = collections.Counter((r["ecosystem"], r["file"]) for r in rows)
    if any(c > 1 for c in files.values()):
        sys.exit(f"duplicate output files: {[k for k, c in files.items() if c > 1]}")
    text = "\t".join(COLUMNS) + "\n" + "".join("\t".join(r[c] for c in COLUMNS) + "\n" for r in rows)

    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    summary = collections.Counter((r["ecosystem"], r["dataset"], r["form"].split()[0]) for r in rows)
    for k, v in sorted(summary.items()):
        print(f"  {k[0]:5} {k[1]:42} {k[2]:11} {v}")
    print(f"draw-malicious: {len(rows)} rows, {len({(r['ecosystem'], r['family']) for r in rows})} families")
    with open(args.manifest, encoding="utf-8") as f:
        same = f.read() == text
    if args.check:
        print("manifest is up to date" if same else "manifest differs from the draw")
        return 0 if same else 1
    if not same:
        with open(args.manifest, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {args.manifest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
