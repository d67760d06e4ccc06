// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Significand adder of stage 2 (model/src/parts/adder.rs, `operands` and `add`): adds or subtracts
// the aligned addend to the product in the 166-bit window and returns sign and magnitude.
//
// The product sits at window bits 108:3. For a subtraction the addend is inverted and its +1
// is withheld while addend bits sit in sticky (the true addend is then a little larger than its
// window part); a negative sum is complemented, its +1 again withheld under sticky, so the
// magnitude is the integer part of the exact result either way.

module ptxfma_adder import ptxfma_pkg::*; (
  // The lane carries an operation (else the outputs are zero and not read: the Verilated model
  // skips the wide add).
  input  logic              en_i,
  input  logic [MulW-1:0]   p_i,
  input  logic [AlignW-1:0] c_aligned_i,
  input  logic              eff_sub_i,
  input  logic              sticky_i,
  // The adder's operands, which the LZA sees too.
  output logic [AddW-1:0]   opa_o,
  output logic [AddW-1:0]   opb_o,
  output logic              neg_o,
  output logic [MagW-1:0]   mag_o
);

  logic [AddW-1:0] c_ext, s;

  always_comb begin
    opa_o = '0;
    c_ext = '0;
    opb_o = '0;
    s     = '0;
    neg_o = 1'b0;
    mag_o = '0;
    if (en_i) begin
      opa_o = {(AddW - MulW - ProdLsb)'(0), p_i, ProdLsb'(0)};
      c_ext = {(AddW - AlignW)'(0), c_aligned_i};
      opb_o = eff_sub_i ? ~c_ext : c_ext;

      s     = opa_o + opb_o + AddW'(eff_sub_i && !sticky_i);
      neg_o = eff_sub_i && s[AddW-1];
      // The complement is taken modulo 2^165: bit 165 of a magnitude is always zero.
      mag_o = neg_o ? (~s[MagW-1:0] + MagW'(!sticky_i)) : s[MagW-1:0];
    end
  end

endmodule
