#!/usr/bin/env python3
"""Builds the worker's image: the tree scripts/build-worker-tree.py makes (`batlehub`, bwrap,
one room per scanner, each recording its Debian packages), then `podman build` (or `docker
build`) of Containerfile.worker over it — FROM scratch, nothing pulled — labelled with the
image-spec's own labels as the scanners' images are (scripts/build-image.py oci_labels), and,
when Trivy is given, the image's SBOM (SPDX 2.3, `trivy rootfs` over the tree, offline).

  build-worker-image.py --batlehub build/release/src/server/batlehub \\
      --agent build/release/src/agent/batlehub-sandbox --room yara --room guarddog \\
      [--room-binary NAME=SRC:DEST] [--engine podman|docker] [--tag batlehub-worker:<version>] \\
      [--source URL] [--trivy /opt/batlehub/bin/trivy --sbom build/sboms/worker.spdx.json] \
      [--registry HOST[:PORT] [--digest-file F]]

--registry pushes the image to HOST/batlehub-worker:<version> as an OCI image (`podman push
--format oci`, podman only; plain HTTP to a registry on loopback, verified TLS to any other, as
build-image.py) and writes its reference by digest to --digest-file.

Prints one line: the image it built and its id (and where it was pushed).
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("build_image", os.path.join(HERE, "build-image.py"))
build_image = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_image)


def fail(msg):
    print("build-worker-image: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batlehub", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--room", action="append", default=[])
    ap.add_argument("--room-binary", action="append", default=[])
    ap.add_argument("--engine", choices=["podman", "docker"], default="podman")
    ap.add_argument("--tag", help="default: batlehub-worker:<project version>")
    ap.add_argument("--source", help="the org.opencontainers.image.source label (as build-image.py's)")
    ap.add_argument("--trivy", help="Trivy, to write the image's SBOM with (--sbom)")
    ap.add_argument("--sbom", help="where the SBOM goes (SPDX 2.3 JSON)")
    ap.add_argument("--registry", help="HOST[:PORT]: push the image there (podman only)")
    ap.add_argument("--digest-file", help="with --registry: write the pushed image's reference by digest here")
    args = ap.parse_args()
    if bool(args.trivy) != bool(args.sbom):
        fail("--trivy and --sbom go together")
    if args.registry and args.engine != "podman":
        fail("--registry pushes with podman: give --engine podman")
    if args.digest_file and not args.registry:
        fail("--digest-file is for --registry")
    tag = args.tag or f"batlehub-worker:{build_image.project_version()}"
    labels = build_image.oci_labels("worker", tag, args.source,
                                    "the batlehub scan worker: batlehub, bwrap and one room per scanner")
    with tempfile.TemporaryDirectory(prefix="batlehub-worker-image-") as tmp:
        tree = os.path.join(tmp, "tree")
        cmd = [sys.executable, os.path.join(HERE, "build-worker-tree.py"), "--batlehub", args.batlehub,
               "--agent", args.agent, "--out", tree]
        for r in args.room:
            cmd += ["--room", r]
        for r in args.room_binary:
            cmd += ["--room-binary", r]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            fail("the worker's tree could not be built: " + (r.stderr or r.stdout).strip())
        build = [args.engine, "build", "--file", os.path.join(ROOT, "Containerfile.worker"), "--tag", tag]
        for k, v in labels.items():
            build += ["--label", f"{k}={v}"]
        r = subprocess.run(build + [tree], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"{args.engine} build failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-2000:]}")
        if args.sbom:
            build_image.write_sbom(args.trivy, tree, args.sbom)
    image_id = subprocess.run([args.engine, "image", "inspect", tag, "--format", "{{.Id}}"],
                              capture_output=True, text=True).stdout.strip()
    pushed = push(tag, args.registry) if args.registry else None
    if pushed and args.digest_file:
        with open(args.digest_file, "w", encoding="ascii") as f:
            f.write(pushed + "\n")
    print(f"build-worker-image: {tag} ({args.engine}) built, {image_id[:19]}" +
          (f", SBOM {args.sbom}" if args.sbom else "") + (f", pushed as {pushed}" if pushed else ""))


def push(tag, registry):
    """The podman image `tag` pushed to the registry as an OCI image; returns HOST/NAME@sha256:…"""
    return build_image.push_with(["podman", "push", "--quiet", "--format", "oci"], "--tls-verify=false", tag,
                                 registry, tag)


if __name__ == "__main__":
    main()
