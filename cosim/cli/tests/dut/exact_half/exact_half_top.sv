// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// A half-precision FMA unit written for the tests (cosim/cli/tests/dut_prove.rs), independent of
// the kit's RTL: `fma/add/sub/mul .rn .f16` and `.bf16` with `.relu` and `.oob`, one lane,
// through exact_half_lane (an exact sum, one rounding), at a fixed latency of four rising edges
// (the operands registered, the result three edges later), no tag ports. Control word fields
// (ctrl_t in rtl/ptxfma_pkg.sv): ab_fmt bits 8:7 (1 binary16, 2 bfloat16), b_one bit 9 (add,
// sub: b = 1.0), c_zero bit 10 (mul: c = -0), neg_c bit 11 (sub), relu bit 24, oob bit 25.

module exact_half_top (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i,
  input  logic [63:0] in_b_i,
  input  logic [63:0] in_c_i,
  output logic        out_valid_o,
  output logic [63:0] out_d_o
);
  // Stage 1: the operands as the operation reads them.
  logic        valid_q;
  logic        bf16_q, relu_q, oob_q;
  logic [15:0] a_q, b_q, c_q;
  logic        bf16;
  logic [15:0] one, b_op, c_op;

  always_comb begin
    bf16 = in_ctrl_i[8:7] == 2'd2;
    one  = bf16 ? 16'h3f80 : 16'h3c00;
    b_op = in_ctrl_i[9] ? one : in_b_i[15:0];
    c_op = in_ctrl_i[10] ? 16'h8000 : in_c_i[15:0];
    c_op = c_op ^ {in_ctrl_i[11], 15'd0};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= 1'b0;
    else         valid_q <= in_valid_i;
  end
  always_ff @(posedge clk_i) begin
    bf16_q <= bf16;
    relu_q <= in_ctrl_i[24];
    oob_q  <= in_ctrl_i[25];
    a_q    <= in_a_i[15:0];
    b_q    <= b_op;
    c_q    <= c_op;
  end

  logic [15:0] d_f16, d_bf16, d;
  exact_half_lane #(.EW(5), .MW(10)) u_f16 (.a_i(a_q), .b_i(b_q), .c_i(c_q), .d_o(d_f16));
  exact_half_lane #(.EW(8), .MW(7)) u_bf16 (.a_i(a_q), .b_i(b_q), .c_i(c_q), .d_o(d_bf16));

  // S12 (.oob): 0x7FF7 of either sign in a or b gives +0 first; S11 (.relu): a NaN stays, any
  // other negative result gives +0.
  always_comb begin
    d = bf16_q ? d_bf16 : d_f16;
    if (oob_q && ((a_q[14:0] == 15'h7ff7) || (b_q[14:0] == 15'h7ff7))) begin
      d = 16'h0000;
    end else if (relu_q && d[15] && !(d[14:0] > (bf16_q ? 15'h7f80 : 15'h7c00))) begin
      d = 16'h0000;
    end
  end

  // Stages 2 to 4: the result delayed.
  logic [2:0]  valid_line_q;
  logic [15:0] d_line_q [3];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_line_q <= '0;
    else         valid_line_q <= {valid_line_q[1:0], valid_q};
  end
  always_ff @(posedge clk_i) begin
    d_line_q[0] <= d;
    d_line_q[1] <= d_line_q[0];
    d_line_q[2] <= d_line_q[1];
  end

  assign out_valid_o = valid_line_q[2];
  assign out_d_o     = {48'd0, d_line_q[2]};
endmodule
