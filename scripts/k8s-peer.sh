#!/usr/bin/env bash
# A throwaway single-node Kubernetes for the tests (docs: test-peers.md, "Kubernetes"): etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, a containerd of its own and a
# kubelet, all on loopback, pods that really run. As root.
#
#   scripts/k8s-peer.sh start DIR --s3-port PORT [--relay PATH]   # prints DIR/kubeconfig once the node is Ready
#   scripts/k8s-peer.sh stop DIR
#   scripts/k8s-peer.sh restart DIR kube-apiserver|kubelet [--down-for SECS]
#                                   stop one component, start it again (SECS later: an outage)
#                                   with the same command line; returns once it answers again
#                                   (the API server's /readyz; the kubelet's /healthz, the node Ready)
#   scripts/k8s-peer.sh missing [--relay PATH]   # prints what `start` would lack, one per line; exit 1 if anything
#   scripts/k8s-peer.sh missing --gvisor         # the same for the RuntimeClass gvisor alone (below)
#
# What a test finds (tests/k8s_fixture.cmake passes it on):
#   DIR/kubeconfig                  admin (a client certificate in system:masters), https://127.0.0.1:6443;
#                                   written last: it exists only once the node is Ready
#   DIR/pod-logs/NS_POD_UID/CONTAINER/0.log   a container's output (CRI log format), also `kubectl logs`
#   DIR/containerd/containerd.sock  the cluster's containerd; images go to its namespace k8s.io:
#                                   scripts/build-image.py --engine containerd --containerd-address SOCK
#                                   --registry HOST:PORT pulls them from a registry on loopback
#   DIR/storage-door                the address (the pod network's gateway) where pods, and the
#                                   worker, reach the tests' S3 server at --s3-port: the URLs are
#                                   signed for http://<that address>:PORT
#   the node "batlehub-node"        pods are scheduled onto it by kube-scheduler (no nodeName needed)
# The API server issues ServiceAccount tokens (`kubectl create token`); PodSecurity and
# ResourceQuota admission are on (kube-controller-manager keeps quota status), RBAC decides.
#
# The pod network. An ordinary pod network, so that the NetworkPolicies are what stands between
# a pod and the worker: a bridge (bhsbx0) WITH a gateway on the host, 198.18.100.1, in
# 198.18.100.0/24 — RFC 2544's benchmarking range (198.18.0.0/15), which is never routed — pod
# addresses from host-local IPAM, no masquerade (ipMasq false). A pod's routes are its subnet's:
# what it reaches is the host at the gateway (every host service listening on all addresses) and
# other pods. No default route, so the host's other addresses are out of a pod's reach — the
# probe's host canary among them (a default route would make every probe race kube-router, see
# below). And nothing leaves the machine: before the kubelet starts, a rule at the head of the
# mangle table's FORWARD chain (evaluated before any filter rule, kube-router's ACCEPTs included)
# drops every packet from 198.18.100.0/24 forwarded out of any interface other than the bridge.
# `stop` removes the rule only after the bridge is gone.
# The NetworkPolicy engine: kube-router 2.1.0 (scripts/install-kube-router.sh), firewall only
# (--run-firewall, no router, no service proxy, no health or metrics port), on the admin
# kubeconfig, the node named by --hostname-override; iptables (filter) and ipsets on this host.
# Its chains and sets (KUBE-ROUTER-*, KUBE-POD-FW-*, KUBE-NWPLCY-*, KUBE-*/kube-router-* sets)
# are removed by `stop`. kube-network-policies cannot work here: the kernel lacks NFT_QUEUE.
# kube-router programs a pod's rules once the pod's address is in the API, which the kubelet
# publishes after the pod's container started: a pod's first packets would precede its policy
# (a property of kube-router, see docs/operations/kubernetes.md, "NetworkPolicy, enforced").
# Publishing the address earlier from the CNI plugin does not help: the kubelet's own first
# status write, which comes after, takes it away again (seen: rules made, removed, made again
# within 0.6 s while the container connected). The tests that depend on a pod's policy wait for
# kube-router's rules for it (`iptables -S`: "POD name:NAME namespace: NS").
# The storage door. Pods reach the tests' S3 server over the pod network, as a pod reaches an
# S3 service in a real cluster: `start` makes the bridge with the gateway's address before any
# pod exists and runs `netns-relay /proc/self/ns/net PORT PORT 198.18.100.1` (the "door",
# tests/helpers/netns_relay.cc), so that 198.18.100.1:PORT is the S3 server on 127.0.0.1:PORT.
# The tests sign their URLs for http://198.18.100.1:PORT (DIR/storage-door names the address)
# and their own requests go the same way; the chart's storageEgress (198.18.100.1/32, PORT)
# is then what lets a sandbox pod fetch its bundle, and kube-router enforces it.
#
# The RuntimeClass `gvisor` (handler `runsc`): containerd's runtime `runsc` is gVisor's shim
# (containerd-shim-runsc-v1, built by scripts/install-gvisor-shim.sh: Debian has none) driving
# Debian's /usr/bin/runsc (0.0~20221219.0), configured in DIR/containerd/runsc.toml:
#   platform = "ptrace"  runsc's default in 2022, said outright: no KVM on these machines.
#   network = "host"     the pod's own network namespace through the host kernel's stack (not the
#                        node's namespace): a gVisor pod has the interfaces, routes and
#                        NetworkPolicies a runc pod of its namespace has. gVisor's own netstack
#                        ("sandbox") is not what these tests measure.
# The shim finds runsc by that path; containerd finds the shim on its PATH (DIR/bin first).
# When the shim or runsc is missing, `start` says so, makes no RuntimeClass and starts the rest;
# `missing --gvisor` names what lacks, and the tests that need gVisor skip naming it.
#
# Nothing is pulled from outside this machine: the pause image is built here (a static C
# program) and imported, the sandbox images are pulled by digest from the tests' registry on
# loopback (scripts/registry-peer.sh, build-image.py --registry), and containerd runs with
# HTTP(S)_PROXY set to 127.0.0.1:9 (nothing listens), so that a pod naming an image on any other
# registry fails on loopback ("proxyconnect tcp: dial tcp 127.0.0.1:9: connect: connection
# refused", checked with containerd in an empty network namespace) rather than resolving and
# dialling it. Go's proxy rules never proxy a loopback address, so the tests' registry is
# reached directly.
#
# Everything lives under DIR: certificates, etcd's data, logs (*.log), pid files (run/), the
# containerd root and state, the kubelet's root and pod logs, the CNI configuration, plugins
# and IPAM state. Outside DIR the kubelet and the CRI still touch: host sysctls (saved before
# the kubelet starts, restored by `stop`), the bhsbx0 bridge, /sys/fs/cgroup/*/batlehub-k8s,
# /run/netns/cni-*, /var/lib/kubelet (device plugins), /var/log/containers and the CNI cache in
# /var/lib/cni — `stop` removes what this cluster made there. Fixed loopback ports: etcd
# 23790/23800, API server 6443, controller-manager 10257, scheduler 10259, kubelet 10250
# (healthz 10248): one cluster per machine.
#
# `start` first stops whatever DIR's pid files name (a killed run is cleaned up; so is another
# directory's cluster that no longer runs, and one that still runs makes it fail), starts
# afresh (empty etcd, empty containerd), and on any failure prints the failing component's
# log tail, stops everything and exits 1. When a binary it needs is missing it says which
# and exits 0 without starting anything: the tests that need the cluster then skip, naming
# it (`missing` tells them). `stop` is harmless when nothing runs, and works after a failed
# or killed start.
#
# Measured on this project's 2-core machine (2 cores, other work beside): etcd started → node
# Ready 5.0–7.2 s (`start` as a whole ~8 s; ~13 s in a fresh DIR, which first compiles the
# pause image); a pod create → Succeeded 2.3–3.0 s (scheduled, sandbox, one container, the
# kubelet's 1 s relist); `stop` ~1 s.
#
# Environment: K8S_BIN (default /opt/batlehub/peers/kubernetes-1.37.2/bin, from
# scripts/install-kubernetes.sh), GVISOR_SHIM (default: scripts/install-gvisor-shim.sh's),
# RUNSC (default /usr/bin/runsc), NETNS_RELAY (the relay when --relay is not given),
# K8S_PEER_TIMEOUT (seconds per stage, default 120).
set -euo pipefail

K8S_BIN="${K8S_BIN:-/opt/batlehub/peers/kubernetes-1.37.2/bin}"
KUBE_ROUTER="${KUBE_ROUTER:-/opt/batlehub/peers/kube-router-2.1.0/kube-router}"
GVISOR_SHIM="${GVISOR_SHIM:-/opt/batlehub/peers/gvisor-shim-20221203005347-703fd9b7fbc0-bh1/containerd-shim-runsc-v1}"
RUNSC="${RUNSC:-/usr/bin/runsc}"
TIMEOUT="${K8S_PEER_TIMEOUT:-120}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NODE=batlehub-node
BRIDGE=bhsbx0
BRIDGE_MAC=02:62:68:00:64:01
NETWORK=batlehub-storage
# The pods' network (see "The pod network" above): RFC 2544's benchmarking range, never routed.
POD_SUBNET=198.18.100.0/24
POD_GATEWAY=198.18.100.1
# The mangle table's FORWARD chain sees a packet before the filter table (and kube-router's
# ACCEPTs there): this rule is what keeps every pod packet on this machine.
POD_FENCE=(-s "$POD_SUBNET" ! -o "$BRIDGE" -m comment --comment "batlehub-k8s-peer: pod packets never leave this machine" -j DROP)
SERVICE_RANGE=127.96.0.0/24      # virtual ClusterIPs: no kube-proxy, nothing routes them
ETCD_PORT=23790 ETCD_PEER_PORT=23800 API_PORT=6443 KCM_PORT=10257 SCHED_PORT=10259
KUBELET_PORT=10250 KUBELET_HEALTHZ_PORT=10248
PAUSE_IMAGE=localhost/batlehub-pause:1
# The kubelet's cgroup root (cgroupfs driver): the pods' cgroups are CGROUP_ROOT/kubepods/…
# in every hierarchy, this cluster's alone.
CGROUP_ROOT=batlehub-k8s
# The one cluster per machine (fixed ports, one bridge, one cgroup root): the directory of
# the cluster that owns the host's share (the bridge, the cgroups, the sysctls, /var/lib/kubelet).
# Another directory's `start` refuses while that cluster runs, and cleans up after it once it
# does not; a `stop` touches the host's share only when it owns it.
OWNER_FILE=/run/batlehub-k8s-peer.owner
# The sysctls the kubelet sets on start (kernel.panic=10, kernel.panic_on_oops=1,
# vm.overcommit_memory=1, …): saved before it runs, restored by `stop`.
SYSCTLS=(net.ipv4.ip_forward kernel.panic kernel.panic_on_oops vm.overcommit_memory vm.panic_on_oom
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
# The components, in the order they start; `stop` ends them in the reverse order. The names
# are their pid files (DIR/run/NAME.pid) and what /proc/PID/comm must start with.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler containerd netns-relay kubelet kube-router)

usage() {
  echo "usage: $0 start DIR --s3-port PORT [--relay PATH] | stop DIR | restart DIR kube-apiserver|kubelet [--down-for SECS] | missing [--relay PATH] | missing --gvisor" >&2
  exit 2
}

say() { echo "k8s-peer: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# Running, not a zombie: a component's parent is init once this script is gone, which may
# take its time to reap it.
alive() {
  local stat
  [[ -n ${1:-} ]] && stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

wait_gone() {
  local pid=$1 n=$2
  while alive "$pid" && ((n-- > 0)); do sleep 0.1; done
  ! alive "$pid"
}

# The pid in DIR/run/NAME.pid, if that process still runs NAME (comm is cut at 15 bytes).
pid_of() {
  local dir=$1 name=$2 pid
  pid=$(cat "$dir/run/$name.pid" 2>/dev/null) || return 0
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "${name:0:15}" ]] && alive "$pid" || return 0
  echo "$pid"
}

terminate() {
  local pid=$1 tenths=${2:-100}
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait_gone "$pid" "$tenths" || { kill -KILL "$pid" 2>/dev/null || true; wait_gone "$pid" 50 || true; }
}

# What `start` needs, one missing thing a line (with where it comes from).
missing() {
  local relay=$1 b
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
    [[ -x $K8S_BIN/$b ]] || echo "$K8S_BIN/$b (scripts/install-kubernetes.sh)"
  done
  command -v etcd >/dev/null || echo "etcd (apt-get install etcd-server)"
  for b in containerd containerd-shim-runc-v2 ctr; do
    command -v $b >/dev/null || echo "$b (apt-get install containerd)"
  done
  command -v runc >/dev/null || echo "runc (apt-get install runc)"
  for b in bridge host-local loopback; do
    [[ -x /usr/lib/cni/$b ]] || echo "/usr/lib/cni/$b (apt-get install containernetworking-plugins)"
  done
  [[ -x $KUBE_ROUTER ]] || echo "$KUBE_ROUTER (the NetworkPolicy engine: scripts/install-kube-router.sh)"
  for b in iptables ipset; do
    command -v $b >/dev/null || echo "$b (apt-get install $b)"
  done
  for b in openssl gcc ip curl; do
    command -v $b >/dev/null || echo "$b"
  done
  [[ -x /usr/bin/python3 ]] || echo "/usr/bin/python3 (the pause image's build)"
  if [[ -z $relay ]]; then
    echo "netns-relay (--relay PATH or NETNS_RELAY: <build tree>/tests/helpers/netns-relay)"
  elif [[ ! -x $relay ]]; then
    echo "$relay (the netns-relay helper, the storage door: cmake --build <tree> --target netns-relay)"
  fi
}

# What the RuntimeClass gvisor needs, one missing thing a line.
missing_gvisor() {
  [[ -x $GVISOR_SHIM ]] || echo "$GVISOR_SHIM (gVisor's containerd shim: scripts/install-gvisor-shim.sh)"
  [[ -x $RUNSC ]] || echo "$RUNSC (apt-get install runsc)"
}

# ---------------------------------------------------------------------------------- stop

# What kube-router leaves in the host's filter table and ipsets (its chains are KUBE-ROUTER-*,
# KUBE-POD-FW-*, KUBE-NWPLCY-*; its sets KUBE-* and kube-router-*): the jumps to them from the
# built-in chains, then the chains, then the sets. Nothing else on these machines uses those names.
kube_router_cleanup() {
  local rule chain set
  while read -r rule; do
    # shellcheck disable=SC2086 # a rule as iptables -S printed it
    eval "iptables ${rule/-A /-D }" 2>/dev/null || true
  done < <(iptables -S 2>/dev/null | grep -E '^-A (INPUT|FORWARD|OUTPUT) .*-j KUBE-(ROUTER|POD-FW|NWPLCY)' || true)
  for chain in $(iptables -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-(ROUTER|POD-FW|NWPLCY)/ { print $2 }'); do
    iptables -F "$chain" 2>/dev/null || true
  done
  for chain in $(iptables -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-(ROUTER|POD-FW|NWPLCY)/ { print $2 }'); do
    iptables -X "$chain" 2>/dev/null || true
  done
  for set in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|kube-router-)' || true); do
    ipset destroy "$set" 2>/dev/null || true
  done
}

# The containerd-shim-runc-v2 processes of DIR's containerd: their command line names its
# socket (a docker peer's containerd has shims of its own, left alone).
our_shims() {
  local sock=$1 p
  for p in $(pgrep -x containerd-shim 2>/dev/null); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "-address $sock " && echo "$p"
  done
}

# Every process in the pods' cgroups.
kill_pods() {
  local c p
  for c in /sys/fs/cgroup/*/"$CGROUP_ROOT"; do
    [[ -d $c ]] || continue
    for p in $(find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null); do
      kill -KILL "$p" 2>/dev/null || true
    done
  done
}

cluster_alive() {
  local name
  for name in "${COMPONENTS[@]}"; do
    [[ -n $(pid_of "$1" "$name") ]] && return 0
  done
  return 1
}

# The host's share: what the kubelet and the CRI keep outside DIR, whatever a run left there.
clean_host() {
  local dir=$1 name value m f
  if [[ -f $dir/sysctl.saved ]]; then
    while IFS='=' read -r name value; do
      sysctl -q -w "$name=$value" >/dev/null 2>&1 || say "could not restore $name=$value"
    done <"$dir/sysctl.saved"
    rm -f -- "$dir/sysctl.saved"
  fi
  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link del "$BRIDGE" 2>/dev/null || say "could not remove the bridge $BRIDGE"
  fi
  # The fence goes only once no pod can send (the bridge is gone).
  while iptables -t mangle -D FORWARD "${POD_FENCE[@]}" 2>/dev/null; do :; done
  kube_router_cleanup
  # The pods' cgroups, deepest first, and the root made for them.
  for m in /sys/fs/cgroup/*/"$CGROUP_ROOT"; do
    [[ -d $m ]] && find "$m" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  rm -f -- /var/lib/kubelet/device-plugins/kubelet.sock
  [[ -f $dir/made-var-lib-kubelet ]] && rm -rf --one-file-system -- /var/lib/kubelet
  for f in /var/log/containers/*; do
    [[ -L $f && $(readlink "$f") == "$dir/"* ]] && rm -f -- "$f"
  done
  [[ -f $dir/made-var-log-containers ]] && rmdir /var/log/containers 2>/dev/null || true
  rm -f -- /var/lib/cni/results/"$NETWORK"-* 2>/dev/null || true
  rm -f -- "$dir"/made-var-*
  rm -f -- "$OWNER_FILE"
}

# Whether the pod network's IPAM still holds an address (host-local keeps a file named after
# each one it handed out until the pod sandbox's CNI DEL).
held_addresses() {
  local f
  for f in "$1/cni/ipam/$NETWORK"/*; do
    [[ ${f##*/} =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] && return 0
  done
  return 1
}

stop_cluster() {
  local dir=$1 pid name i sock m f p owned=false
  if [[ ! -d $dir ]]; then
    [[ $(cat "$OWNER_FILE" 2>/dev/null) == "$dir" ]] && clean_host "$dir"
    return 0
  fi
  dir=$(cd "$dir" && pwd -P)
  [[ $(cat "$OWNER_FILE" 2>/dev/null) == "$dir" ]] && owned=true
  sock=$dir/containerd/containerd.sock
  # Pods first, while the kubelet and the API server can still tear them down (sandboxes,
  # CNI DEL: their addresses given back), then whatever is left by force.
  if [[ -n $(pid_of "$dir" kubelet) && -n $(pid_of "$dir" kube-apiserver) && -f $dir/admin.kubeconfig ]]; then
    timeout 20 "$K8S_BIN/kubectl" --kubeconfig="$dir/admin.kubeconfig" delete pods --all --all-namespaces \
      --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
    for i in $(seq 150); do
      held_addresses "$dir" || break
      sleep 0.1
    done
  fi
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    name=${COMPONENTS[i]}
    pid=$(pid_of "$dir" "$name")
    case $name in
      containerd)
        # The pods' processes, then containerd, then its shims (which outlive it by design).
        $owned && kill_pods
        terminate "$pid" 50
        for p in $(our_shims "$sock"); do terminate "$p" 10; done
        # gVisor's sandboxes and gofers (runsc-sandbox, runsc-gofer) name this cluster's runsc root.
        for p in $(pgrep -f -- "--root=$dir/containerd/runsc " 2>/dev/null); do
          tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "--root=$dir/containerd/runsc " && kill -KILL "$p" 2>/dev/null || true
        done
        # A shim killed leaves its socket (/run/containerd/s/…), named in its task's bundle.
        for f in "$dir"/containerd/state/io.containerd.runtime.v2.task/*/*/address; do
          [[ -f $f ]] || continue
          m=$(cat "$f" 2>/dev/null) m=${m#unix://}
          [[ $m == /run/containerd/s/* && -S $m ]] && rm -f -- "$m"
        done
        ;;
      etcd) terminate "$pid" 50 ;;
      # Nothing of theirs outlives the cluster: no graceful shutdown (seconds each).
      *) terminate "$pid" 0 ;;
    esac
    rm -f -- "$dir/run/$name.pid"
  done
  # Every mount under DIR (pod volumes, container root filesystems, sandboxes' /dev/shm),
  # innermost first.
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done < <(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r)
  $owned && clean_host "$dir"
  if awk -v d="$dir/" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
    say "mounts remain under $dir; its state is kept"
    return 1
  fi
  rm -rf --one-file-system -- "$dir/containerd" "$dir/kubelet" "$dir/etcd" "$dir/cni/ipam" "$dir/pod-logs" "$dir/run"
  rm -f -- "$dir/kubeconfig"
}

# --------------------------------------------------------------------------------- start

log_tail() {
  local f=$1
  [[ -f $f ]] || return 0
  say "the last lines of $f:"
  tail -n 25 "$f" >&2
}

# wait_for WHAT LOG PID COMMAND…: COMMAND until it succeeds, TIMEOUT seconds at most, while
# PID (the component it waits for) runs.
wait_for() {
  local what=$1 log=$2 pid=$3 n=$((TIMEOUT * 10))
  shift 3
  until "$@" >/dev/null 2>&1; do
    if ! alive "$pid"; then
      log_tail "$log"
      die "$what: the process exited"
    fi
    if ((n-- <= 0)); then
      log_tail "$log"
      die "$what: not within ${TIMEOUT}s"
    fi
    sleep 0.1
  done
}

# launch NAME LOG COMMAND…: in a session of its own (a signal to ctest's process group does
# not reach it), every stream to its log or /dev/null (nothing waits on its output).
launch() {
  local name=$1 log=$2
  shift 2
  # Its command line, for `restart` (the fault tests' outage of one component).
  printf '%q ' "$@" >"$D/run/$name.cmd"
  setsid "$@" </dev/null >"$log" 2>&1 &
  echo $! >"$D/run/$name.pid"
  LAST_PID=$!
  disown "$LAST_PID"  # no "Killed" notice from this shell when `stop` ends it
}

port_free() { ! ss -Htln "sport = :$1" | grep -q .; }

certificates() {
  local o=(openssl)
  cd "$D/pki"
  "${o[@]}" genrsa -out sa.key 2048 2>/dev/null
  "${o[@]}" rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  "${o[@]}" req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj /CN=batlehub-test-ca 2>/dev/null
  "${o[@]}" req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >apiserver.ext
  "${o[@]}" x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
    -extfile apiserver.ext -out apiserver.crt 2>/dev/null
  "${o[@]}" req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=batlehub-admin" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >client.ext
  "${o[@]}" x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
    -extfile client.ext -out admin.crt 2>/dev/null
  chmod 600 ./*.key
  cd - >/dev/null
}

# The pause image every pod's sandbox holds (registry.k8s.io is not reachable): a static
# program that waits for a signal, in a one-layer image, built once per DIR and imported.
pause_image() {
  local p=$D/pause
  if [[ ! -f $p/pause.tar ]]; then
    mkdir -p "$p/root"
    cat >"$p/pause.c" <<'EOF'
#include <signal.h>
#include <unistd.h>
static void leave(int sig) { (void)sig; _exit(0); }
int main(void) {
  signal(SIGINT, leave);
  signal(SIGTERM, leave);
  for (;;) pause();
}
EOF
    gcc -O2 -static -o "$p/root/pause" "$p/pause.c"
    tar -C "$p/root" --owner=0 --group=0 -cf "$p/layer.tar" pause
    /usr/bin/python3 - "$HERE/build-image.py" "$p/layer.tar" "$p/pause.tar.new" "$PAUSE_IMAGE" <<'EOF'
import importlib.util, sys
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("build_image", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
m.write_docker_archive(sys.argv[2], sys.argv[3], sys.argv[4], {"Entrypoint": ["/pause"], "User": "65535:65535"})
EOF
    mv -f -- "$p/pause.tar.new" "$p/pause.tar"
  fi
  ctr -a "$SOCK" -n k8s.io images import "$p/pause.tar" >/dev/null
}

# containerd's runtime `runsc` (the RuntimeClass gvisor's handler), when gVisor's pieces are there.
gvisor_runtime() {
  [[ -z $GVISOR_LACKS ]] || return 0
  cat <<EOF
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc]
      runtime_type = "io.containerd.runsc.v1"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc.options]
        TypeUrl = "io.containerd.runsc.v1.options"
        ConfigPath = "$D/containerd/runsc.toml"
EOF
}

start_cluster() {
  local dir=$1 s3_port=$2 relay=$3 lacking t0 t1 name pid m owner
  [[ $(id -u) -eq 0 ]] || die "the kubelet and containerd run as root: run the tests as root"
  [[ $s3_port =~ ^[0-9]+$ ]] || usage
  mkdir -p -- "$dir"
  D=$(cd "$dir" && pwd -P)
  rm -f -- "$D/kubeconfig"
  lacking=$(missing "$relay")
  if [[ -n $lacking ]]; then
    say "not started; missing:"
    sed 's/^/  /' <<<"$lacking" >&2
    say "the tests that need the cluster will skip"
    return 0
  fi
  relay=$(realpath -- "$relay")
  owner=$(cat "$OWNER_FILE" 2>/dev/null) || owner=
  if [[ -n $owner && $owner != "$D" ]]; then
    cluster_alive "$owner" && die "the test cluster of $owner runs (one per machine: its ports, its bridge); \`$0 stop $owner\` ends it"
    stop_cluster "$owner" || die "could not clean up after the cluster of $owner"
  fi
  stop_cluster "$D" || die "could not clean up the previous run in $D"
  SOCK=$D/containerd/containerd.sock
  ((${#SOCK} <= 100)) || die "$D is too long for containerd's sockets ($SOCK.ttrpc must fit in 107 bytes)"
  for name in $ETCD_PORT $ETCD_PEER_PORT $API_PORT $KCM_PORT $SCHED_PORT $KUBELET_PORT $KUBELET_HEALTHZ_PORT; do
    port_free "$name" || die "127.0.0.1:$name is taken (another cluster?): $(ss -Htlnp "sport = :$name" | head -n 1)"
  done
  echo "$D" >"$OWNER_FILE"
  # From here on a failure stops what started.
  trap 'rc=$?; trap - EXIT; if ((rc != 0)); then say "start failed; stopping"; stop_cluster "$D" || true; fi; exit $rc' EXIT
  mkdir -p -- "$D/run" "$D/pki" "$D/etcd" "$D/containerd" "$D/kubelet" "$D/pod-logs" \
    "$D/cni/bin" "$D/cni/conf" "$D/cni/ipam"
  certificates
  local ca=$D/pki/ca.crt
  cat >"$D/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: batlehub-test
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$ca"}
users:
- name: admin
  user: {client-certificate: "$D/pki/admin.crt", client-key: "$D/pki/admin.key"}
contexts:
- name: admin
  context: {cluster: batlehub-test, user: admin}
current-context: admin
EOF
  local K=("$K8S_BIN/kubectl" --kubeconfig="$D/admin.kubeconfig")

  t0=$(date +%s.%N)
  launch etcd "$D/etcd.log" etcd --name batlehub-test --data-dir "$D/etcd/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "batlehub-test=http://127.0.0.1:$ETCD_PEER_PORT" --unsafe-no-fsync
  wait_for "etcd on 127.0.0.1:$ETCD_PORT" "$D/etcd.log" "$LAST_PID" \
    curl -sf --max-time 2 "http://127.0.0.1:$ETCD_PORT/health"

  launch kube-apiserver "$D/kube-apiserver.log" "$K8S_BIN/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
    --tls-cert-file="$D/pki/apiserver.crt" --tls-private-key-file="$D/pki/apiserver.key" \
    --client-ca-file="$ca" --authorization-mode=Node,RBAC \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$D/pki/sa.pub" --service-account-signing-key-file="$D/pki/sa.key" \
    --service-cluster-ip-range="$SERVICE_RANGE" --endpoint-reconciler-type=none \
    --kubelet-client-certificate="$D/pki/admin.crt" --kubelet-client-key="$D/pki/admin.key" \
    --kubelet-preferred-address-types=InternalIP --cert-dir="$D/pki/apiserver-generated"
  wait_for "kube-apiserver /readyz on 127.0.0.1:$API_PORT" "$D/kube-apiserver.log" "$LAST_PID" \
    curl -sf --max-time 2 --cacert "$ca" --cert "$D/pki/admin.crt" --key "$D/pki/admin.key" \
    "https://127.0.0.1:$API_PORT/readyz"

  # Quota status, the ServiceAccount controller (every namespace's "default"), namespace
  # deletion, garbage collection; no node IPAM (the CNI's host-local hands out addresses).
  launch kube-controller-manager "$D/kube-controller-manager.log" "$K8S_BIN/kube-controller-manager" \
    --kubeconfig="$D/admin.kubeconfig" --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --leader-elect=false \
    --controllers='*,-nodeipam' --use-service-account-credentials=false \
    --service-account-private-key-file="$D/pki/sa.key" --root-ca-file="$ca" \
    --cluster-signing-cert-file="$ca" --cluster-signing-key-file="$D/pki/ca.key"
  local kcm_pid=$LAST_PID
  launch kube-scheduler "$D/kube-scheduler.log" "$K8S_BIN/kube-scheduler" \
    --kubeconfig="$D/admin.kubeconfig" --authentication-kubeconfig="$D/admin.kubeconfig" \
    --authorization-kubeconfig="$D/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" --leader-elect=false
  local sched_pid=$LAST_PID

  # The CNI chain (see the top of this file) and its plugins.
  for m in /usr/lib/cni/*; do ln -sfn -- "$m" "$D/cni/bin/$(basename "$m")"; done
  cat >"$D/cni/conf/10-$NETWORK.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$NETWORK",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": false,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_SUBNET", "gateway": "$POD_GATEWAY"}]],
              "dataDir": "$D/cni/ipam"}},
    {"type": "loopback"}
  ]
}
EOF
  # gVisor (see the top of this file), when its pieces are there.
  GVISOR_LACKS=$(missing_gvisor)
  mkdir -p -- "$D/bin"
  rm -f -- "$D/bin/containerd-shim-runsc-v1"
  if [[ -z $GVISOR_LACKS ]]; then
    ln -sfn -- "$GVISOR_SHIM" "$D/bin/containerd-shim-runsc-v1"
    cat >"$D/containerd/runsc.toml" <<EOF
binary_name = "$RUNSC"
root = "$D/containerd/runsc"
[runsc_config]
  platform = "ptrace"
  network = "host"
EOF
  else
    say "no RuntimeClass gvisor; missing:"
    sed 's/^/  /' <<<"$GVISOR_LACKS" >&2
  fi
  # containerd: its own root, state, socket and runc root, so that the docker peers' own
  # containerd instances are never disturbed. restrict_oom_score_adj: without
  # CAP_SYS_RESOURCE here, runc fails to set the score the CRI asks for.
  cat >"$D/containerd/config.toml" <<EOF
version = 2
root = "$D/containerd/root"
state = "$D/containerd/state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.internal.v1.opt"]
  path = "$D/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$D/containerd/runc"
$(gvisor_runtime)
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$D/cni/bin"
    conf_dir = "$D/cni/conf"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$D/containerd/certs.d"
EOF
  mkdir -p -- "$D/containerd/certs.d"
  launch containerd "$D/containerd.log" env PATH="$D/bin:$PATH" HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
    http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 NO_PROXY= no_proxy= \
    containerd --config "$D/containerd/config.toml"
  wait_for "containerd on $SOCK" "$D/containerd.log" "$LAST_PID" ctr -a "$SOCK" version
  pause_image

  # The fence, before any pod can exist (see "The pod network"); made again if a run left one.
  while iptables -t mangle -D FORWARD "${POD_FENCE[@]}" 2>/dev/null; do :; done
  iptables -t mangle -I FORWARD 1 "${POD_FENCE[@]}" || die "could not fence the pod network (iptables -t mangle)"
  # The bridge and its gateway address before any pod (the bridge plugin takes it as it is), so
  # that the gateway is this machine's from the start: the storage door listens there, and a
  # request to it never follows a default route out.
  # Its MAC address is set, never left to the kernel: a bridge whose address was not set takes
  # the lowest of its ports' addresses, so it changed each time a pod with a lower veth address
  # came or went, and every other pod's cached neighbour entry for the gateway then pointed at a
  # MAC that no longer existed: their new connections to the storage door had their SYNs
  # black-holed until the entry expired (15-45 s, then probes), seen as a sandbox's result PUT
  # timing out (4 attempts over 44 s) while pods of other tests came and went. A set address
  # (addr_assign_type 3) is one the kernel keeps. Locally administered, "bh" then 100.1.
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge || die "could not make the bridge $BRIDGE"
  ip link set "$BRIDGE" address "$BRIDGE_MAC" || die "could not set the bridge $BRIDGE's address $BRIDGE_MAC"
  ip addr replace "$POD_GATEWAY/${POD_SUBNET#*/}" dev "$BRIDGE" && ip link set "$BRIDGE" up ||
    die "could not give the bridge $BRIDGE the gateway's address $POD_GATEWAY"
  launch netns-relay "$D/storage-door.log" "$relay" /proc/self/ns/net "$s3_port" "$s3_port" "$POD_GATEWAY"
  wait_for "the storage door on $POD_GATEWAY:$s3_port" "$D/storage-door.log" "$LAST_PID" \
    grep -qx ready "$D/storage-door.log"
  echo "$POD_GATEWAY" >"$D/storage-door"
  # What the kubelet changes on the host, noted before it runs.
  for name in "${SYSCTLS[@]}"; do echo "$name=$(sysctl -n "$name")"; done >"$D/sysctl.saved.new"
  mv -f -- "$D/sysctl.saved.new" "$D/sysctl.saved"
  for m in /sys/fs/cgroup/*/; do
    [[ -f $m/cgroup.procs ]] || continue
    mkdir -p -- "$m$CGROUP_ROOT"
    # cgroup v1 cpuset: a new cgroup has no cpus and no memory nodes until given its parent's.
    [[ -f $m/cpuset.cpus ]] && cat "$m/cpuset.cpus" >"$m$CGROUP_ROOT/cpuset.cpus" && cat "$m/cpuset.mems" >"$m$CGROUP_ROOT/cpuset.mems"
  done
  [[ -e /var/lib/kubelet ]] || touch "$D/made-var-lib-kubelet"
  [[ -e /var/log/containers ]] || touch "$D/made-var-log-containers"
  cat >"$D/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$ca"}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: "unix://$SOCK"
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
makeIPTablesUtilChains: false
resolvConf: ""
podLogsDir: "$D/pod-logs"
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
# A pod spec cannot bound its processes; only the kubelet can, per pod. Without it the
# sandbox probe's pids_bounded fails (as it must: a fork bomb would take the node's pids),
# so this cluster is configured as docs/operations/kubernetes.md asks an operator's to be.
podPidsLimit: 256
EOF
  launch kubelet "$D/kubelet.log" "$K8S_BIN/kubelet" --config="$D/kubelet.yaml" \
    --kubeconfig="$D/admin.kubeconfig" --root-dir="$D/kubelet" --cert-dir="$D/kubelet/pki" \
    --hostname-override="$NODE" --node-ip=127.0.0.1
  local kubelet_pid=$LAST_PID
  # The kubelet refuses to report a loopback node address ("nodeIP can't be loopback
  # address") and reports none; written here (the kubelet leaves it be), the API server
  # reaches the kubelet on 127.0.0.1:10250 for `kubectl logs`. Without --node-ip the kubelet
  # would resolve its name instead, through a DNS server off this machine.
  node_ready() {
    local st
    st=$("${K[@]}" get node "$NODE" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address} {.status.conditions[?(@.type=="Ready")].status}') || return 1
    if [[ $st != 127.0.0.1\ * ]]; then
      "${K[@]}" patch node "$NODE" --subresource=status --type=merge -p \
        '{"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"},{"type":"Hostname","address":"'"$NODE"'"}]}}'
      return 1
    fi
    [[ $st == *\ True ]]
  }
  wait_for "node $NODE Ready" "$D/kubelet.log" "$kubelet_pid" node_ready
  t1=$(date +%s.%N)
  # Pods can be created once the ServiceAccount controller made "default" (and the other
  # two still run).
  wait_for "the ServiceAccount default/default" "$D/kube-controller-manager.log" "$kcm_pid" \
    "${K[@]}" get serviceaccount default --namespace default
  alive "$sched_pid" || { log_tail "$D/kube-scheduler.log"; die "kube-scheduler exited"; }
  # The NetworkPolicy engine, firewall only: iptables and ipsets on this host, no routes, no
  # BGP, no service proxy, no health or metrics listener. Ready once its chains are in place.
  kube_router_cleanup
  launch kube-router "$D/kube-router.log" "$KUBE_ROUTER" --kubeconfig="$D/admin.kubeconfig" \
    --hostname-override="$NODE" --run-firewall=true --run-router=false --run-service-proxy=false \
    --enable-cni=false --service-cluster-ip-range="$SERVICE_RANGE" --health-port=0 --metrics-port=0 \
    --iptables-sync-period=1m -v=1
  local kr_pid=$LAST_PID
  wait_for "kube-router's firewall chains" "$D/kube-router.log" "$kr_pid" iptables -S KUBE-ROUTER-FORWARD
  for name in "${SYSCTLS[@]}"; do
    m=$(grep "^$name=" "$D/sysctl.saved" | cut -d= -f2-)
    [[ $(sysctl -n "$name") == "$m" ]] || say "the kubelet set $name=$(sysctl -n "$name") (was $m; \`stop\` restores it)"
  done
  if [[ -z $GVISOR_LACKS ]]; then
    "${K[@]}" apply -f - >/dev/null <<EOF || die "could not create the RuntimeClass gvisor"
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
EOF
  fi
  cp -f -- "$D/admin.kubeconfig" "$D/kubeconfig.new"
  mv -f -- "$D/kubeconfig.new" "$D/kubeconfig"
  trap - EXIT
  say "node $NODE Ready $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')s after etcd started"
  echo "$D/kubeconfig"
}

relay_arg() {
  RELAY=${NETNS_RELAY:-}
  while (($#)); do
    case $1 in
      --relay) (($# >= 2)) || usage; RELAY=$2; shift 2 ;;
      *) usage ;;
    esac
  done
}

# restart DIR NAME: the component stopped as a service manager stops it (SIGTERM, then KILL)
# and started again from its saved command line, its log appended to; then waited for as
# `start` waits for it. The pods keep running meanwhile: they are containerd's, not the
# kubelet's or the API server's.
restart_component() {
  local dir=$1 name=$2 down=${3:-0} pid
  case $name in kube-apiserver | kubelet) ;; *) usage ;; esac
  [[ $down =~ ^[0-9]+$ ]] || usage
  [[ -d $dir ]] || die "no cluster in $dir"
  D=$(cd "$dir" && pwd -P)
  [[ -f $D/run/$name.cmd ]] || die "$name was not started from $D (no $D/run/$name.cmd)"
  pid=$(pid_of "$D" "$name")
  [[ -n $pid ]] || die "$name is not running in $D"
  terminate "$pid"
  sleep "$down"
  echo "--- k8s-peer: restarted $(date -u +%FT%TZ) ---" >>"$D/$name.log"
  eval "set -- $(cat "$D/run/$name.cmd")"
  setsid "$@" </dev/null >>"$D/$name.log" 2>&1 &
  echo $! >"$D/run/$name.pid"
  LAST_PID=$!
  disown "$LAST_PID"
  local ca=$D/pki/ca.crt K=("$K8S_BIN/kubectl" --kubeconfig="$D/admin.kubeconfig")
  if [[ $name == kube-apiserver ]]; then
    wait_for "kube-apiserver /readyz on 127.0.0.1:$API_PORT" "$D/kube-apiserver.log" "$LAST_PID" \
      curl -sf --max-time 2 --cacert "$ca" --cert "$D/pki/admin.crt" --key "$D/pki/admin.key" \
      "https://127.0.0.1:$API_PORT/readyz"
  else
    # Up again: the restarted kubelet's own health endpoint, then the node still Ready (its
    # lease outlives a restart of seconds).
    kubelet_up() {
      curl -sf --max-time 2 "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz" >/dev/null || return 1
      [[ $("${K[@]}" get node "$NODE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]
    }
    wait_for "the kubelet's /healthz and node $NODE Ready after its restart" "$D/kubelet.log" "$LAST_PID" \
      kubelet_up
  fi
}

case ${1:-} in
  start)
    (($# >= 4)) || usage
    dir=$2
    [[ $3 == --s3-port ]] || usage
    port=$4
    shift 4
    relay_arg "$@"
    start_cluster "$dir" "$port" "$RELAY"
    ;;
  stop)
    [[ $# -eq 2 ]] || usage
    stop_cluster "$2"
    ;;
  restart)
    if [[ $# -eq 5 && $4 == --down-for ]]; then
      restart_component "$2" "$3" "$5"
    else
      [[ $# -eq 3 ]] || usage
      restart_component "$2" "$3"
    fi
    ;;
  missing)
    shift
    if [[ ${1:-} == --gvisor ]]; then
      (($# == 1)) || usage
      out=$(missing_gvisor)
      [[ -z $out ]] || { echo "$out"; exit 1; }
      exit 0
    fi
    relay_arg "$@"
    out=$(missing "$RELAY")
    [[ -z $out ]] || { echo "$out"; exit 1; }
    ;;
  *) usage ;;
esac
