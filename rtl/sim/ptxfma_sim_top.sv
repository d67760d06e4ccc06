// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_sim_top: simulation-only wrapper of ptxfma_top with the same ports and the same
// timing, for the co-simulator's fast (untraced) build.
//
// The inputs are sampled on the falling clock edge into in_*_q, so every combinational path of
// the pipe starts at a flop: Verilator then evaluates stage 1 once per cycle (after the falling
// edge) instead of on every eval() call, which it does for logic fed by top-level inputs. An
// operation presented while the clock is low is in s1 after the next rising edge, as with
// ptxfma_top, provided the clock was high before it fell: the driver must hold the clock high
// while it releases reset (cosim/engine/csrc/sim.cpp).

module ptxfma_sim_top import ptxfma_pkg::*; (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  input  logic [TagW-1:0]  in_tag_i,
  input  logic [CtrlW-1:0] in_ctrl_i,
  input  logic [DataW-1:0] in_a_i,
  input  logic [DataW-1:0] in_b_i,
  input  logic [DataW-1:0] in_c_i,
  output logic             out_valid_o,
  output logic [TagW-1:0]  out_tag_o,
  output logic [DataW-1:0] out_d_o,
  output s1_t              s1_o,
  output s2_t              s2_o,
  output s3_t              s3_o,
  output out_t             out_o
);

  logic             in_valid_q;
  logic [TagW-1:0]  in_tag_q;
  logic [CtrlW-1:0] in_ctrl_q;
  logic [DataW-1:0] in_a_q, in_b_q, in_c_q;

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q <= 1'b0;
      in_tag_q   <= '0;
      in_ctrl_q  <= '0;
      in_a_q     <= '0;
      in_b_q     <= '0;
      in_c_q     <= '0;
    end else begin
      in_valid_q <= in_valid_i;
      in_tag_q   <= in_tag_i;
      in_ctrl_q  <= in_ctrl_i;
      in_a_q     <= in_a_i;
      in_b_q     <= in_b_i;
      in_c_q     <= in_c_i;
    end
  end

  ptxfma_top u_ptxfma_top (
    .clk_i,
    .rst_ni,
    .in_valid_i (in_valid_q),
    .in_tag_i   (in_tag_q),
    .in_ctrl_i  (in_ctrl_q),
    .in_a_i     (in_a_q),
    .in_b_i     (in_b_q),
    .in_c_i     (in_c_q),
    .out_valid_o,
    .out_tag_o,
    .out_d_o,
    .s1_o,
    .s2_o,
    .s3_o,
    .out_o
  );

endmodule
