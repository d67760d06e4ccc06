// Must pass `make synth-test`'s check: a clean registered adder.
module good_pipe (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic [7:0] a_i,
  input  logic [7:0] b_i,
  output logic [7:0] s_o
);
  logic [7:0] s_d, s_q;
  always_comb s_d = a_i + b_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s_q <= '0;
    else         s_q <= s_d;
  end
  assign s_o = s_q;
endmodule
