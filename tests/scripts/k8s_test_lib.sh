# Sourced, not run: what the test cluster's script tests share (k8s_cluster_test.sh,
# k8s_network_policy_test.sh, k8s_worker_image_test.sh). The caller runs under `set -euo pipefail`.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Skips (exit 77), naming what lacks, when the test cluster cannot run here (`k8s-peer.sh
# missing`): SOURCE_DIR RELAY.
k8s_skip_unless_runnable() {
  local lacking
  if lacking=$("$1/scripts/k8s-peer.sh" missing --relay "$2"); then :; else
    echo "skip: the test cluster cannot run here; missing: $(echo "$lacking" | paste -sd ';')"
    exit 77
  fi
}

# Fails unless the cluster in K8S_DIR is up; sets k, kubectl on its admin kubeconfig, and sock,
# its containerd's socket.
k8s_connect() {
  local dir=$1
  [[ -f $dir/kubeconfig ]] || fail "no cluster: $dir/kubeconfig is absent (did k8s.start run? see $dir/*.log)"
  sock=$dir/containerd/containerd.sock
  k=("${K8S_BIN:-/opt/batlehub/peers/kubernetes-1.37.2/bin}/kubectl" --kubeconfig="$dir/kubeconfig" --request-timeout=30s)
}

# The namespace NS, enforcing the restricted Pod Security profile. With --wait-sa, returns once
# the ServiceAccount controller made its "default" (pods are admitted only then).
k8s_restricted_namespace() {
  "${k[@]}" apply -f - >/dev/null <<NS
apiVersion: v1
kind: Namespace
metadata:
  name: $1
  labels: {pod-security.kubernetes.io/enforce: restricted, pod-security.kubernetes.io/enforce-version: latest}
NS
  [[ ${2:-} == --wait-sa ]] || return 0
  for _ in $(seq 300); do
    "${k[@]}" -n "$1" get serviceaccount default >/dev/null 2>&1 && return 0
    sleep 0.1
  done
}
