// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Leading-zero anticipator (model/src/parts/lza.rs): predicts the normalisation shift of the
// 165-bit magnitude from the adder's two operands, in parallel with the carry-propagate add.
//
// Schmookler and Nowka's indicator, with t = a^b, g = a&b, z = ~a&~b:
//   f_i = t_{i+1} (g_i ~z_{i-1} | z_i ~g_{i-1}) | ~t_{i+1} (z_i ~z_{i-1} | g_i ~g_{i-1}),
// taking t_166 = 0, g_{-1} = 0, z_{-1} = 1. Its leading one is within one place of the sum's;
// the normaliser corrects by one bit either way.

module ptxfma_lza import ptxfma_pkg::*; (
  // The lane carries an operation (else the count is not read: the Verilated model skips the
  // indicator and the count).
  input  logic                 en_i,
  input  logic [AddW-1:0]      opa_i,
  input  logic [AddW-1:0]      opb_i,
  output logic [ShiftCntW-1:0] cnt_o  // predicted leading zeros of bits MagW-1:0 (164:0)
);

  // The indicator is formed on three WordW-bit slices, bits 63:0, 127:64 and 165:128, each one
  // machine word in the Verilated model; the neighbour bits cross between slices by wiring. A
  // shift of the whole 166-bit word would be a call to a generic runtime function there.
  localparam int unsigned TopW = AddW - 2 * WordW;

  logic [WordW-1:0] t0, g0, z0, t1, g1, z1, f0, f1;
  logic [TopW-1:0]  t2, g2, z2, f2;
  logic [WordW-1:0] t_up0, g_dn0, z_dn0, t_up1, g_dn1, z_dn1;
  logic [TopW-1:0]  t_up2, g_dn2, z_dn2;

  // Schmookler-Nowka indicator of one slice, given its neighbour-shifted t, g and z.
  function automatic logic [WordW-1:0] indicator(logic [WordW-1:0] t_up, logic [WordW-1:0] g,
                                                 logic [WordW-1:0] z, logic [WordW-1:0] g_dn,
                                                 logic [WordW-1:0] z_dn);
    return (t_up & ((g & ~z_dn) | (z & ~g_dn))) | (~t_up & ((z & ~z_dn) | (g & ~g_dn)));
  endfunction

  always_comb begin
    {t0, g0, z0, t1, g1, z1, f0, f1} = '0;
    {t2, g2, z2, f2} = '0;
    {t_up0, g_dn0, z_dn0, t_up1, g_dn1, z_dn1} = '0;
    {t_up2, g_dn2, z_dn2} = '0;
    if (en_i) begin
      t0 = opa_i[WordW-1:0] ^ opb_i[WordW-1:0];
      g0 = opa_i[WordW-1:0] & opb_i[WordW-1:0];
      z0 = ~(opa_i[WordW-1:0] | opb_i[WordW-1:0]);
      t1 = opa_i[2*WordW-1:WordW] ^ opb_i[2*WordW-1:WordW];
      g1 = opa_i[2*WordW-1:WordW] & opb_i[2*WordW-1:WordW];
      z1 = ~(opa_i[2*WordW-1:WordW] | opb_i[2*WordW-1:WordW]);
      t2 = opa_i[AddW-1:2*WordW] ^ opb_i[AddW-1:2*WordW];
      g2 = opa_i[AddW-1:2*WordW] & opb_i[AddW-1:2*WordW];
      z2 = ~(opa_i[AddW-1:2*WordW] | opb_i[AddW-1:2*WordW]);
      // t one place down (t_166 = 0); g and z one place up (g_-1 = 0, z_-1 = 1).
      t_up0 = {t1[0], t0[WordW-1:1]};
      t_up1 = {t2[0], t1[WordW-1:1]};
      t_up2 = {1'b0, t2[TopW-1:1]};
      g_dn0 = {g0[WordW-2:0], 1'b0};
      g_dn1 = {g1[WordW-2:0], g0[WordW-1]};
      g_dn2 = {g2[TopW-2:0], g1[WordW-1]};
      z_dn0 = {z0[WordW-2:0], 1'b1};
      z_dn1 = {z1[WordW-2:0], z0[WordW-1]};
      z_dn2 = {z2[TopW-2:0], z1[WordW-1]};
      f0 = indicator(t_up0, g0, z0, g_dn0, z_dn0);
      f1 = indicator(t_up1, g1, z1, g_dn1, z_dn1);
      f2 = TopW'(indicator(WordW'(t_up2), WordW'(g2), WordW'(z2), WordW'(g_dn2), WordW'(z_dn2)));
    end
  end

  // t_0 only pairs with a bit below the window.
  logic unused_t0;
  assign unused_t0 = t0[0];

  // Leading zeros of f below its sign bit: f[165] set counts 0, f[164:0] zero counts MagW.
  // Each WordW-bit slice is counted on its own (lzc_word, log-depth), all three at once, and the
  // first non-zero slice picks its count plus a constant: no carry chain after the counts.
  //
  //   f      165 | 164 ........ 128 | 127 ........ 64 | 63 ......... 0
  //   slice  sign| top: f2[36:0],   | f1              | f0
  //              | a 1 below it     |                 |
  //   count  0   | lzc(top)         | TopW-1 + lzc(f1)| TopW-1+WordW + lzc(f0)
  //
  // The 1 placed under the top slice's 37 bits makes its count TopW - 1 when they are zero, so
  // no count sees an all-zero word where it is read.

  // Leading zeros of a non-zero word, as a binary search whose every step reads a zero flag
  // of an aligned block computed beside it: blk[k] bit j*2^k is set when block j of 2^k bits
  // holds a one. The flags are word-wide ORs (one machine word each in the Verilated model);
  // in gates each count bit is a mux of precomputed flags, one level after the bit above it.
  function automatic logic [WordIdxW-1:0] lzc_word(logic [WordW-1:0] x);
    logic [WordW-1:0]    blk [WordIdxW+1];
    logic [WordIdxW-1:0] cnt;
    logic [WordIdxW:0]   base;
    blk[0] = x;
    for (int k = 1; k <= WordIdxW; k++) begin
      blk[k] = blk[k-1] | (blk[k-1] >> (1 << (k - 1)));
    end
    cnt  = '0;
    base = '0;  // the lowest bit of the block still searched
    for (int k = WordIdxW - 1; k >= 0; k--) begin
      // The upper half (2^k bits) of the block [base + 2^(k+1) - 1 : base].
      if (!blk[k][base + (1 << k)]) begin
        cnt[k] = 1'b1;
      end else begin
        base = base + (WordIdxW + 1)'(1 << k);
      end
    end
    return cnt;
  endfunction

  logic [WordW-1:0]     top;
  logic [ShiftCntW-1:0] cnt_top, cnt_mid, cnt_low;

  always_comb begin
    top     = '0;
    cnt_top = '0;
    cnt_mid = '0;
    cnt_low = '0;
    cnt_o   = ShiftCntW'(MagW);
    if (en_i) begin
      top     = {f2[TopW-2:0], 1'b1, (WordW - TopW)'(0)};
      cnt_top = ShiftCntW'(lzc_word(top));
      cnt_mid = ShiftCntW'(TopW - 1) + ShiftCntW'(lzc_word(f1));
      cnt_low = ShiftCntW'(TopW - 1 + WordW) + ShiftCntW'(lzc_word(f0));
      if (f2[TopW-1]) begin
        cnt_o = '0;
      end else if (f2[TopW-2:0] != '0) begin
        cnt_o = cnt_top;
      end else if (f1 != '0) begin
        cnt_o = cnt_mid;
      end else if (f0 != '0) begin
        cnt_o = cnt_low;
      end
    end
  end

endmodule
