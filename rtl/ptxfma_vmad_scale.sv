// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// vmad stage 3 (model/src/parts/vmad.rs, `scale`): the 64-bit result after .shr7 / .shr15,
// sign-extended for a signed final result, zero-extended (from the 64-bit window) for an
// unsigned one (docs/semantics.md S8).

module ptxfma_vmad_scale import ptxfma_pkg::*; (
  input  scale_e            scale_i,  // decoded
  input  logic              signed_final_i,
  input  logic [VmTmpW-1:0] tmp_i,
  output logic [63:0]       res_o
);

  always_comb begin
    unique case (scale_i)
      SCALE_SHR7:  res_o = signed_final_i ? tmp_i[70:7] : {7'b0, tmp_i[63:7]};
      SCALE_SHR15: res_o = signed_final_i ? tmp_i[78:15] : {15'b0, tmp_i[63:15]};
      default:     res_o = tmp_i[63:0];
    endcase
  end

  // Bit 79 of the intermediate never reaches the 64-bit result.
  logic unused_tmp;
  assign unused_tmp = tmp_i[79];

endmodule
