#!/usr/bin/env bash
# The test cluster itself (scripts/k8s-peer.sh, fixture "k8s"), end to end: a restricted
# namespace, an image of the `hostile` room pulled by the cluster's containerd from the tests'
# registry by digest, two pods scheduled and run under the restricted Pod Security profile.
# One reaches the tests' S3 server at the cluster's storage door, DOOR:S3_PORT on the pod
# network's gateway (a TCP connection, and an HTTP answer from versitygw itself, 403 to an
# unsigned GET — not just the door's listener); the other, at the API server's 127.0.0.1:6443,
# is refused: 127.0.0.1 in a pod is its own loopback, and the host's loopback services are not
# in a pod's reach. The gateway keeps its link address while pods come and go (pods cache it).
# Also: a ServiceAccount token minted with `kubectl create token` authenticates, and a
# container's output reads back through the API (`kubectl logs`).
#
#   k8s_cluster_test.sh SOURCE_DIR K8S_DIR S3_PORT AGENT HOSTILE RELAY
#
# Fails when the cluster is not there; skips (77), naming it, only when something the
# cluster needs is not installed (`k8s-peer.sh missing`).
set -euo pipefail

[[ $# -eq 6 ]] || { echo "usage: $0 SOURCE_DIR K8S_DIR S3_PORT AGENT HOSTILE RELAY" >&2; exit 2; }
src=$1 dir=$2 s3_port=$3 agent=$4 hostile=$5 relay=$6
K8S_BIN="${K8S_BIN:-/opt/batlehub/peers/kubernetes-1.37.2/bin}"
. "$(dirname "${BASH_SOURCE[0]}")/k8s_test_lib.sh"

k8s_skip_unless_runnable "$src" "$relay"
k8s_connect "$dir"
ns=bh-k8s-cluster-$$
tag=localhost/batlehub-test-hostile:$$
work=$(mktemp -d "${TMPDIR:-/tmp}/k8s-cluster-test.XXXXXX")
cleanup() {
  "${k[@]}" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  python3 "$src/scripts/build-image.py" --remove --engine containerd --containerd-address "$sock" --tag "$tag" >/dev/null 2>&1 || true
  rm -rf -- "$work"
}
trap cleanup EXIT

"${k[@]}" get node batlehub-node >/dev/null || fail "the API server does not answer, or the node batlehub-node is not registered"

k8s_restricted_namespace "$ns" --wait-sa
token=$("${k[@]}" -n "$ns" create token default --duration=10m) || fail "kubectl create token"
# Alone: beside the kubeconfig's client certificate, the certificate would win.
ca=$("${k[@]}" config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority}')
who=$("$K8S_BIN/kubectl" --kubeconfig=/dev/null --server=https://127.0.0.1:6443 --certificate-authority="$ca" \
  --token="$token" auth whoami -o jsonpath='{.status.userInfo.username}') ||
  fail "the minted token does not authenticate"
[[ $who == "system:serviceaccount:$ns:default" ]] || fail "the token authenticates as '$who'"

python3 "$src/scripts/build-room.py" --name hostile --agent "$agent" --binary "$hostile:/usr/bin/hostile" \
  --out "$work/hostile" >/dev/null
python3 "$src/scripts/build-image.py" --room "$work/hostile" --engine containerd --containerd-address "$sock" --tag "$tag" \
  --registry "${BATLEHUB_TEST_REGISTRY:?the registry fixture sets it: tests/registry_fixture.cmake}"

# The sandbox's pod shape, restricted: no root, no capabilities, no token, a read-only root.
pod() {
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $ns}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  enableServiceLinks: false
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    seccompProfile: {type: RuntimeDefault}
  containers:
  - name: hostile
    image: $tag
    imagePullPolicy: IfNotPresent
    command: [hostile, $2]
    terminationMessagePolicy: FallbackToLogsOnError
    resources: {limits: {cpu: 500m, memory: 64Mi}}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities: {drop: [ALL]}
EOF
}

# PHASE EXIT_CODE MESSAGE of a pod that ended, within 120 s.
outcome() {
  local st
  for _ in $(seq 1200); do
    st=$("${k[@]}" -n "$ns" get pod "$1" -o jsonpath='{.status.phase}|{.status.containerStatuses[0].state.terminated.exitCode}|{.status.containerStatuses[0].state.terminated.message}')
    case $st in Succeeded\|* | Failed\|*) echo "$st"; return 0 ;; esac
    sleep 0.1
  done
  "${k[@]}" -n "$ns" describe pod "$1" >&2 || true
  fail "pod $1 did not end within 120s (last: $st)"
}

door=$(cat "$dir/storage-door") || fail "the cluster wrote no storage door ($dir/storage-door)"
# The gateway's link address must not move while pods come and go: a bridge left to choose takes
# its lowest port's, and every pod that cached the old one then black-holes its new connections to
# the door for up to 45 s (scripts/k8s-peer.sh, where the bridge is made).
bridge=$(ip -o -4 addr show to "$door/32" | awk '{print $2; exit}')
[[ -n $bridge ]] || fail "no interface on this host holds the storage door's address $door"
mac_before=$(cat "/sys/class/net/$bridge/address")
t0=$(date +%s.%N)
pod storage "connect, \"$door\", \"$s3_port\"" | "${k[@]}" create -f - >/dev/null
pod apiserver 'connect, "127.0.0.1", "6443"' | "${k[@]}" create -f - >/dev/null
pod s3http "http, \"$door\", \"$s3_port\", /" | "${k[@]}" create -f - >/dev/null
storage=$(outcome storage)
t1=$(date +%s.%N)
apiserver=$(outcome apiserver)
s3http=$(outcome s3http)
echo "storage pod: $storage ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')s from create)"
echo "apiserver pod: $apiserver"
echo "s3http pod: $s3http"

node=$("${k[@]}" -n "$ns" get pod storage -o jsonpath='{.spec.nodeName}')
[[ $node == batlehub-node ]] || fail "the storage pod was scheduled to '$node'"
[[ $storage == "Succeeded|0|"* ]] || fail "$door:$s3_port (the S3 server) from a pod: $storage"
[[ $apiserver == "Failed|1|connect ECONNREFUSED"* ]] || fail "127.0.0.1:6443 (the API server) from a pod: $apiserver"
logs=$("${k[@]}" -n "$ns" logs storage) || fail "kubectl logs"
[[ $logs == connected ]] || fail "kubectl logs of the storage pod: '$logs'"
[[ $s3http == Succeeded\|0\|* ]] || fail "GET / of $door:$s3_port from a pod: $s3http"
logs=$("${k[@]}" -n "$ns" logs s3http) || fail "kubectl logs"
[[ $logs == "HTTP/1.1 403 Forbidden" ]] || fail "GET / of $door:$s3_port from a pod: '$logs', not the S3 server's 403"
mac_after=$(cat "/sys/class/net/$bridge/address")
[[ $mac_after == "$mac_before" ]] ||
  fail "the gateway $door ($bridge) changed its link address from $mac_before to $mac_after while three pods came"
[[ $(cat "/sys/class/net/$bridge/addr_assign_type") == 3 ]] ||
  fail "the gateway's bridge $bridge has an address the kernel may change (addr_assign_type $(cat "/sys/class/net/$bridge/addr_assign_type"), not 3: set)"
echo "PASS"
