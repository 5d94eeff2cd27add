#!/usr/bin/env bash
# The worker's image as a kubelet gets it (issue 48: point 1, and the first step of point 2):
# built FROM scratch by scripts/build-worker-image.py (podman), pushed to the tests' registry as
# an OCI image (--registry), and the image removed from podman again; then a pod in a
# restricted namespace of the test cluster names it by digest, and the kubelet pulls it from the
# registry itself (imagePullPolicy IfNotPresent, nothing imported into containerd) and runs
# `batlehub --version` as uid 65532 with no capability and a read-only root. Checked: the pod's
# imageID is the pushed digest, the kubelet's own "Pulled" event names the image, and the log is
# batlehub's version.
#
#   k8s_worker_image_test.sh SOURCE_DIR K8S_DIR BATLEHUB AGENT FAKE_POSTMORTEM RELAY AGENT_STATIC
#
# Environment: BATLEHUB_TEST_REGISTRY (the registry fixture's HOST:PORT), K8S_BIN.
# Fails when the cluster or the registry is not there; skips (77), naming why, when the agent is
# not static (the sanitizer build: a room refuses it), podman is missing, or something the
# cluster needs is not installed (`k8s-peer.sh missing`).
set -euo pipefail

[[ $# -eq 7 ]] || { echo "usage: $0 SOURCE_DIR K8S_DIR BATLEHUB AGENT FAKE_POSTMORTEM RELAY AGENT_STATIC" >&2; exit 2; }
src=$1 dir=$2 batlehub=$3 agent=$4 fake=$5 relay=$6 static=$7
K8S_BIN="${K8S_BIN:-/opt/batlehub/peers/kubernetes-1.37.2/bin}"
registry=${BATLEHUB_TEST_REGISTRY:?the registry fixture sets it: tests/registry_fixture.cmake}

case $static in 1 | ON | TRUE | true) ;; *)
  echo "skip: this build links the agent dynamically (sanitizers cannot link statically) and a room refuses a dynamic agent; the release build runs this test"
  exit 77
  ;;
esac
command -v podman >/dev/null || { echo "skip: podman is not installed: the worker image is built with it"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/k8s_test_lib.sh"

k8s_skip_unless_runnable "$src" "$relay"
k8s_connect "$dir"
ns=bh-k8s-worker-image-$$
tag=localhost/batlehub-worker-k8s-test:$$
work=$(mktemp -d "${TMPDIR:-/tmp}/k8s-worker-image-test.XXXXXX")
ref=""
cleanup() {
  "${k[@]}" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  podman image rm --force "$tag" >/dev/null 2>&1 || true
  if [[ -n $ref ]]; then
    # The kubelet's pull named the image by its digest (and by its id): both go.
    ctr -a "$sock" -n k8s.io images ls -q 2>/dev/null | grep -F "${ref#*@}" | grep -v '^sha256:' |
      xargs -r ctr -a "$sock" -n k8s.io images rm >/dev/null 2>&1 || true
    id=$(ctr -a "$sock" -n k8s.io images ls 2>/dev/null | awk -v d="${ref#*@}" '$1 ~ /^sha256:/ && $3 == d {print $1}')
    [[ -z $id ]] || ctr -a "$sock" -n k8s.io images rm "$id" >/dev/null 2>&1 || true
  fi
  rm -rf -- "$work"
}
trap cleanup EXIT

"${k[@]}" get node batlehub-node >/dev/null || fail "the API server does not answer, or the node batlehub-node is not registered"

# Built and pushed; then gone from podman, so that only the registry holds it.
python3 "$src/scripts/build-worker-image.py" --batlehub "$batlehub" --agent "$agent" \
  --room-binary "postmortem=$fake:/usr/bin/postmortem" --tag "$tag" \
  --registry "$registry" --digest-file "$work/ref" || fail "the worker image could not be built and pushed"
ref=$(cat "$work/ref")
[[ $ref == "$registry/batlehub-worker-k8s-test@sha256:"* ]] || fail "the pushed reference is '$ref'"
podman image rm --force "$tag" >/dev/null
if ctr -a "$sock" -n k8s.io images ls -q | grep -qF "${ref#*@}"; then
  fail "the cluster's containerd holds $ref before any pod asked for it"
fi

k8s_restricted_namespace "$ns" --wait-sa
"${k[@]}" create -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: worker, namespace: $ns}
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
  - name: worker
    image: $ref
    imagePullPolicy: IfNotPresent
    args: [--version]
    resources: {limits: {cpu: 500m, memory: 128Mi}}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities: {drop: [ALL]}
EOF

st=""
for _ in $(seq 1200); do
  st=$("${k[@]}" -n "$ns" get pod worker -o jsonpath='{.status.phase}|{.status.containerStatuses[0].state.terminated.exitCode}')
  case $st in Succeeded\|* | Failed\|*) break ;; esac
  sleep 0.1
done
case $st in Succeeded\|0) ;; *)
  "${k[@]}" -n "$ns" describe pod worker >&2 || true
  fail "the worker image's pod did not succeed within 120 s (last: '$st')"
  ;;
esac
image_id=$("${k[@]}" -n "$ns" get pod worker -o jsonpath='{.status.containerStatuses[0].imageID}')
echo "pod worker: $st, imageID $image_id"
[[ $image_id == *"${ref#*@}" ]] || fail "the pod ran image '$image_id', not the pushed $ref"
pulled=$("${k[@]}" -n "$ns" get events --field-selector involvedObject.name=worker,reason=Pulled \
  -o jsonpath='{.items[*].message}')
echo "kubelet: $pulled"
[[ $pulled == *"Successfully pulled image \"$ref\""* ]] || fail "no Pulled event of the kubelet for $ref: '$pulled'"
logs=$("${k[@]}" -n "$ns" logs worker) || fail "kubectl logs"
[[ $logs == "batlehub "* ]] || fail "the worker image printed '$logs', not batlehub's version"
echo "ok: the kubelet pulled the worker image by digest from $registry and ran it: $logs"
