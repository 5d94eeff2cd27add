#!/usr/bin/env python3
"""The corpus's two halves: `tuning`, the archives rules and weights may be changed by looking
at, and `held-out`, the archives whose figures are quoted (README.md, docs/verdicts.md).

The unit is the package family, never the archive: every archive of a family sits in one
half, so that a rule fitted to one version of a campaign is not scored on its sibling.

  benign     the package's name, PEP 503-normalised for PyPI, lowercased otherwise (a
             Maven groupId:artifactId, an npm @scope/name as it is)
  malicious  malicious.tsv's `family` column (draw-malicious.py says how it is formed)

split.tsv records the halves (ecosystem, truth, family, half, why) and only grows:

  1. Every family of the corpus as it stood when the rules were last tuned on all of it
     (commit 9d86473: 144 benign and 76 malicious archives) is `tuning`, why `tuned-on`:
     those rules were written looking at them, so they cannot be held out.
  2. Every other family is drawn once, with random.Random(f"{SEED}:{ecosystem}:{truth}")
     shuffling the sorted new families of each (ecosystem, truth) group: the first ones go to held-out
     until held-out holds half of the group's families (rounded up), the rest to tuning;
     why `draw`.
  3. A family already in split.tsv keeps its half. Rows added later are drawn the same
     way; `--check` fails when a manifest row has no family in split.tsv.
  4. A held-out half that was looked into (its false positives and misses read, and rules
     changed after them) is spent: `--spend ECOSYSTEM:TRUTH --why WHY` moves every held-out
     family of that group to tuning for good, why WHY, before new families are drawn; the
     fresh held-out half is then drawn from families never scanned.

  5. `--why WHY` names what this run records: every row it writes (the families moved by
     --spend, the families drawn) gets why WHY instead of the default (`spent` for a spent
     family, `draw` for a drawn one). So a later set is told from the earlier draws
     (`--why draw-4`: held-out-4, 2026-12-06) and bench.py can score it alone
     (`bench.py --half held-out --why draw-4`). Spend before the manifests grow, or the new
     families drawn in that run carry the spend's WHY.

  bench/verdicts/split.py            # add the new families to split.tsv (why `draw`)
  bench/verdicts/split.py --why draw-4   # the same, the new families recorded with why draw-4
  bench/verdicts/split.py --check    # exit 1 if a row of benign.tsv/malicious.tsv is not split
  bench/verdicts/split.py --spend pypi:benign --why held-out-1   # then draw
  bench/verdicts/split.py --spend npm:benign --of-why draw --why held-out-3-read   # one draw only
"""
import argparse
import collections
import csv
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = "batlehub-verdicts-issue-28"
TUNED_ON = "9d86473"  # the last commit whose rules were tuned on the whole corpus
COLUMNS = ["ecosystem", "truth", "family", "half", "why"]


def pep503(name):
    """A PyPI name as PEP 503 compares it: lowercase, runs of -_. as one "-". The one copy
    for the corpus scripts (bench.py, draw-malicious.py, make-benign-manifest.py)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def family(truth, row):
    if truth == "malicious":
        return row["family"]
    if row["ecosystem"] == "pypi":
        return pep503(row["name"])
    return row["name"].lower()


def manifest_rows(text):
    return list(csv.DictReader(text.splitlines(), delimiter="\t"))


def read(name):
    with open(os.path.join(HERE, name), newline="") as f:
        return manifest_rows(f.read())


def corpus():
    """[(truth, row)] of both manifests as they are now."""
    return [("benign", r) for r in read("benign.tsv")] + [("malicious", r) for r in read("malicious.tsv")]


def tuned_on_families():
    """The families of the corpus at TUNED_ON, read from git: every one of them was looked at."""
    out = set()
    for truth, name in (("benign", "benign.tsv"), ("malicious", "malicious.tsv")):
        text = subprocess.run(["git", "-C", HERE, "show", f"{TUNED_ON}:bench/verdicts/{name}"], check=True,
                              capture_output=True, text=True).stdout
        for r in manifest_rows(text):
            if truth == "malicious" and "family" not in r:
                # The manifest had no family column then: today's row of the same file has it.
                r = next((n for n in read("malicious.tsv") if n["file"] == r["file"]
                          and n["ecosystem"] == r["ecosystem"]), None)
                if r is None:
                    continue
            out.add((r["ecosystem"], truth, family(truth, r)))
    return out


def read_split():
    path = os.path.join(HERE, "split.tsv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {(r["ecosystem"], r["truth"], r["family"]): r for r in csv.DictReader(f, delimiter="\t")}


def write_split(split):
    with open(os.path.join(HERE, "split.tsv"), "w", newline="") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for key in sorted(split):
            r = split[key]
            f.write("\t".join(r[c] for c in COLUMNS) + "\n")


def half_of(split, truth, row):
    """The row's half, or None when its family was never split."""
    r = split.get((row["ecosystem"], truth, family(truth, row)))
    return r["half"] if r else None


def why_of(split, truth, row):
    """How the row's family got its half (split.tsv's `why`), or None when it was never split."""
    r = split.get((row["ecosystem"], truth, family(truth, row)))
    return r["why"] if r else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--spend", action="append", default=[], metavar="ECOSYSTEM:TRUTH")
    ap.add_argument("--why", help="the why of every row this run writes (default: `spent` for a family "
                    "moved by --spend, `draw` for a family drawn)")
    ap.add_argument("--of-why", metavar="WHY",
                    help="with --spend: spend only the held-out families whose why is WHY (one draw of the "
                    "group, leaving a later draw held out)")
    args = ap.parse_args()
    split = read_split()
    for group in args.spend:
        eco, _, truth = group.partition(":")
        for k, r in split.items():
            if k[0] == eco and k[1] == truth and r["half"] == "held-out" and (
                    args.of_why is None or r["why"] == args.of_why):
                r["half"], r["why"] = "tuning", args.why or "spent"
    rows = corpus()
    keys = {(r["ecosystem"], t, family(t, r)) for t, r in rows}
    missing = sorted(k for k in keys if k not in split)
    if args.check:
        for k in missing[:20]:
            print(f"split: {k[0]} {k[1]} family {k[2]!r} has no half (run bench/verdicts/split.py)", file=sys.stderr)
        return 1 if missing else 0

    tuned = tuned_on_families() if not split else set()
    for k in missing:
        if k in tuned:
            split[k] = dict(zip(COLUMNS, [*k, "tuning", "tuned-on"]))
    groups = collections.defaultdict(list)
    for k in keys:
        groups[k[:2]].append(k)
    for group in sorted(groups):
        fams = groups[group]
        new = sorted(k for k in fams if k not in split)
        random.Random(f"{SEED}:{group[0]}:{group[1]}").shuffle(new)
        want = (len(fams) + 1) // 2 - sum(1 for k in fams if k in split and split[k]["half"] == "held-out")
        for i, k in enumerate(new):
            split[k] = dict(zip(COLUMNS, [*k, "held-out" if i < want else "tuning", args.why or "draw"]))
    write_split(split)
    count = collections.Counter((k[0], k[1], split[k]["half"]) for k in keys)
    archives = collections.Counter((r["ecosystem"], t, half_of(split, t, r)) for t, r in rows)
    for eco, truth in sorted(groups):
        print(f"{eco:6} {truth:9} " + "  ".join(
            f"{h}: {count[(eco, truth, h)]} families, {archives[(eco, truth, h)]} archives"
            for h in ("tuning", "held-out")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
