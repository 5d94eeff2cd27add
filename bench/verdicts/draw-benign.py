#!/usr/bin/env python3
"""Draws a fresh benign set for a held-out half: npm and PyPI packages taken at random from
what an operator's mirror serves, whatever their purpose (held-out-8 was drawn this way by
hand; this is that draw written down, so that the next one is the same procedure).

  npm   the first 30,000 names of the machine's monthly download list (env/packages/npm.tsv,
        by downloads_a_month), not in the corpus (make-benign-manifest.py's lists), shuffled
        by random.Random(f"{SEED}:npm:{DRAW}"), walked in that order; a name is taken at the
        list's version when `npm view` shows it has no install hook (preinstall, install,
        postinstall: the install-hook set was held-out-7's).
  pypi  the 15,000 most downloaded (env/packages/pypi.tsv's rank), not in the corpus (PEP 503
        names), shuffled by random.Random(f"{SEED}:pypi:{DRAW}"); a name is taken at its
        newest release (PyPI's JSON API) when that release has an sdist of at most 25 MB,
        allows Python 3.11, and has no four-part numeric version (which reads as an IPv4
        address to scripts/check-addresses.py).

It prints the two lists in the form make-benign-manifest.py holds them; nothing is fetched
but metadata, nothing is written. make-benign-manifest.py then fetches each archive with the
ecosystem's client, and an entry its client cannot fetch is left out and named there.

    bench/verdicts/draw-benign.py --draw draw-9 [--seed 20261207] [--npm 110] [--pypi 80]
"""
import argparse
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from split import pep503  # noqa: E402  (the corpus scripts' one PEP 503)

PACKAGES = "/work/.library/env/packages"
NPM_FIRST = 30_000
PYPI_FIRST = 15_000
MAX_BYTES = 25_000_000
HOOKS = ("preinstall", "install", "postinstall")


def corpus_names():
    spec = importlib.util.spec_from_file_location("manifest", os.path.join(HERE, "make-benign-manifest.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    npm, pypi = set(), set()
    for k, v in vars(m).items():
        if re.fullmatch(r"NPM(_[A-Z]+)?", k):
            npm.update(n for n, *_ in v)
        elif re.fullmatch(r"PYPI(_[A-Z]+)?", k):
            pypi.update(pep503(n) for n, *_ in v)
    return npm, pypi


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            yield dict(zip(head, line.rstrip("\n").split("\t")))


def npm_draw(seed, draw, want, known):
    rows = [r for r in read_tsv(os.path.join(PACKAGES, "npm.tsv")) if r.get("downloads_a_month", "").isdigit()]
    rows.sort(key=lambda r: -int(r["downloads_a_month"]))
    names = sorted({(r["name"], r["version"]) for r in rows[:NPM_FIRST] if r["name"] not in known})
    random.Random(f"{seed}:npm:{draw}").shuffle(names)
    taken, skipped = [], []
    for name, version in names:
        if len(taken) >= want:
            break
        p = subprocess.run(["npm", "view", f"{name}@{version}", "scripts", "--json"], capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            skipped.append(f"{name}@{version}: npm view failed")
            continue
        scripts = json.loads(p.stdout) if p.stdout.strip() else {}
        hooks = [h for h in HOOKS if isinstance(scripts, dict) and h in scripts]
        if hooks:
            skipped.append(f"{name}@{version}: {', '.join(hooks)}")
            continue
        taken.append((name, version))
    return taken, skipped


def allows_311(spec):
    if not spec:
        return True
    try:
        from packaging.specifiers import SpecifierSet
        return SpecifierSet(spec).contains("3.11")
    except Exception:
        return False


def pypi_draw(seed, draw, want, known):
    rows = [r for r in read_tsv(os.path.join(PACKAGES, "pypi.tsv"))
            if r.get("rank_among_15000_most_downloaded", "").isdigit()
            and int(r["rank_among_15000_most_downloaded"]) <= PYPI_FIRST]
    names = sorted({pep503(r["name"]) for r in rows} - known)
    random.Random(f"{seed}:pypi:{draw}").shuffle(names)
    taken, skipped = [], []
    for name in names:
        if len(taken) >= want:
            break
        try:
            with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=60) as r:
                meta = json.load(r)
        except Exception as e:
            skipped.append(f"{name}: {e}")
            continue
        version = meta["info"]["version"]
        sdists = [u for u in meta.get("urls", []) if u.get("packagetype") == "sdist"]
        why = None
        if not sdists:
            why = "no sdist"
        elif sdists[0].get("size", 0) > MAX_BYTES:
            why = "sdist over 25 MB"
        elif not allows_311(meta["info"].get("requires_python")):
            why = f"requires-python {meta['info'].get('requires_python')}"
        elif re.fullmatch(r"\d+\.\d+\.\d+\.\d+", version):
            why = "a four-part version"
        if why:
            skipped.append(f"{name} {version}: {why}")
            continue
        taken.append((meta["info"]["name"], version))
    return taken, skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draw", required=True, help="the draw's name, in the seeds and in split.py's --why")
    ap.add_argument("--seed", default="20261207")
    ap.add_argument("--npm", type=int, default=110)
    ap.add_argument("--pypi", type=int, default=80)
    args = ap.parse_args()
    npm_known, pypi_known = corpus_names()
    npm, npm_skipped = npm_draw(args.seed, args.draw, args.npm, npm_known)
    pypi, pypi_skipped = pypi_draw(args.seed, args.draw, args.pypi, pypi_known)
    print(f"# npm: {len(npm)} taken; skipped: " + "; ".join(npm_skipped))
    print("NPM_DRAW = [")
    for n, v in npm:
        print(f"    ({n!r}, {v!r}),".replace("'", '"'))
    print("]")
    print(f"# pypi: {len(pypi)} taken; skipped: " + "; ".join(pypi_skipped))
    print("PYPI_DRAW = [")
    for n, v in pypi:
        print(f"    ({n!r}, {v!r}, \"sdist\"),".replace("'", '"'))
    print("]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
