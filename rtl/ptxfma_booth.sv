// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Radix-4 Booth multiplier array (model/src/parts/booth.rs): 27 partial-product rows plus one row
// of negation bits, all 106 bits wide and modulo 2^106.
//
// Digit i looks at multiplier bits 2i+1, 2i, 2i-1 (bit -1 is zero) and selects 0, +-M or +-2M;
// a negative multiple is the one's complement of the positive one, its +1 goes to bit 2i of
// the negation row. Digits from BoothHiDigit up take `mcand_hi_i`, which lets f32x2 lane 1 use
// its own multiplicand (the four zero multiplier bits 27:24 make digit 13 zero, so there are
// no cross terms between the lanes).
//
// The multiplicands arrive as 55-bit two's complement values: every multiple the array forms
// (a 53-bit significand, twice it, or a sign-extended 33-bit vmad operand) fits, so each row
// is its digit's 55-bit multiple sign-extended to 106 bits and placed at bit 2i. That is the
// model's 106-bit multiplicand row bit for bit, with the sign extension done by wiring.
//
// Every row leaves as two slices, bits 63:0 and bits 105:64 (MulLoW, MulHiW), which the
// carry-save tree keeps apart: each slice is one machine word in the Verilated model, where a
// 106-bit row would be four 32-bit words handled one by one.

module ptxfma_booth import ptxfma_pkg::*; (
  input  logic [MCandW-1:0]  mcand_lo_i,
  input  logic [MCandW-1:0]  mcand_hi_i,
  // Twice the multiplicands (the operand mux forms them by wiring, one place up).
  input  logic [MCandW-1:0]  mcand2_lo_i,
  input  logic [MCandW-1:0]  mcand2_hi_i,
  input  logic [MplierW-1:0] mplier_i,
  output logic [MulLoW-1:0]  rows_lo_o [BoothRows],
  output logic [MulHiW-1:0]  rows_hi_o [BoothRows]
);

  // Multiplier with the implicit zero below bit 0: digit i reads mplier_ext[2i+2:2i].
  logic [MplierW:0] mplier_ext;

  assign mplier_ext = {mplier_i, 1'b0};

  for (genvar i = 0; i < BoothDigits; i++) begin : g_digit
    localparam int unsigned Sh = 2 * i;

    logic              hi, mid, lo;
    logic              one, two;
    logic [MCandW-1:0] m, m2, sel, pp;

    assign hi  = mplier_ext[2*i+2];
    assign mid = mplier_ext[2*i+1];
    assign lo  = mplier_ext[2*i];

    // Booth encoder; the digit is negative when hi is set.
    assign one = mid ^ lo;
    assign two = (hi & ~mid & ~lo) | (~hi & mid & lo);

    if (i >= BoothHiDigit) begin : g_hi
      assign m  = mcand_hi_i;
      assign m2 = mcand2_hi_i;
    end else begin : g_lo
      assign m  = mcand_lo_i;
      assign m2 = mcand2_lo_i;
    end

    // Booth selector: multiplexer and conditional inversion over the whole multiple.
    assign sel = one ? m : (two ? m2 : '0);
    assign pp  = hi ? ~sel : sel;

    // The row: pp sign-extended and shifted up by 2i, modulo 2^106. Bits 63:0 are the
    // multiple sign-extended to a word and shifted; bits 105:64 are what that shift pushes out
    // of the word, with the sign above it.
    logic [MulLoW-1:0] ppx;

    assign ppx = {{(MulLoW - MCandW){pp[MCandW-1]}}, pp};

    if (Sh == 0) begin : g_row_first
      assign rows_lo_o[i] = ppx;
      assign rows_hi_o[i] = {MulHiW{pp[MCandW-1]}};
    end else if (Sh < MulHiW) begin : g_row_ext
      assign rows_lo_o[i] = {ppx[MulLoW-Sh-1:0], {Sh{1'b0}}};
      assign rows_hi_o[i] = {{(MulHiW - Sh){pp[MCandW-1]}}, ppx[MulLoW-1:MulLoW-Sh]};
    end else begin : g_row_top
      // The top rows need no sign extension; bits at 2^106 and above are dropped.
      assign rows_lo_o[i] = {ppx[MulLoW-Sh-1:0], {Sh{1'b0}}};
      assign rows_hi_o[i] = ppx[MulW-Sh-1:MulLoW-Sh];
      if (Sh > MulHiW) begin : g_drop
        logic unused_ppx;
        assign unused_ppx = ^ppx[MulLoW-1:MulW-Sh];
      end
    end
  end

  // Negation row: the +1 of each inverted row at that row's weight, bit 2i. A digit is
  // negative exactly when its top multiplier bit 2i+1 is set, so the row is the multiplier's
  // odd bits moved down one place: of mplier_i[53:1], keep the even positions.
  localparam logic [MplierW-2:0] SignBits = {1'b1, {((MplierW - 2) / 2){2'b01}}};

  logic [MplierW-2:0] signs;

  assign signs                  = mplier_i[MplierW-1:1] & SignBits;
  assign rows_lo_o[BoothDigits] = {(MulLoW - MplierW + 1)'(0), signs};
  assign rows_hi_o[BoothDigits] = '0;

endmodule
