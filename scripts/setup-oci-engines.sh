#!/usr/bin/env bash
# Configures the container engines of the `oci` runtime (docs/operations/oci.md) the way
# these hosts need them: Debian 12's podman 4.3 as root, on a cgroup v1/hybrid host without
# systemd and without CAP_SYS_RESOURCE. scripts/install-deps.sh runs it after the packages.
# Idempotent: it writes only what differs, and says what it wrote.
#
#   /etc/containers/containers.conf.d/50-batlehub.conf
#       [containers] default_ulimits  nofile and nproc both set: podman otherwise writes
#                                     RLIMIT_NOFILE=1048576 into every spec, which the OCI
#                                     runtime cannot raise without CAP_SYS_RESOURCE ("setrlimit
#                                     RLIMIT_NPROC: Operation not permitted"); naming one limit
#                                     alone (--ulimit) drops the other default
#       [engine] runtime = "runc"     crun 1.8.1 refuses the hybrid cgroup layout ("cgroups in
#                                     hybrid mode not supported")
#       [engine] cgroup_manager, events_logger = "cgroupfs", "file" when PID 1 is not systemd
#                                     (no systemd to ask for a scope, no journald to log to)
#   /etc/subuid, /etc/subgid          containers:2147483647:2147483648, the range podman's
#                                     `--userns auto` carves each container's uids from
#
#   the user dockremap, and dockremap:1879048192:65536 in /etc/subuid and /etc/subgid
#                                     the range a docker daemon with "userns-remap": "default"
#                                     maps containers' uids to (the tests' second daemon,
#                                     scripts/docker-peer.sh --userns-remap); dockerd would
#                                     create both itself, unannounced
#
# Docker needs nothing else here: the tests start their own dockerd (scripts/docker-peer.sh).
# Environment: BATLEHUB_CONTAINERS_CONF_D (default /etc/containers/containers.conf.d) and
# BATLEHUB_SUBID_DIR (default /etc), for trying the script elsewhere.
set -euo pipefail

conf_dir=${BATLEHUB_CONTAINERS_CONF_D:-/etc/containers/containers.conf.d}
subid_dir=${BATLEHUB_SUBID_DIR:-/etc}
conf="$conf_dir/50-batlehub.conf"
subid_line="containers:2147483647:2147483648"

say() { echo "setup-oci-engines: $*"; }
die() { echo "setup-oci-engines: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root to $1"; }

if [ -d /run/systemd/system ]; then
  systemd=1
else
  systemd=0
fi

want_conf() {
  cat <<'EOF'
# Written by batlehub's scripts/setup-oci-engines.sh (docs/operations/oci.md says why).
# Rewritten when it differs from what the script wants; put site changes in a later file.
[containers]
# Both limits, always: the runtime cannot raise RLIMIT_NOFILE past the host's hard limit
# without CAP_SYS_RESOURCE, and podman's own default (1048576) is past it.
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]

[engine]
# crun 1.8.1 refuses a hybrid cgroup v1/v2 layout; runc runs on v1, hybrid and v2.
runtime = "runc"
EOF
  if [ "$systemd" -eq 0 ]; then
    cat <<'EOF'
# No systemd on this host (PID 1 is not systemd): no scope to ask for, no journald.
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  fi
}

changed=0

# --- podman's containers.conf drop-in --------------------------------------------------
want="$(want_conf)"
if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
  need_root "write $conf"
  mkdir -p "$conf_dir"
  tmp="$(mktemp "$conf_dir/.50-batlehub.conf.XXXXXX")"
  printf '%s\n' "$want" > "$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$conf"
  say "wrote $conf"
  changed=1
fi
if [ -n "${CONTAINERS_CONF:-}" ]; then
  # CONTAINERS_CONF replaces every containers.conf, drop-ins included.
  say "warning: CONTAINERS_CONF=$CONTAINERS_CONF is set: podman will not read $conf"
fi

# --- the subordinate id range of --userns auto ------------------------------------------
for f in subuid subgid; do
  path="$subid_dir/$f"
  if grep -qs '^containers:' "$path"; then
    # An operator's own range for `containers` stands, whatever it is.
    continue
  fi
  need_root "add $subid_line to $path"
  # A file without a final newline would glue our line to its last one.
  if [ -s "$path" ] && [ -n "$(tail -c1 "$path")" ]; then echo >> "$path"; fi
  echo "$subid_line" >> "$path"
  chmod 0644 "$path"
  say "added $subid_line to $path"
  changed=1
done

# --- docker's userns-remap user and range -------------------------------------------------
if ! getent passwd dockremap >/dev/null; then
  need_root "add the user dockremap"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin dockremap
  say "added the system user dockremap (docker's userns-remap)"
  changed=1
fi
for f in subuid subgid; do
  path="$subid_dir/$f"
  grep -qs '^dockremap:' "$path" && continue
  need_root "add dockremap:1879048192:65536 to $path"
  if [ -s "$path" ] && [ -n "$(tail -c1 "$path")" ]; then echo >> "$path"; fi
  echo "dockremap:1879048192:65536" >> "$path"
  say "added dockremap:1879048192:65536 to $path"
  changed=1
done

if [ "$changed" -eq 0 ]; then
  say "engines configured already ($conf; containers and dockremap in $subid_dir/subuid and subgid)"
fi
