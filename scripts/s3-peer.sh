#!/usr/bin/env bash
# A throwaway S3 server for the tests: versitygw (scripts/install-peers.sh installs it) on
# its posix backend, listening on 127.0.0.1 only.
#
#   scripts/s3-peer.sh start DIR PORT                 # prints http://127.0.0.1:PORT
#   scripts/s3-peer.sh start DIR PORT --tls CERT KEY  # serves TLS: prints https://127.0.0.1:PORT
#   scripts/s3-peer.sh stop DIR
#   scripts/s3-peer.sh restart DIR PORT               # stop, then start on the data it had
#
# DIR holds the server's pid file, its log (versitygw.log) and its data (data/<bucket>/…).
# `start` first stops whatever DIR's pid file names and throws the old data away, then
# creates the bucket with a signed PUT; `stop` is harmless when nothing runs. The keys and
# the bucket are fixed: the server is for tests, and it is thrown away. `restart` is the
# fault tests' outage: the server stopped and started again, keeping its data and its bucket,
# as a real S3 endpoint comes back. With --tls the server
# presents CERT (PEM, for 127.0.0.1) with KEY; the script's own requests to it (the probe,
# the bucket) trust exactly CERT (curl --cacert, a leaf as its own anchor), never -k.
#
# Environment: VERSITYGW (default /opt/batlehub/peers/versitygw-1.8.0/versitygw). When that
# binary is absent, `start` says so and succeeds: the tests that need the server skip, each
# naming the missing binary (`make test` installs it first, so there they never skip).
set -euo pipefail

VERSITYGW="${VERSITYGW:-/opt/batlehub/peers/versitygw-1.8.0/versitygw}"
ACCESS_KEY=batlehub-test
SECRET_KEY=batlehub-test-secret
BUCKET=batlehub-test
REGION=us-east-1

usage() {
  echo "usage: $0 start DIR PORT [--tls CERT KEY] | stop DIR | restart DIR PORT" >&2
  exit 2
}

. "$(dirname "${BASH_SOURCE[0]}")/peer-process.sh"

# Only ever a process this script started (peer-process.sh stop_by_pidfile).
stop_server() {
  stop_by_pidfile "$1/versitygw.pid" "versitygw"
}

start_server() {
  local dir=$1 port=$2 cert=${3:-} key=${4:-} url code
  local -a tls_args=() curl_tls=()
  [[ $port =~ ^[0-9]+$ ]] || usage
  if [[ ! -x $VERSITYGW ]]; then
    echo "s3-peer: no versitygw at $VERSITYGW (scripts/install-peers.sh installs it); the S3 tests will skip" >&2
    return 0
  fi
  stop_server "$dir"
  mkdir -p -- "$dir"
  [[ $keep_data == 1 ]] || rm -rf -- "$dir/data"
  mkdir -p -- "$dir/data"
  url="http://127.0.0.1:$port"
  if [[ -n $cert ]]; then
    [[ -r $cert && -r $key ]] || {
      echo "s3-peer: cannot read the certificate $cert or the key $key" >&2
      exit 1
    }
    cert=$(realpath -- "$cert") key=$(realpath -- "$key")  # versitygw 1.8.0 does not find a relative path
    tls_args=(--cert "$cert" --key "$key")
    curl_tls=(--cacert "$cert")
    url="https://127.0.0.1:$port"
  fi
  # setsid: the server outlives this script (ctest's fixture setup) and is not in its
  # process group; stop_server ends it by its pid.
  setsid "$VERSITYGW" --access "$ACCESS_KEY" --secret "$SECRET_KEY" --region "$REGION" \
    --port "127.0.0.1:$port" "${tls_args[@]}" --quiet posix "$dir/data" >"$dir/versitygw.log" 2>&1 </dev/null &
  echo $! >"$dir/versitygw.pid"
  # Up when it answers HTTP at all (an unsigned request gets 403).
  for _ in $(seq 100); do
    code=$(curl -s "${curl_tls[@]}" -o /dev/null -w '%{http_code}' --max-time 2 "$url/" 2>/dev/null) || code=000
    [[ $code != 000 ]] && break
    if ! kill -0 "$(cat "$dir/versitygw.pid")" 2>/dev/null; then
      echo "s3-peer: versitygw exited; its log:" >&2
      cat "$dir/versitygw.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [[ $code == 000 ]]; then
    echo "s3-peer: versitygw did not answer on $url; its log:" >&2
    cat "$dir/versitygw.log" >&2
    stop_server "$dir"
    exit 1
  fi
  if [[ $keep_data == 1 ]]; then
    echo "$url"
    return 0
  fi
  # versitygw wants x-amz-content-sha256 on every signed request; this is the empty body's.
  curl -sS -f "${curl_tls[@]}" -o /dev/null -X PUT -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    --aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS_KEY:$SECRET_KEY" "$url/$BUCKET" || {
    echo "s3-peer: creating the bucket $BUCKET failed; the server's log:" >&2
    cat "$dir/versitygw.log" >&2
    stop_server "$dir"
    exit 1
  }
  echo "$url"
}

keep_data=0
case ${1:-} in
  restart)
    [[ $# -eq 3 ]] || usage
    keep_data=1
    start_server "$2" "$3"
    ;;
  start)
    if [[ $# -eq 6 && $4 == --tls ]]; then
      start_server "$2" "$3" "$5" "$6"
    else
      [[ $# -eq 3 ]] || usage
      start_server "$2" "$3"
    fi
    ;;
  stop)
    [[ $# -eq 2 ]] || usage
    stop_server "$2"
    ;;
  *) usage ;;
esac
