// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// A lane's stages 2 and 3 joined without the register between them, for `tools/mutate.py
// --settle-survivors`: a mutant of the adder, the LZA or the normaliser is tried here, where
// the normaliser takes the count the LZA makes of any stage-1 lane and product. Its output is
// the stage-3 lane: equal here, the rounder sees the same. The register between the stages
// delays both alike.

module settle_s2_s3 import ptxfma_pkg::*; (
  input  s1_lane_t        lane_i,
  input  logic [MulW-1:0] p_i,
  input  logic [MulW-1:0] p_f32_i,
  input  logic            rnd_rm_i,
  input  res_fmt_e        fmt_i,
  input  logic            sm1x_i,
  input  logic            via_f32_i,
  output s3_lane_t        lane_o
);

  s2_lane_t lane2;

  ptxfma_s2_lane u_s2_lane (
    .en_i    (1'b1),
    .sm1x_i  (sm1x_i),
    .rnd_rm_i(rnd_rm_i),
    .p_i     (p_i),
    .p_f32_i (p_f32_i),
    .lane_i  (lane_i),
    .lane_o  (lane2)
  );

  ptxfma_s3_lane u_s3_lane (
    .en_i     (1'b1),
    .fmt_i    (fmt_i),
    .via_f32_i(via_f32_i),
    .lane_i   (lane2),
    .lane_o   (lane_o)
  );

endmodule
