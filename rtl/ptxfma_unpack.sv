// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Operand unpack for one float lane (model/src/parts/unpack.rs): format decode, exact f16/bf16
// widening (mixed precision) or f16/bf16 operands (half kinds), input flushing, and the b_one /
// c_zero / neg_c substitutions that put add, sub and mul on the FMA datapath. Every operand leaves in one internal form: a 53-bit significand with
// the hidden bit at 52 and the unbiased exponent of bit 52; narrower formats are MSB-aligned.

module ptxfma_unpack import ptxfma_pkg::*; #(
  // 0: binary32 words in bits 31:0, half-precision ones in 15:0; 1: in bits 63:32 (f32x2 lane
  // 1: F32W * Lane +: F32W) or 31:16 (half2 lane 1: F16W * Lane +: F16W).
  parameter int unsigned Lane = 0
) (
  input  kind_e            kind_i,    // decoded
  input  rnd_e             rnd_i,
  input  logic             flush_i,   // Ctrl::flush
  input  ab_fmt_e          ab_fmt_i,  // decoded
  input  logic             b_one_i,
  input  logic             c_zero_i,
  input  logic             neg_c_i,
  input  logic [DataW-1:0] a_i,
  input  logic [DataW-1:0] b_i,
  input  logic [DataW-1:0] c_i,
  output operand_t         a_o,
  output operand_t         b_o,
  output operand_t         c_o
);

  // Builds the internal form from a format's fields; `frac` is MSB-aligned to bit 51 and
  // `e_unb` already holds the subnormal exponent (1 - bias) when the exponent field is zero.
  function automatic operand_t mk_op(logic sign, logic e_zero, logic e_ones, exp_t e_unb,
                                     logic [F64ManBits-1:0] frac, logic flush);
    operand_t op;
    op.sign = sign;
    op.exp  = e_unb;
    op.sig  = {~e_zero, frac};
    op.zero = e_zero && (frac == '0);
    op.inf  = e_ones && (frac == '0);
    op.nan  = e_ones && (frac != '0);
    if (flush && e_zero) begin
      op.sig  = '0;
      op.zero = 1'b1;
    end
    return op;
  endfunction

  // The unbiased exponent of the field `e` of a format with `exp_bits` exponent bits: the
  // subnormal exponent 1 - bias when the field is zero.
  function automatic exp_t unbias(logic [F64ExpBits-1:0] e, int unsigned exp_bits);
    exp_t bias;
    bias = exp_t'((1 << (exp_bits - 1)) - 1);
    return (e == '0) ? exp_t'(1) - bias : exp_t'(e) - bias;
  endfunction

  function automatic operand_t unpack_f64(logic [F64W-1:0] x);
    logic [F64ExpBits-1:0] e;
    e = x[F64ManBits+:F64ExpBits];
    return mk_op(x[F64ManBits+F64ExpBits], e == '0, e == '1, unbias(e, F64ExpBits),
                 x[F64ManBits-1:0], 1'b0);
  endfunction

  function automatic operand_t unpack_f32(logic [F32W-1:0] x, logic flush);
    logic [F32ExpBits-1:0] e;
    e = x[F32ManBits+:F32ExpBits];
    return mk_op(x[F32ManBits+F32ExpBits], e == '0, e == '1,
                 unbias(F64ExpBits'(e), F32ExpBits),
                 {x[F32ManBits-1:0], (F64ManBits - F32ManBits)'(0)}, flush);
  endfunction

  function automatic operand_t unpack_f16(logic [F16W-1:0] x, logic flush);
    logic [F16ExpBits-1:0] e;
    e = x[F16ManBits+:F16ExpBits];
    return mk_op(x[F16ManBits+F16ExpBits], e == '0, e == '1,
                 unbias(F64ExpBits'(e), F16ExpBits),
                 {x[F16ManBits-1:0], (F64ManBits - F16ManBits)'(0)}, flush);
  endfunction

  function automatic operand_t unpack_bf16(logic [BF16W-1:0] x, logic flush);
    logic [BF16ExpBits-1:0] e;
    e = x[BF16ManBits+:BF16ExpBits];
    return mk_op(x[BF16ManBits+BF16ExpBits], e == '0, e == '1,
                 unbias(F64ExpBits'(e), BF16ExpBits),
                 {x[BF16ManBits-1:0], (F64ManBits - BF16ManBits)'(0)}, flush);
  endfunction

  // a and b of the binary32 kinds: the lane's word, or an f16/bf16 value in bits 15:0 (the
  // same for both lanes; F16W = BF16W), which mixed precision never flushes.
  function automatic operand_t unpack_ab(logic [F32W-1:0] word, logic [F16W-1:0] half,
                                         ab_fmt_e fmt, logic flush);
    unique case (fmt)
      AB_F16:  return unpack_f16(half, 1'b0);
      AB_BF16: return unpack_bf16(half, 1'b0);
      default: return unpack_f32(word, flush);
    endcase
  endfunction

  // An operand of the half kinds: bfloat16, or binary16 (AB_F16 and AB_NATIVE).
  function automatic operand_t unpack_half(logic [F16W-1:0] x, ab_fmt_e fmt, logic flush);
    return (fmt == AB_BF16) ? unpack_bf16(x, flush) : unpack_f16(x, flush);
  endfunction

  operand_t ua, ub, uc;

  always_comb begin
    if (kind_i == KIND_F64) begin
      ua = unpack_f64(a_i);
      ub = unpack_f64(b_i);
      uc = unpack_f64(c_i);
    end else if (kind_is_half(kind_i)) begin
      ua = unpack_half(a_i[F16W*Lane+:F16W], ab_fmt_i, flush_i);
      ub = unpack_half(b_i[F16W*Lane+:F16W], ab_fmt_i, flush_i);
      uc = unpack_half(c_i[F16W*Lane+:F16W], ab_fmt_i, flush_i);
    end else begin
      ua = unpack_ab(a_i[F32W*Lane+:F32W], a_i[F16W-1:0], ab_fmt_i, flush_i);
      ub = unpack_ab(b_i[F32W*Lane+:F32W], b_i[F16W-1:0], ab_fmt_i, flush_i);
      uc = unpack_f32(c_i[F32W*Lane+:F32W], flush_i);
    end
  end

  // add / sub: b is +1.0.
  localparam operand_t One = '{sign: 1'b0, exp: '0, sig: {1'b1, F64ManBits'(0)},
                               zero: 1'b0, inf: 1'b0, nan: 1'b0};

  operand_t c_sub;

  always_comb begin
    // mul: c is a signed zero (exponent 1 - F32Bias): -0, or +0 under .rm, where an exact zero
    // sum is -0.
    c_sub = c_zero_i ? operand_t'{sign: rnd_i != RND_RM, exp: exp_t'(1) - exp_t'(F32Bias),
                                  sig: '0, zero: 1'b1, inf: 1'b0, nan: 1'b0} : uc;
    // sub: c's sign flips.
    c_sub.sign = c_sub.sign ^ neg_c_i;
  end

  assign a_o = ua;
  assign b_o = b_one_i ? One : ub;
  assign c_o = c_sub;

endmodule
