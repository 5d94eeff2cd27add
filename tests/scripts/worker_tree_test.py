#!/usr/bin/env python3
"""The worker image's tree (scripts/build-worker-tree.py), built from this build's binaries
and checked the way an engine would use it: the worker and bwrap run from inside it (chroot,
with nothing of the host), every room is there with its agent, no shell is anywhere on a
PATH directory, and Containerfile.worker's command (upstream's: `--config
/etc/batlehub/config.toml --roles worker`) starts the worker on that file.

  worker_tree_test.py SOURCE_DIR BATLEHUB AGENT FAKE_POSTMORTEM AGENT_STATIC

Exit 77 (ctest's skip) when the agent is not static: a room refuses a dynamic agent, and
the sanitizer build cannot link it statically. The release build runs it.
"""
import json
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


def image_command(containerfile):
    """ENTRYPOINT and CMD of a Containerfile, each in its exec (JSON) form; None when absent."""
    found = {"ENTRYPOINT": None, "CMD": None}
    with open(containerfile) as f:
        for line in f:
            word, _, rest = line.strip().partition(" ")
            if word in found:
                found[word] = json.loads(rest)
    return found["ENTRYPOINT"], found["CMD"]


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
        # bwrap's Debian package recorded as distroless images record theirs, at dpkg's version.
        bw = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "bubblewrap"], capture_output=True, text=True)
        stanza = os.path.join(out, "var/lib/dpkg/status.d/bubblewrap")
        recorded = open(stanza).read() if os.path.isfile(stanza) else ""
        check(bw.returncode != 0 or f"Version: {bw.stdout}\n" in recorded,
              f"the tree records bubblewrap {bw.stdout} (var/lib/dpkg/status.d): {recorded!r}")
        # Run from inside: only what the tree holds (its libraries and loader) is there.
        v = subprocess.run(["chroot", out, "/usr/local/bin/batlehub", "--version"], capture_output=True, text=True)
        check(v.returncode == 0 and v.stdout.startswith("batlehub "), "batlehub runs inside the tree: " + v.stdout + v.stderr)
        b = subprocess.run(["chroot", out, "/usr/bin/bwrap", "--version"], capture_output=True, text=True)
        check(b.returncode == 0 and "bubblewrap" in b.stdout, "bwrap runs inside the tree: " + b.stdout + b.stderr)
        # The image's command, as Containerfile.worker gives it: upstream's (its chart starts
        # the worker with these arguments). Run from inside, it is the worker reading
        # /etc/batlehub/config.toml: without the file, and then with one its loader refuses
        # ([storage] missing), it stops at the configuration, exit 2 — it never starts.
        entrypoint, cmd = image_command(os.path.join(source, "Containerfile.worker"))
        check(entrypoint == ["/usr/local/bin/batlehub"], f"the image's ENTRYPOINT is batlehub: {entrypoint}")
        check(cmd == ["--config", "/etc/batlehub/config.toml", "--roles", "worker"],
              f"the image's CMD is upstream's, --config /etc/batlehub/config.toml --roles worker: {cmd}")
        if entrypoint and cmd:
            c = subprocess.run(["chroot", out] + entrypoint + cmd, capture_output=True, text=True, timeout=60)
            check(c.returncode == 2 and "/etc/batlehub/config.toml: cannot be opened" in c.stdout + c.stderr,
                  f"the image's command reads /etc/batlehub/config.toml (absent: exit {c.returncode}): "
                  + (c.stdout + c.stderr).strip())
            os.makedirs(os.path.join(out, "etc/batlehub"), exist_ok=True)
            with open(os.path.join(out, "etc/batlehub/config.toml"), "w") as f:
                f.write('[worker]\nmax_concurrent = 1\n')
            c = subprocess.run(["chroot", out] + entrypoint + cmd, capture_output=True, text=True, timeout=60)
            check(c.returncode == 2 and "ERROR config:" in c.stderr and "[storage] is missing" in c.stderr,
                  f"… and starts the worker, whose loader refuses a file without [storage] (exit {c.returncode}): "
                  + (c.stdout + c.stderr).strip())
            roles = [a if a != "worker" else "proxy,worker" for a in cmd]
            c = subprocess.run(["chroot", out] + entrypoint + roles, capture_output=True, text=True, timeout=60)
            check(c.returncode == 2 and "this build has none" in c.stderr,
                  f"--roles proxy,worker is refused: this image has the worker role only (exit {c.returncode}): "
                  + (c.stdout + c.stderr).strip())
    # A room whose scanner is missing is refused, not left out.
    bad = subprocess.run([sys.executable, os.path.join(source, "scripts/build-worker-tree.py"), "--batlehub", batlehub,
                          "--agent", agent, "--room-binary", "ghost=/nonexistent/ghost:/usr/bin/ghost",
                          "--out", os.path.join(tmp, "bad")], capture_output=True, text=True)
    check(bad.returncode != 0 and not os.path.exists(os.path.join(tmp, "bad")), "a room that cannot be built refuses the tree")

# The image itself (scripts/build-worker-image.py): built by podman from the tree, FROM scratch,
# with the image-spec's labels, upstream's command, and run: `--version` in place of its CMD.
if shutil.which("podman"):
    tag = f"batlehub-worker-tree-test:{os.getpid()}"
    r = subprocess.run([sys.executable, os.path.join(source, "scripts/build-worker-image.py"), "--batlehub", batlehub,
                        "--agent", agent, "--room-binary", f"postmortem={fake}:/usr/bin/postmortem", "--tag", tag],
                       capture_output=True, text=True, timeout=240)
    check(r.returncode == 0, "the worker image builds: " + (r.stderr or r.stdout).strip()[-500:])
    shown = subprocess.run(["podman", "image", "inspect", tag, "--format",
                            "{{json .Labels}}\t{{json .Config.Entrypoint}}\t{{json .Config.Cmd}}"],
                           capture_output=True, text=True).stdout.strip().split("\t")
    labels, entry, cmd = (json.loads(x) if x else None for x in (shown + ["", "", ""])[:3])
    labels = labels or {}
    check(labels.get("org.opencontainers.image.title") == tag.rsplit(":", 1)[0] and
          "org.opencontainers.image.version" in labels, f"the worker image carries the image-spec's labels: {labels}")
    check(entry == ["/usr/local/bin/batlehub"] and cmd == ["--config", "/etc/batlehub/config.toml", "--roles", "worker"],
          f"the worker image's command is Containerfile.worker's: {entry} {cmd}")
    v = subprocess.run(["podman", "run", "--rm", "--network", "none", tag, "--version"], capture_output=True, text=True,
                       timeout=120)
    check(v.returncode == 0 and v.stdout.startswith("batlehub "), "the worker image runs batlehub: " + v.stdout + v.stderr)
    subprocess.run(["podman", "image", "rm", "--force", tag], capture_output=True)
else:
    print("skip (part): podman is not installed: the worker image is not built")

print(f"worker tree: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
