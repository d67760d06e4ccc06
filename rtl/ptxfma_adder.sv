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
//
// One carry chain (a compound adder): with s0 = a + b and s1 = a + b + 1, taken from s0 by the
// low run of propagating bits rather than a second chain, the sum is s1 or s0 by the carry-in,
// and a negative one's complement-plus-carry is ~s0 in either case:
//   ~(a + b + 1) + 1 = ~(a + b)   and   ~(a + b) + 0 = ~s0.
// Exact zero comes from the operands (a = c), beside the add.

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
  output logic [MagW-1:0]   mag_o,
  // The exact sum is zero: the magnitude is zero and no addend bit sits in sticky.
  output logic              zero_o
);

  logic [AddW-1:0] c_ext, prop, s0, s1, s;
  logic            cin;

  always_comb begin
    opa_o  = '0;
    c_ext  = '0;
    opb_o  = '0;
    prop   = '0;
    s0     = '0;
    s1     = '0;
    s      = '0;
    cin    = 1'b0;
    neg_o  = 1'b0;
    mag_o  = '0;
    zero_o = 1'b0;
    if (en_i) begin
      opa_o = {(AddW - MulW - ProdLsb)'(0), p_i, ProdLsb'(0)};
      c_ext = {(AddW - AlignW)'(0), c_aligned_i};
      opb_o = eff_sub_i ? ~c_ext : c_ext;

      prop  = opa_o ^ opb_o;
      s0    = opa_o + opb_o;
      // A carry-in of one flips exactly the bits up to and including the first non-propagating
      // one: prop ^ (prop + 1) is that mask (an AND prefix, beside the adder's carry tree).
      s1    = s0 ^ (prop ^ (prop + AddW'(1)));
      cin   = eff_sub_i && !sticky_i;
      s     = cin ? s1 : s0;
      neg_o = eff_sub_i && s[AddW-1];
      // The complement is taken modulo 2^165: bit 165 of a magnitude is always zero.
      mag_o = neg_o ? ~s0[MagW-1:0] : s[MagW-1:0];
      // a - c = 0 exactly when every bit of a and ~c differs; a + c = 0 when both are zero.
      zero_o = !sticky_i && (eff_sub_i ? (prop == '1) : ((opa_o | opb_o) == '0));
    end
  end

endmodule
