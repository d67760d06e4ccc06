// Must be rejected by `make synth-test`'s check: a latch written as one (always_latch).
module bad_always_latch (
  input  logic en_i,
  input  logic d_i,
  output logic q_o
);
  always_latch begin
    if (en_i) q_o <= d_i;
  end
endmodule
