// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of the addend alignment (docs/formal.md): the real ptxfma_align, every input
// free but the exponents, which stay in a range wider than any operation's (|e| < 8192).

module formal_align import ptxfma_pkg::*; (
  input  logic [SigW-1:0] c_sig_i,
  input  exp_t            ep_i,
  input  exp_t            ec_i,
  input  logic            prod_zero_i,
  input  logic            c_zero_i,
  output logic            ok_window,
  output logic            twin_window_shift,
  output logic            ok_sticky,
  output logic            twin_sticky_short,
  output logic            ok_saturated,
  output logic            twin_saturated_early,
  output logic            ok_eref,
  output logic            twin_eref
);

  exp_t              eref;
  logic [AlignW-1:0] c_aligned;
  logic              sticky;

  ptxfma_align u_align (
    .en_i       (1'b1),
    .c_sig_i    (c_sig_i),
    .ep_i       (ep_i),
    .ec_i       (ec_i),
    .prod_zero_i(prod_zero_i),
    .c_zero_i   (c_zero_i),
    .eref_o     (eref),
    .c_aligned_o(c_aligned),
    .sticky_o   (sticky)
  );

  // The specification, in 32-bit arithmetic: the addend's lead sits 56 binades above the
  // reference bit (window bit 107) at window bit 163 and moves right by 56 - (ec - ep); an
  // addend more than 56 binades above the product (or with a zero product) stays at the top;
  // a zero addend is shifted out entirely.
  logic            in_range;
  int              d, shift;
  logic [AlignW+SigW-1:0] wide, wide1;  // the window and SigW bits below it
  always_comb begin
    in_range = (ep_i > -16'sd8192) && (ep_i < 16'sd8192)
            && (ec_i > -16'sd8192) && (ec_i < 16'sd8192);
    d = int'(ec_i) - int'(ep_i);
    if (c_zero_i) shift = AlignW;
    else if (prod_zero_i || d > 56) shift = 0;
    else if (56 - d > AlignW) shift = AlignW;
    else shift = 56 - d;
    wide  = {c_sig_i, (AlignW - SigW)'(0), SigW'(0)} >> shift;
    wide1 = {c_sig_i, (AlignW - SigW)'(0), SigW'(0)} >> (shift + 1);
  end

  // No bit lost inside the window: it holds exactly the shifted addend.
  assign ok_window         = !in_range || (c_aligned == wide[AlignW+SigW-1:SigW]);
  // Twin: one binade further right.
  assign twin_window_shift = !in_range || c_zero_i || (c_aligned == wide1[AlignW+SigW-1:SigW]);
  // Sticky is the OR of the bits shifted out below window bit 0.
  assign ok_sticky         = !in_range || (sticky == (wide[SigW-1:0] != '0));
  // Twin: the OR of all but the last bit shifted out.
  assign twin_sticky_short = !in_range || (sticky == (wide[SigW-1:1] != '0));
  // The saturated shift: an addend 108 or more binades below the product's reference leaves an
  // empty window and all of its bits in sticky.
  assign ok_saturated = !in_range || c_zero_i || prod_zero_i || (d > 56 - int'(AlignW))
                     || ((c_aligned == '0) && (sticky == (c_sig_i != '0)));
  // Twin: saturated one binade earlier (the last shift still leaves the lead in bit 0).
  assign twin_saturated_early = !in_range || c_zero_i || prod_zero_i
                             || (d > 56 - int'(AlignW) + 1) || (c_aligned == '0);
  // The reference exponent: the product's, or 56 below the addend's lead when the addend
  // stays at the top.
  assign ok_eref   = !in_range || (eref == ((!c_zero_i && (prod_zero_i || d > 56))
                                            ? exp_t'(int'(ec_i) - 56) : ep_i));
  // Twin: always the product's.
  assign twin_eref = !in_range || (eref == ep_i);

endmodule
