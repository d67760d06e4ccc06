// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Stage-2 lane (model/src/machine/lane.rs, `s2_lane`): sm_1x product truncation, the significand
// add with its leading-zero anticipator, and the sign of the result (including the sign of an exact
// zero and the sign a flushed result takes).

module ptxfma_s2_lane import ptxfma_pkg::*; (
  input  logic            en_i,      // the lane carries an operation (else lane_o is not read)
  input  logic            sm1x_i,
  input  logic            rnd_rm_i,  // effective rounding direction is .rm
  input  logic [MulW-1:0] p_i,       // the lane's product, MSB-aligned at bit 105
  input  logic [MulW-1:0] p_f32_i,   // the same as a binary32 product (read under sm1x_i only)
  input  s1_lane_t        lane_i,
  output s2_lane_t        lane_o
);

  logic [MulW-1:0]      p_trunc, p;
  logic [AddW-1:0]      opa, opb;
  logic [MagW-1:0]      mag;
  logic [ShiftCntW-1:0] lza_cnt;
  logic                 eff_sub, neg, zero_sum, zero, sign, flush_sign;

  ptxfma_sm1x_trunc u_sm1x_trunc (
    .p_i(p_f32_i),
    .p_o(p_trunc)
  );

  assign p       = (sm1x_i && !lane_i.c_zero) ? p_trunc : p_i;
  assign eff_sub = lane_i.sign_p ^ lane_i.sign_c;

  ptxfma_adder u_adder (
    .en_i       (en_i),
    .p_i        (p),
    .c_aligned_i(lane_i.c_aligned),
    .eff_sub_i  (eff_sub),
    .sticky_i   (lane_i.align_sticky),
    .opa_o      (opa),
    .opb_o      (opb),
    .neg_o      (neg),
    .mag_o      (mag),
    .zero_o     (zero_sum)
  );

  ptxfma_lza u_lza (
    .en_i (en_i),
    .opa_i(opa),
    .opb_i(opb),
    .cnt_o(lza_cnt)
  );

  always_comb begin
    zero       = 1'b0;
    sign       = 1'b0;
    flush_sign = 1'b0;
    lane_o     = '0;
    if (en_i) begin
      zero = zero_sum;
      if (zero) begin
        // IEEE: x + (-x) is +0 except under .rm; x + x keeps x's sign.
        sign = eff_sub ? rnd_rm_i : lane_i.sign_p;
      end else begin
        sign = neg ^ lane_i.sign_p;
      end
      // sm_1x with c = 0 is mul.rn then add.rn: a product flushed to zero then meets c's zero.
      flush_sign = (sm1x_i && lane_i.c_zero) ? (lane_i.sign_p && lane_i.sign_c) : sign;

      // One assignment of the whole struct (see rtl/README.md, "Verilator speed").
      lane_o = '{sign:       sign,
                 zero:       zero,
                 flush_sign: flush_sign,
                 mag:        mag,
                 sticky:     lane_i.align_sticky,
                 lza_cnt:    lza_cnt,
                 eref:       lane_i.eref,
                 spec_valid: lane_i.spec_valid,
                 spec_res:   lane_i.spec_res};
    end
  end

  // prod_zero only steered the alignment in stage 1.
  logic unused_prod_zero;
  assign unused_prod_zero = lane_i.prod_zero;

endmodule
