#!/usr/bin/env python3
"""Builds a scanner's room: the tree bwrap binds read-only as / and an image is made from.

A room holds the scanner and what it needs to run, the agent, and the mount points bwrap
and the engines need (/proc /dev /work /tmp /sys) — and nothing else: no shell, no batlehub, no
other scanner. Everything is copied from this machine; nothing is downloaded.

  build-room.py --definition rooms/yara.toml --agent build/release/src/agent/batlehub-sandbox \
                --out /opt/sandbox/yara
  build-room.py --name test --binary /path/to/static-tool:/usr/bin/tool --agent … --out DIR

A definition (TOML):

  [room]
  name = "yara"
  [[binary]]                 # a program; its shared-library closure and loader come along
  source = "/usr/bin/yara"
  dest = "/usr/bin/yara"     # default: the same path
  [[tree]]                   # a directory copied whole (an interpreter's library, a venv)
  source = "/usr/lib/python3.11"
  exclude = ["test", "__pycache__"]   # directory names left out
  [[file]]                   # one plain file (data, rules, certificates)
  source = "/etc/ssl/certs/ca-certificates.crt"
  [[file]]                   # a relative source is beside the definition (rooms/behavior/…)
  source = "behavior/fallback.py"
  dest = "/usr/lib/python3/dist-packages/_batlehub_fallback.py"
  [[file]]                   # or one written from the definition itself
  dest = "/etc/resolv.conf"
  content = "nameserver 127.0.0.53\n"
  [[link]]                   # a symbolic link, to what a run writes under /work (the
  dest = "/etc/ssl/certs/ca-certificates.crt"   # detonation's per-run CA): an absolute
  target = "/work/tls/ca.pem"                     # target under /work only

The room records the Debian packages its files came from, as distroless images do
(/var/lib/dpkg/status.d/<package>, with /etc/debian_version and /etc/os-release): an image
scanner or an SBOM generator (`trivy rootfs --format spdx-json ROOM`) names what is inside.

A room holds no shell unless its [room] table says why it must (`shell = "<reason>"`): the
detonation room runs a package's install scripts, which npm runs with `sh -c`. Even then no
bash, busybox or batlehub.

The result is checked before the tool exits: no forbidden name in any bin directory, the
agent present and static, every binary's closure resolved inside the room.
"""
import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib

FORBIDDEN = {"sh", "bash", "dash", "busybox", "batlehub"}
BIN_DIRS = ["bin", "sbin", "usr/bin", "usr/sbin", "usr/local/bin"]
MOUNT_POINTS = ["proc", "dev", "work", "tmp", "sys"]
AGENT_DEST = "/usr/local/bin/batlehub-sandbox"


def fail(msg):
    print("build-room: " + msg, file=sys.stderr)
    sys.exit(1)


# Every host path copied into the room, for its package record (record_packages).
COPIED = []


def copy_file(src, root, dest=None, mode=None):
    dest = dest or src
    COPIED.append(src)
    target = os.path.join(root, dest.lstrip("/"))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    real = os.path.realpath(src)
    if not os.path.isfile(real):
        fail(f"{src} is not a file")
    shutil.copyfile(real, target)
    COPIED.append(real)
    st = os.stat(real)
    os.chmod(target, mode if mode is not None else (st.st_mode & 0o755))
    return target


def closure(path):
    """The shared libraries `path` needs, and its loader, as host paths (empty when static)."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True)
    text = out.stdout + out.stderr
    if "not a dynamic executable" in text or "statically linked" in text:
        return []
    libs = []
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"^(\S+) => (\S+) \(0x[0-9a-f]+\)$", line)
        if m:
            libs.append(m.group(2))
            continue
        if "not found" in line:
            fail(f"{path}: a library is missing on this machine: {line}")
        m = re.match(r"^(/\S+) \(0x[0-9a-f]+\)$", line)
        if m:
            libs.append(m.group(1))
    return libs


def add_binary(src, root, dest=None):
    copy_file(src, root, dest)
    for lib in closure(os.path.realpath(src)):
        copy_file(lib, root, lib, 0o644 if not lib.startswith("/lib64/ld") else 0o755)
        # The loader and libc are found by their usual names as well.
        real = os.path.realpath(lib)
        if real != lib:
            copy_file(real, root, real, 0o755)


def add_tree(src, root, dest=None, exclude=()):
    dest = dest or src
    target = os.path.join(root, dest.lstrip("/"))

    def ignore(d, names):
        return [n for n in names if n in exclude]

    shutil.copytree(src, target, symlinks=True, ignore=ignore, dirs_exist_ok=True)
    for d, dirs, files in os.walk(src):
        dirs[:] = [x for x in dirs if x not in exclude]
        COPIED.extend(os.path.join(d, f) for f in files if f not in exclude)


# Debian's merged /usr: dpkg lists a file under the path its package shipped it at, /lib or
# /usr/lib, while ldd and realpath may give the other.
USR_ALIASES = [("/usr/lib/", "/lib/"), ("/usr/lib64/", "/lib64/"), ("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/")]


def dpkg_owners(info="/var/lib/dpkg/info"):
    """Every path dpkg installed, and the package that did (from its .list files)."""
    owner = {}
    for n in os.listdir(info):
        if not n.endswith(".list"):
            continue
        pkg = n[:-len(".list")].split(":")[0]
        with open(os.path.join(info, n), encoding="utf-8", errors="replace") as f:
            for line in f:
                owner.setdefault(line.rstrip("\n"), pkg)
    return owner


def record_packages(root):
    """The Debian packages the room's files came from, recorded the way distroless images do
    (/var/lib/dpkg/status.d/<package>: Package, Source, Version, Architecture), with the
    host's /etc/debian_version and /etc/os-release: an image scanner (Trivy, Grype) or an
    SBOM generator then names what is inside, with versions, and an operator can match it
    against Debian's security advisories. No dpkg database on the room's host (not Debian):
    nothing is recorded, and the tool says so. Returns the packages recorded."""
    if not os.path.isdir("/var/lib/dpkg/info") or not os.path.isfile("/etc/debian_version"):
        print("build-room: this host is not Debian (no dpkg database): no package record in the room")
        return []
    owner = dpkg_owners()
    packages = set()
    for path in COPIED:
        candidates = [path]
        for a, b in USR_ALIASES:
            if path.startswith(a):
                candidates.append(b + path[len(a):])
            elif path.startswith(b):
                candidates.append(a + path[len(b):])
        for c in candidates:
            if c in owner:
                packages.add(owner[c])
                break
    if not packages:
        return []
    fmt = "${Package}\\t${Source}\\t${Version}\\t${Architecture}\\n"
    r = subprocess.run(["dpkg-query", "-W", "-f", fmt, *sorted(packages)], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"dpkg-query could not describe {len(packages)} packages: {r.stderr.strip()}")
    status = os.path.join(root, "var/lib/dpkg/status.d")
    os.makedirs(status, exist_ok=True)
    recorded = []
    for line in r.stdout.splitlines():
        name, source, version, arch = (line.split("\t") + ["", "", "", ""])[:4]
        if not name or not version:
            continue
        stanza = f"Package: {name}\n"
        if source and source.split(" ")[0] != name:
            stanza += f"Source: {source}\n"
        stanza += f"Version: {version}\nArchitecture: {arch}\n"
        with open(os.path.join(status, name), "w", encoding="utf-8") as f:
            f.write(stanza)
        recorded.append(name)
    etc = os.path.join(root, "etc")
    os.makedirs(etc, exist_ok=True)
    for f in ("/etc/debian_version", "/etc/os-release"):
        if os.path.isfile(f) and not os.path.exists(os.path.join(root, f.lstrip("/"))):
            shutil.copyfile(os.path.realpath(f), os.path.join(root, f.lstrip("/")))
    return sorted(recorded)


def check(root, agent_dest, shell_allowed=False):
    problems = []
    forbidden = FORBIDDEN - ({"sh", "dash"} if shell_allowed else set())
    for d in BIN_DIRS:
        p = os.path.join(root, d)
        if not os.path.isdir(p):
            continue
        for n in os.listdir(p):
            if n in forbidden:
                problems.append(f"/{d}/{n} is in the room (no shell, no batlehub)")
    agent = os.path.join(root, agent_dest.lstrip("/"))
    if not os.path.isfile(agent):
        problems.append("the agent is missing")
    elif closure(agent):
        problems.append("the agent is not static")
    for m in MOUNT_POINTS:
        if not os.path.isdir(os.path.join(root, m)):
            problems.append(f"/{m} is missing")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--definition")
    ap.add_argument("--name")
    ap.add_argument("--binary", action="append", default=[], help="SRC[:DEST], with its library closure")
    ap.add_argument("--file", action="append", default=[], help="SRC[:DEST], copied as-is")
    ap.add_argument("--agent", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    spec = {"room": {"name": args.name or "room"}, "binary": [], "tree": [], "file": [], "link": []}
    if args.definition:
        with open(args.definition, "rb") as f:
            spec.update(tomllib.load(f))
    for b in args.binary:
        src, _, dest = b.partition(":")
        spec["binary"].append({"source": src, "dest": dest or src})
    for b in args.file:
        src, _, dest = b.partition(":")
        spec["file"].append({"source": src, "dest": dest or src})

    out = os.path.abspath(args.out)
    tmp = out + ".building"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for m in MOUNT_POINTS:
        os.makedirs(os.path.join(tmp, m), exist_ok=True)
    os.chmod(os.path.join(tmp, "tmp"), 0o1777)
    copy_file(args.agent, tmp, AGENT_DEST, 0o755)
    for b in spec.get("binary", []):
        add_binary(b["source"], tmp, b.get("dest"))
    for t in spec.get("tree", []):
        add_tree(t["source"], tmp, t.get("dest"), tuple(t.get("exclude", [])))
    for f in spec.get("file", []):
        if "content" in f:
            target = os.path.join(tmp, f["dest"].lstrip("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as out_file:
                out_file.write(f["content"])
            os.chmod(target, 0o644)
        else:
            source = f["source"]
            if not os.path.isabs(source) and args.definition:
                source = os.path.join(os.path.dirname(os.path.abspath(args.definition)), source)
            copy_file(source, tmp, f.get("dest"), 0o644)
    for link in spec.get("link", []):
        # A room is read-only and copied whole: a link may only point into the run's own /work,
        # never at the host or elsewhere in the room.
        target_path = os.path.normpath(link["target"])
        if not target_path.startswith("/work/"):
            shutil.rmtree(tmp, ignore_errors=True)
            fail(f"[[link]] {link['dest']}: its target must be under /work/, not {link['target']}")
        where = os.path.join(tmp, link["dest"].lstrip("/"))
        os.makedirs(os.path.dirname(where), exist_ok=True)
        if os.path.lexists(where):
            os.remove(where)
        os.symlink(target_path, where)
    record_packages(tmp)
    shell = spec["room"].get("shell")
    if shell is not None and not str(shell).strip():
        fail("[room] shell must say why the room needs a shell")
    problems = check(tmp, AGENT_DEST, shell_allowed=shell is not None)
    if problems:
        shutil.rmtree(tmp, ignore_errors=True)
        fail("refusing the room: " + "; ".join(problems))
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print(f"build-room: {spec['room'].get('name')} -> {out}")


if __name__ == "__main__":
    main()
