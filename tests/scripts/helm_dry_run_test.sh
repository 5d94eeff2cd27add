#!/bin/bash
# The Helm chart against a real API server (the test fixture "k8s": loopback only): every
# object every runtime renders is sent through `kubectl create --dry-run=server
# --validate=strict` — the API server's schema, its unknown-field check, RBAC, admission
# (Pod Security, ResourceQuota) — without being stored.
#
#   helm_dry_run_test.sh CHART_DIR HELM_BIN KUBECTL_BIN KUBECONFIG
#
# In order:
#   1. the release namespace, and the sandbox namespace as the chart renders it
#      (createNamespace: pod-security.kubernetes.io/enforce=restricted), created for real;
#   2. every runtime's manifests, dry-run (server) in full, each object accepted (and bwrap's
#      and kubernetes' with storage.webIdentity: a projected ServiceAccount token volume);
#   3. the kubernetes runtime's objects created for real (all but the Deployment, whose pods
#      nobody needs), so that what follows runs against the Role, the ServiceAccount and the
#      ResourceQuota the chart made;
#   4. every runtime's worker pod (the Deployment's template as a Pod) dry-run in the
#      restricted sandbox namespace: the worker satisfies restricted on every runtime, and
#      with storage.webIdentity's projected token volume;
#   5. a sandbox pod as the kubernetes runtime makes it (src/adapters/sandbox/pod_manifest.cc)
#      accepted there, within the quota; as the worker's own ServiceAccount (impersonated),
#      that pod may be created, and pods/log, pods/exec, secrets may not;
#   6. a pod violating restricted refused in the sandbox namespace and accepted in the release
#      namespace, which carries no Pod Security label: the label is what refuses it.
# Both namespaces are deleted at the end. Skips (exit 77) only when helm or kubectl is missing.
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 CHART_DIR HELM_BIN KUBECTL_BIN KUBECONFIG" >&2
  exit 2
fi
CHART=$1 HELM=$2 KUBECTL=$3 KUBECONFIG_FILE=$4
for b in "$HELM" "$KUBECTL"; do
  if [ ! -x "$b" ]; then
    echo "skip: $(basename "$b") is not installed at $b (scripts/install-kubernetes.sh installs it)"
    exit 77
  fi
done
[ -r "$KUBECONFIG_FILE" ] || { echo "FAIL: no kubeconfig at $KUBECONFIG_FILE (the k8s fixture writes it)" >&2; exit 1; }
# The API server must be on this machine.
server=$("$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
case "$server" in
  https://127.*|https://localhost:*|https://\[::1\]:*) ;;
  *) echo "FAIL: the kubeconfig's server $server is not on loopback; this test talks to loopback only" >&2; exit 1 ;;
esac

WORK=$(mktemp -d -t batlehub-helm-dry.XXXXXX)
SUFFIX=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
RELEASE_NS="bh-helm-$SUFFIX"
SANDBOX_NS="bh-helm-sbx-$SUFFIX"
K() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
cleanup() {
  K delete namespace "$RELEASE_NS" "$SANDBOX_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

python3 - "$CHART" "$HELM" "$KUBECTL" "$KUBECONFIG_FILE" "$WORK" "$(dirname "$0")" "$RELEASE_NS" "$SANDBOX_NS" <<'PY'
import copy
import json
import os
import subprocess
import sys

chart, helm_bin, kubectl, kubeconfig, work, here, release_ns, sandbox_ns = sys.argv[1:9]
sys.path.insert(0, here)
from helm_render import Helm, key, of_kind  # noqa: E402

h = Helm(helm_bin, kubectl, chart, os.path.join(work, "helm"))
os.makedirs(h.dir, exist_ok=True)
failures = []
RUNTIMES = ["none", "bwrap", "oci", "kubernetes"]


def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name}")
    if not cond:
        failures.append(name)
        if detail:
            print("     " + str(detail).strip().replace("\n", "\n     "))
    return cond


def k(args, objs=None, as_user=None):
    cmd = [kubectl, "--kubeconfig", kubeconfig] + args
    if as_user:
        cmd += ["--as", as_user]
    data = None
    if objs is not None:
        data = json.dumps({"apiVersion": "v1", "kind": "List", "items": objs})
    return subprocess.run(cmd, input=data, capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work})


def dry_run(objs, namespace=None):
    args = ["create", "--dry-run=server", "--validate=strict", "-o", "name", "-f", "-"]
    if namespace:
        args += ["-n", namespace]
    return k(args, objs)


VALUES = {
    "replicaCount": 2,
    "worker": {
        "poolSlots": 2,
        "sandbox": {
            "memoryLimitMb": 1024,
            "maxExtractedMb": 256,
            "unsafeNoSandbox": True,
            "bundleBackend": "s3",
            "kubernetes": {
                "namespace": sandbox_ns,
                "runtimeClass": "",
                "nodeSelector": {"batlehub.io/pool": "sandbox"},
                "imagePullSecrets": ["regcred"],
                "storageEgress": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "minio"}},
                     "podSelector": {"matchLabels": {"app": "minio"}}, "ports": [{"port": 9000}]},
                    {"cidr": "127.0.0.1/32", "ports": [{"port": 9000, "protocol": "TCP"}]},
                ],
                "egressAllowlist": [{"cidr": "127.0.0.0/8", "except": ["127.0.0.53/32"],
                                     "ports": [{"port": 443, "endPort": 444}]}],
            },
        },
    },
    "resources": {"limits": {"memory": "512Mi", "cpu": "1"}, "requests": {"memory": "256Mi", "cpu": "100m"}},
    "storage": {
        "default": "s3",
        "backends": [{"name": "s3", "type": "s3", "endpointUrl": "http://minio.minio.svc:9000", "bucket": "cache",
                      "region": "us-east-1", "forcePathStyle": True}],
        "s3Credentials": {"existingSecret": "batlehub-s3", "sessionTokenKey": "AWS_SESSION_TOKEN"},
    },
    "database": {"url": "postgresql://batlehub@postgres.batlehub.svc:5432/batlehub",
                 "passwordSecret": {"name": "batlehub-pg"}},
}
VALUES["worker"]["extraEnv"] = [{"name": "BATLEHUB_LOG", "value": "info"}]
VALUES["podAnnotations"] = {"prometheus.io/scrape": "true"}
values = h.values_file(VALUES)


def render(r, sets=()):
    return h.template([values], [f"worker.sandbox.runtime={r}"] + list(sets), namespace=release_ns)


# storage.webIdentity instead of the Secret's keys: the projected ServiceAccount token volume.
WEB_IDENTITY = ["storage.s3Credentials.existingSecret=",
                "storage.webIdentity.roleArn=arn:aws:iam::123456789012:role/batlehub-worker"]


# ---- 1. the namespaces ---------------------------------------------------------------------------
p = k(["create", "namespace", release_ns])
check(f"the release namespace {release_ns} is created", p.returncode == 0, p.stderr)
ns_objs = of_kind(render("kubernetes", ["worker.sandbox.kubernetes.createNamespace=true"]), "Namespace")
check("the chart renders the sandbox Namespace with createNamespace", len(ns_objs) == 1, ns_objs)
p = k(["create", "-f", "-"], ns_objs)
check(f"the sandbox namespace {sandbox_ns} is created as the chart renders it", p.returncode == 0, p.stderr)
p = k(["get", "namespace", sandbox_ns, "-o", "jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}"])
check("… and enforces Pod Security restricted", p.stdout == "restricted", p.stdout + p.stderr)

# ---- 2. every runtime, every object, dry-run on the server ----------------------------------------
rendered = {}
for r in RUNTIMES:
    objs = render(r)
    rendered[r] = objs
    p = dry_run(objs)
    names = [l for l in p.stdout.splitlines() if l.strip()]
    check(f"runtime {r}: the API server accepts all {len(objs)} objects ({', '.join(sorted({o['kind'] for o in objs}))})",
          p.returncode == 0 and len(names) == len(objs) and "Warning" not in p.stderr, p.stdout + p.stderr)
for r in ("bwrap", "kubernetes"):
    objs = render(r, WEB_IDENTITY)
    check(f"runtime {r} with storage.webIdentity (a projected token volume): the Deployment renders it",
          any("projected" in v for v in of_kind(objs, "Deployment")[0]["spec"]["template"]["spec"]["volumes"]))
    p = dry_run(objs)
    check(f"runtime {r} with storage.webIdentity: the API server accepts all {len(objs)} objects",
          p.returncode == 0 and "Warning" not in p.stderr, p.stdout + p.stderr)
    rendered[f"{r}+webIdentity"] = objs
objs = h.template([values], ["worker.sandbox.runtime=kubernetes", "worker.sandbox.kubernetes.namespace="],
                  namespace=release_ns)
p = dry_run(objs)
check("runtime kubernetes with the release's namespace as the sandbox's (quota scoped Terminating): accepted",
      p.returncode == 0 and "Warning" not in p.stderr, p.stdout + p.stderr)

# ---- 3. the kubernetes runtime's objects, for real -------------------------------------------------
real = [o for o in rendered["kubernetes"] if o["kind"] != "Deployment"]
p = k(["create", "-f", "-"], real)
check("runtime kubernetes: its objects (but the Deployment) are created", p.returncode == 0, p.stdout + p.stderr)
sa = "batlehub-sandbox"
worker_user = f"system:serviceaccount:{release_ns}:t-batlehub"

# ---- 4. the worker's pod satisfies restricted, on every runtime -------------------------------------
for r in RUNTIMES + ["bwrap+webIdentity", "kubernetes+webIdentity"]:
    dep = of_kind(rendered[r], "Deployment")[0]
    tpl = copy.deepcopy(dep["spec"]["template"])
    tpl["spec"]["serviceAccountName"] = sa  # the one that exists in the sandbox namespace
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"generateName": "worker-pss-", "namespace": sandbox_ns,
                        "labels": {"io.batlehub/test": "worker"}},
           "spec": tpl["spec"]}
    # The quota counts every pod in the dedicated namespace: the worker's limits are within it.
    p = dry_run([pod])
    check(f"runtime {r}: the worker's pod is admitted under Pod Security restricted",
          p.returncode == 0 and "violates PodSecurity" not in p.stderr, p.stderr)

# ---- 5. a sandbox pod, as the kubernetes runtime makes it --------------------------------------------
def sandbox_pod(network="storage"):
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": "batlehub-sbx-guarddog-", "namespace": sandbox_ns,
                     "labels": {"app.kubernetes.io/name": "batlehub", "app.kubernetes.io/component": "sandbox",
                                "io.batlehub/worker": "t-batlehub-1", "io.batlehub/job": "job-1",
                                "io.batlehub/network": network}},
        "spec": {
            "restartPolicy": "Never", "activeDeadlineSeconds": 720, "serviceAccountName": sa,
            "automountServiceAccountToken": False, "enableServiceLinks": False,
            "hostNetwork": False, "hostPID": False, "hostIPC": False,
            "nodeSelector": {"batlehub.io/pool": "sandbox"}, "imagePullSecrets": [{"name": "regcred"}],
            "securityContext": {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{
                "name": "sandbox", "image": "registry.test/batlehub-sandbox-guarddog:0.1.0",
                "imagePullPolicy": "IfNotPresent",
                "command": ["batlehub-sandbox", "--in", "http://minio.minio.svc:9000/cache/in",
                            "--out", "http://minio.minio.svc:9000/cache/out"],
                "stdin": False, "tty": False,
                "env": [{"name": "HOME", "value": "/work"}, {"name": "PATH", "value": "/usr/local/bin:/usr/bin:/bin"}],
                "workingDir": "/work",
                "resources": {"limits": {"memory": "1024Mi", "cpu": "1"},
                              "requests": {"memory": "1024Mi", "cpu": "250m"}},
                "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                    "privileged": False, "runAsNonRoot": True, "runAsUser": 65532,
                                    "runAsGroup": 65532, "capabilities": {"drop": ["ALL"]},
                                    "seccompProfile": {"type": "RuntimeDefault"}},
                "volumeMounts": [{"name": "work", "mountPath": "/work"}]}],
            "volumes": [{"name": "work", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}}],
        },
    }


p = dry_run([sandbox_pod("storage"), sandbox_pod("egress")])
check("a sandbox pod as pod_manifest makes it: admitted (restricted, within the ResourceQuota)",
      p.returncode == 0, p.stderr)
big = sandbox_pod()
big["spec"]["containers"][0]["resources"]["limits"]["memory"] = "8000Mi"
big["spec"]["containers"][0]["resources"]["requests"]["memory"] = "8000Mi"
p = dry_run([big])
check("a sandbox pod beyond the ResourceQuota (8000Mi > 2 × 2 × 1280 Mi) is refused",
      p.returncode != 0 and "exceeded quota" in p.stderr, p.stderr)
# The worker's own ServiceAccount: pods yes, their subresources and Secrets no.
p = k(["create", "--dry-run=server", "-f", "-"], [sandbox_pod()], as_user=worker_user)
check("as the worker's ServiceAccount: a sandbox pod may be created", p.returncode == 0, p.stderr)
for verb, res, sub, want in (("create", "pods", "", "yes"), ("get", "pods", "", "yes"), ("list", "pods", "", "yes"),
                             ("watch", "pods", "", "yes"), ("delete", "pods", "", "yes"), ("update", "pods", "", "no"),
                             ("patch", "pods", "", "no"), ("get", "pods", "log", "no"), ("create", "pods", "exec", "no"),
                             ("create", "pods", "attach", "no"), ("create", "pods", "portforward", "no"),
                             ("create", "pods", "eviction", "no"), ("patch", "pods", "ephemeralcontainers", "no"),
                             ("get", "secrets", "", "no"), ("list", "secrets", "", "no"),
                             ("create", "serviceaccounts", "token", "no")):
    args = ["auth", "can-i", verb, res, "-n", sandbox_ns] + ([f"--subresource={sub}"] if sub else [])
    p = k(args, as_user=worker_user)
    check(f"as the worker's ServiceAccount: can-i {verb} {res}{'/' + sub if sub else ''} in the sandbox namespace = {want}",
          p.stdout.strip() == want, p.stdout + p.stderr)
p = k(["auth", "can-i", "create", "pods", "-n", release_ns], as_user=worker_user)
check("as the worker's ServiceAccount: no pods in its own namespace", p.stdout.strip() == "no", p.stdout + p.stderr)


def grants(user, ns):
    """What `auth can-i --list` shows for `user` in `ns`, as a set of lines."""
    p = k(["auth", "can-i", "--list", "-n", ns], as_user=user)
    return p.returncode, {" ".join(l.split()) for l in p.stdout.splitlines()[1:] if l.strip()}


rc0, baseline = grants(f"system:serviceaccount:{sandbox_ns}:nobody-at-all", sandbox_ns)
rc1, sbx = grants(f"system:serviceaccount:{sandbox_ns}:{sa}", sandbox_ns)
check("the sandbox ServiceAccount is granted nothing beyond what any account has",
      rc0 == 0 and rc1 == 0 and sbx == baseline, sorted(sbx ^ baseline))
rc2, wk = grants(worker_user, sandbox_ns)
check("the worker's ServiceAccount is granted exactly pods create/get/list/watch/delete beyond that",
      rc2 == 0 and wk - baseline == {"pods [] [] [create get list watch delete]"}, sorted(wk - baseline))

# ---- 6. the restricted label is what refuses a pod ----------------------------------------------------
bad = sandbox_pod()
bad["spec"]["securityContext"] = {}
c = bad["spec"]["containers"][0]
c["securityContext"] = {"allowPrivilegeEscalation": True}
c["resources"] = {"limits": {"memory": "64Mi", "cpu": "1"}, "requests": {"memory": "64Mi", "cpu": "250m"}}
p = dry_run([bad])
check("a pod violating restricted is refused in the sandbox namespace",
      p.returncode != 0 and "violates PodSecurity" in p.stderr and "restricted" in p.stderr, p.stderr)
bad_rel = copy.deepcopy(bad)
bad_rel["metadata"]["namespace"] = release_ns
bad_rel["spec"]["serviceAccountName"] = "t-batlehub"
p = dry_run([bad_rel])
check("… and the same pod is admitted in the release namespace, which has no Pod Security label",
      p.returncode == 0, p.stderr)

print(f"{len(failures)} failure(s)" if failures else "every check passed")
sys.exit(1 if failures else 0)
PY
