// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_alt_round: one normalise-and-round of the exact sum from ptxfma_alt_exact to binary32,
// with gradual underflow, overflow by rounding mode, then .ftz (a result that is tiny after
// rounding, i.e. below 2^-126 once rounded to 24 bits with an unbounded exponent, flushes to a
// zero of its sign: docs/semantics.md S4) and .sat (clamp to [+0, 1.0], NaN to +0) in that
// order. Special results (S1) take over at the end.
//
// Fault injection for the ports-only co-simulation test: with FAULT_ALT_STICKY_RP defined,
// .rp ignores the sticky bits below the round bit (cosim/cli/tests/ports.rs).

module ptxfma_alt_round #(
  parameter int unsigned W = 560
) (
  input  logic [1:0]   rnd_i,
  input  logic         ftz_i,
  input  logic         sat_i,
  input  logic         sign_i,
  input  logic [W-1:0] mag_i,
  input  logic         nan_i,
  input  logic         inf_i,
  input  logic         inf_sign_i,
  output logic [31:0]  res_o
);

  localparam logic [1:0] RndRn = 2'd0;
  localparam logic [1:0] RndRz = 2'd1;
  localparam logic [1:0] RndRm = 2'd2;
  localparam logic [1:0] RndRp = 2'd3;
  // Bit of mag_i that weighs 2^-149, the binary32 quantum at the bottom of the range.
  localparam int unsigned MinLsb = 149;
  localparam logic [31:0] PosInf = 32'h7f80_0000;
  localparam logic [31:0] MaxFinite = 32'h7f7f_ffff;
  localparam logic [31:0] One = 32'h3f80_0000;
  localparam logic [31:0] CanonicalNan = 32'h7fff_ffff;

  logic [9:0]  lead, lsb, field;
  logic [23:0] kept;
  logic        guard, sticky, inc, away;
  logic        guard_u, sticky_u, inc_u, tiny;
  logic [39:0] bits;
  logic [31:0] rounded, flushed;

  always_comb begin
    lead = '0;
    for (int unsigned i = 0; i < W; i++) begin
      if (mag_i[i]) begin
        lead = 10'(i);
      end
    end
  end

  always_comb begin
    // The result's least significant bit: 24 significant bits, never below 2^-149.
    lsb    = (lead > 10'(MinLsb + 23)) ? lead - 10'd23 : 10'(MinLsb);
    kept   = 24'(mag_i >> lsb);
    guard  = mag_i[lsb - 10'd1];
    sticky = (mag_i & ~({W{1'b1}} << (lsb - 10'd1))) != '0;
`ifdef FAULT_ALT_STICKY_RP
    if (rnd_i == RndRp) begin
      sticky = 1'b0;
    end
`endif
    unique case (rnd_i)
      RndRn:   inc = guard && (sticky || kept[0]);
      RndRz:   inc = 1'b0;
      RndRm:   inc = sign_i && (guard || sticky);
      RndRp:   inc = !sign_i && (guard || sticky);
      default: inc = 1'b0;
    endcase
    // Exponent field and significand added, so a carry out of the significand (including a
    // subnormal rounding up to the minimum normal) bumps the exponent by itself.
    field  = lsb - 10'(MinLsb);
    bits   = {7'd0, field, 23'd0} + {16'd0, kept} + {39'd0, inc};
    away = (rnd_i == RndRn) || (rnd_i == RndRm && sign_i) || (rnd_i == RndRp && !sign_i);
    if (mag_i == '0) begin
      rounded = {sign_i, 31'd0};
    end else if (bits >= 40'(PosInf)) begin
      rounded = {sign_i, away ? PosInf[30:0] : MaxFinite[30:0]};
    end else begin
      rounded = {sign_i, bits[30:0]};
    end
  end

  // Tininess after rounding. A value whose leading one is at or above 2^-126 (bit MinLsb + 23)
  // is not tiny; one below 2^-127 stays below 2^-126 in any 24-bit rounding; one in
  // [2^-127, 2^-126) reaches 2^-126 only if its 24 bits (MinLsb + 22 down to MinLsb - 1) are
  // all ones and round up on the bits below them.
  always_comb begin
    guard_u  = mag_i[MinLsb-2];
    sticky_u = (mag_i & ~({W{1'b1}} << (MinLsb - 2))) != '0;
    unique case (rnd_i)
      RndRn:   inc_u = guard_u;  // the kept bits are all ones when it matters: odd
      RndRz:   inc_u = 1'b0;
      RndRm:   inc_u = sign_i && (guard_u || sticky_u);
      RndRp:   inc_u = !sign_i && (guard_u || sticky_u);
      default: inc_u = 1'b0;
    endcase
    tiny = (lead < 10'(MinLsb + 23)) &&
           !((lead == 10'(MinLsb + 22)) && (mag_i[MinLsb+22 -: 24] == '1) && inc_u);
  end

  always_comb begin
    flushed = rounded;
    if (ftz_i && tiny) begin
      flushed = {rounded[31], 31'd0};
    end
    if (nan_i) begin
      flushed = CanonicalNan;
    end else if (inf_i) begin
      flushed = {inf_sign_i, PosInf[30:0]};
    end
    res_o = flushed;
    if (sat_i) begin
      if (nan_i || flushed[31] || flushed[30:0] == '0) begin
        res_o = '0;
      end else if (flushed[30:0] >= One[30:0]) begin
        res_o = One;
      end
    end
  end

endmodule
