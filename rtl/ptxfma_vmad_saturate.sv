// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// vmad stage 4 (model/src/parts/vmad.rs, `saturate`): optional clamp to the 32-bit signed or
// unsigned range, then the low word. Both clamps read the 64-bit result as signed
// (docs/semantics.md S8): an unsigned result below zero clamps to 0.

module ptxfma_vmad_saturate import ptxfma_pkg::*; (
  input  logic             sat_i,
  input  logic             signed_final_i,
  input  logic [DataW-1:0] res_i,
  output logic [DataW-1:0] d_o
);

  // The s32 range, sign-extended to DataW bits.
  localparam logic signed [DataW-1:0] IntMax = 64'sh0000_0000_7FFF_FFFF;
  localparam logic signed [DataW-1:0] IntMin = 64'shFFFF_FFFF_8000_0000;

  logic [VmWordW-1:0] r;

  always_comb begin
    r = res_i[VmWordW-1:0];
    if (sat_i) begin
      if (signed_final_i) begin
        if ($signed(res_i) > IntMax) begin
          r = 32'h7FFF_FFFF;
        end else if ($signed(res_i) < IntMin) begin
          r = 32'h8000_0000;
        end
      end else if (res_i[DataW-1]) begin
        r = 32'h0000_0000;
      end else if (res_i[DataW-2:VmWordW] != '0) begin
        r = 32'hFFFF_FFFF;
      end
    end
    d_o = {(DataW - VmWordW)'(0), r};
  end

endmodule
