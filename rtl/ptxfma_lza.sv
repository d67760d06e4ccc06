// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Leading-zero anticipator (model/src/lza.rs): predicts the normalisation shift of the 165-bit
// magnitude from the adder's two operands, in parallel with the carry-propagate add.
//
// Schmookler and Nowka's indicator, with t = a^b, g = a&b, z = ~a&~b:
//   f_i = t_{i+1} (g_i ~z_{i-1} | z_i ~g_{i-1}) | ~t_{i+1} (z_i ~z_{i-1} | g_i ~g_{i-1}),
// taking t_166 = 0, g_{-1} = 0, z_{-1} = 1. Its leading one is within one place of the sum's;
// the normaliser corrects by one bit either way.

module ptxfma_lza import ptxfma_pkg::*; (
  input  logic [AddW-1:0] opa_i,
  input  logic [AddW-1:0] opb_i,
  output logic [7:0]      cnt_o  // predicted leading zeros of bits 164:0
);

  logic [AddW-1:0] t, g, z, t_up, g_dn, z_dn, f;

  // One block, so each neighbour shift is formed once and shared by both terms.
  always_comb begin
    t    = opa_i ^ opb_i;
    g    = opa_i & opb_i;
    z    = ~(opa_i | opb_i);
    t_up = t >> 1;
    g_dn = g << 1;
    z_dn = (z << 1) | AddW'(1);
    f    = (t_up & ((g & ~z_dn) | (z & ~g_dn))) | (~t_up & ((z & ~z_dn) | (g & ~g_dn)));
  end

  // Leading-zero count of f: pick the first non-zero 64-bit group (the top one holds bits
  // 165:128, left-aligned), then a six-level binary search inside it.
  logic [63:0] grp2, grp1, grp0, grp;
  logic [7:0]  base, lz;
  logic [5:0]  lz64;

  assign grp2 = {f[AddW-1:128], 26'b0};
  assign grp1 = f[127:64];
  assign grp0 = f[63:0];
  assign grp  = (grp2 != '0) ? grp2 : ((grp1 != '0) ? grp1 : grp0);
  assign base = (grp2 != '0) ? 8'd0 : ((grp1 != '0) ? 8'd38 : 8'd102);

  always_comb begin
    logic [63:0] x;
    x    = grp;
    lz64 = '0;
    for (int k = 5; k >= 0; k--) begin
      // Is the top 2^k-bit field zero? Then count it and shift it out.
      if ((x >> (64 - (1 << k))) == '0) begin
        lz64[k] = 1'b1;
        x       = x << (1 << k);
      end
    end
  end

  // Bit 165 of the sum is its sign, so a lead there means no leading zeros in bits 164:0.
  assign lz    = base + 8'(lz64);
  assign cnt_o = (f == '0) ? 8'd165 : ((lz == '0) ? 8'd0 : lz - 8'd1);

endmodule
