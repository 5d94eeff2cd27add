#!/usr/bin/env python3
"""The verdict bench: `batlehub scan`, with its default policy and the real scanners in their
rooms under bwrap, over the evaluation corpus (benign.tsv, malicious.tsv), one half of it at a
time (split.tsv, split.py). Prints, per ecosystem, the confusion table (allowed / warned /
quarantined / denied), the false-positive rate (benign not allowed) and the detection rate
(malicious not allowed) against the targets (false positives <= 2 %, detection >= 90 %),
every scanner error, the rule behind every false positive and every miss, and the median
time of a scan.

  bench/verdicts/bench.py --half tuning     # the half rules may be changed by looking at
  bench/verdicts/bench.py --half held-out   # the half whose figures are quoted
  bench/verdicts/bench.py --half held-out --baseline old.json   # medians against an earlier --json

Nothing here touches the network: the corpus is fetched beforehand (fetch-benign.py,
fetch-malicious.py). Each archive is scanned by the real `batlehub scan`, named by the
manifest (--kind/--name/--version), so that the table measures the verdicts, not the guess
of a name. `--identify` leaves kind, name and version to batlehub (the file name and, when
it is ambiguous, the archive's own metadata, read inside the walls).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import statistics
import tempfile
import time

import split as halves

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STATES = ["allowed", "warned", "quarantined", "denied"]


def build_rooms(agent, rooms):
    scanners = ["yara"]
    if os.path.exists("/opt/batlehub/guarddog/bin/guarddog"):
        scanners.insert(0, "guarddog")
    for s in scanners:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/build-room.py"), "--definition",
                        os.path.join(ROOT, "rooms", s + ".toml"), "--agent", agent, "--out", os.path.join(rooms, s)],
                       check=True, stdout=subprocess.DEVNULL)
    return scanners


def write_config(path, rooms, scanners):
    with open(path, "w") as f:
        f.write("[worker]\njob_timeout_secs = 300\n[worker.sandbox]\nrooms_dir = \"%s\"\n" % rooms)
        f.write("probe_canaries = [\"127.0.0.1:9\"]\n")
        f.write("[storage]\ntype = \"filesystem\"\npath = \"%s\"\n" % os.path.join(os.path.dirname(path), "cache"))
        for s in scanners:
            if s == "yara":
                f.write("[scanners.yara]\ntype = \"yara\"\ncommand = \"yara\"\nrules = \"%s\"\n"
                        % os.path.join(ROOT, "rooms/rules/batlehub-default.yar"))
            else:
                f.write("[scanners.guarddog]\ntype = \"guarddog\"\ncommand = \"guarddog\"\n")


def scan(batlehub, config, row, path, identify):
    argv = [batlehub, "scan", "--config", config, "--format", "json"]
    if not identify:
        argv += ["--kind", row["ecosystem"], "--name", row["name"], "--version", row["version"]]
    argv.append(path)
    start = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.monotonic() - start
    try:
        report = json.loads(r.stdout)[0]
    except (ValueError, IndexError, KeyError):
        return {"state": "error", "exit": r.returncode, "seconds": seconds,
                "why": (r.stdout + r.stderr).strip().splitlines()[-1:]}
    return {"state": report["state"], "exit": r.returncode, "findings": report["findings"], "seconds": seconds,
            "codes": report["reason_codes"],
            "identified": [report.get("kind"), report.get("name"), report.get("version")]}


def same_identity(row, got):
    """batlehub's kind, name and version against the manifest's: PyPI names compare by
    PEP 503 (case, and runs of -_. are one), everything else exactly."""
    if not got or got[0] != row["ecosystem"] or got[2] != row["version"]:
        return False
    if row["ecosystem"] == "pypi":
        return halves.pep503(got[1] or "") == halves.pep503(row["name"])
    return got[1] == row["name"]


def deciding(findings):
    """The findings that can move a default-policy verdict off allowed: high or critical, an
    install hook, or a scanner error."""
    out = []
    for f in findings:
        if f["severity"] in ("high", "critical") or f["code"] in ("INSTALL_HOOK", "SCANNER_ERROR", "SCANNER_UNSUPPORTED"):
            out.append(f"{f['scanner']}:{f.get('reference') or f['code']}")
    return out


def strongest(findings, n=3):
    """What a miss carried, strongest first: the rules that fell short of deciding."""
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
    fs = sorted(findings, key=lambda f: order.get(f["severity"], 5))
    return [f"{f['scanner']}:{f.get('reference') or f['code']} ({f['severity']})" for f in fs[:n]]


FP_TARGET = 2.0          # per cent of benign archives not allowed, per ecosystem
DETECTION_TARGET = 90.0  # per cent of malicious archives not allowed, per ecosystem


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build/release"))
    ap.add_argument("--corpus", default="/var/cache/batlehub-corpus")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--half", choices=["tuning", "held-out", "all"], default="tuning")
    ap.add_argument("--identify", action="store_true")
    ap.add_argument("--only", help="scan only the rows whose file name matches this regular expression")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--baseline", help="an earlier --json: compare the median time of a scan on the same archives")
    args = ap.parse_args()
    batlehub = os.path.join(args.build, "src/server/batlehub")
    agent = os.path.join(args.build, "src/agent/batlehub-sandbox")

    split = halves.read_split()
    unsplit = [(t, r) for t, r in halves.corpus() if halves.half_of(split, t, r) is None]
    if unsplit:
        t, r = unsplit[0]
        print(f"bench: {len(unsplit)} row(s) have no half in split.tsv (run split.py), e.g. {t} {r['file']}",
              file=sys.stderr)
        return 1
    rows = []
    for truth, r in halves.corpus():
        half = halves.half_of(split, truth, r)
        if args.half != "all" and half != args.half:
            continue
        if args.only and not re.search(args.only, r["file"]):
            continue
        sub = "benign" if truth == "benign" else os.path.join("malicious", r["ecosystem"])
        rows.append((truth, r, os.path.join(args.corpus, sub, r["file"])))
    missing = [p for _, _, p in rows if not os.path.isfile(p)]
    if missing:
        print(f"bench: {len(missing)} archive(s) missing under {args.corpus} (fetch-benign.py, fetch-malicious.py), "
              f"e.g. {missing[0]}", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="batlehub-verdicts-") as tmp:
        os.chmod(tmp, 0o755)
        rooms = os.path.join(tmp, "rooms")
        scanners = build_rooms(agent, rooms)
        config = os.path.join(tmp, "config.toml")
        write_config(config, rooms, scanners)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda t: (t[0], t[1], scan(batlehub, config, t[1], t[2], args.identify)), rows))

    table = collections.defaultdict(collections.Counter)
    errors, fps, misses = [], [], []
    for truth, row, res in results:
        table[(row["ecosystem"], truth)][res["state"]] += 1
        if res["state"] == "error" or any(f["code"] == "SCANNER_ERROR" for f in res.get("findings", [])):
            errors.append(f"{row['ecosystem']} {row['name']}@{row['version']}: {res.get('why') or res.get('codes')}")
        where = f"{row['ecosystem']:5} {row['name']}@{row['version']} ({row['file']})"
        if truth == "benign" and res["state"] != "allowed":
            fps.append(f"{where} {res['state']}: {', '.join(sorted(set(deciding(res.get('findings', []))))) or '-'}")
        if truth == "malicious" and res["state"] == "allowed":
            carried = strongest(res.get("findings", []))
            misses.append(f"{where}: {', '.join(carried) if carried else 'no finding at all'}")

    print(f"half: {args.half}; scanners: {', '.join(scanners)}; policy: batlehub scan's defaults (max_severity high, "
          f"deny_install_hooks warn, scanner_error quarantine, mode block)")
    print(f"{'ecosystem':10} {'truth':10} " + " ".join(f"{s:>11}" for s in STATES) + f" {'error':>6} {'rate':>22}")
    for eco in sorted({r["ecosystem"] for _, r, _ in rows}):
        for truth in ("benign", "malicious"):
            c = table[(eco, truth)]
            n = sum(c.values())
            if n == 0:
                continue
            pct = 100 * (n - c["allowed"]) / n
            if truth == "benign":
                rate = f"FP {pct:5.1f} % " + ("ok" if pct <= FP_TARGET else "MISS")
            else:
                rate = f"detected {pct:5.1f} % " + ("ok" if pct >= DETECTION_TARGET else "MISS")
            print(f"{eco:10} {truth:10} " + " ".join(f"{c[s]:>11}" for s in STATES) + f" {c['error']:>6} {rate:>22}"
                  f"  (n={n})")
    if fps:
        print(f"\nfalse positives ({len(fps)}): benign archives not allowed, and the findings that decided:")
        for line in fps:
            print("  " + line)
    if misses:
        print(f"\nmisses ({len(misses)}): malicious archives allowed, and the strongest findings they carried:")
        for line in misses:
            print("  " + line)

    times = collections.defaultdict(list)
    for truth, row, res in results:
        times[row["ecosystem"]].append(res["seconds"])
    everything = [res["seconds"] for _, _, res in results]
    if everything:
        print("\nmedian time of a scan: " + ", ".join(
            f"{eco} {statistics.median(v):.2f} s" for eco, v in sorted(times.items())) +
              f"; all {statistics.median(everything):.2f} s over {len(everything)} archives, {args.jobs} at once")
    if args.baseline:
        with open(args.baseline) as f:
            before = {(r["ecosystem"], r["file"]): r["result"]["seconds"] for r in json.load(f)
                      if "seconds" in r["result"]}
        pairs = [(before[(row["ecosystem"], row["file"])], res["seconds"]) for _, row, res in results
                 if (row["ecosystem"], row["file"]) in before]
        if pairs:
            b = statistics.median(p[0] for p in pairs)
            a = statistics.median(p[1] for p in pairs)
            print(f"against {args.baseline}: median {b:.2f} s -> {a:.2f} s on the same {len(pairs)} archives, "
                  f"{a / b:.2f}x")
    if args.identify:
        # Named by batlehub alone (file name, then the archive's metadata read in the sandbox):
        # how often it names the package as the manifest does.
        right, wrong, refused = collections.Counter(), [], []
        for truth, row, res in results:
            if res["state"] == "error":
                refused.append(f"{row['ecosystem']} {row['file']}: {' '.join(res.get('why') or [])}")
            elif same_identity(row, res.get("identified")):
                right[row["ecosystem"]] += 1
            else:
                wrong.append(f"{row['ecosystem']} {row['file']}: manifest {row['name']}@{row['version']}, "
                             f"batlehub {res.get('identified')}")
        total = collections.Counter(r["ecosystem"] for _, r, _ in results)
        print("\nidentification (no --kind/--name/--version): " +
              ", ".join(f"{eco} {right[eco]}/{total[eco]} as the manifest names it" for eco in sorted(total)))
        for line in wrong:
            print("  differs: " + line)
        for line in refused:
            print("  refused: " + line)
    if errors:
        print(f"\nscanner errors ({len(errors)}):")
        for e in errors:
            print("  " + e)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"truth": t, "half": halves.half_of(split, t, r), **r, "result": res} for t, r, res in results],
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
