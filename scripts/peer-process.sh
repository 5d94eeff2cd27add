# Sourced, not run: what the scripts that start a test peer as a background process share
# (scripts/s3-peer.sh, scripts/registry-peer.sh).

# Stops the process PIDFILE names, and only while that pid is still a process whose command
# line holds PATTERN (a pid is reused once its process is gone): SIGTERM, up to 5 s for it to
# exit, then SIGKILL. Removes PIDFILE. Harmless when there is none.
stop_by_pidfile() {
  local pidfile=$1 pattern=$2 pid
  pid=$(cat "$pidfile" 2>/dev/null) || return 0
  if [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f -- "$pidfile"
}
