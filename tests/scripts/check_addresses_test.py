#!/usr/bin/env python3
"""The address guard (scripts/check-addresses.py) on trees made here: it must refuse what it
exists to refuse, not only pass on the project's own tree."""
import os
import subprocess
import sys
import tempfile
import unittest

GUARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "check-addresses.py")


def tree(files):
    root = tempfile.mkdtemp(prefix="check-addresses-")
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    return root


def guard(files, allow=""):
    root = tree(dict(files, **{"scripts/address-allowlist.txt": allow}))
    r = subprocess.run([sys.executable, GUARD, root], capture_output=True, text=True)
    return r.returncode, r.stderr


# Literals are assembled so that this file itself holds none the guard would flag.
PUBLIC = ".".join(["1", "1", "1", "1"])
PRIVATE = ".".join(["192", "168", "0", "7"])
V6 = ":".join(["2001", "db8", "", "1"])


class Guard(unittest.TestCase):
    def test_loopback_and_cxx_scopes_pass(self):
        rc, err = guard({"tests/a.cc": 'connect("127.0.0.1:9"); connect("[::1]:9"); std::string x; a::b::c();\n'
                                        'version = "1.2.3.4.5"; mac = "aa:bb:cc:dd:ee:ff"; t = "12:30:45"\n'})
        self.assertEqual(rc, 0, err)

    def test_a_public_a_private_and_a_v6_address_fail_with_file_and_line(self):
        rc, err = guard({"bench/b.cc": f'\n"{PUBLIC}:53"\n', "examples/c.toml": f'x = "{PRIVATE}:80"\n',
                         "tests/d.py": f'peer = "[{V6}]:443"\n'})
        self.assertEqual(rc, 1)
        self.assertIn(f"bench/b.cc:2: {PUBLIC} is not an address on this machine", err)
        self.assertIn(f"examples/c.toml:1: {PRIVATE} is not an address on this machine", err)
        self.assertIn(f"tests/d.py:1: {V6} is not an address on this machine", err)

    def test_a_listed_literal_passes_only_with_a_reason_and_only_while_it_is_there(self):
        files = {"tests/e.cc": f'parse("{PUBLIC}:53");\n'}
        self.assertEqual(guard(files, f"tests/e.cc {PUBLIC} # only parsed by the codec under test\n")[0], 0)
        rc, err = guard(files, f"tests/e.cc {PUBLIC}\n")
        self.assertNotEqual(rc, 0)
        self.assertIn("with a reason of its own", err)
        rc, err = guard({"tests/e.cc": "nothing here\n"}, f"tests/e.cc {PUBLIC} # only parsed by the codec\n")
        self.assertEqual(rc, 1)
        self.assertIn("is no longer in tests/e.cc", err)


if __name__ == "__main__":
    unittest.main()
