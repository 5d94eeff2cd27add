#!/usr/bin/env python3
"""What an image says about itself (issue 48, point 1): a room records the Debian packages
its files came from the way distroless images do (scripts/build-room.py), Trivy turns that
record into an SBOM with no network (scripts/build-images.sh), and an image carries the
image-spec's own labels (scripts/build-image.py) — checked against dpkg, git and podman.

  image_record_test.py SOURCE_DIR AGENT AGENT_STATIC TRIVY

Exit 77 (ctest's skip), saying why: the agent is not static (the sanitizer build; a room
refuses a dynamic agent), or YARA, whose room is the sample, is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

source, agent, static, trivy = sys.argv[1:5]
if static not in ("1", "ON", "TRUE", "true"):
    print("skip: this build links the agent dynamically (sanitizers cannot link statically) and a room "
          "refuses a dynamic agent; the release build runs this test")
    sys.exit(77)
if not os.path.isfile("/usr/bin/yara"):
    print("skip: YARA is not installed (scripts/install-scanners.sh), and its room is this test's sample")
    sys.exit(77)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def dpkg_version(pkg):
    return subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True).stdout


def build_room(out, *args):
    return subprocess.run([sys.executable, os.path.join(source, "scripts/build-room.py"), *args, "--agent", agent,
                           "--out", out], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    room = os.path.join(tmp, "yara")
    r = build_room(room, "--definition", os.path.join(source, "rooms/yara.toml"))
    check(r.returncode == 0, "the yara room builds: " + r.stderr.strip())
    status = os.path.join(room, "var/lib/dpkg/status.d")
    recorded = sorted(os.listdir(status)) if os.path.isdir(status) else []
    # yara's binary, its library and libc: what ldd gave and dpkg owns.
    for pkg in ("yara", "libyara9", "libc6"):
        stanza = open(os.path.join(status, pkg)).read() if pkg in recorded else ""
        check(f"Package: {pkg}\n" in stanza and f"Version: {dpkg_version(pkg)}\n" in stanza,
              f"the room records {pkg} at dpkg's version {dpkg_version(pkg)}: {stanza!r}")
    # Nothing the room does not hold: no package of another scanner, no shell's.
    for pkg in ("python3.11", "dash", "bash", "nodejs"):
        check(pkg not in recorded, f"the room records no {pkg}")
    with open("/etc/debian_version") as f:
        host = f.read()
    with open(os.path.join(room, "etc/debian_version")) as f:
        check(f.read() == host, "the room says which Debian it came from (/etc/debian_version)")

    # A room of the static agent alone has no package to record.
    bare = os.path.join(tmp, "bare")
    r = build_room(bare, "--name", "bare")
    check(r.returncode == 0 and not os.path.exists(os.path.join(bare, "var/lib/dpkg/status.d")),
          "a room of static binaries records no package: " + r.stderr.strip())

    # Trivy's SBOM of the room, with no network to reach (a namespace of its own when root).
    if os.path.isfile(trivy):
        argv = [trivy, "rootfs", "--quiet", "--cache-dir", os.path.join(tmp, "cache"), "--format", "spdx-json", room]
        if os.geteuid() == 0 and shutil.which("unshare"):
            argv = ["unshare", "--net", "--"] + argv
        r = subprocess.run(argv, capture_output=True, text=True, timeout=240)
        check(r.returncode == 0, "trivy rootfs writes the room's SBOM offline: " + r.stderr.strip()[-300:])
        try:
            sbom = json.loads(r.stdout)
        except ValueError:
            sbom = {}
        purls = {ref.get("referenceLocator", "") for p in sbom.get("packages", []) for ref in p.get("externalRefs", [])}
        want = f"pkg:deb/debian/yara@{dpkg_version('yara').replace('+', '%2B')}?arch=amd64"
        check(sbom.get("spdxVersion") == "SPDX-2.3" and any(p.startswith(want) for p in purls),
              f"the SBOM is SPDX 2.3 and names {want}: {sorted(purls)[:4]}")
    else:
        print(f"skip (part): no Trivy at {trivy} (scripts/install-scanners.sh): the SBOM is not checked")

    # The image's labels, as podman shows them.
    if shutil.which("podman"):
        tag = f"batlehub-sandbox-image-record-test:{os.getpid()}"
        r = subprocess.run([sys.executable, os.path.join(source, "scripts/build-image.py"), "--room", room,
                            "--engine", "podman", "--tag", tag, "--source", "https://git.example/batlehub"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "the image builds: " + r.stderr.strip())
        shown = subprocess.run(["podman", "image", "inspect", tag, "--format", "{{json .Labels}}"],
                               capture_output=True, text=True)
        subprocess.run(["podman", "image", "rm", tag], capture_output=True)
        labels = json.loads(shown.stdout or "{}") or {}
        with open(os.path.join(source, "CMakeLists.txt")) as f:
            version = f.read().split("project(batlehub VERSION ", 1)[1].split()[0]
        oci = "org.opencontainers.image."
        check(labels.get(oci + "version") == version, f"version label {labels.get(oci + 'version')} is {version}")
        check(labels.get(oci + "source") == "https://git.example/batlehub", "source label is --source")
        check(labels.get(oci + "title") == "batlehub-sandbox-image-record-test", "title label is the tag's name")
        head = subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True, text=True)
        if head.returncode == 0:
            check(labels.get(oci + "revision") == head.stdout.strip(), "revision label is the checkout's commit")
            check(len(labels.get(oci + "created", "")) == 20 and labels[oci + "created"].endswith("Z"),
                  f"created label is RFC 3339 UTC: {labels.get(oci + 'created')}")
        else:
            check(oci + "revision" not in labels, "a tree that is no checkout gets no revision label")
    else:
        print("skip (part): podman is not installed: the labels are not checked")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
