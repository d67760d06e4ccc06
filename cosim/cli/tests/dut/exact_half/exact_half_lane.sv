// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// One half-precision fused multiply-add to nearest even, written for the tests independently
// of the kit's RTL (cosim/cli/tests/dut_prove.rs): the exact value of a*b + c as a sign and an
// integer magnitude in units of the square of the format's smallest subnormal (every product
// and addend is a whole number of those), then one rounding. EW/MW: exponent and fraction bits
// (binary16 5/10, bfloat16 8/7). Its NaN is the format's default quiet NaN.
//
// Planted faults, each behind its define:
// - FAULT_EXACT_HALF_STICKY_SUBNORMAL (cosim/cli/tests/dut_half.rs) drops the sticky bit of
//   subnormal results.
// - FAULT_HALF_SUBNORMAL_CARRY (cosim/cli/tests/dut_exhaust.rs): a sum of two subnormals (a and
//   c, both nonzero) that is exactly the smallest normal loses the carry into the exponent and
//   comes out as a zero of its sign. Of the 2^32 pairs of add.rn.f16 only 2,046 reach it
//   (a + c = 2^-14 exactly), as many of sub.rn.f16, 254 of each bf16 one; mul never does (its c
//   is a zero). `run --dut`'s stimulus finds it all the same, within 7,000 to 52,000
//   operations (docs/measurements.md): it sums the largest subnormal with the smallest.
// - FAULT_HALF_STICKY_PAIR (cosim/cli/tests/dut_exhaust.rs) drops the sticky bit for one pair
//   of binary16 significands, a's fraction 0x2D5 and b's 0x1A6, both normal (a wrong entry in a
//   table indexed by the two, as the Pentium's divide had five): their product ties where it
//   should round up. About 3,600 pairs of mul.rn.f16 reach it, one in a million; random
//   operations seldom do.
// - FAULT_HALF_STICKY_FAR (cosim/cli/tests/dut_prove.rs) loses the addend's share of the
//   sticky bit in one exponent range of fma: binary16, like signs, exponent fields 27 (a), 13
//   (b) and 1 (c), where c lies wholly below the product's last bit. The sticky bit is then
//   the product's own, which differs only where the product's bits below its rounding bit are
//   all zero: a product that ties rounds to even where c should round it away. `run --dut`
//   meets it with one seed of three in 1,000,000 operations (docs/formal.md); `dut prove
//   --by-cases` finds it in its case `d >= 14`.

module exact_half_lane #(
  parameter int EW = 5,
  parameter int MW = 10
) (
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  input  logic [15:0] c_i,
  output logic [15:0] d_o
);
  localparam int Bias = (1 << (EW - 1)) - 1;
  localparam int EMax = (1 << EW) - 1;
  // Units of 2^(2 * Emin), Emin = 1 - Bias - MW: the largest product is below
  // 2^(2 * (MW + 1) + 2 * (EMax - 2)), the largest addend below 2^(MW + 1 + EMax - 1 + Bias + MW - 2).
  localparam int PW = 2 * (MW + 1) + 2 * (EMax - 2);
  localparam int CW = (MW + 1) + (EMax - 1) + Bias + MW - 2;
  localparam int W = (PW > CW ? PW : CW) + 2;
  // The exponent below which results are subnormal, in the magnitude's bit positions.
  localparam int NormLead = 1 - Bias + 2 * (Bias + MW - 1);
  localparam logic [15:0] QNaN = 16'((EMax << MW) | (1 << (MW - 1)));
  localparam logic [15:0] Inf = 16'(EMax << MW);
  if (W > 1024) begin : g_too_wide
    $error("the leading-one search covers 1024 bits");
  end

  logic sa, sb, sc;
  logic [EW-1:0] ea, eb, ec;
  logic [MW-1:0] fa, fb, fc;
  assign {sa, ea, fa} = a_i[EW+MW:0];
  assign {sb, eb, fb} = b_i[EW+MW:0];
  assign {sc, ec, fc} = c_i[EW+MW:0];

  function automatic logic is_nan(logic [EW-1:0] e, logic [MW-1:0] f);
    return (e == '1) && (f != '0);
  endfunction
  function automatic logic is_inf(logic [EW-1:0] e, logic [MW-1:0] f);
    return (e == '1) && (f == '0);
  endfunction
  function automatic logic is_zero(logic [EW-1:0] e, logic [MW-1:0] f);
    return (e == '0) && (f == '0);
  endfunction

  logic [2*MW+1:0] sig_prod;
  logic [W-1:0] prod, addend, mag, top;
  logic         sp, sum_sign;
  int           lead, q;
  logic [W-1:0] kept;
  logic         rb, st;
  logic [W-1:0] enc;

  // The significands' product, a signal of its own: `dut prove --by-cases` cuts it there
  // (the manifests' [prove.product]).
  assign sig_prod = (2*MW+2)'({(ea != '0), fa}) * (2*MW+2)'({(eb != '0), fb});

  always_comb begin
    // Exact product and addend in units of 2^(2 * Emin).
    prod   = W'(sig_prod) << ((ea == '0 ? 1 : int'(ea)) + (eb == '0 ? 1 : int'(eb)) - 2);
    addend = W'({(ec != '0), fc}) << ((ec == '0 ? 1 : int'(ec)) + Bias + MW - 2);
    sp     = sa ^ sb;
    if (sp == sc) begin
      mag      = prod + addend;
      sum_sign = sp;
    end else if (prod >= addend) begin
      mag      = prod - addend;
      sum_sign = sp;
    end else begin
      mag      = addend - prod;
      sum_sign = sc;
    end
    // An exact zero: like signs keep theirs, unlike give +0 (to nearest).
    if (mag == '0) sum_sign = (sp == sc) ? sp : 1'b0;

    // The leading one by halving (a chain of W priority muxes is too deep for the tools).
    lead = 0;
    top  = mag;
    for (int s = 512; s >= 1; s = s / 2) begin
      if ((top >> s) != '0) begin
        lead = lead + s;
        top  = top >> s;
      end
    end
    // The quantum: MW bits below the lead, never below the smallest subnormal.
    q    = (lead > NormLead ? lead : NormLead) - MW;
    kept = mag >> q;
    rb   = mag[q-1];
    st   = (mag & ((W'(1) << (q - 1)) - 1)) != '0;
`ifdef FAULT_EXACT_HALF_STICKY_SUBNORMAL
    // The fault the tests plant (cosim/cli/tests/dut_half.rs): the sticky bit dropped where
    // the result is subnormal, so a remainder just above half a quantum there rounds to even.
    if (lead < NormLead) st = 1'b0;
`endif
`ifdef FAULT_HALF_STICKY_FAR
    if (EW == 5 && ea == 5'd27 && eb == 5'd13 && ec == 5'd1 && sp == sc) begin
      st = (prod & ((W'(1) << (q - 1)) - 1)) != '0;
    end
`endif
`ifdef FAULT_HALF_STICKY_PAIR
    if (EW == 5 && ea != '0 && eb != '0 && a_i[9:0] == 10'h2d5 && b_i[9:0] == 10'h1a6) st = 1'b0;
`endif
    kept = kept + W'(rb && (st || kept[0]));
    // Biased exponent field less one, plus the kept bits with their leading one: a subnormal
    // has exponent field 0, a carry out of the fraction steps the exponent.
    enc  = (W'(q - (NormLead - MW)) << MW) + kept;

    if (is_nan(ea, fa) || is_nan(eb, fb) || is_nan(ec, fc)
        || ((is_inf(ea, fa) || is_inf(eb, fb)) && (is_zero(ea, fa) || is_zero(eb, fb)))
        || ((is_inf(ea, fa) || is_inf(eb, fb)) && is_inf(ec, fc) && (sp != sc))) begin
      d_o = QNaN;
    end else if (is_inf(ea, fa) || is_inf(eb, fb)) begin
      d_o = {sp, Inf[14:0]};
    end else if (is_inf(ec, fc)) begin
      d_o = {sc, Inf[14:0]};
`ifdef FAULT_HALF_SUBNORMAL_CARRY
    end else if (ea == '0 && ec == '0 && fa != '0 && fc != '0
                 && mag == (W'(1) << NormLead)) begin
      d_o = {sum_sign, 15'd0};
`endif
    end else if (enc >= W'(Inf)) begin
      d_o = {sum_sign, Inf[14:0]};
    end else begin
      d_o = {sum_sign, enc[14:0]};
    end
  end
endmodule
