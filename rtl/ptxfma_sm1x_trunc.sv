// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// sm_1x product truncation (model/src/sm1x.rs, decision S7): the exact product keeps its top
// 24 significant bits, cut toward zero, before the addition. Inputs are already flushed, so a
// non-zero product of two normal binary32 significands leads at bit 105 or 104.

module ptxfma_sm1x_trunc import ptxfma_pkg::*; (
  input  logic [MulW-1:0] p_i,
  output logic [MulW-1:0] p_o
);

  localparam logic [MulW-1:0] Keep24 = MulW'(24'hFF_FFFF);

  assign p_o = p_i & (p_i[MulW-1] ? (Keep24 << 82) : (Keep24 << 81));

endmodule
