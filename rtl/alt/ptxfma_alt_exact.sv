// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_alt_exact: the exact value of a*b + c for binary32 operands, as a sign and a
// fixed-point magnitude in units of 2^-298 (the product of two minimum subnormals), so that
// every product and addend is an integer and the sum needs no sticky bit: the most significant
// possible bit is 2^255 * 2^298 (a product of two maximum finite values), below bit 555.
// Behavioural on purpose: no Booth array, no alignment window, no leading-zero anticipator.
// Special operands (NaN, infinity, invalid) are flagged for ptxfma_alt_round.

module ptxfma_alt_exact #(
  parameter int unsigned W = 560
) (
  input  logic [1:0]   rnd_i,
  input  logic         ftz_i,
  input  logic [31:0]  a_i,
  input  logic [31:0]  b_i,
  input  logic [31:0]  c_i,
  output logic         sign_o,
  output logic [W-1:0] mag_o,
  output logic         nan_o,
  output logic         inf_o,
  output logic         inf_sign_o
);

  localparam logic [1:0] RndRm = 2'd2;

  // Unpacked operand: significand with its hidden bit, exponent of its least significant bit
  // plus 149 (so the minimum subnormal's exponent is 0), and classes.
  logic [23:0] sig_a, sig_b, sig_c;
  logic [8:0]  exp_a, exp_b, exp_c;
  logic        nan_a, nan_b, nan_c, inf_a, inf_b, inf_c;

  always_comb begin
    // Defaults, then per operand.
    sig_a = '0; sig_b = '0; sig_c = '0;
    exp_a = '0; exp_b = '0; exp_c = '0;
    nan_a = 1'b0; nan_b = 1'b0; nan_c = 1'b0;
    inf_a = 1'b0; inf_b = 1'b0; inf_c = 1'b0;
    unpack(a_i[30:0], ftz_i, sig_a, exp_a, nan_a, inf_a);
    unpack(b_i[30:0], ftz_i, sig_b, exp_b, nan_b, inf_b);
    unpack(c_i[30:0], ftz_i, sig_c, exp_c, nan_c, inf_c);
  end

  // A binary32 magnitude as significand and exponent; a subnormal flushes to zero under ftz.
  function automatic void unpack(input logic [30:0] x, input logic ftz, output logic [23:0] sig,
                                 output logic [8:0] lsb_exp, output logic nan,
                                 output logic inf);
    logic [7:0] e;
    e       = x[30:23];
    nan     = (e == 8'hff) && (x[22:0] != '0);
    inf     = (e == 8'hff) && (x[22:0] == '0);
    sig     = (e == 8'h00) ? (ftz ? 24'd0 : {1'b0, x[22:0]}) : {1'b1, x[22:0]};
    lsb_exp = (e == 8'h00) ? 9'd0 : {1'b0, e} - 9'd1;
  endfunction

  logic         sign_p, sign_c, zero_a, zero_b;
  logic [47:0]  sig_p;
  logic [W-1:0] prod, addend;

  assign sign_p = a_i[31] ^ b_i[31];
  assign sign_c = c_i[31];
  assign zero_a = (sig_a == '0) && !inf_a && !nan_a;
  assign zero_b = (sig_b == '0) && !inf_b && !nan_b;
  assign sig_p  = sig_a * sig_b;
  // Both operands' units are 2^-149, so the product's is 2^-298 times 2^(exp_a + exp_b).
  assign prod   = W'(sig_p) << (exp_a + exp_b);
  assign addend = W'(sig_c) << (exp_c + 9'd149);

  always_comb begin
    sign_o = sign_p;
    mag_o  = '0;
    if (sign_p == sign_c) begin
      mag_o = prod + addend;
    end else if (prod >= addend) begin
      mag_o = prod - addend;
    end else begin
      mag_o  = addend - prod;
      sign_o = sign_c;
    end
    // An exact zero sum of operands of opposite signs is +0, or -0 rounding down.
    if (mag_o == '0 && sign_p != sign_c) begin
      sign_o = (rnd_i == RndRm);
    end
  end

  // NaN: a NaN operand, inf * 0, or inf - inf. Otherwise an infinite product or addend wins.
  assign nan_o      = nan_a || nan_b || nan_c || (inf_a && zero_b) || (inf_b && zero_a) ||
                      ((inf_a || inf_b) && inf_c && sign_p != sign_c);
  assign inf_o      = inf_a || inf_b || inf_c;
  assign inf_sign_o = (inf_a || inf_b) ? sign_p : sign_c;

endmodule
