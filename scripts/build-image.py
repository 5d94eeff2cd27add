#!/usr/bin/env python3
"""Builds a scanner's sandbox image from its room, offline: an image whose root is exactly
the room tree (the bytes bwrap binds read-only as /), for the `oci` runtime.

  build-image.py --room /opt/sandbox/yara --engine podman
  build-image.py --room /opt/sandbox/yara --engine docker --docker-host unix:///run/d/docker.sock \\
                 --tag batlehub-sandbox-yara:0.1.0
  build-image.py --room /opt/sandbox/yara --engine containerd --containerd-address DIR/containerd/containerd.sock
  build-image.py --remove --engine containerd --containerd-address SOCK --tag TAG   # drops the tag again

How: the room is written into a tar in a temporary directory and the tar is *imported*
(`podman import` / `docker import`), not built: no Containerfile, no builder (buildah,
docker's legacy builder), no base image, nothing pulled — the equivalent of `FROM scratch`
+ `COPY room/ /` + `USER 65532:65532`, one layer. The tar is written here rather than by a
builder's COPY so that what the image holds is decided in one place:

  * every entry is owned by 0:0, with the room's mode bits (setuid and setgid cleared, as
    bwrap's nosuid bind makes them inert), the room's mtimes (CPython checks a bytecode
    cache against its source's mtime: GuardDog's room keeps its caches), its symlinks and
    hard links as such;
  * /work and /bundle are added as empty directories (0755) when the room lacks them: the
    runtime mounts its tmpfs on the first and the per-run directory on the second; /tmp,
    /proc, /dev and /sys come from the room (scripts/build-room.py makes them);
  * the image's config: USER 65532:65532, WORKDIR /work, ENV PATH=/usr/local/bin:/usr/bin:/bin,
    no ENTRYPOINT and no CMD — the runtime names the agent (`<image> batlehub-sandbox --in …
    --out …`, RFC 0022 §5.3) — and the label io.batlehub.room-digest, beside the image-spec's
    own (org.opencontainers.image.version, revision, created, source, title, description:
    oci_labels()).

containerd (the test cluster's, scripts/k8s-peer.sh: a kubelet's pods find their images there)
has no `import --change`: the same layer is wrapped, with the same config, as a docker archive
(`docker save`'s layout: manifest.json, the config, the layer) and loaded with
`ctr -a SOCK -n k8s.io images import`, which also unpacks it for the CRI's snapshotter. A tag
without a registry is stored the way containerd and the kubelet spell it (NAME:V is
docker.io/library/NAME:V); a pod names the tag as given, with imagePullPolicy IfNotPresent,
and nothing is ever pulled.

--registry HOST[:PORT] pushes the image to an OCI registry instead of importing it, and an
engine given with it *pulls* it from there by digest: the image is written as a docker
archive (the same layer and config as the import's), copied to HOST/NAME:VERSION by skopeo
(`skopeo copy --format oci`, which gzips the layer), and the reference by digest
(HOST/NAME@sha256:…) is printed and written to --digest-file. With --engine, the engine then
pulls that reference (`podman pull`, `docker pull`, `ctr images pull`) and tags it --tag:
nothing is side-loaded. A registry on loopback (127.0.0.0/8, localhost, ::1) is spoken to over
plain HTTP, as engines do by default (the tests' registry, scripts/registry-peer.sh); any other
over verified TLS, with the credentials `skopeo login` / `podman login` keep. NAME is the
tag's last path element: batlehub-sandbox-yara:0.1.0 goes to HOST/batlehub-sandbox-yara:0.1.0.

--remove drops the tag from the engine instead (`podman|docker image rm TAG`,
`ctr … images rm TAG`); containerd collects the content nothing names any more. An image pulled by digest loses
its digest reference with its tag: the tag is in the image's config (its history's
comment), so every tag is a manifest of its own and its digest names nothing else.

The room directory itself is only read. The room must pass scripts/build-room.py's own
check (the agent present and static, no shell, the mount points). A room whose definition
allows a shell (`[room] shell = "<reason>"`, the detonation's: npm runs install scripts with
/bin/sh) is imported only with that definition given (--definition rooms/<name>.toml): the
room's tree alone cannot say why it holds one.

Idempotent: io.batlehub.room-digest is a SHA-256 over every entry's path, type, mode, link
target and content (not mtimes: rebuilding a room copies its binaries anew). When the image
the tag names carries the same digest, nothing is imported. Otherwise the image is imported
under the tag, and the image the tag named before is removed if nothing else uses it.

Tag: --tag, default batlehub-sandbox-<room directory's name>:<project version>, the version
being CMakeLists.txt's `project(batlehub VERSION x.y.z)`. Prints one line: what it built.
"""
import argparse
import hashlib
import importlib.util
import io
import ipaddress
import json
import os
import re
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib

sys.dont_write_bytecode = True  # no scripts/__pycache__ from loading build-room.py
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
_spec = importlib.util.spec_from_file_location("build_room", os.path.join(HERE, "build-room.py"))
build_room = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_room)

SANDBOX_UID = 65532
MOUNT_POINTS = ["work", "bundle"]
PATH = "/usr/local/bin:/usr/bin:/bin"
DIGEST_LABEL = "io.batlehub.room-digest"
ROOM_LABEL = "io.batlehub.room"
CONTAINERD_NAMESPACE = "k8s.io"  # the CRI plugin's: the images a kubelet's pods can run


def fail(msg):
    print("build-image: " + msg, file=sys.stderr)
    sys.exit(1)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*batlehub\s+VERSION\s+([0-9][0-9A-Za-z.+-]*)", f.read())
    if not m:
        fail("no `project(batlehub VERSION x.y.z)` in CMakeLists.txt")
    return m.group(1)


def oci_labels(name, tag, source=None, description=None):
    """The image-spec's own annotations (opencontainers/image-spec annotations.md), as labels:
    version (the project's), revision and created (the commit the tree is at, and its commit
    time, so that two builds of one commit carry the same labels), source (--source, else
    $BATLEHUB_IMAGE_SOURCE, else the checkout's origin when it is an http(s) URL; left out when
    none is known rather than invented), title and description. A tree that is no git checkout
    (a release tarball) has no revision: it is left out too."""
    labels = {"org.opencontainers.image.version": project_version(),
              "org.opencontainers.image.title": tag.rsplit(":", 1)[0],
              "org.opencontainers.image.description":
                  description or f"batlehub sandbox room {name}: the scanner and the agent"}

    def git(*a):
        r = subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""

    revision = git("rev-parse", "HEAD")
    if revision:
        labels["org.opencontainers.image.revision"] = revision
        when = git("show", "-s", "--format=%ct", "HEAD")
        if when.isdigit():
            labels["org.opencontainers.image.created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(when)))
    source = source or os.environ.get("BATLEHUB_IMAGE_SOURCE") or git("config", "--get", "remote.origin.url")
    if source.startswith(("https://", "http://")):
        labels["org.opencontainers.image.source"] = source
    return labels


def write_sbom(trivy, tree, out):
    """The SBOM of an image's tree, SPDX 2.3 JSON, by Trivy (`trivy rootfs`): the Debian packages
    the tree records (scripts/build-room.py) and a venv's Python packages, each with its purl.
    It reads the tree only; nothing is fetched."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="batlehub-sbom-") as cache:
        r = subprocess.run([trivy, "rootfs", "--quiet", "--cache-dir", cache, "--format", "spdx-json",
                            "--output", out, tree], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"trivy rootfs could not write the SBOM of {tree}: " + r.stderr.strip()[-1000:])


def walk(room):
    """Every path under the room, relative, sorted, directories before what they hold."""
    out = []
    for dirpath, dirnames, filenames in os.walk(room):
        dirnames.sort()
        rel = os.path.relpath(dirpath, room)
        for n in sorted(dirnames + filenames):
            out.append(os.path.normpath(os.path.join(rel, n)))
    return sorted(out, key=lambda p: p.split(os.sep))


def entry_mode(st):
    return stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)


def room_digest(room, paths):
    h = hashlib.sha256()
    for rel in paths:
        full = os.path.join(room, rel)
        st = os.lstat(full)
        if stat.S_ISLNK(st.st_mode):
            h.update(b"l\0%s\0%s\n" % (rel.encode(), os.readlink(full).encode()))
        elif stat.S_ISDIR(st.st_mode):
            h.update(b"d\0%s\0%o\n" % (rel.encode(), entry_mode(st)))
        elif stat.S_ISREG(st.st_mode):
            c = hashlib.sha256()
            with open(full, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    c.update(chunk)
            h.update(b"f\0%s\0%o\0%s\n" % (rel.encode(), entry_mode(st), c.hexdigest().encode()))
        else:
            fail(f"/{rel} is neither a file, a directory nor a symlink: a room holds none of those")
    for m in MOUNT_POINTS:
        h.update(b"mount\0%s\n" % m.encode())
    return "sha256:" + h.hexdigest()


def write_tar(room, paths, out):
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
        def add(info):
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = int(info.mtime)
            return info

        have = set(paths)
        for m in MOUNT_POINTS:
            if m not in have:
                info = tarfile.TarInfo(m)
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                info.mtime = 0
                tar.addfile(add(info))
        for rel in paths:
            full = os.path.join(room, rel)
            info = tar.gettarinfo(full, arcname=rel)
            info.mode = entry_mode(os.lstat(full))
            if info.isreg():
                with open(full, "rb") as f:
                    tar.addfile(add(info), f)
            else:
                tar.addfile(add(info))


def engine_cmd(args):
    if args.engine == "containerd":
        return [args.engine_binary or "ctr", "-a", args.containerd_address, "-n", CONTAINERD_NAMESPACE]
    cmd = [args.engine_binary or args.engine]
    if args.engine == "docker" and args.docker_host:
        cmd += ["-H", args.docker_host]
    return cmd


def containerd_name(tag):
    """The reference containerd stores (and the kubelet asks the CRI for) when an image is
    called `tag`: docker's normalisation, NAME:V being docker.io/library/NAME:V."""
    first, sep, rest = tag.partition("/")
    if not sep:
        return "docker.io/library/" + tag
    if "." in first or ":" in first or first == "localhost":
        return tag
    return "docker.io/" + tag


def containerd_images(cmd):
    """{ref: manifest digest} of every image in the namespace."""
    r = subprocess.run(cmd + ["images", "ls"], capture_output=True, text=True)
    rows = [line.split() for line in r.stdout.splitlines()[1:]] if r.returncode == 0 else []
    return {row[0]: row[2] for row in rows if len(row) >= 3}


def containerd_drop_unnamed(cmd, digest):
    """The CRI names each image it sees by its id too (sha256:<config digest>); once no tag
    names that image's manifest any more, that name goes as well, and the content with it."""
    images = containerd_images(cmd)

    def unnamed(ref):
        return ref.startswith("sha256:") or "@sha256:" in ref  # its id, or the digest it was pulled by

    if any(d == digest and not unnamed(ref) for ref, d in images.items()):
        return
    for ref, d in images.items():
        if d == digest and unnamed(ref):
            subprocess.run(cmd + ["images", "rm", ref], capture_output=True)


def containerd_inspect(cmd, tag):
    """(manifest digest, labels of the image's config) of the image `tag` names, or (None, {})."""
    name = containerd_name(tag)
    r = subprocess.run(cmd + ["images", "ls", f"name=={name}"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, {}
    rows = [line.split() for line in r.stdout.splitlines()[1:] if line.split()[:1] == [name]]
    if not rows:
        return None, {}
    digest = rows[0][2]

    def blob(d):
        b = subprocess.run(cmd + ["content", "get", d], capture_output=True)
        return json.loads(b.stdout) if b.returncode == 0 else None

    try:
        manifest = blob(digest)
        config = blob(manifest["config"]["digest"]) if manifest else None
        labels = (config or {}).get("config", {}).get("Labels") or {}
    except (ValueError, KeyError, TypeError):
        labels = {}
    return digest, labels


def write_docker_archive(layer, out, tag, config, comment=None):
    """A docker archive (what `docker save` writes) holding one image: the uncompressed
    layer tar `layer` under the image config `config` (its "config" part: User, Env, …),
    tagged `tag`, its history saying `comment` when one is given (scripts/k8s-peer.sh's pause
    image has none). Returns the image's id, the config's digest."""
    h = hashlib.sha256()
    with open(layer, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    diff_id = "sha256:" + h.hexdigest()
    image_config = json.dumps({
        "architecture": "amd64", "os": "linux", "config": config,
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created_by": "batlehub build-image.py", **({"comment": comment} if comment else {})}],
    }, sort_keys=True).encode()
    config_id = hashlib.sha256(image_config).hexdigest()
    manifest = json.dumps([{"Config": f"{config_id}.json", "RepoTags": [tag],
                            "Layers": [f"{h.hexdigest()}/layer.tar"]}]).encode()
    with tarfile.open(out, "w") as tar:
        def put(name, data):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        put(f"{config_id}.json", image_config)
        tar.add(layer, arcname=f"{h.hexdigest()}/layer.tar")
        put("manifest.json", manifest)
    return "sha256:" + config_id


def on_loopback(registry):
    """Whether HOST[:PORT] is this machine: 127.0.0.0/8, localhost or ::1. Engines speak plain
    HTTP to those by default and TLS to anything else; so does this script."""
    if registry.startswith("["):
        host = registry[1:].partition("]")[0]
    elif registry.count(":") == 1:
        host = registry.rsplit(":", 1)[0]
    else:
        host = registry
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def registry_name(registry, tag):
    """HOST/NAME:VERSION for --tag [REPO/]NAME:VERSION: the tag's last path element under the registry."""
    return f"{registry}/{tag.rsplit('/', 1)[-1]}"


def push(archive, registry, tag, skopeo):
    """The docker archive pushed to the registry as an OCI image; returns HOST/NAME@sha256:…"""
    return push_with([skopeo, "copy", "--quiet", "--format", "oci"], "--dest-tls-verify=false",
                     f"docker-archive:{archive}", registry, tag)


def push_with(argv, plain_http_flag, source, registry, tag):
    """Runs a pusher (`skopeo copy …`, `podman push …`: both take --digestfile, a flag for plain
    HTTP, a source and docker://DEST) from `source` to HOST/NAME:VERSION for `tag`, plain HTTP
    only to a registry on loopback; returns the reference by digest, HOST/NAME@sha256:…"""
    dest = registry_name(registry, tag)
    with tempfile.TemporaryDirectory(prefix="batlehub-push-") as d:
        digest_file = os.path.join(d, "digest")
        argv = argv + ["--digestfile", digest_file] + ([plain_http_flag] if on_loopback(registry) else [])
        r = subprocess.run(argv + [source, f"docker://{dest}"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"pushing {dest} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-1000:]}")
        with open(digest_file, encoding="ascii") as f:
            digest = f.read().strip()
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        fail(f"{argv[0]} pushed {dest} but wrote no digest ({digest!r})")
    return dest.rsplit(":", 1)[0] + "@" + digest


def pull(cmd, engine, registry, ref, tag):
    """The engine pulls `ref` (a reference by digest) and names it `tag`."""
    plain = on_loopback(registry)
    if engine == "containerd":
        steps = [cmd + ["images", "pull"] + (["--plain-http"] if plain else []) + [ref],
                 cmd + ["images", "tag", "--force", ref, containerd_name(tag)]]
    else:
        steps = [cmd + ["pull", "--quiet"] + (["--tls-verify=false"] if plain and engine == "podman" else []) + [ref],
                 cmd + ["tag", ref, tag]]
    for argv in steps:
        run_through_layer_races(argv, " ".join(argv[:3]) + " …")


def run_through_layer_races(argv, what):
    """Runs an engine's import, pull or tag, and fails naming `what` if it fails. Two images of
    one room share their layer: `podman image rm` of one, at the moment an import or a pull of
    the other commits, takes the layer from under it ("committing the finished image: … layer
    not known", seen once in ~1,300 tests at -j2). That failure is run again, twice at most; any
    other is not."""
    for attempt in range(3):
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode == 0 or "layer not known" not in (r.stderr or ""):
            break
        time.sleep(0.2 * (attempt + 1))
    if r.returncode != 0:
        fail(f"{what} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-1000:]}")


def inspect(cmd, tag, why=None):
    """(image id, labels) of the image `tag` names, or (None, {}); `why` (a list) gets the engine's
    error when there is none."""
    r = subprocess.run(cmd + ["image", "inspect", "--format", "{{.Id}} {{json .Config.Labels}}", tag],
                       capture_output=True, text=True)
    if r.returncode != 0:
        if why is not None:
            why.append((r.stderr or r.stdout).strip())
        return None, {}
    image_id, _, labels = r.stdout.strip().partition(" ")
    try:
        labels = json.loads(labels) or {}
    except ValueError:
        labels = {}
    return image_id, labels


def short(image_id):
    return image_id.split(":", 1)[-1][:12]


def remove(cmd, args):
    if not args.tag:
        fail("--remove needs --tag")
    if args.engine == "containerd":
        digest = containerd_images(cmd).get(containerd_name(args.tag))
        r = subprocess.run(cmd + ["images", "rm", containerd_name(args.tag)], capture_output=True, text=True)
        gone = r.returncode == 0 or "not found" in (r.stderr + r.stdout)
        if digest:
            containerd_drop_unnamed(cmd, digest)
    else:
        image_id = inspect(cmd, args.tag)[0]
        r = subprocess.run(cmd + ["image", "rm", args.tag], capture_output=True, text=True)
        gone = r.returncode == 0 or inspect(cmd, args.tag)[0] is None
        if gone and image_id:
            # An image pulled by digest keeps that name once its tag is gone (podman, and docker
            # when the tag's repository is not the registry's): with no tag left, it goes too.
            # Not forced: a container using it keeps it.
            t = subprocess.run(cmd + ["image", "inspect", "--format", "{{json .RepoTags}}", image_id],
                               capture_output=True, text=True)
            if t.returncode == 0 and not json.loads(t.stdout or "null"):
                subprocess.run(cmd + ["image", "rm", image_id], capture_output=True)
    if not gone:
        fail(f"removing {args.tag} failed ({r.returncode}): {(r.stderr or r.stdout).strip()}")
    print(f"build-image: {args.tag} removed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--room", help="the room directory (scripts/build-room.py --out)")
    ap.add_argument("--engine", choices=["podman", "docker", "containerd"],
                    help="where the image goes (required unless --registry): imported, or with --registry pulled by digest")
    ap.add_argument("--engine-binary", help="the engine's CLI (default: its name, looked up on PATH; ctr for containerd)")
    ap.add_argument("--docker-host", help="docker only: the daemon, e.g. unix:///run/d/docker.sock "
                    "(default: the CLI's own, $DOCKER_HOST)")
    ap.add_argument("--containerd-address", help="containerd only (required): its socket, e.g. "
                    "<k8s-peer DIR>/containerd/containerd.sock; images go to its namespace " + CONTAINERD_NAMESPACE)
    ap.add_argument("--definition", help="the room's definition (rooms/<name>.toml), when its [room] table "
                    "allows a shell: without it a room holding /bin/sh is refused")
    ap.add_argument("--tag", help="NAME:VERSION (default: batlehub-sandbox-<room's name>:<project version>)")
    ap.add_argument("--source", help="the org.opencontainers.image.source label: where the source is "
                    "(default: $BATLEHUB_IMAGE_SOURCE, else the checkout's origin if it is an http(s) URL)")
    ap.add_argument("--sbom", help="also write the room's SBOM here (SPDX 2.3 JSON, by --trivy): write_sbom()")
    ap.add_argument("--trivy", default="/opt/batlehub/bin/trivy", help="Trivy, for --sbom")
    ap.add_argument("--registry", help="HOST[:PORT]: push the image there (skopeo), and have --engine pull it by digest")
    ap.add_argument("--digest-file", help="with --registry: write the pushed image's reference by digest here")
    ap.add_argument("--skopeo", default="skopeo", help="skopeo, for --registry (default: on PATH)")
    ap.add_argument("--remove", action="store_true", help="remove the image --tag names instead of building one")
    args = ap.parse_args()
    if not args.engine and not args.registry:
        fail("--engine is required unless --registry is given")
    if args.digest_file and not args.registry:
        fail("--digest-file is for --registry")
    if args.registry and not re.fullmatch(r"[A-Za-z0-9.\-]+(:[0-9]+)?|\[[0-9a-fA-F:]+\](:[0-9]+)?", args.registry):
        fail(f"--registry {args.registry}: expected HOST[:PORT], no scheme and no path")
    if args.docker_host and args.engine != "docker":
        fail("--docker-host is for --engine docker")
    if args.engine == "containerd" and not args.containerd_address:
        fail("--engine containerd needs --containerd-address SOCKET")
    if args.containerd_address and args.engine != "containerd":
        fail("--containerd-address is for --engine containerd")
    cmd = engine_cmd(args) if args.engine else None
    if args.remove and not args.engine:
        fail("--remove needs --engine")
    if args.remove:
        remove(cmd, args)
        return
    if not args.room:
        fail("--room is required (or --remove)")

    room = os.path.abspath(args.room)
    if not os.path.isdir(room):
        fail(f"no room at {room} (build it with scripts/build-room.py)")
    name = os.path.basename(room.rstrip("/"))
    tag = args.tag or f"batlehub-sandbox-{name}:{project_version()}"
    if ":" not in tag.rsplit("/", 1)[-1]:
        fail(f"--tag {tag}: expected NAME:VERSION")
    shell_allowed = False
    if args.definition:
        with open(args.definition, "rb") as f:
            shell = tomllib.load(f).get("room", {}).get("shell")
        if shell is not None and not str(shell).strip():
            fail(f"{args.definition}: [room] shell must say why the room needs a shell")
        shell_allowed = shell is not None
    problems = build_room.check(room, build_room.AGENT_DEST, shell_allowed=shell_allowed)
    if problems:
        fail(f"refusing the room {room}: " + "; ".join(problems) + " (rebuild it with scripts/build-room.py)")
    if args.sbom:
        write_sbom(args.trivy, room, args.sbom)

    paths = walk(room)
    digest = room_digest(room, paths)
    containerd = args.engine == "containerd"
    old_id, labels = None, {}
    if args.engine:
        old_id, labels = containerd_inspect(cmd, tag) if containerd else inspect(cmd, tag)
    where = (args.engine or "") + (f" at {args.docker_host}" if args.docker_host else "") + \
        (f" at {args.containerd_address}" if containerd else "")
    if old_id and labels.get(DIGEST_LABEL) == digest and not args.registry:
        print(f"build-image: {tag} ({where}) up to date, {short(old_id)} from {room}")
        return

    labels = {DIGEST_LABEL: digest, ROOM_LABEL: name, **oci_labels(name, tag, args.source)}
    # The tag is in the history's comment so that each tag is an image of its own. podman's
    # import is reproducible: two tags of one room would otherwise name one image, and
    # `podman image rm` of one, racing an import of the other, deletes the image under both
    # (seen when two tests imported the hostile room at once). Pushed, it makes each tag a
    # manifest of its own, whose digest names that tag's image only.
    comment = f"batlehub room {name} ({digest}) as {tag}"
    pushed = None
    with tempfile.TemporaryDirectory(prefix="batlehub-image-") as ctx:
        tar = os.path.join(ctx, "room.tar")
        write_tar(room, paths, tar)
        imp = None
        if containerd or args.registry:
            # The config `import --change` gives the other two, written out.
            archive = os.path.join(ctx, "image.tar")
            write_docker_archive(tar, archive, containerd_name(tag), {
                "User": f"{SANDBOX_UID}:{SANDBOX_UID}", "WorkingDir": "/work", "Env": [f"PATH={PATH}"],
                "Labels": labels}, comment)
            if args.registry:
                pushed = push(archive, args.registry, tag, args.skopeo)
                if args.digest_file:
                    with open(args.digest_file, "w", encoding="ascii") as f:
                        f.write(pushed + "\n")
                if args.engine:
                    pull(cmd, args.engine, args.registry, pushed, tag)
            else:
                imp = cmd + ["images", "import", archive]
        else:
            imp = cmd + ["import"]
            for c in [f"USER {SANDBOX_UID}:{SANDBOX_UID}", "WORKDIR /work", f"ENV PATH={PATH}"] + \
                    [f"LABEL {k}={json.dumps(v)}" for k, v in labels.items()]:
                imp += ["--change", c]
            imp += ["--message", comment, tar, tag]
        if imp is not None:
            run_through_layer_races(imp, " ".join(imp[:2]) + " import")
    if not args.engine:
        print(f"build-image: {tag} pushed as {pushed} from {room}")
        return
    # podman's inspect by name reads every image's record, and one that another process is
    # deleting at that moment fails it ("image not known", "locating item named manifest"):
    # seen 2 times in 75 with three such loops at once, never twice in a row. A refusal is asked
    # again; an answer with the wrong label is not.
    why = []
    for attempt in range(5):
        new_id, labels = containerd_inspect(cmd, tag) if containerd else inspect(cmd, tag, why)
        if new_id:
            break
        time.sleep(0.1 * (attempt + 1))
    if not new_id:
        fail(f"{tag} was {'pulled' if pushed else 'imported'} but {args.engine} cannot show it, asked 5 times: " + (why[-1] if why else "not listed"))
    if labels.get(DIGEST_LABEL) != digest:
        fail(f"{tag} was {'pulled' if pushed else 'imported'} but shows {DIGEST_LABEL}={labels.get(DIGEST_LABEL)}, not {digest}")
    if old_id and old_id != new_id:
        # The previous image of this tag, now untagged; kept if a container or a tag uses it.
        if containerd:
            containerd_drop_unnamed(cmd, old_id)
        else:
            subprocess.run(cmd + ["image", "rm", old_id], capture_output=True)
    how = f"pulled by digest {pushed}" if pushed else "built"
    print(f"build-image: {tag} ({where}) {how}, {short(new_id)} from {room}")


if __name__ == "__main__":
    main()
