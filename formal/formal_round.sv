// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of the rounder (docs/formal.md) for one result format (define FMT_F16,
// FMT_BF16, FMT_F32 or FMT_F64): real ptxfma_round instances, the lane free within what the
// normaliser delivers (exponent >= emin, the lead at the top unless at emin, a non-zero value).
// The value is compared with the encoding's value in units of the input's last window bit,
// doubled so that sticky (strictly between two such units) is the odd point between them.

module formal_round import ptxfma_pkg::*; (
  input  logic             sign_i,
  input  logic             flush_sign_i,
  input  logic [MagW-1:0]  norm_i,
  input  logic             sticky_i,
  input  exp14_t           exp_i,
  input  rnd_e             rnd_i,
  // For .sat and .relu: any special result or zero, with or without .ftz.
  input  logic             zero_i,
  input  logic             spec_valid_i,
  input  logic [DataW-1:0] spec_res_i,
  input  logic             flush_i,
  output logic             ok_exact,
  output logic             twin_exact_tight,
  output logic             ok_sign,
  output logic             twin_sign,
  output logic             ok_overflow,
  output logic             twin_overflow,
  output logic             ok_ftz,
  output logic             twin_ftz_before,
  output logic             ok_sat,
  output logic             twin_sat,
  output logic             ok_relu,
  output logic             twin_relu,
  output logic             ok_via_f32,
  output logic             twin_via_f32_direct
);

`ifdef FMT_F16
  localparam res_fmt_e Fmt = FMT_F16;
  localparam int M = 10, EB = 5;
`elsif FMT_BF16
  localparam res_fmt_e Fmt = FMT_BF16;
  localparam int M = 7, EB = 8;
`elsif FMT_F32
  localparam res_fmt_e Fmt = FMT_F32;
  localparam int M = 23, EB = 8;
`else
  localparam res_fmt_e Fmt = FMT_F64;
  localparam int M = 52, EB = 11;
`endif
  localparam int W    = 1 + EB + M;
  localparam int Bias = (1 << (EB - 1)) - 1;
  localparam int Emin = 1 - Bias;
  localparam int Emax = Bias;
  // The input's round bit: its units are 2^(exp - 164); one ulp of the format is 2^(Rb + 1).
  localparam int Rb   = MagW - 1 - (M + 1);
  localparam int Half = (Fmt == FMT_F16) || (Fmt == FMT_BF16);

  function automatic s3_lane_t lane(logic sign, logic flush_sign, logic [MagW-1:0] norm,
                                    logic sticky, exp14_t exp, logic zero, logic spec_valid,
                                    logic [DataW-1:0] spec_res);
    s3_lane_t l;
    l.sign       = sign;
    l.zero       = zero;
    l.flush_sign = flush_sign;
    l.norm       = norm;
    l.sticky     = sticky;
    l.exp        = exp;
    l.spec_valid = spec_valid;
    l.spec_res   = spec_res;
    return l;
  endfunction

  s3_lane_t plain_lane, any_lane;
  assign plain_lane = lane(sign_i, flush_sign_i, norm_i, sticky_i, exp_i, 1'b0, 1'b0, '0);
  assign any_lane   = lane(sign_i, flush_sign_i, norm_i, sticky_i, exp_i, zero_i, spec_valid_i,
                           spec_res_i);

  logic [DataW-1:0] res, res_flush, res_ref, res_sat, res_relu;

  ptxfma_round u_plain (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(1'b0), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(plain_lane), .res_o(res));
  ptxfma_round u_flush (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(1'b1), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(plain_lane), .res_o(res_flush));
  ptxfma_round u_ref (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(flush_i), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(any_lane), .res_o(res_ref));
  ptxfma_round u_sat (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(flush_i), .sat_i(1'b1), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(any_lane), .res_o(res_sat));
  ptxfma_round u_relu (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(flush_i), .sat_i(1'b0), .relu_i(1'b1),
    .via_f32_i(1'b0), .lane_i(any_lane), .res_o(res_relu));

  // The lane as the normaliser delivers it, a non-zero value.
  logic valid;
  assign valid = (int'(exp_i) >= Emin) && (norm_i[MagW-1] || int'(exp_i) == Emin)
              && ((norm_i != '0) || sticky_i);

  // The input in doubled units and the rounding direction of the magnitude.
  logic [MagW:0] x2;
  logic          rn, up, down;
  assign x2   = {norm_i, sticky_i};
  assign rn   = rnd_i == RND_RN;
  assign up   = (rnd_i == RND_RP && !sign_i) || (rnd_i == RND_RM && sign_i);
  assign down = !rn && !up;

  // The result's encoding, decoded.
  logic          r_sign, r_inf, r_nan;
  logic [EB-1:0] r_e;
  logic [M-1:0]  r_f;
  logic [M:0]    r_sig;
  int            r_exp, k;
  logic [MagW+2:0] r2, u, max2;
  always_comb begin
    r_sign = res[W-1];
    r_e    = res[W-2:M];
    r_f    = res[M-1:0];
    r_inf  = (r_e == '1) && (r_f == '0);
    r_nan  = (r_e == '1) && (r_f != '0);
    r_sig  = (r_e == '0) ? {1'b0, r_f} : {1'b1, r_f};
    r_exp  = (r_e == '0) ? Emin : int'(r_e) - Bias;
    k      = r_exp - int'(exp_i);
    // The result in doubled units of the input: its significand's lsb weighs 2^(Rb+1+k).
    r2     = (MagW + 3)'(r_sig) << (Rb + 2 + ((k == 1) ? 1 : 0));
    // One ulp of the input's binade, doubled: half an ulp is u / 2 ... in doubled units u.
    u      = (MagW + 3)'(1) << (Rb + 1);
    max2   = (MagW + 3)'({(M + 1){1'b1}}) << (Rb + 2);
  end

  // Overflow: above the largest finite value, and at or past its half ulp (to nearest).
  logic over_max, rn_inf;
  assign over_max = (int'(exp_i) > Emax) || (int'(exp_i) == Emax && (MagW + 3)'(x2) > max2);
  assign rn_inf   = (int'(exp_i) > Emax) || (int'(exp_i) == Emax && (MagW + 3)'(x2) >= max2 + u);

  logic [MagW+2:0] x2w;
  logic            in_bounds, tight;
  always_comb begin
    x2w = (MagW + 3)'(x2);
    if (rn) begin
      // Within half an ulp; a tie goes to the even significand.
      in_bounds = ((r2 >= x2w) ? (r2 - x2w <= u) : (x2w - r2 <= u))
               && !(((r2 >= x2w) ? (r2 - x2w) : (x2w - r2)) == u && r_sig[0]);
      tight     = (r2 >= x2w) ? (r2 - x2w < u) : (x2w - r2 < u);
    end else if (down) begin
      in_bounds = (r2 <= x2w) && (x2w < r2 + 2 * u);
      tight     = in_bounds;
    end else begin
      in_bounds = (r2 >= x2w) && (r2 < x2w + 2 * u);
      tight     = in_bounds;
    end
  end

  // Correctly rounded in each direction: a finite result of the input's binade or the next.
  assign ok_exact = !valid || over_max
                 || (!r_inf && !r_nan && (k == 0 || k == 1) && in_bounds);
  // Twin: to nearest strictly within half an ulp (a tie has an error of exactly half).
  assign twin_exact_tight = !valid || over_max || (!r_inf && !r_nan && tight);

  // The sign of every result, zero from underflow and overflow included.
  assign ok_sign   = !valid || (r_sign == sign_i && (res >> W) == '0);
  // Twin: no result is a negative zero (a tiny negative value rounded toward zero is).
  assign twin_sign = !valid || (res != (DataW'(1) << (W - 1)));

  logic [DataW-1:0] inf_w, maxf_w;
  assign inf_w  = (DataW'(sign_i) << (W - 1)) | (((DataW'(1) << EB) - 1) << M);
  assign maxf_w = inf_w - 1;
  assign ok_overflow = !valid || !over_max
                    || (rn ? (res == (rn_inf ? inf_w : maxf_w))
                           : (res == (up ? inf_w : maxf_w)));
  // Twin: toward zero overflows to infinity as well.
  assign twin_overflow = !valid || !over_max || rn || (res == inf_w);

  // S4: tiny after rounding: below 2^emin and not brought to it by rounding at the precision
  // with an unbounded exponent, whose ulp there is half the format's (2^Rb).
  logic below, reach;
  assign below = !norm_i[MagW-1];
  assign reach = rn ? ((MagW + 3)'(x2) >= ((MagW + 3)'(1) << MagW) - ((MagW + 3)'(1) << Rb))
               : (up && ((MagW + 3)'(x2) > ((MagW + 3)'(1) << MagW) - ((MagW + 3)'(1) << (Rb + 1))));
  logic [DataW-1:0] flushed;
  assign flushed = DataW'(flush_sign_i) << (W - 1);
  assign ok_ftz  = !valid || ((below && !reach) ? (res_flush == flushed) : (res_flush == res));
  // Twin: tininess before rounding.
  assign twin_ftz_before = !valid || (below ? (res_flush == flushed) : (res_flush == res));

  // .sat (S3) on any result (specials, zeros, flushed): NaN and anything negative to +0,
  // anything from 1.0 up (+inf too) to 1.0. binary64 has no .sat: the result stays.
  logic          q_sign, q_nan;
  logic [EB-1:0] q_e;
  logic          spec_fits;
  logic [DataW-1:0] sat_spec, one_w;
  always_comb begin
    q_sign   = res_ref[W-1];
    q_e      = res_ref[W-2:M];
    q_nan    = (q_e == '1) && (res_ref[M-1:0] != '0);
    one_w    = DataW'(Bias) << M;
    sat_spec = (q_nan || q_sign) ? '0 : ((int'(q_e) >= Bias) ? one_w : res_ref);
    // The special unit's results are encodings of the format; a finite lane is valid.
    spec_fits = ((spec_res_i >> W) == '0) && (valid || zero_i || spec_valid_i);
  end
  assign ok_sat   = !spec_fits || (res_sat == ((Fmt == FMT_F64) ? res_ref : sat_spec));
  // Twin: a NaN saturates to 1.0.
  assign twin_sat = !spec_fits || (res_sat == ((Fmt == FMT_F64) ? '0 :
                                  (q_nan ? one_w : sat_spec)));

  // .relu (S11, half formats): NaN to the half NaN 0x7FFF, anything negative (-0 too) to +0.
  logic [DataW-1:0] relu_spec;
  assign relu_spec = q_nan ? 64'h7FFF : (q_sign ? '0 : res_ref);
  assign ok_relu   = !Half || !spec_fits || (res_relu == relu_spec);
  // Twin: -0 kept.
  assign twin_relu = !Half || !spec_fits
                  || (res_relu == ((res_ref == (DataW'(1) << (W - 1))) ? res_ref : relu_spec));

  // S13 (half formats, via_f32): rounded to binary32 in rnd_i's direction, then that binary32
  // value to the half format to nearest. The lane comes normalised at binary32's emin.
  logic [DataW-1:0] res_via, res_f32, res_half, res_direct;
  logic             valid32;
  assign valid32 = (int'(exp_i) >= -126) && (norm_i[MagW-1] || int'(exp_i) == -126)
                && ((norm_i != '0) || sticky_i) && (int'(exp_i) < 64);

  ptxfma_round u_via (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(flush_i), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b1), .lane_i(plain_lane), .res_o(res_via));
  ptxfma_round u_f32 (
    .en_i(1'b1), .fmt_i(FMT_F32), .rnd_i(rnd_i), .flush_i(1'b0), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(plain_lane), .res_o(res_f32));

  // The binary32 result placed as the normaliser places a value for the half format.
  logic [7:0]      e32;
  logic [23:0]     sig32;
  int              x32, sh;
  logic [MagW-1:0] n32, n32_sh;
  logic            st32;
  s3_lane_t        lane32;
  always_comb begin
    e32    = res_f32[30:23];
    sig32  = (e32 == '0) ? {1'b0, res_f32[22:0]} : {1'b1, res_f32[22:0]};
    x32    = (e32 == '0) ? -126 : int'(e32) - 127;
    n32    = MagW'(sig32) << (MagW - 24);
    sh     = (x32 < Emin) ? (Emin - x32) : 0;
    n32_sh = n32 >> sh;
    st32   = (n32_sh << sh) != n32;
    lane32 = lane(sign_i, flush_sign_i, n32_sh, st32, exp14_t'((x32 < Emin) ? Emin : x32),
                  1'b0, 1'b0, '0);
  end

  ptxfma_round u_half (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(RND_RN), .flush_i(1'b0), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(lane32), .res_o(res_half));
  ptxfma_round u_direct (
    .en_i(1'b1), .fmt_i(Fmt), .rnd_i(rnd_i), .flush_i(1'b0), .sat_i(1'b0), .relu_i(1'b0),
    .via_f32_i(1'b0), .lane_i(plain_lane), .res_o(res_direct));

  assign ok_via_f32 = !Half || !valid32 || (res_via == res_half);
  // Twin: rounded to the half format directly in rnd_i's direction.
  assign twin_via_f32_direct = !Half || !valid32 || (int'(exp_i) < Emin) || (res_via == res_direct);

endmodule
