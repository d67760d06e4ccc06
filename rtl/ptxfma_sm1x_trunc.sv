// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// sm_1x product truncation (model/src/parts/sm1x.rs, decision S7): the exact product keeps its top
// 24 significant bits, cut toward zero, before the addition. Inputs are already flushed, so a
// non-zero product of two normal binary32 significands leads at bit 105 or 104.

module ptxfma_sm1x_trunc import ptxfma_pkg::*; (
  input  logic [MulW-1:0] p_i,
  output logic [MulW-1:0] p_o
);

  // F32Prec ones, moved up to the product's top (or one below it).
  localparam logic [MulW-1:0] KeepTop = {{F32Prec{1'b1}}, {(MulW - F32Prec){1'b0}}};

  assign p_o = p_i & (p_i[MulW-1] ? KeepTop : (KeepTop >> 1));

endmodule
