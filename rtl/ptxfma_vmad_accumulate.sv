// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// vmad stage 2 (model/src/parts/vmad.rs, `accumulate`): tmp = (~)product + c + lsb, modulo 2^80.

module ptxfma_vmad_accumulate import ptxfma_pkg::*; (
  input  logic [VmTmpW-1:0] prod_i,  // low bits of the shared multiplier's product
  input  s1_vmad_t          vm_i,
  output logic [VmTmpW-1:0] tmp_o
);

  assign tmp_o = (vm_i.vm_inv ? ~prod_i : prod_i) + vm_i.vm_cext + VmTmpW'(vm_i.vm_lsb);

endmodule
