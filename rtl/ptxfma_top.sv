// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_top: the four-stage PTX FMA pipe (model/src/machine/pipeline.rs). One operation enters per
// cycle and retires LATENCY = 4 cycles later. The pipeline registers s1_q, s2_q, s3_q and
// out_q are the model's S1, S2, S3 and Out banks bit for bit; they load every cycle, and the
// lane or side path an operation does not use loads zero, as clock-gated flops would, so both
// sides of a comparison agree on them.
//
// Fault injection for the co-simulator's divergence test: with FAULT_STICKY_RZ defined, the
// alignment sticky of both lanes is dropped (forced to 0 in s1_q) whenever the control word's
// rounding field is .rz. With FAULT_S1_TAG_NO_RESET defined, s1_q.tag is left out of the
// reset: it keeps its initial value, which the next cycle moves into s2_q (the random-initial-
// state test). See rtl/README.md.

module ptxfma_top import ptxfma_pkg::*; (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  input  logic [TagW-1:0]  in_tag_i,
  input  logic [CtrlW-1:0] in_ctrl_i,
  input  logic [DataW-1:0] in_a_i,
  input  logic [DataW-1:0] in_b_i,
  input  logic [DataW-1:0] in_c_i,
  output logic             out_valid_o,
  output logic [TagW-1:0]  out_tag_o,
  output logic [DataW-1:0] out_d_o,
  output s1_t              s1_o,
  output s2_t              s2_o,
  output s3_t              s3_o,
  output out_t             out_o
);

  s1_t  s1_d, s1_q;
  s2_t  s2_d, s2_q;
  s3_t  s3_d, s3_q;
  out_t out_d, out_q;

  /////////////////////////////////////////////////////////////////////////////////////////////
  // Stage 1: unpack, special cases, Booth array and carry-save tree, addend alignment; vmad //
  // part select and addend preparation. The multiplier array is shared by every kind.       //
  /////////////////////////////////////////////////////////////////////////////////////////////

  ctrl_t    ctrl1;
  kind_e    kind1;
  ab_fmt_e  ab_fmt1;
  res_fmt_e fmt1;
  logic     flush1, oob1;
  lane_en_t en_1;

  assign ctrl1   = ctrl_t'(in_ctrl_i);
  assign kind1   = kind_decode(ctrl1.kind);
  assign ab_fmt1 = ab_fmt_decode(ctrl1.ab_fmt);
  assign fmt1    = res_fmt(kind1, ab_fmt1);
  assign flush1  = ctrl_flush(kind1, ctrl1.ftz);
  assign oob1    = ctrl1.oob && kind_is_half(kind1);
  assign en_1    = lane_enables(kind1);

  // Float operands, exponent path, alignment and special cases, per lane. The raw words only
  // matter for the binary64 NaN rule, which only lane 0 can see. Each lane's outputs are
  // signals of its generate block (g_s1_lane[l].lane, ...), read by name below: connected to
  // an element of an unpacked array instead, every lane output takes a copy through a
  // temporary in the Verilated model (2.5% more host instructions per cycle).
  // The binary32 significands (sig[SigW-1:F32SigLsb]) for the multiplier array.
  logic [F32Prec-1:0] a32 [Lanes], b32 [Lanes];

  for (genvar l = 0; l < Lanes; l++) begin : g_s1_lane
    operand_t a, b, c;
    s1_lane_t lane;
    logic     oob;

    // S12: this lane's a or b (16 bits of it, either sign) is the OOB NaN.
    assign oob = oob1 && ((in_a_i[F16W*l+:F16W-1] == OobNaN) || (in_b_i[F16W*l+:F16W-1] == OobNaN));

    ptxfma_unpack #(.Lane(l)) u_unpack (
      .en_i    ((l == 0) ? en_1.lane0 : en_1.lane1),
      .kind_i  (kind1),
      .rnd_i   (ctrl1.rnd),
      .flush_i (flush1),
      .ab_fmt_i(ab_fmt1),
      .b_one_i (ctrl1.b_one),
      .c_zero_i(ctrl1.c_zero),
      .neg_c_i (ctrl1.neg_c),
      .a_i     (in_a_i),
      .b_i     (in_b_i),
      .c_i     (in_c_i),
      .a_o     (a),
      .b_o     (b),
      .c_o     (c)
    );

    ptxfma_s1_lane u_s1_lane (
      .en_i   ((l == 0) ? en_1.lane0 : en_1.lane1),
      .fmt_i  (fmt1),
      .oob_i  (oob),
      .a_i    (a),
      .b_i    (b),
      .c_i    (c),
      .raw_a_i(in_a_i),
      .raw_b_i(in_b_i),
      .raw_c_i(in_c_i),
      .lane_o (lane)
    );

    assign a32[l] = a.sig[SigW-1:F32SigLsb];
    assign b32[l] = b.sig[SigW-1:F32SigLsb];
  end

  // vmad operands and addend.
  logic [VmOpW-1:0] vm_ta, vm_tb;
  s1_vmad_t         vm_1;

  ptxfma_vmad_select u_vmad_select_a (
    .en_i    (en_1.vm),
    .w_i     (in_a_i[VmWordW-1:0]),
    .sel_i   (sel_decode(ctrl1.asel)),
    .signed_i(ctrl1.a_signed),
    .val_o   (vm_ta)
  );

  ptxfma_vmad_select u_vmad_select_b (
    .en_i    (en_1.vm),
    .w_i     (in_b_i[VmWordW-1:0]),
    .sel_i   (sel_decode(ctrl1.bsel)),
    .signed_i(ctrl1.b_signed),
    .val_o   (vm_tb)
  );

  ptxfma_vmad_prepare u_vmad_prepare (
    .en_i    (en_1.vm),
    .po_i    (ctrl1.po),
    .neg_ab_i(ctrl1.neg_ab),
    .neg_c_i (ctrl1.neg_c),
    .c_i     (in_c_i[VmWordW-1:0]),
    .vm_o    (vm_1)
  );

  // Multiplier operands. binary32 significands enter the array at its bottom; f32x2 lane 1
  // enters F32x2Shift (28) bits up, in the multiplicand used by Booth digits BoothHiDigit (14)
  // and above; vmad operands are sign-extended. Every multiple fits 55 bits of two's
  // complement; the multiplicands travel sign-extended to a machine word (MulLoW), the width
  // the array's rows are formed in, so the array extends nothing per digit (it extends each
  // row to 106 bits by an arithmetic shift). The doubled multiplicands the Booth selectors
  // need are the same wires one place up.
  logic [MulLoW-1:0]  mcand_lo, mcand_hi, mcand2_lo, mcand2_hi;
  logic [MplierW-1:0] mplier;

  always_comb begin
    if (en_1.vm) begin
      mcand_lo  = {{(MulLoW - VmOpW){vm_ta[VmOpW-1]}}, vm_ta};
      mcand_hi  = mcand_lo;
      mcand2_lo = {{(MulLoW - VmOpW - 1){vm_ta[VmOpW-1]}}, vm_ta, 1'b0};
      mcand2_hi = mcand2_lo;
      mplier    = {{(MplierW - VmOpW){vm_tb[VmOpW-1]}}, vm_tb};
    end else if (kind1 == KIND_F64) begin
      mcand_lo  = MulLoW'(g_s1_lane[0].a.sig);
      mcand_hi  = mcand_lo;
      mcand2_lo = MulLoW'(g_s1_lane[0].a.sig) << 1;
      mcand2_hi = mcand2_lo;
      mplier    = MplierW'(g_s1_lane[0].b.sig);
    end else if (en_1.lane1) begin
      mcand_lo  = MulLoW'(a32[0]);
      mcand_hi  = MulLoW'(a32[1]) << F32x2Shift;
      mcand2_lo = MulLoW'(a32[0]) << 1;
      mcand2_hi = MulLoW'(a32[1]) << (F32x2Shift + 1);
      mplier    = (MplierW'(b32[1]) << F32x2Shift) | MplierW'(b32[0]);
    end else begin
      mcand_lo  = MulLoW'(a32[0]);
      mcand_hi  = mcand_lo;
      mcand2_lo = MulLoW'(a32[0]) << 1;
      mcand2_hi = mcand2_lo;
      mplier    = MplierW'(b32[0]);
    end
  end

  logic [MulLoW-1:0] pp_rows_lo [BoothRows];
  logic [MulHiWordW-1:0] pp_rows_hi [BoothRows];
  logic [MulW-1:0]   mul_sum, mul_carry;

  ptxfma_booth u_booth (
    .mcand_lo_i (mcand_lo),
    .mcand_hi_i (mcand_hi),
    .mcand2_lo_i(mcand2_lo),
    .mcand2_hi_i(mcand2_hi),
    .mplier_i   (mplier),
    .rows_lo_o  (pp_rows_lo),
    .rows_hi_o  (pp_rows_hi)
  );

  ptxfma_csa_tree u_csa_tree (
    .rows_lo_i(pp_rows_lo),
    .rows_hi_i(pp_rows_hi),
    .sum_o    (mul_sum),
    .carry_o  (mul_carry)
  );

  always_comb begin
    s1_d.valid     = in_valid_i;
    s1_d.tag       = in_tag_i;
    s1_d.ctrl      = ctrl1;
    s1_d.mul_sum   = mul_sum;
    s1_d.mul_carry = mul_carry;
    s1_d.vm        = en_1.vm ? vm_1 : '0;
    s1_d.lane0     = en_1.lane0 ? g_s1_lane[0].lane : '0;
    s1_d.lane1     = en_1.lane1 ? g_s1_lane[1].lane : '0;
`ifdef FAULT_STICKY_RZ
    // Injected fault: the alignment sticky is lost under .rz.
    if (ctrl1.rnd == RND_RZ) begin
      s1_d.lane0.align_sticky = 1'b0;
      s1_d.lane1.align_sticky = 1'b0;
    end
`endif
  end

  /////////////////////////////////////////////////////////////////////////////////////////////
  // Stage 2: product carry-propagate add, sm_1x truncation, significand add with leading-   //
  // zero anticipation; vmad accumulate.                                                     //
  /////////////////////////////////////////////////////////////////////////////////////////////

  kind_e             kind2;
  lane_en_t          en_2;
  logic [MulW-1:0]   prod;
  logic [VmTmpW-1:0] vm_tmp_2;

  assign kind2  = kind_decode(s1_q.ctrl.kind);
  assign en_2   = lane_enables(kind2);

  // The multiplier's carry-propagate adder (model adder::product), modulo 2^106.
  assign prod = s1_q.mul_sum + s1_q.mul_carry;

  ptxfma_vmad_accumulate u_vmad_accumulate (
    .prod_i(prod[VmTmpW-1:0]),
    .vm_i  (s1_q.vm),
    .tmp_o (vm_tmp_2)
  );

  for (genvar l = 0; l < Lanes; l++) begin : g_s2_lane
    s2_lane_t lane;

    // A binary32 product is F32ProdW (48) bits, lane l's F32x2HiLsb * l up (47:0, 103:56):
    // MSB-aligned to the 106-bit product position. Lane 0 of f64 takes the whole product.
    // sm_1x, a binary32 kind, truncates the lane's own product (p_f32): it need not wait for
    // the f64 product's longer carry chain through the mux.
    logic [MulW-1:0] p, p_f32;
    assign p_f32 = {prod[F32x2HiLsb * l +: F32ProdW], (MulW - F32ProdW)'(0)};
    assign p     = (l == 0 && kind2 == KIND_F64) ? prod : p_f32;

    ptxfma_s2_lane u_s2_lane (
      .en_i    ((l == 0) ? en_2.lane0 : en_2.lane1),
      .sm1x_i  (kind2 == KIND_SM1X),
      .rnd_rm_i(effective_rnd(kind2, s1_q.ctrl.rnd) == RND_RM),
      .p_i     (p),
      .p_f32_i (p_f32),
      .lane_i  ((l == 0) ? s1_q.lane0 : s1_q.lane1),
      .lane_o  (lane)
    );
  end

  always_comb begin
    s2_d.valid  = s1_q.valid;
    s2_d.tag    = s1_q.tag;
    s2_d.ctrl   = s1_q.ctrl;
    s2_d.vm_tmp = en_2.vm ? vm_tmp_2 : '0;
    s2_d.lane0  = en_2.lane0 ? g_s2_lane[0].lane : '0;
    s2_d.lane1  = en_2.lane1 ? g_s2_lane[1].lane : '0;
  end

  /////////////////////////////////////////////////////////////////////////////////////////////
  // Stage 3: normalisation (LZA count, one-bit correction, gradual underflow); vmad scale.  //
  /////////////////////////////////////////////////////////////////////////////////////////////

  kind_e            kind3;
  lane_en_t         en_3;
  logic [DataW-1:0] vm_res_3;

  assign kind3  = kind_decode(s2_q.ctrl.kind);
  assign en_3   = lane_enables(kind3);

  ptxfma_vmad_scale u_vmad_scale (
    .scale_i       (scale_decode(s2_q.ctrl.scale)),
    .signed_final_i(ctrl_signed_final(s2_q.ctrl.a_signed, s2_q.ctrl.b_signed,
                                      s2_q.ctrl.neg_ab, s2_q.ctrl.neg_c)),
    .tmp_i         (s2_q.vm_tmp),
    .res_o         (vm_res_3)
  );

  for (genvar l = 0; l < Lanes; l++) begin : g_s3_lane
    s3_lane_t lane;

    ptxfma_s3_lane u_s3_lane (
      .en_i     ((l == 0) ? en_3.lane0 : en_3.lane1),
      .fmt_i    (res_fmt(kind3, ab_fmt_decode(s2_q.ctrl.ab_fmt))),
      .via_f32_i(s2_q.ctrl.via_f32 && kind_is_half(kind3)),
      .lane_i   ((l == 0) ? s2_q.lane0 : s2_q.lane1),
      .lane_o   (lane)
    );
  end

  always_comb begin
    s3_d.valid  = s2_q.valid;
    s3_d.tag    = s2_q.tag;
    s3_d.ctrl   = s2_q.ctrl;
    s3_d.vm_res = en_3.vm ? vm_res_3 : '0;
    s3_d.lane0  = en_3.lane0 ? g_s3_lane[0].lane : '0;
    s3_d.lane1  = en_3.lane1 ? g_s3_lane[1].lane : '0;
  end

  /////////////////////////////////////////////////////////////////////////////////////////////
  // Stage 4: rounding, overflow, flushing, special results, saturation; result packing.     //
  /////////////////////////////////////////////////////////////////////////////////////////////

  kind_e            kind4;
  lane_en_t         en_4;
  rnd_e             rnd4;
  res_fmt_e         fmt4;
  logic             flush4, half4;
  logic [DataW-1:0] vm_d_4;

  assign kind4  = kind_decode(s3_q.ctrl.kind);
  assign en_4   = lane_enables(kind4);
  // The vmad result needs no enable here: the output mux selects it by kind.
  logic unused_en_4_vm;
  assign unused_en_4_vm = en_4.vm;
  assign rnd4   = effective_rnd(kind4, s3_q.ctrl.rnd);
  assign fmt4   = res_fmt(kind4, ab_fmt_decode(s3_q.ctrl.ab_fmt));
  assign flush4 = ctrl_flush(kind4, s3_q.ctrl.ftz);
  assign half4  = kind_is_half(kind4);

  for (genvar l = 0; l < Lanes; l++) begin : g_round
    logic [DataW-1:0] res;

    ptxfma_round u_round (
      .en_i     ((l == 0) ? en_4.lane0 : en_4.lane1),
      .fmt_i    (fmt4),
      .rnd_i    (rnd4),
      .flush_i  (flush4),
      .sat_i    (s3_q.ctrl.sat),
      .relu_i   (s3_q.ctrl.relu && half4),
      .via_f32_i(s3_q.ctrl.via_f32 && half4),
      .lane_i   ((l == 0) ? s3_q.lane0 : s3_q.lane1),
      .res_o    (res)
    );
  end

  ptxfma_vmad_saturate u_vmad_saturate (
    .sat_i         (s3_q.ctrl.sat),
    .signed_final_i(ctrl_signed_final(s3_q.ctrl.a_signed, s3_q.ctrl.b_signed,
                                      s3_q.ctrl.neg_ab, s3_q.ctrl.neg_c)),
    .res_i         (s3_q.vm_res),
    .d_o           (vm_d_4)
  );

  always_comb begin
    out_d.valid = s3_q.valid;
    out_d.tag   = s3_q.tag;
    unique case (kind4)
      KIND_VMAD:  out_d.d = vm_d_4;
      KIND_F32X2: out_d.d = (g_round[1].res << F32W) | g_round[0].res;
      KIND_HALF2: out_d.d = (g_round[1].res << F16W) | g_round[0].res;
      default:    out_d.d = g_round[0].res;
    endcase
  end

  /////////////////////////////
  // Pipeline registers      //
  /////////////////////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q  <= '0;
      s2_q  <= '0;
      s3_q  <= '0;
      out_q <= '0;
`ifdef FAULT_S1_TAG_NO_RESET
      // Injected fault: the tag flops of stage 1 miss the reset.
      s1_q.tag <= s1_q.tag;
`endif
    end else begin
      s1_q  <= s1_d;
      s2_q  <= s2_d;
      s3_q  <= s3_d;
      out_q <= out_d;
    end
  end

  assign s1_o        = s1_q;
  assign s2_o        = s2_q;
  assign s3_o        = s3_q;
  assign out_o       = out_q;
  assign out_valid_o = out_q.valid;
  assign out_tag_o   = out_q.tag;
  assign out_d_o     = out_q.d;

endmodule
