#!/usr/bin/env python3
"""bench/verdicts/campaigns.py's cap: a mass campaign weighs 10 % of the set it is scored in,
a single archive is never capped, and a set of a few singletons keeps its weight."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "verdicts"))
import campaigns  # noqa: E402


def malicious(campaign, n):
    return [{"ecosystem": "pypi", "truth": "malicious", "campaign": campaign} for _ in range(n)]


def share(records, campaign):
    total = sum(r["weight"] for r in records)
    return sum(r["weight"] for r in records if r["campaign"] == campaign) / total


class Cap(unittest.TestCase):
    def test_a_mass_campaign_weighs_ten_percent_of_the_weighted_set(self):
        records = malicious("word-pair", 90) + [r for i in range(20) for r in malicious(f"f{i}", 1)]
        campaigns.weigh(records)
        self.assertAlmostEqual(share(records, "word-pair"), 0.10)
        self.assertEqual({r["weight"] for r in records if r["campaign"] != "word-pair"}, {1.0})

    def test_a_few_singletons_are_not_capped_to_nothing(self):
        # Three samples of three campaigns, each a third of the set: none is a mass campaign.
        records = malicious("a", 1) + malicious("b", 1) + malicious("c", 1)
        campaigns.weigh(records)
        self.assertEqual([r["weight"] for r in records], [1.0, 1.0, 1.0])

    def test_one_campaign_alone_keeps_its_weight(self):
        records = malicious("a", 5)
        campaigns.weigh(records)
        self.assertGreater(sum(r["weight"] for r in records), 0)

    def test_benign_records_weigh_nothing(self):
        records = [{"ecosystem": "npm", "truth": "benign", "campaign": None}] + malicious("a", 2)
        campaigns.weigh(records)
        self.assertIsNone(records[0]["weight"])


if __name__ == "__main__":
    unittest.main()
