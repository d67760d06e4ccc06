// Must be rejected by `make synth-test`'s check: an always_comb that infers a latch
// (q keeps its value while en_i is low).
module bad_latch (
  input  logic en_i,
  input  logic d_i,
  output logic q_o
);
  always_comb begin
    if (en_i) q_o = d_i;
  end
endmodule
