#!/usr/bin/env python3
"""bench/verdicts/rules.py: per-rule counts from bench.py --json results — hit, blocking, and
decided alone — for benign and malicious archives, an archive counted once."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "verdicts"))
import rules  # noqa: E402


def finding(rule, severity, scanner="guarddog"):
    return {"reference": rule, "severity": severity, "scanner": scanner}


def result(sha, truth, state, findings):
    return {"sha256": sha, "truth": truth, "result": {"state": state, "findings": findings}}


class Rules(unittest.TestCase):
    def test_hit_blocking_and_alone_are_counted_apart_for_benign_and_malicious(self):
        results = [
            result("a", "benign", "denied", [finding("messenger", "high"), finding("spawn", "low")]),
            result("b", "malicious", "denied", [finding("messenger", "high"), finding("exec", "critical")]),
            result("c", "malicious", "allowed", [finding("messenger", "medium")]),
        ]
        table, totals = rules.count(results)
        self.assertEqual(totals, {"benign": 1, "malicious": 2})
        m = table[("guarddog", "messenger")]
        self.assertEqual((m["benign hit"], m["benign blocking"], m["benign alone"]), (1, 1, 1))
        self.assertEqual((m["malicious hit"], m["malicious blocking"], m["malicious alone"]), (2, 1, 0))
        self.assertEqual(table[("guarddog", "spawn")]["benign blocking"], 0)

    def test_by_place_tells_what_an_install_runs_from_the_rest(self):
        def at(rule, severity, location):
            return {**finding(rule, severity), "raw": {"location": location}}

        results = [
            # lsassy's shape (held-out-6): an unspecific rule raised to high in setup.py alone.
            result("a", "benign", "denied", [at("memory", "high", "lsassy-3.1.16/setup.py:12"),
                                             at("memory", "medium", "lsassy-3.1.16/lsassy/dumper.py:40")]),
            result("b", "malicious", "denied", [at("memory", "high", "x-1.0/setup.py:3"),
                                                at("exec", "critical", "x-1.0/x/__init__.py:1")]),
            result("c", "benign", "allowed", [at("hook", "medium", "package/package.json:7"),
                                              at("hook", "low", "package/docs/setup.py:1")]),
        ]
        table, _ = rules.count(results, by_place=True)
        inst = table[("guarddog", "memory", "install")]
        self.assertEqual((inst["benign hit"], inst["benign blocking"], inst["benign alone"]), (1, 1, 1))
        self.assertEqual((inst["malicious blocking"], inst["malicious alone"]), (1, 0))
        self.assertEqual(table[("guarddog", "memory", "elsewhere")]["benign blocking"], 0)
        self.assertEqual(table[("guarddog", "hook", "install")]["benign hit"], 1)
        self.assertEqual(table[("guarddog", "hook", "elsewhere")]["benign hit"], 1)
        self.assertEqual(rules.place("pkg-1.0/setup.py:1"), "install")
        self.assertEqual(rules.place("pkg-1.0/sub/setup.py:1"), "elsewhere")
        self.assertEqual(rules.place("pkg-1.0/pkg/evil.pth:1"), "install")

    def test_an_archive_in_two_files_counts_once_from_the_last(self):
        with tempfile.TemporaryDirectory() as d:
            old, new = os.path.join(d, "old.json"), os.path.join(d, "new.json")
            with open(old, "w") as f:
                json.dump({"results": [result("a", "benign", "denied", [finding("x", "high")])]}, f)
            with open(new, "w") as f:
                json.dump({"results": [result("a", "benign", "allowed", [finding("x", "medium")])]}, f)
            table, totals = rules.count(rules.load([old, new]))
        self.assertEqual(totals, {"benign": 1})
        self.assertEqual(table[("guarddog", "x")]["benign blocking"], 0)


if __name__ == "__main__":
    unittest.main()
