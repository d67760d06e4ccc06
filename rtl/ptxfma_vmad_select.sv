// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// vmad byte/half-word select with sign or zero extension (model/src/parts/vmad_select.rs, PTX
// partSelectSignExtend as sm_90 computes it, docs/semantics.md S8): a byte or half-word is
// extended by the operand's type, a whole word is read as s32 whatever its type. The result is a
// VmOpW-bit (33) two's complement value.

module ptxfma_vmad_select import ptxfma_pkg::*; (
  // The operation is a vmad (else val_o is zero and not read: the Verilated model skips the
  // select).
  input  logic               en_i,
  input  logic [VmWordW-1:0] w_i,
  input  sel_e               sel_i,     // decoded
  input  logic               signed_i,
  output logic [VmOpW-1:0]   val_o
);

  // A byte or half-word is sign-extended when signed_i (the operand's type is signed), else
  // zero-extended, by ByteExtW or HalfExtW bits.
  localparam int unsigned ByteExtW = VmOpW - VmByteW;
  localparam int unsigned HalfExtW = VmOpW - VmHalfW;

  always_comb begin
    val_o = '0;
    if (en_i) begin
      unique case (sel_i)
        SEL_B0:  val_o = {{ByteExtW{signed_i & w_i[1*VmByteW-1]}}, w_i[0*VmByteW+:VmByteW]};
        SEL_B1:  val_o = {{ByteExtW{signed_i & w_i[2*VmByteW-1]}}, w_i[1*VmByteW+:VmByteW]};
        SEL_B2:  val_o = {{ByteExtW{signed_i & w_i[3*VmByteW-1]}}, w_i[2*VmByteW+:VmByteW]};
        SEL_B3:  val_o = {{ByteExtW{signed_i & w_i[4*VmByteW-1]}}, w_i[3*VmByteW+:VmByteW]};
        SEL_H0:  val_o = {{HalfExtW{signed_i & w_i[1*VmHalfW-1]}}, w_i[0*VmHalfW+:VmHalfW]};
        SEL_H1:  val_o = {{HalfExtW{signed_i & w_i[2*VmHalfW-1]}}, w_i[1*VmHalfW+:VmHalfW]};
        default: val_o = {w_i[VmWordW-1], w_i};
      endcase
    end
  end

endmodule
