#!/usr/bin/env bash
# A throwaway Docker daemon for the tests (docs: test-peers.md, "Docker";
# docs/operations/oci.md). As root.
#
#   scripts/docker-peer.sh start DIR [--userns-remap]   # prints unix://DIR/docker.sock once `docker info` answers
#   scripts/docker-peer.sh stop DIR
#   scripts/docker-peer.sh restart DIR [--userns-remap]  # stop the daemon, start it on the data it had
#
# --userns-remap: the daemon maps every container's uids ("userns-remap": "default" in its
# daemon.json): uid 65532 inside is the user dockremap's subordinate range + 65532 on the
# host (scripts/setup-oci-engines.sh adds dockremap and its range; dockerd would add them
# itself otherwise).
#
# Everything the daemon keeps lives under DIR: its data root (DIR/data: images, layers,
# containers), its exec root (DIR/exec: its containerd's sockets and state), its pidfile
# (DIR/docker.pid), its log (DIR/dockerd.log) and the one socket it listens on
# (DIR/docker.sock). It reads DIR/daemon.json, never /etc/docker/daemon.json, which registers
# gVisor's runsc as the runtime "runsc" when /usr/bin/runsc is there. No iptables
# rules, no docker0 bridge, no TCP listener: a container gets `--network none` or the host's
# network, never a NAT. Two peers in two directories (the release and the ASan build trees)
# run side by side.
#
# `start` first stops whatever DIR holds from an earlier run, waits at most
# DOCKER_PEER_TIMEOUT seconds (default 60) for `docker -H unix://DIR/docker.sock info` to
# answer, and on failure prints why with the tail of dockerd's log. `stop` stops the daemon
# (its containers with it), waits for it to exit, and removes DIR's data and exec roots; it
# is harmless when nothing runs. The log stays, for the record. `restart` is the fault tests'
# outage (`systemctl restart docker`): dockerd stopped with SIGTERM, as a service manager stops
# it (its running containers stopped with it), and started again on its data root, images kept.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [--userns-remap] | stop DIR | restart DIR [--userns-remap]" >&2
  exit 2
}

die() {
  echo "docker-peer: $*" >&2
  exit 1
}

log_tail() {
  local log=$1/dockerd.log
  [[ -f $log ]] || return 0
  echo "docker-peer: the last lines of $log:" >&2
  tail -n 30 "$log" >&2
}

alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

# Waits up to $2 tenths of a second for pid $1 to exit.
wait_gone() {
  local pid=$1 n=$2
  while alive "$pid" && ((n-- > 0)); do sleep 0.1; done
  ! alive "$pid"
}

# The pid in a pidfile, if that process still runs the program named.
pid_of() {
  local file=$1 name=$2 pid
  pid=$(cat "$file" 2>/dev/null) || return 0
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$name"* ]] || return 0
  echo "$pid"
}

stop_daemon() {
  local dir=$1 pid cpid m
  [[ -d $dir ]] || return 0
  dir=$(cd "$dir" && pwd -P)
  pid=$(pid_of "$dir/docker.pid" dockerd)
  # dockerd writes its managed containerd's pid here; it outlives a dockerd killed with -9.
  cpid=$(pid_of "$dir/exec/containerd/containerd.pid" containerd)
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    # dockerd gives each running container its stop timeout (10 s) before it kills it.
    wait_gone "$pid" 300 || { kill -KILL "$pid" 2>/dev/null || true; wait_gone "$pid" 50 || true; }
  fi
  if alive "$cpid"; then
    kill -TERM "$cpid" 2>/dev/null || true
    wait_gone "$cpid" 100 || { kill -KILL "$cpid" 2>/dev/null || true; wait_gone "$cpid" 50 || true; }
  fi
  # Whatever the daemon left mounted under DIR (overlay layers, network namespaces, a
  # container's /dev/shm after a kill), innermost first, then the roots themselves.
  while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done < <(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r)
  [[ $keep_data == 1 ]] || rm -rf -- "$dir/data" "$dir/exec"
  rm -f -- "$dir/docker.sock" "$dir/docker.pid"
}

start_daemon() {
  local dir=$1 remap=${2:-} timeout=${DOCKER_PEER_TIMEOUT:-60} sock host ns pid n
  [[ $(id -u) -eq 0 ]] || die "dockerd runs as root: run the tests as root"
  command -v dockerd >/dev/null || die "no dockerd on PATH (scripts/install-deps.sh installs docker.io)"
  command -v docker >/dev/null || die "no docker CLI on PATH (scripts/install-deps.sh installs docker.io)"
  [[ $timeout =~ ^[0-9]+$ ]] || die "DOCKER_PEER_TIMEOUT=$timeout is not a number of seconds"
  mkdir -p -- "$dir"
  dir=$(cd "$dir" && pwd -P)
  stop_daemon "$dir"
  sock=$dir/docker.sock
  # sun_path holds 108 bytes with its NUL; containerd's own sockets go under DIR/exec.
  ((${#dir} <= 80)) || die "$dir is too long for the daemon's unix sockets (at most 80 characters)"
  host=unix://$sock
  # dockerd starts a containerd of its own under DIR/exec, unless a system one listens on
  # /run/containerd/containerd.sock (a systemd host with containerd.service): then the two
  # peers share it, each in containerd namespaces of its own.
  ns=batlehub-peer-$(printf '%s' "$dir" | sha256sum | cut -c1-12)
  mkdir -p -- "$dir/data" "$dir/exec"
  chmod 0711 "$dir/data" "$dir/exec"
  # gVisor, where Debian's runsc is installed: containers that ask for it (`docker run
  # --runtime=runsc`, the oci runtime's extra_args) run under it, the rest under runc.
  local runtimes=""
  [[ -x /usr/bin/runsc ]] && runtimes='"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}'
  if [[ $remap == --userns-remap ]]; then
    echo "{\"userns-remap\": \"default\"${runtimes:+, $runtimes}}" > "$dir/daemon.json"
  else
    echo "{${runtimes}}" > "$dir/daemon.json"
  fi
  # A fresh log per start; the previous one is kept beside it.
  [[ -f $dir/dockerd.log ]] && mv -f -- "$dir/dockerd.log" "$dir/dockerd.log.1"
  # setsid: its own session, so that a signal to the test driver's process group does not
  # reach it; every stream to the log or /dev/null, so that nothing waits on its output.
  setsid dockerd \
    --config-file "$dir/daemon.json" \
    --data-root "$dir/data" \
    --exec-root "$dir/exec" \
    --pidfile "$dir/docker.pid" \
    --host "$host" \
    --containerd-namespace "$ns" --containerd-plugins-namespace "$ns-plugins" \
    --iptables=false --ip6tables=false --ip-masq=false --bridge=none \
    </dev/null >"$dir/dockerd.log" 2>&1 &
  pid=$!
  n=$((timeout * 10))
  while :; do
    if ! alive "$pid"; then
      echo "docker-peer: dockerd exited before it answered on $host" >&2
      log_tail "$dir"
      exit 1
    fi
    if [[ -S $sock ]] && timeout 5 docker -H "$host" info --format '{{.ServerVersion}}' >/dev/null 2>&1; then
      break
    fi
    if ((n-- <= 0)); then
      echo "docker-peer: dockerd did not answer on $host within ${timeout}s" >&2
      log_tail "$dir"
      stop_daemon "$dir"
      exit 1
    fi
    sleep 0.1
  done
  echo "$host"
}

keep_data=0
case ${1:-} in
  restart)
    [[ $# -eq 2 || ($# -eq 3 && $3 == --userns-remap) ]] || usage
    keep_data=1
    start_daemon "$2" "${3:-}"
    ;;
  start)
    [[ $# -eq 2 || ($# -eq 3 && $3 == --userns-remap) ]] || usage
    start_daemon "$2" "${3:-}"
    ;;
  stop)
    [[ $# -eq 2 ]] || usage
    stop_daemon "$2"
    ;;
  *) usage ;;
esac
