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

  assign opa_o = {(AddW - MulW - ProdLsb)'(0), p_i, ProdLsb'(0)};
  assign c_ext = {(AddW - AlignW)'(0), c_aligned_i};
  assign opb_o = eff_sub_i ? ~c_ext : c_ext;

  assign s     = opa_o + opb_o + AddW'(eff_sub_i && !sticky_i);
  assign neg_o = eff_sub_i && s[AddW-1];
  // The complement is taken modulo 2^165: bit 165 of a magnitude is always zero.
  assign mag_o = neg_o ? (~s[MagW-1:0] + MagW'(!sticky_i)) : s[MagW-1:0];

endmodule
