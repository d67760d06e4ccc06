// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_alt_top: a second, independent implementation of fma.rnd{.ftz}{.sat}.f32 (and
// mad.rnd, the same operation) with only the result ports of ptxfma_top and another
// microarchitecture: the exact sum in a wide integer (ptxfma_alt_exact), registered, then one
// normalise and round (ptxfma_alt_round), then a delay line, Latency cycles in all (default
// 6, against ptxfma_top's 4). It exists to show that `fma-cosim run --compare ports` checks a
// design by its ports alone (docs/dut.md). It decodes the same 27-bit control word; only
// kind 0 (f32) with native operands and no add/sub/mul substitution is implemented, and any
// other control word gives an unspecified result.

module ptxfma_alt_top #(
  parameter int unsigned Latency = 6
) (
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

  localparam int unsigned W = 560;
  // Stages after the exact-sum register: the rounded result and the delay line.
  localparam int unsigned Tail = Latency - 1;

  // Control word fields used here (docs/microarchitecture.md, "Control word").
  logic [1:0] rnd;
  logic       ftz, sat;
  assign rnd = in_ctrl_i[4:3];
  assign ftz = in_ctrl_i[5];
  assign sat = in_ctrl_i[6];

  // Stage 1: the exact sum.
  logic         sign_d, sign_q, nan_d, nan_q, inf_d, inf_q, inf_sign_d, inf_sign_q;
  logic [W-1:0] mag_d, mag_q;
  logic         valid_q, ftz_q, sat_q;
  logic [1:0]   rnd_q;
  logic [15:0]  tag_q;

  ptxfma_alt_exact #(.W(W)) u_exact (
    .rnd_i     (rnd),
    .ftz_i     (ftz),
    .a_i       (in_a_i[31:0]),
    .b_i       (in_b_i[31:0]),
    .c_i       (in_c_i[31:0]),
    .sign_o    (sign_d),
    .mag_o     (mag_d),
    .nan_o     (nan_d),
    .inf_o     (inf_d),
    .inf_sign_o(inf_sign_d)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q    <= 1'b0;
      tag_q      <= '0;
      rnd_q      <= '0;
      ftz_q      <= 1'b0;
      sat_q      <= 1'b0;
      sign_q     <= 1'b0;
      mag_q      <= '0;
      nan_q      <= 1'b0;
      inf_q      <= 1'b0;
      inf_sign_q <= 1'b0;
    end else begin
      valid_q    <= in_valid_i;
      tag_q      <= in_tag_i;
      rnd_q      <= rnd;
      ftz_q      <= ftz;
      sat_q      <= sat;
      sign_q     <= sign_d;
      mag_q      <= mag_d;
      nan_q      <= nan_d;
      inf_q      <= inf_d;
      inf_sign_q <= inf_sign_d;
    end
  end

  // Stage 2: round; then the delay line up to the output.
  logic [31:0] res;

  ptxfma_alt_round #(.W(W)) u_round (
    .rnd_i     (rnd_q),
    .ftz_i     (ftz_q),
    .sat_i     (sat_q),
    .sign_i    (sign_q),
    .mag_i     (mag_q),
    .nan_i     (nan_q),
    .inf_i     (inf_q),
    .inf_sign_i(inf_sign_q),
    .res_o     (res)
  );

  logic        valid_line_q [Tail];
  logic [15:0] tag_line_q   [Tail];
  logic [31:0] res_line_q   [Tail];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < Tail; i++) begin
        valid_line_q[i] <= 1'b0;
        tag_line_q[i]   <= '0;
        res_line_q[i]   <= '0;
      end
    end else begin
      valid_line_q[0] <= valid_q;
      tag_line_q[0]   <= tag_q;
      res_line_q[0]   <= res;
      for (int unsigned i = 1; i < Tail; i++) begin
        valid_line_q[i] <= valid_line_q[i-1];
        tag_line_q[i]   <= tag_line_q[i-1];
        res_line_q[i]   <= res_line_q[i-1];
      end
    end
  end

  assign out_valid_o = valid_line_q[Tail-1];
  assign out_tag_o   = tag_line_q[Tail-1];
  assign out_d_o     = {32'd0, res_line_q[Tail-1]};

  // Only bits 31:0 of the operands and the control fields above are read.
  logic unused;
  assign unused = ^{in_a_i[63:32], in_b_i[63:32], in_c_i[63:32], in_ctrl_i[26:7],
                    in_ctrl_i[2:0]};

endmodule
