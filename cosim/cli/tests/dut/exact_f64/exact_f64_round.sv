// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// exact_f64_round: one normalise-and-round of the exact sum to binary64: 53 significant bits,
// never below the minimum subnormal's quantum (gradual underflow), overflow to infinity or the
// largest finite value by rounding mode. The special cases take over at the end; every NaN
// result is the canonical quiet NaN.
//
// Planted fault for the test: with FAULT_F64_STICKY_RM defined, .rm ignores the bits below
// the round bit (a negative inexact result with a zero round bit rounds toward zero).

module exact_f64_round import exact_f64_pkg::*; (
  input  logic [1:0]      rnd_i,
  input  logic            sign_i,
  input  logic [MagW-1:0] mag_i,
  input  logic [PosW-1:0] lead_i,
  input  logic            zero_i,
  input  logic            nan_i,
  input  logic            inf_i,
  input  logic            inf_sign_i,
  output logic [63:0]     res_o
);

  localparam logic [63:0] PosInf       = 64'h7ff0_0000_0000_0000;
  localparam logic [63:0] MaxFinite    = 64'h7fef_ffff_ffff_ffff;
  localparam logic [63:0] CanonicalNan = 64'h7ff8_0000_0000_0000;
  // The exponent field (below 2^PosW) above 52 fraction bits, and a bit for the carry.
  localparam int unsigned BitsW = PosW + SigW;

  logic [PosW-1:0]  lsb, field, guard_pos;
  logic [PosW-7:0]  guard_word;
  logic [SigW-1:0]  kept;
  logic             guard, sticky, inc, away;
  logic [BitsW-1:0] bits;
  logic [63:0]      rounded;

  always_comb begin
    // The result's least significant bit: 53 significant bits, never below 2^-1074.
    lsb        = (lead_i > PosW'(MinLsb + SigW - 1)) ? lead_i - PosW'(SigW - 1) : PosW'(MinLsb);
    kept       = mag_i[lsb +: SigW];
    guard_pos  = lsb - PosW'(1);
    guard      = mag_i[guard_pos];
    // The bits below the guard bit, a 64-bit word at a time: the guard's word under a mask,
    // then every whole word below it.
    guard_word = guard_pos[PosW-1:6];
    sticky     = (mag_i[guard_word*64 +: 64] & ~({64{1'b1}} << guard_pos[5:0])) != '0;
    for (int unsigned i = 0; i < Words; i++) begin
      if (i < 32'(guard_word) && mag_i[i*64 +: 64] != '0) begin
        sticky = 1'b1;
      end
    end
`ifdef FAULT_F64_STICKY_RM
    if (rnd_i == RndRm) begin
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
    away = rnd_i == RndRn || (rnd_i == RndRm && sign_i) || (rnd_i == RndRp && !sign_i);
    // Exponent field and significand added, so that a carry out of the significand (a
    // subnormal rounding up to the minimum normal included) bumps the exponent by itself.
    field = lsb - PosW'(MinLsb);
    bits  = {field, (SigW - 1)'(0)} + BitsW'(kept) + BitsW'(inc);
    if (zero_i) begin
      rounded = {sign_i, 63'd0};
    end else if (bits >= BitsW'(PosInf)) begin
      rounded = {sign_i, away ? PosInf[62:0] : MaxFinite[62:0]};
    end else begin
      rounded = {sign_i, bits[62:0]};
    end
  end

  always_comb begin
    res_o = rounded;
    if (nan_i) begin
      res_o = CanonicalNan;
    end else if (inf_i) begin
      res_o = {inf_sign_i, PosInf[62:0]};
    end
  end

endmodule
