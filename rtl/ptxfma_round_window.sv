// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Rounding window (model/src/parts/round.rs): what the rounder reads from a normalised
// significand at the lane's format, written once for all formats. Each format's window is
// constant part-selects at its round bit Rb = round_bit(fmt) (ptxfma_pkg, from the format
// table: 111 binary64, 140 binary32, 153 binary16, 156 bfloat16); the lane's format picks one.
//
//   norm_i  164  | 163 ........... Rb+1 | Rb    | Rb-1 | Rb-2 ........... 0 | sticky_i
//           [------------ kept ---------]
//           lead | rest_ones: all ones  | rb    | st: any set ......................
//   S4, one place lower (tininess):
//                | ones_u: all ones .............| rb_u | st_u: any set ...............
//                                       | lsb_u |

module ptxfma_round_window import ptxfma_pkg::*; (
  // When clear the window is zero (the Verilated model skips it).
  input  logic            en_i,
  input  res_fmt_e        fmt_i,
  input  logic [MagW-1:0] norm_i,
  input  logic            sticky_i,
  output window_t         window_o
);

  // One window per format, zero unless it is the lane's, and their OR (a one-hot AND-OR
  // select): the Verilated model forms the lane's window alone, where an index select of
  // ungated windows would form all four every cycle.
  window_t win [NumResFmts];

  for (genvar i = 0; i < NumResFmts; i++) begin : g_window
    localparam res_fmt_e    Fmt = res_fmt_e'(i);
    localparam int unsigned Rb  = round_bit(Fmt);

    always_comb begin
      win[i] = '0;
      if (en_i && (fmt_i == Fmt)) begin
        win[i] = '{kept:      F64Prec'(norm_i[MagW-1:Rb+1]),
                   lead:      norm_i[MagW-1],
                   rest_ones: norm_i[MagW-2:Rb+1] == '1,
                   rb:        norm_i[Rb],
                   st:        (norm_i[Rb-1:0] != '0) || sticky_i,
                   ones_u:    norm_i[MagW-2:Rb] == '1,
                   lsb_u:     norm_i[Rb],
                   rb_u:      norm_i[Rb-1],
                   st_u:      (norm_i[Rb-2:0] != '0) || sticky_i};
      end
    end
  end

  always_comb begin
    window_o = '0;
    for (int unsigned i = 0; i < NumResFmts; i++) begin
      window_o = window_o | win[i];
    end
  end

endmodule
