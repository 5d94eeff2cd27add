#!/usr/bin/env python3
"""scripts/ctest-skips.py on JUnit files made here: it counts and explains skips, and fails
on a skipped wall test only where the walls are."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "ctest-skips.py")


def junit(cases):
    body = ""
    for name, reason in cases:
        if reason is None:
            body += f'<testcase name="{name}" status="run"><system-out>[ OK ]</system-out></testcase>\n'
        else:
            body += (f'<testcase name="{name}" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>'
                     f"<system-out>x.cc:3: Skipped\n{reason}\n[  SKIPPED ] {name}</system-out></testcase>\n")
    f = tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False)
    f.write(f'<?xml version="1.0"?><testsuite tests="{len(cases)}">{body}</testsuite>')
    f.close()
    return f.name


def run(path, *flags):
    r = subprocess.run([sys.executable, SCRIPT, path, *flags], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


class Skips(unittest.TestCase):
    def test_counts_and_groups_reasons(self):
        p = junit([("A.x", None), ("A.y", "no docker here"), ("A.z", "no docker here"), ("B.w", "no gvisor")])
        rc, out, _ = run(p)
        self.assertEqual(rc, 0)
        self.assertIn("ctest: 4 tests, 3 skipped", out)
        self.assertIn("   2 skipped: no docker here", out)
        self.assertIn("   1 skipped: no gvisor", out)

    def test_a_wall_test_skipped_where_the_walls_are_fails(self):
        p = junit([("BwrapCgroupTest.bounded", "no cgroup"), ("Other.t", "no docker here")])
        self.assertEqual(run(p)[0], 0, "without --walls-here a skip is reported, not failed")
        rc, _, err = run(p, "--walls-here")
        self.assertEqual(rc, 1)
        self.assertIn("BwrapCgroupTest.bounded", err)
        self.assertNotIn("Other.t", err)
        self.assertEqual(run(junit([("Other.t", "no docker here")]), "--walls-here")[0], 0)


if __name__ == "__main__":
    unittest.main()
