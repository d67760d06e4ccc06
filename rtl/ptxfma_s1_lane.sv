// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Stage-1 front end of one float lane (model/src/machine/lane.rs, `s1_lane`): product sign
// and exponent, addend alignment against the product, and the special-case result. Runs in
// parallel with the shared Booth array, which takes the lane's significands directly.

module ptxfma_s1_lane import ptxfma_pkg::*; (
  input  logic             en_i,     // the lane carries an operation (else lane_o is not read)
  input  res_fmt_e         fmt_i,
  input  logic             oob_i,    // .oob and an OOB NaN in this lane's a or b (S12)
  input  operand_t         a_i,
  input  operand_t         b_i,
  input  operand_t         c_i,
  input  logic [DataW-1:0] raw_a_i,
  input  logic [DataW-1:0] raw_b_i,
  input  logic [DataW-1:0] raw_c_i,
  output s1_lane_t         lane_o
);

  logic              prod_zero, spec_valid, sticky;
  logic [DataW-1:0]  spec_res;
  logic [AlignW-1:0] c_aligned;
  exp_t              ep, eref;

  assign prod_zero = a_i.zero || b_i.zero;
  assign ep        = a_i.exp + b_i.exp;

  ptxfma_align u_align (
    .en_i       (en_i),
    .c_sig_i    (c_i.sig),
    .ep_i       (ep),
    .ec_i       (c_i.exp),
    .prod_zero_i(prod_zero),
    .c_zero_i   (c_i.zero),
    .eref_o     (eref),
    .c_aligned_o(c_aligned),
    .sticky_o   (sticky)
  );

  ptxfma_special u_special (
    .en_i   (en_i),
    .fmt_i  (fmt_i),
    .oob_i  (oob_i),
    .a_i    (a_i),
    .b_i    (b_i),
    .c_i    (c_i),
    .raw_a_i(raw_a_i),
    .raw_b_i(raw_b_i),
    .raw_c_i(raw_c_i),
    .valid_o(spec_valid),
    .res_o  (spec_res)
  );

  always_comb begin
    lane_o = '0;
    if (en_i) begin
      // One assignment of the whole struct (see rtl/README.md, "Verilator speed").
      lane_o = '{sign_p:       a_i.sign ^ b_i.sign,
                 sign_c:       c_i.sign,
                 prod_zero:    prod_zero,
                 c_zero:       c_i.zero,
                 eref:         eref[ExpRegW-1:0],
                 c_aligned:    c_aligned,
                 align_sticky: sticky,
                 spec_valid:   spec_valid,
                 spec_res:     spec_res};
    end
  end

  // The factors' significands feed the Booth array in the top; the truncated exponent bits
  // never leave the datapath's range (|eref| < 2^13).
  logic unused_bits;
  assign unused_bits = ^{a_i.sig, b_i.sig, eref[ExpW-1:ExpRegW]};

endmodule
