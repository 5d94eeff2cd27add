#!/usr/bin/env python3
"""Images through a registry (issue 48, point 1): scripts/build-image.py --registry pushes a
room's image to the tests' OCI registry (tests/registry_fixture.cmake) as an OCI image, and an
engine pulls it back by digest — checked against the registry's own answers (the manifest's
bytes hash to the digest printed), podman and the fixture's docker daemon.

  registry_test.py SOURCE_DIR AGENT AGENT_STATIC REGISTRY DOCKER_HOST

Exit 77 (ctest's skip), saying why: the agent is not static (the sanitizer build; a room
refuses a dynamic agent), or YARA, whose room is the sample, is not installed.
"""
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

source, agent, static, registry, docker_host = sys.argv[1:6]
if static not in ("1", "ON", "TRUE", "true"):
    print("skip: this build links the agent dynamically (sanitizers cannot link statically) and a room "
          "refuses a dynamic agent; the release build runs this test")
    sys.exit(77)
if not os.path.isfile("/usr/bin/yara"):
    print("skip: YARA is not installed (scripts/install-scanners.sh), and its room is this test's sample")
    sys.exit(77)
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("build_image", os.path.join(source, "scripts/build-image.py"))
build_image = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_image)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(*argv):
    return subprocess.run(list(argv), capture_output=True, text=True)


def build(*args):
    return run(sys.executable, os.path.join(source, "scripts/build-image.py"), *args)


def get(path, accept):
    """(body, Docker-Content-Digest) of http://REGISTRY/v2/PATH."""
    req = urllib.request.Request(f"http://{registry}/v2/{path}", headers={"Accept": accept})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read(), r.headers.get("Docker-Content-Digest")


OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"

# Which registries are spoken to in plain HTTP: this machine's only.
for host, want in [("127.0.0.1:5000", True), ("127.9.9.9", True), ("localhost:5000", True), ("[::1]:5000", True),
                   ("::1", True), ("registry.example:5000", False), ("10.0.0.1:5000", False), ("ghcr.io", False),
                   ("localhost.example", False)]:
    check(build_image.on_loopback(host) == want, f"on_loopback({host}) is {want}")

pid = os.getpid()
with tempfile.TemporaryDirectory() as tmp:
    room = os.path.join(tmp, "yara")
    r = run(sys.executable, os.path.join(source, "scripts/build-room.py"), "--definition",
            os.path.join(source, "rooms/yara.toml"), "--agent", agent, "--out", room)
    check(r.returncode == 0, "the yara room builds: " + r.stderr.strip())

    # ---- pushed: an OCI image whose manifest hashes to the digest printed ----
    tag = f"localhost/batlehub-test-regyara:{pid}"
    digest_file = os.path.join(tmp, "ref")
    r = build("--room", room, "--registry", registry, "--tag", tag, "--digest-file", digest_file)
    check(r.returncode == 0, f"build-image.py --registry {registry} pushes: {r.stderr.strip()}")
    ref = open(digest_file).read().strip() if os.path.exists(digest_file) else ""
    name = f"{registry}/batlehub-test-regyara"
    check(ref.startswith(name + "@sha256:") and len(ref) == len(name) + 72,
          f"--digest-file holds the reference by digest under the registry: {ref!r}")
    digest = ref.rsplit("@", 1)[-1]
    check(f"pushed as {ref}" in r.stdout, f"it says what it pushed: {r.stdout.strip()!r}")
    body, said = get(f"batlehub-test-regyara/manifests/{digest}", OCI_MANIFEST)
    check("sha256:" + hashlib.sha256(body).hexdigest() == digest == said,
          f"the registry's manifest hashes to {digest} (it says {said})")
    manifest = json.loads(body)
    check(manifest.get("mediaType") == OCI_MANIFEST, f"an OCI image manifest: {manifest.get('mediaType')}")
    layers = manifest.get("layers", [])
    check(len(layers) == 1 and layers[0]["mediaType"] == "application/vnd.oci.image.layer.v1.tar+gzip",
          f"one gzip'd layer: {[x['mediaType'] for x in layers]}")
    config = json.loads(get(f"batlehub-test-regyara/blobs/{manifest['config']['digest']}", "*/*")[0])
    labels = config.get("config", {}).get("Labels", {})
    check(labels.get("io.batlehub.room-digest", "").startswith("sha256:") and
          labels.get("org.opencontainers.image.version") == build_image.project_version(),
          f"its config keeps the room's digest and the image-spec's labels: {sorted(labels)}")
    check(config.get("config", {}).get("User") == "65532:65532", f"it runs as 65532: {config.get('config')}")
    _, tag_digest = get(f"batlehub-test-regyara/manifests/{pid}", OCI_MANIFEST)
    check(tag_digest == digest, f"the tag {pid} names that digest on the registry ({tag_digest})")

    # ---- the same room and tag push to the same digest; another tag is a manifest of its own ----
    again = os.path.join(tmp, "ref2")
    r = build("--room", room, "--registry", registry, "--tag", tag, "--digest-file", again)
    check(r.returncode == 0 and open(again).read().strip() == ref, "pushed twice: the same digest")
    other = os.path.join(tmp, "ref3")
    r = build("--room", room, "--registry", registry, "--tag", f"{tag}-b", "--digest-file", other)
    other_ref = open(other).read().strip() if r.returncode == 0 else ""
    other_manifest = json.loads(get(f"batlehub-test-regyara/manifests/{other_ref.rsplit('@', 1)[-1]}",
                                    OCI_MANIFEST)[0]) if other_ref else {}
    check(other_ref and other_ref != ref and other_manifest.get("layers") == layers,
          "another tag: another manifest, over the same layer blob")

    # ---- each engine pulls it by digest, and names it the tag ----
    engines = [("podman", ["podman"], []), ("docker", ["docker", "-H", docker_host], ["--docker-host", docker_host])]
    for engine, cli, extra in engines:
        etag = f"localhost/batlehub-test-regyara-{engine}:{pid}"
        r = build("--room", room, "--registry", registry, "--engine", engine, "--tag", etag, *extra)
        check(r.returncode == 0 and "pulled by digest" in r.stdout,
              f"{engine}: pulled by digest: {(r.stdout + r.stderr).strip()[-400:]}")
        pulled = run(*cli, "image", "inspect", etag, "--format", "{{json .RepoDigests}}")
        got = json.loads(pulled.stdout or "[]")
        check(any(d.startswith(f"{name}-{engine}@sha256:") for d in got),
              f"{engine}: the image {etag} is the one pulled from {registry}: {got}")
        r = build("--remove", "--engine", engine, "--tag", etag, *extra)
        check(r.returncode == 0, f"{engine}: --remove drops it: {r.stderr.strip()}")
        left = run(*cli, "images", "--digests", "--format", "{{.Repository}}@{{.Digest}}").stdout
        check(f"batlehub-test-regyara-{engine}" not in left, f"{engine}: nothing of it is left: {left.strip()!r}")

    # ---- a registry that is not there: a refusal that names it ----
    r = build("--room", room, "--registry", "127.0.0.1:9", "--tag", tag)
    check(r.returncode != 0 and "127.0.0.1:9/batlehub-test-regyara" in r.stderr,
          f"no registry at 127.0.0.1:9: refused, naming it: {r.stderr.strip()[-300:]}")
    r = build("--room", room, "--registry", "http://127.0.0.1:5000/x", "--tag", tag)
    check(r.returncode != 0 and "expected HOST[:PORT]" in r.stderr, f"a URL is no registry: {r.stderr.strip()}")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
