#!/usr/bin/env python3
"""The verdict bench: `batlehub scan`, with its default policy and the real scanners in their
rooms under bwrap, over the evaluation corpus (benign.tsv, malicious.tsv), one half of it at a
time (split.tsv, split.py).

In block mode (the default policy) an archive is protected against only when it is blocked:
denied or quarantined. A warned archive is served, with a warning. So the figures are, per
ecosystem:

  blocked benign   benign archives denied or quarantined: the false positives that matter
                   (target <= 1 % per ecosystem); warned benign is printed beside it, a cost
                   to the operator but not a refusal;
  detection        malicious archives blocked (target >= 95 %, family-weighted); warned
                   malware is served, so it is a miss, printed beside it.

A scan batlehub refused (no verdict at all: "error") is counted in n, as neither blocked nor
served, and said. Detection is printed raw and family-weighted: each malicious archive belongs
to a campaign (campaigns.py: malicious.tsv's family, or the PyPI word-pair sdists, recognised
by form, size and version grammar), and a campaign holding more than 10 % of an ecosystem's
malicious archives in the half is capped at 10 % of them. Then the confusion table (allowed /
warned / quarantined / denied / error), detection per campaign, the benign archives not
allowed by the class of rule that decided them, every scanner error, the rule behind every
blocked or warned benign archive and every miss, and the median time of a scan.

  bench/verdicts/bench.py --half tuning     # the half rules may be changed by looking at
  bench/verdicts/bench.py --half held-out   # the half whose figures are quoted
  bench/verdicts/bench.py --half held-out --why draw-4   # one set alone: held-out-4 (2026-12-06)
  bench/verdicts/bench.py --half held-out --json new.json --baseline old.json   # medians against an earlier --json
  bench/verdicts/bench.py --from-json new.json --families 20   # the tables again, without scanning

Nothing here touches the network: the corpus is fetched beforehand (fetch-benign.py,
fetch-malicious.py). Each archive is scanned by the real `batlehub scan`, named by the
manifest (--kind/--name/--version), so that the table measures the verdicts, not the guess
of a name. `--identify` leaves kind, name and version to batlehub (the file name and, when
it is ambiguous, the archive's own metadata, read inside the walls).

--why WHY keeps only the rows whose family's `why` in split.tsv is WHY (with --from-json too,
read against split.tsv as it is now): `draw-4` is the set drawn blind on 2026-12-06
(held-out-4), so it is scored alone and the same way as the sets before it.

--json writes every result with its manifest row, half, campaign, weight and archive size,
and the run's half, scanners and options; --from-json reads such a file and prints every
table from it (campaigns as recorded, weights computed again; --reclassify assigns the
campaigns anew with campaigns.campaign()).
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

import campaigns
import split as halves

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STATES = ["allowed", "warned", "quarantined", "denied"]
BLOCKED = ("quarantined", "denied")  # what block mode refuses to serve
JSON_FORMAT = "batlehub-verdicts-bench/2"
POLICY = ("batlehub scan's defaults (max_severity high, deny_install_hooks warn, scanner_error quarantine, "
          "mode block)")

BLOCKED_BENIGN_TARGET = 1.0  # per cent of benign archives blocked, per ecosystem, at most
DETECTION_TARGET = 95.0      # per cent of malicious archives blocked, family-weighted, at least

SIGNALS_BINARY = "src/signals/batlehub-signals"  # under --build
SIGNALS_DEST = "/usr/local/bin/batlehub-signals"  # in the room, on the sandbox's PATH
BEHAVIOR_BINARY = "src/behavior/batlehub-behavior"  # under --build
BEHAVIOR_DEST = "/usr/local/bin/batlehub-behavior"


def build_rooms(build, agent, rooms, only=None):
    """Builds a room per scanner the machine has: yara always, guarddog when its venv is
    installed, signals when its room definition (rooms/signals.toml) and its binary (built
    under --build) both exist. A room definition names host paths only, so the signals
    binary is handed to build-room.py as --binary, as the agent is as --agent."""
    scanners = ["yara"]
    if os.path.exists("/opt/batlehub/guarddog/bin/guarddog"):
        scanners.insert(0, "guarddog")
    extra = {}
    signals = os.path.join(build, SIGNALS_BINARY)
    if os.path.exists(os.path.join(ROOT, "rooms", "signals.toml")) and os.path.isfile(signals):
        scanners.append("signals")
        extra["signals"] = ["--binary", f"{signals}:{SIGNALS_DEST}"]
    # The detonation (issue 47) runs only when named: it runs every archive's own code (behind
    # the walls) and takes seconds where the others take a fraction of one.
    behavior = os.path.join(build, BEHAVIOR_BINARY)
    if only and "behavior" in only and os.path.exists(os.path.join(ROOT, "rooms", "behavior.toml")) and \
            os.path.isfile(behavior):
        scanners.append("behavior")
        extra["behavior"] = ["--binary", f"{behavior}:{BEHAVIOR_DEST}"]
    if only:
        missing = sorted(set(only) - set(scanners))
        if missing:
            raise SystemExit(f"bench: --scanners names {', '.join(missing)}, which this machine or build lacks")
        scanners = [s for s in scanners if s in only]
    for s in scanners:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/build-room.py"), "--definition",
                        os.path.join(ROOT, "rooms", s + ".toml"), *extra.get(s, []), "--agent", agent,
                        "--out", os.path.join(rooms, s)],
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
            elif s == "signals":
                f.write("[scanners.signals]\ntype = \"signals\"\ncommand = \"batlehub-signals\"\n")
            elif s == "behavior":
                # Shorter phases than the shipped 120 s and 20 s: a sample that waits on a
                # connection forever costs a bench a minute, not two.
                f.write("[scanners.behavior]\ntype = \"behavior\"\ninstall_timeout_secs = 60\nimport_timeout_secs = 15\n")
            else:
                f.write("[scanners.guarddog]\ntype = \"guarddog\"\ncommand = \"guarddog\"\n")


def scan(batlehub, config, row, path, identify):
    argv = [batlehub, "scan", "--config", config, "--format", "json"]
    if not identify:
        argv += ["--kind", row["ecosystem"], "--name", row["name"], "--version", row["version"]]
    argv.append(path)
    start = time.monotonic()
    try:
        r = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:  # batlehub could not be started (a build relinking it): this row's error, not the run's end
        return {"state": "error", "exit": None, "seconds": time.monotonic() - start, "why": [f"cannot run {batlehub}: {e}"]}
    seconds = time.monotonic() - start
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = None
    if isinstance(out, dict) and isinstance(out.get("error"), dict):
        # A refusal is reported on stdout as {"error": {"message": ...}}: keep its words, not
        # the last log line of stderr.
        return {"state": "error", "exit": r.returncode, "seconds": seconds,
                "why": str(out["error"].get("message", "")).splitlines()[:1]}
    try:
        report = out[0]
    except (TypeError, IndexError, KeyError):
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


PROVENANCE = {"PROVENANCE_MISSING", "PROVENANCE_INVALID", "PROVENANCE_UNVERIFIABLE", "PROVENANCE_REMOVED",
              "SIGNATURE_MISSING"}


def effect(f):
    """The state one finding moves a verdict to under the default policy (src/core/verdict.h:
    evaluate), or None: a scanner error quarantines; an install hook warns, whatever its
    severity (deny_install_hooks = warn); a provenance finding counts for nothing (provenance
    not required); anything else denies at high or critical and does nothing below."""
    code = f["code"]
    if code in ("SCANNER_ERROR", "SCANNER_UNSUPPORTED", "SCAN_PENDING", "MIN_AGE_NOT_MET", "TIMESTAMP_MISSING"):
        return "quarantined"
    if code in ("BLOCK_LIST", "SOC_VERDICT"):
        return "denied"
    if code == "INSTALL_HOOK":
        return "warned"
    if code == "ADMIN_OVERRIDE" or code in PROVENANCE:
        return None
    return "denied" if f["severity"] in ("high", "critical") else None


def label(f):
    return f"{f['scanner']}:{f.get('reference') or f['code']}"


def deciding(findings, state=None):
    """The findings that decided `state` (those whose effect is that state), or with no
    state every finding that can move a default-policy verdict off allowed."""
    return [f for f in findings if (effect(f) == state if state else effect(f) is not None)]


def reason_class(f):
    """The class a deciding finding is counted under: install hook (INSTALL_HOOK), scanner
    error, or SCANNER:RULE (the finding's reference, else its code)."""
    if f["code"] == "INSTALL_HOOK":
        return "install hook (INSTALL_HOOK)"
    if f["code"] in ("SCANNER_ERROR", "SCANNER_UNSUPPORTED"):
        return "scanner error"
    return label(f)


def reasons(res):
    """The classes of the findings that decided a result that is not allowed."""
    if res["state"] == "error":
        return ["scan refused (error)"]
    classes = sorted({reason_class(f) for f in deciding(res.get("findings", []), res["state"])})
    return classes or ["no finding explains it"]


def strongest(findings, n=3):
    """What a miss carried, strongest first: the rules that fell short of deciding."""
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
    fs = sorted(findings, key=lambda f: order.get(f["severity"], 5))
    return [f"{label(f)} ({f['severity']})" for f in fs[:n]]


# The behavior scanner's findings (src/adapters/scanners/behavior.cc) by what they saw: its
# rule names the kind, its summary starts with the phase ("at install, …").
BEHAVIOR_KINDS = (
    ("network", ("behavior-network-at-",)),
    ("sent identity or a canary", ("behavior-identity-sent", "behavior-canary-sent")),
    ("read a decoy credential", ("behavior-token-store-read", "behavior-credential-file-read")),
    ("started a shell, downloader or dropper", ("behavior-interactive-shell", "behavior-downloader-started",
                                               "behavior-shell-", "behavior-downloaded-program-run",
                                               "behavior-written-program-run")),
    ("wrote persistence", ("behavior-persistence-written",)),
    ("left processes running", ("behavior-left-running",)),
)


def behavior_seen(findings):
    """{(phase, kind)} of what the detonation saw in one archive."""
    seen = set()
    for f in findings:
        ref = f.get("reference") or ""
        if f.get("scanner") != "behavior" or not ref.startswith("behavior-"):
            continue
        phase = (f.get("summary") or "").removeprefix("at ").split(",", 1)[0] or "?"
        for kind, prefixes in BEHAVIOR_KINDS:
            if ref.startswith(prefixes):
                seen.add((phase, kind))
    return seen


def print_behavior_observed(run, records):
    """Of the malicious archives, the share whose behavior the detonation observed, by phase and
    kind (issue 47); printed only when the behavior scanner ran."""
    rows = [r for r in records if r["truth"] == "malicious"]
    if "behavior" not in (run.get("scanners") or []) and \
            not any(f.get("scanner") == "behavior" for r in records for f in r["result"].get("findings", [])):
        return
    for eco in sorted({r["ecosystem"] for r in rows}):
        rs = [r for r in rows if r["ecosystem"] == eco]
        seen = [behavior_seen(r["result"].get("findings", [])) for r in rs]
        phases = sorted({p for s in seen for p, _ in s}, key=lambda p: ("install", "import", "execute").index(p)
                        if p in ("install", "import", "execute") else 9)
        any_seen = sum(1 for s in seen if s)
        print(f"\nbehavior observed, {eco} malware: {any_seen} of {len(rs)} archives "
              f"({pct(any_seen, len(rs)):.1f} %) did something the detonation saw; by phase and kind "
              "(archives, an archive counted in each cell it shows in):")
        print(f"  {'kind':40} " + " ".join(f"{p:>9}" for p in phases) + f" {'any phase':>10}")
        for kind, _ in BEHAVIOR_KINDS:
            cells = [sum(1 for s in seen if (p, kind) in s) for p in phases]
            total = sum(1 for s in seen if any(k == kind for _, k in s))
            print(f"  {kind:40} " + " ".join(f"{c:>9}" for c in cells) + f" {total:>10}")


def outcome(state):
    """blocked / warned / allowed / error: what the operator's user gets."""
    return "blocked" if state in BLOCKED else state


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def read_json(path):
    """An earlier --json: (run, records). The first format was a bare list of records,
    without campaign, weight or size, and without the run's options."""
    with open(path) as f:
        data = json.load(f)
    if isinstance(data, list):
        return {}, data
    return data, data["results"]


# ---------------------------------------------------------------- the tables

def print_tables(run, records, families=None):
    """Every table, from the records alone (a scan just done, or --from-json)."""
    by_group = collections.defaultdict(list)
    for r in records:
        by_group[(r["ecosystem"], r["truth"])].append(r)
    ecosystems = sorted({r["ecosystem"] for r in records})
    camp = campaigns.weigh(records)

    half = run.get("half") or ", ".join(sorted({str(r.get("half")) for r in records}))
    if run.get("why"):
        half += f" (why {run['why']} only)"
    print(f"half: {half}; scanners: {', '.join(run.get('scanners') or ['?'])}; policy: {POLICY}")
    print("Block mode serves what it does not block: an archive is protected against only when it is blocked "
          "(denied or quarantined);\na warned archive is served, with a warning. error = batlehub scan refused the "
          "archive (no verdict): counted in n, as neither blocked nor served.")

    cols = STATES + ["error"]
    print(f"\n{'ecosystem':10} {'truth':10} {'n':>5} " + " ".join(f"{s:>11}" for s in cols) + f" | {'blocked':>8}")
    for eco in ecosystems:
        for truth in ("benign", "malicious"):
            rs = by_group.get((eco, truth), [])
            if not rs:
                continue
            c = collections.Counter(r["result"]["state"] for r in rs)
            print(f"{eco:10} {truth:10} {len(rs):>5} " + " ".join(f"{c[s]:>11}" for s in cols)
                  + f" | {c['quarantined'] + c['denied']:>8}")

    print(f"\nblocked benign (the false positives that matter; target <= {BLOCKED_BENIGN_TARGET:g} % per ecosystem), "
          "and warned benign (served with a warning: a cost to the operator):")
    if not any(r["truth"] == "benign" for r in records):
        print("  no benign archive in this half")
    for eco in ecosystems:
        rs = by_group.get((eco, "benign"), [])
        if not rs:
            continue
        c = collections.Counter(outcome(r["result"]["state"]) for r in rs)
        b = pct(c["blocked"], len(rs))
        print(f"  {eco:6} blocked {b:5.1f} % {'ok' if b <= BLOCKED_BENIGN_TARGET else 'MISS':4}  "
              f"{'(%d of %d)' % (c['blocked'], len(rs)):14} warned {pct(c['warned'], len(rs)):5.1f} % "
              f"{'(%d)' % c['warned']:6} refused scans {c['error']}")

    print(f"\ndetection = blocked malware (target >= {DETECTION_TARGET:g} %, family-weighted: a campaign over "
          f"{100 * campaigns.CAP:g} % of the set is capped at {100 * campaigns.CAP:g} % of it),\n"
          "and warned malware (served with a warning: a miss):")
    for eco in ecosystems:
        rs = by_group.get((eco, "malicious"), [])
        if not rs:
            print(f"  {eco:6} no malicious archive in this half")
            continue
        n = len(rs)
        c = collections.Counter(outcome(r["result"]["state"]) for r in rs)
        total = sum(r["weight"] for r in rs)
        weighted = pct(sum(r["weight"] for r in rs if outcome(r["result"]["state"]) == "blocked"), total)
        print(f"  {eco:6} raw {pct(c['blocked'], n):5.1f} % {'(%d of %d)' % (c['blocked'], n):14} family-weighted "
              f"{weighted:5.1f} % {'ok' if weighted >= DETECTION_TARGET else 'MISS':4}   warned "
              f"{pct(c['warned'], n):5.1f} % {'(%d)' % c['warned']:6} allowed {pct(c['allowed'], n):5.1f} % "
              f"{'(%d)' % c['allowed']:6} refused scans {c['error']}")
        for key, (k, w) in sorted(camp[eco].items(), key=lambda kv: (-kv[1][0], kv[0])):
            if w < 1.0:
                print(f"         capped: {key} {k} archives ({pct(k, n):.1f} % of {n}), counted as "
                      f"{k * w:.1f} ({100 * campaigns.CAP:.0f} % of the weighted set): weight {w:.3f} each")

    for eco in ecosystems:
        rs = by_group.get((eco, "malicious"), [])
        if not rs:
            continue
        per = collections.defaultdict(collections.Counter)
        for r in rs:
            per[r["campaign"]][outcome(r["result"]["state"])] += 1
        order = sorted(per, key=lambda k: (-camp[eco][k][0], k))
        shown = order if families is None else order[:families]
        width = max(30, *(len(k) for k in shown)) if shown else 30
        print(f"\nmalware by campaign, {eco}: {len(rs)} archives in {len(order)} campaigns, largest first "
              "(weight: of each archive, after the cap)")
        print(f"  {'campaign':{width}} {'archives':>8} {'weight':>7} {'blocked':>8} {'warned':>7} {'allowed':>8} "
              f"{'error':>6} {'detected':>9}")
        for k in shown:
            c, (size, w) = per[k], camp[eco][k]
            print(f"  {k:{width}} {size:>8} {w:>7.3f} {c['blocked']:>8} {c['warned']:>7} {c['allowed']:>8} "
                  f"{c['error']:>6} {pct(c['blocked'], size):>7.1f} %")
        if len(order) > len(shown):
            print(f"  … {len(order) - len(shown)} more (--families to show more)")

    classes = collections.defaultdict(collections.Counter)
    for r in records:
        if r["truth"] == "benign" and r["result"]["state"] != "allowed":
            for cl in reasons(r["result"]):
                classes[(r["ecosystem"], cl)][outcome(r["result"]["state"])] += 1
    if classes:
        width = max(35, *(len(k[1]) for k in classes))
        print("\nbenign archives not allowed, by the class of what decided them (an archive is counted under "
              "each class that decided it):")
        print(f"  {'ecosystem':10} {'class':{width}} {'warned':>7} {'blocked':>8} {'error':>6}")
        for key in sorted(classes, key=lambda k: (k[0], -sum(classes[k].values()), k[1])):
            c = classes[key]
            print(f"  {key[0]:10} {key[1]:{width}} {c['warned']:>7} {c['blocked']:>8} {c['error']:>6}")

    def where(r):
        return f"{r['ecosystem']:5} {r['name']}@{r['version']} ({r['file']})"

    blocked_b = [r for r in records if r["truth"] == "benign" and outcome(r["result"]["state"]) == "blocked"]
    warned_b = [r for r in records if r["truth"] == "benign" and r["result"]["state"] == "warned"]
    for title, rs in (("blocked benign", blocked_b), ("warned benign", warned_b)):
        if rs:
            print(f"\n{title} ({len(rs)}), and the findings that decided:")
            for r in rs:
                fs = deciding(r["result"].get("findings", []), r["result"]["state"])
                print(f"  {where(r)} {r['result']['state']}: {', '.join(sorted({label(f) for f in fs})) or '-'}")
    warned_m = [r for r in records if r["truth"] == "malicious" and r["result"]["state"] == "warned"]
    allowed_m = [r for r in records if r["truth"] == "malicious" and r["result"]["state"] == "allowed"]
    if warned_m:
        print(f"\nwarned malware ({len(warned_m)}): served, so missed; what warned, and the strongest findings:")
        for r in warned_m:
            fs = r["result"].get("findings", [])
            print(f"  {where(r)}, campaign {r['campaign']}: warned by "
                  f"{', '.join(sorted({label(f) for f in deciding(fs, 'warned')})) or '-'}; "
                  f"strongest {', '.join(strongest(fs))}")
    if allowed_m:
        print(f"\nallowed malware ({len(allowed_m)}): the strongest findings they carried:")
        for r in allowed_m:
            carried = strongest(r["result"].get("findings", []))
            print(f"  {where(r)}, campaign {r['campaign']}: {', '.join(carried) if carried else 'no finding at all'}")

    print_behavior_observed(run, records)

    errors = []
    for r in records:
        res = r["result"]
        if res["state"] == "error" or any(f["code"] == "SCANNER_ERROR" for f in res.get("findings", [])):
            errors.append(f"{r['ecosystem']} {r['name']}@{r['version']}: {res.get('why') or res.get('codes')}")

    times = collections.defaultdict(list)
    for r in records:
        if "seconds" in r["result"]:
            times[r["ecosystem"]].append(r["result"]["seconds"])
    everything = [t for v in times.values() for t in v]
    if everything:
        print("\nmedian time of a scan: " + ", ".join(
            f"{eco} {statistics.median(v):.2f} s" for eco, v in sorted(times.items())) +
              f"; all {statistics.median(everything):.2f} s over {len(everything)} archives, "
              f"{run.get('jobs', '?')} at once")
    if run.get("identify"):
        # Named by batlehub alone (file name, then the archive's metadata read in the sandbox):
        # how often it names the package as the manifest does.
        right, wrong, refused = collections.Counter(), [], []
        for r in records:
            res = r["result"]
            if res["state"] == "error":
                refused.append(f"{r['ecosystem']} {r['file']}: {' '.join(res.get('why') or [])}")
            elif same_identity(r, res.get("identified")):
                right[r["ecosystem"]] += 1
            else:
                wrong.append(f"{r['ecosystem']} {r['file']}: manifest {r['name']}@{r['version']}, "
                             f"batlehub {res.get('identified')}")
        total = collections.Counter(r["ecosystem"] for r in records)
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


def print_baseline(path, records):
    _, before_records = read_json(path)
    before = {(r["ecosystem"], r["file"]): r["result"]["seconds"] for r in before_records
              if "seconds" in r["result"]}
    pairs = [(before[(r["ecosystem"], r["file"])], r["result"]["seconds"]) for r in records
             if (r["ecosystem"], r["file"]) in before and "seconds" in r["result"]]
    if pairs:
        b = statistics.median(p[0] for p in pairs)
        a = statistics.median(p[1] for p in pairs)
        print(f"against {path}: median {b:.2f} s -> {a:.2f} s on the same {len(pairs)} archives, {a / b:.2f}x")


ORDER = {"allowed": 0, "warned": 1, "quarantined": 2, "denied": 3}


def merge_findings(run, records, other_run, other_records):
    """Each record judged on its findings and those `other_records` hold for the same archive
    (by truth and sha256): the state the default policy gives them all (effect()), the worst
    wins. An archive the other run did not scan (a kind it does not support) keeps its own; a
    scan refused in either stays refused."""
    by_key = {(o["truth"], o["sha256"]): o for o in other_records}
    for r in records:
        o = by_key.get((r["truth"], r["sha256"]))
        if o is None:
            continue
        mine, theirs = r["result"], o["result"]
        if "error" in (mine["state"], theirs["state"]):
            r["result"] = mine if mine["state"] == "error" else theirs
            continue
        findings = mine.get("findings", []) + theirs.get("findings", [])
        state = "allowed"
        for f in findings:
            e = effect(f)
            if e and ORDER[e] > ORDER[state]:
                state = e
        r["result"] = {**mine, "state": state, "findings": findings,
                       "seconds": mine["seconds"] + theirs["seconds"],
                       "codes": sorted(set(mine.get("codes", [])) | set(theirs.get("codes", [])))}
    return {**run, "scanners": sorted(set(run["scanners"]) | set(other_run["scanners"]))}


def corpus_path(corpus, truth, row):
    sub = "benign" if truth == "benign" else os.path.join("malicious", row["ecosystem"])
    return os.path.join(corpus, sub, row["file"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build/release"))
    ap.add_argument("--corpus", default="/var/cache/batlehub-corpus")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--half", choices=["tuning", "held-out", "all"], default="tuning")
    ap.add_argument("--identify", action="store_true")
    ap.add_argument("--scanners", help="comma-separated: scan with these only (default: every scanner the machine has)")
    ap.add_argument("--why", help="keep only the rows whose family's `why` in split.tsv is WHY (e.g. draw-4)")
    ap.add_argument("--only", help="scan only the rows whose file name matches this regular expression")
    ap.add_argument("--json", help="write every result here (with half, campaign, weight and size)")
    ap.add_argument("--baseline", help="an earlier --json: compare the median time of a scan on the same archives")
    ap.add_argument("--from-json", metavar="FILE",
                    help="scan nothing: print the tables of an earlier --json (its half, scanners and options; "
                         "--half, --only, --identify and --jobs are not read)")
    ap.add_argument("--reclassify", action="store_true",
                    help="with --from-json: assign every malicious archive's campaign anew (campaigns.campaign(), "
                         "reading the archive's size under --corpus, else the size recorded)")
    ap.add_argument("--with", dest="with_json", action="append", default=[], metavar="FILE",
                    help="with --from-json: add the findings an earlier --json recorded for the same archive "
                         "(another scanner's run: --scanners behavior) and judge each archive on them all")
    ap.add_argument("--families", type=int, metavar="N",
                    help="print only the N largest campaigns of each ecosystem's malware (default: all)")
    args = ap.parse_args()

    if args.from_json:
        run, records = read_json(args.from_json)
        for r in records:
            if r["truth"] == "malicious" and (args.reclassify or not r.get("campaign")):
                r["campaign"] = campaigns.campaign(r, corpus_path(args.corpus, r["truth"], r))
            r.setdefault("campaign", None)
        for other in args.with_json:
            run = merge_findings(run, records, *read_json(other))
        if args.why:
            split = halves.read_split()
            records = [r for r in records if halves.why_of(split, r["truth"], r) == args.why]
            run = {**run, "why": args.why}
    else:
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
            if args.why and halves.why_of(split, truth, r) != args.why:
                continue
            if args.only and not re.search(args.only, r["file"]):
                continue
            rows.append((truth, half, r, corpus_path(args.corpus, truth, r)))
        missing = [p for _, _, _, p in rows if not os.path.isfile(p)]
        if missing:
            print(f"bench: {len(missing)} archive(s) missing under {args.corpus} (fetch-benign.py, "
                  f"fetch-malicious.py), e.g. {missing[0]}", file=sys.stderr)
            return 1
        batlehub = os.path.join(args.build, "src/server/batlehub")
        agent = os.path.join(args.build, "src/agent/batlehub-sandbox")
        with tempfile.TemporaryDirectory(prefix="batlehub-verdicts-") as tmp:
            os.chmod(tmp, 0o755)
            rooms = os.path.join(tmp, "rooms")
            scanners = build_rooms(args.build, agent, rooms, args.scanners.split(",") if args.scanners else None)
            config = os.path.join(tmp, "config.toml")
            write_config(config, rooms, scanners)
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(lambda t: scan(batlehub, config, t[2], t[3], args.identify), rows))
        run = {"format": JSON_FORMAT, "half": args.half, "scanners": scanners, "policy": POLICY, "jobs": args.jobs,
               "identify": args.identify, "only": args.only, "why": args.why, "corpus": args.corpus, "cap": campaigns.CAP}
        records = []
        for (truth, half, r, path), res in zip(rows, results):
            records.append({"truth": truth, "half": half, **r, "size": os.path.getsize(path),
                            "campaign": campaigns.campaign(r, path) if truth == "malicious" else None,
                            "result": res})

    print_tables(run, records, args.families)  # also sets every record's weight
    if args.baseline:
        print_baseline(args.baseline, records)
    if args.json:
        run = {**run, "format": JSON_FORMAT, "results": records}
        with open(args.json, "w") as f:
            json.dump(run, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
