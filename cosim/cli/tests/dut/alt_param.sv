// rtl/alt/ behind a wrapper whose parameters plant a fault (cosim/cli/tests/dut.rs, built with
// `[design.parameters]`): with `Fault` "xor", bits 31:0 of every result are XORed with
// `FaultMask`; with `Fault` "none" (the default) the results are rtl/alt/'s.
module alt_param #(
  parameter string       Fault     = "none",
  parameter int unsigned FaultMask = 0
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [15:0] in_tag_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i,
  input  logic [63:0] in_b_i,
  input  logic [63:0] in_c_i,
  output logic        out_valid_o,
  output logic [15:0] out_tag_o,
  output logic [63:0] out_d_o
);

  localparam logic [31:0] Flip = (Fault == "xor") ? 32'(FaultMask) : 32'd0;

  logic [63:0] d;

  ptxfma_alt_top u_alt (
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
    .out_d_o (d)
  );

  assign out_d_o = {d[63:32], d[31:0] ^ Flip};

endmodule
