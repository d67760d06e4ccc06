// A team's f64 FMA as most units outside NVIDIA build it: the kit's own pipe with every f64 NaN
// result replaced by the canonical quiet NaN (0x7ff8000000000000, RISC-V's and Arm's
// default-NaN mode). Checked with `nan = "canonical"` by tests/dut.rs; FAULT_CANON_LSB plants
// a numeric fault the convention must not forgive.
module canon_f64 import ptxfma_pkg::*; (
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
  output logic [DataW-1:0] out_d_o
);

  s3_t              s3;
  logic [DataW-1:0] d;
  logic             f64_q;

  ptxfma_top u_top (
    .clk_i,
    .rst_ni,
    .in_valid_i,
    .in_tag_i,
    .in_ctrl_i,
    .in_a_i,
    .in_b_i,
    .in_c_i,
    .out_valid_o,
    .out_tag_o,
    .out_d_o (d),
    .s1_o    (),
    .s2_o    (),
    .s3_o    (s3),
    .out_o   ()
  );

  // The kind of the operation that retires next cycle, beside the pipe's own out register.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f64_q <= 1'b0;
    end else begin
      f64_q <= s3.valid && s3.ctrl.kind == KIND_F64;
    end
  end

  logic nan;
  assign nan = f64_q && d[62:52] == '1 && d[51:0] != '0;

`ifdef FAULT_CANON_LSB
  // A planted numeric fault: the last bit of one f64 number result in 64 flipped.
  assign out_d_o = nan ? 64'h7ff8_0000_0000_0000 : d ^ {63'd0, f64_q && d[5:0] == 6'h2a};
`else
  assign out_d_o = nan ? 64'h7ff8_0000_0000_0000 : d;
`endif

endmodule
