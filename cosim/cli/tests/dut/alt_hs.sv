// rtl/alt/ behind a ready/valid handshake: the input stalls in a pseudo-random pattern and
// whenever the output FIFO could overflow; results wait in the FIFO until out_ready_i.
module alt_hs (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [15:0] in_tag_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i,
  input  logic [63:0] in_b_i,
  input  logic [63:0] in_c_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [15:0] out_tag_o,
  output logic [63:0] out_d_o
);
  localparam int unsigned Depth = 8;
  logic [15:0] lfsr_q;
  logic        take, pop, a_valid;
  logic [15:0] a_tag;
  logic [63:0] a_d;
  logic [3:0]  count_q, fill_q;
  logic [2:0]  rd_q, wr_q;
  logic [79:0] fifo_q [Depth];

  // Taken operations not yet popped (in the unit or the FIFO) never exceed the FIFO's depth.
  assign in_ready_o  = (lfsr_q[1:0] != 2'b00) && (count_q < 4'(Depth));
  assign take        = in_valid_i && in_ready_o;
  assign out_valid_o = fill_q != '0;
  assign {out_tag_o, out_d_o} = fifo_q[rd_q];
  assign pop         = out_valid_o && out_ready_i;

  ptxfma_alt_top u_alt (
    .clk_i, .rst_ni, .in_valid_i(take), .in_tag_i, .in_ctrl_i, .in_a_i, .in_b_i, .in_c_i,
    .out_valid_o(a_valid), .out_tag_o(a_tag), .out_d_o(a_d)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lfsr_q  <= 16'hACE1;
      count_q <= '0;
      fill_q  <= '0;
      rd_q    <= '0;
      wr_q    <= '0;
    end else begin
      lfsr_q  <= {lfsr_q[0] ^ lfsr_q[2] ^ lfsr_q[3] ^ lfsr_q[5], lfsr_q[15:1]};
      count_q <= count_q + 4'(take) - 4'(pop);
      fill_q  <= fill_q + 4'(a_valid) - 4'(pop);
      if (a_valid) wr_q <= wr_q + 3'd1;
      if (pop) rd_q <= rd_q + 3'd1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_valid) fifo_q[wr_q] <= {a_tag, a_d};
  end
endmodule
