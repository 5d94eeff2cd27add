#!/usr/bin/env python3
"""`batlehub check-config --config FILE`: the loader and the validator as the worker runs them,
and nothing else (no queue, no listener, no probe).

    check_config_test.py BATLEHUB_BIN UPSTREAM_COMPLETE_TOML

Exit 0: the runtime and the scanners on stdout, then one "warning: …" line per warning.
Exit 2: the loader's "file:line: key: message" on stdout, or a usage error.

UPSTREAM_COMPLETE_TOML (tests/config/upstream/complete.toml) is a complete upstream
configuration: check-config loads it unchanged and names each network scanner not in this
build; `batlehub scan` and `batlehub worker` say the same at start, on stderr.
"""
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
UPSTREAM = sys.argv[2]
failures = []


# Every file needs [storage] (upstream refuses one without it); a snippet about something else
# gets one filesystem backend appended, below every line the expectations count.
FS_STORAGE = '\n[storage]\ntype = "filesystem"\npath = "/var/cache/batlehub"\n'
FS_LINE = "storage one backend: filesystem /var/cache/batlehub\n"


def run(toml, env=None, args=None, as_is=False):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(toml if as_is or "[storage" in toml else toml + FS_STORAGE)
        path = f.name
    try:
        e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        e.update(env or {})
        p = subprocess.run([BIN, "check-config"] + (args if args is not None else ["--config", path]),
                           capture_output=True, text=True, env=e, timeout=30)
        return p.returncode, p.stdout.replace(path, "FILE"), p.stderr
    finally:
        os.unlink(path)


def expect(name, got, rc, stdout=None, contains=None):
    code, out, err = got
    ok = code == rc and (stdout is None or out == stdout) and (contains is None or contains in out)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {code}")
    if not ok:
        failures.append(name)
        print(f"  expected exit {rc}, stdout {stdout!r} / containing {contains!r}\n  stdout: {out!r}\n  stderr: {err!r}")


KUBERNETES = """
[worker.sandbox]
runtime = "kubernetes"
memory_limit_mb = 1024
max_extracted_mb = 256

[worker.sandbox.kubernetes]
namespace = "batlehub-sandbox"

[scanners.guarddog]
command = "guarddog"
image = "batlehub-sandbox-guarddog:0.1.0"

[scanners.osv]

[storage]
type = "s3"
bucket = "cache"
region = "us-east-1"
endpoint_url = "http://minio.batlehub.svc:9000"
force_path_style = true
"""
S3_LINE = "storage one backend: s3 bucket cache, region us-east-1, endpoint http://minio.batlehub.svc:9000, path-style\n"

expect("an empty file is refused, as upstream refuses it: [storage] is required", run("", as_is=True), 2,
       contains="FILE: storage: [storage] is missing; upstream requires it too.")
expect("a file with only [storage] is today's defaults", run(""), 0, "runtime bwrap\nscanners\n" + FS_LINE)
expect("a kubernetes config: its runtime and scanners, in file order (osv runs in the worker: no warning)",
       run(KUBERNETES), 0, "runtime kubernetes\nscanners guarddog osv\n" + S3_LINE)
expect("an unknown key is the loader's refusal, with its line",
       run('[worker.sandbox]\nmemory_limit = 1\n'), 2,
       "FILE:2: worker.sandbox.memory_limit: unknown key 'memory_limit' in [worker.sandbox] "
       "(did you mean 'memory_limit_mb'?)\n")
expect("a validation rule (19) refuses", run(KUBERNETES.replace("max_extracted_mb = 256", "max_extracted_mb = 1024")), 2,
       contains="FILE:5: worker.sandbox.max_extracted_mb: max_extracted_mb = 1024 is not below memory_limit_mb = 1024")
expect("runtime none is refused without BATLEHUB_UNSAFE_NO_SANDBOX=1",
       run('[worker.sandbox]\nruntime = "none"\n'), 2, contains="BATLEHUB_UNSAFE_NO_SANDBOX=1")
expect("runtime none with BATLEHUB_UNSAFE_NO_SANDBOX=1 loads, with its warning",
       run('[worker.sandbox]\nruntime = "none"\n', {"BATLEHUB_UNSAFE_NO_SANDBOX": "1"}), 0,
       contains="runtime none\nscanners\n" + FS_LINE + "warning: FILE:2: worker.sandbox.runtime: runtime = \"none\": scanners run in")
no_image = KUBERNETES.replace('image = "batlehub-sandbox-guarddog:0.1.0"\n', "")
expect("a sandboxed scanner with no image from anywhere is refused (rule 27)", run(no_image), 2,
       contains="scanner 'guarddog' has no image to run from under runtime 'kubernetes'")
expect("… and BATLEHUB_IMAGE is read, as the worker reads it", run(no_image, {"BATLEHUB_IMAGE": "w:1"}), 0,
       "runtime kubernetes\nscanners guarddog osv\n" + S3_LINE)
expect("a file that does not exist", run("", args=["--config", "/nonexistent/config.toml"]), 2,
       "/nonexistent/config.toml: cannot be opened: No such file or directory\n")
expect("without --config, BATLEHUB_CONFIG names the file", run("", {"BATLEHUB_CONFIG": "/nonexistent/b.toml"}, args=[]),
       2, "/nonexistent/b.toml: cannot be opened: No such file or directory\n")
with tempfile.TemporaryDirectory() as empty:
    p = subprocess.run([BIN, "check-config"], capture_output=True, text=True, cwd=empty,
                       env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=30)
    expect("without --config nor BATLEHUB_CONFIG nor ./config.toml, check-config says where it looked",
           (p.returncode, p.stdout, p.stderr), 2,
           "batlehub check-config: no configuration: pass --config, set BATLEHUB_CONFIG, or put config.toml in the "
           "working directory\n")

# ---- a complete upstream configuration loads unchanged (RFC 0022 §9) -------------------------------
with open(UPSTREAM) as f:
    upstream = f.read()


expect("check-config loads the complete upstream config: every scanner, each of which runs, and no warning",
       run(upstream), 0,
       "runtime bwrap\nscanners osv trivy postmortem guarddog mlab sigstore socket yara\n" +
       "storage one backend: s3 bucket batlehub-cache, region us-east-1, endpoint http://127.0.0.1:9, path-style, "
       "prefix cache/\n"
       "read by the proxy, not by this worker: database.max_connections, [stats], registries (all but each one's "
       "name, type, storage, upstreams and security table), [auth], [upstream_audit], [notifications]\n")
expect("… while an unknown scanner type is still the loader's refusal, with its line",
       run(upstream.replace('type    = "mlab"', 'type    = "mlabs"')), 2,
       "FILE:67: scanners.mlab.type: type = \"mlabs\" is not one of postmortem, guarddog, trivy, yara, signals, behavior, osv, mlab, "
       "sigstore, socket\n")
expect("… and socket without its api_key is refused, as upstream validates it",
       run(upstream.replace('api_key = "socket-test-key"\n', "")), 2,
       "FILE:76: scanners.socket.api_key: api_key is required for a socket scanner (socket.dev's API key)\n")


# ---- tests/config/upstream/: every file as `batlehub check-config` loads it ----------------------
CORPUS = os.path.dirname(os.path.abspath(UPSTREAM))
CORPUS_ENV = {"DATABASE_URL": "postgres://env@127.0.0.1:5432/env", "S3_BUCKET": "from-the-environment",
              "CACHE_DIR": "/srv/batlehub"}
for name in sorted(n for n in os.listdir(CORPUS) if n.endswith(".toml")):
    env = dict(CORPUS_ENV)
    if name == "env-overrides.toml":
        env.update({"PROXY_CACHE__DATABASE__URL": "postgres://o@127.0.0.1:5432/o",
                    "PROXY_CACHE__STORAGE__BUCKET": "override-bucket"})
    got = run("", env, args=["--config", os.path.join(CORPUS, name)])
    expect(f"upstream/{name} loads", got, 0, contains="\nstorage ")
    if name == "env-overrides.toml":
        expect("… and check-config names each override", got, 0,
               contains="override: database.url from PROXY_CACHE__DATABASE__URL\n"
                        "override: storage.bucket from PROXY_CACHE__STORAGE__BUCKET\n")
    if name == "proxy-and-worker.toml":
        expect("… and names the proxy's sections once", got, 0,
               contains="read by the proxy, not by this worker: log_level, server.tls, database.max_connections, "
                        "[cache], [stats], [auth], [upstream_audit], [notifications]\n")
for name in sorted(n for n in os.listdir(os.path.join(CORPUS, "refused")) if n.endswith(".toml")):
    path = os.path.join(CORPUS, "refused", name)
    with open(path) as f:
        want = f.readline()[len("# refused: "):].replace("FILE", path, 1)
    expect(f"upstream/refused/{name} is refused with its line", run("", CORPUS_ENV, args=["--config", path]), 2, want)


def start(command, extra):
    """`batlehub <command>` on the upstream file, run only until it stops on a yara rules_dir that is
    not there (exit 2), before any sandbox: what it said at start, on stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        text = (upstream.replace('rules_dir = "/etc/batlehub/yara"', f'rules_dir = "{tmp}/no-rules"')
                .replace('url             = "postgres://batlehub@127.0.0.1:5432/batlehub"', 'url = ""')
                .replace("[worker]\n", f'[worker]\nstate_dir = "{tmp}/state"\n')
                .replace('host  = "0.0.0.0"\nport  = 8080', 'host = "127.0.0.1"\nport = 0'))
        # The worker builds [storage] at start: a bucket on port 9 would stop it there, before the
        # warnings this checks, so its storage is a directory here.
        text = text[:text.index("# upstream-storage-and-queue.md A.2")] + \
            f'[storage]\ntype = "filesystem"\npath = "{tmp}/cache"\n'
        path = os.path.join(tmp, "upstream.toml")
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([BIN, command, "--config", path] + extra, capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=30)
        return p.returncode, p.stdout.replace(path, "FILE").replace(tmp, "TMP"), \
            p.stderr.replace(path, "FILE").replace(tmp, "TMP")


for command, extra in (("scan", ["/nonexistent/left-pad-1.3.0.tgz"]), ("worker", [])):
    code, out, err = start(command, extra)
    said = [l for l in err.splitlines() if l.startswith("WARN config: ")]
    # Every scanner type of upstream's file runs now: nothing to warn about at start.
    ok = code == 2 and said == [] and "yara rules_dir TMP/no-rules" in out + err
    print(f"{'ok  ' if ok else 'FAIL'} batlehub {command} starts on upstream's file with no scanner warning: exit {code}")
    if not ok:
        failures.append(f"batlehub {command}")
        print(f"  expected exit 2 and no WARN config line\n  stdout: {out!r}\n  stderr: {err!r}")

sys.exit(1 if failures else 0)
