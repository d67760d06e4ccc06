// Must be rejected by `make synth-test`'s check: one net with two drivers.
module bad_multidriver (
  input  logic a_i,
  input  logic b_i,
  output wire  y_o
);
  assign y_o = a_i;
  assign y_o = b_i;
endmodule
