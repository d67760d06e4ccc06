// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Carry-save tree (model/src/csa_tree.rs): reduces the 28 partial-product rows to a sum/carry
// pair with 3:2 compressors over whole rows, modulo 2^106.
//
// The shape is fixed because the pair is a pipeline register that must match the model bit
// for bit: at each level the rows are taken in threes from the front, each three become
// (sum, carry) in that order, and the one or two rows left over follow unchanged.
// 28 rows take seven levels: 28 -> 19 -> 13 -> 9 -> 6 -> 4 -> 3 -> 2.

module ptxfma_csa_tree import ptxfma_pkg::*; (
  input  logic [MulW-1:0] rows_i [BoothRows],
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

  // A whole row one place up, modulo 2^106 (the top bit carries out of the array). Spelled on
  // two word-sized halves so Verilator emits plain word operations rather than a generic
  // wide-shift call.
  function automatic logic [MulW-1:0] shl1(logic [MulW-1:0] x);
    logic [63:0]      lo;
    logic [MulW-66:0] hi;
    logic             unused_carry_out;
    lo               = x[63:0];
    hi               = x[MulW-2:64];
    unused_carry_out = x[MulW-1];
    return {hi, lo, 1'b0};
  endfunction

  for (genvar l = 0; l <= NumLevels; l++) begin : g_level
    localparam int unsigned N = level_rows(l);
    logic [MulW-1:0] row [N];

    if (l == 0) begin : g_array
      assign row = rows_i;
    end else begin : g_compress
      localparam int unsigned NPrev  = level_rows(l - 1);
      localparam int unsigned Groups = NPrev / 3;
      localparam int unsigned Left   = NPrev - 3 * Groups;

      for (genvar g = 0; g < Groups; g++) begin : g_csa
        logic [MulW-1:0] x, y, z;
        assign x = g_level[l-1].row[3*g];
        assign y = g_level[l-1].row[3*g+1];
        assign z = g_level[l-1].row[3*g+2];
        // 3:2 compressor over a whole row: sum, and the majority one place up as carry.
        assign row[2*g]   = x ^ y ^ z;
        assign row[2*g+1] = shl1((x & y) | (x & z) | (y & z));
      end

      for (genvar k = 0; k < Left; k++) begin : g_pass
        assign row[2*Groups+k] = g_level[l-1].row[3*Groups+k];
      end
    end
  end

  assign sum_o   = g_level[NumLevels].row[0];
  assign carry_o = g_level[NumLevels].row[1];

endmodule
