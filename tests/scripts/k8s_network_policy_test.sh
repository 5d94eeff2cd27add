#!/usr/bin/env bash
# The chart's NetworkPolicies, enforced on the test cluster (scripts/k8s-peer.sh: kube-router,
# firewall only, on an ordinary pod network with a gateway on the host). A listener on the pod
# network's gateway address stands in for the worker's: the address a pod reaches the host at.
#   * a pod in a namespace WITHOUT the chart's policies connects to it;
#   * a pod labelled io.batlehub/network=storage in the sandbox namespace the chart made (its
#     NetworkPolicies rendered by helm from deploy/helm/batlehub) does not: kube-router refuses
#     it (REJECT, icmp-port-unreachable: ECONNREFUSED, though the listener is up), and the
#     listener never sees it — while its storage endpoint (the cluster's storage door, the same
#     gateway address at S3_PORT, let through by the chart's storageEgress) still answers;
#   * an egressAllowlist entry added to the values (the gateway's address and the listener's
#     port) shows up as reachable from a pod labelled io.batlehub/network=egress, and only there;
#   * once the policies are deleted, the storage pod connects.
# Each pod is a `hostile hang` pod of the sandbox's shape (restricted); the connections are made
# with `kubectl exec … hostile connect`, each after kube-router has the pod's rules in place
# (kube-router programs a pod once the kubelet has published its address).
#
#   k8s_network_policy_test.sh SOURCE_DIR K8S_DIR S3_PORT AGENT HOSTILE RELAY
#
# Fails when the cluster is not there; skips (77), naming it, only when something the cluster
# needs is not installed (`k8s-peer.sh missing`). Every address dialled is on this machine: the
# gateway is the host's own bridge address, read from the cluster's CNI configuration.
set -euo pipefail

[[ $# -eq 6 ]] || { echo "usage: $0 SOURCE_DIR K8S_DIR S3_PORT AGENT HOSTILE RELAY" >&2; exit 2; }
src=$1 dir=$2 s3_port=$3 agent=$4 hostile=$5 relay=$6
K8S_BIN="${K8S_BIN:-/opt/batlehub/peers/kubernetes-1.37.2/bin}"
HELM="${HELM:-/opt/batlehub/peers/helm-3.21.4/helm}"

. "$(dirname "${BASH_SOURCE[0]}")/k8s_test_lib.sh"

k8s_skip_unless_runnable "$src" "$relay"
[[ -x $HELM ]] || { echo "skip: no helm at $HELM (scripts/install-kubernetes.sh)"; exit 77; }
k8s_connect "$dir"
conf=$(ls "$dir"/cni/conf/*.conflist 2>/dev/null | head -n 1)
gw=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c["plugins"][0]["ipam"]["ranges"][0][0]["gateway"])' "$conf") ||
  fail "no gateway in the cluster's CNI configuration ($conf)"
open_ns=bh-np-open-$$
walled=bh-np-$$  # the chart's release namespace; its sandbox namespace is $walled-sbx
tag=localhost/batlehub-test-hostile-np:$$
work=$(mktemp -d "${TMPDIR:-/tmp}/k8s-np-test.XXXXXX")
listener=
cleanup() {
  [[ -n $listener ]] && kill "$listener" 2>/dev/null
  "${k[@]}" delete namespace "$open_ns" --wait=false >/dev/null 2>&1 || true
  python3 "$src/tests/scripts/k8s_sandbox_namespace.py" down "$K8S_BIN/kubectl" "$dir/kubeconfig" "$walled" >/dev/null 2>&1 || true
  python3 "$src/scripts/build-image.py" --remove --engine containerd --containerd-address "$sock" --tag "$tag" >/dev/null 2>&1 || true
  rm -rf -- "$work"
}
trap cleanup EXIT

# The worker's listener stand-in, on the gateway address (IP_FREEBIND: the bridge gets its
# address with the first pod), an ephemeral port; every peer it accepts is written down.
cat >"$work/listen.py" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_IP, 15, 1)  # IP_FREEBIND
s.bind((sys.argv[1], 0))
s.listen(16)
with open(sys.argv[2] + ".new", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[2] + ".new", sys.argv[2])
while True:
    c, a = s.accept()
    with open(sys.argv[3], "a") as f:
        f.write(a[0] + "\n")
    c.close()
EOF
: >"$work/peers"
python3 "$work/listen.py" "$gw" "$work/port" "$work/peers" </dev/null >"$work/listen.log" 2>&1 &
listener=$!
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
port=$(cat "$work/port" 2>/dev/null) || fail "the listener on $gw did not start: $(cat "$work/listen.log")"

python3 "$src/scripts/build-room.py" --name hostile --agent "$agent" --binary "$hostile:/usr/bin/hostile" \
  --out "$work/hostile" >/dev/null
python3 "$src/scripts/build-image.py" --room "$work/hostile" --engine containerd --containerd-address "$sock" --tag "$tag" \
  --registry "${BATLEHUB_TEST_REGISTRY:?the registry fixture sets it: tests/registry_fixture.cmake}" >/dev/null

# The namespace without the chart's policies, restricted like the sandbox's.
k8s_restricted_namespace "$open_ns"
# The chart's sandbox namespace, its policies rendered with the gateway:port in egressAllowlist.
allow=$(printf '{"egressAllowlist": [{"cidr": "%s/32", "ports": [{"port": %s, "protocol": "TCP"}]}]}' "$gw" "$port")
sbx=$(python3 "$src/tests/scripts/k8s_sandbox_namespace.py" up "$src/deploy/helm/batlehub" "$HELM" "$K8S_BIN/kubectl" \
  "$dir/kubeconfig" "$walled" "$s3_port" "$work/worker.kubeconfig" "$allow") || fail "the chart's sandbox namespace"
policies=$("${k[@]}" -n "$sbx" get networkpolicy -o jsonpath='{range .items[*]}{.metadata.name}={.spec.podSelector.matchLabels.io\.batlehub/network} {end}')
echo "the chart's policies in $sbx: $policies"
[[ $policies == *"=storage "* && $policies == *"=egress "* ]] || fail "the chart rendered no storage and egress policies: '$policies'"
for ns in "$open_ns" "$sbx"; do
  for _ in $(seq 300); do
    "${k[@]}" -n "$ns" get serviceaccount default >/dev/null 2>&1 && break
    sleep 0.1
  done
done

# pod NAMESPACE NAME NETWORK-LABEL: a `hostile hang` pod of the sandbox's shape.
pod() {
  "${k[@]}" create -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $2, namespace: $1, labels: {io.batlehub/network: $3}}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 0
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    seccompProfile: {type: RuntimeDefault}
  containers:
  - name: hostile
    image: $tag
    imagePullPolicy: IfNotPresent
    command: [hostile, hang]
    resources: {limits: {cpu: 100m, memory: 64Mi}}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities: {drop: [ALL]}
EOF
}
# ready NAMESPACE NAME [POLICED]: the pod's address once it runs, and (POLICED) once kube-router
# has its rules in the host's filter table.
ready() {
  local ip= n
  "${k[@]}" -n "$1" wait --for=condition=Ready "pod/$2" --timeout=120s >/dev/null || fail "pod $1/$2 is not Ready"
  ip=$("${k[@]}" -n "$1" get pod "$2" -o jsonpath='{.status.podIP}')
  [[ -n $ip ]] || fail "pod $1/$2 has no address"
  if [[ ${3:-} == policed ]]; then
    for n in $(seq 200); do
      iptables -S 2>/dev/null | grep -qF -- "POD name:$2 namespace: $1 " && break
      sleep 0.1
    done
    ((n < 200)) || fail "kube-router made no rules for pod $1/$2 within 20 s (see $dir/kube-router.log)"
  fi
  echo "$ip"
}
# connect NAMESPACE NAME HOST PORT: what `hostile connect` says inside the pod, "no answer"
# after 8 s.
connect() {
  local out rc=0
  out=$(timeout 8 "${k[@]}" -n "$1" exec "$2" -- hostile connect "$3" "$4" 2>/dev/null) || rc=$?
  if ((rc == 124)); then echo "no answer within 8 s"; else echo "${out:-exec failed ($rc)}"; fi
}

pod "$open_ns" open storage
pod "$sbx" storage storage
pod "$sbx" egress egress
open_ip=$(ready "$open_ns" open)
storage_ip=$(ready "$sbx" storage policed)
egress_ip=$(ready "$sbx" egress policed)
echo "gateway $gw:$port; pods: open $open_ip, storage $storage_ip, egress $egress_ip"

got=$(connect "$open_ns" open "$gw" "$port")
echo "without the chart's policies: $gw:$port from $open_ns/open: $got"
[[ $got == connected ]] || fail "a pod without the chart's policies does not reach the gateway's listener: $got"

got=$(connect "$sbx" storage "$gw" "$port")
echo "with the chart's policies: $gw:$port from $sbx/storage (io.batlehub/network=storage): $got"
[[ $got != connected ]] || fail "the storage pod reached the gateway's listener through the chart's policies"
[[ $got == "connect ECONNREFUSED" ]] || fail "the storage pod was not refused by kube-router's REJECT: $got"
got=$(connect "$sbx" storage "$gw" "$s3_port")
echo "with the chart's policies: the storage endpoint $gw:$s3_port from $sbx/storage: $got"
[[ $got == connected ]] || fail "the storage pod does not reach its storage endpoint: $got"

got=$(connect "$sbx" egress "$gw" "$port")
echo "with the chart's policies: $gw:$port (in egressAllowlist) from $sbx/egress (io.batlehub/network=egress): $got"
[[ $got == connected ]] || fail "an egressAllowlist entry is not reachable from an egress pod: $got"

sleep 0.3
seen=$(sort -u "$work/peers" | paste -sd ' ')
echo "the listener saw: ${seen:-nobody}"
grep -qxF "$open_ip" "$work/peers" || fail "the listener never saw the open pod $open_ip"
grep -qxF "$egress_ip" "$work/peers" || fail "the listener never saw the egress pod $egress_ip"
! grep -qxF "$storage_ip" "$work/peers" || fail "the listener saw the storage pod $storage_ip"

# The policies removed: the same pod, the same listener, now reached.
"${k[@]}" -n "$sbx" delete networkpolicy --all >/dev/null
got=
for _ in $(seq 40); do
  got=$(connect "$sbx" storage "$gw" "$port")
  [[ $got == connected ]] && break
  sleep 0.5
done
echo "the chart's policies deleted: $gw:$port from $sbx/storage: $got"
[[ $got == connected ]] || fail "with the policies deleted the storage pod still does not reach the listener: $got"
echo "PASS"
