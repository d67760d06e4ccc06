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
  // The lane carries an operation (else its operands are zero and not read: the Verilated
  // model skips the decoding).
  input  logic             en_i,
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

  // Each operand is unpacked by one generate block of plain signals: its format and its bits
  // are chosen first, then one decoder reads the fields. (Written as functions that return
  // operand_t per format, the Verilated model built and merged a 73-bit struct for every
  // format of every operand, every cycle.)
  //
  // Operand formats: binary64 operands for KIND_F64; f16/bf16 for the half kinds (this lane's
  // 16 bits); for the binary32 kinds, a and b are this lane's binary32 word or, for mixed
  // precision, an f16/bf16 value in bits 15:0 (the same for both lanes; F16W = BF16W), which is
  // never flushed; c is always this lane's binary32 word.
  localparam int unsigned NumOps = 3;

  logic     kind_f64, kind_half;
  res_fmt_e half_fmt;

  assign kind_f64  = kind_i == KIND_F64;
  assign kind_half = kind_is_half(kind_i);
  assign half_fmt  = (ab_fmt_i == AB_BF16) ? FMT_BF16 : FMT_F16;

  operand_t op [NumOps];

  for (genvar k = 0; k < NumOps; k++) begin : g_op
    logic [DataW-1:0]      x;
    // The 16 bits an f16/bf16 operand is read from: this lane's for the half kinds, bits 15:0
    // for mixed precision.
    logic [F16W-1:0]       h;
    res_fmt_e              fmt;
    logic                  flush;
    // The format's fields: the exponent field zero-extended, the fraction MSB-aligned to bit
    // 51, the all-ones exponent and the bias.
    logic                  sign;
    logic [F64ExpBits-1:0] e, e_ones;
    logic [F64ManBits-1:0] frac;
    exp_t                  bias;
    logic                  e_zero, frac_zero;

    assign x = (k == 0) ? a_i : (k == 1) ? b_i : c_i;
    assign h = kind_half ? x[F16W*Lane+:F16W] : x[F16W-1:0];

    always_comb begin
      fmt   = FMT_F32;
      flush = flush_i;
      if (kind_f64) begin
        fmt   = FMT_F64;
        flush = 1'b0;
      end else if (kind_half) begin
        fmt = half_fmt;
      end else if (k < 2 && ab_fmt_i != AB_NATIVE) begin
        fmt   = half_fmt;
        flush = 1'b0;
      end
    end

    always_comb begin
      sign   = x[F32W*Lane+F32W-1];
      e      = F64ExpBits'(x[F32W*Lane+F32ManBits+:F32ExpBits]);
      e_ones = F64ExpBits'({F32ExpBits{1'b1}});
      frac   = {x[F32W*Lane+:F32ManBits], (F64ManBits - F32ManBits)'(0)};
      bias   = exp_t'(F32Bias);
      unique case (fmt)
        FMT_F64: begin
          sign   = x[F64W-1];
          e      = x[F64ManBits+:F64ExpBits];
          e_ones = '1;
          frac   = x[F64ManBits-1:0];
          bias   = exp_t'((1 << (F64ExpBits - 1)) - 1);
        end
        FMT_F16: begin
          sign   = h[F16W-1];
          e      = F64ExpBits'(h[F16ManBits+:F16ExpBits]);
          e_ones = F64ExpBits'({F16ExpBits{1'b1}});
          frac   = {h[F16ManBits-1:0], (F64ManBits - F16ManBits)'(0)};
          bias   = exp_t'((1 << (F16ExpBits - 1)) - 1);
        end
        FMT_BF16: begin
          sign   = h[BF16W-1];
          e      = F64ExpBits'(h[BF16ManBits+:BF16ExpBits]);
          e_ones = F64ExpBits'({BF16ExpBits{1'b1}});
          frac   = {h[BF16ManBits-1:0], (F64ManBits - BF16ManBits)'(0)};
          bias   = exp_t'((1 << (BF16ExpBits - 1)) - 1);
        end
        default: ;
      endcase
    end

    // The internal form: the subnormal exponent 1 - bias when the field is zero; flushing
    // turns a subnormal (or zero) into a zero.
    assign e_zero    = e == '0;
    assign frac_zero = frac == '0;

    // The operand is assembled whole, in one assignment: field by field, the Verilated model
    // read and rewrote the struct's words once per field.
    logic flushed;

    assign flushed = flush && e_zero;

    always_comb begin
      op[k] = '0;
      if (en_i) begin
        op[k] = '{sign: sign,
                  exp:  (e_zero ? exp_t'(1) : exp_t'(e)) - bias,
                  sig:  flushed ? '0 : {~e_zero, frac},
                  zero: (e_zero && frac_zero) || flushed,
                  inf:  (e == e_ones) && frac_zero,
                  nan:  (e == e_ones) && !frac_zero};
      end
    end
  end

  operand_t ua, ub, uc;

  assign ua = op[0];
  assign ub = op[1];
  assign uc = op[2];

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
