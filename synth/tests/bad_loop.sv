// Must be rejected by `make synth-test`'s check: a combinational loop.
module bad_loop (
  input  logic a_i,
  output wire  y_o
);
  wire x;
  assign x   = y_o ^ a_i;
  assign y_o = x;
endmodule
