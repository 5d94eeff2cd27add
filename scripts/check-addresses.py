#!/usr/bin/env python3
"""Fails when a test, fixture, example, script, room or bench names a network address that
is not on this machine.

No test, bench or demo of this project may ever address a host outside this machine, not
even as a canary that "should" fail: the machines it runs on have a default route, so a SYN
to a public or private-range address leaves. Connect targets are loopback, or found at run
time (the host's own address from getifaddrs), or inside a network namespace the test made
itself — never written down. This guard keeps it so: every IPv4 or IPv6 literal in the files
below must be loopback (127.0.0.0/8, ::1) or unspecified (0.0.0.0, ::), or be listed in scripts/address-allowlist.txt
with the reason it is harmless (a string that a parsing test only parses, a fixture's
evidence text). A literal that is listed but no longer found fails too, so the list never
outlives its reasons.

    scripts/check-addresses.py [ROOT]
"""
import ipaddress
import os
import re
import sys

SCANNED = ["tests", "examples", "scripts", "bench", "rooms", "Makefile", "CMakeLists.txt"]
SKIP_DIRS = {"__pycache__", ".git"}
ALLOWLIST = "scripts/address-allowlist.txt"
MAX_FILE_BYTES = 4 * 1024 * 1024

# A dotted quad not inside a longer dotted run (so "1.2.3.4.5", a version, is not one).
IPV4 = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?![\w]|\.\d)")
# Hex groups and colons with at least two colons, not glued to an identifier on either side
# (so C++'s std::string or a::b::c never match), validated by ipaddress below.
IPV6 = re.compile(r"(?<![\w:.])((?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?)(?![\w:])")


def literals(line):
    for m in IPV4.finditer(line):
        try:
            yield m.group(1), ipaddress.IPv4Address(m.group(1))
        except ValueError:
            pass
    for m in IPV6.finditer(line):
        text = m.group(1)
        if not re.search(r"[0-9A-Fa-f]", text):
            continue  # "::" alone is C++ scope, not an address anyone dials
        try:
            yield text, ipaddress.IPv6Address(text)
        except ValueError:
            pass


def on_this_machine(addr):
    # The unspecified address (0.0.0.0, ::) is a bind address; dialled, it is this host.
    # (It is also what "0::/a/b", a cgroup v2 line of /proc/self/cgroup, looks like.)
    return addr.is_loopback or addr.is_unspecified


def load_allowlist(root):
    allowed = {}
    path = os.path.join(root, ALLOWLIST)
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or not parts[2].startswith("#") or len(parts[2].lstrip("# ").strip()) < 10:
                sys.exit(f"{ALLOWLIST}:{n}: each line is 'PATH LITERAL # reason' with a reason of its own")
            allowed[(parts[0], parts[1])] = n
    return allowed


def files(root):
    for top in SCANNED:
        p = os.path.join(root, top)
        if os.path.isfile(p):
            yield top
            continue
        for d, subdirs, names in os.walk(p):
            subdirs[:] = sorted(s for s in subdirs if s not in SKIP_DIRS)
            for name in sorted(names):
                yield os.path.relpath(os.path.join(d, name), root)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    allowed = load_allowlist(root)
    used = set()
    bad = []
    scanned = 0
    for rel in files(root):
        if rel == ALLOWLIST:
            continue
        full = os.path.join(root, rel)
        if os.path.getsize(full) > MAX_FILE_BYTES:
            bad.append(f"{rel}: larger than {MAX_FILE_BYTES} bytes, so it cannot be checked; keep fixtures small")
            continue
        with open(full, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue  # binary: an archive or a database fixture, whose bytes nobody dials
        scanned += 1
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            for text, addr in literals(line):
                if on_this_machine(addr):
                    continue
                if (rel, text) in allowed:
                    used.add((rel, text))
                    continue
                bad.append(f"{rel}:{n}: {text} is not an address on this machine (loopback only; "
                           "find the host's own address at run time, or list a literal that is only parsed "
                           f"in {ALLOWLIST} with the reason)")
    for key, n in sorted(allowed.items(), key=lambda kv: kv[1]):
        if key not in used:
            bad.append(f"{ALLOWLIST}:{n}: {key[1]} is no longer in {key[0]}; remove the line")
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        print(f"check-addresses: {len(bad)} problem(s) in {scanned} files", file=sys.stderr)
        return 1
    print(f"check-addresses: {scanned} files, every address literal is loopback or listed with its reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
