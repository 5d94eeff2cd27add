#!/usr/bin/env python3
"""Says what a ctest run skipped, and why; fails when a wall test was skipped where the
walls are.

ctest prints "100% tests passed" whatever it skipped. This reads the JUnit file ctest
wrote (--output-junit), prints the number of tests run and skipped, each distinct skip
reason with how many tests gave it, and — with --walls-here (the machine runs bwrap and
the build's agent is static: the release build on a host whose user namespaces work) —
fails when any test of a suite that exercises the walls was skipped: a sandbox that is
not tested where it could be is a defect, not a skip.

    scripts/ctest-skips.py JUNIT.xml [--walls-here]
"""
import collections
import re
import sys
import xml.etree.ElementTree as ET

# The suites that run the real walls and their real peers: bwrap, the run's cgroup, the
# probe, the escapes, the CLI behind them, the real scanners in their rooms, the engines, and
# the S3 server the storage transport goes through, the cluster the kubernetes runtime
# runs pods on, and the SARIF validator judging real scans.
WALL_SUITES = re.compile(
    r"^(?:storage\.|k8s\.)?(?:\w+/)?(AgentInBwrap|BwrapRuntimeTest|BwrapCgroupTest|RunCgroupOnThisMachine|Escape|ProbeCli|"
    r"ScanCli|GuardDogReal|TrivyReal|YaraReal|SignalsReal|BehaviorReal|BehaviorInImages|BehaviorInPods|ScannersInImages|WorkerCli|WorkerCliSqlite|WorkerSoak|worker_tree|IdentifyRun|"
    r"OciRuntimeTest|OciStorageTest|S3BackendTest|S3BundleTest|S3TlsTest|SubmitToStorage|KubernetesRuntimeTest|"
    r"ScannersInPods|SarifValidator|WorkerCliDocker|soak)\.")


def skip_reason(out):
    # GTEST_SKIP() prints "<file>:<line>: Skipped" and then its message.
    lines = (out or "").splitlines()
    for i, line in enumerate(lines):
        # A script test (exit 77) says "skip: <reason>" on a line of its own.
        if line.startswith("skip: "):
            return line[len("skip: "):].strip()
        if line.endswith(": Skipped"):
            reason = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return reason or "(no reason given)"
    return "(no reason given)"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    walls_here = "--walls-here" in sys.argv[1:]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = ET.parse(args[0]).getroot()
    cases = root.iter("testcase")
    total = 0
    skipped = collections.defaultdict(list)
    for case in cases:
        total += 1
        if case.find("skipped") is None and case.get("status") != "notrun":
            continue
        out = case.findtext("system-out")
        skipped[skip_reason(out)].append(case.get("name", "?"))
    count = sum(len(v) for v in skipped.values())
    print(f"ctest: {total} tests, {count} skipped")
    for reason, names in sorted(skipped.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(names):4d} skipped: {reason}")
    if walls_here:
        walls = sorted(n for names in skipped.values() for n in names if WALL_SUITES.match(n))
        if walls:
            print(f"ctest-skips: {len(walls)} wall test(s) skipped on a machine that has the walls:", file=sys.stderr)
            for n in walls:
                print(f"  {n}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
