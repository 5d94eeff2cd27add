#!/usr/bin/env python3
"""soak: N scan jobs through two `batlehub worker`s on PostgreSQL, GuardDog and YARA behind
bwrap; jobs per minute, submit→verdict percentiles, and the workers' RSS, open descriptors
and threads sampled over the run (issue 32, point 2). Flat is the aim: any growth is a
finding to explain.

    bench/soak/soak.py BUILD_DIR [--jobs N] [--workers 2] [--outstanding K] [--sample-secs S]
                                 [--check] [--json FILE] [--scanners guarddog,yara]
                                 [--max-concurrent M] [--pg-port 55446]

    bench/soak/soak.py build/release                          # the soak: 10,000 jobs
    bench/soak/soak.py build/release --jobs 300 --check       # the short form (make test: soak.short)

What it does, and why each choice:

  * The queue is PostgreSQL, as in a deployment with more than one worker: the tests' server
    when BATLEHUB_TEST_PG_DSN is set (the ctest fixture "pg" sets it), else a private one
    from scripts/pg-peer.sh on --pg-port (55446, clear of the fixtures' 55432/55433). Every
    job is in a registry named for this run (soak-<pid>-<time>), and each worker serves only
    that registry, so a shared database never mixes runs and no other worker takes its jobs.
  * Rooms, scanners and the sandbox section are bench/bench_worker.sh's: rooms built by
    scripts/build-room.py from rooms/guarddog.toml and rooms/yara.toml around the build's
    agent, probe_canaries on this machine. GuardDog is required by default: a soak without it
    would not be the soak the issue asks for, so the script refuses, saying why (--scanners
    yara runs YARA alone, by hand).
  * --workers (2) workers, one TOML each, as tests/server/worker_cli_test.cc builds it: the
    same database and the same filesystem storage (submit stores there, the workers read
    there), a state_dir and a TMPDIR each (mode 1777: the runtime starts bwrap as uid 65532),
    so that a run directory left behind is counted per worker. max_concurrent is written out
    (default 4, the worker's own default) because the feeder's K is derived from it.
  * The archives are a mix of malicious and benign, synthetic and real: the four samples of
    examples/make-samples.py (tiny-benign npm, tiny_benign pypi; evil-pad npm with an install
    hook, evil_setup pypi), every archive of bench/soak/mix.tsv (small real npm tarballs
    and PyPI sdists, rows of bench/verdicts/benign.tsv) found in /var/cache/batlehub-corpus/benign,
    and every one of bench/soak/mix-malicious.tsv (real npm malware, rows of
    bench/verdicts/malicious.tsv) found under /var/cache/batlehub-corpus/malicious/npm
    with its sha256. The soak never fetches: bench/verdicts/fetch-benign.py --manifest
    bench/soak/mix.tsv does, by hand; without them it runs the four samples and says so.
  * Job i is archive i % (number of archives), submitted with `batlehub submit --kind --name
    --version <version>+soak.<i>`: a version of its own per job (submit keys a job by its
    coordinate, and an open coordinate is not queued twice), in a form both PEP 440 (a local
    version) and semver (build metadata) accept. Blobs are stored by sha256, so 10,000 jobs
    store each archive once.
  * A feeder keeps at most K jobs outstanding (submitted, not closed; default 4 × the jobs the
    workers run at once, 32 for two workers of 4), up to 4 submits at once. Without it,
    submit→verdict would be the age of a 10,000-deep backlog; with it the queue wait is
    bounded (Little's law: latency ≈ K ÷ throughput), and what grows is the worker's own.
    The feeder counts closed jobs from the workers' `INFO span: job` lines (cheap: no query
    per job); the database is the truth for every figure printed.
  * Latency is completed_at − created_at of scan_jobs (docs: upstream-storage-and-queue.md
    §B.2), both the database's clock: submit's insert to the job's close with its verdict.
    Jobs per minute is N over first submit → last close.
  * Every S seconds (default 10; 2 below 1,000 jobs) a sampler reads each worker's VmRSS and
    Threads (/proc/PID/status), its open descriptors (/proc/PID/fd) and children, and the
    jobs closed so far. The table shows ~10 evenly spaced samples.
  * Busy samples move with the jobs in flight (a thread and a few descriptors a job), so the
    comparison that decides is made idle, twice: at 10 % of the jobs the feeder stops, waits
    until the queue has no open job of this run, and takes each figure's minimum over a
    4 s window (a re-probe or an idle sweep may be running: the minimum, as
    worker_cli_test.cc's steady_fds takes it); then it resumes, and at the end the same.
    The first 10 % are the warm-up (allocator arenas, connections, caches).
  * --check (make test) exits 1, one line per failure, when a job is not closed exactly once
    (one scan_jobs row, closed, one closing span across the workers' logs, a verdict), an
    archive's jobs got different verdicts (state and reason codes), a worker's descriptors or
    threads idle at the end exceed those idle at 10 %, its RSS grew more than 16 MiB between
    them, a run directory is left in a worker's TMPDIR, a process is left under a worker (its
    children when idle at the end; after it exited, any process naming the scratch dir), or a
    worker stopped by SIGTERM did not exit 0. Never on time: the machine is shared.
  * Everything lives in a scratch dir (mktemp under $BATLEHUB_BENCH_DIR, else /dev/shm),
    removed at exit, also on failure or Ctrl-C; every process started is stopped (the workers
    also get SIGTERM from the kernel if this script dies: PR_SET_PDEATHSIG). The private
    PostgreSQL's directory is named for its port, beside the scratch dir, so that a cluster a
    killed run left is stopped by the next run's `pg-peer.sh start`.

Exit: 0 done (with --check: every check passed); 1 a failure or a failed check; 77 (ctest's
skip) only when bwrap cannot run here or the agent is not static. Standard library only;
nothing here reaches the network.
"""
import argparse
import collections
import concurrent.futures
import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GUARDDOG = "/opt/batlehub/guarddog/bin/guarddog"
CORPUS = "/var/cache/batlehub-corpus/benign"
MIX = os.path.join(HERE, "mix.tsv")
MIX_COLUMNS = ["ecosystem", "name", "version", "file", "sha256", "source"]
# Real malware: rows of bench/verdicts/malicious.tsv, written by bench/verdicts/fetch-malicious.py
# under <its OUT>/<ecosystem>/<file>.
MALICIOUS_CORPUS = "/var/cache/batlehub-corpus/malicious"
MALICIOUS_MIX = os.path.join(HERE, "mix-malicious.tsv")
MALICIOUS_COLUMNS = ["ecosystem", "name", "version", "family", "file", "sha256", "dataset", "commit", "path", "form",
                     "note"]
KNOWN_SCANNERS = ("guarddog", "yara")
# examples/make-samples.py's archives: (kind, name, version, file, class).
SAMPLES = [
    ("npm", "tiny-benign", "1.0.0", "tiny-benign-1.0.0.tgz", "benign"),
    ("npm", "evil-pad", "1.3.1", "evil-pad-1.3.1.tgz", "malicious"),
    ("pypi", "tiny_benign", "1.0.0", "tiny_benign-1.0.0.tar.gz", "benign"),
    ("pypi", "evil_setup", "0.1.0", "evil_setup-0.1.0.tar.gz", "malicious"),
]
DEFAULT_PG_PORT = 55446
MAX_CONCURRENT_DEFAULT = 4  # docs/configuration.md, [worker] max_concurrent
JOB_TIMEOUT_SECS = 300
SUBMITTERS = 4  # `batlehub submit`s at once: one is ~50 ms, mostly process start and connect
IDLE_WINDOW_SECS = 4.0  # two of the worker's 2 s idle polls: every finished thread reaped
RSS_GROWTH_LIMIT_MIB = 16
READY_TIMEOUT_SECS = 120
STOP_TIMEOUT_SECS = 60  # the worker's shutdown_grace_secs (30) and some
CLOSING = {"allowed", "warned", "quarantined", "denied", "dropped"}  # worker.cc's span outcomes that close a job
SPAN = re.compile(r"INFO span: job job=(\S+) coordinate=(\S+) attempt=(\d+) runtime=\S+ outcome=(\S+) seconds=")
JOB_INDEX = re.compile(r"soak\.(\d+)$")
PR_SET_PDEATHSIG = 1


class Failure(Exception):
    """Ends the run: printed as FAILED, exit 1, after the cleanup."""


class Skip(Exception):
    """Ends the run: printed as SKIP, exit 77 (ctest's skip), after the cleanup."""


def log(msg=""):
    print(msg, flush=True)


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def toml_str(s):
    return json.dumps(s)  # a TOML basic string is a JSON string for anything written here


def die_with_parent():
    # preexec_fn of the workers: SIGTERM from the kernel when this script goes, however it
    # goes (a ctest timeout sends SIGKILL, and no finally runs then).
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


# ---- PostgreSQL


class Postgres:
    """The queue: the tests' server (BATLEHUB_TEST_PG_DSN), else a private one on `port`."""

    def __init__(self, base, port):
        self.dsn = os.environ.get("BATLEHUB_TEST_PG_DSN", "")
        self.peer_dir = None
        if self.dsn:
            self.origin = "BATLEHUB_TEST_PG_DSN (shared; this run's registry keeps its jobs apart)"
            return
        self.peer_dir = os.path.join(base, f"batlehub-soak-pg-{port}")
        p = subprocess.run([os.path.join(ROOT, "scripts/pg-peer.sh"), "start", self.peer_dir, str(port)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"scripts/pg-peer.sh start {self.peer_dir} {port} failed: {p.stderr.strip()[-600:]}")
        self.dsn = p.stdout.strip().splitlines()[-1]
        self.origin = f"private (scripts/pg-peer.sh on port {port}, thrown away at the end)"

    def query(self, sql):
        """Rows of `sql`, each a list of text fields."""
        p = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql, self.dsn],
                           capture_output=True, text=True, env=dict(os.environ, PGCONNECT_TIMEOUT="10"))
        if p.returncode != 0:
            raise Failure(f"psql: {p.stderr.strip()[-400:]} (query: {sql[:120]})")
        return [line.split("\t") for line in p.stdout.splitlines() if line]

    def stop(self):
        if self.peer_dir:
            subprocess.run([os.path.join(ROOT, "scripts/pg-peer.sh"), "stop", self.peer_dir],
                           capture_output=True, text=True)
            shutil.rmtree(self.peer_dir, ignore_errors=True)


# ---- the workers


class Worker:
    def __init__(self, index, dir_, batlehub):
        self.index = index
        self.name = f"w{index + 1}"
        self.batlehub = batlehub
        self.state = os.path.join(dir_, f"state-{self.name}")
        self.tmp = os.path.join(dir_, f"tmp-{self.name}")  # TMPDIR: its run directories
        self.config = os.path.join(dir_, f"{self.name}.toml")
        self.log_path = os.path.join(dir_, f"{self.name}.log")
        os.mkdir(self.tmp)
        os.chmod(self.tmp, 0o1777)
        self.proc = None
        self.pid = None
        self.slots = None
        self.worker_id = None
        self.exit_status = None
        self._offset = 0
        self._partial = b""

    def write_config(self, dsn, registry, cache, rooms, scanners, max_concurrent):
        lines = [
            "[server]", 'host = "127.0.0.1"', "port = 0",
            "[database]", f"url = {toml_str(dsn)}",
            "[worker]", f"state_dir = {toml_str(self.state)}", f"registries = [{toml_str(registry)}]",
            f"job_timeout_secs = {JOB_TIMEOUT_SECS}", f"max_concurrent = {max_concurrent}",
            "[storage]", 'type = "filesystem"', f"path = {toml_str(cache)}",
            "[worker.sandbox]", f"rooms_dir = {toml_str(rooms)}", 'probe_canaries = ["127.0.0.1:9"]',
        ]
        for s in scanners:
            if s == "yara":
                rules = os.path.join(ROOT, "rooms/rules/batlehub-default.yar")
                lines += ["[scanners.yara]", 'type = "yara"', 'command = "yara"', f"rules = {toml_str(rules)}"]
            else:
                lines += ["[scanners.guarddog]", 'type = "guarddog"', 'command = "guarddog"']
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": self.tmp, "LANG": "C.UTF-8"}
        with open(self.log_path, "wb") as err:
            self.proc = subprocess.Popen([self.batlehub, "worker", "--config", self.config], env=env,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                         preexec_fn=die_with_parent, close_fds=True)
        self.pid = self.proc.pid

    def log_text(self):
        with open(self.log_path, "r", errors="replace") as f:
            return f.read()

    def wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_SECS
        while time.monotonic() < deadline:
            text = self.log_text()
            m = re.search(r"INFO security worker: ready \((\d+) slots", text)
            if m:
                self.slots = int(m.group(1))
                w = re.search(r"INFO security worker: worker (\S+) on the (\S+) queue", text)
                self.worker_id = w.group(1) if w else None
                return
            if self.proc.poll() is not None:
                raise Failure(f"worker {self.name} exited {self.proc.returncode} before it was ready:\n{text[-2000:]}")
            time.sleep(0.1)
        raise Failure(f"worker {self.name} was not ready after {READY_TIMEOUT_SECS} s:\n{self.log_text()[-2000:]}")

    def new_spans(self):
        """The `INFO span: job` lines logged since the last call: (job id, coordinate, attempt, outcome)."""
        with open(self.log_path, "rb") as f:
            f.seek(self._offset)
            data = f.read()
        self._offset += len(data)
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()  # a line still being written
        out = []
        for raw in lines:
            m = SPAN.search(raw.decode("utf-8", "replace"))
            if m:
                out.append((m.group(1), m.group(2), int(m.group(3)), m.group(4)))
        return out

    def stop(self):
        """SIGTERM, then the exit status; SIGKILL only if it does not go in time."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.exit_status = self.proc.wait(STOP_TIMEOUT_SECS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.exit_status = f"still running {STOP_TIMEOUT_SECS} s after SIGTERM (killed)"


def proc_figures(pid):
    """RSS (KiB), threads, open descriptors and children of `pid`; None once it is gone."""
    try:
        rss = threads = None
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        children = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children += len(f.read().split())
        if rss is None:  # a zombie: exited, not yet waited for
            return None
        return {"rss_kib": rss, "threads": threads, "fds": fds, "children": children}
    except (FileNotFoundError, ProcessLookupError):
        return None


def processes_naming(path, exclude):
    """Processes whose command line names `path` (what a run left: its bwrap and agent name
    the run directory and the rooms)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        if path in cmd:
            found.append(f"{entry}: {cmd[:160]}")
    return found


def log_troubles(path):
    """The WARN and ERROR lines of a worker's log, grouped with ids and numbers taken out:
    (count, first line) for each shape."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith(("WARN", "ERROR", "CRITICAL")):
                continue
            shape = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", line.strip())
            shape = re.sub(r"\d+(\.\d+)*", "N", shape)[:160]
            count, first = out.get(shape, (0, line.strip()))
            out[shape] = (count + 1, first)
    return out.values()


# ---- setup


def bwrap_problem():
    if shutil.which("bwrap") is None:
        return "bwrap is not on PATH (scripts/install-deps.sh installs bubblewrap)"
    p = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--proc", "/proc",
                        "--dev", "/dev", "true"], capture_output=True, text=True)
    if p.returncode != 0:
        return f"bwrap cannot make a sandbox here: {p.stderr.strip()[-300:]}"
    return None


def build_rooms(dir_, agent, scanners):
    rooms = os.path.join(dir_, "rooms")
    os.mkdir(rooms)
    os.chmod(rooms, 0o755)
    for s in scanners:
        b = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/build-room.py"), "--definition",
                            os.path.join(ROOT, f"rooms/{s}.toml"), "--agent", agent, "--out", os.path.join(rooms, s)],
                           capture_output=True, text=True)
        if b.returncode != 0:
            if "the agent is not static" in b.stderr:
                raise Skip(f"this build's agent is not static, and a room refuses it: {b.stderr.strip()[-300:]}")
            raise Failure(f"scripts/build-room.py {s} failed: {b.stderr.strip()[-600:]}")
    return rooms


def read_mix(path=MIX, columns=MIX_COLUMNS):
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != columns:
            raise Failure(f"{path}: header {header}, not {columns}")
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) == len(columns) and not line.startswith("#"):
                rows.append(dict(zip(columns, cols)))
    return rows


def gather_archives(dir_):
    """The four samples, then every archive of mix.tsv and mix-malicious.tsv present in the
    corpus cache with its sha256. Returns (archives, notes)."""
    samples = os.path.join(dir_, "samples")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples/make-samples.py"), samples],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"examples/make-samples.py failed: {p.stderr.strip()[-400:]}")
    archives = [{"kind": k, "name": n, "version": v, "path": os.path.join(samples, f), "class": c, "origin": "sample"}
                for k, n, v, f, c in SAMPLES]
    notes = []
    # The real halves: (manifest, its columns, where its archives are, their class, how to fetch).
    halves = [(MIX, MIX_COLUMNS, lambda row: os.path.join(CORPUS, row["file"]), "benign",
               "fetch once: bench/verdicts/fetch-benign.py --manifest bench/soak/mix.tsv"),
              (MALICIOUS_MIX, MALICIOUS_COLUMNS,
               lambda row: os.path.join(MALICIOUS_CORPUS, row["ecosystem"], row["file"]), "malicious",
               "once: fetch their dataset, then bench/verdicts/fetch-malicious.py --manifest "
               "bench/soak/mix-malicious.tsv")]
    for manifest, columns, where, truth, how in halves:
        missing, differing = [], []
        for row in read_mix(manifest, columns):
            path = where(row)
            if not os.path.isfile(path):
                missing.append(row["file"])
            elif sha256_file(path) != row["sha256"]:
                differing.append(row["file"])
            else:
                archives.append({"kind": row["ecosystem"], "name": row["name"], "version": row["version"],
                                 "path": path, "class": truth, "origin": "corpus"})
        name = os.path.relpath(manifest, ROOT)
        if missing:
            notes.append(f"{len(missing)} of {name}'s archives are not where it says, so the soak ran without them "
                         f"({how})")
        if differing:
            notes.append(f"not used, sha256 differs from {name}: {', '.join(differing)}")
    return archives, notes


def job_version(base, i):
    # PEP 440 local version and semver build metadata alike; one per job.
    return f"{base}{'.' if '+' in base else '+'}soak.{i}"


# ---- the run


class Soak:
    def __init__(self, args, dir_, build):
        self.args = args
        self.dir = dir_
        self.batlehub = os.path.join(build, "src/server/batlehub")
        self.agent = os.path.join(build, "src/agent/batlehub-sandbox")
        self.registry = f"soak-{os.getpid()}-{int(time.time())}"
        self.workers = []
        self.pg = None
        self.samples = []
        self.idle = {}
        self.submitted = 0  # submits that returned
        self.closed = set()  # job indexes with a closing span
        self.spans = collections.defaultdict(list)  # job index -> [(worker, job id, attempt, outcome)]
        self.pause_secs = 0.0
        self._stop_sampling = threading.Event()

    # -- sampling

    def sample(self):
        figures = [proc_figures(w.pid) for w in self.workers]
        return {"t": time.monotonic() - self.t0, "closed": len(self.closed), "submitted": self.submitted,
                "workers": figures}

    def sampler(self, every):
        while not self._stop_sampling.wait(every):
            self.samples.append(self.sample())

    def open_jobs(self):
        return int(self.pg.query(f"SELECT count(*) FROM scan_jobs WHERE registry = '{self.registry}' "
                                 "AND completed_at IS NULL")[0][0])

    def read_spans(self):
        for w in self.workers:
            for job_id, coord, attempt, outcome in w.new_spans():
                m = JOB_INDEX.search(coord)
                if not m or not coord.startswith(self.registry + ":"):
                    continue
                i = int(m.group(1))
                self.spans[i].append((w.name, job_id, attempt, outcome))
                if outcome in CLOSING:
                    self.closed.add(i)

    def check_workers_alive(self):
        for w in self.workers:
            if w.proc.poll() is not None:
                raise Failure(f"worker {w.name} exited {w.proc.returncode} during the run:\n{w.log_text()[-2000:]}")

    def wait_drained(self, what):
        """Until no job of this run is open in the queue (the database says so, not the logs)."""
        last_progress, last_open = time.monotonic(), None
        while True:
            self.check_workers_alive()
            self.read_spans()
            n = self.open_jobs()
            if n == 0:
                return
            if n != last_open:
                last_progress, last_open = time.monotonic(), n
            if time.monotonic() - last_progress > 2 * JOB_TIMEOUT_SECS:
                raise Failure(f"{what}: {n} job(s) still open, none closed for {2 * JOB_TIMEOUT_SECS} s")
            time.sleep(0.25)

    def idle_figures(self, label):
        """Each worker's figures idle: the queue empty, then each figure's minimum over a window."""
        t = time.monotonic()
        self.wait_drained(f"waiting for the queue to empty at {label}")
        window = []
        end = time.monotonic() + IDLE_WINDOW_SECS
        while time.monotonic() < end:
            window.append([proc_figures(w.pid) for w in self.workers])
            time.sleep(0.25)
        out = []
        for k, w in enumerate(self.workers):
            got = [s[k] for s in window if s[k] is not None]
            if not got:
                raise Failure(f"worker {w.name} is gone (idle at {label})")
            out.append({key: min(g[key] for g in got) for key in ("rss_kib", "threads", "fds", "children")})
        self.read_spans()  # a job's span line follows its close in the database
        self.idle[label] = {"closed": len(self.closed), "t": time.monotonic() - self.t0, "workers": out}
        return time.monotonic() - t

    # -- the feeder

    def submit(self, i):
        a = self.archives[i % len(self.archives)]
        argv = [self.batlehub, "submit", "--config", self.workers[0].config, "--registry", self.registry,
                "--kind", a["kind"], "--name", a["name"], "--version", job_version(a["version"], i), a["path"]]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if p.returncode != 0 or not p.stdout.startswith("queued "):
            raise Failure(f"job {i}: batlehub submit exited {p.returncode}: {(p.stdout + p.stderr).strip()[-400:]}")

    def feed(self, n, k):
        ten_percent = max(1, n // 10)
        next_job = 0
        last_closed, last_progress = 0, time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(min(SUBMITTERS, k)) as pool:
            pending = set()
            while len(self.closed) < n or "10 %" not in self.idle:
                self.check_workers_alive()
                self.read_spans()
                for fut in [f for f in pending if f.done()]:
                    pending.discard(fut)
                    fut.result()  # a failed submit raises Failure here
                    self.submitted += 1
                if "10 %" not in self.idle and next_job >= ten_percent:
                    # The warm-up is over: measure the workers idle, then go on.
                    if pending:
                        time.sleep(0.02)
                        continue
                    self.pause_secs += self.idle_figures("10 %")
                    last_progress = time.monotonic()
                outstanding = next_job - len(self.closed)
                while (outstanding < k and next_job < n and len(pending) < SUBMITTERS
                       and ("10 %" in self.idle or next_job < ten_percent)):
                    pending.add(pool.submit(self.submit, next_job))
                    next_job += 1
                    outstanding += 1
                if len(self.closed) != last_closed:
                    last_closed, last_progress = len(self.closed), time.monotonic()
                elif time.monotonic() - last_progress > 2 * JOB_TIMEOUT_SECS:
                    raise Failure(f"no job closed for {2 * JOB_TIMEOUT_SECS} s ({len(self.closed)} of {n} closed, "
                                  f"{self.open_jobs()} open in the queue)")
                time.sleep(0.05)
            for fut in pending:
                fut.result()
                self.submitted += 1

    # -- the whole run

    def run(self):
        args = self.args
        for f in (self.batlehub, self.agent):
            if not os.access(f, os.X_OK):
                raise Failure(f"{f} is missing; build it first (ninja -C BUILD_DIR batlehub batlehub-sandbox)")
        why = bwrap_problem()
        if why:
            raise Skip(why)
        scanners = [s.strip() for s in args.scanners.split(",") if s.strip()]
        for s in scanners:
            if s not in KNOWN_SCANNERS:
                raise Failure(f"--scanners: {s!r} is not one of {', '.join(KNOWN_SCANNERS)}")
        if "guarddog" in scanners and not os.access(GUARDDOG, os.X_OK):
            raise Failure(f"GuardDog is not installed ({GUARDDOG}): the soak runs GuardDog and YARA; "
                          "scripts/install-scanners.sh installs it (make test does), or pass --scanners yara")
        load_before = loadavg()
        t = time.monotonic()
        rooms = build_rooms(self.dir, self.agent, scanners)
        self.archives, notes = gather_archives(self.dir)
        setup_secs = time.monotonic() - t

        self.pg = Postgres(os.path.dirname(self.dir), args.pg_port)
        self.pg.query("SELECT 1")
        cache = os.path.join(self.dir, "cache")
        for i in range(args.workers):
            w = Worker(i, self.dir, self.batlehub)
            w.write_config(self.pg.dsn, self.registry, cache, rooms, scanners, args.max_concurrent)
            self.workers.append(w)
        c = subprocess.run([self.batlehub, "check-config", "--config", self.workers[0].config],
                           capture_output=True, text=True)
        if c.returncode != 0:
            raise Failure(f"batlehub check-config refused {self.workers[0].config}:\n{c.stdout}{c.stderr}")
        for w in self.workers:
            w.start()
        for w in self.workers:
            w.wait_ready()

        n = args.jobs
        k = args.outstanding or 4 * args.workers * args.max_concurrent
        every = args.sample_secs or (10.0 if n >= 1000 else 2.0)
        log(f"soak: {n:,} jobs through {args.workers} `batlehub worker`s (runtime bwrap, queue PostgreSQL), "
            f"scanners {', '.join(scanners)}")
        log()
        log(f"  machine    {os.cpu_count()} cores; load average {load_before} before")
        log(f"  queue      {self.pg.dsn}, {self.pg.origin}; registry {self.registry}")
        log(f"  scanners   {', '.join(scanners)}, rooms built by scripts/build-room.py; probe canary 127.0.0.1:9")
        log(f"  workers    {args.workers}, each max_concurrent {args.max_concurrent} (pool "
            f"{', '.join(str(w.slots) for w in self.workers)} slots), a state_dir and TMPDIR each; "
            f"storage shared in {cache}")
        log(f"  feeder     at most K = {k} jobs outstanding (submitted, not closed), up to {min(SUBMITTERS, k)} "
            "submits at once,")
        log("             so that submit→verdict measures the workers, not a backlog of every job at once")
        log(f"  idle       at 10 % of the jobs and at the end: the queue emptied, then {IDLE_WINDOW_SECS:.0f} s idle "
            "(each figure's minimum)")
        log(f"  samples    every {every:g} s")
        log(f"  archives   {len(self.archives)} ({sum(a['origin'] == 'sample' for a in self.archives)} samples of "
            f"examples/make-samples.py, {sum(a['origin'] == 'corpus' for a in self.archives)} real from "
            f"{CORPUS} and {MALICIOUS_CORPUS}); job i takes archive i mod {len(self.archives)}")
        for a in self.archives:
            log(f"               {a['kind']:<5} {a['name'] + ' ' + a['version']:<28} {a['class']:<10} {a['origin']}")
        for note in notes:
            log(f"  NOTE       {note}")
        log(f"  setup      rooms and archives in {setup_secs:.1f} s; scratch {self.dir}")
        log()

        self.t0 = time.monotonic()
        self.samples.append(self.sample())
        sampler = threading.Thread(target=self.sampler, args=(every,), daemon=True)
        sampler.start()
        self.feed(n, k)
        self.idle_figures("end")
        self._stop_sampling.set()
        sampler.join()
        self.samples.append(self.sample())
        load_after = loadavg()

        # What the end left: run directories, children (idle), then the workers stopped.
        failures, findings = [], []
        left_dirs = {w.name: sorted(os.listdir(w.tmp)) for w in self.workers}
        for w, fig in zip(self.workers, self.idle["end"]["workers"]):
            if fig["children"]:
                failures.append(f"worker {w.name}: {fig['children']} process(es) still its children, idle at the end")
        for w in self.workers:
            w.stop()
            if w.exit_status != 0:
                failures.append(f"worker {w.name}: exit status {w.exit_status} after SIGTERM (want 0)")
            for e in os.listdir(w.tmp):
                if e not in left_dirs[w.name]:
                    left_dirs[w.name].append(e)
        for name, entries in left_dirs.items():
            if entries:
                failures.append(f"worker {name}: left in its TMPDIR ({len(entries)}): {', '.join(entries[:5])}")
        leftover = processes_naming(self.dir, {os.getpid()})
        if leftover:
            failures.append(f"{len(leftover)} process(es) left after the workers exited: {'; '.join(leftover[:3])}")
        self.left = {"tmpdir": left_dirs, "processes": leftover,
                     "children_idle_end": [f["children"] for f in self.idle["end"]["workers"]]}

        return self.report(n, k, scanners, load_before, load_after, failures, findings)

    # -- the figures

    def report(self, n, k, scanners, load_before, load_after, failures, findings):
        args = self.args
        self.read_spans()  # the last lines, written before the workers exited
        rows = self.pg.query(
            "SELECT j.version, j.package_name, j.attempts, j.leased_by, "
            "extract(epoch FROM j.created_at), extract(epoch FROM j.completed_at), "
            "coalesce(v.state, ''), coalesce(array_to_string(v.reason_codes, ','), '') "
            "FROM scan_jobs j LEFT JOIN artifact_verdicts v "
            "ON v.registry = j.registry AND v.package_name = j.package_name AND v.version = j.version "
            f"WHERE j.registry = '{self.registry}'")
        by_job = collections.defaultdict(list)
        for version, name, attempts, leased_by, created, completed, state, reasons in rows:
            m = JOB_INDEX.search(version)
            if not m:
                failures.append(f"a scan_jobs row this run did not submit: {name}@{version}")
                continue
            by_job[int(m.group(1))].append({
                "name": name, "attempts": int(attempts), "worker": leased_by,
                "created": float(created), "completed": float(completed) if completed else None,
                "state": state, "reasons": ",".join(sorted(r for r in reasons.split(",") if r))})

        # Every job closed exactly once: one row, closed, a verdict, one closing span.
        not_once = []
        attempts = collections.Counter()
        per_worker = collections.Counter()
        latencies = []
        for i in range(n):
            rs = by_job.get(i, [])
            closing = [s for s in self.spans.get(i, []) if s[3] in CLOSING]
            if len(rs) != 1 or rs[0]["completed"] is None or not rs[0]["state"] or len(closing) != 1:
                not_once.append(f"job {i}: {len(rs)} row(s), {sum(r['completed'] is not None for r in rs)} closed, "
                                f"verdict {rs[0]['state'] if rs else None!r}, {len(closing)} closing span(s) "
                                f"{[s[0] + ':' + s[3] for s in closing]}")
            for r in rs:
                attempts[r["attempts"]] += 1
                if r["completed"] is not None:
                    latencies.append(r["completed"] - r["created"])
            for s in closing:
                per_worker[s[0]] += 1
        if not_once:
            failures.append(f"{len(not_once)} job(s) not closed exactly once with a verdict; first: "
                            + "; ".join(not_once[:3]))
        for w in self.workers:
            for count, example in log_troubles(w.log_path):
                findings.append(f"worker {w.name} logged {count} line(s) like: {example[:300]}")
        if set(attempts) - {1}:
            findings.append(f"attempts other than 1 with no worker killed: {dict(sorted(attempts.items()))}")

        # Each archive's verdict, the same for every one of its jobs.
        verdicts = []
        for a_i, a in enumerate(self.archives):
            got = collections.Counter()
            for i in range(a_i, n, len(self.archives)):
                for r in by_job.get(i, []):
                    got[(r["state"], r["reasons"])] += 1
            verdicts.append({"archive": f"{a['kind']} {a['name']} {a['version']}", "class": a["class"],
                             "verdicts": {f"{s}({r})": c for (s, r), c in got.most_common()}})
            if len(got) > 1:
                failures.append(f"archive {a['kind']} {a['name']} {a['version']}: its jobs got different verdicts: "
                                + ", ".join(f"{c} × {s}({r})" for (s, r), c in got.most_common()))

        # Flat: idle at the end against idle at 10 %.
        growth = []
        for w, base, end in zip(self.workers, self.idle["10 %"]["workers"], self.idle["end"]["workers"]):
            d_rss = (end["rss_kib"] - base["rss_kib"]) / 1024
            growth.append({"worker": w.name, "rss_mib": [base["rss_kib"] / 1024, end["rss_kib"] / 1024],
                           "fds": [base["fds"], end["fds"]], "threads": [base["threads"], end["threads"]]})
            if end["fds"] > base["fds"]:
                failures.append(f"worker {w.name}: {end['fds']} open descriptors idle at the end, "
                                f"{base['fds']} idle at 10 %")
            if end["threads"] > base["threads"]:
                failures.append(f"worker {w.name}: {end['threads']} threads idle at the end, "
                                f"{base['threads']} idle at 10 %")
            if d_rss > RSS_GROWTH_LIMIT_MIB:
                failures.append(f"worker {w.name}: RSS grew {d_rss:.1f} MiB idle 10 % → end "
                                f"(limit {RSS_GROWTH_LIMIT_MIB} MiB)")

        all_rows = [r for rs in by_job.values() for r in rs]
        first = min(r["created"] for r in all_rows) if all_rows else 0.0
        last = max((r["completed"] for r in all_rows if r["completed"] is not None), default=first)
        span_secs = last - first
        rate = n * 60 / span_secs if span_secs > 0 else float("nan")
        rate_busy = n * 60 / (span_secs - self.pause_secs) if span_secs > self.pause_secs else float("nan")
        pct = {}
        if len(latencies) >= 2:
            q = statistics.quantiles(latencies, n=100, method="inclusive")
            pct = {"p50": q[49], "p95": q[94], "p99": q[98], "max": max(latencies)}
        busy = [s for s in self.samples if s["closed"] < n]
        mean_out = statistics.mean(s["submitted"] - s["closed"] for s in busy) if busy else 0.0

        log(f"  throughput       {rate:,.1f} jobs/min ({n:,} jobs, first submit → last close {span_secs:,.1f} s, "
            f"with the {self.pause_secs:.1f} s idle pause at 10 %; {rate_busy:,.1f} without it)")
        if pct:
            log(f"  submit→verdict   p50 {pct['p50']:.2f} s   p95 {pct['p95']:.2f} s   p99 {pct['p99']:.2f} s   "
                f"max {pct['max']:.2f} s   (K = {k}; {mean_out:.1f} outstanding on average while busy)")
        log(f"  jobs             {len(all_rows):,} scan_jobs rows for {n:,} jobs; "
            f"{'every job closed exactly once' if not not_once else f'{len(not_once)} not closed exactly once'}; "
            f"attempts {', '.join(f'{a}: {c:,}' for a, c in sorted(attempts.items()))}")
        log(f"                   closed by {', '.join(f'{w}: {c:,}' for w, c in sorted(per_worker.items()))}")
        log("  verdicts         per archive (state(reason codes) × jobs)")
        for v in verdicts:
            log(f"                   {v['archive']:<32} {v['class']:<10} "
                + ", ".join(f"{s} × {c}" for s, c in v["verdicts"].items()))
        log()
        self.print_samples(n)
        log()
        log(f"  flat?            idle at 10 % ({self.idle['10 %']['closed']:,} closed) → idle at the end "
            f"({self.idle['end']['closed']:,} closed), each figure's minimum over {IDLE_WINDOW_SECS:.0f} s")
        for g in growth:
            log(f"                   {g['worker']}: RSS {g['rss_mib'][0]:.1f} → {g['rss_mib'][1]:.1f} MiB "
                f"({g['rss_mib'][1] - g['rss_mib'][0]:+.1f}), fds {g['fds'][0]} → {g['fds'][1]} "
                f"({g['fds'][1] - g['fds'][0]:+d}), threads {g['threads'][0]} → {g['threads'][1]} "
                f"({g['threads'][1] - g['threads'][0]:+d})")
        left = self.left
        n_dirs = sum(len(e) for e in left["tmpdir"].values())
        log(f"  stopped          SIGTERM: exit status {', '.join(f'{w.name} {w.exit_status}' for w in self.workers)}; "
            f"left in the TMPDIRs: {n_dirs}; children idle at the end: {sum(left['children_idle_end'])}; "
            f"processes naming the scratch dir after the exit: {len(left['processes'])}")
        log(f"  load average     {load_before} before, {load_after} after")
        for f in findings:
            log(f"  FINDING          {f}")

        if args.json:
            with open(args.json, "w") as f:
                json.dump({"setup": {"jobs": n, "workers": args.workers, "max_concurrent": args.max_concurrent,
                                     "pool_slots": [w.slots for w in self.workers], "outstanding": k,
                                     "scanners": scanners, "registry": self.registry, "cores": os.cpu_count(),
                                     "load_before": load_before, "load_after": load_after,
                                     "archives": [{x: a[x] for x in ("kind", "name", "version", "class", "origin")}
                                                  for a in self.archives]},
                           "jobs_per_min": rate, "jobs_per_min_without_pause": rate_busy, "pause_secs": self.pause_secs,
                           "first_submit_to_last_close_secs": span_secs, "latency_secs": pct,
                           "attempts": dict(attempts), "closed_by": dict(per_worker), "verdicts": verdicts,
                           "samples": self.samples, "idle": self.idle, "growth": growth,
                           "jobs": [{"i": i, **r} for i, rs in sorted(by_job.items()) for r in rs],
                           "left": self.left, "findings": findings, "failures": failures}, f, indent=1)
            log(f"  json             {args.json}")
        return failures

    def print_samples(self, n):
        samples = [s for s in self.samples if all(f is not None for f in s["workers"])]
        if not samples:
            return
        points = sorted({round(j * (len(samples) - 1) / 9) for j in range(10)})
        head = f"  {'t s':>8} {'closed':>8}"
        for w in self.workers:
            head += f"   {w.name + ' RSS MiB':>12} {'fds':>4} {'thr':>4}"
        log(f"  samples ({len(samples)} taken, {len(points)} shown: busy figures move with the jobs in flight)")
        log(head)
        for p in points:
            s = samples[p]
            line = f"  {s['t']:>8.0f} {s['closed']:>8,}"
            for f in s["workers"]:
                line += f"   {f['rss_kib'] / 1024:>12.1f} {f['fds']:>4} {f['threads']:>4}"
            log(line)
        # The sample nearest the 10 % point (the pause: idle) against the last (idle too).
        base = min(samples, key=lambda s: abs(s["closed"] - n / 10))
        last = samples[-1]
        line = f"  {'10 % → last':>17}"
        for b, e in zip(base["workers"], last["workers"]):
            line += (f"   {(e['rss_kib'] - b['rss_kib']) / 1024:>+12.1f} {e['fds'] - b['fds']:>+4d} "
                     f"{e['threads'] - b['threads']:>+4d}")
        log(line)

    def cleanup(self):
        self._stop_sampling.set()
        for w in self.workers:
            try:
                w.stop()
            except Exception as e:  # the rest must still be cleaned up
                log(f"soak: stopping worker {w.name}: {e}")
        if self.pg:
            self.pg.stop()


def interrupted(signum, frame):
    # SIGTERM (kill, a CI's cancel) ends the run as Ctrl-C does: through main's finally.
    raise KeyboardInterrupt()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="the build directory (src/server/batlehub, src/agent/batlehub-sandbox)")
    ap.add_argument("--jobs", type=int, default=10000, help="jobs to run (default 10,000)")
    ap.add_argument("--workers", type=int, default=2, help="workers (default 2)")
    ap.add_argument("--max-concurrent", type=int, default=MAX_CONCURRENT_DEFAULT,
                    help="each worker's [worker] max_concurrent (default 4, the worker's default)")
    ap.add_argument("--outstanding", type=int, default=0,
                    help="K, jobs submitted and not closed at most (default 4 × workers × max_concurrent)")
    ap.add_argument("--sample-secs", type=float, default=0, help="sampling period (default 10 s; 2 s below 1,000 jobs)")
    ap.add_argument("--scanners", default="guarddog,yara", help="guarddog,yara (default) or yara")
    ap.add_argument("--pg-port", type=int, default=DEFAULT_PG_PORT,
                    help="the private PostgreSQL's port when BATLEHUB_TEST_PG_DSN is not set (default 55446)")
    ap.add_argument("--check", action="store_true", help="exit 1, one line per failure, when a check fails")
    ap.add_argument("--json", help="write the raw figures here")
    args = ap.parse_args()
    if args.jobs < 1 or args.workers < 1 or args.max_concurrent < 1 or args.outstanding < 0:
        ap.error("--jobs, --workers and --max-concurrent must be at least 1")

    base = os.environ.get("BATLEHUB_BENCH_DIR", "/dev/shm")
    dir_ = tempfile.mkdtemp(prefix="batlehub-soak.", dir=base)
    os.chmod(dir_, 0o755)  # the runtime starts bwrap as uid 65532 under root: it must reach the rooms
    signal.signal(signal.SIGTERM, interrupted)
    soak = Soak(args, dir_, os.path.abspath(args.build))
    began = time.monotonic()
    status = 0
    try:
        failures = soak.run()
        log()
        if failures:
            for f in failures:
                log(f"soak: {'CHECK FAILED' if args.check else 'FINDING'}: {f}")
            status = 1 if args.check else 0
        elif args.check:
            log("soak: every check passed")
    except Skip as e:
        log(f"skip: {e}")  # a line of its own: scripts/ctest-skips.py reads the reason from it
        status = 77
    except Failure as e:
        log(f"soak: FAILED: {e}")
        status = 1
    except KeyboardInterrupt:
        log("soak: interrupted; stopping what it started")
        status = 130
    finally:
        soak.cleanup()
        shutil.rmtree(dir_, ignore_errors=True)
    log(f"  ({time.monotonic() - began:.0f} s in all)")
    return status


if __name__ == "__main__":
    sys.exit(main())
