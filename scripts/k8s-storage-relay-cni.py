#!/usr/bin/python3
"""batlehub-storage-relay: the last plugin of the test cluster's CNI chain (scripts/k8s-peer.sh
installs this file as DIR/cni/bin/batlehub-storage-relay and names it in DIR/cni/conf).

It gives every pod "the storage network": 127.0.0.1:PORT inside the pod reaches the tests' S3
server on the host's 127.0.0.1:PORT — the very host:port the worker signs its presigned URLs
for — and nothing else. It does so with the project's relay helper (tests/helpers/
netns_relay.cc): `netns-relay NETNS PORT PORT` listens on 127.0.0.1:PORT inside the pod's
network namespace and relays each connection to 127.0.0.1:PORT in the host's.

Why a relay and not a route: the worker signs its presigned URLs for 127.0.0.1:PORT, and a
127.x address can never carry a pod's packet to the host — every network namespace's local
table claims all of 127.0.0.0/8 for its own `lo`. So that one host service is brought into the
pod's namespace instead. The pod's own network (a bridge with a gateway on the host,
scripts/k8s-peer.sh) is walled by the cluster's NetworkPolicies; the relay is inside the pod's
namespace, where no policy applies.

Its configuration, beside the standard keys:
  "relay":    the netns-relay binary
  "port":     the S3 server's port (the pod's listening port and the host's target port)
  "stateDir": where each pod's relay keeps `<container id>.json` (its pid and namespace) and
              `<container id>.log` (its output)

  ADD    starts the relay, detached: a session of its own, stdin from /dev/null, stdout and
         stderr to its log, no other descriptor — containerd reads this plugin's stdout to its
         end, so nothing that outlives the plugin may hold it. Waits for the relay's "ready"
         line, then prints the previous plugin's result unchanged.
  DEL    kills that relay (only while the pid is still a netns-relay); harmless when none runs.
  CHECK  succeeds.
  VERSION  the CNI versions this plugin speaks.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

SUPPORTED = ["0.3.0", "0.3.1", "0.4.0", "1.0.0"]
READY_TIMEOUT = 10.0


def fail(version, msg, code=100):
    # The CNI error format: a JSON object on stdout, a non-zero exit.
    json.dump({"cniVersion": version, "code": code, "msg": "batlehub-storage-relay: " + msg}, sys.stdout)
    sys.exit(1)


def is_relay(pid, relay):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return False
    return bool(argv) and os.path.basename(argv[0].decode(errors="replace")) == os.path.basename(relay)


def stop_relay(state, relay):
    try:
        with open(state + ".json", encoding="utf-8") as f:
            pid = int(json.load(f)["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        pid = None
    if pid and is_relay(pid, relay):
        os.kill(pid, signal.SIGKILL)
        for _ in range(50):
            if not is_relay(pid, relay):
                break
            time.sleep(0.02)
    for suffix in (".json", ".log"):
        try:
            os.unlink(state + suffix)
        except FileNotFoundError:
            pass


def main():
    command = os.environ.get("CNI_COMMAND", "")
    raw = sys.stdin.read()
    if command == "VERSION":
        json.dump({"cniVersion": "1.0.0", "supportedVersions": SUPPORTED}, sys.stdout)
        return
    try:
        conf = json.loads(raw)
    except ValueError as e:
        fail("0.4.0", f"the network configuration is not JSON: {e}", code=6)
    version = conf.get("cniVersion", "0.4.0")
    relay, port, state_dir = conf.get("relay"), conf.get("port"), conf.get("stateDir")
    if not (isinstance(relay, str) and isinstance(port, int) and isinstance(state_dir, str)):
        fail(version, "the configuration needs \"relay\" (a path), \"port\" (a number) and \"stateDir\" (a path)", code=7)
    cid = os.environ.get("CNI_CONTAINERID", "")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", cid):
        fail(version, f"CNI_CONTAINERID {cid!r} is not a container id", code=4)
    state = os.path.join(state_dir, cid)

    if command == "CHECK":
        return
    if command == "DEL":
        stop_relay(state, relay)
        return
    if command != "ADD":
        fail(version, f"CNI_COMMAND {command!r} is not ADD, DEL, CHECK or VERSION", code=4)

    prev = conf.get("prevResult")
    if prev is None:
        fail(version, "no prevResult: this plugin is chained after the bridge plugin")
    netns = os.environ.get("CNI_NETNS", "")
    if not netns:
        fail(version, "no CNI_NETNS")
    os.makedirs(state_dir, exist_ok=True)
    stop_relay(state, relay)  # a retried ADD for the same container
    with open(state + ".log", "wb") as log, open(os.devnull, "rb") as null:
        proc = subprocess.Popen([relay, netns, str(port), str(port)], stdin=null, stdout=log, stderr=log,
                                close_fds=True, start_new_session=True, cwd="/")
    with open(state + ".json", "w", encoding="utf-8") as f:
        json.dump({"pid": proc.pid, "netns": netns, "port": port}, f)
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        with open(state + ".log", "rb") as f:
            out = f.read()
        if b"ready\n" in out:
            break
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_relay(state, relay)
            why = "exited" if proc.returncode is not None else f"was not ready within {READY_TIMEOUT:.0f}s"
            fail(version, f"{relay} {why}: {out.decode(errors='replace').strip()}")
        time.sleep(0.01)
    result = dict(prev)
    result["cniVersion"] = version
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
