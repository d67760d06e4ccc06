// Must be rejected by `make synth-test`'s check: an output read from a net nothing drives.
module bad_undriven (
  input  logic a_i,
  output logic y_o
);
  wire floating;
  assign y_o = a_i & floating;
endmodule
