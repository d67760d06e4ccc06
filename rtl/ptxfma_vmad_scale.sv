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
  output logic [DataW-1:0]  res_o
);

  // Signed: the DataW bits from the shift amount up; unsigned: the low DataW bits shifted.
  always_comb begin
    unique case (scale_i)
      SCALE_SHR7:  res_o = signed_final_i ? tmp_i[ScaleShr7+:DataW]
                                          : {ScaleShr7'(0), tmp_i[DataW-1:ScaleShr7]};
      SCALE_SHR15: res_o = signed_final_i ? tmp_i[ScaleShr15+:DataW]
                                          : {ScaleShr15'(0), tmp_i[DataW-1:ScaleShr15]};
      default:     res_o = tmp_i[DataW-1:0];
    endcase
  end

  // The bits of the intermediate above ScaleShr15 + DataW (bit 79) never reach the result.
  logic unused_tmp;
  assign unused_tmp = ^tmp_i[VmTmpW-1:ScaleShr15+DataW];

endmodule
