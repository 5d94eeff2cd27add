#!/usr/bin/env python3
"""`batlehub check-config --config FILE`: the loader and the validator as the worker runs them,
and nothing else (no queue, no listener, no probe).

    check_config_test.py BATLEHUB_BIN

Exit 0: the runtime and the scanners on stdout, then one "warning: …" line per warning.
Exit 2: the loader's "file:line: key: message" on stdout, or a usage error.
"""
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failures = []


def run(toml, env=None, args=None):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(toml)
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
default = "s3"
[storage.backends.s3]
type = "s3"
endpoint = "http://minio.batlehub.svc:9000"
bucket = "cache"
"""

expect("an empty file is today's defaults", run(""), 0, "runtime bwrap\nscanners\n")
expect("a kubernetes config: its runtime and scanners, in file order", run(KUBERNETES), 0,
       "runtime kubernetes\nscanners guarddog osv\n")
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
       contains="runtime none\nscanners\nwarning: FILE:2: worker.sandbox.runtime: runtime = \"none\": scanners run in")
no_image = KUBERNETES.replace('image = "batlehub-sandbox-guarddog:0.1.0"\n', "")
expect("a sandboxed scanner with no image from anywhere is refused (rule 27)", run(no_image), 2,
       contains="scanner 'guarddog' has no image to run from under runtime 'kubernetes'")
expect("… and BATLEHUB_IMAGE is read, as the worker reads it", run(no_image, {"BATLEHUB_IMAGE": "w:1"}), 0,
       "runtime kubernetes\nscanners guarddog osv\n")
expect("a file that does not exist", run("", args=["--config", "/nonexistent/config.toml"]), 2,
       "/nonexistent/config.toml: cannot be opened: No such file or directory\n")
expect("--config is required", run("", args=[]), 2)

sys.exit(1 if failures else 0)
