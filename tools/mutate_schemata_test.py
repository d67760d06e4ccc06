#!/usr/bin/env python3
"""Tests of tools/mutate_schemata.py (`make mutate-test`, with the venv's pyslang): where each
kind of site's run-time choice goes, and which sites stay compiled. `make mutate-test` then
runs real mutants both ways (`--twins`) and requires the same verdicts."""

import sys
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutate_schemata as ms  # noqa: E402

SEL = "ptxfma_mutant_pkg::sel"


def one(text, line, old, new, op="op"):
    """plan() of one mutant (number 1) that turns `old` into `new` on `line` (0-based)."""
    src = text.split("\n")[line]
    assert old in src, (old, src)
    edits, runtime, compiled = ms.plan(text, [(1, line, op, src, src.replace(old, new, 1))])
    return ms.apply(text, edits), runtime, compiled


MODULE = """module m (input logic [7:0] a, input logic [7:0] b, output logic [7:0] y_o);
  localparam int unsigned W = 8;
  logic [7:0] x, z;
  logic [15:0] c;
  logic u;
  function automatic int unsigned rows(int unsigned n);
    return n - 1;
  endfunction
  localparam int unsigned R = rows(W);
  assign x = a + b;
  assign c = {x[3:0], z[W-1:0], 4'b0};
  assign u = ^x[7:1];
  assign z = W'(a - b);
  assign y_o[2] = a[1];
  sub u_sub (.a_i(x), .y_o(z));
endmodule"""


class Plan(unittest.TestCase):
    def test_operator_chosen_at_its_own_expression(self):
        out, rt, comp = one(MODULE, 9, "+", "-")
        self.assertEqual((rt, comp), ([1], []))
        self.assertIn(f"assign x = (({SEL} == 1) ? (a - b) : (a + b));", out)

    def test_a_bound_changes_the_width_so_the_whole_concatenation_is_chosen(self):
        out, rt, _ = one(MODULE, 10, "x[3:0]", "x[4:0]", "range msb +1")
        self.assertEqual(rt, [1])
        self.assertIn(f"assign c = (({SEL} == 1) ? ({{x[4:0], z[W-1:0], 4'b0}}) : "
                      "({x[3:0], z[W-1:0], 4'b0}));", out)

    def test_a_package_name_in_a_bound_is_chosen_around_the_select(self):
        out, rt, _ = one(MODULE, 10, "W-1", "W-2", "[Name-1] -> [Name-2]")
        self.assertEqual(rt, [1])
        self.assertIn("? ({x[3:0], z[W-2:0], 4'b0})", out)

    def test_a_reduction_takes_the_choice_of_its_operand_width(self):
        out, rt, _ = one(MODULE, 11, "x[7:1]", "x[7:0]", "range lsb -1")
        self.assertEqual(rt, [1])
        self.assertIn(f"assign u = (({SEL} == 1) ? (^x[7:0]) : (^x[7:1]));", out)

    def test_a_wider_arm_widens_what_holds_the_conditional(self):
        # rtl/alt/ptxfma_alt_round.sv's overflow: a wider arm would push the sign out of the
        # concatenation, so the choice takes the whole concatenation, as the mutated line does.
        text = ("module m; logic s, c; logic [31:0] x, y, r;\n"
                "  assign r = {s, c ? x[30:0] : y[30:0]};\nendmodule")
        out, rt, _ = one(text, 1, "x[30:0]", "x[31:0]", "range msb +1")
        self.assertEqual(rt, [1])
        self.assertIn(f"assign r = (({SEL} == 1) ? ({{s, c ? x[31:0] : y[30:0]}}) : "
                      "({s, c ? x[30:0] : y[30:0]}));", out)

    def test_a_comparison_fixes_the_width(self):
        text = "module m; logic c; logic [7:0] x, y;\n  assign c = {x[6:0] == y[6:0]};\nendmodule"
        out, _, _ = one(text, 1, "x[6:0]", "x[7:0]", "range msb +1")
        self.assertIn(f"{{(({SEL} == 1) ? (x[7:0]) : (x[6:0])) == y[6:0]}}", out)

    def test_an_operator_inside_a_cast_width_goes_around_the_cast(self):
        out, _, _ = one(MODULE, 12, "W'(", "(W - 1)'(", "Name'( cast -> (Name-1)'(")
        self.assertIn(f"assign z = (({SEL} == 1) ? ((W - 1)'(a - b)) : (W'(a - b)));", out)

    def test_an_operator_inside_a_cast_operand_stays_inside(self):
        out, _, _ = one(MODULE, 12, "a - b", "a + b")
        self.assertIn(f"W'((({SEL} == 1) ? (a + b) : (a - b)))", out)

    def test_an_index_of_a_target_is_a_value(self):
        out, rt, _ = one(MODULE, 13, "[2]", "[1]")
        self.assertEqual(rt, [1])
        self.assertIn(f"assign y_o[(({SEL} == 1) ? (1) : (2))] = a[1];", out)

    def test_what_cannot_be_chosen_at_run_time_is_compiled(self):
        for line, old, new, why in [
            (1, "8", "9", "a localparam"),
            (2, "7", "8", "a declaration"),
            (6, "n - 1", "n + 1", "a function an elaboration-time value calls"),
            (14, ".y_o(z)", ".y_o(x)", "what an output port drives"),
        ]:
            with self.subTest(why):
                out, rt, comp = one(MODULE, line, old, new)
                self.assertEqual((rt, comp, out), ([], [1], MODULE))

    def test_an_input_port_connection_is_a_value(self):
        out, rt, _ = one(MODULE, 14, ".a_i(x)", ".a_i(z)")
        self.assertEqual(rt, [1])
        self.assertIn(f".a_i((({SEL} == 1) ? (z) : (x)))", out)

    def test_a_dotted_name_is_chosen_whole(self):
        text = ("module m; typedef struct packed {logic [7:0] sig;} t_t; t_t a; logic [3:0] y;\n"
                "  assign y = a.sig[7:4];\nendmodule")
        out, rt, _ = one(text, 1, "a.sig[7:4]", "a.sig[6:4]", "range msb +1")
        self.assertEqual(rt, [1])
        self.assertIn(f"assign y = (({SEL} == 1) ? (a.sig[6:4]) : (a.sig[7:4]));", out)

    def test_two_sites_in_one_expression_share_one_choice(self):
        text = "module m; logic [7:0] a, b, x;\n  assign x = (a + b) - a;\nendmodule"
        src = text.split("\n")[1]
        edits, rt, _ = ms.plan(text, [(1, 1, "+ -> -", src, src.replace("+", "-")),
                                      (2, 1, "- -> +", src, src.replace(") -", ") +"))])
        self.assertEqual(rt, [1, 2])
        self.assertIn(f"assign x = (({SEL} == 1) ? ((a - b) - a) : ({SEL} == 2) ? "
                      "((a + b) + a) : ((a + b) - a));", ms.apply(text, edits))

    def test_a_loop_of_non_blocking_writes_keeps_constant_bounds(self):
        text = ("module m (input logic clk_i); logic [3:0] q [4]; logic [3:0] s;\n"
                "  always_ff @(posedge clk_i) for (int i = 0; i < 4; i++) q[i] <= '0;\n"
                "  always_comb begin s = '0; for (int i = 0; i < 4; i++) s = s + 1; end\n"
                "endmodule")
        out, rt, comp = one(text, 1, "i < 4", "i <= 4", "< -> <=")
        self.assertEqual((rt, comp, out), ([], [1], text))
        out, rt, _ = one(text, 2, "i < 4", "i <= 4", "< -> <=")
        self.assertEqual(rt, [1])
        self.assertIn(f"(({SEL} == 1) ? (i <= 4) : (i < 4))", out)

    def test_changed_span(self):
        self.assertEqual(ms.changed_span("x = a ? b : c;", "x = !a ? b : c;"), (4, 4, 5))
        self.assertEqual(ms.changed_span("y[3:0]", "y[4:0]"), (2, 3, 3))


if __name__ == "__main__":
    unittest.main()
