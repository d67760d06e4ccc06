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
// Every multiple the array forms (a 53-bit significand, twice it, or a sign-extended 33-bit vmad
// operand) fits in 55 bits of two's complement; the multiplicands arrive sign-extended
// to a machine word (MulLoW), so a digit's multiple and its inversion are whole words, and each
// row is that word sign-extended to 106 bits and placed at bit 2i: the model's 106-bit
// multiplicand row bit for bit.
//
// Every row leaves as two slices, bits 63:0 and bits 105:64 (MulLoW, MulHiW; the high one in a
// whole word, MulHiWordW, whose bits above 105 are don't-care), which the
// carry-save tree keeps apart: each slice is one machine word in the Verilated model, where a
// 106-bit row would be four 32-bit words handled one by one.

module ptxfma_booth import ptxfma_pkg::*; (
  input  logic [MulLoW-1:0]  mcand_lo_i,
  input  logic [MulLoW-1:0]  mcand_hi_i,
  // Twice the multiplicands (the operand mux forms them by wiring, one place up).
  input  logic [MulLoW-1:0]  mcand2_lo_i,
  input  logic [MulLoW-1:0]  mcand2_hi_i,
  input  logic [MplierW-1:0] mplier_i,
  output logic [MulLoW-1:0]  rows_lo_o [BoothRows],
  output logic [MulHiWordW-1:0] rows_hi_o [BoothRows]
);

  // Booth encoder, for every digit at once: digit i reads bits 2i+2, 2i+1, 2i of the
  // multiplier with an implicit zero below bit 0, so bit 2i of each word below is that digit's
  // hi, one and two. Word-wide, the encoder is a handful of operations for all 27 digits.
  //
  //   mplier_ext  = {mplier_i, 0}   digit i: lo = bit 2i
  //   mid         = mplier_ext >> 1          mid = bit 2i
  //   enc_hi      = mplier_ext >> 2          hi  = bit 2i (the digit is negative)
  logic [MplierW:0] mplier_ext, mid, enc_hi, enc_one, enc_two;

  assign mplier_ext = {mplier_i, 1'b0};
  assign mid        = mplier_ext >> 1;
  assign enc_hi     = mplier_ext >> 2;
  assign enc_one    = mid ^ mplier_ext;
  assign enc_two    = (enc_hi & ~mid & ~mplier_ext) | (~enc_hi & mid & mplier_ext);

  // Only the even bits are digits (the others pair bits of two digits).
  logic unused_enc;
  assign unused_enc = ^{enc_one, enc_two, enc_hi};

  for (genvar i = 0; i < BoothDigits; i++) begin : g_digit
    localparam int unsigned Sh = 2 * i;

    logic              hi, one, two;
    logic [MulLoW-1:0] m, m2, sel, ppx;

    assign hi  = enc_hi[2*i];
    assign one = enc_one[2*i];
    assign two = enc_two[2*i];

    if (i >= BoothHiDigit) begin : g_hi
      assign m  = mcand_hi_i;
      assign m2 = mcand2_hi_i;
    end else begin : g_lo
      assign m  = mcand_lo_i;
      assign m2 = mcand2_lo_i;
    end

    // Booth selector: multiplexer and conditional inversion over the whole (sign-extended)
    // multiple.
    assign sel = one ? m : (two ? m2 : '0);
    assign ppx = sel ^ {MulLoW{hi}};

    // The row: ppx shifted up by 2i, modulo 2^106. Bits 63:0 are ppx shifted within the word;
    // bits 105:64 are what that shift pushes out of the word, with the sign above it: an
    // arithmetic shift right by 64 - 2i (by 63 for row 0, whose top is all sign). The high
    // word's bits from MulHiW up (weights 2^106 and above) are left as they fall.
    localparam int unsigned HiShift = (Sh == 0) ? MulLoW - 1 : MulLoW - Sh;

    assign rows_lo_o[i] = ppx << Sh;
    assign rows_hi_o[i] = MulHiWordW'($signed(ppx) >>> HiShift);
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
