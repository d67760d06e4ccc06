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
// with RoundBit = round_bit(fmt) = MagW-1-Prec: 111 (binary64), 140 (binary32), 153 (binary16),
// 156 (bfloat16). ptxfma_round_window reads these fields, once for the lane and once for S13.
//
// Depth (docs/microarchitecture.md, "Stage 4"): little waits for the sticky OR. Beside it, from
// the register: kept + 1, the exponent field for either carry, the compares of overflow and .sat;
// the carry is known before the add (kept all ones). .sat and .relu's tests are made on each kind
// of result (special, zero, overflow, flushed, rounded), not on the chosen encoding. S13 places
// its 24-bit binary32 value with a shift of at most 13 into a 37-bit window (no 165-bit shifter,
// no shift-back compare for its sticky) and reads that window for the second rounding.

module ptxfma_round import ptxfma_pkg::*; (
  // The lane carries an operation; when clear the result is zero and not read (the Verilated
  // model then skips the rounder's logic).
  input  logic             en_i,
  input  res_fmt_e         fmt_i,      // the result format (decoded)
  input  rnd_e             rnd_i,      // effective rounding direction
  input  logic             flush_i,    // Ctrl::flush
  input  logic             sat_i,
  input  logic             relu_i,     // .relu (half kinds only)
  input  logic             via_f32_i,  // binary32 first, then to nearest (half formats only)
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

  // The bias, which is also emax; emin is 1 - bias.
  function automatic exp_t fmt_bias(res_fmt_e fmt);
    unique case (fmt)
      FMT_F64:  return exp_t'(F64Bias);
      FMT_F16:  return exp_t'(F16Bias);
      FMT_BF16: return exp_t'(BF16Bias);
      default:  return exp_t'(F32Bias);
    endcase
  endfunction

  // 1.0, the upper bound of .sat.
  function automatic logic [DataW-1:0] fmt_one(res_fmt_e fmt);
    unique case (fmt)
      FMT_F16:  return DataW'(F16Bias) << F16ManBits;
      FMT_BF16: return DataW'(BF16Bias) << BF16ManBits;
      default:  return DataW'(F32Bias) << F32ManBits;
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
  // Used on the special result; the rounded value's .sat is decided from its own terms.
  function automatic logic [DataW-1:0] saturate(res_fmt_e fmt, logic [DataW-1:0] x);
    if (is_nan(fmt, x[F32W-2:0]) || ((x >> (fmt_width(fmt) - 1)) != '0)) begin
      return '0;
    end
    return (x < fmt_one(fmt)) ? x : fmt_one(fmt);
  endfunction

  // The format's encoding fields, shared by both paths.
  logic [DataW-1:0] sign_w, frac_mask, inf_w, one_w;
  exp_t             bias;

  always_comb begin
    sign_w    = DataW'(lane_i.sign) << (fmt_width(fmt_i) - 1);
    frac_mask = (DataW'(1) << fmt_man(fmt_i)) - DataW'(1);
    inf_w     = ((DataW'(1) << (fmt_width(fmt_i) - 1)) - DataW'(1)) & ~frac_mask;
    one_w     = fmt_one(fmt_i);
    bias      = fmt_bias(fmt_i);
  end

  /////////////////////////////////////////////////////////////////////////////////////////////
  // S13 (via_f32): the lane rounded to binary32's Prec bits in rnd_i, then placed as the    //
  // normaliser would for the half format; the rounding below takes it to nearest.           //
  /////////////////////////////////////////////////////////////////////////////////////////////

  // The binary32 value, v (25 bits: kept32 or kept32 + 1, whose carry out is v[24]) times
  // 2^(exp - 23), is exact. At or above emin it is norm's top 24 bits as it stands (one place
  // right after a carry, the exponent one up). Below emin (the lane's exp < emin; a carry brings
  // it at most to 2^emin) it moves right by emin - exp places, with no bit lost:
  //
  //   {v, 13 zeros} >> (emin - exp):  37 | 36 .............................. 0
  //                                     0 | win = norm[164:128], win[36] = 2^emin
  //
  // The half rounding keeps win[36:37-p] and rounds at win[36-p] (p = 11 or 8). From a shift of
  // F16Prec + 2 = 13, v[24] too lies below the round bit: kept and round bits are zero and, to
  // nearest, the value rounds to a signed zero whatever lies below; so the shift is clamped at
  // 13, where v fills win[24:0]. Bit 37 is clear: a value below 2^emin moves at least one place.
  // (via_f32_i comes only with a half format, ptxfma_top gates it by kind; with binary32's or
  // binary64's emin a lane the normaliser delivers, exp >= -126, is never below.)
  localparam int unsigned ViaShMax = F16Prec + 2;
  localparam int unsigned ViaWinW  = F32Prec + ViaShMax;
  localparam int unsigned ViaShW   = $clog2(ViaShMax + 1);

  // Whether exponent e lies below emin, and the clamped shift that places it there. Called
  // with each format's emin as a constant, so that each is a compare with a constant rather
  // than a subtraction from the decoded format's.
  typedef struct packed {
    logic              below;
    logic [ViaShW-1:0] shc;
  } place_t;

  function automatic place_t via_place(exp_t e, exp_t emin);
    place_t pl;
    pl.below = e < emin;
    pl.shc   = ((emin - e) >= exp_t'(ViaShMax)) ? ViaShW'(ViaShMax) : ViaShW'(emin - e);
    return pl;
  endfunction

  exp_t               emin, exp_lane, exp_up, exp_via;
  logic [F32Prec-1:0] kept32;
  logic [F32Prec:0]   up32, v;
  logic               st32, inc32, carry32;
  place_t             pl;
  logic [ViaWinW-1:0] win;
  logic [MagW-1:0]    norm_via;

  always_comb begin
    emin     = 16'sd1 - bias;
    exp_lane = '0;
    exp_up   = '0;
    pl       = '0;
    kept32   = '0;
    up32     = '0;
    st32     = 1'b0;
    inc32    = 1'b0;
    carry32  = 1'b0;
    v        = '0;
    win      = '0;
    exp_via  = '0;
    norm_via = '0;
    // Only under via_f32 (rare): the Verilated model skips this path otherwise.
    if (en_i && via_f32_i) begin
      // The placement, from the register beside the binary32 rounding.
      exp_lane = exp_widen(lane_i.exp);
      exp_up   = exp_lane + 16'sd1;
      unique case (fmt_i)
        FMT_F64:  pl = via_place(exp_lane, exp_t'(1) - exp_t'(F64Bias));
        FMT_F16:  pl = via_place(exp_lane, exp_t'(1) - exp_t'(F16Bias));
        FMT_BF16: pl = via_place(exp_lane, exp_t'(1) - exp_t'(BF16Bias));
        default:  pl = via_place(exp_lane, exp_t'(1) - exp_t'(F32Bias));
      endcase
      // The binary32 step; kept32 + 1 formed beside the sticky OR.
      kept32  = lane_i.norm[MagW-1:F32RoundBit+1];
      up32    = {1'b0, kept32} + (F32Prec + 1)'(1);
      st32    = (lane_i.norm[F32RoundBit-1:0] != '0) || lane_i.sticky;
      inc32   = increment(rnd_i, lane_i.sign, kept32[0], lane_i.norm[F32RoundBit], st32);
      carry32 = inc32 && (kept32 == '1);
      v       = inc32 ? up32 : {1'b0, kept32};
      if (pl.below) begin
        win      = ViaWinW'({v, ViaShMax'(0)} >> pl.shc);
        norm_via = {win, (MagW - ViaWinW)'(0)};
        exp_via  = emin;
      end else begin
        norm_via = {carry32 ? v[F32Prec:1] : v[F32Prec-1:0], (MagW - F32Prec)'(0)};
        exp_via  = carry32 ? exp_up : exp_lane;
      end
    end
  end

  // The two windows. S13's is read from norm_via, not from a mux of the two norms: its sticky
  // is an OR of the 37 bits the window can set, not of the whole of norm. The lane's is formed
  // under via_f32 too, unread: gated by via_f32 as well, the rounder synthesized three levels
  // deeper.
  window_t win_via, win_lane;

  ptxfma_round_window u_window_via (
    .en_i    (en_i && via_f32_i),
    .fmt_i   (fmt_i),
    .norm_i  (norm_via),
    .sticky_i(1'b0),
    .window_o(win_via)
  );

  ptxfma_round_window u_window_lane (
    .en_i    (en_i),
    .fmt_i   (fmt_i),
    .norm_i  (lane_i.norm),
    .sticky_i(lane_i.sticky),
    .window_o(win_lane)
  );

  /////////////////////////////////////////////////////////////////////////////////////////////
  // The rounding proper, on the lane or (via_f32) on the binary32 value.                    //
  /////////////////////////////////////////////////////////////////////////////////////////////

  window_t          w;
  logic             flush;
  rnd_e             rnd;
  exp_t             exp, be_keep, be_up;
  logic [DataW-1:0] kept_up, frac, exf_keep, exf_up, enc_normal, enc_over, enc;
  logic             inc, carry, normal, over, inc_u, tiny, relu_nan, relu_neg;

  always_comb begin
    w          = '0;
    flush      = 1'b0;
    rnd        = RND_RN;
    exp        = '0;
    kept_up    = '0;
    be_keep    = '0;
    be_up      = '0;
    inc        = 1'b0;
    carry      = 1'b0;
    normal     = 1'b0;
    frac       = '0;
    over       = 1'b0;
    exf_keep   = '0;
    exf_up     = '0;
    enc_normal = '0;
    inc_u      = 1'b0;
    tiny       = 1'b0;
    enc_over   = '0;
    enc        = '0;
    relu_nan   = 1'b0;
    relu_neg   = 1'b0;
    res_o      = '0;
    if (en_i) begin
      if (via_f32_i) begin
        w     = win_via;
        exp   = exp_via;
        rnd   = RND_RN;
        flush = 1'b0;
      end else begin
        w     = win_lane;
        exp   = exp_widen(lane_i.exp);
        rnd   = rnd_i;
        flush = flush_i;
      end

      // Beside the sticky OR: both outcomes of the increment. The biased exponent is the
      // model's `(e - emin + 1) as u64` = e + bias, for e = exp and e = exp + 1 (a carry out).
      kept_up = DataW'(w.kept) + DataW'(1);
      be_keep = exp + bias;
      be_up   = exp + bias + 16'sd1;
      // The exponent fields, sign-extended like the model's cast.
      exf_keep = {{(DataW - ExpW){be_keep[ExpW-1]}}, be_keep} << fmt_man(fmt_i);
      exf_up   = {{(DataW - ExpW){be_up[ExpW-1]}}, be_up} << fmt_man(fmt_i);

      inc = increment(rnd, lane_i.sign, w.kept[0], w.rb, w.st);
      // A carry out (kept all ones, rounded up) leaves the lead alone set: the fraction is
      // kept_up's, zero; the exponent is one up.
      carry  = inc && w.lead && w.rest_ones;
      normal = w.lead || (inc && w.rest_ones);
      frac   = (inc ? kept_up : DataW'(w.kept)) & frac_mask;
      // e > emax, for e = exp + carry.
      over   = normal && (carry ? (exp >= bias) : (exp > bias));
      enc_normal = sign_w | (!normal ? '0 : carry ? exf_up : exf_keep) | frac;

      // S4: below 2^emin before rounding (the normaliser stops at emin, so the lead is clear),
      // and not brought up to it by rounding one position below the subnormal quantum.
      inc_u = increment(rnd, lane_i.sign, w.lsb_u, w.rb_u, w.st_u);
      tiny  = !w.lead && !(w.ones_u && inc_u);

      // The encoding.
      if (lane_i.spec_valid) begin
        enc = lane_i.spec_res;
      end else if (lane_i.zero) begin
        enc = sign_w;
      end else if (over) begin
        // Overflow: infinity, or the largest finite value when rounding toward zero.
        unique case (rnd)
          RND_RZ:  enc_over = (inf_w | sign_w) - DataW'(1);
          RND_RM:  enc_over = lane_i.sign ? (inf_w | sign_w) : (inf_w | sign_w) - DataW'(1);
          RND_RP:  enc_over = lane_i.sign ? (inf_w | sign_w) - DataW'(1) : (inf_w | sign_w);
          default: enc_over = inf_w | sign_w;
        endcase
        enc = enc_over;
      end else if (flush && tiny) begin
        enc = DataW'(lane_i.flush_sign) << (fmt_width(fmt_i) - 1);
      end else begin
        enc = enc_normal;
      end

      // .sat and .relu are decided on each kind of result, not on the chosen encoding.
      if (sat_i && (fmt_i != FMT_F64)) begin
        if (lane_i.spec_valid) begin
          res_o = saturate(fmt_i, lane_i.spec_res);
        end else if (lane_i.zero || (!over && flush && tiny)) begin
          // A signed zero.
          res_o = '0;
        end else if (over) begin
          res_o = lane_i.sign ? '0 : one_w;
        end else if (lane_i.sign || (normal && (carry ? (be_up < 0) : (be_keep < 0)))) begin
          // enc_normal, no NaN (its exponent field is below all ones), negative or with a
          // negative biased exponent filling the bits above the encoding.
          res_o = '0;
        end else if (normal && (carry ? (exp >= -16'sd1) : (exp >= 16'sd0))) begin
          // e = exp + carry >= 0.
          res_o = one_w;
        end else begin
          res_o = enc_normal;
        end
      end else if (relu_i) begin
        // S11 (.relu): NaN to the half NaN, anything negative (-0 and -inf too) to +0. Its two
        // tests: a NaN, and anything set from the sign bit up.
        if (lane_i.spec_valid) begin
          relu_nan = is_nan(fmt_i, lane_i.spec_res[F32W-2:0]);
          relu_neg = (lane_i.spec_res >> (fmt_width(fmt_i) - 1)) != '0;
        end else if (lane_i.zero) begin
          relu_neg = lane_i.sign;
        end else if (over) begin
          relu_nan = is_nan(fmt_i, enc_over[F32W-2:0]);
          relu_neg = lane_i.sign;
        end else if (flush && tiny) begin
          relu_neg = lane_i.flush_sign;
        end else begin
          relu_nan = is_nan(fmt_i, enc_normal[F32W-2:0]);
          relu_neg = (enc_normal >> (fmt_width(fmt_i) - 1)) != '0;
        end
        res_o = relu_nan ? HalfNaN : (relu_neg ? '0 : enc);
      end else begin
        res_o = enc;
      end
    end
  end

endmodule
