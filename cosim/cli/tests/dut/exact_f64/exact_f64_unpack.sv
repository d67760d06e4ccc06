// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// exact_f64_unpack: a binary64 magnitude as its significand (hidden bit included) and the
// exponent of its least significant bit in units of the minimum subnormal (exact_f64_pkg),
// with its class.

module exact_f64_unpack import exact_f64_pkg::*; (
  input  logic [62:0]      x_i,
  output logic [SigW-1:0]  sig_o,
  output logic [ExpW-1:0]  lsb_exp_o,
  output logic             zero_o,
  output logic             inf_o,
  output logic             nan_o
);

  logic [ExpW-1:0]   field;
  logic [SigW-2:0]   frac;
  logic              sub;

  assign field     = x_i[62:SigW-1];
  assign frac      = x_i[SigW-2:0];
  assign sub       = field == '0;
  assign sig_o     = {!sub, frac};
  assign lsb_exp_o = sub ? '0 : field - ExpW'(1);
  assign zero_o    = sub && frac == '0;
  assign inf_o     = field == '1 && frac == '0;
  assign nan_o     = field == '1 && frac != '0;

endmodule
