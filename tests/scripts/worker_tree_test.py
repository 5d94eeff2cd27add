#!/usr/bin/env python3
"""The worker image's tree (scripts/build-worker-tree.py), built from this build's binaries
and checked the way an engine would use it: the worker and bwrap run from inside it (chroot,
with nothing of the host), every room is there with its agent, and no shell is anywhere on
a PATH directory.

  worker_tree_test.py SOURCE_DIR BATLEHUB AGENT FAKE_POSTMORTEM AGENT_STATIC

Exit 77 (ctest's skip) when the agent is not static: a room refuses a dynamic agent, and
the sanitizer build cannot link it statically. The release build runs it.
"""
import os
import shutil
import subprocess
import sys
import tempfile

source, batlehub, agent, fake, static = sys.argv[1:6]
if static not in ("1", "ON", "TRUE", "true"):
    print("skip: this build links the agent dynamically (sanitizers cannot link statically) and a room "
          "refuses a dynamic agent; the release build runs this test")
    sys.exit(77)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "tree")
    r = subprocess.run([sys.executable, os.path.join(source, "scripts/build-worker-tree.py"), "--batlehub", batlehub,
                        "--agent", agent, "--room-binary", f"postmortem={fake}:/usr/bin/postmortem", "--out", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, "the tree builds: " + r.stderr.strip())
    if r.returncode == 0:
        for path in ["usr/local/bin/batlehub", "usr/bin/bwrap", "opt/sandbox/postmortem/usr/local/bin/batlehub-sandbox",
                     "opt/sandbox/postmortem/usr/bin/postmortem", "var/lib/batlehub", "tmp", "etc/passwd"]:
            check(os.path.exists(os.path.join(out, path)), "/" + path + " is in the tree")
        for d in ["bin", "sbin", "usr/bin", "usr/sbin", "usr/local/bin"]:
            p = os.path.join(out, d)
            shells = [n for n in (os.listdir(p) if os.path.isdir(p) else []) if n in ("sh", "bash", "dash", "busybox")]
            check(not shells, f"/{d} holds no shell")
        # Run from inside: only what the tree holds (its libraries and loader) is there.
        v = subprocess.run(["chroot", out, "/usr/local/bin/batlehub", "--version"], capture_output=True, text=True)
        check(v.returncode == 0 and v.stdout.startswith("batlehub "), "batlehub runs inside the tree: " + v.stdout + v.stderr)
        b = subprocess.run(["chroot", out, "/usr/bin/bwrap", "--version"], capture_output=True, text=True)
        check(b.returncode == 0 and "bubblewrap" in b.stdout, "bwrap runs inside the tree: " + b.stdout + b.stderr)
        c = subprocess.run(["chroot", out, "/usr/local/bin/batlehub", "worker", "--help"], capture_output=True, text=True)
        check(c.returncode == 0 and "worker" in c.stdout, "the image's command, batlehub worker, is there")
    # A room whose scanner is missing is refused, not left out.
    bad = subprocess.run([sys.executable, os.path.join(source, "scripts/build-worker-tree.py"), "--batlehub", batlehub,
                          "--agent", agent, "--room-binary", "ghost=/nonexistent/ghost:/usr/bin/ghost",
                          "--out", os.path.join(tmp, "bad")], capture_output=True, text=True)
    check(bad.returncode != 0 and not os.path.exists(os.path.join(tmp, "bad")), "a room that cannot be built refuses the tree")

print(f"worker tree: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
