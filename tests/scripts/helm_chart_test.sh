#!/bin/bash
# The Helm chart (deploy/helm/batlehub), offline: `helm lint --strict` and `helm template` for
# every runtime, the objects each renders asserted as data, and every rendered config.toml
# loaded by the real worker's loader (`batlehub check-config`).
#
#   helm_chart_test.sh CHART_DIR BATLEHUB_BIN HELM_BIN KUBECTL_BIN
#
# What it proves (RFC 0022 §5.3, §6.5, §9):
#   * runtime kubernetes renders exactly a Role (pods: create get list watch delete; no
#     subresource), its RoleBinding to the worker's ServiceAccount, the sandbox ServiceAccount
#     (automountServiceAccountToken: false), two NetworkPolicies and a ResourceQuota sized
#     replicas × pool × (memory_limit_mb + max_extracted_mb) — and the Namespace, labelled
#     restricted, only with createNamespace;
#   * bwrap, oci and none render none of those, and the same manifests but for the ConfigMap
#     and the Deployment's securityContext (none also carries BATLEHUB_UNSAFE_NO_SANDBOX=1);
#     kubernetes changes nothing else either but the worker's own token;
#   * the worker starts as upstream's chart starts it: args `--config /etc/batlehub/config.toml
#     --roles worker`, the ConfigMap mounted at /etc/batlehub;
#   * [storage] in upstream's two shapes: the single one (the defaults: filesystem at
#     /var/cache/batlehub; or s3) and the multi one (default + [[storage.backends]]), each key
#     in upstream's spelling; what the worker would refuse (s3 without bucket or region, an
#     entry without name or type, a default naming no entry, the old key names, credentials)
#     refused at render time, with and without the values schema;
#   * a volume at every distinct filesystem backend path (the worker creates it on a read-only
#     root): an emptyDir (storage.cache.sizeLimit) by default, the PersistentVolumeClaim of
#     storage.cache.existingClaim / storage.backends[].existingClaim when named, none for s3 or
#     for a path worker.extraVolumeMounts already holds; a path at, inside or above one of the
#     chart's own mounts (/etc/batlehub, /tmp, worker.stateDir) refused; NOTES.txt saying an
#     emptyDir cache is lost with the pod;
#   * storage.webIdentity: a projected token (audience, lifetime) mounted read-only and
#     AWS_ROLE_ARN / AWS_WEB_IDENTITY_TOKEN_FILE pointing at it, the worker's own API token
#     untouched;
#   * no Secret value can reach the ConfigMap;
#   * each runtime's config.toml, and each storage shape's, is accepted by `batlehub
#     check-config`, with the environment the Deployment gives the worker.
# Skips (exit 77) only when helm is not installed. Never contacts anything: helm runs with its
# homes in a temporary directory and no kubeconfig.
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 CHART_DIR BATLEHUB_BIN HELM_BIN KUBECTL_BIN" >&2
  exit 2
fi
CHART=$1 BATLEHUB=$2 HELM=$3 KUBECTL=$4
if [ ! -x "$HELM" ]; then
  echo "skip: helm is not installed at $HELM (scripts/install-kubernetes.sh installs it)"
  exit 77
fi
[ -x "$BATLEHUB" ] || { echo "FAIL: batlehub is not built at $BATLEHUB" >&2; exit 1; }
if ! python3 -c "import yaml" 2>/dev/null || [ "${BATLEHUB_TEST_NO_PYYAML:-0}" = 1 ]; then
  [ -x "$KUBECTL" ] || { echo "FAIL: neither PyYAML nor kubectl ($KUBECTL) to read the manifests with" >&2; exit 1; }
  echo "PyYAML is not installed: the manifests are read through kubectl annotate --local -o json"
fi

WORK=$(mktemp -d -t batlehub-helm-chart.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

exec python3 - "$CHART" "$BATLEHUB" "$HELM" "$KUBECTL" "$WORK" "$(dirname "$0")" <<'PY'
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

chart, batlehub, helm_bin, kubectl, work, here = sys.argv[1:7]
sys.path.insert(0, here)
from helm_render import Helm, by_key, key, of_kind  # noqa: E402

h = Helm(helm_bin, kubectl, chart, work)
failures = []
RUNTIMES = ["none", "bwrap", "oci", "kubernetes"]
SANDBOX_NS = "batlehub-sandbox"
RELEASE_NS = "batlehub"


def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name}")
    if not cond:
        failures.append(name)
        if detail:
            print("     " + str(detail).replace("\n", "\n     "))
    return cond


# Values every runtime is rendered with: the kubernetes ones included, so that the other
# runtimes are seen to ignore them. Addresses are loopback only (scripts/check-addresses.py).
BASE = {
    "replicaCount": 3,
    "worker": {
        "poolSlots": 2,
        "sandbox": {
            "memoryLimitMb": 1024,
            "maxExtractedMb": 256,
            "unsafeNoSandbox": True,  # read only under runtime none
            "probeCanaries": ["127.0.0.1:9"],
            "bundleBackend": "s3",
            "kubernetes": {
                "namespace": SANDBOX_NS,
                "runtimeClass": "gvisor",
                "nodeSelector": {"batlehub.io/pool": "sandbox"},
                "imagePullSecrets": ["regcred"],
                "storageEgress": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "minio"}},
                     "podSelector": {"matchLabels": {"app": "minio"}}, "ports": [{"port": 9000}]},
                    {"cidr": "127.0.0.1/32", "ports": [{"port": 9000, "protocol": "TCP"}]},
                ],
                "egressAllowlist": [
                    {"cidr": "127.0.0.0/8", "except": ["127.0.0.53/32"], "ports": [{"port": 443}]},
                ],
            },
        },
    },
    "storage": {
        # the multi shape: the bundle backend s3 (the default), and a filesystem one
        "default": "s3",
        "backends": [{"name": "s3", "type": "s3", "endpointUrl": "http://minio.minio.svc:9000", "bucket": "cache",
                      "region": "us-east-1", "forcePathStyle": True},
                     {"name": "local", "type": "filesystem", "path": "/var/cache/batlehub"}],
        "s3Credentials": {"existingSecret": "batlehub-s3", "accessKeyIdKey": "access-key",
                          "secretAccessKeyKey": "secret-key", "sessionTokenKey": "session-token"},
    },
    "database": {"url": "postgresql://batlehub@postgres.batlehub.svc:5432/batlehub",
                 "passwordSecret": {"name": "batlehub-pg", "key": "pg-password"}},
    "scanners": [
        {"name": "guarddog", "command": "guarddog", "ecosystems": ["npm", "pypi"],
         "image": {"repository": "registry.test/batlehub-sandbox-guarddog",
                   "digest": "sha256:" + "0" * 64},
         "escalation": {"kinds": ["malware_signal"], "count": 2, "from": "high", "to": "critical"}},
        {"name": "postmortem", "command": "postmortem", "online": True,
         "image": {"repository": "registry.test/batlehub-sandbox-postmortem"}},
        {"name": "trivy", "enabled": True, "endpoint": "http://trivy.batlehub.svc:4954", "timeoutSecs": 120,
         "image": {"repository": "registry.test/batlehub-sandbox-trivy", "tag": "0.1.0"}},
        {"name": "disabled-one", "enabled": False, "type": "yara", "rules": "/x.yar"},
        {"name": "osv"},
    ],
}
base = h.values_file(BASE)
EXPECTED_SCANNERS = "scanners guarddog postmortem trivy osv"


def runtime(r):
    return [f"worker.sandbox.runtime={r}"]


def config_toml(objs):
    cms = of_kind(objs, "ConfigMap")
    assert len(cms) == 1, cms
    return cms[0]["data"]["config.toml"]


def deployment(objs):
    ds = of_kind(objs, "Deployment")
    assert len(ds) == 1, ds
    return ds[0]


def worker_container(objs):
    return deployment(objs)["spec"]["template"]["spec"]["containers"][0]


def storage_of(objs):
    """[storage] of the rendered config.toml, as data."""
    return tomllib.loads(config_toml(objs)).get("storage")


def refused(p, *words):
    """helm failed, and its message holds every word."""
    return p.returncode != 0 and all(w in p.stderr for w in words)


# ---- helm lint --strict, every runtime, with the chart's defaults and with BASE -------------
for r in RUNTIMES:
    extra = ["worker.sandbox.unsafeNoSandbox=true"] if r == "none" else []
    for label, values in (("defaults", []), ("base values", [base])):
        p = h.lint(values, runtime(r) + extra)
        check(f"helm lint --strict: runtime {r}, {label}", p.returncode == 0, p.stdout + p.stderr)

# ---- helm template, every runtime ------------------------------------------------------------
rendered = {r: h.template([base], runtime(r), namespace=RELEASE_NS) for r in RUNTIMES}
keys = {r: set(by_key(rendered[r])) for r in RUNTIMES}
for r in RUNTIMES:
    a, b = (h.template_raw([base], runtime(r), namespace=RELEASE_NS).stdout for _ in range(2))
    check(f"runtime {r}: the same values render the same manifests (an upgrade changes nothing)", a == b and a)

SANDBOX_KINDS = {"Role", "RoleBinding", "NetworkPolicy", "ResourceQuota", "Namespace", "CiliumNetworkPolicy",
                 "ClusterRole", "ClusterRoleBinding", "Secret"}
worker_sa = ("ServiceAccount", RELEASE_NS, "t-batlehub")
for r in ("none", "bwrap", "oci"):
    kinds = sorted(k for k in keys[r] if k[0] in SANDBOX_KINDS)
    check(f"runtime {r}: no Role, RoleBinding, NetworkPolicy, ResourceQuota, Namespace", not kinds, kinds)
    sas = sorted(k for k in keys[r] if k[0] == "ServiceAccount")
    check(f"runtime {r}: the worker's ServiceAccount only", sas == [worker_sa], sas)
    check(f"runtime {r}: nothing in the sandbox namespace", not [k for k in keys[r] if k[1] == SANDBOX_NS])
    check(f"runtime {r}: the objects are ServiceAccount, ConfigMap, Deployment",
          sorted(k[0] for k in keys[r]) == ["ConfigMap", "Deployment", "ServiceAccount"], sorted(keys[r]))

extra_k8s = keys["kubernetes"] - keys["bwrap"]
check("runtime kubernetes: everything bwrap renders, and more", keys["bwrap"] <= keys["kubernetes"])
EXPECTED_EXTRA = {
    ("Role", SANDBOX_NS, "t-batlehub-sandbox-runner"),
    ("RoleBinding", SANDBOX_NS, "t-batlehub-sandbox-runner"),
    ("ServiceAccount", SANDBOX_NS, "batlehub-sandbox"),
    ("NetworkPolicy", SANDBOX_NS, "t-batlehub-sandbox-storage"),
    ("NetworkPolicy", SANDBOX_NS, "t-batlehub-sandbox-egress"),
    ("ResourceQuota", SANDBOX_NS, "t-batlehub-sandbox"),
}
check("runtime kubernetes adds exactly: Role, RoleBinding, sandbox ServiceAccount, 2 NetworkPolicies, ResourceQuota",
      extra_k8s == EXPECTED_EXTRA, sorted(extra_k8s ^ EXPECTED_EXTRA))

k = by_key(rendered["kubernetes"])
role = k.get(("Role", SANDBOX_NS, "t-batlehub-sandbox-runner"), {})
rules = role.get("rules", [])
check("Role: one rule", len(rules) == 1, rules)
if rules:
    rule = rules[0]
    check("Role: apiGroups exactly [\"\"]", rule.get("apiGroups") == [""], rule)
    check("Role: resources exactly [pods] (no subresource: no pods/log, pods/exec, pods/attach)",
          rule.get("resources") == ["pods"], rule)
    check("Role: verbs exactly {create, get, list, watch, delete}",
          sorted(rule.get("verbs", [])) == sorted(["create", "get", "list", "watch", "delete"])
          and len(rule["verbs"]) == 5, rule)
    check("Role: no resourceNames or nonResourceURLs", set(rule) == {"apiGroups", "resources", "verbs"}, rule)
rb = k.get(("RoleBinding", SANDBOX_NS, "t-batlehub-sandbox-runner"), {})
check("RoleBinding: to the Role", rb.get("roleRef") ==
      {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "t-batlehub-sandbox-runner"}, rb.get("roleRef"))
check("RoleBinding: to the worker's ServiceAccount, and only it",
      rb.get("subjects") == [{"kind": "ServiceAccount", "name": "t-batlehub", "namespace": RELEASE_NS}],
      rb.get("subjects"))
check("the Deployment runs as that ServiceAccount",
      deployment(rendered["kubernetes"])["spec"]["template"]["spec"]["serviceAccountName"] == "t-batlehub")
sbx_sa = k.get(("ServiceAccount", SANDBOX_NS, "batlehub-sandbox"), {})
check("sandbox ServiceAccount: automountServiceAccountToken false",
      sbx_sa.get("automountServiceAccountToken") is False, sbx_sa)
rbs = of_kind(rendered["kubernetes"], "RoleBinding")
check("nothing is bound to the sandbox ServiceAccount",
      not [s for b in rbs for s in b.get("subjects", []) if s.get("name") == "batlehub-sandbox"])

DNS_RULE = {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
            "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}
STORAGE_RULES = [
    {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "minio"}},
             "podSelector": {"matchLabels": {"app": "minio"}}}], "ports": [{"protocol": "TCP", "port": 9000}]},
    {"to": [{"ipBlock": {"cidr": "127.0.0.1/32"}}], "ports": [{"protocol": "TCP", "port": 9000}]},
]
ALLOW_RULES = [{"to": [{"ipBlock": {"cidr": "127.0.0.0/8", "except": ["127.0.0.53/32"]}}],
                "ports": [{"protocol": "TCP", "port": 443}]}]
for name, label, egress in (("t-batlehub-sandbox-storage", "storage", STORAGE_RULES + [DNS_RULE]),
                            ("t-batlehub-sandbox-egress", "egress", STORAGE_RULES + [DNS_RULE] + ALLOW_RULES)):
    np_ = k.get(("NetworkPolicy", SANDBOX_NS, name), {}).get("spec", {})
    check(f"NetworkPolicy {label}: selects io.batlehub/network={label}",
          np_.get("podSelector") == {"matchLabels": {"io.batlehub/network": label}}, np_.get("podSelector"))
    check(f"NetworkPolicy {label}: Ingress and Egress, no ingress rule",
          sorted(np_.get("policyTypes", [])) == ["Egress", "Ingress"] and not np_.get("ingress"), np_)
    check(f"NetworkPolicy {label}: egress is the storage endpoint + DNS 53/UDP+TCP"
          + (" + the allowlist" if label == "egress" else ""), np_.get("egress") == egress,
          json.dumps(np_.get("egress"), indent=1))

quota = k.get(("ResourceQuota", SANDBOX_NS, "t-batlehub-sandbox"), {}).get("spec", {})
# replicas 3 × pool 2 = 6; × (1024 + 256) Mi = 7680 Mi
check("ResourceQuota: replicas 3 × pool 2 × (1024 + 256) Mi",
      quota.get("hard") == {"pods": "6", "limits.cpu": "6", "limits.memory": "7680Mi", "requests.memory": "7680Mi"},
      quota)
check("ResourceQuota: unscoped in a dedicated namespace", "scopes" not in quota, quota)
check("config.toml: pool_slots is the pool the quota is sized for",
      re.search(r"(?m)^pool_slots = 2$", config_toml(rendered["kubernetes"])) is not None)

# ---- the rendered manifests are unchanged by the runtime, but for what must change ------------
def normalized(objs, drop_automount=False):
    out = {}
    for o in copy.deepcopy(objs):
        kk = key(o)
        if o["kind"] == "ConfigMap":
            o["data"] = "<config.toml>"
        if o["kind"] == "Deployment":
            tpl = o["spec"]["template"]
            tpl["metadata"]["annotations"].pop("checksum/config", None)  # the ConfigMap's hash
            spec = tpl["spec"]
            spec.pop("securityContext", None)
            if drop_automount:
                spec.pop("automountServiceAccountToken", None)
            for c in spec["containers"]:
                c.pop("securityContext", None)
                c["env"] = [e for e in c.get("env", []) if e["name"] != "BATLEHUB_UNSAFE_NO_SANDBOX"]
        out[kk] = o
    return out


nb = normalized(rendered["bwrap"])
for r in ("oci", "none"):
    nr = normalized(rendered[r])
    diff = sorted(kk for kk in set(nb) | set(nr) if nb.get(kk) != nr.get(kk))
    check(f"runtime {r} renders what bwrap renders, but the ConfigMap and the Deployment's securityContext",
          not diff, diff)
nk = normalized(rendered["kubernetes"], drop_automount=True)
nbk = normalized(rendered["bwrap"], drop_automount=True)
diff = sorted(kk for kk in nbk if nbk[kk] != nk.get(kk))
check("runtime kubernetes changes nothing bwrap renders but the ConfigMap, the securityContext and the worker's token",
      not diff, diff)
none_env = [e for e in worker_container(rendered["none"])["env"] if e["name"] == "BATLEHUB_UNSAFE_NO_SANDBOX"]
check("runtime none: BATLEHUB_UNSAFE_NO_SANDBOX=1 in the worker's environment",
      none_env == [{"name": "BATLEHUB_UNSAFE_NO_SANDBOX", "value": "1"}], none_env)
for r in ("bwrap", "oci", "kubernetes"):
    check(f"runtime {r}: no BATLEHUB_UNSAFE_NO_SANDBOX",
          not [e for e in worker_container(rendered[r])["env"] if e["name"] == "BATLEHUB_UNSAFE_NO_SANDBOX"])
# The worker image holds batlehub, which fails no_shell in any sandbox: it is never a run's
# image, so it is not exported as the fallback (docs/architecture.md, departure 20).
for r in RUNTIMES:
    check(f"runtime {r}: no BATLEHUB_IMAGE (the worker image is never a run's)",
          not [e for e in worker_container(rendered[r])["env"] if e["name"] == "BATLEHUB_IMAGE"],
          worker_container(rendered[r])["env"])
for r in RUNTIMES:
    spec = deployment(rendered[r])["spec"]["template"]["spec"]
    want = r == "kubernetes"
    check(f"runtime {r}: the worker's token {'is mounted (in-cluster credentials)' if want else 'is not mounted'}",
          spec.get("automountServiceAccountToken") is want, spec.get("automountServiceAccountToken"))
    sc = worker_container(rendered[r]).get("securityContext", {})
    psc = spec.get("securityContext", {})
    check(f"runtime {r}: the worker needs no privilege (non-root, drop ALL, read-only root, RuntimeDefault seccomp)",
          sc.get("runAsNonRoot") is True and sc.get("allowPrivilegeEscalation") is False
          and sc.get("privileged") is False and sc.get("capabilities") == {"drop": ["ALL"]}
          and sc.get("readOnlyRootFilesystem") is True and sc.get("seccompProfile") == {"type": "RuntimeDefault"}
          and "add" not in sc.get("capabilities", {})
          and psc.get("runAsNonRoot") is True and psc.get("seccompProfile") == {"type": "RuntimeDefault"}, (psc, sc))

# bwrap's own profile values reach the securityContext on bwrap only.
prof = ["worker.sandbox.bwrap.seccompProfile.type=Localhost",
        "worker.sandbox.bwrap.seccompProfile.localhostProfile=profiles/batlehub-bwrap.json",
        "worker.sandbox.bwrap.appArmorProfile.type=Localhost",
        "worker.sandbox.bwrap.appArmorProfile.localhostProfile=batlehub-bwrap"]
bw = worker_container(h.template([base], runtime("bwrap") + prof)).get("securityContext", {})
check("bwrap: worker.sandbox.bwrap.seccompProfile / appArmorProfile set the worker's profiles",
      bw.get("seccompProfile") == {"type": "Localhost", "localhostProfile": "profiles/batlehub-bwrap.json"}
      and bw.get("appArmorProfile") == {"type": "Localhost", "localhostProfile": "batlehub-bwrap"}, bw)
ks = worker_container(h.template([base], runtime("kubernetes") + prof)).get("securityContext", {})
check("kubernetes: the bwrap profile values change nothing",
      ks.get("seccompProfile") == {"type": "RuntimeDefault"} and "appArmorProfile" not in ks, ks)

# ---- the quota's size, the pool, the namespace -------------------------------------------------
def quota_of(objs):
    qs = of_kind(objs, "ResourceQuota")
    return qs[0]["spec"] if len(qs) == 1 else None


# pool from the worker's memory limit: ⌊6144 Mi ÷ (2048 + 512)⌋ = 2; replicas 2 → 4 pods, 10240 Mi
objs = h.template([base], runtime("kubernetes") + ["worker.poolSlots=0", "resources.limits.memory=6Gi",
                                                  "worker.sandbox.memoryLimitMb=2048",
                                                  "worker.sandbox.maxExtractedMb=512", "replicaCount=2"])
check("ResourceQuota: pool ⌊6Gi ÷ 2560 Mi⌋ = 2 from resources.limits.memory, replicas 2",
      quota_of(objs)["hard"] == {"pods": "4", "limits.cpu": "4", "limits.memory": "10240Mi",
                                 "requests.memory": "10240Mi"}, quota_of(objs))
check("… and pool_slots = 2 in config.toml", re.search(r"(?m)^pool_slots = 2$", config_toml(objs)) is not None)
# no pool_slots, no memory limit: one (RFC 0022 §5.3: "one until 0018-bis lands")
objs = h.template([base], runtime("kubernetes") + ["worker.poolSlots=0", "replicaCount=1"])
check("ResourceQuota: pool 1 when neither poolSlots nor a memory limit says more",
      quota_of(objs)["hard"] == {"pods": "1", "limits.cpu": "1", "limits.memory": "1280Mi",
                                 "requests.memory": "1280Mi"}, quota_of(objs))
check("… and pool_slots = 1 in config.toml", re.search(r"(?m)^pool_slots = 1$", config_toml(objs)) is not None)
check("bwrap: pool_slots as given (0: the worker derives it)",
      re.search(r"(?m)^pool_slots = 0$", config_toml(h.template([base], runtime("bwrap") + ["worker.poolSlots=0"])))
      is not None)
objs = h.template([base], runtime("kubernetes") + ["worker.sandbox.kubernetes.resourceQuota.enabled=false"])
check("resourceQuota.enabled=false: no ResourceQuota", quota_of(objs) is None)

# namespace "" = the release namespace: everything there, and the quota counts sandbox pods only
objs = h.template([base], runtime("kubernetes") + ["worker.sandbox.kubernetes.namespace="], namespace="team-a")
sandboxish = [o for o in objs if o["kind"] in ("Role", "RoleBinding", "NetworkPolicy", "ResourceQuota")]
check("namespace \"\": the sandbox objects go to the release namespace",
      len(sandboxish) == 5 and all(o["metadata"]["namespace"] == "team-a" for o in sandboxish),
      [key(o) for o in sandboxish])
check("… and the quota is scoped to Terminating pods (sandbox pods, never the worker's)",
      quota_of(objs).get("scopes") == ["Terminating"], quota_of(objs))
check("… and config.toml names it", 'namespace = "team-a"' in config_toml(objs))

# ---- the Namespace, only on request ------------------------------------------------------------
check("createNamespace false (the default): no Namespace", not of_kind(rendered["kubernetes"], "Namespace"))
objs = h.template([base], runtime("kubernetes") + ["worker.sandbox.kubernetes.createNamespace=true"])
nss = of_kind(objs, "Namespace")
check("createNamespace true: the sandbox Namespace, enforcing restricted",
      len(nss) == 1 and nss[0]["metadata"]["name"] == SANDBOX_NS
      and nss[0]["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "restricted", nss)
for r in ("none", "bwrap", "oci"):
    objs = h.template([base], runtime(r) + ["worker.sandbox.kubernetes.createNamespace=true"])
    check(f"runtime {r}: createNamespace true renders no Namespace", not of_kind(objs, "Namespace"))
p = h.template_raw([base], runtime("kubernetes") + ["worker.sandbox.kubernetes.namespace=",
                                                   "worker.sandbox.kubernetes.createNamespace=true"])
check("createNamespace with the release's own namespace is refused", p.returncode != 0
      and "createNamespace needs" in p.stderr, p.stderr)

# ---- FQDN rules: a CiliumNetworkPolicy beside each NetworkPolicy ---------------------------------
fq = copy.deepcopy(BASE)
fq["worker"]["sandbox"]["kubernetes"]["storageEgress"].append({"fqdn": "s3.storage.test", "ports": [{"port": 443}]})
fq["worker"]["sandbox"]["kubernetes"]["egressAllowlist"].append({"matchPattern": "*.registry.test",
                                                                 "ports": [{"port": 443}]})
objs = h.template([h.values_file(fq)], runtime("kubernetes"))
cnps = {o["metadata"]["name"]: o for o in of_kind(objs, "CiliumNetworkPolicy")}
check("fqdn rules: one CiliumNetworkPolicy per policy",
      sorted(cnps) == ["t-batlehub-sandbox-egress-fqdn", "t-batlehub-sandbox-storage-fqdn"], sorted(cnps))
if len(cnps) == 2:
    st = [r for r in cnps["t-batlehub-sandbox-storage-fqdn"]["spec"]["egress"] if "toFQDNs" in r]
    eg = [r for r in cnps["t-batlehub-sandbox-egress-fqdn"]["spec"]["egress"] if "toFQDNs" in r]
    check("… storage: the endpoint's name only", [r["toFQDNs"] for r in st] == [[{"matchName": "s3.storage.test"}]], st)
    check("… egress: the endpoint's name and the allowlist's pattern",
          [r["toFQDNs"] for r in eg] == [[{"matchName": "s3.storage.test"}], [{"matchPattern": "*.registry.test"}]], eg)
    check("… selecting on the same label", cnps["t-batlehub-sandbox-storage-fqdn"]["spec"]["endpointSelector"]
          == {"matchLabels": {"io.batlehub/network": "storage"}})
nps = {o["metadata"]["name"]: o for o in of_kind(objs, "NetworkPolicy")}
check("… and the NetworkPolicies are unchanged by them",
      nps == {o["metadata"]["name"]: o for o in of_kind(rendered["kubernetes"], "NetworkPolicy")})
bad = copy.deepcopy(BASE)
bad["worker"]["sandbox"]["kubernetes"]["storageEgress"] = [{"cidr": "127.0.0.1/32", "fqdn": "x.test"}]
p = h.template_raw([h.values_file(bad)], runtime("kubernetes"))
check("a rule of two forms at once is refused", p.returncode != 0 and "exactly one of" in p.stderr, p.stderr)

# ---- secrets -----------------------------------------------------------------------------------
for r in RUNTIMES:
    toml = config_toml(rendered[r])
    check(f"runtime {r}: no kind Secret rendered", not of_kind(rendered[r], "Secret"))
    words = [w for w in ("access_key_id", "secret_access_key", "session_token", "password", "batlehub-s3",
                         "batlehub-pg", "pg-password", "secret-key", "kubeconfig") if w in toml]
    check(f"runtime {r}: the ConfigMap names no credential, secret or kubeconfig", not words, words)
    env = {e["name"]: e for e in worker_container(rendered[r])["env"]}
    for var, sk in (("AWS_ACCESS_KEY_ID", ("batlehub-s3", "access-key")),
                    ("AWS_SECRET_ACCESS_KEY", ("batlehub-s3", "secret-key")),
                    ("AWS_SESSION_TOKEN", ("batlehub-s3", "session-token")),
                    ("PGPASSWORD", ("batlehub-pg", "pg-password"))):
        e = env.get(var, {})
        ref = e.get("valueFrom", {}).get("secretKeyRef", {})
        check(f"runtime {r}: {var} from Secret {sk[0]} key {sk[1]}, never a value",
              "value" not in e and (ref.get("name"), ref.get("key")) == sk, e)
CANARY = "canary-9f4c2e-never-rendered"
for field in ("accessKeyId", "secretAccessKey", "sessionToken", "access_key_id", "secret_access_key", "session_token"):
    leak = copy.deepcopy(BASE)
    leak["storage"]["backends"][0][field] = CANARY
    single = {"storage": {"type": "s3", "bucket": "cache", "region": "us-east-1", field: CANARY},
              "worker": {"sandbox": {"unsafeNoSandbox": True}}}
    for where, values in (("storage.backends[0]", leak), ("storage", single)):
        for r in RUNTIMES:
            for extra in ([], ["--skip-schema-validation"]):
                p = h.template_raw([h.values_file(values)], runtime(r), extra=extra)
                ok = (p.returncode != 0 and CANARY not in p.stdout and CANARY not in p.stderr
                      and f"{where}.{field}: credentials are never rendered" in p.stderr)
                if (r == "kubernetes" and not extra) or not ok:
                    check(f"{where}.{field} is refused (runtime {r}{', schema skipped' if extra else ''}), "
                          "and its value never printed", ok, p.stdout[-300:] + p.stderr)
p = h.template_raw([base], runtime("bwrap") + ["database.url=postgresql://u:" + CANARY + "@db.test/x"])
check("a database.url carrying a password is refused", p.returncode != 0 and CANARY not in p.stdout
      and "passwordSecret" in p.stderr, p.stderr)
p = h.template_raw([base], runtime("kubernetes") + ["worker.sandbox.kubernetes.kubeconfig=/etc/kubeconfig"])
check("worker.sandbox.kubernetes.kubeconfig is refused (in a cluster the worker uses its ServiceAccount)",
      p.returncode != 0 and "kubeconfig" in p.stderr, p.stderr)

# ---- how the worker is started: upstream's arguments, the config at /etc/batlehub -------------------
for r in RUNTIMES:
    objs = rendered[r]
    c = worker_container(objs)
    check(f"runtime {r}: the worker starts as upstream's: args --config /etc/batlehub/config.toml --roles worker",
          c.get("args") == ["--config", "/etc/batlehub/config.toml", "--roles", "worker"] and "command" not in c,
          (c.get("command"), c.get("args")))
    mounts = [m for m in c.get("volumeMounts", []) if m["name"] == "config"]
    vols = [v for v in deployment(objs)["spec"]["template"]["spec"]["volumes"] if v["name"] == "config"]
    check(f"runtime {r}: the ConfigMap (config.toml) is mounted read-only at /etc/batlehub",
          mounts == [{"name": "config", "mountPath": "/etc/batlehub", "readOnly": True}]
          and vols == [{"name": "config", "configMap": {"name": "t-batlehub"}}]
          and list(of_kind(objs, "ConfigMap")[0]["data"]) == ["config.toml"], (mounts, vols))

# ---- [storage], in upstream's two shapes -------------------------------------------------------------
check("the chart's defaults render the single shape: [storage] type = filesystem, path /var/cache/batlehub",
      storage_of(h.template([], runtime("bwrap"))) == {"type": "filesystem", "path": "/var/cache/batlehub"},
      storage_of(h.template([], runtime("bwrap"))))
check("the multi shape: default, then one [[storage.backends]] each, keys in upstream's spelling",
      storage_of(rendered["bwrap"]) == {
          "default": "s3",
          "backends": [{"name": "s3", "type": "s3", "bucket": "cache", "region": "us-east-1",
                        "endpoint_url": "http://minio.minio.svc:9000", "force_path_style": True},
                       {"name": "local", "type": "filesystem", "path": "/var/cache/batlehub"}]},
      storage_of(rendered["bwrap"]))
check("… the same on every runtime", all(storage_of(rendered[r]) == storage_of(rendered["bwrap"]) for r in RUNTIMES))
SINGLE_S3 = ["storage.type=s3", "storage.bucket=cache", "storage.region=eu-west-3"]
check("the single shape, s3, with only what is required: bucket, region, force_path_style false (rendered); "
      "no prefix, endpoint_url or ca_file",
      storage_of(h.template([], runtime("bwrap") + SINGLE_S3))
      == {"type": "s3", "bucket": "cache", "region": "eu-west-3", "force_path_style": False},
      storage_of(h.template([], runtime("bwrap") + SINGLE_S3)))
FULL_S3 = SINGLE_S3 + ["storage.prefix=batlehub/", "storage.endpointUrl=https://s3.storage.test:9000",
                       "storage.forcePathStyle=true", "storage.caFile=/etc/batlehub-ca/ca.pem"]
check("the single shape, s3, every key: prefix, endpoint_url, force_path_style, ca_file",
      storage_of(h.template([], runtime("bwrap") + FULL_S3))
      == {"type": "s3", "bucket": "cache", "region": "eu-west-3", "prefix": "batlehub/",
          "endpoint_url": "https://s3.storage.test:9000", "force_path_style": True,
          "ca_file": "/etc/batlehub-ca/ca.pem"}, storage_of(h.template([], runtime("bwrap") + FULL_S3)))
objs = h.template([], runtime("bwrap") + ["storage.path=/srv/cache", 'storage.bucket=', "storage.region="])
check("the single shape, filesystem: path, and no s3 key",
      storage_of(objs) == {"type": "filesystem", "path": "/srv/cache"}, storage_of(objs))
for k in ("type", "bucket", "region", "endpoint_url", "prefix"):
    check(f"the multi shape renders no [storage] {k} of the single shape", k not in storage_of(rendered["bwrap"]))


def storage_refused(name, values, sets, *words, schema_too=True):
    """Refused by the chart's templates (with the schema skipped: `--skip-schema-validation`), and by
    a plain render (the schema, or the templates)."""
    vf = [h.values_file(values)] if values is not None else []
    p = h.template_raw(vf, runtime("bwrap") + sets, extra=["--skip-schema-validation"])
    ok = check(f"refused: {name}", refused(p, *words), p.stderr.strip() or p.stdout[-200:])
    if schema_too:
        q = h.template_raw(vf, runtime("bwrap") + sets)
        check(f"… also without --skip-schema-validation", q.returncode != 0, q.stderr)
    return ok


def multi(*backends, default="a"):
    return {"storage": {"default": default, "backends": list(backends)}}


S3A = {"name": "a", "type": "s3", "bucket": "cache", "region": "us-east-1"}
storage_refused("single s3 without bucket", None, ["storage.type=s3", "storage.region=us-east-1"],
                "storage.bucket is required")
storage_refused("single s3 without region", None, ["storage.type=s3", "storage.bucket=cache"],
                "storage.region is required")
storage_refused("single shape of an unknown type", None, ["storage.type=gcs"], 'storage.type = "gcs"')
storage_refused("single filesystem with an s3 key", None, ["storage.bucket=cache"], "storage.bucket is an s3 key")
storage_refused("storage.default without storage.backends", None, ["storage.default=s3"],
                'storage.default = "s3"', "which is empty")
storage_refused("a backend without name", multi({k: v for k, v in S3A.items() if k != "name"}), [],
                "storage.backends[0].name is required")
storage_refused("a backend without type", multi({"name": "a", "path": "/x"}), [], "storage.backends[0].type is required")
storage_refused("an s3 backend without bucket", multi({k: v for k, v in S3A.items() if k != "bucket"}), [],
                "storage.backends[0].bucket is required")
storage_refused("an s3 backend without region", multi({k: v for k, v in S3A.items() if k != "region"}), [],
                "storage.backends[0].region is required")
storage_refused("a filesystem backend without path", multi({"name": "a", "type": "filesystem"}), [],
                "storage.backends[0].path is required")
storage_refused("an s3 backend with a path", multi(dict(S3A, path="/x")), [], "storage.backends[0].path is a filesystem key")
storage_refused("storage.backends without storage.default", multi(S3A, default=""), [],
                "storage.default is required with storage.backends")
storage_refused("storage.default naming no backend", multi(S3A, default="b"), [],
                'storage.default = "b" names no backend', "declared: a")
storage_refused("two backends with one name", multi(S3A, {"name": "a", "type": "filesystem", "path": "/x"}), [],
                'storage.backends[1].name = "a"')
storage_refused("a single-shape key beside storage.backends", multi(S3A), ["storage.bucket=other"],
                "storage.bucket belongs to the single shape")
for old, new in (("endpoint", "endpointUrl"), ("pathStyle", "forcePathStyle"), ("endpoint_url", "endpointUrl"),
                 ("force_path_style", "forcePathStyle"), ("ca_file", "caFile")):
    value = True if "tyle" in old else "http://127.0.0.1:9000"
    storage_refused(f"the old name {old} (a backend)", multi(dict(S3A, **{old: value})), [],
                    f"storage.backends[0].{old}: write {new}")
    storage_refused(f"the old name {old} (the single shape)", {"storage": {"type": "s3", "bucket": "b", "region": "r",
                                                                          old: value}}, [], f"storage.{old}: write {new}")

# ---- the stores' volumes: one per filesystem path ------------------------------------------------------
CHART_VOLUMES = {"config", "state", "tmp", "aws-web-identity"}


def cache_volumes(objs):
    """The volumes the chart adds for the stores (all but its own and the tests' worker.extraVolumes,
    named user-*), and the worker container's mounts of them."""
    spec = deployment(objs)["spec"]["template"]["spec"]
    vols = [v for v in spec["volumes"] if v["name"] not in CHART_VOLUMES and not v["name"].startswith("user-")]
    names = {v["name"] for v in vols}
    mounts = [m for m in worker_container(objs).get("volumeMounts", []) if m["name"] in names]
    return vols, mounts


DEFAULT_CACHE = ([{"name": "cache-0", "emptyDir": {}}], [{"name": "cache-0", "mountPath": "/var/cache/batlehub"}])
for r in RUNTIMES:
    sets = runtime(r) + (["worker.sandbox.unsafeNoSandbox=true"] if r == "none" else [])
    got = cache_volumes(h.template([], sets))
    check(f"chart defaults' runtime {r}: one emptyDir volume, mounted read-write at /var/cache/batlehub "
          "(the worker creates storage.path on a read-only root)", got == DEFAULT_CACHE, got)
got = cache_volumes(h.template([], runtime("bwrap") + ["storage.cache.sizeLimit=10Gi"]))
check("storage.cache.sizeLimit: the emptyDir's sizeLimit",
      got == ([{"name": "cache-0", "emptyDir": {"sizeLimit": "10Gi"}}], DEFAULT_CACHE[1]), got)
objs = h.template([], runtime("bwrap") + ["storage.cache.existingClaim=bh-cache", "storage.cache.sizeLimit=10Gi"])
got = cache_volumes(objs)
check("storage.cache.existingClaim: a persistentVolumeClaim volume with that claimName, mounted read-write at "
      "storage.path (no emptyDir)",
      got == ([{"name": "cache-0", "persistentVolumeClaim": {"claimName": "bh-cache"}}], DEFAULT_CACHE[1]), got)
check("… and config.toml is as without it (existingClaim is no TOML key)",
      config_toml(objs) == config_toml(h.template([], runtime("bwrap") + ["storage.cache.sizeLimit=10Gi"])))
got = cache_volumes(h.template([], runtime("bwrap") + ["storage.path=/srv/cache/", "storage.cache.existingClaim=c"]))
check("storage.path elsewhere (trailing slash): the claim is mounted there",
      got == ([{"name": "cache-0", "persistentVolumeClaim": {"claimName": "c"}}],
              [{"name": "cache-0", "mountPath": "/srv/cache"}]), got)
for r in RUNTIMES:
    got = cache_volumes(rendered[r])
    check(f"base values, runtime {r}: the filesystem backend gets an emptyDir at its path, the s3 backend none",
          got == DEFAULT_CACHE, got)
for r in ("bwrap", "kubernetes"):
    got = cache_volumes(h.template([], runtime(r) + SINGLE_S3))
    check(f"single-shape s3 (runtime {r}): no store volume", got == ([], []), got)

TWO_FS = {"storage": {"default": "a", "cache": {"sizeLimit": "2Gi"}, "backends": [
    {"name": "a", "type": "filesystem", "path": "/var/cache/a"},
    {"name": "s", "type": "s3", "bucket": "cache", "region": "us-east-1"},
    {"name": "b", "type": "filesystem", "path": "/srv/b", "existingClaim": "claim-b"},
    {"name": "again", "type": "filesystem", "path": "/var/cache/a/"}]}}
objs = h.template([h.values_file(TWO_FS)], runtime("bwrap"))
got = cache_volumes(objs)
check("multi shape, two filesystem paths (one named twice) and an s3 backend: two volumes at two paths — "
      "an emptyDir, the entry's claim — and none for s3",
      got == ([{"name": "cache-0", "emptyDir": {"sizeLimit": "2Gi"}},
               {"name": "cache-1", "persistentVolumeClaim": {"claimName": "claim-b"}}],
              [{"name": "cache-0", "mountPath": "/var/cache/a"}, {"name": "cache-1", "mountPath": "/srv/b"}]), got)
check("… and [storage] renders no existingClaim", "existing" not in config_toml(objs).lower()
      and all(set(b) <= {"name", "type", "path", "bucket", "region", "force_path_style"}
              for b in storage_of(objs)["backends"]), storage_of(objs))
two_claims = copy.deepcopy(TWO_FS)
two_claims["storage"]["backends"][3]["existingClaim"] = "claim-a"
got = cache_volumes(h.template([h.values_file(two_claims)], runtime("bwrap")))
check("multi shape: a claim on either entry of a shared path is that path's volume",
      got[0][:1] == [{"name": "cache-0", "persistentVolumeClaim": {"claimName": "claim-a"}}], got)

USER = {"worker": {"extraVolumes": [{"name": "user-store", "persistentVolumeClaim": {"claimName": "shared"}}],
                   "extraVolumeMounts": [{"name": "user-store", "mountPath": "/var/cache"}]}}
objs = h.template([h.values_file(USER)], runtime("bwrap"))
mounts = worker_container(objs)["volumeMounts"]
check("a path already on a worker.extraVolumeMounts volume (a directory above it) gets no volume of the chart's",
      cache_volumes(objs) == ([], []) and {"name": "user-store", "mountPath": "/var/cache"} in mounts, mounts)

storage_refused("a path under /etc/batlehub (the ConfigMap's mount)", None,
                ["storage.path=/etc/batlehub/cache"], 'storage.path = "/etc/batlehub/cache"',
                "the chart already mounts the ConfigMap (config.toml) at /etc/batlehub")
storage_refused("a backend's path under /etc/batlehub", multi({"name": "a", "type": "filesystem",
                                                               "path": "/etc/batlehub/x"}), [],
                'storage.backends[0].path = "/etc/batlehub/x"', "at /etc/batlehub")
storage_refused("the path /etc/batlehub itself", None, ["storage.path=/etc/batlehub/"], "at /etc/batlehub")
storage_refused("a path under the scratch /tmp", None, ["storage.path=/tmp/cache"], "the scratch volume")
storage_refused("a path under worker.stateDir", None, ["storage.path=/var/lib/batlehub/cache"],
                "the state volume (worker.stateDir) at /var/lib/batlehub")
storage_refused("a path above a chart mount (/var holds worker.stateDir)", None, ["storage.path=/var"],
                "at, inside or above it")
storage_refused("a relative path", None, ["storage.path=cache"], 'storage.path = "cache" must be an absolute path')
storage_refused("storage.cache.existingClaim beside storage.backends",
                multi({"name": "a", "type": "filesystem", "path": "/x"}), ["storage.cache.existingClaim=c"],
                "storage.cache.existingClaim belongs to the single shape", "storage.backends[<i>].existingClaim")
storage_refused("existingClaim on an s3 backend", multi(dict(S3A, existingClaim="c")), [],
                "storage.backends[0].existingClaim is a filesystem key")
storage_refused("storage.cache.existingClaim with the single shape's s3", None,
                SINGLE_S3 + ["storage.cache.existingClaim=c"], "storage.cache.existingClaim", "storage.type is s3")
claims = copy.deepcopy(two_claims)
claims["storage"]["backends"][0]["existingClaim"] = "claim-z"
storage_refused("two claims for one path", claims, [], "storage.backends[0].existingClaim and "
                "storage.backends[3].existingClaim both name a PersistentVolumeClaim for the path /var/cache/a")
storage_refused("a claim for a path a worker.extraVolumeMounts volume already holds",
                USER, ["storage.cache.existingClaim=c"], "already on a volume of worker.extraVolumeMounts")
p = h.template_raw([], runtime("bwrap") + ["storage.cache.sizeLimit=lots"])
check("storage.cache.sizeLimit that is no quantity is refused by the schema", p.returncode != 0, p.stderr)

# NOTES.txt (helm template does not render it): rendered through a copy of the chart that holds it
# as a ConfigMap.
notes_chart = os.path.join(work, "notes-chart")
shutil.copytree(chart, notes_chart)
with open(os.path.join(notes_chart, "templates", "NOTES.txt")) as f:
    notes_src = f.read()
os.remove(os.path.join(notes_chart, "templates", "NOTES.txt"))
with open(os.path.join(notes_chart, "templates", "_test_notes.tpl"), "w") as f:
    f.write('{{- define "test.notes" -}}\n' + notes_src + '\n{{- end -}}\n')
with open(os.path.join(notes_chart, "templates", "test-notes.yaml"), "w") as f:
    f.write('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-notes\n'
            'data:\n  NOTES.txt: {{ include "test.notes" . | toJson }}\n')
os.makedirs(os.path.join(work, "notes-helm"), exist_ok=True)
hn = Helm(helm_bin, kubectl, notes_chart, os.path.join(work, "notes-helm"))


def notes(values=(), sets=()):
    objs = hn.template(values, runtime("bwrap") + list(sets))
    return [o for o in of_kind(objs, "ConfigMap") if o["metadata"]["name"] == "test-notes"][0]["data"]["NOTES.txt"]


n = notes()
check("NOTES.txt, defaults: the cache at /var/cache/batlehub is an emptyDir, lost with the pod unless a claim "
      "is given (storage.cache.existingClaim)",
      "the cache at /var/cache/batlehub is an emptyDir: it is lost with the pod" in n
      and "unless a claim is given" in n and "storage.cache.existingClaim" in n
      and "Upstream's chart mounts a PersistentVolumeClaim" in n, n)
n = notes(sets=["storage.cache.existingClaim=bh-cache"])
check("NOTES.txt with storage.cache.existingClaim: the claim, and no warning",
      "Store /var/cache/batlehub: PersistentVolumeClaim bh-cache" in n and "lost with the pod" not in n, n)
n = notes([h.values_file(TWO_FS)])
check("NOTES.txt, multi shape: the emptyDir path named, and storage.backends[].existingClaim",
      "the cache at /var/cache/a is an emptyDir" in n and "storage.backends[].existingClaim" in n
      and "Store /srv/b: PersistentVolumeClaim claim-b" in n, n)

# ---- storage.webIdentity: the pod's own role -------------------------------------------------------
ROLE = "arn:aws:iam::123456789012:role/batlehub-worker"
WI = {"storage": {"type": "s3", "bucket": "cache", "region": "us-east-1",
                  "webIdentity": {"roleArn": ROLE, "audience": "sts.storage.test", "expirationSeconds": 7200}}}
TOKEN_DIR = "/var/run/secrets/batlehub/aws-web-identity"
for r in ("bwrap", "kubernetes"):
    objs = h.template([h.values_file(WI)], runtime(r))
    spec = deployment(objs)["spec"]["template"]["spec"]
    c = worker_container(objs)
    env = {e["name"]: e for e in c["env"]}
    vols = [v for v in spec["volumes"] if v["name"] == "aws-web-identity"]
    check(f"webIdentity (runtime {r}): a projected ServiceAccount token, its audience and lifetime",
          vols == [{"name": "aws-web-identity", "projected": {"sources": [{"serviceAccountToken": {
              "audience": "sts.storage.test", "expirationSeconds": 7200, "path": "token"}}]}}], vols)
    mounts = [m for m in c["volumeMounts"] if m["name"] == "aws-web-identity"]
    check(f"webIdentity (runtime {r}): mounted read-only in the worker container, away from the API token's directory",
          mounts == [{"name": "aws-web-identity", "mountPath": TOKEN_DIR, "readOnly": True}]
          and not TOKEN_DIR.startswith("/var/run/secrets/kubernetes.io"), mounts)
    check(f"webIdentity (runtime {r}): AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE (the mounted token), "
          "AWS_ROLE_SESSION_NAME (the pod's name)",
          env.get("AWS_ROLE_ARN") == {"name": "AWS_ROLE_ARN", "value": ROLE}
          and env.get("AWS_WEB_IDENTITY_TOKEN_FILE") == {"name": "AWS_WEB_IDENTITY_TOKEN_FILE",
                                                         "value": TOKEN_DIR + "/token"}
          and env.get("AWS_ROLE_SESSION_NAME", {}).get("valueFrom") == {"fieldRef": {"fieldPath": "metadata.name"}},
          {k: v for k, v in env.items() if k.startswith("AWS_")})
    check(f"webIdentity (runtime {r}): no AWS_ACCESS_KEY_ID beside it (no s3Credentials)",
          not [k for k in env if k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")])
    want = r == "kubernetes"
    check(f"webIdentity (runtime {r}): the worker's own API token is as without it ({'mounted' if want else 'not mounted'})",
          spec.get("automountServiceAccountToken") is want
          and spec.get("automountServiceAccountToken")
          is deployment(rendered[r])["spec"]["template"]["spec"].get("automountServiceAccountToken"),
          spec.get("automountServiceAccountToken"))
sa = by_key(h.template([h.values_file(WI)], runtime("bwrap"))).get(worker_sa, {})
check("webIdentity: the worker's ServiceAccount still has automountServiceAccountToken: false",
      sa.get("automountServiceAccountToken") is False, sa)
objs = h.template([h.values_file(WI)], runtime("bwrap"))
check("webIdentity: audience and lifetime default to sts.amazonaws.com, 3600 s",
      [v for v in deployment(h.template([], runtime("bwrap") + SINGLE_S3 + [f"storage.webIdentity.roleArn={ROLE}"]))
       ["spec"]["template"]["spec"]["volumes"] if v["name"] == "aws-web-identity"][0]["projected"]["sources"][0]
      == {"serviceAccountToken": {"audience": "sts.amazonaws.com", "expirationSeconds": 3600, "path": "token"}})
for r in RUNTIMES:
    spec = deployment(rendered[r])["spec"]["template"]["spec"]
    c = worker_container(rendered[r])
    check(f"runtime {r}: without webIdentity.roleArn, no projected token, no AWS_ROLE_ARN / AWS_WEB_IDENTITY_TOKEN_FILE",
          not [v for v in spec["volumes"] if "projected" in v]
          and not [e for e in c["env"] if e["name"] in ("AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE")])
p = h.template_raw([h.values_file(WI)], runtime("bwrap") + ["storage.s3Credentials.existingSecret=batlehub-s3"])
check("webIdentity with s3Credentials.existingSecret is refused (the environment's keys would always win)",
      refused(p, "storage.webIdentity.roleArn and storage.s3Credentials.existingSecret"), p.stderr)
p = h.template_raw([h.values_file(WI)], runtime("bwrap") + ["storage.webIdentity.expirationSeconds=599"])
check("webIdentity: expirationSeconds below Kubernetes' 600 is refused", p.returncode != 0, p.stderr)
p = h.template_raw([h.values_file(WI)], runtime("bwrap") + ["storage.webIdentity.expirationSeconds=599"],
                   extra=["--skip-schema-validation"])
check("… by the templates too", refused(p, "at least 600"), p.stderr)
p = h.template_raw([h.values_file(WI)], runtime("bwrap") + ["storage.webIdentity.audience="])
check("webIdentity: an empty audience is refused", refused(p, "audience must not be empty"), p.stderr)

# ---- images from a registry, by digest (what `make images REGISTRY=…` writes) ---------------------
with open(os.path.join(chart, "Chart.yaml"), encoding="utf-8") as f:
    APP_VERSION = re.search(r'^appVersion:\s*"?([^"\n]+)"?', f.read(), re.M).group(1)
D_WORKER, D_TRIVY, D_GUARDDOG = ("sha256:" + c * 64 for c in "abc")
pushed = h.values_file({"imageRegistry": "127.0.0.1:5000",
                        "imageDigests": {"batlehub-worker": D_WORKER, "batlehub-sandbox-trivy": D_TRIVY,
                                         "batlehub-sandbox-guarddog": D_GUARDDOG}})
objs = h.template([base, pushed], runtime("kubernetes"), namespace=RELEASE_NS)
images = {n: t.get("image") for n, t in tomllib.loads(config_toml(objs)).get("scanners", {}).items()}
check("imageRegistry + imageDigests: the worker's image is the registry's, by digest",
      worker_container(objs)["image"] == "127.0.0.1:5000/batlehub-worker@" + D_WORKER, worker_container(objs)["image"])
check("imageDigests: a scanner named there is pinned by its digest, under the registry",
      images.get("trivy") == "127.0.0.1:5000/batlehub-sandbox-trivy@" + D_TRIVY, images)
check("… but a scanner's own digest wins over imageDigests",
      images.get("guarddog") == "127.0.0.1:5000/batlehub-sandbox-guarddog@sha256:" + "0" * 64, images)
check("… and a scanner imageDigests does not name keeps its tag, under the registry",
      images.get("postmortem") == "127.0.0.1:5000/batlehub-sandbox-postmortem:" + APP_VERSION, images)
objs = h.template([base], runtime("kubernetes"), namespace=RELEASE_NS)
images = {n: t.get("image") for n, t in tomllib.loads(config_toml(objs)).get("scanners", {}).items()}
check("without imageRegistry the repositories stay as written",
      images.get("trivy") == "registry.test/batlehub-sandbox-trivy:0.1.0", images)
p = h.template_raw([base, h.values_file({"imageDigests": {"batlehub-worker": "latest"}})], runtime("bwrap"))
check("imageDigests: a value that is no sha256 digest is refused", refused(p, "imageDigests"), p.stderr)
p = h.template_raw([base, h.values_file({"imageRegistry": "https://r.test/x"})], runtime("bwrap"))
check("imageRegistry: a URL (scheme, path) is refused", refused(p, "imageRegistry"), p.stderr)

# ---- refusals -----------------------------------------------------------------------------------
p = h.template_raw([], runtime("none"))
check("runtime none without worker.sandbox.unsafeNoSandbox is refused",
      p.returncode != 0 and "BATLEHUB_UNSAFE_NO_SANDBOX" in p.stderr, p.stderr)
p = h.template_raw([], runtime("firecracker"))
check("an unknown runtime is refused", p.returncode != 0 and "runtime" in p.stderr, p.stderr)

# ---- every config.toml loads in the real worker's loader ------------------------------------------
def loads(name, objs, want_runtime, want_scanners, want_warning=None, want_storage=None):
    toml = config_toml(objs)
    path = os.path.join(work, f"config-{len(os.listdir(work))}.toml")
    with open(path, "w") as f:
        f.write(toml)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for e in worker_container(objs).get("env", []):  # the literal ones; secrets never reach here
        if "value" in e:
            env[e["name"]] = e["value"]
    p = subprocess.run([batlehub, "check-config", "--config", path], capture_output=True, text=True, env=env,
                       timeout=60)
    lines = p.stdout.splitlines()
    warnings = [l for l in lines if l.startswith("warning: ")]
    # osv runs in the worker (docs/configuration.md, "The network scanners"): no warning of its own.
    storage = lines[2] if len(lines) > 2 else ""
    ok = (p.returncode == 0 and lines[:2] == [f"runtime {want_runtime}", want_scanners]
          and storage.startswith("storage ") and (want_storage is None or storage == want_storage)
          # nothing the worker does not read (it would be named "read by the proxy…"), no override
          and not [l for l in lines if l.startswith(("override:", "read by the proxy"))]
          and (warnings == [] if want_warning is None else len(warnings) == 1 and want_warning in warnings[0]))
    check(f"batlehub check-config accepts the {name} config.toml", ok,
          f"exit {p.returncode}\n{p.stdout}{p.stderr}\n--- config.toml\n{toml}")


MULTI_LINE = ("storage default s3; s3: s3 bucket cache, region us-east-1, endpoint http://minio.minio.svc:9000, "
              "path-style; local: filesystem /var/cache/batlehub")
for r in RUNTIMES:
    loads(f"runtime {r}", rendered[r], r, EXPECTED_SCANNERS,
          'runtime = "none": scanners run in' if r == "none" else None, MULTI_LINE)
for r in ("none", "bwrap", "oci"):
    sets = runtime(r) + (["worker.sandbox.unsafeNoSandbox=true"] if r == "none" else [])
    loads(f"chart defaults' runtime {r}", h.template([], sets), r, "scanners guarddog",
          'runtime = "none": scanners run in' if r == "none" else None,
          "storage one backend: filesystem /var/cache/batlehub")
loads("single-shape s3 (every key)", h.template([], runtime("bwrap") + FULL_S3), "bwrap", "scanners guarddog",
      want_storage="storage one backend: s3 bucket cache, region eu-west-3, endpoint https://s3.storage.test:9000, "
                   "path-style, prefix batlehub/")
loads("single-shape s3 on kubernetes (the one backend, \"default\", is the bundle backend)",
      h.template([], runtime("kubernetes") + SINGLE_S3 + ["storage.endpointUrl=http://minio.minio.svc:9000",
                                                          "storage.forcePathStyle=true"]),
      "kubernetes", "scanners guarddog")
loads("webIdentity", h.template([h.values_file(WI)], runtime("bwrap")), "bwrap", "scanners guarddog")
loads("multi shape with two filesystem backends and backends[].existingClaim",
      h.template([h.values_file(TWO_FS)], runtime("bwrap")), "bwrap", "scanners guarddog")
# kubernetes needs storage that presigns, which the defaults do not declare: the worker's rule 17
path = os.path.join(work, "defaults-kubernetes.toml")
with open(path, "w") as f:
    f.write(config_toml(h.template([], runtime("kubernetes"))))
p = subprocess.run([batlehub, "check-config", "--config", path], capture_output=True, text=True,
                   env={"PATH": "/usr/bin:/bin"}, timeout=60)
check("chart defaults' runtime kubernetes: refused by the worker until storage names an s3 backend (rule 17)",
      p.returncode == 2 and "cannot presign a URL" in p.stdout, p.stdout)
loads("shared-namespace kubernetes", h.template([base], runtime("kubernetes") + ["worker.sandbox.kubernetes.namespace="]),
      "kubernetes", EXPECTED_SCANNERS)
odd = copy.deepcopy(BASE)
odd["worker"]["registries"] = ['np"m', "py\\pi"]
odd["worker"]["sandbox"]["kubernetes"]["nodeSelector"] = {"a.test/b": 'q"uote', "z": "\\"}
odd["scanners"][0]["name"] = "guard_dog"
odd["scanners"][0]["type"] = "guarddog"
objs = h.template([h.values_file(odd)], runtime("kubernetes"))
loads("kubernetes config with quotes and backslashes in its strings", objs, "kubernetes",
      "scanners guard_dog postmortem trivy osv")
check("… which reach the TOML escaped", 'registries = ["np\\"m", "py\\\\pi"]' in config_toml(objs), config_toml(objs))
# and the other way: a value the worker refuses is refused by check-config, so the test can fail
objs = h.template([base], runtime("kubernetes") + ["worker.sandbox.maxExtractedMb=1024"])
path = os.path.join(work, "refused.toml")
with open(path, "w") as f:
    f.write(config_toml(objs))
p = subprocess.run([batlehub, "check-config", "--config", path], capture_output=True, text=True,
                   env={"PATH": "/usr/bin:/bin", "BATLEHUB_IMAGE": "w:1"}, timeout=60)
check("a config.toml the worker refuses (max_extracted_mb = memory_limit_mb) fails check-config",
      p.returncode == 2 and "max_extracted_mb = 1024 is not below memory_limit_mb = 1024" in p.stdout, p.stdout)

print(f"{len(failures)} failure(s)" if failures else "every check passed")
sys.exit(1 if failures else 0)
PY
