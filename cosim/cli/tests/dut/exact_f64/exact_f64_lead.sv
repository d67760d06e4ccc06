// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// exact_f64_lead: the position of the leading one of the magnitude, found a 64-bit word at a
// time (the highest nonzero word, then a six-step binary search inside it) rather than bit by
// bit, which keeps the Verilated model fast; and whether the magnitude is zero.

module exact_f64_lead import exact_f64_pkg::*; (
  input  logic [MagW-1:0] mag_i,
  output logic [PosW-1:0] lead_o,
  output logic            zero_o
);

  localparam int unsigned WordW = $clog2(Words);

  logic [WordW-1:0] top;
  logic [63:0]      word;
  logic [5:0]       bit_pos;

  always_comb begin
    top    = '0;
    zero_o = 1'b1;
    for (int unsigned i = 0; i < Words; i++) begin
      if (mag_i[i*64 +: 64] != '0) begin
        top    = WordW'(i);
        zero_o = 1'b0;
      end
    end
  end

  always_comb begin
    word    = mag_i[top*64 +: 64];
    bit_pos = '0;
    for (int k = 5; k >= 0; k--) begin
      if ((word >> (1 << k)) != '0) begin
        bit_pos = bit_pos | 6'(1 << k);
        word    = word >> (1 << k);
      end
    end
  end

  assign lead_o = PosW'({top, bit_pos});

endmodule
