// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of what real operands make of the LZA (docs/formal.md): binary64 words (or
// binary32 ones, with the BINARY32 define) through the real ptxfma_unpack and ptxfma_s1_lane,
// their exact product (what the Booth array and the carry-save tree sum to), and the real
// ptxfma_s2_lane (adder and LZA). formal_lza.sv shows the count can be one past the magnitude's
// leading zeros for free adder operands; this one shows that no pair of operands reaches the
// normaliser's branch for it (x[AddW-1]: a count one past, within the shift limit), and none
// leaves the indicator empty with a non-zero magnitude. The judged mutants of both rest on it
// (tools/mutate-equivalent.json). Any rounding mode's magnitude is the same, and .ftz,
// add/sub/mul and sm_1x's truncated product give operands a binary64 pair also gives.

module formal_lza_reach import ptxfma_pkg::*; (
  input  logic [DataW-1:0] a_i,
  input  logic [DataW-1:0] b_i,
  input  logic [DataW-1:0] c_i,
  output logic             ok_no_overshoot,
  output logic             ok_no_empty_indicator,
  output logic             twin_no_undershoot
);

`ifdef BINARY32
  localparam kind_e    Kind = KIND_F32;
  localparam res_fmt_e Fmt  = FMT_F32;
  localparam exp_t     Emin = exp_t'(1) - exp_t'(F32Bias);
`else
  localparam kind_e    Kind = KIND_F64;
  localparam res_fmt_e Fmt  = FMT_F64;
  localparam exp_t     Emin = exp_t'(1) - exp_t'(F64Bias);
`endif

  operand_t        a, b, c;
  s1_lane_t        lane1;
  s2_lane_t        lane2;
  logic [MulW-1:0] p;

  ptxfma_unpack #(.Lane(0)) u_unpack (
    .en_i    (1'b1),
    .kind_i  (Kind),
    .rnd_i   (RND_RN),
    .flush_i (1'b0),
    .ab_fmt_i(AB_NATIVE),
    .b_one_i (1'b0),
    .c_zero_i(1'b0),
    .neg_c_i (1'b0),
    .a_i     (a_i),
    .b_i     (b_i),
    .c_i     (c_i),
    .a_o     (a),
    .b_o     (b),
    .c_o     (c)
  );

  ptxfma_s1_lane u_s1_lane (
    .en_i   (1'b1),
    .fmt_i  (Fmt),
    .oob_i  (1'b0),
    .a_i    (a),
    .b_i    (b),
    .c_i    (c),
    .raw_a_i(a_i),
    .raw_b_i(b_i),
    .raw_c_i(c_i),
    .lane_o (lane1)
  );

  assign p = MulW'(a.sig) * MulW'(b.sig);

  ptxfma_s2_lane u_s2_lane (
    .en_i    (1'b1),
    .sm1x_i  (1'b0),
    .rnd_rm_i(1'b0),
    .p_i     (p),
    .p_f32_i ('0),
    .lane_i  (lane1),
    .lane_o  (lane2)
  );

  // Leading zeros of the magnitude, counted by a plain loop.
  logic [ShiftCntW-1:0] lz;
  logic                 seen;
  always_comb begin
    lz   = '0;
    seen = 1'b0;
    for (int i = MagW - 1; i >= 0; i--) begin
      seen = seen | lane2.mag[i];
      if (!seen) lz = lz + 1'b1;
    end
  end

  // The normaliser's shift limit (ptxfma_normalize: lim = eref + Lead - emin).
  exp_t lim;
  logic counted;
  assign lim     = exp_widen(lane2.eref) + exp_t'(MagW - 1 - RefBit) - Emin;
  assign counted = !lane1.spec_valid && (lane2.mag != '0);

  assign ok_no_overshoot    = !(counted && (lane2.lza_cnt == lz + 1'b1)
                                && (lim >= exp_t'(lz) + 16'sd1));
  // The LZA's default count (MagW: no indicator bit set) comes only with a zero magnitude.
  assign ok_no_empty_indicator = !(counted && (lane2.lza_cnt == ShiftCntW'(MagW)));
  // Twin: the count one short (the branch the normaliser does take) is reached.
  assign twin_no_undershoot = !(counted && (lane2.lza_cnt + 1'b1 == lz));

endmodule
