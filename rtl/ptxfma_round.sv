// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Rounder (model/src/parts/round.rs): rounds the normalised significand to the lane's precision in
// the instruction's direction, handles overflow, flushes tiny results (.ftz, sm_1x: S4 of
// docs/semantics.md), takes the special result when there is one, and saturates (.sat,
// binary32 only).

module ptxfma_round import ptxfma_pkg::*; (
  input  logic             f64_i,    // binary64 result, else binary32 in bits F32W-1:0
  input  rnd_e             rnd_i,    // effective rounding direction
  input  logic             flush_i,  // Ctrl::flush
  input  logic             sat_i,
  input  s3_lane_t         lane_i,
  output logic [DataW-1:0] res_o
);

  // 1.0: the binary32 bias in the exponent field.
  localparam logic [DataW-1:0] F32One = DataW'(F32Bias) << F32ManBits;

  // S3: NaN and anything <= 0 go to +0, anything >= 1.0 (+inf too) to 1.0. x is a binary32 in
  // bits F32W-1:0; its sign bit and everything above must be clear for a result in (0, 1).
  function automatic logic [DataW-1:0] saturate_f32(logic [DataW-1:0] x);
    logic nan;
    nan = (x[F32ManBits+:F32ExpBits] == '1) && (x[F32ManBits-1:0] != '0);
    if (nan || (x[DataW-1:F32W-1] != '0)) begin
      return '0;
    end
    return (x < F32One) ? x : F32One;
  endfunction

  // round::increment: whether rounding in direction rnd adds one unit in the last place, from
  // the sign, the kept LSB, the round bit and the sticky below it.
  function automatic logic increment(rnd_e rnd, logic sign, logic lsb, logic rb, logic st);
    unique case (rnd)
      RND_RN:  return rb && (st || lsb);
      RND_RZ:  return 1'b0;
      RND_RM:  return sign && (rb || st);
      RND_RP:  return !sign && (rb || st);
      default: return 1'b0;
    endcase
  endfunction

  logic [DataW-1:0] sig, sum, sig_f, sign_w, inf_w, enc, frac_mask, biased;
  logic             rb, st, inc, carry, normal;
  logic             rb_u, st_u, inc_u, tiny;
  exp_t             e, emin, emax, be;

  always_comb begin
    // Round bit and sticky below the lane's precision p (53 or 24).
    if (f64_i) begin
      sig       = DataW'(lane_i.norm[MagW-1:F64RoundBit+1]);
      rb        = lane_i.norm[F64RoundBit];
      st        = (lane_i.norm[F64RoundBit-1:0] != '0) || lane_i.sticky;
      sign_w    = {lane_i.sign, (DataW - 1)'(0)};
      inf_w     = DataW'({{F64ExpBits{1'b1}}, F64ManBits'(0)});
      frac_mask = DataW'({F64ManBits{1'b1}});
      emin      = exp_t'(1) - exp_t'(F64Bias);
      emax      = exp_t'(F64Bias);
    end else begin
      sig       = DataW'(lane_i.norm[MagW-1:F32RoundBit+1]);
      rb        = lane_i.norm[F32RoundBit];
      st        = (lane_i.norm[F32RoundBit-1:0] != '0) || lane_i.sticky;
      sign_w    = {(DataW - F32W)'(0), lane_i.sign, (F32W - 1)'(0)};
      inf_w     = DataW'({{F32ExpBits{1'b1}}, F32ManBits'(0)});
      frac_mask = DataW'({F32ManBits{1'b1}});
      emin      = exp_t'(1) - exp_t'(F32Bias);
      emax      = exp_t'(F32Bias);
    end

    inc = increment(rnd_i, lane_i.sign, sig[0], rb, st);

    // Rounding may carry out to p + 1 bits: renormalise by one.
    sum    = sig + DataW'(inc);
    carry  = f64_i ? sum[F64Prec] : sum[F32Prec];
    sig_f  = carry ? (sum >> 1) : sum;
    e      = exp_widen(lane_i.exp) + (carry ? 16'sd1 : 16'sd0);
    normal = f64_i ? sig_f[F64Prec-1] : sig_f[F32Prec-1];
    // Biased exponent, sign-extended like the model's `(e - emin + 1) as u64`.
    be     = e - emin + 16'sd1;
    biased = normal ? {{(DataW - ExpW){be[ExpW-1]}}, be} : '0;

    // S4, round::tiny: the result flushes when the value rounded to F32Prec bits with an
    // unbounded exponent is below 2^-126 (only binary32 results flush). It is below 2^-126
    // before rounding when norm[MagW-1] is clear (the normaliser stops at emin), and rounding
    // one position below the subnormal quantum brings it up to 2^-126 only if
    // norm[MagW-2:F32RoundBit] is all ones and increments.
    rb_u = lane_i.norm[F32RoundBit-1];
    st_u = (lane_i.norm[F32RoundBit-2:0] != '0) || lane_i.sticky;
    inc_u = increment(rnd_i, lane_i.sign, lane_i.norm[F32RoundBit], rb_u, st_u);
    tiny = !lane_i.norm[MagW-1] && !((lane_i.norm[MagW-2:F32RoundBit] == '1) && inc_u);

    if (lane_i.spec_valid) begin
      enc = lane_i.spec_res;
    end else if (lane_i.zero) begin
      enc = sign_w;
    end else if (normal && (e > emax)) begin
      // Overflow: infinity, or the largest finite value when rounding toward zero.
      unique case (rnd_i)
        RND_RZ:  enc = (inf_w | sign_w) - DataW'(1);
        RND_RM:  enc = lane_i.sign ? (inf_w | sign_w) : (inf_w | sign_w) - DataW'(1);
        RND_RP:  enc = lane_i.sign ? (inf_w | sign_w) - DataW'(1) : (inf_w | sign_w);
        default: enc = inf_w | sign_w;
      endcase
    end else if (flush_i && tiny) begin
      enc = f64_i ? {lane_i.flush_sign, (DataW - 1)'(0)}
                  : {(DataW - F32W)'(0), lane_i.flush_sign, (F32W - 1)'(0)};
    end else begin
      enc = sign_w | (biased << (f64_i ? F64ManBits : F32ManBits)) | (sig_f & frac_mask);
    end

    res_o = (sat_i && !f64_i) ? saturate_f32(enc) : enc;
  end

endmodule
