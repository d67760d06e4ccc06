// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of the significand adder and the LZA (formal/README in docs/formal.md): the real
// ptxfma_adder feeds the real ptxfma_lza, every input free. Each `ok_*` output is one claim
// (proved: always 1), each `twin_*` one that must fail (the SAT solver finds a counterexample).

module formal_lza import ptxfma_pkg::*; (
  input  logic [MulW-1:0]   p_i,
  input  logic [AlignW-1:0] c_aligned_i,
  input  logic              eff_sub_i,
  input  logic              sticky_i,
  output logic              ok_adder,
  output logic              twin_adder_no_sticky,
  output logic              ok_adder_zero,
  output logic              twin_adder_zero_sticky,
  output logic              ok_within_one,
  output logic              twin_exact_over,
  output logic              twin_exact_under,
  output logic              ok_zero,
  output logic              twin_zero_vacuous,
  output logic              ok_no_sign,
  output logic              ok_no_low_ones,
  output logic              twin_low_only
);

  logic [AddW-1:0]      opa, opb;
  logic                 neg, zero;
  logic [MagW-1:0]      mag;
  logic [ShiftCntW-1:0] cnt;

  ptxfma_adder u_adder (
    .en_i       (1'b1),
    .p_i        (p_i),
    .c_aligned_i(c_aligned_i),
    .eff_sub_i  (eff_sub_i),
    .sticky_i   (sticky_i),
    .opa_o      (opa),
    .opb_o      (opb),
    .neg_o      (neg),
    .mag_o      (mag),
    .zero_o     (zero)
  );

  ptxfma_lza u_lza (
    .en_i (1'b1),
    .opa_i(opa),
    .opb_i(opb),
    .cnt_o(cnt)
  );

  // The specification: the exact sum of P * 8 and the addend, whose bits below the window
  // (sticky) make it a little larger than its window part: the magnitude is the integer part.
  logic [AddW:0] a, c, spec_mag;
  logic          spec_neg;
  always_comb begin
    a = (AddW + 1)'(p_i) << ProdLsb;
    c = (AddW + 1)'(c_aligned_i);
    spec_neg = 1'b0;
    if (!eff_sub_i) begin
      spec_mag = a + c;
    end else if (a > c) begin
      // a - (c + e), 0 < e < 1 under sticky: its integer part is a - c - 1.
      spec_mag = a - c - (AddW + 1)'(sticky_i);
    end else begin
      // (c + e) - a: integer part c - a; negative unless it is exactly zero.
      spec_mag = c - a;
      spec_neg = (c != a) || sticky_i;
    end
  end
  assign ok_adder = (mag == spec_mag[MagW-1:0]) && (spec_mag[AddW:MagW] == '0)
                    && (neg == spec_neg);
  // Twin: the sticky bits ignored (the +1 always added) must fail.
  assign twin_adder_no_sticky = !eff_sub_i || (a <= c) || (mag == MagW'(a - c));
  // The exact sum is zero: a zero magnitude with no addend bit in sticky.
  assign ok_adder_zero = zero == ((spec_mag == '0) && !sticky_i);
  // Twin: a zero magnitude alone (the sticky ignored) must fail.
  assign twin_adder_zero_sticky = zero == (spec_mag == '0);

  // Leading zeros of the 165-bit magnitude, counted by a plain loop (MagW for zero).
  logic [ShiftCntW-1:0] lz;
  logic                 seen;
  always_comb begin
    lz   = '0;
    seen = 1'b0;
    for (int i = MagW - 1; i >= 0; i--) begin
      seen = seen | mag[i];
      if (!seen) lz = lz + 1'b1;
    end
  end

  assign ok_within_one   = (mag == '0) || (cnt == lz) || (cnt == lz + 1'b1) || (cnt + 1'b1 == lz);
  // Twins: the exact-count claim fails in either direction.
  assign twin_exact_over  = (mag == '0) || (cnt <= lz);
  assign twin_exact_under = (mag == '0) || (cnt >= lz);
  // A zero magnitude (sticky or not) is predicted as MagW, the exact count's value.
  assign ok_zero           = (mag != '0) || (cnt == ShiftCntW'(MagW));
  // Twin: no zero magnitude reaches the LZA (fails: the claim above is not vacuous).
  assign twin_zero_vacuous = (mag != '0);

  // What the adder's operands can make of the indicator (the judged mutants of the count rest on
  // these, tools/mutate-equivalent.json): its bit 165 is never set, and its low slice is never
  // all ones with the rest zero. The indicator is restated here from its formula.
  logic [AddW-1:0] t, g, z, f;
  assign t = opa ^ opb;
  assign g = opa & opb;
  assign z = ~(opa | opb);
  assign f = ((t >> 1) & ((g & ~((z << 1) | AddW'(1))) | (z & ~(g << 1))))
           | (~(t >> 1) & ((z & ~((z << 1) | AddW'(1))) | (g & ~(g << 1))));
  assign ok_no_sign     = !f[AddW-1];
  assign ok_no_low_ones = !((f[AddW-1:WordW] == '0) && (f[WordW-1:0] == '1));
  // Twin: the low slice alone is set for some operands (fails: the claim above is not vacuous).
  assign twin_low_only  = !((f[AddW-1:WordW] == '0) && (f[WordW-1:0] != '0));

endmodule
