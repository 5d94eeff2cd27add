#!/usr/bin/env python3
"""What each rule did on archives already scanned: the per-rule table of docs/verdicts.md,
counted from bench.py --json files instead of by hand.

For every rule (GuardDog's, YARA's, batlehub-signals'), over the archives of the files given
(an archive scanned in two files counts once, from the last file that has it):

  hit        archives with at least one finding of the rule, at any severity
  blocking   archives where a finding of the rule was high or critical (what blocks under the
             default policy: max_severity high)
  alone      archives that were denied and whose every high or critical finding is this
             rule's: the archives this rule alone decided

each for benign and for malicious archives, so a rule whose benign `alone` is not zero blocks
a package on its own, and one whose malicious `alone` is zero decides no sample by itself.

--by-place splits each rule by where its findings were: `install` (a setup.py at the archive's
or the sdist's top, a .pth file, an npm package.json: what an install runs, where the adapters
raise a medium to high) or `elsewhere`; an archive with findings in both places counts in both.
So a row `install` whose malicious `alone` is zero is a rule whose raise at install decides no
sample, and whose benign `alone` counts the packages the raise blocks.

Nothing is scanned here; the counts are only as good as the runs they come from (each file
records the rules it was run with: `--json` keeps the run's options, not the commit).

    bench/verdicts/rules.py held-out-6.json held-out-5-read.json [--scanner guarddog] [--min-hits 1]
    bench/verdicts/rules.py tuning.json --scanner guarddog --by-place
"""
import argparse
import collections
import json
import sys

BLOCKING = {"high", "critical"}


def load(paths):
    """The results by archive (its sha256), the last file's winning."""
    by_archive = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        for r in run.get("results", []):
            key = r.get("sha256") or r.get("file")
            by_archive[key] = r
    return list(by_archive.values())


def place(location):
    """`install` for what an install runs (see --by-place), `elsewhere` for the rest."""
    parts = [p for p in (location or "").rsplit(":", 1)[0].split("/") if p]
    if not parts:
        return "elsewhere"
    name = parts[-1]
    if (name == "setup.py" and len(parts) <= 2) or name.endswith(".pth") or (name == "package.json" and len(parts) <= 2):
        return "install"
    return "elsewhere"


def key(f, by_place):
    k = (f.get("scanner"), f["reference"])
    if by_place:
        raw = f.get("raw")
        k += (place(raw.get("location") if isinstance(raw, dict) else None),)
    return k


def count(results, scanner=None, by_place=False):
    table = collections.defaultdict(lambda: collections.Counter())
    totals = collections.Counter()
    for r in results:
        truth = r["truth"]
        totals[truth] += 1
        res = r.get("result") or {}
        findings = [f for f in res.get("findings") or [] if f.get("reference")]
        if scanner:
            findings = [f for f in findings if f.get("scanner") == scanner]
        rules = {key(f, by_place) for f in findings}
        blocking = {key(f, by_place) for f in findings if f.get("severity") in BLOCKING}
        every_blocking = {key(f, by_place) for f in (res.get("findings") or [])
                          if f.get("severity") in BLOCKING and f.get("reference")}
        for rule in rules:
            table[rule][truth + " hit"] += 1
        for rule in blocking:
            table[rule][truth + " blocking"] += 1
        if res.get("state") == "denied" and len(every_blocking) == 1:
            (rule,) = every_blocking
            if not scanner or rule[0] == scanner:
                table[rule][truth + " alone"] += 1
    return table, totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", help="bench.py --json files")
    ap.add_argument("--scanner", help="only this scanner's rules (guarddog, yara, signals)")
    ap.add_argument("--min-hits", type=int, default=1, help="leave out rules that hit fewer archives")
    ap.add_argument("--by-place", action="store_true", help="each rule at install and elsewhere apart")
    args = ap.parse_args()
    results = load(args.json)
    table, totals = count(results, args.scanner, args.by_place)
    print(f"{len(results)} archives: {totals['benign']} benign, {totals['malicious']} malicious "
          f"(from {len(args.json)} file(s))")
    where = "| place " if args.by_place else ""
    print(f"| rule {where}| benign hit / blocking / alone | malicious hit / blocking / alone |")
    print("|---|---|---|" + ("---|" if args.by_place else ""))
    rows = sorted(table.items(), key=lambda kv: (-kv[1]["benign alone"], -kv[1]["benign blocking"],
                                                 kv[0][0] or "", kv[0][1]))
    for (scanner, rule, *at), c in rows:
        if c["benign hit"] + c["malicious hit"] < args.min_hits:
            continue
        where = f" | {at[0]}" if at else ""
        print(f"| {scanner}:`{rule}`{where} | {c['benign hit']} / {c['benign blocking']} / {c['benign alone']} "
              f"| {c['malicious hit']} / {c['malicious blocking']} / {c['malicious alone']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
