#!/usr/bin/env bash
# A throwaway OCI registry for the tests: the CNCF Distribution registry
# (scripts/install-registry.sh builds it) on its filesystem driver, listening on 127.0.0.1 only,
# plain HTTP. Images are pushed to it (scripts/build-image.py --registry) and every engine —
# podman, the docker daemons, the test cluster's containerd — pulls them from it by digest.
#
#   scripts/registry-peer.sh start DIR PORT     # prints 127.0.0.1:PORT once /v2/ answers
#   scripts/registry-peer.sh stop DIR
#   scripts/registry-peer.sh restart DIR PORT   # stop, then start on the data it had
#
# DIR holds the server's configuration (config.yml), pid file, log (registry.log) and data
# (data/docker/registry/v2/…). `start` first stops whatever DIR's pid file names and throws the
# old data away; `stop` is harmless when nothing runs; `restart` keeps the data, as a registry
# that went down comes back with what it held. Deleting manifests is enabled (the tests remove
# what they pushed); no authentication: it listens on loopback and is thrown away. Its upload
# secret is drawn at each start (one instance, so nothing else needs to share it). Its own
# tracing is off (OTEL_TRACES_EXPORTER=none): v3 would otherwise export spans to
# localhost:4318.
#
# Environment: REGISTRY (default /opt/batlehub/peers/registry-3.1.2/registry). When that binary
# is absent, `start` says so and succeeds: the tests that need the registry skip, each naming
# the missing binary (`make test` installs it first, so there they never skip).
set -euo pipefail

REGISTRY="${REGISTRY:-/opt/batlehub/peers/registry-3.1.2/registry}"

usage() {
  echo "usage: $0 start DIR PORT | stop DIR | restart DIR PORT" >&2
  exit 2
}

. "$(dirname "${BASH_SOURCE[0]}")/peer-process.sh"

# Only ever a process this script started (peer-process.sh stop_by_pidfile).
stop_server() {
  stop_by_pidfile "$1/registry.pid" "registry serve"
}

start_server() {
  local dir=$1 port=$2 keep=$3 url code
  [[ $port =~ ^[0-9]+$ ]] || usage
  if [[ ! -x $REGISTRY ]]; then
    echo "registry-peer: no registry at $REGISTRY (scripts/install-registry.sh builds it); the registry tests will skip" >&2
    return 0
  fi
  stop_server "$dir"
  url="http://127.0.0.1:$port/v2/"
  # Another server on the port would answer the readiness check below in this one's place.
  if curl -s -o /dev/null --max-time 2 "$url" 2>/dev/null; then
    echo "registry-peer: something already answers on 127.0.0.1:$port; not starting a second registry there" >&2
    exit 1
  fi
  mkdir -p -- "$dir"
  dir=$(realpath -- "$dir")
  [[ $keep == 1 ]] || rm -rf -- "$dir/data"
  mkdir -p -- "$dir/data"
  cat >"$dir/config.yml" <<EOF
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: $(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
EOF
  # setsid: the server outlives this script (ctest's fixture setup) and is not in its process
  # group; stop_server ends it by its pid.
  OTEL_TRACES_EXPORTER=none setsid "$REGISTRY" serve "$dir/config.yml" >"$dir/registry.log" 2>&1 </dev/null &
  echo $! >"$dir/registry.pid"
  for _ in $(seq 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" 2>/dev/null) || code=000
    [[ $code == 200 ]] && break
    if ! kill -0 "$(cat "$dir/registry.pid")" 2>/dev/null; then
      echo "registry-peer: the registry exited; its log:" >&2
      cat "$dir/registry.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [[ $code != 200 ]]; then
    echo "registry-peer: the registry did not answer $url with 200 (last: $code); its log:" >&2
    cat "$dir/registry.log" >&2
    stop_server "$dir"
    exit 1
  fi
  echo "127.0.0.1:$port"
}

case ${1:-} in
  start)
    [[ $# -eq 3 ]] || usage
    start_server "$2" "$3" 0
    ;;
  restart)
    [[ $# -eq 3 ]] || usage
    start_server "$2" "$3" 1
    ;;
  stop)
    [[ $# -eq 2 ]] || usage
    stop_server "$2"
    ;;
  *) usage ;;
esac
