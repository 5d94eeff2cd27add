#!/usr/bin/env python3
"""Fails when an operator doc names a configuration key, a probe check, a metric or a file
that the code does not have.

The docs (README.md, docs/*.md, docs/operations/*.md) are what an operator configures and
alerts from: a key the loader does not read is refused at start, a check that does not
exist never fails, a metric that is not exported is an alert that never fires. Nothing
ties the prose to the code but this guard. It takes the names from the code, and checks:

* keys, against what src/config/load.cc asks its Table accessors for, and what each sandbox
  runtime's registration (`<name>_registration()` in src/adapters/sandbox/*.cc) asks its
  TableReader for in [worker.sandbox.<name>]: `[table] key` or
  `[table] key = value` in one inline-code span, and each `key = value` line of a ```toml
  block under its nearest `[table]`/`[[table]]`. Only the worker's tables: worker.*,
  scanners.<name> (any name, `<name>` too), storage.*. A scanner's keys are its type's
  (read_scanner's `case`s; the network types' under `!runs_in_sandbox`), the type being
  the block's `type = "…"`, else the table's name, else any; a backend's likewise.
  [storage] and [[storage.backends]] share one key set, as read_storage reads both shapes.
  [server], [database], [registries] and the rest are not checked: load.cc reads them in
  part on purpose and names the rest as the proxy's, so `[server] tls` is not drift.
* checks, against src/wire/run_result.cc's kCheckNames: under a heading that says "probe"
  or in a table whose first column is `check`, a row whose first cell is only inline-code
  snake_case tokens; under a probe heading, a bullet led by **`name`.**; anywhere, a span
  followed by check, wall, assertion or a check's verb (proves, passes, fails, warns); and
  a span `name: …` (a failed assertion's line) when `name` has an underscore or the
  heading says probe. Single words elsewhere are other prefixes, not checks: the socket
  scanner's `socket: <type> (<category>)`, runsc's `gofer: …`, `batlehub: --roles …`.
* metrics: a `batlehub_…` name in inline code must be a string literal under src/, read
  without its `{labels}` and a histogram's _bucket/_sum/_count, and its labels ones that
  src/server/service/metrics.cc adds to that family (and `le` for a histogram). A CMake
  target or function (`batlehub_config`) or a rule of a tracked .yar file is no metric.
* paths: a span with a `/`, no space, ending in a known extension or naming a directory
  `a/b/`, `:LINE` and `#anchor` dropped, must exist from the repository root, src/, src/*/
  (architecture.md names `storage/router.cc` within its library), tests/ or the doc's
  directory. Only the repository's: its first directory must be one of those bases', so
  `pkg/__init__.py` (inside a scanned archive) and `../shared/reference/…` (the workplace
  beside the repository) are not checked; nor absolute paths (the host's), URLs, `./…` (a
  worker's working directory), placeholders (`<`, `>`, `*`, `{`, `$`, `…`, `...`, an
  ALL-CAPS first segment like `DIR/`) and one-segment directories (`spool/`, `test/`).

    scripts/check-docs.py [--list] [ROOT]      (--list: every name checked, and where)
"""
import bisect
import glob
import os
import re
import subprocess
import sys

DOCS = ["README.md", "docs/*.md", "docs/operations/*.md"]
LOAD_CC, READER_H, CONFIG_CC = "src/config/load.cc", "src/config/toml_reader.h", "src/config/config.cc"
RUN_RESULT_CC, METRICS_CC = "src/wire/run_result.cc", "src/server/service/metrics.cc"
SCAN_SERVICE_CC = "src/server/service/scan_service.cc"
# The Table accessors (config/toml_reader.h) that mark a key as read. A public method of
# Table that takes a key and is in neither set fails the run, until it is sorted here.
ACCESSORS = {"str", "required_str", "integer", "required_integer", "strings", "required_strings", "boolean",
             "string_map", "table", "choice", "required_choice", "known", "one_of"}
NOT_ACCESSORS = {"refuse", "key_path"}
# read_document dispatches on the top-level name, read_scanners on every sub-table, and
# read_storage reads [[storage.backends]] through an array: these roots are named here; what
# hangs below them (`t.table("oci")` then `read_oci(`) is found in load.cc.
ROOTS = {"worker": "read_worker", "scanners.*": "read_scanner", "storage": "read_storage",
         "storage.backends": "read_storage"}
CHECKED_TABLES = re.compile(r"^(worker|scanners|storage)(\.|$)")
EXTENSIONS = (".h", ".cc", ".py", ".sh", ".md", ".yaml", ".yml", ".toml", ".yar", ".txt", ".json", ".cmake")
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
NAMES = re.compile(r"\{(\w+)::(k\w+),\s*\"([^\"]+)\"\}")  # an entry of a Names<> table


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def functions(src):
    """Each top-level function of a .cc file: its name -> its body."""
    head = re.compile(r"^(?!namespace|using|constexpr|struct|class|//|#)[A-Za-z][^;{}]*?\b(\w+)\([^;{]*?\)\s*\{\s*$",
                      re.M | re.S)
    return {m.group(1): src[m.end():src.find("\n}\n", m.end())] for m in head.finditer(src)}


def keys_in(text, accessors=ACCESSORS):
    return set(re.findall(r"\.(?:%s)\(\s*\"([^\"]+)\"" % "|".join(sorted(accessors)), text))


class Schema:
    """The keys of one TOML table: `common` to every type, `typed` per type; `any` for a map."""

    def __init__(self, any_key=False):
        self.common, self.typed, self.any = set(), {}, any_key

    def allows(self, key, type_):
        typed = [self.typed[type_]] if type_ in self.typed else self.typed.values()
        return self.any or key in self.common or any(key in keys for keys in typed)


def read_function(schemas, path, name, funcs, enum_names, network):
    schema, body = schemas.setdefault(path, Schema()), funcs[name]
    # A `switch` on the type: each `case`'s keys are that type's (labels that fall through
    # share them). The keys under `if (!runs_in_sandbox(…))` are the network types'.
    sw = re.search(r"switch \([^)]*\) \{", body)
    if sw:
        depth, end = 1, sw.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(body[end], 0)
            end += 1
        labels = []
        for seg in re.split(r"(case \w+::k\w+:)", body[sw.end():end]):
            label = re.match(r"case (\w+)::(k\w+):", seg)
            if label:
                labels.append(enum_names[label.groups()])
            elif seg.strip():
                for t in labels:
                    schema.typed.setdefault(t, set()).update(keys_in(seg))
                labels = []
        body = body[:sw.start()] + body[end:]
    net = re.search(r"if \(!runs_in_sandbox\([^)]*\)\) \{(.*?)\n  \}", body, re.S)
    if net:
        for t in network:
            schema.typed.setdefault(t, set()).update(keys_in(net.group(1)))
        body = body[:net.start()] + body[net.end():]
    schema.common |= keys_in(body)
    for sub in keys_in(body, {"string_map"}):  # a map may be a [header] table of any keys
        schemas[f"{path}.{sub}"] = Schema(any_key=True)
    # `t.table("sub")`, then `read_foo(` in its block: foo reads [path.sub]. Any other
    # read_foo(t, …) reads this same table (read_backend_keys, read_backend_type).
    tables = [(m.end(), m.group(1)) for m in re.finditer(r"\.table\(\"(\w+)\"\)", funcs[name])]
    for m in re.finditer(r"\b(read_\w+)\(", funcs[name]):
        if m.group(1) in funcs and m.group(1) != name:
            sub = [t for at, t in tables if at < m.start() and "}" not in funcs[name][at:m.start()]]
            child = f"{path}.{sub[-1]}" if sub else path
            read_function(schemas, child, m.group(1), funcs, enum_names, network)


def load_schemas(root, problems):
    config = read(root, CONFIG_CC)
    enum_names = {(e, k): s for e, k, s in NAMES.findall(config)}
    runs = re.search(r"bool runs_in_sandbox\(.*?return true;(.*?)return false;", config, re.S).group(1)
    network = [enum_names["ScannerType", k] for k in re.findall(r"ScannerType::(k\w+)", runs)]
    reader = read(root, READER_H)
    table_class = reader[reader.index("class Table"):reader.index(" private:", reader.index("class Table"))]
    for acc in sorted(set(re.findall(r"\b(\w+)\(std::string_view key\b", table_class)) - ACCESSORS - NOT_ACCESSORS):
        problems.append(f"{READER_H}:1: Table::{acc} takes a key; sort it into ACCESSORS or NOT_ACCESSORS here")
    funcs, schemas = functions(read(root, LOAD_CC)), {}
    for path, name in ROOTS.items():
        read_function(schemas, path, name, funcs, enum_names, network)
    runtime_schemas(root, schemas, problems)
    return schemas


def runtime_schemas(root, schemas, problems):
    """[worker.sandbox.<name>]: the keys each runtime's registration reads (its `schema.read`)."""
    headers = "".join(read(root, h) for h in sorted(glob.glob("src/adapters/sandbox/*.h", root_dir=root)))
    table_names = dict(re.findall(r"struct (\w+) \{\s*static constexpr std::string_view kName = \"(\w+)\"", headers))
    for cc in sorted(glob.glob("src/adapters/sandbox/*.cc", root_dir=root)):
        src = read(root, cc)
        for m in re.finditer(r"^RuntimeRegistration \w+_registration\(\) \{\n(.*?)\n\}\n", src, re.M | re.S):
            body = m.group(1)
            named = re.search(r"r\.schema\.name = (?:\"(\w+)\"|std::string\((\w+)::kName\))|"
                              r"image_runtime_registration<(\w+)>\(\)", body)
            if not named:
                problems.append(f"{cc}:1: a registration whose runtime's name this script cannot read")
                continue
            name = named.group(1) or table_names[named.group(2) or named.group(3)]
            read_fn = re.search(r"r\.schema\.read = (.*?)\n  \};", body, re.S)
            if not read_fn:
                continue  # no table (none)
            path = f"worker.sandbox.{name}"
            schemas.setdefault(path, Schema()).common |= keys_in(read_fn.group(1))
            for sub in keys_in(read_fn.group(1), {"string_map"}):
                schemas[f"{path}.{sub}"] = Schema(any_key=True)


def find_schema(schemas, path):
    """The schema of a table path: `scanners.osv.escalation` is `scanners.*.escalation`."""
    parts = path.split(".")
    for pattern, schema in schemas.items():
        want = pattern.split(".")
        if len(want) == len(parts) and all(w in ("*", p) for w, p in zip(want, parts)):
            return schema
    return None


class Doc:
    def __init__(self, root, rel):
        self.rel, self.lines = rel, read(root, rel).split("\n")
        self.fenced, self.heading, self.toml = [False] * len(self.lines), [""] * len(self.lines), []
        fence, lang, heading = None, "", ""
        for i, line in enumerate(self.lines):
            m = re.match(r"^\s*(```+|~~~+)\s*(\w*)", line)
            if fence is None and m:
                fence, lang = m.groups()
                self.toml += [[]] if lang == "toml" else []
            elif fence is not None and line.strip().startswith(fence):
                fence = None
            elif fence is not None and lang == "toml":
                self.toml[-1].append((i + 1, line))
            elif fence is None and line.startswith("#"):
                heading = line
            self.fenced[i] = bool(m) or fence is not None or self.fenced[i]
            self.heading[i] = heading
        # Inline code may wrap onto the next line of its paragraph, never past a blank line.
        self.prose = "\n".join("" if f else line for f, line in zip(self.fenced, self.lines))
        starts = [0] + [m.end() for m in re.finditer("\n", self.prose)]
        self.spans = []  # (line, text, offset just past the span)
        for m in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", self.prose, re.S):
            if not re.search(r"\n\s*\n", m.group(2)):
                text = m.group(2).replace("\n", " ")
                text = text[1:-1] if text.startswith(" ") and text.endswith(" ") and text.strip() else text
                self.spans.append((bisect.bisect_right(starts, m.start()), text, m.end()))

    def probe_section(self, n):
        return "probe" in self.heading[n - 1].lower()


def doc_keys(doc):
    """(line, table path, key, type or None) for every key the doc names under a table."""
    for n, text, _ in doc.spans:
        m = re.match(r"^\[([\w.<>-]+)\] ([A-Za-z_][\w-]*)(?: = .*)?$", text)
        if m:
            yield n, m.group(1), m.group(2), None
    for block in doc.toml:
        table, entries = None, []
        for n, line in block + [(0, "[]")]:  # a last header, to close the last table
            header = re.match(r"^\s*\[\[?([^\]]*)\]\]?\s*(#.*)?$", line)
            key = re.match(r"^\s*([A-Za-z0-9_-]+)\s*=\s*(.*)", line)
            if header and table is not None:
                type_ = next((re.sub(r"#.*|[\"'\s]", "", v) for _, k, v in entries if k == "type"), None)
                for kn, k, _ in entries:
                    yield kn, table, k, type_
            if header:
                table, entries = header.group(1), []
            elif key and table is not None:
                entries.append((n, key.group(1), key.group(2)))


def check_keys(doc, schemas, problems, seen):
    for n, path, key, type_ in doc_keys(doc):
        if not CHECKED_TABLES.match(path):
            continue
        seen.append((doc.rel, n, "key", f"[{path}] {key}"))
        schema = find_schema(schemas, path)
        parts = path.split(".")
        if type_ is None and parts[0] == "scanners" and len(parts) == 2:
            type_ = parts[1]  # [scanners.guarddog] is a guarddog scanner
        if schema is None:
            problems.append(f"{doc.rel}:{n}: [{path}] is not a table {LOAD_CC} or a runtime registration reads")
        elif not schema.allows(key, type_):
            of = f" for type {type_}" if type_ in schema.typed else ""
            problems.append(f"{doc.rel}:{n}: [{path}] {key}: not a key {LOAD_CC} or a runtime registration reads{of}")


def check_names(doc, checks, problems, seen):
    names = set()
    for i, line in enumerate(doc.lines):
        if doc.fenced[i]:
            continue
        bullet = re.match(r"^\s*[*-] \*\*`([^`]+)`\.\*\*", line)
        if bullet and doc.probe_section(i + 1) and SNAKE.match(bullet.group(1)):
            names.add((i + 1, bullet.group(1)))
        top = i  # the header row of this line's table
        while top > 0 and doc.lines[top - 1].startswith("|"):
            top -= 1
        if not line.startswith("|") or top == i or i == top + 1:
            continue
        first = line.strip().strip("|").split("|")[0].strip()
        header = doc.lines[top].strip("| ").split("|")[0].strip().lower()
        if (doc.probe_section(i + 1) or header == "check") and re.fullmatch(
                r"`[a-z][a-z0-9_]*`(\s*(,|/|and|or)\s*`[a-z][a-z0-9_]*`)*", first):
            names |= {(i + 1, t) for t in re.findall(r"`([^`]+)`", first)}
    for n, text, end in doc.spans:
        if SNAKE.match(text) and re.match(r"\s+(check|wall|assertion|proves|passes|fails|warns)\b",
                                          doc.prose[end:end + 40]):
            names.add((n, text))
        m = re.match(r"^([a-z][a-z0-9_]*): ", text)
        if m and ("_" in m.group(1) or doc.probe_section(n)):
            names.add((n, m.group(1)))
    for n, name in sorted(names):
        seen.append((doc.rel, n, "check", name))
        if name not in checks:
            problems.append(f"{doc.rel}:{n}: {name}: not a probe check ({RUN_RESULT_CC} kCheckNames, or prove_walls' own in {SCAN_SERVICE_CC})")


def code_names(root):
    """The metrics (literals under src/, histograms, labels per family) and the batlehub_
    names that are CMake targets or functions, or YARA rules."""
    literals = set()
    for d, _, files in os.walk(os.path.join(root, "src")):
        for f in files:
            if f.endswith((".cc", ".h")):
                literals |= set(re.findall(r"\"(batlehub_[a-z0-9_]+)\"", read(d, f)))
    metrics_cc = read(root, METRICS_CC)
    families = re.findall(r"Family<(\w+)>&\s*(\w+)\s*=\s*\w+\(\s*registry,\s*\"(\w+)\"", metrics_cc)
    histograms = {name for kind, _, name in families if kind == "Histogram"}
    members = {member: name for _, member, name in families}
    labels = {}
    for m in re.finditer(r"impl_->(\w+)\s*\.Add\(([^;]*)", metrics_cc):
        if m.group(1) in members:
            labels.setdefault(members[m.group(1)], set()).update(re.findall(r"\{\"(\w+)\",", m.group(2)))
    tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    other = set()
    for rel in tracked:
        if rel.endswith(("CMakeLists.txt", ".cmake")):
            other |= set(re.findall(r"(?:add_library|add_executable|function|macro)\((batlehub_\w+)", read(root, rel)))
        elif rel.endswith((".yar", ".yara")):
            other |= set(re.findall(r"^\s*(?:(?:private|global)\s+)*rule\s+(\w+)", read(root, rel), re.M))
    return literals, histograms, labels, other


def check_metrics(doc, code, problems, seen):
    literals, histograms, labels, other = code
    for n, text, _ in doc.spans:
        for m in re.finditer(r"\bbatlehub_[a-z0-9_]+(\{[^}]*\})?", text):
            name = m.group(0).split("{")[0]
            if name in other:
                continue
            base = re.sub(r"_(bucket|sum|count)$", "", name)
            name = base if base in histograms else name
            seen.append((doc.rel, n, "metric", m.group(0)))
            if name not in literals:
                problems.append(f"{doc.rel}:{n}: {name}: no metric of that name under src/ "
                                "(nor a CMake target or function, nor a YARA rule)")
                continue
            allowed = labels.get(name, set().union(*labels.values())) | ({"le"} if name in histograms else set())
            for label in re.findall(r"([a-z_]+)\s*(?:=[^,}]*)?(?=[,}])", m.group(1) or ""):
                if label not in allowed:
                    problems.append(f"{doc.rel}:{n}: {name}{{{label}}}: {METRICS_CC} gives {name} no label "
                                    f"'{label}' (it has: {', '.join(sorted(allowed)) or 'none'})")


def check_paths(doc, root, problems, seen):
    top = os.path.realpath(root)
    src = os.path.join(top, "src")
    bases = [top, src, os.path.join(top, "tests"), os.path.join(top, os.path.dirname(doc.rel))]
    bases += sorted(os.path.join(src, d) for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for n, text, _ in doc.spans:
        path = re.sub(r"(#[\w-]*|:\d+(-\d+)?)$", "", text)
        if (" " in path or "/" not in path or path.startswith(("/", "./", "~")) or "://" in path
                or re.search(r"[<>*{}$\u2026]|\.\.\.", path) or re.match(r"^[A-Z][A-Z0-9_]*/", path)
                or not (path.endswith(EXTENSIONS) or (path.endswith("/") and "/" in path[:-1]))):
            continue
        # What a command writes under build/ (`make images`' values.yaml, the SBOMs) is its
        # output, not a repository file: a tree that has built but not run that command lacks
        # it, and a second `make test` in one tree must pass as the first did.
        if path.startswith("build/"):
            continue
        # Its first directory (after any `..`), which must be the repository's from a base.
        segs = path.rstrip("/").split("/")
        ups = next(i for i, s in enumerate(segs + [""]) if s != "..")
        first = "/".join(segs[:ups + 1] if len(segs) > ups + 1 else segs[:ups]) or "."
        anchored = [b for b in bases if os.path.isdir(os.path.join(b, first))
                    and os.path.commonpath([top, os.path.realpath(os.path.join(b, first))]) == top]
        if not anchored:
            continue
        seen.append((doc.rel, n, "path", path))
        if not any(os.path.exists(os.path.normpath(os.path.join(b, path))) for b in anchored):
            problems.append(f"{doc.rel}:{n}: {path}: no such file or directory (from the repository root, "
                            f"src/, src/*/, tests/ or {os.path.dirname(doc.rel) or '.'}/)")


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems, seen = [], []
    schemas = load_schemas(root, problems)
    checks = {s for e, _, s in NAMES.findall(read(root, RUN_RESULT_CC)) if e == "Check"}
    # The worker's own checks beside the agent's: the assertion label prove_walls gives a
    # failure it found itself (result_at_all, observer_sees).
    checks |= set(re.findall(r'"([a-z][a-z0-9_]+)"\}', read(root, SCAN_SERVICE_CC)))
    code = code_names(root)
    docs = sorted({os.path.relpath(p, root) for pattern in DOCS for p in glob.glob(os.path.join(root, pattern))})
    for rel in docs:
        doc, found = Doc(root, rel), []
        check_keys(doc, schemas, found, seen)
        check_names(doc, checks, found, seen)
        check_metrics(doc, code, found, seen)
        check_paths(doc, root, found, seen)
        problems += sorted(found, key=lambda p: int(p.split(":")[1]))
    if "--list" in sys.argv[1:]:
        for rel, n, kind, name in sorted(seen, key=lambda s: (s[0], s[1])):
            print(f"{rel}:{n}: {kind} {name}")
    summary = f"{len(docs)} files, " + ", ".join(f"{sum(s[2] == k for s in seen)} {k}s"
                                                 for k in ("key", "check", "metric", "path"))
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-docs: {len(problems)} problem(s) in {summary}", file=sys.stderr)
        return 1
    print(f"check-docs: {summary}: all exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
