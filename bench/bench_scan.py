#!/usr/bin/env python3
"""bench_scan: a whole sandboxed `batlehub scan` of a large package vs GuardDog over the tree.

    bench/bench_scan.py BUILD_DIR [--package PATH] [--reps N] [--warmup N] [--dir DIR]

Times, alternating, after --warmup untimed rounds, --reps runs of each of:

  * the scan: `batlehub scan --config CFG --format json ARCHIVE`, the CLI end to end as a user
    runs it (config, the probe of the guarddog room, the bwrap run: run dir, bundle, bwrap,
    the agent's fetch and extraction, its rlimits and seccomp filter, GuardDog, collect,
    removal of the run dir), fork to wait4;
  * the anchor: the same GuardDog (/opt/batlehub/guarddog/bin/guarddog, the venv the room
    carries), same rules, same argv (`guarddog pypi scan package --output-format json`), over
    the same archive extracted once beforehand into the same filesystem, no sandbox; only a
    fresh network namespace (unshare), so that GuardDog's refresh of its top-packages list
    fails at once here as it does in the sandbox, and the bench reaches nothing outside.

and, for the breakdown only, in the same alternation: `batlehub probe` of the same config (the
probe every scan starts with), the agent alone extracting the same archive into the same
filesystem (argv `true`: its timings_ms.extract) and the anchor in a cgroup of one CPU (the
bound every bwrap run has: docs/operations/bwrap.md#cgroups), when cgroup v1's or v2's cpu
controller is writable.

Every round is checked: the scan must exit with a verdict (0-3) and a JSON report in which
GuardDog ran without error, and its GuardDog findings (rule, location, message of each hit)
must equal the anchor's; any difference prints FAILED and exits 1. A missed aim prints MISS.

The package is botocore's sdist (bench/scan-package.tsv), read from
/var/cache/batlehub-corpus/scan; nothing here touches the network. When it is missing, the
bench says how to fetch it and skips (exit 0).
"""
import argparse
import ctypes
import datetime
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GUARDDOG = "/opt/batlehub/guarddog/bin/guarddog"
MANIFEST = os.path.join(HERE, "scan-package.tsv")
CACHE = "/var/cache/batlehub-corpus/scan"
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"  # wire::kSandboxPath: the scanner's PATH inside
AIM = 1.05
CLONE_NEWNET = 0x40000000
THREATS_TOGETHER = "batlehub-threats-together"  # ours (guarddog.cc), not a GuardDog hit


def skip(why):
    print(f"bench_scan: SKIP: {why}")
    sys.exit(0)


def fail(why):
    print(f"bench_scan: FAILED: {why}")
    sys.exit(1)


def pinned_package():
    with open(MANIFEST, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) == 6 and cols[0] == "pypi":
                return {"name": cols[1], "version": cols[2], "file": cols[3], "sha256": cols[4]}
    fail(f"{MANIFEST} names no package")


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def libc_unshare_net():
    # preexec_fn of the anchor: a network namespace of its own, nothing in it but a loopback
    # that is down, so a connect fails at once and nothing leaves the machine.
    if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET) != 0:
        os._exit(126)


class Run:
    def __init__(self, wall, cpu, status, stdout):
        self.wall, self.cpu, self.status, self.stdout = wall, cpu, status, stdout


def run(argv, cwd=None, env=None, preexec=None, stdout_path=None):
    """fork to wait4: wall clock, the tree's user+sys (waited-for children), exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env, preexec_fn=preexec, stdout=out, stderr=subprocess.PIPE,
                         close_fds=True)
    _, err = p.communicate()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if stdout_path:
        out.close()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    data = open(stdout_path, "rb").read() if stdout_path else b""
    r = Run(wall, cpu, p.returncode, data)
    r.stderr = err.decode("utf-8", "replace")
    return r


def hits_of(value):
    # guarddog.cc's hits_of: a list of hits, a message string, nothing for null/false/{}/[].
    if value is None or value is False or (isinstance(value, (dict, list)) and not value):
        return []
    return list(value) if isinstance(value, list) else [value]


def key_of(rule, hit):
    if isinstance(hit, dict):
        return (rule, str(hit.get("location", "")), str(hit.get("message", "")))
    return (rule, "", str(hit))


def anchor_findings(stdout):
    try:
        doc = json.loads(stdout)
    except ValueError as e:
        fail(f"the anchor's GuardDog printed no JSON ({e}): {stdout[:200]!r}")
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, dict):
        fail("the anchor's GuardDog report has no `results` object")
    return sorted(key_of(rule, h) for rule, v in results.items() for h in hits_of(v))


def scan_findings(stdout):
    try:
        doc = json.loads(stdout)
    except ValueError as e:
        fail(f"batlehub scan printed no JSON ({e}): {stdout[:200]!r}")
    rep = doc[0] if isinstance(doc, list) and doc else doc
    if "guarddog" not in rep.get("scanners_done", []):
        errs = [f.get("summary") for f in rep.get("findings", []) if f.get("scanner") == "guarddog"]
        fail(f"GuardDog did not finish in the sandbox: {errs[:1]}")
    out = []
    for f in rep.get("findings", []):
        if f.get("scanner") != "guarddog" or f.get("reference") == THREATS_TOGETHER:
            continue
        out.append(key_of(f.get("reference"), f.get("raw")))
    return sorted(out)


def compare(what, got, want):
    if got == want:
        return
    a, b = set(got), set(want)
    extra = sorted(a - b)[:3]
    missing = sorted(b - a)[:3]
    fail(f"{what}: {len(got)} GuardDog findings against the anchor's {len(want)}; only in the scan: {extra}; "
         f"only in the anchor: {missing}")


def cpu_cgroup(name):
    """A cgroup bounded to one CPU as the bwrap runtime's (quota = period = 100 ms); None if the
    cpu controller cannot be written here."""
    v2 = "/sys/fs/cgroup/cgroup.controllers"
    try:
        if os.path.exists(v2):
            if "cpu" not in open(v2).read().split():
                return None
            d = f"/sys/fs/cgroup/{name}"
            os.mkdir(d)
            open(f"{d}/cpu.max", "w").write("100000 100000")
        else:
            d = f"/sys/fs/cgroup/cpu/{name}"
            os.mkdir(d)
            open(f"{d}/cpu.cfs_period_us", "w").write("100000")
            open(f"{d}/cpu.cfs_quota_us", "w").write("100000")
        return d
    except OSError:
        return None


def med(xs):
    return statistics.median(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--package", default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--dir", default=os.environ.get("BATLEHUB_BENCH_DIR", "/dev/shm"))
    ap.add_argument("--keep-dir", action="store_true")
    args = ap.parse_args()
    began = time.monotonic()

    print("bench_scan: a whole sandboxed `batlehub scan` of a large package vs GuardDog over the extracted tree")
    pkg = pinned_package()
    archive = args.package or os.path.join(CACHE, pkg["file"])
    fetch = f"bench/verdicts/fetch-benign.py {CACHE} --manifest bench/scan-package.tsv"
    if not os.path.isfile(archive):
        skip(f"{archive} is missing; fetch it once (it is the only step that reaches PyPI): {fetch}")
    if args.package is None and sha256_file(archive) != pkg["sha256"]:
        skip(f"{archive} is not the pinned file (sha256 differs from bench/scan-package.tsv); fetch it again: {fetch}")
    if not os.access(GUARDDOG, os.X_OK):
        skip(f"{GUARDDOG} is not installed (scripts/install-scanners.sh)")
    if shutil.which("bwrap") is None:
        skip("bwrap is not on PATH")
    build = os.path.abspath(args.build)
    batlehub = os.path.join(build, "src/server/batlehub")
    agent = os.path.join(build, "src/agent/batlehub-sandbox")
    for f in (batlehub, agent):
        if not os.access(f, os.X_OK):
            fail(f"{f} is missing; build it first (cmake --build --preset release --target batlehub batlehub-sandbox)")

    dir_ = tempfile.mkdtemp(prefix="batlehub-bench-scan.", dir=args.dir)
    os.chmod(dir_, 0o755)  # the runtime starts bwrap as uid 65532 under root: it must reach the rooms
    cg = None
    try:
        fs_type = subprocess.run(["stat", "-f", "-c", "%T", dir_], capture_output=True, text=True).stdout.strip()
        t = time.monotonic()
        rooms = os.path.join(dir_, "rooms")
        os.mkdir(rooms)
        os.chmod(rooms, 0o755)
        b = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/build-room.py"), "--definition",
                            os.path.join(ROOT, "rooms/guarddog.toml"), "--agent", agent, "--out",
                            os.path.join(rooms, "guarddog")], capture_output=True, text=True)
        if b.returncode != 0:
            fail(f"build-room.py failed: {b.stderr.strip()}")
        room_s = time.monotonic() - t
        scratch = os.path.join(dir_, "tmp")  # TMPDIR: where the runtime makes its run dirs
        os.mkdir(scratch)
        os.chmod(scratch, 0o1777)
        cfg = os.path.join(dir_, "scan.toml")
        with open(cfg, "w") as f:
            f.write(f'[worker]\nstate_dir = "{dir_}/state"\n[worker.sandbox]\nruntime = "bwrap"\n'
                    f'rooms_dir = "{rooms}"\nprobe_canaries = ["127.0.0.1:9"]\n'
                    f'[storage]\ntype = "filesystem"\npath = "{dir_}/cache"\n'
                    '[scanners.guarddog]\ntype = "guarddog"\ncommand = "guarddog"\n')
        # The anchor's tree, once, untimed: the archive as the agent lays it out (`package/`,
        # no wrapper stripped), on the same filesystem as the runtime's run dirs.
        anchor_dir = os.path.join(dir_, "anchor")
        os.makedirs(os.path.join(anchor_dir, "package"))
        with tarfile.open(archive) as tf:
            members = tf.getmembers()
            n_files = sum(1 for m in members if m.isfile())
            n_bytes = sum(m.size for m in members if m.isfile())
            tf.extractall(os.path.join(anchor_dir, "package"), filter="data")
        arc_size = os.path.getsize(archive)

        env_scan = dict(os.environ, TMPDIR=scratch)
        scan_argv = [batlehub, "scan", "--config", cfg, "--format", "json", archive]
        probe_argv = [batlehub, "probe", "--config", cfg]
        anchor_argv = [GUARDDOG, "pypi", "scan", "package", "--output-format", "json"]
        # The sandbox's environment: HOME is the work dir, PATH the room's (agent/environment.cc).
        env_anchor = {"HOME": anchor_dir, "PATH": SANDBOX_PATH}
        extract_dir = os.path.join(dir_, "extract")
        os.mkdir(extract_dir)
        with open(os.path.join(extract_dir, "manifest.json"), "w") as f:
            json.dump({"wire": 3, "argv": ["true"], "network": False,
                       "limits": {"memory_limit_mb": 2048, "cpu_seconds": 300}, "timeout_ms": 300000,
                       "extract_policy": {"max_entries": 50000, "max_extracted_bytes": 512 << 20, "max_ratio": 100},
                       "entries": [{"kind": "archive", "path": "package", "url": "file://" + archive,
                                    "size": arc_size, "strip_wrapper": False}]}, f)
        cg = cpu_cgroup(f"batlehub-bench-scan-{os.getpid()}")

        def one_cpu():
            libc_unshare_net()
            with open(os.path.join(cg, "cgroup.procs"), "w") as p:
                p.write("0")

        rows = {k: [] for k in ("scan", "anchor", "probe", "extract", "anchor1")}
        cpus = {k: [] for k in rows}
        extract_ms = []
        want = None

        def round_(measured):
            nonlocal want
            out = os.path.join(dir_, "out.json")
            a = run(anchor_argv, cwd=anchor_dir, env=env_anchor, preexec=libc_unshare_net, stdout_path=out)
            if a.status not in (0, 1):
                fail(f"the anchor's GuardDog exited {a.status}: {a.stderr[-400:]}")
            got = anchor_findings(a.stdout)
            if want is None:
                want = got
            compare("the anchor (again)", got, want)
            s = run(scan_argv, env=env_scan, stdout_path=out)
            if s.status not in (0, 1, 2, 3):
                fail(f"batlehub scan exited {s.status}: {s.stderr[-600:]}")
            compare("batlehub scan", scan_findings(s.stdout), want)
            p = run(probe_argv, env=env_scan)
            if p.status != 0:
                fail(f"batlehub probe exited {p.status}: {p.stderr[-600:]}")
            work = os.path.join(extract_dir, "work")
            os.mkdir(work)
            e = run([agent, "--in", "file://" + extract_dir + "/manifest.json", "--out",
                     "file://" + extract_dir + "/out.tar"], cwd=work)
            with tarfile.open(os.path.join(extract_dir, "out.tar")) as tf:
                res = json.load(tf.extractfile("result.json"))
            if res.get("failure") or res.get("extract", {}).get("files") not in (None, n_files):
                fail(f"the agent's extraction: {res.get('failure') or res.get('extract')}")
            shutil.rmtree(work)
            os.unlink(os.path.join(extract_dir, "out.tar"))
            one = None
            if cg:
                one = run(anchor_argv, cwd=anchor_dir, env=env_anchor, preexec=one_cpu, stdout_path=out)
                compare("the anchor on one CPU", anchor_findings(one.stdout), want)
            if measured:
                for k, r in (("scan", s), ("anchor", a), ("probe", p), ("extract", e), ("anchor1", one)):
                    if r is not None:
                        rows[k].append(r.wall)
                        cpus[k].append(r.cpu)
                extract_ms.append(res["timings_ms"]["extract"])

        load_before = open("/proc/loadavg").read().split()[:3]
        pressure = lambda: (open("/proc/pressure/cpu").readline().split()[1:3]
                            if os.path.exists("/proc/pressure/cpu") else ["?", "?"])
        pr_before = pressure()
        for _ in range(args.warmup):
            round_(False)
        for _ in range(args.reps):
            round_(True)
        load_after = open("/proc/loadavg").read().split()[:3]
        pr_after = pressure()

        os_name = "?"
        if os.path.exists("/etc/os-release"):
            for line in open("/etc/os-release"):
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip().strip('"')
        print()
        print(f"  machine  {os.cpu_count()} cores, {os_name}, Linux {platform.release()}; {args.dir} is {fs_type}")
        print(f"           load average {' '.join(load_before)} before, {' '.join(load_after)} after; "
              f"CPU pressure {'/'.join(x.split('=')[1] + '%' for x in pr_before)} (10 s/60 s) before, "
              f"{'/'.join(x.split('=')[1] + '%' for x in pr_after)} after")
        print(f"  package  {archive} ({arc_size / 1e6:.1f} MB; {n_files:,} files, {n_bytes / 2**20:.1f} MiB extracted)")
        print(f"  room     guarddog, built once by scripts/build-room.py ({room_s:.1f} s); run dirs and the "
              f"anchor's tree in {dir_} ({fs_type})")
        print(f"  findings {len(want)} GuardDog hits, the same in every scan and every anchor run")
        print(f"  runs     {args.reps} of each, alternating, after {args.warmup} untimed warm-up round(s)")
        print()
        print(f"  {'wall clock, fork to wait4':<58}{'median':>10}{'min':>10}{'cpu med':>10}")

        def row(label, k):
            if rows[k]:
                print(f"  {label:<58}{med(rows[k]):>9.2f}s{min(rows[k]):>9.2f}s{med(cpus[k]):>9.2f}s")

        row("batlehub scan --format json (probe + the sandboxed scan)", "scan")
        row("guarddog over the extracted tree (the anchor)", "anchor")
        ratio = med(rows["scan"]) / med(rows["anchor"])
        ratio_min = min(rows["scan"]) / min(rows["anchor"])
        ratio_cpu = med(cpus["scan"]) / med(cpus["anchor"])
        print(f"  {'ratio scan / anchor':<58}{ratio:>9.2f}x{ratio_min:>9.2f}x{ratio_cpu:>9.2f}x")
        print()
        print("  for the breakdown only, in the same alternation:")
        row("batlehub probe (the probe every scan starts with)", "probe")
        row("the agent alone extracting the archive (argv `true`)", "extract")
        print(f"  {'  its timings_ms.extract':<58}{med(extract_ms) / 1000:>9.2f}s{min(extract_ms) / 1000:>9.2f}s")
        if cg:
            row("the anchor in a cgroup of one CPU (the bwrap run's bound)", "anchor1")
        else:
            print("  (the anchor on one CPU: skipped, no writable cpu cgroup controller here)")
        if cg and rows["anchor1"]:
            r1 = med(rows["scan"]) / med(rows["anchor1"])
            print(f"  {'ratio scan / the anchor on one CPU (same bound, no aim)':<58}{r1:>9.2f}x")
        print()
        print("  where the scan's time goes (differences of the medians above)")
        a, s_ = med(rows["anchor"]), med(rows["scan"])
        parts = [("guarddog over the extracted tree (the anchor)", a)]
        rest = s_ - a
        if cg and rows["anchor1"]:
            bound = med(rows["anchor1"]) - a
            parts.append(("+ the run's bound of one CPU (anchor on one CPU - anchor)", bound))
            rest -= bound
        for label, k in (("+ the probe (batlehub probe)", "probe"), ("+ the agent's extraction (alone)", "extract")):
            parts.append((label, med(rows[k])))
            rest -= med(rows[k])
        parts.append(("+ the rest: CLI, bundle, bwrap, agent, seccomp, run dir removal", rest))
        for label, v in parts:
            print(f"    {label:<66}{v:>8.2f} s")
        print(f"    {'= batlehub scan':<66}{s_:>8.2f} s")
        print()
        verdict = "PASS" if ratio <= AIM else "MISS"
        print(f"  aim: ratio scan / anchor <= {AIM}     {ratio:.2f}  {verdict}")
        print()
        print(f"  ({time.monotonic() - began:.0f} s in all)")
    finally:
        if cg:
            try:
                os.rmdir(cg)
            except OSError:
                pass
        if not args.keep_dir:
            shutil.rmtree(dir_, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
