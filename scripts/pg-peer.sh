#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (docs: test-peers.md, "PostgreSQL").
#
#   scripts/pg-peer.sh start DIR PORT   # prints postgresql://app@127.0.0.1:PORT/batlehub
#   scripts/pg-peer.sh stop DIR
#
# The cluster listens on 127.0.0.1 only (and a socket inside its own directory), trusts
# every local connection, and does not fsync: it is for tests, and it is thrown away.
# `start` first stops and removes whatever cluster DIR names from an earlier run; `stop`
# is harmless when nothing runs.
#
# The server runs as the postgres user, who may not be able to reach DIR (a build tree
# under a root-only directory): the cluster itself lives in a directory of its own under
# ${TMPDIR:-/tmp}, and DIR holds a link to it.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR PORT | stop DIR" >&2
  exit 2
}

pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [[ -n $d && -x $d/initdb ]] || {
    echo "pg-peer: no PostgreSQL server under /usr/lib/postgresql (scripts/install-deps.sh installs it)" >&2
    exit 1
  }
  echo "$d"
}

as_postgres() { runuser -u postgres -- "$@"; }

stop_cluster() {
  local dir=$1 cluster
  cluster=$(readlink "$dir/cluster" 2>/dev/null) || return 0
  if [[ -f $cluster/data/postmaster.pid ]]; then
    as_postgres "$(pg_bin)/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  # Only ever a directory this script made.
  case $cluster in
    */batlehub-pg.*) rm -rf -- "$cluster" ;;
  esac
  rm -f -- "$dir/cluster"
}

start_cluster() {
  local dir=$1 port=$2 bin cluster
  [[ $port =~ ^[0-9]+$ ]] || usage
  bin=$(pg_bin)
  stop_cluster "$dir"
  mkdir -p -- "$dir"
  cluster=$(mktemp -d "${TMPDIR:-/tmp}/batlehub-pg.XXXXXX")
  ln -sfn -- "$cluster" "$dir/cluster"
  chown postgres: "$cluster"
  chmod 700 "$cluster"
  as_postgres "$bin/initdb" -D "$cluster/data" -U app --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$cluster/initdb.log" 2>&1 || {
    cat "$cluster/initdb.log" >&2
    exit 1
  }
  if ! as_postgres "$bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $cluster -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null; then
    echo "pg-peer: the server did not start on 127.0.0.1:$port:" >&2
    cat "$cluster/server.log" >&2
    exit 1
  fi
  as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U app batlehub
  echo "postgresql://app@127.0.0.1:$port/batlehub"
}

case ${1:-} in
  start)
    [[ $# -eq 3 ]] || usage
    start_cluster "$2" "$3"
    ;;
  stop)
    [[ $# -eq 2 ]] || usage
    stop_cluster "$2"
    ;;
  *) usage ;;
esac
