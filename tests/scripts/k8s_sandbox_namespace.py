#!/usr/bin/env python3
"""The sandbox namespace of a kubernetes-runtime test, made by the Helm chart itself.

    k8s_sandbox_namespace.py up   CHART HELM KUBECTL ADMIN_KUBECONFIG NAME S3_PORT OUT_KUBECONFIG [KUBERNETES_VALUES]
    k8s_sandbox_namespace.py down KUBECTL ADMIN_KUBECONFIG NAME

`up` renders deploy/helm/batlehub with runtime = kubernetes (release namespace NAME, sandbox
namespace NAME-sbx, createNamespace: the Namespace labelled pod-security enforce=restricted)
and creates, for real, every object but the worker's Deployment and ConfigMap: the worker's
ServiceAccount, the Role (pods: create get list watch delete), its RoleBinding, the tokenless
sandbox ServiceAccount, the two NetworkPolicies and the ResourceQuota (1 replica x 2 pool
slots x (2048 + 512) MiB = 5120Mi). Then it mints a token for the worker's ServiceAccount
(TokenRequest, one hour) and writes OUT_KUBECONFIG: the API server and its CA from the admin
kubeconfig, that token, namespace NAME-sbx. The runtime under test then has exactly the
permissions an operator's worker has. `down` deletes both namespaces.

The storage endpoint is the cluster's storage door (scripts/k8s-peer.sh writes its address to
DIR/storage-door, DIR the admin kubeconfig's directory): the S3 server at http://DOOR:S3_PORT,
and storageEgress DOOR/32 on S3_PORT, so that the chart's rule is what lets a pod fetch its
bundle.

KUBERNETES_VALUES, a JSON object, is merged into worker.sandbox.kubernetes (for example
{"egressAllowlist": [{"cidr": "...", "ports": [{"port": 8080}]}]}).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from helm_render import Helm  # noqa: E402

KEEP = {"ServiceAccount", "Role", "RoleBinding", "NetworkPolicy", "ResourceQuota"}


def kubectl(kubectl_bin, kubeconfig, args, stdin=None):
    p = subprocess.run([kubectl_bin, "--kubeconfig", kubeconfig] + args, input=stdin, capture_output=True,
                       text=True, timeout=120, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp"})
    if p.returncode != 0:
        raise SystemExit(f"kubectl {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def up(chart, helm_bin, kubectl_bin, admin, name, s3_port, out, kubernetes_values="{}"):
    extra = json.loads(kubernetes_values)
    if not isinstance(extra, dict):
        raise SystemExit("KUBERNETES_VALUES is not a JSON object")
    with tempfile.TemporaryDirectory(prefix="batlehub-helm-") as work:
        return _up(Helm(helm_bin, kubectl_bin, chart, work), kubectl_bin, admin, name, s3_port, out, extra)


def storage_door(admin):
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(admin)), "storage-door")) as f:
            door = f.read().strip()
    except OSError as e:
        raise SystemExit(f"the cluster's storage door: {e}")
    if not door:
        raise SystemExit("the cluster's storage door is empty")
    return door


def _up(h, kubectl_bin, admin, name, s3_port, out, extra):
    sbx = name + "-sbx"
    door = storage_door(admin)
    values = {
        "replicaCount": 1,
        "worker": {
            "poolSlots": 2,
            "sandbox": {
                "runtime": "kubernetes",
                "memoryLimitMb": 2048,
                "maxExtractedMb": 512,
                "kubernetes": {
                    "namespace": sbx,
                    "createNamespace": True,
                    # The storage endpoint: the cluster's storage door, over the pod network.
                    "storageEgress": [{"cidr": f"{door}/32", "ports": [{"port": int(s3_port), "protocol": "TCP"}]}],
                },
            },
        },
        # upstream's multi shape, as the chart renders it: the one s3 backend is the default (and so
        # the bundle backend); the tests' S3 server takes path-style requests.
        "storage": {"default": "s3",
                    "backends": [{"name": "s3", "type": "s3", "endpointUrl": f"http://{door}:{s3_port}",
                                  "bucket": "batlehub-test", "region": "us-east-1", "forcePathStyle": True}]},
    }
    values["worker"]["sandbox"]["kubernetes"].update(extra)
    values = h.values_file(values)
    objs = h.template([values], namespace=name, release="bh")
    ns = [o for o in objs if o["kind"] == "Namespace"]
    rest = [o for o in objs if o["kind"] in KEEP]
    kubectl(kubectl_bin, admin, ["create", "namespace", name])
    kubectl(kubectl_bin, admin, ["create", "-f", "-"], json.dumps({"apiVersion": "v1", "kind": "List", "items": ns}))
    kubectl(kubectl_bin, admin, ["create", "-f", "-"], json.dumps({"apiVersion": "v1", "kind": "List", "items": rest}))
    worker_sa = [o["metadata"]["name"] for o in rest
                 if o["kind"] == "ServiceAccount" and o["metadata"].get("namespace", name) == name]
    if len(worker_sa) != 1:
        raise SystemExit(f"the chart rendered {len(worker_sa)} worker ServiceAccounts in {name}")
    token = kubectl(kubectl_bin, admin, ["create", "token", worker_sa[0], "-n", name, "--duration=1h"]).strip()
    server = kubectl(kubectl_bin, admin, ["config", "view", "--minify", "--raw", "-o",
                                          "jsonpath={.clusters[0].cluster.server}"])
    ca = kubectl(kubectl_bin, admin, ["config", "view", "--minify", "--raw", "-o",
                                      "jsonpath={.clusters[0].cluster.certificate-authority}"])
    if not ca:
        raise SystemExit("the admin kubeconfig names no certificate-authority file")
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": "worker",
        "clusters": [{"name": "local", "cluster": {"server": server, "certificate-authority": ca}}],
        "users": [{"name": "worker", "user": {"token": token}}],
        "contexts": [{"name": "worker", "context": {"cluster": "local", "user": "worker", "namespace": sbx}}],
    }
    with open(out, "w") as f:
        json.dump(config, f)  # JSON is YAML
    os.chmod(out, 0o600)
    print(sbx)


def down(kubectl_bin, admin, name):
    subprocess.run([kubectl_bin, "--kubeconfig", admin, "delete", "namespace", name, name + "-sbx",
                    "--ignore-not-found", "--wait=false"], capture_output=True, timeout=120)


if __name__ == "__main__":
    if len(sys.argv) in (9, 10) and sys.argv[1] == "up":
        up(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "down":
        down(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)
