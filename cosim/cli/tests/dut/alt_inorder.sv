// rtl/alt/ without tag ports, the commonest shape of a fixed-latency unit: results retire in
// issue order, and the co-simulator matches each to the oldest operation in flight
// (`contract.tag_width = 0`, cosim/cli/tests/dut.rs).
module alt_inorder (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i,
  input  logic [63:0] in_b_i,
  input  logic [63:0] in_c_i,
  output logic        out_valid_o,
  output logic [63:0] out_d_o
);

  logic [15:0] unused_tag;

  ptxfma_alt_top u_alt (
    .clk_i,
    .rst_ni,
    .in_valid_i,
    .in_tag_i    (16'd0),
    .in_ctrl_i,
    .in_a_i,
    .in_b_i,
    .in_c_i,
    .out_valid_o,
    .out_tag_o   (unused_tag),
    .out_d_o
  );

endmodule
