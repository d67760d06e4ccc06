// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Stage-3 lane (model/src/machine/lane.rs, `s3_lane`): normalisation; everything else rides
// along.

module ptxfma_s3_lane import ptxfma_pkg::*; (
  input  logic     en_i,       // the lane carries an operation (else its output is not read)
  input  res_fmt_e fmt_i,
  input  logic     via_f32_i,  // rounded to binary32 first: normalised at binary32's emin
  input  s2_lane_t lane_i,
  output s3_lane_t lane_o
);

  logic [MagW-1:0] norm;
  logic            sticky;
  exp_t            exp, emin;

  // round::normalize_emin: the result format's smallest normal exponent, or binary32's.
  always_comb begin
    unique case (via_f32_i ? FMT_F32 : fmt_i)
      FMT_F64: emin = exp_t'(1) - exp_t'(F64Bias);
      FMT_F16: emin = exp_t'(1) - exp_t'(F16Bias);
      default: emin = exp_t'(1) - exp_t'(F32Bias);
    endcase
  end

  ptxfma_normalize u_normalize (
    .en_i     (en_i),
    .mag_i    (lane_i.mag),
    .lza_cnt_i(lane_i.lza_cnt),
    .eref_i   (exp_widen(lane_i.eref)),
    .emin_i   (emin),
    .norm_o   (norm),
    .sticky_o (sticky),
    .exp_o    (exp)
  );

  always_comb begin
    lane_o = '0;
    if (en_i) begin
      // One assignment of the whole struct (see rtl/README.md, "Verilator speed").
      lane_o = '{sign:       lane_i.sign,
                 zero:       lane_i.zero,
                 flush_sign: lane_i.flush_sign,
                 norm:       norm,
                 sticky:     lane_i.sticky || sticky,
                 exp:        exp[ExpRegW-1:0],
                 spec_valid: lane_i.spec_valid,
                 spec_res:   lane_i.spec_res};
    end
  end

  // The normalised exponent stays within ExpRegW bits for every operand the decoder accepts.
  logic unused_exp;
  assign unused_exp = ^exp[ExpW-1:ExpRegW];

endmodule
