#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus into tests/fuzz/corpus/<target>/.

Deterministic: every timestamp is fixed and gzip's mtime is 0, so running it again gives
the same bytes (and an unchanged `git status`). Run it from anywhere:

    python3 tests/fuzz/make_corpus.py

It replaces the four corpus directories wholesale. The seeds are small on purpose (the
whole corpus is a few tens of KiB); the fuzzers grow their working corpus in a temporary
copy (scripts/fuzz.sh), never here.
"""

import base64
import gzip
import io
import json
import shutil
import tarfile
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
MTIME = 1_700_000_000  # any fixed instant
ZIP_TIME = (2023, 11, 14, 22, 13, 20)


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / name).write_bytes(data)


# --------------------------------------------------------------------------------------
# fuzz_manifest: manifest.json (src/wire/manifest.h)


def manifest(**over):
    m = {
        "wire": 3,
        "argv": ["/usr/bin/scanner", "--json", "/work/in"],
        "network": False,
        "limits": {"memory_limit_mb": 512, "cpu_seconds": 60},
        "timeout_ms": 30000,
        "extract_policy": {"max_entries": 50000, "max_extracted_bytes": 536870912, "max_ratio": 100},
        "entries": [],
    }
    m.update(over)
    return m


def manifests():
    inline = {"kind": "inline", "path": "in/package-lock.json",
              "base64": base64.b64encode(b'{"lockfileVersion": 3}\n').decode()}
    file_entry = {"kind": "file", "url": "https://example.com/a/b.whl", "path": "in/b.whl", "size": 4096}
    archive = {"kind": "archive", "url": "file:///srv/inputs/pkg-1.0.tar.gz", "path": "in/pkg",
               "size": 123456, "strip_wrapper": True}
    valid = {
        "inline": manifest(entries=[inline]),
        "file": manifest(entries=[file_entry]),
        "archive_strip": manifest(entries=[archive]),
        "all_kinds": manifest(argv=["scan", "--unicode-\u00e9\u4e2d", ""], network=True,
                              entries=[inline, file_entry, dict(archive, strip_wrapper=False),
                                       {"kind": "inline", "path": "empty", "base64": ""},
                                       {"kind": "inline", "path": "one", "base64": "QQ=="}]),
        "probe": manifest(argv=[], timeout_ms=5000,
                          probe={"canaries": ["127.0.0.1:8080", "[::1]:53", "10.0.0.1:443", "[fe80::1]:65535"],
                                 "commands": ["/usr/bin/scanner", "/bin/true"]}),
        "probe_with_argv": manifest(probe={"canaries": [], "commands": []}),
        # wire 2: a gem, its data.tar.gz descended in place.
        "archive_descend": manifest(entries=[dict(archive, path="vendor/bundle/gems/evil-0.1.0",
                                                  descend="data.tar.gz")]),
        "zero_limits": manifest(limits={"memory_limit_mb": 0, "cpu_seconds": 0},
                                extract_policy={"max_entries": 1, "max_extracted_bytes": 0, "max_ratio": 1}),
    }
    for name, m in valid.items():
        write("fuzz_manifest", f"valid_{name}.json", json.dumps(m, indent=2, ensure_ascii=False))
    # The same document compact, with escapes the serializer never writes.
    write("fuzz_manifest", "valid_escapes.json",
          '{"wire":3,"argv":["\\/bin\\/scan","\\u00e9\\ud83d\\ude00","\\t"],"network":false,'
          '"limits":{"memory_limit_mb":1,"cpu_seconds":1},"timeout_ms":1,'
          '"extract_policy":{"max_entries":1,"max_extracted_bytes":1,"max_ratio":1},"entries":[],'
          '"probe":null}')

    near = {
        "wire1": manifest(wire=1),
        "wire2": manifest(wire=2),
        "wire4": manifest(wire=4),
        "descend_on_file": manifest(entries=[dict(file_entry, descend="data.tar.gz")]),
        "descend_dotdot": manifest(entries=[dict(archive, descend="../data.tar.gz")]),
        "descend_not_string": manifest(entries=[dict(archive, descend=["data.tar.gz"])]),
        "unknown_key": manifest(extra=True),
        "dotdot_path": manifest(entries=[dict(inline, path="in/../../etc/passwd")]),
        "backslash_path": manifest(entries=[dict(inline, path="in\\x")]),
        "bad_base64": manifest(entries=[dict(inline, base64="QQ=")]),
        "name_canary": manifest(argv=[], probe={"canaries": ["localhost:80"], "commands": []}),
        "bad_port": manifest(argv=[], probe={"canaries": ["[::1]:65536"], "commands": []}),
        "relative_command": manifest(argv=[], probe={"canaries": [], "commands": ["bin/true"]}),
        "no_argv": manifest(argv=[]),
        "ftp_url": manifest(entries=[dict(file_entry, url="ftp://example.com/x")]),
        "strip_on_file": manifest(entries=[dict(file_entry, strip_wrapper=True)]),
        "negative_size": manifest(entries=[dict(file_entry, size=-1)]),
        "float_timeout": manifest(timeout_ms=1.5),
        "zero_ratio": manifest(extract_policy={"max_entries": 1, "max_extracted_bytes": 1, "max_ratio": 0}),
        "argv_nul": manifest(argv=["a\u0000b"]),
    }
    for name, m in near.items():
        write("fuzz_manifest", f"bad_{name}.json", json.dumps(m, indent=2))
    write("fuzz_manifest", "bad_deep.json", "[" * 40 + "]" * 40)
    write("fuzz_manifest", "bad_truncated.json", json.dumps(valid["inline"])[:-7])
    write("fuzz_manifest", "bad_utf8.json", json.dumps(manifest(argv=["X"])).encode().replace(b'"X"', b'"\xff\xfe"'))


# --------------------------------------------------------------------------------------
# fuzz_result: result.json (src/wire/run_result.h)


def result(**over):
    r = {
        "wire": 3,
        "agent_version": "0.1.0",
        "ran": True,
        "exit_code": 0,
        "signal": None,
        "timed_out": False,
        "stdout_bytes": 1234,
        "stdout_over_cap": False,
        "stderr_tail": "warning: something\n",
        "extract": {"files": 12, "directories": 3, "bytes": 45678, "refused_by_type": 1, "nested_archives": 0},
        "timings_ms": {"fetch": 10, "extract": 20, "run": 3000},
        "failure": None,
        "probe": None,
    }
    r.update(over)
    return r


def results():
    checks = ["no_network", "read_only_root", "one_writable_dir", "empty_environment", "unprivileged",
              "no_credentials", "no_shell", "commands_exist", "wire_version", "pid_namespace", "seccomp_filter",
              "no_new_privs", "canary_syscall", "clone3_enosys", "rlimits"]
    verdicts = ["pass", "fail", "warn"]
    probe = {
        "assertions": [{"check": c, "verdict": verdicts[i % 3], "evidence": f"evidence for {c}"}
                       for i, c in enumerate(checks)],
        "commands": [{"path": "/usr/bin/scanner", "sha256": "ab" * 32, "size": 1048576},
                     {"path": "/bin/missing", "sha256": "", "size": 0}],
        "kernel": "Linux 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016 x86_64",
    }
    valid = {
        "ok": result(),
        "minimal": {k: v for k, v in result(exit_code=None).items() if v is not None},
        "signal_timeout": result(exit_code=None, signal=9, timed_out=True, stdout_over_cap=True,
                                 stdout_bytes=33554432, stderr_tail="\u00e9\u4e2d\U0001F600 tail"),
        "failure": result(ran=False, exit_code=None, stdout_bytes=0, stderr_tail="",
                          failure={"kind": "traversal", "message": "archive entry '../x' escapes the extraction root"}),
        "probe": result(ran=False, exit_code=None, probe=probe),
        "probe_and_failure": result(ran=False, exit_code=None, probe={"assertions": [], "commands": [], "kernel": ""},
                                    failure={"kind": "wire_version", "message": "wire 1"}),
    }
    for name, r in valid.items():
        write("fuzz_result", f"valid_{name}.json", json.dumps(r, indent=2, ensure_ascii=False))
    near = {
        "wire0": result(wire=0),
        "exit_and_signal": result(signal=9),
        "exit_256": result(exit_code=256),
        "signal_0": result(exit_code=None, signal=0),
        "bad_failure_kind": result(failure={"kind": "oops", "message": ""}),
        "bad_check": result(probe={"assertions": [{"check": "nope", "verdict": "pass", "evidence": ""}],
                                   "commands": []}),
        "over_cap": result(stdout_bytes=33554433),
        "unknown_key": result(extra=1),
        "long_version": result(agent_version="v" * 65),
    }
    for name, r in near.items():
        write("fuzz_result", f"bad_{name}.json", json.dumps(r, indent=2))


# --------------------------------------------------------------------------------------
# fuzz_extract: .tar, .tar.gz and .zip (src/agent/extract.h)


def tar_bytes(members, fmt=tarfile.GNU_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for m in members:
            kind, name = m[0], m[1]
            info = tarfile.TarInfo(name)
            info.mtime = MTIME
            info.uname = info.gname = "fuzz"
            data = None
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
            elif kind == "file":
                data = m[2]
                info.size = len(data)
                info.mode = m[3] if len(m) > 3 else 0o644
            elif kind == "symlink":
                info.type = tarfile.SYMTYPE
                info.linkname = m[2]
            elif kind == "hardlink":
                info.type = tarfile.LNKTYPE
                info.linkname = m[2]
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            elif kind == "chr":
                info.type = tarfile.CHRTYPE
                info.devmajor, info.devminor = 1, 3
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    return trim_tar(buf.getvalue())


def trim_tar(data):
    """tarfile pads to a 10 KiB record; keep only the entries and the two zero blocks."""
    end = len(data.rstrip(b"\0"))
    end = (end + 511) // 512 * 512
    return data[:end] + b"\0" * 1024


def _octal(n, width):
    return (b"%0*o" % (width - 1, n)) + b"\0"


def _pad(b):
    return b + b"\0" * ((512 - len(b) % 512) % 512)


def _header(name, size, typeflag, magic=b"ustar\x0000", extra=None):
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = _octal(0o644, 8)
    h[108:116] = _octal(0, 8)
    h[116:124] = _octal(0, 8)
    h[124:136] = _octal(size, 12)
    h[136:148] = _octal(MTIME, 12)
    h[156] = ord(typeflag)
    h[257:265] = magic
    for at, value in (extra or {}).items():
        h[at:at + len(value)] = value
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def gnu_sparse_tar(name, regions, realsize):
    """An old-GNU sparse entry (typeflag 'S'; at most 4 regions, no extension headers),
    which Python's tarfile cannot write. `regions` are (offset, length) data blocks."""
    extra = {}
    for i, (off, n) in enumerate(regions):
        extra[386 + 24 * i] = _octal(off, 12) + _octal(n, 12)
    extra[483] = _octal(realsize, 12)
    data = b"S" * sum(n for _, n in regions)
    return _header(name, len(data), "S", b"ustar  \0", extra) + _pad(data) + b"\0" * 1024


def pax_sparse_tar(name, regions, realsize):
    """A GNU sparse 1.0 entry in a pax archive: the map leads the entry's data."""
    def record(k, v):
        body = f" {k}={v}\n"
        n = len(body) + 1
        while len(str(n)) + len(body) != n:
            n += 1
        return (str(n) + body).encode()
    recs = b"".join([record("GNU.sparse.major", 1), record("GNU.sparse.minor", 0),
                     record("GNU.sparse.name", name), record("GNU.sparse.realsize", realsize)])
    sparse_map = f"{len(regions)}\n" + "".join(f"{o}\n{n}\n" for o, n in regions)
    data = _pad(sparse_map.encode()) + b"P" * sum(n for _, n in regions)
    return (_header("./PaxHeaders/" + name, len(recs), "x") + _pad(recs) +
            _header("GNUSparseFile.0/" + name, len(data), "0") + _pad(data) + b"\0" * 1024)


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as g:
        g.write(data)
    return buf.getvalue()


def gz_member(data, level=6, extra=b"", name=b"", comment=b"", hcrc=False):
    """One gzip member written field by field (RFC 1952), for the seeds of igzip's header
    parser (src/agent/gunzip.h): FEXTRA, FNAME, FCOMMENT and FHCRC, at any deflate level."""
    flags = (0x02 if hcrc else 0) | (0x04 if extra else 0) | (0x08 if name else 0) | (0x10 if comment else 0)
    head = b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\x03"
    if extra:
        head += len(extra).to_bytes(2, "little") + extra
    if name:
        head += name + b"\0"
    if comment:
        head += comment + b"\0"
    if hcrc:
        head += (zlib.crc32(head) & 0xffff).to_bytes(2, "little")
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    return head + body + zlib.crc32(data).to_bytes(4, "little") + (len(data) & 0xffffffff).to_bytes(4, "little")


def zip_bytes(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for m in members:
            kind, name = m[0], m[1]
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.create_system = 3  # Unix, so external_attr's high half is a st_mode
            if kind == "dir":
                info.external_attr = (0o40755 << 16) | 0x10
                z.writestr(info, b"")
            elif kind == "file":
                info.external_attr = (m[3] if len(m) > 3 else 0o100644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED if len(m[2]) > 64 else zipfile.ZIP_STORED
                z.writestr(info, m[2])
            elif kind == "symlink":
                info.external_attr = 0o120777 << 16
                z.writestr(info, m[2].encode())
    return buf.getvalue()


def gem(data_tar):
    """A .gem as `gem build` writes it, around the tar that becomes its data.tar.gz."""
    return tar_bytes([("file", "metadata.gz", gz(b"--- !ruby/object:Gem::Specification\nname: evil\n")),
                      ("file", "data.tar.gz", gz(data_tar)),
                      ("file", "checksums.yaml.gz", gz(b"---\n"))], tarfile.USTAR_FORMAT)


def archives():
    text = b"hello from a fuzz seed\n" * 8
    basic = [("dir", "pkg/"), ("file", "pkg/a.txt", b"alpha\n"), ("file", "pkg/sub/b.bin", text)]
    hostile = basic + [
        ("symlink", "pkg/link", "../../outside"),
        ("hardlink", "pkg/hard", "pkg/a.txt"),
        ("file", "../escape", b"should never be written\n"),
    ]
    links = basic + [("symlink", "pkg/link", "/etc/passwd"), ("hardlink", "pkg/hard", "pkg/a.txt"),
                     ("fifo", "pkg/fifo"), ("chr", "pkg/null"), ("file", "pkg/after", b"after the links\n")]
    wrapper = [("dir", "name-1.0/"), ("file", "name-1.0/setup.py", b"print('x')\n"),
               ("dir", "name-1.0/src/"), ("file", "name-1.0/src/m.py", b"x = 1\n")]
    seeds = {
        "basic.tar": tar_bytes(basic),
        "basic_ustar.tar": tar_bytes(basic, tarfile.USTAR_FORMAT),
        "basic_pax.tar": tar_bytes(basic + [("file", "pkg/" + "long-name-" * 15 + ".txt", b"pax\n")],
                                   tarfile.PAX_FORMAT),
        "links.tar": tar_bytes(links),
        "hostile.tar": tar_bytes(hostile),
        "escape_first.tar": tar_bytes([("file", "../escape", b"x\n")]),
        "absolute.tar": tar_bytes([("file", "/tmp/abs", b"x\n")], tarfile.USTAR_FORMAT),
        "wrapper.tar": tar_bytes(wrapper),
        "replace_dir_with_file.tar": tar_bytes([("dir", "d/"), ("file", "d/x", b"1"), ("file", "d", b"2")]),
        "symlink_then_file.tar": tar_bytes([("symlink", "s", "."), ("file", "s/x", b"through the link?\n")]),
        "exec_setuid.tar": tar_bytes([("file", "run.sh", b"#!/bin/sh\n", 0o4755)]),
        "sparse_gnu.tar": gnu_sparse_tar("holes.bin", [(0, 512), (65536, 512)], 65536 + 1024),
        "sparse_pax.tar": pax_sparse_tar("holes.bin", [(0, 100), (8192, 100)], 8292),
        # Regressions: a block placed past the declared size (fuzz_extract's first find)
        # must be charged by where it lands, not by its length.
        "sparse_past_size_gnu.tar": gnu_sparse_tar("holes.bin", [(0, 512), (524288, 512)], 65536 + 1024),
        "sparse_past_size_pax.tar": pax_sparse_tar("far.bin", [(0, 10), (50_000_000, 10)], 20),
        "nested.tar": tar_bytes([("file", "inner.tar.gz", gz(tar_bytes(basic)))]),
        # Gems (plain tars of metadata.gz, data.tar.gz, checksums.yaml.gz): fuzz_extract's
        # third pass descends data.tar.gz. A clean one, a bomb and an escape inside it.
        "gem.tar": gem(tar_bytes([("dir", "lib/"), ("file", "lib/evil.rb", b"system('id')\n"),
                                  ("file", "evil.gemspec", b"spec\n")])),
        "gem_bomb.tar": gem(tar_bytes([("file", "lib/zeros.rb", b"\0" * 2_000_000)])),
        "gem_escape.tar": gem(tar_bytes([("file", "lib/ok.rb", b"ok\n"), ("file", "../../escape", b"x\n")])),
        "gem_links.tar": gem(tar_bytes(links)),
        "basic.tar.gz": gz(tar_bytes(basic)),
        "hostile.tar.gz": gz(tar_bytes(hostile)),
        "wrapper.tar.gz": gz(tar_bytes(wrapper, tarfile.PAX_FORMAT)),
        # The gzip layer (igzip): members, header fields, every block type, and the ways a
        # stream ends badly.
        "two_members.tar.gz": gz_member(tar_bytes(basic)[:700]) + gz_member(tar_bytes(basic)[700:], 1),
        "header_fields.tar.gz": gz_member(tar_bytes(wrapper), 6, extra=b"AB\x04\0wxyz", name=b"pkg.tar",
                                          comment=b"seed", hcrc=True),
        "stored.tar.gz": gz_member(tar_bytes(basic), 0),
        "dynamic.tar.gz": gz_member(tar_bytes([("file", "pkg/src.js", b"module.exports = require('x');\n" * 300)]), 9),
        "trailing_junk.tar.gz": gz_member(tar_bytes(basic)) + b"\0" * 64 + b"\x1f",
        "bad_crc.tar.gz": (lambda g: g[:-8] + bytes([g[-8] ^ 1]) + g[-7:])(gz_member(tar_bytes(basic))),
        "truncated.tar.gz": gz_member(tar_bytes(basic))[:-20],
        "zeros.tar.gz": gz_member(tar_bytes([("file", "pkg/zeros.bin", b"\0" * 1_000_000)]), 9),
        "basic.zip": zip_bytes(basic),
        "hostile.zip": zip_bytes(basic + [("symlink", "pkg/link", "../../outside"),
                                          ("file", "../escape", b"never\n")]),
        "backslash.zip": zip_bytes([("dir", "pkg\\"), ("file", "pkg\\win\\path.txt", b"backslashes\n"),
                                    ("file", "pkg\\other.txt", b"more\n")]),
        "backslash_escape.zip": zip_bytes([("file", "pkg\\ok.txt", b"fine\n"),
                                           ("file", "pkg\\..\\..\\escape", b"never\n")]),
        "dot_entries.tar": tar_bytes([("dir", "./"), ("dir", "./a/"), ("file", "./a/./b", b"b\n"),
                                      ("file", "a//c", b"c\n")]),
        "wrapper.zip": zip_bytes(wrapper),
        "exec.zip": zip_bytes([("file", "tool", b"\x7fELF", 0o104755)]),
        "empty.zip": zip_bytes([]),
    }
    for name, data in seeds.items():
        write("fuzz_extract", name, data)
    write("fuzz_extract", "not_an_archive.txt", b"just text, no magic\n")


# --------------------------------------------------------------------------------------
# fuzz_out_tar: out.tar (src/agent/out_tar.h)


def ustar_header(name, size):
    """The header build_out_tar writes (src/agent/out_tar.cc put_header), byte for byte."""
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = b"%07o\0" % 0o644
    h[108:116] = b"%07o\0" % 0
    h[116:124] = b"%07o\0" % 0
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"%011o\0" % 0
    h[156] = ord("0")
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = b" " * 8
    s = sum(h)
    h[148:155] = b"%06o\0" % s
    h[155] = ord(" ")
    return bytes(h)


def out_tar(result_json, stdout):
    out = b""
    for name, data in (("result.json", result_json), ("stdout", stdout)):
        out += ustar_header(name, len(data)) + data + b"\0" * ((512 - len(data) % 512) % 512)
    return out + b"\0" * 1024


def tarfile_out_tar(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = MTIME
            t.addfile(info, io.BytesIO(data))
    return trim_tar(buf.getvalue())


def out_tars():
    ok = json.dumps(result(), indent=2).encode()
    fail = json.dumps(result(ran=False, exit_code=None,
                             failure={"kind": "fetch", "message": "HTTP 404"})).encode()
    write("fuzz_out_tar", "built_ok.tar", out_tar(ok, b'{"findings": []}\n'))
    write("fuzz_out_tar", "built_failure_empty_stdout.tar", out_tar(fail, b""))
    write("fuzz_out_tar", "built_block_sized.tar", out_tar(b"{}" * 256, bytes(range(256)) * 4))
    write("fuzz_out_tar", "tarfile_ok.tar", tarfile_out_tar([("result.json", ok), ("stdout", b"line\n")]))
    write("fuzz_out_tar", "tarfile_swapped.tar", tarfile_out_tar([("stdout", b"x"), ("result.json", b"{}")]))
    write("fuzz_out_tar", "bad_extra_entry.tar",
          tarfile_out_tar([("result.json", b"{}"), ("stdout", b""), ("extra", b"!")]))
    write("fuzz_out_tar", "bad_duplicate.tar",
          tarfile_out_tar([("result.json", b"{}"), ("result.json", b"{}"), ("stdout", b"")]))
    write("fuzz_out_tar", "bad_no_stdout.tar", tarfile_out_tar([("result.json", b"{}")]))
    write("fuzz_out_tar", "bad_truncated.tar", out_tar(ok, b"0123456789" * 60)[:1100])


def main():
    for target in ("fuzz_manifest", "fuzz_result", "fuzz_extract", "fuzz_out_tar"):
        shutil.rmtree(CORPUS / target, ignore_errors=True)
    manifests()
    results()
    archives()
    out_tars()
    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    count = sum(1 for p in CORPUS.rglob("*") if p.is_file())
    print(f"make_corpus: wrote {count} seeds, {total} bytes, under {CORPUS}")


if __name__ == "__main__":
    main()
