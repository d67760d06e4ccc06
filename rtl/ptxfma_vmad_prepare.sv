// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// vmad stage 1 (model/src/parts/vmad.rs, `prepare`): the negation choice and the extended addend.
// .po adds one; a negated product is one's complemented plus one; a negated c is one's
// complemented here and gets its +1 in the same carry-in. c is sign-extended whatever the final
// type (docs/semantics.md S8).

module ptxfma_vmad_prepare import ptxfma_pkg::*; (
  // The operation is a vmad (else vm_o is zero and not read: the Verilated model skips it).
  input  logic               en_i,
  input  logic               po_i,
  input  logic               neg_ab_i,
  input  logic               neg_c_i,
  input  logic [VmWordW-1:0] c_i,
  output s1_vmad_t           vm_o
);

  logic               inv, lsb;
  logic [VmWordW-1:0] c;

  always_comb begin
    inv  = 1'b0;
    lsb  = 1'b0;
    c    = c_i;
    vm_o = '0;
    if (en_i) begin
      if (po_i) begin
        lsb = 1'b1;
      end else if (neg_ab_i) begin
        inv = 1'b1;
        lsb = 1'b1;
      end else if (neg_c_i) begin
        lsb = 1'b1;
        c   = ~c_i;
      end
      vm_o = '{vm_cext: {{(VmTmpW - VmWordW){c[VmWordW-1]}}, c}, vm_inv: inv, vm_lsb: lsb};
    end
  end

endmodule
