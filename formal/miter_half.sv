// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// The half-precision miter of `fma-cosim dut prove` (docs/formal.md): a team's design
// (`miter_dut`, its top renamed) and the kit's `ptxfma_top` (`miter_kit`), each read and
// flattened on its own beforehand (their module names may clash), share every input. Each
// operation issued with a half control word the design's forms allow (`miter_forms.svh`,
// written by the driver from the PTX decoder) must retire from the design exactly at its fixed
// latency, with the kit's result under the manifest's NaN convention. Read by Yosys's own
// parser (`read_verilog -formal -sv`), which can instantiate modules already loaded.
//
// Defines: DUT_EDGES (rising edges from issue to the design's result; the kit's is 4),
// DUT_TAG_W (the design's tag width; left out: no tag ports), NAN_CANONICAL with CANON_F16 and
// CANON_BF16 (the design's NaN wherever the kit has one); else any NaN for a NaN (PTX, S10).

// A delay line of N edges (N = 0: a wire), cleared by reset.
module miter_delay #(parameter integer W = 1, parameter integer N = 0) (
  input  wire         clk_i,
  input  wire         rst_ni,
  input  wire [W-1:0] d_i,
  output wire [W-1:0] q_o
);
  generate
    if (N == 0) begin : g_wire
      assign q_o = d_i;
    end else begin : g_line
      reg [W*N-1:0] line_q;
      always @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) line_q <= {W*N{1'b0}};
        else         line_q <= {line_q, d_i};
      end
      assign q_o = line_q[W*N-1 -: W];
    end
  endgenerate
endmodule

module miter (
  input wire        clk_i,
  input wire        in_valid_i,
  input wire [15:0] in_tag_i,
  input wire [26:0] in_ctrl_i,
  input wire [63:0] in_a_i,
  input wire [63:0] in_b_i,
  input wire [63:0] in_c_i
);
`include "miter_forms.svh"

  localparam integer KitEdges = 4;
  localparam integer DutEdges = `DUT_EDGES;
  // Both results are compared this many edges after issue.
  localparam integer Edges = DutEdges > KitEdges ? DutEdges : KitEdges;

  // Reset in the first cycle only (every flop starts with any value).
  reg init_q = 1'b1;
  always @(posedge clk_i) init_q <= 1'b0;
  wire rst_n = !init_q;

  wire        kit_valid, dut_valid;
  wire [63:0] kit_d, dut_d;

  miter_kit u_kit (
    .clk_i      (clk_i),
    .rst_ni     (rst_n),
    .in_valid_i (in_valid_i),
    .in_tag_i   (in_tag_i),
    .in_ctrl_i  (in_ctrl_i),
    .in_a_i     (in_a_i),
    .in_b_i     (in_b_i),
    .in_c_i     (in_c_i),
    .out_valid_o(kit_valid),
    .out_d_o    (kit_d)
  );

  miter_dut u_dut (
    .clk_i      (clk_i),
    .rst_ni     (rst_n),
    .in_valid_i (in_valid_i),
`ifdef DUT_TAG_W
    .in_tag_i   (in_tag_i[`DUT_TAG_W-1:0]),
`endif
    .in_ctrl_i  (in_ctrl_i),
    .in_a_i     (in_a_i),
    .in_b_i     (in_b_i),
    .in_c_i     (in_c_i),
    .out_valid_o(dut_valid),
    .out_d_o    (dut_d)
  );

  // What retires at the compare point: the operation issued Edges edges ago (valid, control
  // word), the kit's result and the design's, each delayed to that point.
  wire        cmp_issued, cmp_dut_valid;
  wire [26:0] cmp_ctrl;
  wire [63:0] cmp_kit_d, cmp_dut_d;
  miter_delay #(.W(28), .N(Edges)) u_issue (
    .clk_i(clk_i), .rst_ni(rst_n), .d_i({in_valid_i, in_ctrl_i}), .q_o({cmp_issued, cmp_ctrl}));
  miter_delay #(.W(64), .N(Edges - KitEdges)) u_kit_d (
    .clk_i(clk_i), .rst_ni(rst_n), .d_i(kit_d), .q_o(cmp_kit_d));
  miter_delay #(.W(65), .N(Edges - DutEdges)) u_dut_d (
    .clk_i(clk_i), .rst_ni(rst_n), .d_i({dut_valid, dut_d}), .q_o({cmp_dut_valid, cmp_dut_d}));

`include "miter_lane.svh"

  wire cmp_x2   = ctrl_x2(cmp_ctrl);
  wire cmp_bf16 = ctrl_bf16(cmp_ctrl);
  wire same_d = cmp_x2
      ? (cmp_dut_d[63:32] == 32'd0 && cmp_kit_d[63:32] == 32'd0
         && lane_ok(cmp_bf16, cmp_dut_d[15:0], cmp_kit_d[15:0])
         && lane_ok(cmp_bf16, cmp_dut_d[31:16], cmp_kit_d[31:16]))
      : (cmp_dut_d[63:16] == 48'd0 && cmp_kit_d[63:16] == 48'd0
         && lane_ok(cmp_bf16, cmp_dut_d[15:0], cmp_kit_d[15:0]));

  // The words the design's forms allow, and nothing else, are issued.
  always @* begin
    if (in_valid_i) assume (legal_ctrl(in_ctrl_i));
  end

  always @* begin
    if (!init_q) begin
      // Retires exactly at its latency: no result without an operation, none missing.
      assert (cmp_dut_valid == cmp_issued);
      if (cmp_issued) assert (same_d);
    end
  end
endmodule
