// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// exact_f64_sum: the exact value of a*b + c for binary64 operands as a sign and a MagW-bit
// magnitude in units of 2^-2148 (exact_f64_pkg), and the special cases: a NaN operand or an
// invalid operation (inf * 0, inf - inf) is flagged as NaN (the result is the canonical NaN,
// whatever the operands' payloads); otherwise an infinite product or addend gives infinity.

module exact_f64_sum import exact_f64_pkg::*; (
  input  logic [1:0]      rnd_i,
  input  logic [63:0]     a_i,
  input  logic [63:0]     b_i,
  input  logic [63:0]     c_i,
  output logic            sign_o,
  output logic [MagW-1:0] mag_o,
  output logic            nan_o,
  output logic            inf_o,
  output logic            inf_sign_o
);

  logic [SigW-1:0] sig_a, sig_b, sig_c;
  logic [ExpW-1:0] exp_a, exp_b, exp_c;
  logic            zero_a, zero_b, zero_c;
  logic            inf_a, inf_b, inf_c;
  logic            nan_a, nan_b, nan_c;

  exact_f64_unpack u_unpack_a (
    .x_i      (a_i[62:0]),
    .sig_o    (sig_a),
    .lsb_exp_o(exp_a),
    .zero_o   (zero_a),
    .inf_o    (inf_a),
    .nan_o    (nan_a)
  );

  exact_f64_unpack u_unpack_b (
    .x_i      (b_i[62:0]),
    .sig_o    (sig_b),
    .lsb_exp_o(exp_b),
    .zero_o   (zero_b),
    .inf_o    (inf_b),
    .nan_o    (nan_b)
  );

  exact_f64_unpack u_unpack_c (
    .x_i      (c_i[62:0]),
    .sig_o    (sig_c),
    .lsb_exp_o(exp_c),
    .zero_o   (zero_c),
    .inf_o    (inf_c),
    .nan_o    (nan_c)
  );

  logic                sign_p, sign_c;
  logic [2*SigW-1:0]   sig_p;
  logic [PosW-1:0]     shift_p, shift_c;
  logic [MagW-1:0]     prod, addend;

  assign sign_p  = a_i[63] ^ b_i[63];
  assign sign_c  = c_i[63];
  assign sig_p   = (2*SigW)'(sig_a) * (2*SigW)'(sig_b);
  assign shift_p = PosW'(exp_a) + PosW'(exp_b);
  assign shift_c = PosW'(exp_c) + PosW'(MinLsb);

  // The significands placed at their offsets (a part-select write: cheaper in the Verilated
  // model than a shift of the whole magnitude). Every offset fits: shift_p + 106 <= 4198 and
  // shift_c + 53 <= 3173, infinities and NaNs included.
  always_comb begin
    prod                    = '0;
    prod[shift_p +: 2*SigW] = sig_p;
  end

  always_comb begin
    addend                  = '0;
    addend[shift_c +: SigW] = sig_c;
  end

  always_comb begin
    sign_o = sign_p;
    if (sign_p == sign_c) begin
      mag_o = prod + addend;
    end else if (prod >= addend) begin
      mag_o = prod - addend;
    end else begin
      mag_o  = addend - prod;
      sign_o = sign_c;
    end
    // An exact zero sum of unlike signs is +0, or -0 rounding down (docs/semantics.md).
    if (mag_o == '0 && sign_p != sign_c) begin
      sign_o = rnd_i == RndRm;
    end
  end

  assign nan_o      = nan_a || nan_b || nan_c || (inf_a && zero_b) || (inf_b && zero_a) ||
                      ((inf_a || inf_b) && inf_c && sign_p != sign_c);
  assign inf_o      = inf_a || inf_b || inf_c;
  assign inf_sign_o = (inf_a || inf_b) ? sign_p : sign_c;

  // A zero addend needs no flag: its magnitude is zero.
  logic unused;
  assign unused = zero_c;

endmodule
