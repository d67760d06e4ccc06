// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of the pipe (docs/formal.md): the real ptxfma_top with every input free in every
// cycle, proved by SBY (k-induction). One claim per run, chosen by a define (PROP_*); TWIN_*
// defines state the claims that must fail.

module formal_top import ptxfma_pkg::*; (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             in_valid_i,
  input logic [TagW-1:0]  in_tag_i,
  input logic [CtrlW-1:0] in_ctrl_i,
  input logic [DataW-1:0] in_a_i,
  input logic [DataW-1:0] in_b_i,
  input logic [DataW-1:0] in_c_i
);

  logic             out_valid;
  logic [TagW-1:0]  out_tag;
  logic [DataW-1:0] out_d;
  s1_t              s1;
  s2_t              s2;
  s3_t              s3;
  out_t             out;

  ptxfma_top u_top (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (in_valid_i),
    .in_tag_i   (in_tag_i),
    .in_ctrl_i  (in_ctrl_i),
    .in_a_i     (in_a_i),
    .in_b_i     (in_b_i),
    .in_c_i     (in_c_i),
    .out_valid_o(out_valid),
    .out_tag_o  (out_tag),
    .out_d_o    (out_d),
    .s1_o       (s1),
    .s2_o       (s2),
    .s3_o       (s3),
    .out_o      (out)
  );

  // The specification of the handshake: valid and tag delayed by four edges, reset to zero.
  logic [3:0]      valid_q;
  logic [TagW-1:0] tag_q [4];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      tag_q   <= '{default: '0};
    end else begin
      valid_q <= {valid_q[2:0], in_valid_i};
      tag_q   <= '{in_tag_i, tag_q[0], tag_q[1], tag_q[2]};
    end
  end

  // The first cycle is a reset (the flops start with any value); a reset seen at the last edge.
  logic init_q = 1'b1;
  logic rst_seen_q = 1'b0;
  logic rst_seen2_q = 1'b0;
  always_ff @(posedge clk_i) begin
    init_q      <= 1'b0;
    rst_seen_q  <= !rst_ni;
    rst_seen2_q <= rst_seen_q;
  end

  // Which banks a kind uses, from the control word's kind code (docs/dut.md): lane 1 for f32x2
  // (2) and half2 (6), the vmad side path for vmad (4), lane 0 for every other code.
  function automatic logic uses_lane1(logic [CtrlW-1:0] c);
    return (c[2:0] == 3'd2) || (c[2:0] == 3'd6);
  endfunction
  function automatic logic uses_vm(logic [CtrlW-1:0] c);
    return c[2:0] == 3'd4;
  endfunction

  logic idle_zero, idle_zero_twin;
  assign idle_zero = (uses_lane1(s1.ctrl) || (s1.lane1 == '0))
                  && (uses_lane1(s2.ctrl) || (s2.lane1 == '0))
                  && (uses_lane1(s3.ctrl) || (s3.lane1 == '0))
                  && (!uses_vm(s1.ctrl) || (s1.lane0 == '0))
                  && (!uses_vm(s2.ctrl) || (s2.lane0 == '0))
                  && (!uses_vm(s3.ctrl) || (s3.lane0 == '0))
                  && (uses_vm(s1.ctrl) || (s1.vm == '0))
                  && (uses_vm(s2.ctrl) || (s2.vm_tmp == '0))
                  && (uses_vm(s3.ctrl) || (s3.vm_res == '0));
  // Twin: lane 1 idle for f32x2 as well (it is not).
  assign idle_zero_twin = (s3.ctrl[2:0] == 3'd6) || (s3.lane1 == '0);

  always_comb begin
    if (init_q) assume (!rst_ni);
  end

  always_comb begin
    if (!init_q) begin
`ifdef PROP_LATENCY
    assert (out_valid == valid_q[3] && out_tag == tag_q[3]);
`endif
`ifdef TWIN_LATENCY3
    assert (out_valid == valid_q[2] && out_tag == tag_q[2]);
`endif
`ifdef PROP_RESET
    if (rst_seen_q) assert ((s1 == '0) && (s2 == '0) && (s3 == '0) && (out == '0));
`endif
`ifdef TWIN_RESET_LATER
    // Twin: the flops still all zero one edge after the reset (the inputs have loaded).
    if (rst_seen2_q) assert ((s1 == '0) && (s2 == '0) && (s3 == '0) && (out == '0));
`endif
`ifdef PROP_IDLE
    assert (idle_zero);
`endif
`ifdef TWIN_IDLE
    assert (idle_zero_twin);
`endif
    end
  end

endmodule
