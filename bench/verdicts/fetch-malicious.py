#!/usr/bin/env python3
"""Reproduces the malicious half of the verdict corpus from public datasets, offline.

Reads bench/verdicts/malicious.tsv and, for every row, takes the sample out of a local copy
of the dataset repository it names (a bare git directory, such as the search tool's
`fetch` leaves under /work/.mirror/<owner>+<name>/repo, or a checkout of the repository),
writes the package archive to OUT/<ecosystem>/<file> (default
/var/cache/batlehub-corpus/malicious) and checks its sha256 against the manifest.

Column `family` is the sample's name family (rule and draw in draw-malicious.py, which
writes this manifest): samples of one family are one campaign for splitting purposes.

How a row becomes an archive is its `form` column:

  archive      the dataset keeps the archive as published (a .tar.gz sdist, a .whl, or an
               npm .tgz): its bytes are copied as they are. An npm .tgz is also listed
               (in memory, never extracted) and refused unless every member is a regular
               file or directory under package/, with no absolute path and no "..".
  repack:npm   the dataset keeps the unpacked package directory (npm-zoo does): the files
               under that directory are packed, in Python, into the form npm publishes —
               a gzip'd tar with a top-level package/ directory — deterministically (sorted
               names, fixed mtime 1985-10-26T08:15:00Z as npm uses, uid/gid 0, no owner
               names, mode 644 or 755, gzip mtime 0). "exclude=a,b" names files the dataset's
               curators attached beside the package (a second stage they downloaded
               later, say) that the published tarball did not contain.

Nothing is ever executed, installed or imported: the samples are only read as bytes and,
for repack:npm, as plain files from git. Symlinks in a dataset directory are refused.
Nothing is extracted. The output is never committed: it is real malware.

    bench/verdicts/fetch-malicious.py [OUT] [--dataset OWNER/NAME=PATH ...] [--manifest FILE]

Rows name their dataset repository (column `dataset`), and several datasets are read in one
run: each is looked up by that name, from --dataset OWNER/NAME=PATH when given, else at
/work/.mirror/OWNER+NAME/repo. The datasets the manifest uses today:

  lxyeternal/pypi_malregistry                PyPI sdists and wheels (form archive)
  spaceraccoon/npm-zoo                       npm package directories (form repack:npm)
  jnicastro-Sonatype/Malicious-NPM-Packages  npm tarballs as published (form archive)
"""
import argparse
import gzip
import hashlib
import io
import os
import subprocess
import sys
import tarfile

DEFAULT_OUT = "/var/cache/batlehub-corpus/malicious"
MIRROR_ROOT = "/work/.mirror"
COLUMNS = ["ecosystem", "name", "version", "family", "file", "sha256", "dataset", "commit", "path", "form", "note"]
NPM_MTIME = 499162500  # 1985-10-26T08:15:00Z, the date npm stamps on every packed file
MAX_SAMPLE = 5 * 1024 * 1024


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
            fam = row["family"]
            if not fam or fam != fam.lower() or any(c.isspace() for c in fam):
                sys.exit(f"{path}:{n}: bad family {fam!r} (lowercase, no spaces; see draw-malicious.py)")
            name = row["file"]
            if not name or "/" in name or "\\" in name or name.startswith("."):
                sys.exit(f"{path}:{n}: bad file name {name!r}")
            if ".." in row["path"].split("/") or row["path"].startswith("/"):
                sys.exit(f"{path}:{n}: bad dataset path {row['path']!r}")
            rows.append(row)
    return rows


class Dataset:
    """A dataset repository on disk: a bare git dir (read at the manifest's commit) or a
    plain checkout (read from the work tree)."""

    def __init__(self, path):
        self.path = path
        self.git = None
        for cand in (path, os.path.join(path, ".git")):
            r = subprocess.run(["git", "--git-dir", cand, "rev-parse", "--git-dir"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                self.git = cand
                break
        self.worktree = path if os.path.isdir(path) and self.git != path else None

    def _git(self, *args):
        r = subprocess.run(["git", "--git-dir", self.git, *args], capture_output=True)
        if r.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {r.stderr.decode(errors='replace').strip()}")
        return r.stdout

    def has_commit(self, commit):
        if not self.git:
            return False
        r = subprocess.run(["git", "--git-dir", self.git, "cat-file", "-e", f"{commit}^{{commit}}"],
                           capture_output=True)
        return r.returncode == 0

    def read(self, commit, path):
        if self.has_commit(commit):
            return self._git("cat-file", "blob", f"{commit}:{path}")
        if not self.worktree:
            raise RuntimeError(f"commit {commit} is not in {self.path}")
        full = os.path.join(self.worktree, path)
        if os.path.islink(full):
            raise RuntimeError(f"{path} is a symlink")
        with open(full, "rb") as f:
            return f.read()

    def listdir(self, commit, path):
        """[(relative path, mode, bytes)] for every file under path, sorted."""
        out = []
        if self.has_commit(commit):
            raw = self._git("ls-tree", "-r", "-z", commit, "--", path.rstrip("/") + "/")
            for ent in raw.split(b"\0"):
                if not ent:
                    continue
                meta, name = ent.split(b"\t", 1)
                mode, typ, sha = meta.decode().split()
                name = name.decode()
                if typ != "blob" or mode == "120000":
                    raise RuntimeError(f"{name}: not a regular file (mode {mode})")
                rel = name[len(path.rstrip("/")) + 1:]
                out.append((rel, mode, self._git("cat-file", "blob", sha)))
        elif self.worktree:
            top = os.path.join(self.worktree, path)
            for d, subdirs, names in os.walk(top):
                subdirs.sort()
                for nm in names:
                    full = os.path.join(d, nm)
                    if os.path.islink(full) or not os.path.isfile(full):
                        raise RuntimeError(f"{full}: not a regular file")
                    mode = "100755" if os.access(full, os.X_OK) else "100644"
                    with open(full, "rb") as f:
                        out.append((os.path.relpath(full, top), mode, f.read()))
        else:
            raise RuntimeError(f"commit {commit} is not in {self.path}")
        return sorted(out)


def repack_npm(files, exclude):
    """The package directory's files as npm publishes them: package/<path> in a .tgz."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for rel, mode, data in files:
            if rel in exclude:
                continue
            parts = rel.split("/")
            if rel.startswith("/") or ".." in parts or "" in parts:
                raise RuntimeError(f"refusing path {rel!r}")
            ti = tarfile.TarInfo("package/" + rel)
            ti.size = len(data)
            ti.mtime = NPM_MTIME
            ti.mode = 0o755 if mode == "100755" else 0o644
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ""
            tf.addfile(ti, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as gz:
        gz.write(buf.getvalue())
    return out.getvalue()


def check_npm_tarball(data):
    """Refuses an npm .tgz holding anything but plain files and directories under package/.
    The archive is only listed, in memory; nothing is extracted or written."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tf:
            members = tf.getmembers()
    except (tarfile.TarError, OSError, EOFError) as e:
        raise RuntimeError(f"not a gzip'd tar: {e}")
    if not members:
        raise RuntimeError("empty tarball")
    for m in members:
        parts = m.name.split("/")
        if m.name.startswith("/") or ".." in parts:
            raise RuntimeError(f"refusing member path {m.name!r}")
        if not (m.isfile() or m.isdir()):
            raise RuntimeError(f"refusing member {m.name!r}: not a regular file or directory")
        if parts[0] != "package":
            raise RuntimeError(f"member {m.name!r} is not under package/")


def build(row, ds):
    form = row["form"]
    if form == "archive":
        data = ds.read(row["commit"], row["path"])
        if row["ecosystem"] == "npm":
            check_npm_tarball(data)
    elif form.startswith("repack:npm"):
        exclude = set()
        for opt in form.split()[1:]:
            if opt.startswith("exclude="):
                exclude.update(x for x in opt[len("exclude="):].split(",") if x)
            else:
                raise RuntimeError(f"unknown option {opt!r} in form")
        data = repack_npm(ds.listdir(row["commit"], row["path"]), exclude)
    else:
        raise RuntimeError(f"unknown form {form!r}")
    if len(data) > MAX_SAMPLE:
        raise RuntimeError(f"{len(data)} bytes, over the {MAX_SAMPLE} limit of this corpus")
    return data


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=DEFAULT_OUT)
    ap.add_argument("--manifest", default=os.path.join(here, "malicious.tsv"))
    ap.add_argument("--dataset", action="append", default=[], metavar="OWNER/NAME=PATH")
    args = ap.parse_args()

    rows = read_manifest(args.manifest)
    paths = {}
    for spec in args.dataset:
        if "=" not in spec:
            sys.exit(f"--dataset {spec!r}: expected OWNER/NAME=PATH")
        k, v = spec.split("=", 1)
        paths[k] = v
    datasets = {}
    for repo in sorted({r["dataset"] for r in rows}):
        p = paths.get(repo, os.path.join(MIRROR_ROOT, repo.replace("/", "+"), "repo"))
        if not os.path.isdir(p):
            sys.exit(f"no copy of {repo}: looked at {p} (give --dataset {repo}=PATH)")
        datasets[repo] = Dataset(p)

    counts, failed, total = {}, [], 0
    for row in rows:
        dest_dir = os.path.join(args.out, row["ecosystem"])
        os.makedirs(dest_dir, exist_ok=True)
        dest = os.path.join(dest_dir, row["file"])
        try:
            if os.path.isfile(dest):
                with open(dest, "rb") as f:
                    if hashlib.sha256(f.read()).hexdigest() == row["sha256"]:
                        status = "present"
                        total += os.path.getsize(dest)
                        counts[(row["ecosystem"], status)] = counts.get((row["ecosystem"], status), 0) + 1
                        continue
            data = build(row, datasets[row["dataset"]])
            got = hashlib.sha256(data).hexdigest()
            if got != row["sha256"]:
                raise RuntimeError(f"sha256 {got}, manifest says {row['sha256']}; not written")
            tmp = dest + ".part"
            with open(tmp, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o444)  # read-only bytes; never executable
            os.replace(tmp, dest)
            total += len(data)
            counts[(row["ecosystem"], "written")] = counts.get((row["ecosystem"], "written"), 0) + 1
        except Exception as e:
            failed.append(row["file"])
            print(f"{row['ecosystem']}/{row['file']}: {e}", file=sys.stderr)

    eco = {}
    for r in rows:
        kind = "tgz" if r["ecosystem"] == "npm" else ("wheel" if r["file"].endswith(".whl") else "sdist")
        eco[(r["ecosystem"], kind)] = eco.get((r["ecosystem"], kind), 0) + 1
    done = sum(counts.values())
    print(f"fetch-malicious: {len(rows)} samples in {args.out}: "
          + ", ".join(f"{k[0]} {k[1]} {v}" for k, v in sorted(counts.items()))
          + f", {len(failed)} failed; {total} bytes verified")
    print("  " + ", ".join(f"{k[0]} {k[1]} {v}" for k, v in sorted(eco.items())))
    return 1 if failed or done != len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
