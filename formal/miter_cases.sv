// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// The miter of `fma-cosim dut prove --by-cases` (docs/formal.md, "Proof by cases"): one
// operation of one control word through a team's design (`miter_dut`) and the kit's
// `ptxfma_top` (`miter_kit`), each read and flattened on its own beforehand. Reset in step 0,
// the operation issued in step 1 with operands that hold still (anyconst), bubbles in every
// other step; its results are compared `Edges` edges later.
//
// Each design's significand product is cut (Yosys `expose -cut`: the product's driver leaves
// as an output `*_o`, its readers take an input `*_i`) and, in the one step the operation's
// product is there, driven from one specification multiplier of the operands, so that the two
// designs' multipliers never meet in one miter. Every other step keeps the design's own
// product, so the cut design is the design exactly where the product claims below hold.
//
// One claim per model, by define; where a claim is split, the part is picked by an anyconst
// the driver pins with a yosys-smtbmc constraint file (`--smtc`), so that one model serves
// every part:
// - CLAIM_CASE: the results agree for every operand triple of case `case_sel` (`in_case`).
// - CLAIM_COVER: every operand triple is in some case (the cases' union is everything).
// - CLAIM_KIT_PRODUCT: the kit's multiplier (Booth digits, carry-save tree) computes the
//   specification product, at the offset its significand layout puts it, for the b whose
//   significand's top KpBits bits are `part_sel` (a multiplier is hard for SAT whole; with the
//   multiplier's top digits fixed, each part takes seconds).
// - CLAIM_DUT_PRODUCT: the design's product wire is the specification product.
//
// `miter_case.svh`, written by the driver for the word, gives: Ctrl (the control word), EW, MW,
// Bias, Bf16, the operands as the operation reads them (`eff_a/b/c`), KitProdLsb, DUT_CUT with
// DutProdStage (edges from issue to the step the design's product wire holds the operation's
// product), NumCases, `in_case` and KpBits. Defines: DUT_EDGES, and the NaN convention's (miter_lane.svh).

module miter (
  input wire clk_i
);
  localparam integer KitEdges = 4;
  localparam integer DutEdges = `DUT_EDGES;
  localparam integer Edges = DutEdges > KitEdges ? DutEdges : KitEdges;
  // The kit's product: MulW bits, its carry-save pair added modulo 2^MulW.
  localparam integer MulW = 106;
  // Wide enough for any design's product wire; the bits past the wire read zero (the driver
  // ties them off), so a wider wire must hold zeros there.
  localparam integer CutW = 128;

  // Step counter: 0 reset, 1 issue, then the pipe drains.
  reg [3:0] step_q = 4'd0;
  always @(posedge clk_i) if (step_q != 4'hf) step_q <= step_q + 4'd1;
  wire rst_n = step_q != 4'd0;
  wire issue = step_q == 4'd1;

  (* anyconst *) reg [63:0] op_a;
  (* anyconst *) reg [63:0] op_b;
  (* anyconst *) reg [63:0] op_c;
  // The part of a split claim.
  (* anyconst *) reg [7:0] case_sel;
  (* anyconst *) reg [7:0] part_sel;

`include "miter_case.svh"
`include "miter_lane.svh"

  // The operands as the operation reads them, field by field.
  wire [15:0] ea16 = eff_a(op_a[15:0]);
  wire [15:0] eb16 = eff_b(op_b[15:0]);
  wire [15:0] ec16 = eff_c(op_c[15:0]);
  wire [EW-1:0] a_exp = ea16[EW+MW-1:MW];
  wire [EW-1:0] b_exp = eb16[EW+MW-1:MW];
  wire [MW-1:0] a_frac = ea16[MW-1:0];
  wire [MW-1:0] b_frac = eb16[MW-1:0];

  // The specification multiplier: the significands, hidden bit included (none for a
  // subnormal), multiplied exactly.
  wire [2*MW+1:0] spec_p = {{(MW + 1){1'b0}}, a_exp != {EW{1'b0}}, a_frac}
                         * {{(MW + 1){1'b0}}, b_exp != {EW{1'b0}}, b_frac};
  wire [MulW-1:0] spec_kit_p = {{(MulW - 2 * MW - 2){1'b0}}, spec_p} << KitProdLsb;
  wire [CutW-1:0] spec_dut_p = {{(CutW - 2 * MW - 2){1'b0}}, spec_p};

  wire [MulW-1:0] kit_sum_o, kit_carry_o, kit_sum_i, kit_carry_i;
  assign kit_sum_i   = issue ? spec_kit_p : kit_sum_o;
  assign kit_carry_i = issue ? {MulW{1'b0}} : kit_carry_o;
`ifdef DUT_CUT
  wire dut_prod_step = step_q == 4'd1 + DutProdStage;
  wire [CutW-1:0] dut_p_o, dut_p_i;
  assign dut_p_i = dut_prod_step ? spec_dut_p : dut_p_o;
`endif

  wire        kit_valid, dut_valid;
  wire [63:0] kit_d, dut_d;

  miter_kit u_kit (
    .clk_i      (clk_i),
    .rst_ni     (rst_n),
    .in_valid_i (issue),
    .in_tag_i   (16'd0),
    .in_ctrl_i  (Ctrl),
    .in_a_i     (op_a),
    .in_b_i     (op_b),
    .in_c_i     (op_c),
    .out_valid_o(kit_valid),
    .out_d_o    (kit_d),
    .cut_sum_o  (kit_sum_o),
    .cut_carry_o(kit_carry_o),
    .cut_sum_i  (kit_sum_i),
    .cut_carry_i(kit_carry_i)
  );

  miter_dut u_dut (
    .clk_i      (clk_i),
    .rst_ni     (rst_n),
    .in_valid_i (issue),
`ifdef DUT_TAG_W
    .in_tag_i   ({`DUT_TAG_W{1'b0}}),
`endif
    .in_ctrl_i  (Ctrl),
    .in_a_i     (op_a),
    .in_b_i     (op_b),
    .in_c_i     (op_c),
`ifdef DUT_CUT
    .cut_prod_o (dut_p_o),
    .cut_prod_i (dut_p_i),
`endif
    .out_valid_o(dut_valid),
    .out_d_o    (dut_d)
  );

  wire same_d = dut_d[63:16] == 48'd0 && kit_d[63:16] == 48'd0
      && lane_ok(Bf16, dut_d[15:0], kit_d[15:0]);

  reg covered;
  integer k;
  always @* begin
    covered = 1'b0;
    for (k = 0; k < NumCases; k = k + 1) covered = covered | in_case(k, ea16, eb16, ec16);
  end

  // b's significand, hidden bit first.
  wire [MW:0] b_sig = {b_exp != {EW{1'b0}}, b_frac};

`ifdef CLAIM_CASE
  always @* begin
    assume (in_case(case_sel, ea16, eb16, ec16));
    if (step_q != 4'd0) begin
      // One result, exactly at the latency, and the kit's.
      assert (dut_valid == (step_q == 4'd1 + Edges));
      if (step_q == 4'd1 + Edges) assert (same_d);
    end
  end
`elsif CLAIM_COVER
  always @* assert (covered);
`elsif CLAIM_KIT_PRODUCT
  always @* begin
    if (KpBits > 0) assume (b_sig >> (MW + 1 - KpBits) == part_sel);
    if (issue) assert (kit_sum_o + kit_carry_o == spec_kit_p);
  end
`elsif CLAIM_DUT_PRODUCT
  always @* if (dut_prod_step) assert (dut_p_o == spec_dut_p);
`endif
endmodule
