// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// exact_f64_top: a binary64 FMA unit as a team outside NVIDIA might build it, written for
// cosim/cli/tests/dut_f64.rs and independent of the kit's RTL: fma.rnd.f64 (and mad.rnd.f64, the
// same control words), every NaN result the canonical quiet NaN 0x7ff8000000000000 (RISC-V's
// and Arm's default-NaN rule), so it is checked with `[contract] nan = "canonical"`.
//
// Four register stages, tags carried beside the data: the operands, their exact sum
// (exact_f64_sum), its leading one (exact_f64_lead), the rounded result (exact_f64_round);
// results retire in issue order. Only the rounding field of the control word is read (the f64
// family sends kind 1 with every other bit zero); any other word gives an unspecified result.

module exact_f64_top import exact_f64_pkg::*; (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [15:0] in_tag_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i,
  input  logic [63:0] in_b_i,
  input  logic [63:0] in_c_i,
  output logic        out_valid_o,
  output logic [15:0] out_tag_o,
  output logic [63:0] out_d_o
);

  // Stage 0: the operation as presented, registered, so that the wide logic after it is
  // evaluated once a cycle (Verilator re-evaluates logic fed by the inputs at every clock edge).
  logic        s0_valid_q;
  logic [15:0] s0_tag_q;
  logic [1:0]  s0_rnd_q;
  logic [63:0] s0_a_q, s0_b_q, s0_c_q;

  // Stage 1: the exact sum.
  logic            sum_sign, sum_nan, sum_inf, sum_inf_sign;
  logic [MagW-1:0] sum_mag;

  exact_f64_sum u_sum (
    .rnd_i     (s0_rnd_q),
    .a_i       (s0_a_q),
    .b_i       (s0_b_q),
    .c_i       (s0_c_q),
    .sign_o    (sum_sign),
    .mag_o     (sum_mag),
    .nan_o     (sum_nan),
    .inf_o     (sum_inf),
    .inf_sign_o(sum_inf_sign)
  );

  logic            s1_valid_q, s1_sign_q, s1_nan_q, s1_inf_q, s1_inf_sign_q;
  logic [15:0]     s1_tag_q;
  logic [1:0]      s1_rnd_q;
  logic [MagW-1:0] s1_mag_q;

  // Stage 2: the leading one.
  logic [PosW-1:0] lead;
  logic            zero;

  exact_f64_lead u_lead (
    .mag_i (s1_mag_q),
    .lead_o(lead),
    .zero_o(zero)
  );

  logic            s2_valid_q, s2_sign_q, s2_nan_q, s2_inf_q, s2_inf_sign_q, s2_zero_q;
  logic [15:0]     s2_tag_q;
  logic [1:0]      s2_rnd_q;
  logic [MagW-1:0] s2_mag_q;
  logic [PosW-1:0] s2_lead_q;

  // Stage 3: the rounded result.
  logic [63:0] res;

  exact_f64_round u_round (
    .rnd_i     (s2_rnd_q),
    .sign_i    (s2_sign_q),
    .mag_i     (s2_mag_q),
    .lead_i    (s2_lead_q),
    .zero_i    (s2_zero_q),
    .nan_i     (s2_nan_q),
    .inf_i     (s2_inf_q),
    .inf_sign_i(s2_inf_sign_q),
    .res_o     (res)
  );

  logic        s3_valid_q;
  logic [15:0] s3_tag_q;
  logic [63:0] s3_res_q;

  // Valid bits and tags: cleared by reset, so nothing in flight retires after one.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s0_valid_q <= 1'b0;
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      s0_tag_q   <= '0;
      s1_tag_q   <= '0;
      s2_tag_q   <= '0;
      s3_tag_q   <= '0;
    end else begin
      s0_valid_q <= in_valid_i;
      s1_valid_q <= s0_valid_q;
      s2_valid_q <= s1_valid_q;
      s3_valid_q <= s2_valid_q;
      s0_tag_q   <= in_tag_i;
      s1_tag_q   <= s0_tag_q;
      s2_tag_q   <= s1_tag_q;
      s3_tag_q   <= s2_tag_q;
    end
  end

  // Data: read only beside a valid bit, so not reset.
  always_ff @(posedge clk_i) begin
    // Rounding mode: bits 4:3 of the control word (rn, rz, rm, rp).
    s0_rnd_q      <= in_ctrl_i[4:3];
    s0_a_q        <= in_a_i;
    s0_b_q        <= in_b_i;
    s0_c_q        <= in_c_i;
    s1_rnd_q      <= s0_rnd_q;
    s1_sign_q     <= sum_sign;
    s1_mag_q      <= sum_mag;
    s1_nan_q      <= sum_nan;
    s1_inf_q      <= sum_inf;
    s1_inf_sign_q <= sum_inf_sign;
    s2_rnd_q      <= s1_rnd_q;
    s2_sign_q     <= s1_sign_q;
    s2_mag_q      <= s1_mag_q;
    s2_lead_q     <= lead;
    s2_zero_q     <= zero;
    s2_nan_q      <= s1_nan_q;
    s2_inf_q      <= s1_inf_q;
    s2_inf_sign_q <= s1_inf_sign_q;
    s3_res_q      <= res;
  end

  assign out_valid_o = s3_valid_q;
  assign out_tag_o   = s3_tag_q;
  assign out_d_o     = s3_res_q;

  // Only the rounding field of the control word is read.
  logic unused;
  assign unused = ^{in_ctrl_i[26:5], in_ctrl_i[2:0]};

endmodule
