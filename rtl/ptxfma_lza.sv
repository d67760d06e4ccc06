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

  // Leading-zero count of f: pick the first non-zero WordW-bit group (the top one holds bits
  // 165:128, left-aligned, so the groups below start TopW and TopW + WordW places down), then a
  // WordIdxW-level binary search inside it.
  logic [WordW-1:0]     grp2, grp1, grp0, grp;
  logic [ShiftCntW-1:0] base, lz;
  logic [WordIdxW-1:0]  lz64;

  assign grp2 = {f2, (WordW - TopW)'(0)};
  assign grp1 = f1;
  assign grp0 = f0;
  assign grp  = (grp2 != '0) ? grp2 : ((grp1 != '0) ? grp1 : grp0);
  assign base = (grp2 != '0) ? '0
              : ((grp1 != '0) ? ShiftCntW'(TopW) : ShiftCntW'(TopW + WordW));

  // The loop has constant bounds, so Verilator unrolls it into WordIdxW word-level steps (a
  // signal in its condition would keep it a loop run every cycle).
  always_comb begin
    logic [WordW-1:0] x;
    x    = grp;
    lz64 = '0;
    if (en_i) begin
      for (int k = WordIdxW - 1; k >= 0; k--) begin
        // Is the top 2^k-bit field zero? Then count it and shift it out.
        if ((x >> (WordW - (1 << k))) == '0) begin
          lz64[k] = 1'b1;
          x       = x << (1 << k);
        end
      end
    end
  end

  // Bit AddW-1 (165) of the sum is its sign, so a lead there means no leading zeros in bits
  // MagW-1:0.
  assign lz    = base + ShiftCntW'(lz64);
  assign cnt_o = ({f2, f1, f0} == '0) ? ShiftCntW'(MagW)
               : ((lz == '0) ? '0 : lz - ShiftCntW'(1));

endmodule
