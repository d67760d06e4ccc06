// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// The lane's stages 2 to 4 joined without their registers, for `tools/mutate.py
// --settle-survivors`: a mutant of the adder, the LZA, the normaliser or the rounder that a
// miter of its own module tells apart is tried here, where its inputs are what the stage
// before it makes of any stage-1 lane and product (the normaliser's count within one, its
// lead set above emin), and where only the control a legal word gives counts: a result under
// any other is forced to zero in both designs. The registers between the stages delay both
// alike, so equal outputs here are equal outputs of the pipe for that lane.

module settle_lanes import ptxfma_pkg::*; (
  input  s1_lane_t         lane_i,
  input  logic [MulW-1:0]  p_i,
  input  logic [MulW-1:0]  p_f32_i,
  input  rnd_e             rnd_i,     // the effective rounding direction
  input  res_fmt_e         fmt_i,
  input  logic             sm1x_i,
  input  logic             via_f32_i,
  input  logic             flush_i,
  input  logic             sat_i,
  input  logic             relu_i,
  output logic [DataW-1:0] res_o
);

  s2_lane_t         lane2;
  s3_lane_t         lane3;
  logic [DataW-1:0] res;
  logic             half, legal;

  ptxfma_s2_lane u_s2_lane (
    .en_i    (1'b1),
    .sm1x_i  (sm1x_i),
    .rnd_rm_i(rnd_i == RND_RM),
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
    .lane_o   (lane3)
  );

  ptxfma_round u_round (
    .en_i     (1'b1),
    .fmt_i    (fmt_i),
    .rnd_i    (rnd_i),
    .flush_i  (flush_i),
    .sat_i    (sat_i),
    .relu_i   (relu_i),
    .via_f32_i(via_f32_i),
    .lane_i   (lane3),
    .res_o    (res)
  );

  // What a legal word can ask of a lane (docs/semantics.md; ptxfma_top's decoding): sm_1x is
  // binary32 to nearest; .sat on binary32 and binary16 only; .relu on the half formats only;
  // .ftz on binary32 and binary16; the half formats round to nearest, but for the binary16
  // word with via_f32 (S13), which has no .sat, .relu or .ftz.
  assign half  = (fmt_i == FMT_F16) || (fmt_i == FMT_BF16);
  assign legal = (!sm1x_i || (fmt_i == FMT_F32 && rnd_i == RND_RN))
                 && (!sat_i || fmt_i == FMT_F32 || fmt_i == FMT_F16)
                 && (!relu_i || half)
                 && (!flush_i || fmt_i == FMT_F32 || fmt_i == FMT_F16)
                 && (!half || rnd_i == RND_RN || via_f32_i)
                 && (!via_f32_i || (fmt_i == FMT_F16 && !sat_i && !relu_i && !flush_i
                                    && rnd_i != RND_RN));
  assign res_o = legal ? res : '0;

endmodule
