// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// vmad byte/half-word select with sign or zero extension (model/src/parts/vmad_select.rs, PTX
// partSelectSignExtend as sm_90 computes it, docs/semantics.md S8): a byte or half-word is
// extended by the operand's type, a whole word is read as s32 whatever its type. The result is a
// 33-bit two's complement value.

module ptxfma_vmad_select import ptxfma_pkg::*; (
  input  logic [31:0] w_i,
  input  sel_e        sel_i,     // decoded
  input  logic        signed_i,
  output logic [32:0] val_o
);

  always_comb begin
    unique case (sel_i)
      SEL_B0:  val_o = {{25{signed_i & w_i[7]}},  w_i[7:0]};
      SEL_B1:  val_o = {{25{signed_i & w_i[15]}}, w_i[15:8]};
      SEL_B2:  val_o = {{25{signed_i & w_i[23]}}, w_i[23:16]};
      SEL_B3:  val_o = {{25{signed_i & w_i[31]}}, w_i[31:24]};
      SEL_H0:  val_o = {{17{signed_i & w_i[15]}}, w_i[15:0]};
      SEL_H1:  val_o = {{17{signed_i & w_i[31]}}, w_i[31:16]};
      default: val_o = {w_i[31], w_i};
    endcase
  end

endmodule
