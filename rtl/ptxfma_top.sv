// Copyright ptxfma contributors.
// Licensed under the Apache License, Version 2.0.
//
// ptxfma_top: TEMPORARY STUB that brings up the co-simulation flow. It carries valid, tag and the
// control word down the four register banks and drives zeros everywhere else, so it disagrees
// with the golden model at once; the real datapath replaces this file with the same port list.
//
// Timing: all banks load every cycle; an async active-low reset clears them.
//
// FAULT_STICKY_RZ (stub stand-in for the real injected fault): sets lane 0's align_sticky in s1
// for round-toward-zero operations, so a build with +define+FAULT_STICKY_RZ differs from the
// clean build in a named stage and field, which is what the fault-injection test looks for.

module ptxfma_top import ptxfma_pkg::*; (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        in_valid_i,
  input  logic [15:0] in_tag_i,
  input  logic [23:0] in_ctrl_i,
  input  logic [63:0] in_a_i,
  input  logic [63:0] in_b_i,
  input  logic [63:0] in_c_i,

  output logic        out_valid_o,
  output logic [15:0] out_tag_o,
  output logic [63:0] out_d_o,

  // Taps of the register banks, compared field by field by the co-simulator.
  output s1_t         s1_o,
  output s2_t         s2_o,
  output s3_t         s3_o,
  output out_t        out_o
);

  s1_t  s1_d, s1_q;
  s2_t  s2_d, s2_q;
  s3_t  s3_d, s3_q;
  out_t out_d, out_q;

  // The stub ignores the operands.
  logic unused_operands;
  assign unused_operands = ^{in_a_i, in_b_i, in_c_i};

  always_comb begin
    s1_d       = '0;
    s1_d.valid = in_valid_i;
    s1_d.tag   = in_tag_i;
    s1_d.ctrl  = ctrl_t'(in_ctrl_i);
`ifdef FAULT_STICKY_RZ
    s1_d.lane0.align_sticky = (s1_d.ctrl.rnd == RndRz);
`endif
  end

  always_comb begin
    s2_d       = '0;
    s2_d.valid = s1_q.valid;
    s2_d.tag   = s1_q.tag;
    s2_d.ctrl  = s1_q.ctrl;
  end

  always_comb begin
    s3_d       = '0;
    s3_d.valid = s2_q.valid;
    s3_d.tag   = s2_q.tag;
    s3_d.ctrl  = s2_q.ctrl;
  end

  always_comb begin
    out_d       = '0;
    out_d.valid = s3_q.valid;
    out_d.tag   = s3_q.tag;
  end

  // The stub's banks use only valid, tag and ctrl of the previous bank.
  logic unused_banks;
  assign unused_banks = ^{s1_q.mul_sum, s1_q.mul_carry, s1_q.vm, s1_q.lane0, s1_q.lane1,
                          s2_q.vm_tmp, s2_q.lane0, s2_q.lane1,
                          s3_q.vm_res, s3_q.lane0, s3_q.lane1};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q  <= '0;
      s2_q  <= '0;
      s3_q  <= '0;
      out_q <= '0;
    end else begin
      s1_q  <= s1_d;
      s2_q  <= s2_d;
      s3_q  <= s3_d;
      out_q <= out_d;
    end
  end

  assign out_valid_o = out_q.valid;
  assign out_tag_o   = out_q.tag;
  assign out_d_o     = out_q.d;

  assign s1_o  = s1_q;
  assign s2_o  = s2_q;
  assign s3_o  = s3_q;
  assign out_o = out_q;

endmodule
