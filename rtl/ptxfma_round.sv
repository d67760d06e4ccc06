// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Rounder (model/src/parts/round.rs): rounds the normalised significand to the lane's precision in
// the instruction's direction (through binary32 first under via_f32, S13 of docs/semantics.md),
// handles overflow, flushes tiny results (.ftz, sm_1x: S4), takes the special result when there
// is one, and saturates (.sat: binary32 and the half formats) or clamps at zero (.relu, S11).
//
// The lane's format decides where the kept significand ends in norm (lead at MagW-1):
//
//   norm  164 ........ RoundBit+1 | RoundBit | RoundBit-1 ........ 0
//         kept (Prec bits)        | round    | sticky (with lane sticky)
//
// with RoundBit = MagW-1-Prec: 111 (binary64), 140 (binary32), 153 (binary16), 156 (bfloat16).

module ptxfma_round import ptxfma_pkg::*; (
  // The lane carries an operation; when clear the result is zero and not read (the Verilated
  // model then skips the rounder's logic).
  input  logic             en_i,
  input  res_fmt_e         fmt_i,      // the result format (decoded)
  input  rnd_e             rnd_i,      // effective rounding direction
  input  logic             flush_i,    // Ctrl::flush
  input  logic             sat_i,
  input  logic             relu_i,     // .relu (half kinds only)
  input  logic             via_f32_i,  // binary32 first, then to nearest (half kinds only)
  input  s3_lane_t         lane_i,
  output logic [DataW-1:0] res_o
);

  localparam logic [DataW-1:0] HalfNaN = 64'h0000_0000_0000_7FFF;

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

  // The width of an encoding and of its fraction field.
  function automatic int unsigned fmt_width(res_fmt_e fmt);
    unique case (fmt)
      FMT_F64:  return F64W;
      FMT_F16:  return F16W;
      FMT_BF16: return BF16W;
      default:  return F32W;
    endcase
  endfunction

  function automatic int unsigned fmt_man(res_fmt_e fmt);
    unique case (fmt)
      FMT_F64:  return F64ManBits;
      FMT_F16:  return F16ManBits;
      FMT_BF16: return BF16ManBits;
      default:  return F32ManBits;
    endcase
  endfunction

  // Whether x, a value of the format without its sign in its low bits, is a NaN.
  function automatic logic is_nan(res_fmt_e fmt, logic [F32W-2:0] x);
    unique case (fmt)
      FMT_F16:  return (x[F16ManBits+:F16ExpBits] == '1) && (x[F16ManBits-1:0] != '0);
      FMT_BF16: return (x[BF16ManBits+:BF16ExpBits] == '1) && (x[BF16ManBits-1:0] != '0);
      default:  return (x[F32ManBits+:F32ExpBits] == '1) && (x[F32ManBits-1:0] != '0);
    endcase
  endfunction

  // S3: NaN and anything <= 0 go to +0, anything >= 1.0 (+inf too) to 1.0 (binary32 and the
  // half formats). The sign bit and everything above must be clear for a result in (0, 1).
  function automatic logic [DataW-1:0] saturate(res_fmt_e fmt, logic [DataW-1:0] x);
    logic [DataW-1:0] one;
    unique case (fmt)
      FMT_F16:  one = DataW'(F16Bias) << F16ManBits;
      FMT_BF16: one = DataW'(BF16Bias) << BF16ManBits;
      default:  one = DataW'(F32Bias) << F32ManBits;
    endcase
    if (is_nan(fmt, x[F32W-2:0]) || ((x >> (fmt_width(fmt) - 1)) != '0)) begin
      return '0;
    end
    return (x < one) ? x : one;
  endfunction

  // S11 (.relu): NaN to the half NaN, anything negative (-0 and -inf too) to +0.
  function automatic logic [DataW-1:0] relu(res_fmt_e fmt, logic [DataW-1:0] x);
    if (is_nan(fmt, x[F32W-2:0])) begin
      return HalfNaN;
    end
    return ((x >> (fmt_width(fmt) - 1)) != '0) ? '0 : x;
  endfunction

  /////////////////////////////////////////////////////////////////////////////////////////////
  // S13: the value rounded to binary32's Prec bits in rnd_i's direction, then placed as the  //
  // normaliser would for the result format: shifted right, into sticky, below its emin.     //
  /////////////////////////////////////////////////////////////////////////////////////////////

  exp_t             emin;
  logic [F32Prec:0] sum32;
  logic [MagW-1:0]  norm32, norm32_sh;
  logic             inc32, st32, sticky32;
  exp_t             e32, sh32;

  always_comb begin
    unique case (fmt_i)
      FMT_F64: emin = exp_t'(1) - exp_t'(F64Bias);
      FMT_F16: emin = exp_t'(1) - exp_t'(F16Bias);
      default: emin = exp_t'(1) - exp_t'(F32Bias);
    endcase
    // Only read under via_f32 (rare): the Verilated model skips the wide shifts otherwise.
    st32      = 1'b0;
    inc32     = 1'b0;
    sum32     = '0;
    norm32    = '0;
    e32       = emin;
    sh32      = '0;
    norm32_sh = '0;
    sticky32  = 1'b0;
    if (en_i && via_f32_i) begin
      st32   = (lane_i.norm[F32RoundBit-1:0] != '0) || lane_i.sticky;
      inc32  = increment(rnd_i, lane_i.sign, lane_i.norm[F32RoundBit+1],
                         lane_i.norm[F32RoundBit], st32);
      sum32  = {1'b0, lane_i.norm[MagW-1:F32RoundBit+1]} + (F32Prec + 1)'(inc32);
      norm32 = sum32[F32Prec] ? {sum32[F32Prec:1], (MagW - F32Prec)'(0)}
                              : {sum32[F32Prec-1:0], (MagW - F32Prec)'(0)};
      e32    = exp_widen(lane_i.exp) + (sum32[F32Prec] ? 16'sd1 : 16'sd0);
      sh32   = emin - e32;
      if (sh32 <= 0) begin
        norm32_sh = norm32;
      end else if (sh32 >= exp_t'(MagW)) begin
        norm32_sh = '0;
      end else begin
        norm32_sh = norm32 >> sh32[ShiftCntW-1:0];
      end
      sticky32 = (sh32 > 0) && (norm32 != '0) && ((sh32 >= exp_t'(MagW))
                 || ((norm32_sh << sh32[ShiftCntW-1:0]) != norm32));
    end
  end

  /////////////////////////////////////////////////////////////////////////////////////////////
  // The rounding proper, on the lane or (via_f32) on the binary32 value.                     //
  /////////////////////////////////////////////////////////////////////////////////////////////

  logic [MagW-1:0]  norm;
  logic             sticky, flush;
  exp_t             exp_in;
  rnd_e             rnd;
  logic [DataW-1:0] sig, sum, sig_f, sign_w, inf_w, enc, frac_mask, biased, res;
  logic             rb, st, inc, carry, normal;
  logic             ones_u, lsb_u, rb_u, st_u, inc_u, tiny;
  exp_t             e, emax, be;
  int unsigned      prec;

  always_comb begin
    norm      = '0;
    sticky    = 1'b0;
    flush     = 1'b0;
    exp_in    = '0;
    rnd       = RND_RN;
    prec      = F32Prec;
    sig       = '0;
    rb        = 1'b0;
    st        = 1'b0;
    ones_u    = 1'b0;
    lsb_u     = 1'b0;
    rb_u      = 1'b0;
    st_u      = 1'b0;
    emax      = '0;
    sign_w    = '0;
    frac_mask = '0;
    inf_w     = '0;
    inc       = 1'b0;
    sum       = '0;
    carry     = 1'b0;
    sig_f     = '0;
    e         = '0;
    normal    = 1'b0;
    be        = '0;
    biased    = '0;
    inc_u     = 1'b0;
    tiny      = 1'b0;
    enc       = '0;
    res       = '0;
    res_o     = '0;
    if (en_i) begin
      norm   = via_f32_i ? norm32_sh : lane_i.norm;
      sticky = via_f32_i ? sticky32 : lane_i.sticky;
      exp_in = via_f32_i ? ((e32 > emin) ? e32 : emin) : exp_widen(lane_i.exp);
      rnd    = via_f32_i ? RND_RN : rnd_i;
      flush  = flush_i && !via_f32_i;

      // Kept significand, round bit and sticky below the format's precision; and for S4's
      // tininess test the same one position lower (round.rs: Decisions::tininess).
      unique case (fmt_i)
        FMT_F64: begin
          prec   = F64Prec;
          sig    = DataW'(norm[MagW-1:F64RoundBit+1]);
          rb     = norm[F64RoundBit];
          st     = (norm[F64RoundBit-1:0] != '0) || sticky;
          ones_u = norm[MagW-2:F64RoundBit] == '1;
          lsb_u  = norm[F64RoundBit];
          rb_u   = norm[F64RoundBit-1];
          st_u   = (norm[F64RoundBit-2:0] != '0) || sticky;
          emax   = exp_t'(F64Bias);
        end
        FMT_F16: begin
          prec   = F16Prec;
          sig    = DataW'(norm[MagW-1:F16RoundBit+1]);
          rb     = norm[F16RoundBit];
          st     = (norm[F16RoundBit-1:0] != '0) || sticky;
          ones_u = norm[MagW-2:F16RoundBit] == '1;
          lsb_u  = norm[F16RoundBit];
          rb_u   = norm[F16RoundBit-1];
          st_u   = (norm[F16RoundBit-2:0] != '0) || sticky;
          emax   = exp_t'(F16Bias);
        end
        FMT_BF16: begin
          prec   = BF16Prec;
          sig    = DataW'(norm[MagW-1:BF16RoundBit+1]);
          rb     = norm[BF16RoundBit];
          st     = (norm[BF16RoundBit-1:0] != '0) || sticky;
          ones_u = norm[MagW-2:BF16RoundBit] == '1;
          lsb_u  = norm[BF16RoundBit];
          rb_u   = norm[BF16RoundBit-1];
          st_u   = (norm[BF16RoundBit-2:0] != '0) || sticky;
          emax   = exp_t'(BF16Bias);
        end
        default: begin
          prec   = F32Prec;
          sig    = DataW'(norm[MagW-1:F32RoundBit+1]);
          rb     = norm[F32RoundBit];
          st     = (norm[F32RoundBit-1:0] != '0) || sticky;
          ones_u = norm[MagW-2:F32RoundBit] == '1;
          lsb_u  = norm[F32RoundBit];
          rb_u   = norm[F32RoundBit-1];
          st_u   = (norm[F32RoundBit-2:0] != '0) || sticky;
          emax   = exp_t'(F32Bias);
        end
      endcase
      sign_w    = DataW'(lane_i.sign) << (fmt_width(fmt_i) - 1);
      frac_mask = (DataW'(1) << fmt_man(fmt_i)) - DataW'(1);
      inf_w     = ((DataW'(1) << (fmt_width(fmt_i) - 1)) - DataW'(1)) & ~frac_mask;

      inc = increment(rnd, lane_i.sign, sig[0], rb, st);

      // Rounding may carry out to Prec + 1 bits: renormalise by one.
      sum    = sig + DataW'(inc);
      carry  = sum[prec];
      sig_f  = carry ? (sum >> 1) : sum;
      e      = exp_in + (carry ? 16'sd1 : 16'sd0);
      normal = sig_f[prec-1];
      // Biased exponent, sign-extended like the model's `(e - emin + 1) as u64`.
      be     = e - emin + 16'sd1;
      biased = normal ? {{(DataW - ExpW){be[ExpW-1]}}, be} : '0;

      // S4: below 2^emin before rounding (the normaliser stops at emin, so the lead is clear),
      // and not brought up to it by rounding one position below the subnormal quantum.
      inc_u = increment(rnd, lane_i.sign, lsb_u, rb_u, st_u);
      tiny  = !norm[MagW-1] && !(ones_u && inc_u);

      if (lane_i.spec_valid) begin
        enc = lane_i.spec_res;
      end else if (lane_i.zero) begin
        enc = sign_w;
      end else if (normal && (e > emax)) begin
        // Overflow: infinity, or the largest finite value when rounding toward zero.
        unique case (rnd)
          RND_RZ:  enc = (inf_w | sign_w) - DataW'(1);
          RND_RM:  enc = lane_i.sign ? (inf_w | sign_w) : (inf_w | sign_w) - DataW'(1);
          RND_RP:  enc = lane_i.sign ? (inf_w | sign_w) - DataW'(1) : (inf_w | sign_w);
          default: enc = inf_w | sign_w;
        endcase
      end else if (flush && tiny) begin
        enc = DataW'(lane_i.flush_sign) << (fmt_width(fmt_i) - 1);
      end else begin
        enc = sign_w | (biased << fmt_man(fmt_i)) | (sig_f & frac_mask);
      end

      if (sat_i && (fmt_i != FMT_F64)) begin
        res = saturate(fmt_i, enc);
      end else if (relu_i) begin
        res = relu(fmt_i, enc);
      end else begin
        res = enc;
      end
      res_o = res;
    end
  end

endmodule
