"""Campaigns of the malicious half, and the weights that keep one mass campaign from making
the detection figure (bench.py; README.md, "Running the bench").

A campaign is the unit a detection figure should count once-ish: malicious.tsv's `family`
column (draw-malicious.py: the name, PEP 503-normalised, digits and hash suffixes stripped,
one-edit spellings clustered), except for one PyPI mass campaign that rule cannot collapse,
because every one of its names is different:

  the word-pair sdists  -- a few hundred sdists built from one template: a name made of
  two or three short words run together, often behind a prefix (`controlpong`, `tpguimask`,
  `esqpingvercraft`, `py-hydrapost`), a version of one number, a dot and one or two digits
  (`4.57`, `10.49`, `5.4`), and an archive of 4.2 to 4.5 kB (every one holds the same
  files: setup.py, setup.cfg, pyproject.toml, README.md, LICENSE.TXT, PKG-INFO and an
  egg-info directory).

It is recognised by form, size and version grammar, never by a list of names:

  * ecosystem pypi, stored as the sdist `NAME-VERSION.tar.gz` (the manifest's name and
    version, exactly);
  * version matching WORD_PAIR_VERSION, `^\\d+\\.\\d\\d?$`;
  * the archive's size on disk in WORD_PAIR_SIZE, 4,200 to 4,599 bytes.

On malicious.tsv and the corpus as of 2026-12-06 that puts 473 PyPI rows in it (256 of them
held out): 432 with two decimals and 41 with one (`5.4`, `10.3`: the same files, the same
sizes). Outside the size range, the nearest rows with a two-decimal version are 1.6 kB
and 8.6 kB, the nearest with one decimal are three `99.0` sdists of 4.7 kB (another
template: a dependency-confusion version); inside it, every other archive fails the version
grammar (`0.0.0`, `1.1.1`, `4.5.2`). Every row in the campaign has a `family` of its own.

Every campaign holding more than CAP (10 %) of an ecosystem's malicious archives in the set
being scored is capped at CAP of that set: each of its archives weighs CAP * n / size
instead of 1. The family-weighted detection is the weight of the blocked archives over the
weight of all of them.
"""
import collections
import os
import re

WORD_PAIR = "[word-pair sdists]"  # brackets: no package family can be spelled so
WORD_PAIR_VERSION = re.compile(r"^\d+\.\d\d?$")
WORD_PAIR_SIZE = (4200, 4599)  # bytes, both ends included
CAP = 0.10


def archive_size(row, path):
    """The archive's size on disk; re-scoring an earlier --json on a machine without the
    archive, the size recorded in it (None when neither is known)."""
    if path and os.path.isfile(path):
        return os.path.getsize(path)
    return row.get("size")


def is_word_pair(row, size):
    return (row["ecosystem"] == "pypi"
            and row["file"] == f"{row['name']}-{row['version']}.tar.gz"
            and WORD_PAIR_VERSION.match(row["version"]) is not None
            and size is not None and WORD_PAIR_SIZE[0] <= size <= WORD_PAIR_SIZE[1])


def campaign(row, path):
    """The campaign key of a malicious.tsv row whose archive is at `path`: WORD_PAIR for the
    word-pair sdists (module docstring), the row's `family` for everything else."""
    if is_word_pair(row, archive_size(row, path)):
        return WORD_PAIR
    return row["family"]


def weigh(records):
    """Sets record["weight"] on every malicious record (dicts with ecosystem, truth and
    campaign): 1, or W / size for an archive of a campaign capped so that its archives
    together weigh W = CAP of the ecosystem's weighted malicious set. Benign records get
    None. Returns {ecosystem: {campaign: (archives, weight of each)}}.

    The cap is on the share of the set the figure is computed over: with the rest weighing
    U and m campaigns capped, each capped campaign weighs W = CAP * U / (1 - m * CAP), so
    that W / (U + m * W) = CAP. A campaign is capped when its archives outnumber W; capping
    one lowers W, so the set of capped campaigns is found by adding the largest until it
    stops growing. A campaign of one archive is never capped, nor the last uncapped one."""
    sizes = collections.defaultdict(collections.Counter)
    for r in records:
        if r["truth"] == "malicious":
            sizes[r["ecosystem"]][r["campaign"]] += 1
    out = {}
    for eco, counts in sizes.items():
        order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        capped = 0
        # A single archive is no mass campaign, and at least one campaign stays uncapped: in a
        # set of a few singletons every one is over 10 %, and capping them all would weigh
        # the set at nothing (3 samples of 3 campaigns scored 0 %).
        while capped < len(order) - 1 and (capped + 1) * CAP < 1 and order[capped][1] > 1:
            rest = sum(k for _, k in order[capped + 1:])
            w = CAP * rest / (1 - (capped + 1) * CAP)
            if order[capped][1] <= w:
                break
            capped += 1
        rest = sum(k for _, k in order[capped:])
        w = CAP * rest / (1 - capped * CAP) if capped else None
        out[eco] = {c: (k, (w / k) if i < capped else 1.0) for i, (c, k) in enumerate(order)}
    for r in records:
        r["weight"] = out[r["ecosystem"]][r["campaign"]][1] if r["truth"] == "malicious" else None
    return out
