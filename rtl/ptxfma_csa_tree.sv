// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Carry-save tree (model/src/parts/csa_tree.rs): reduces the 28 partial-product rows to a sum/carry
// pair with 3:2 compressors over whole rows, modulo 2^106.
//
// The shape is fixed because the pair is a pipeline register that must match the model bit
// for bit: at each level the rows are taken in threes from the front, each three become
// (sum, carry) in that order, and the one or two rows left over follow unchanged.
// 28 rows take seven levels: 28 -> 19 -> 13 -> 9 -> 6 -> 4 -> 3 -> 2.
//
// Rows travel as two slices, bits 63:0 and 105:64 (see ptxfma_booth), the high one in a whole
// word whose bits above 105 are don't-care: a compressor works on each slice with word-sized
// operations and no masking, and the carry's shift moves bit 63 of the low slice into bit 0 of
// the high one. The pair is joined into 106-bit words, and cut to 106 bits, only at the output.

module ptxfma_csa_tree import ptxfma_pkg::*; (
  input  logic [MulLoW-1:0] rows_lo_i [BoothRows],
  input  logic [MulHiWordW-1:0] rows_hi_i [BoothRows],
  output logic [MulW-1:0] sum_o,
  output logic [MulW-1:0] carry_o
);

  // Rows after `l` levels of 3:2 compression.
  function automatic int unsigned level_rows(int unsigned l);
    int unsigned n;
    n = BoothRows;
    for (int unsigned i = 0; i < l; i++) begin
      n = 2 * (n / 3) + n % 3;
    end
    return n;
  endfunction

  // Levels needed to get down to two rows.
  function automatic int unsigned num_levels();
    int unsigned l;
    l = 0;
    while (level_rows(l) > 2) begin
      l++;
    end
    return l;
  endfunction

  localparam int unsigned NumLevels = num_levels();

  // Every row is a signal of its own generate block (g_level[l].g_row[i]), not an element of
  // an unpacked array: the Verilated model then keeps each as a plain word, where an array
  // assigned as a whole is copied element by element every cycle.
  for (genvar l = 0; l <= NumLevels; l++) begin : g_level
    localparam int unsigned N = level_rows(l);

    if (l == 0) begin : g_array
      for (genvar i = 0; i < N; i++) begin : g_row
        logic [MulLoW-1:0] lo;
        logic [MulHiWordW-1:0] hi;
        assign lo = rows_lo_i[i];
        assign hi = rows_hi_i[i];
      end
    end else begin : g_array
      localparam int unsigned NPrev  = level_rows(l - 1);
      localparam int unsigned Groups = NPrev / 3;

      for (genvar g = 0; g < Groups; g++) begin : g_csa
        logic [MulLoW-1:0] x_lo, y_lo, z_lo, maj_lo, sum_lo, carry_lo;
        logic [MulHiWordW-1:0] x_hi, y_hi, z_hi, maj_hi, sum_hi, carry_hi;
        logic              unused_carry_out;
        assign x_lo = g_level[l-1].g_array.g_row[3*g].lo;
        assign y_lo = g_level[l-1].g_array.g_row[3*g+1].lo;
        assign z_lo = g_level[l-1].g_array.g_row[3*g+2].lo;
        assign x_hi = g_level[l-1].g_array.g_row[3*g].hi;
        assign y_hi = g_level[l-1].g_array.g_row[3*g+1].hi;
        assign z_hi = g_level[l-1].g_array.g_row[3*g+2].hi;
        // 3:2 compressor over a whole row: sum, and the majority one place up as carry (the
        // top bit carries out of the array, modulo 2^106).
        assign maj_lo           = (x_lo & y_lo) | (x_lo & z_lo) | (y_lo & z_lo);
        assign maj_hi           = (x_hi & y_hi) | (x_hi & z_hi) | (y_hi & z_hi);
        assign sum_lo           = x_lo ^ y_lo ^ z_lo;
        assign sum_hi           = x_hi ^ y_hi ^ z_hi;
        assign carry_lo         = {maj_lo[MulLoW-2:0], 1'b0};
        assign carry_hi         = {maj_hi[MulHiWordW-2:0], maj_lo[MulLoW-1]};
        assign unused_carry_out = maj_hi[MulHiWordW-1];
      end

      // Each three rows become (sum, carry) in that order; the one or two rows left over
      // follow unchanged.
      for (genvar i = 0; i < N; i++) begin : g_row
        logic [MulLoW-1:0] lo;
        logic [MulHiWordW-1:0] hi;
        if (i >= 2 * Groups) begin : g_pass
          assign lo = g_level[l-1].g_array.g_row[3*Groups+i-2*Groups].lo;
          assign hi = g_level[l-1].g_array.g_row[3*Groups+i-2*Groups].hi;
        end else if (i % 2 == 0) begin : g_sum
          assign lo = g_csa[i/2].sum_lo;
          assign hi = g_csa[i/2].sum_hi;
        end else begin : g_carry
          assign lo = g_csa[i/2].carry_lo;
          assign hi = g_csa[i/2].carry_hi;
        end
      end
    end
  end

  // The pair, modulo 2^106: the high words' bits from MulHiW up are dropped here.
  localparam int unsigned Top = NumLevels;

  assign sum_o   = {g_level[Top].g_array.g_row[0].hi[MulHiW-1:0], g_level[Top].g_array.g_row[0].lo};
  assign carry_o = {g_level[Top].g_array.g_row[1].hi[MulHiW-1:0], g_level[Top].g_array.g_row[1].lo};

  logic unused_above;
  assign unused_above = ^{g_level[Top].g_array.g_row[0].hi[MulHiWordW-1:MulHiW],
                          g_level[Top].g_array.g_row[1].hi[MulHiWordW-1:MulHiW]};

endmodule
