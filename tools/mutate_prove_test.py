#!/usr/bin/env python3
"""Tests of tools/mutate_prove.py's helpers for `--settle-survivors` (`make mutate-test`): which
modules a miter may be lifted to, and the counterexample read from a failed proof's log."""

import sys
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import mutate_prove as mp  # noqa: E402

LOG = """
  Signal Name             Dec       Hex                                 Bin
  --------------- ----------- --------- -----------------------------------
  \\in_a_i             2860053    2ba415    00000000001010111010010000010101
  \\in_ftz_i                 0         0                                   0
"""


class Helpers(unittest.TestCase):
    def test_a_lane_part_lifts_to_its_lane_and_no_further(self):
        rtl = ROOT / "rtl"
        self.assertEqual(mp.parents(rtl, "ptxfma_align.sv"), ["ptxfma_s1_lane.sv"])
        self.assertEqual(mp.parents(rtl, "ptxfma_round_window.sv"), ["ptxfma_round.sv"])
        # The lanes and the rounder are instantiated by ptxfma_top, which has flops.
        self.assertEqual(mp.parents(rtl, "ptxfma_s1_lane.sv"), [])
        self.assertEqual(mp.parents(rtl, "ptxfma_round.sv"), [])
        self.assertEqual(mp.parents(rtl, "alt/ptxfma_alt_round.sv"), [])

    def test_only_modules_without_flops_are_combinational(self):
        rtl = ROOT / "rtl"
        self.assertTrue(mp.combinational((rtl / "ptxfma_round.sv").read_text()))
        self.assertFalse(mp.combinational((rtl / "ptxfma_top.sv").read_text()))

    def test_the_counterexample_is_read_from_the_table_only(self):
        text = "Old ports: A={ 1'0 \\in_a_i [22:0] }, B=24'0\n" + LOG
        self.assertEqual(mp.counterexample(text), "a_i = 2ba415, ftz_i = 0")
        self.assertEqual(mp.counterexample("no table"), "")


if __name__ == "__main__":
    unittest.main()
