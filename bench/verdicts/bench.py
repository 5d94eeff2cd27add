#!/usr/bin/env python3
"""The verdict bench: `batlehub scan`, with its default policy and the real scanners in their
rooms under bwrap, over the evaluation corpus (benign.tsv, malicious.tsv). Prints, per
ecosystem, the confusion table (allowed / warned / quarantined / denied), the false-positive
rate (benign not allowed) and the detection rate (malicious not allowed), every scanner
error, and the rules that decided each false positive and each miss.

  bench/verdicts/bench.py --build build/release --corpus /var/cache/batlehub-corpus [--jobs 2]

Nothing here touches the network: the corpus is fetched beforehand (fetch-benign.py,
fetch-malicious.py). Each archive is scanned by the real `batlehub scan`, named by the
manifest (--kind/--name/--version), so that the table measures the verdicts, not the guess
of a name. `--identify` leaves kind, name and version to batlehub (the file name and, when
it is ambiguous, the archive's own metadata, read inside the walls).
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STATES = ["allowed", "warned", "quarantined", "denied"]


def read_manifest(name):
    with open(os.path.join(HERE, name), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


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
    r = subprocess.run(argv, capture_output=True, text=True)
    try:
        report = json.loads(r.stdout)[0]
    except (ValueError, IndexError, KeyError):
        return {"state": "error", "exit": r.returncode, "why": (r.stdout + r.stderr).strip().splitlines()[-1:]}
    return {"state": report["state"], "exit": r.returncode, "findings": report["findings"],
            "codes": report["reason_codes"],
            "identified": [report.get("kind"), report.get("name"), report.get("version")]}


def same_identity(row, got):
    """batlehub's kind, name and version against the manifest's: PyPI names compare by
    PEP 503 (case, and runs of -_. are one), everything else exactly."""
    if not got or got[0] != row["ecosystem"] or got[2] != row["version"]:
        return False
    if row["ecosystem"] == "pypi":
        norm = lambda s: re.sub(r"[-_.]+", "-", s or "").lower()
        return norm(got[1]) == norm(row["name"])
    return got[1] == row["name"]


def deciding(findings):
    """The findings that can move a default-policy verdict off allowed: high or critical, an
    install hook, or a scanner error."""
    out = []
    for f in findings:
        if f["severity"] in ("high", "critical") or f["code"] in ("INSTALL_HOOK", "SCANNER_ERROR", "SCANNER_UNSUPPORTED"):
            out.append(f"{f['scanner']}:{f.get('reference') or f['code']}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build/release"))
    ap.add_argument("--corpus", default="/var/cache/batlehub-corpus")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--identify", action="store_true")
    ap.add_argument("--json", help="write every result here")
    args = ap.parse_args()
    batlehub = os.path.join(args.build, "src/server/batlehub")
    agent = os.path.join(args.build, "src/agent/batlehub-sandbox")

    rows = [("benign", r, os.path.join(args.corpus, "benign", r["file"])) for r in read_manifest("benign.tsv")]
    rows += [("malicious", r, os.path.join(args.corpus, "malicious", r["ecosystem"], r["file"]))
             for r in read_manifest("malicious.tsv")]
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
    errors, fp_rules, misses = [], collections.Counter(), []
    for truth, row, res in results:
        table[(row["ecosystem"], truth)][res["state"]] += 1
        if res["state"] == "error" or any(f["code"] == "SCANNER_ERROR" for f in res.get("findings", [])):
            errors.append(f"{row['ecosystem']} {row['name']}@{row['version']}: {res.get('why') or res.get('codes')}")
        if truth == "benign" and res["state"] != "allowed":
            for rule in sorted(set(deciding(res.get("findings", [])))):
                fp_rules[(row["ecosystem"], rule)] += 1
        if truth == "malicious" and res["state"] == "allowed":
            misses.append(f"{row['ecosystem']} {row['name']}@{row['version']} ({row['file']})")

    print(f"scanners: {', '.join(scanners)}; policy: batlehub scan's defaults (max_severity high, "
          f"deny_install_hooks warn, scanner_error quarantine, mode block)")
    print(f"{'ecosystem':10} {'truth':10} " + " ".join(f"{s:>11}" for s in STATES) + f" {'error':>6} {'rate':>22}")
    ok = True
    for eco in sorted({r["ecosystem"] for _, r, _ in rows}):
        for truth in ("benign", "malicious"):
            c = table[(eco, truth)]
            n = sum(c.values())
            if n == 0:
                continue
            not_allowed = n - c["allowed"]
            rate = (f"FP {100 * not_allowed / n:5.1f} %" if truth == "benign" else f"detected {100 * not_allowed / n:5.1f} %")
            print(f"{eco:10} {truth:10} " + " ".join(f"{c[s]:>11}" for s in STATES) + f" {c['error']:>6} {rate:>22}"
                  f"  (n={n})")
    if fp_rules:
        print("\nrules behind the false positives (benign archives not allowed), by ecosystem:")
        for (eco, rule), n in fp_rules.most_common():
            print(f"  {eco:5} {n:4}  {rule}")
    if misses:
        print(f"\nmalicious archives allowed ({len(misses)}):")
        for m in misses:
            print("  " + m)
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
            json.dump([{"truth": t, **r, "result": res} for t, r, res in results], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
